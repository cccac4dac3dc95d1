//! What the quota algorithm keeps from one cycle to the next: when each
//! group was last served a recovered remainder.

/// When each group was last served a recovered remainder (its
/// round-robin time, by group index), as a negotiator remembers it from
/// one cycle to the next until it is reconfigured. Shared by the cycles of
/// one [`Negotiator`](crate::negotiator::Negotiator); a clone starts with
/// the same times.
///
/// ```
/// use matchmaker::groups::RoundRobinTimes;
///
/// let times = RoundRobinTimes::default();
/// assert!(times.get().is_empty()); // no cycle yet: no group served
/// times.set(vec![0.0, 1_700_000_000.0]);
/// assert_eq!(times.clone().get(), [0.0, 1_700_000_000.0]);
/// times.clear();
/// assert!(times.get().is_empty());
/// ```
#[derive(Debug, Default)]
pub struct RoundRobinTimes(std::sync::Mutex<Vec<f64>>);

impl RoundRobinTimes {
    /// The times, by group index (empty before the first cycle with groups).
    pub fn get(&self) -> Vec<f64> {
        self.0.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// Replaces the times.
    pub fn set(&self, times: Vec<f64>) {
        if let Ok(mut t) = self.0.lock() {
            *t = times;
        }
    }

    /// Forgets them, as a restarted negotiator has.
    pub fn clear(&self) {
        self.set(Vec::new());
    }
}

impl Clone for RoundRobinTimes {
    fn clone(&self) -> Self {
        RoundRobinTimes(std::sync::Mutex::new(self.get()))
    }
}
