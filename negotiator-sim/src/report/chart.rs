//! Charts as data: what is drawn (series of points as lines, stacked
//! areas or bars, with names and colours) and the frame around it (title,
//! axis labels and ranges). The SVG ([`super::svg`]) and PNG
//! ([`super::png`]) renderers draw the same [`Chart`].
//!
//! ```
//! use negotiator_sim::report::chart::{Chart, Series};
//!
//! let mut c = Chart::new("utilisation", "Utilisation", "time (h)", "busy / total slots");
//! c.series.push(Series::line("busy", vec![(0.0, 0.5), (1.0, 1.0)]));
//! c.fit();
//! assert_eq!((c.y_range.0, c.y_range.1), (0.0, 1.0));
//! ```

/// How a series is drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum Style {
    /// A solid polyline through the points.
    Line,
    /// A dashed polyline (quotas, totals: references rather than data).
    Dashed,
    /// A filled band between `lower` (one value per point) and the points'
    /// `y`: a layer of a stacked area chart.
    Area {
        /// The band's lower edge, at the points' `x`.
        lower: Vec<f64>,
    },
    /// A bar per point, centred on `x`, from 0 to `y`, `width` wide (in x
    /// units).
    Bars {
        /// The bars' width in x units.
        width: f64,
    },
}

/// One named series of points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The name shown in the legend.
    pub name: String,
    /// The points, in order of x.
    pub points: Vec<(f64, f64)>,
    /// How the points are drawn.
    pub style: Style,
    /// The colour, `#rrggbb`.
    pub colour: String,
}

impl Series {
    /// A solid line in the first palette colour (set `colour` to change).
    pub fn line(name: &str, points: Vec<(f64, f64)>) -> Series {
        Series { name: name.to_string(), points, style: Style::Line, colour: PALETTE[0].to_string() }
    }
}

/// A chart: series in a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The file stem of the chart's files (`usage_by_user`).
    pub id: String,
    /// The title drawn above the chart.
    pub title: String,
    /// The x axis label.
    pub x_label: String,
    /// The y axis label.
    pub y_label: String,
    /// The series, drawn in order (later ones on top).
    pub series: Vec<Series>,
    /// The x range shown.
    pub x_range: (f64, f64),
    /// The y range shown.
    pub y_range: (f64, f64),
}

/// Colours given to series in turn: Okabe and Ito's palette, which stays
/// distinct for colour-blind readers, then a few more.
pub const PALETTE: &[&str] =
    &["#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#f0e442", "#000000", "#7f7f7f", "#8c564b"];

/// How many lines a chart's legend has room for, one under the other
/// beside the plot.
pub const LEGEND_ROWS: usize = 20;

/// Of `series` series, how many the legend names one by one, and how many
/// more it only counts (a last line `and N more`) when they do not all
/// fit in [`LEGEND_ROWS`].
///
/// ```
/// use negotiator_sim::report::chart::legend_split;
/// assert_eq!(legend_split(3), (3, 0));
/// assert_eq!(legend_split(20), (20, 0));
/// assert_eq!(legend_split(40), (19, 21));
/// ```
pub fn legend_split(series: usize) -> (usize, usize) {
    if series <= LEGEND_ROWS {
        (series, 0)
    } else {
        (LEGEND_ROWS - 1, series - (LEGEND_ROWS - 1))
    }
}

/// The palette colour for the `i`-th series (cycling).
pub fn colour(i: usize) -> String {
    PALETTE[i % PALETTE.len()].to_string()
}

impl Chart {
    /// An empty chart.
    pub fn new(id: &str, title: &str, x_label: &str, y_label: &str) -> Chart {
        Chart {
            id: id.to_string(),
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            series: Vec::new(),
            x_range: (0.0, 1.0),
            y_range: (0.0, 1.0),
        }
    }

    /// Sets the ranges to hold every point (and the areas' lower edges and
    /// bars' widths), the y range from 0 (or below, for negative values)
    /// and rounded up to half a tick step.
    pub fn fit(&mut self) {
        let mut x0 = f64::INFINITY;
        let mut x1 = f64::NEG_INFINITY;
        let mut y1: f64 = 0.0;
        let mut y0: f64 = 0.0;
        for s in &self.series {
            let half = if let Style::Bars { width } = s.style { width / 2.0 } else { 0.0 };
            for &(x, y) in &s.points {
                if x.is_finite() {
                    x0 = x0.min(x - half);
                    x1 = x1.max(x + half);
                }
                if y.is_finite() {
                    y1 = y1.max(y);
                    y0 = y0.min(y);
                }
            }
        }
        if !(x0.is_finite() && x1.is_finite()) {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        if y1 <= y0 {
            y1 = y0 + 1.0;
        }
        // Rounded out to half a tick step: little empty space above.
        let step = tick_step(y1 - y0) / 2.0;
        self.x_range = (x0, x1);
        self.y_range = ((y0 / step).floor() * step, (y1 / step - 1e-9).ceil() * step);
    }
}

/// A "nice" tick step (1, 2 or 5 times a power of ten) that cuts `span`
/// into 4 to 10 parts.
///
/// ```
/// use negotiator_sim::report::chart::tick_step;
/// assert_eq!(tick_step(100.0), 20.0);
/// assert_eq!(tick_step(1.0), 0.2);
/// assert_eq!(tick_step(48.0), 10.0);
/// ```
pub fn tick_step(span: f64) -> f64 {
    if !(span.is_finite() && span > 0.0) {
        return 1.0;
    }
    let raw = span / 5.0;
    let magnitude = 10f64.powi(raw.log10().floor() as i32);
    let fraction = raw / magnitude;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// The ticks of the range `lo..=hi`: multiples of [`tick_step`].
///
/// ```
/// use negotiator_sim::report::chart::ticks;
/// assert_eq!(ticks(0.0, 100.0), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
/// ```
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let step = tick_step(hi - lo);
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last).map(|i| round_to_step(i as f64 * step, step)).collect()
}

fn round_to_step(x: f64, step: f64) -> f64 {
    let decimals = decimals(step);
    let scale = 10f64.powi(decimals as i32);
    (x * scale).round() / scale
}

fn decimals(step: f64) -> usize {
    if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    }
}

/// A tick's label: as many decimals as the step needs, no more.
///
/// ```
/// use negotiator_sim::report::chart::tick_label;
/// assert_eq!(tick_label(0.4, 0.2), "0.4");
/// assert_eq!(tick_label(40.0, 20.0), "40");
/// assert_eq!(tick_label(1500000.0, 500000.0), "1500000");
/// ```
pub fn tick_label(x: f64, step: f64) -> String {
    let d = decimals(step);
    let s = format!("{x:.d$}");
    if s == "-0" || s.starts_with("-0.") && s.trim_start_matches("-0.").chars().all(|c| c == '0') {
        s.trim_start_matches('-').to_string()
    } else {
        s
    }
}
