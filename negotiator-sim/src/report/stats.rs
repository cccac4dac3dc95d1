//! The statistics the report and the comparison quote.

/// The arithmetic mean (0 for no value).
///
/// ```
/// assert_eq!(negotiator_sim::report::stats::mean(&[1.0, 2.0, 6.0]), 3.0);
/// ```
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The `p`-th percentile (0 < p ≤ 100) by the nearest-rank method: the
/// smallest value such that at least p % of the values are at most it
/// (0 for no value). For 20 values the 95th percentile is the 19th
/// smallest.
///
/// ```
/// use negotiator_sim::report::stats::percentile;
/// let v: Vec<f64> = (1..=20).map(f64::from).collect();
/// assert_eq!(percentile(&v, 95.0), 19.0);
/// assert_eq!(percentile(&[5.0], 95.0), 5.0);
/// ```
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// A unit to show times in: seconds, minutes or hours, by the span.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeUnit {
    /// Seconds per unit.
    pub seconds: f64,
    /// The unit's short name (`s`, `min`, `h`).
    pub name: &'static str,
}

impl TimeUnit {
    /// Hours for spans of 3 hours or more, minutes for 3 minutes or more,
    /// else seconds.
    ///
    /// ```
    /// use negotiator_sim::report::stats::TimeUnit;
    /// assert_eq!(TimeUnit::for_span(86_400.0).name, "h");
    /// assert_eq!(TimeUnit::for_span(600.0).name, "min");
    /// ```
    pub fn for_span(seconds: f64) -> TimeUnit {
        if seconds >= 3.0 * 3600.0 {
            TimeUnit { seconds: 3600.0, name: "h" }
        } else if seconds >= 180.0 {
            TimeUnit { seconds: 60.0, name: "min" }
        } else {
            TimeUnit { seconds: 1.0, name: "s" }
        }
    }
}
