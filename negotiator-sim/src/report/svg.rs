//! Charts as SVG text, written by hand: no script, no external font or
//! style sheet, so a chart shows the same in any browser and inside an
//! HTML page. Coordinates are written with one decimal, so the same chart
//! gives the same bytes on every run and platform.
//!
//! ```
//! use negotiator_sim::report::chart::{Chart, Series};
//! use negotiator_sim::report::svg::render;
//!
//! let mut c = Chart::new("demo", "Demo", "x", "y");
//! c.series.push(Series::line("up", vec![(0.0, 0.0), (10.0, 10.0)]));
//! c.fit();
//! let svg = render(&c);
//! assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
//! assert!(svg.contains("<title>up</title>"));
//! ```

use std::fmt::Write;

use super::chart::{legend_split, tick_label, tick_step, ticks, Chart, Style};

/// The size of a chart, in pixels.
pub const WIDTH: f64 = 760.0;
/// The height of a chart, in pixels.
pub const HEIGHT: f64 = 400.0;
/// The plot area's left edge when the y axis' tick labels are short; it
/// moves right to make room for longer ones (see [`layout`]).
pub const LEFT: f64 = 70.0;
/// The plot area's right edge (the legend is to its right).
pub const RIGHT: f64 = 590.0;
/// The plot area's top edge.
pub const TOP: f64 = 40.0;
/// The plot area's bottom edge.
pub const BOTTOM: f64 = 340.0;
/// The font size of tick labels and axis titles.
pub const FONT_SIZE: f64 = 12.0;
/// The font size of the legend's names.
pub const LEGEND_FONT_SIZE: f64 = 11.0;
/// A legend line's swatch, from and to, in pixels right of [`RIGHT`].
const LEGEND_SWATCH: (f64, f64) = (8.0, 26.0);
/// Where a legend line's name starts, in pixels right of [`RIGHT`].
pub const LEGEND_TEXT: f64 = 30.0;

/// The chart's left side, in pixels from the left: the y axis title
/// (turned a quarter to read upwards), then the tick labels, right-aligned
/// against the axis, then the plot area.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// The y axis title's baseline: its letters stand to the left of it
    /// (a line of text is less than [`FONT_SIZE`] high).
    pub y_title_x: f64,
    /// Where the tick labels end (their right edge).
    pub tick_labels_right: f64,
    /// The widest tick label, estimated (0.64 em a character).
    pub tick_labels_width: f64,
    /// The plot area's left edge.
    pub left: f64,
}

/// How wide `text` is in DejaVu Sans (or Verdana, a little wider) at
/// `size` pixels, estimated from its characters, each at about the
/// widest of its kind in DejaVu Sans (digits and most lower-case letters
/// 0.64 em, `i` and `l` 0.28 em, `m` and `w` 0.98 em, capitals 0.78 em,
/// anything else 1 em), so that the estimate is rather too wide than too
/// narrow.
///
/// ```
/// use negotiator_sim::report::svg::text_width;
/// assert_eq!(text_width("100", 10.0), 19.2);
/// assert!(text_width("0.5", 12.0) < text_width("100", 12.0));
/// ```
pub fn text_width(text: &str, size: f64) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            '0'..='9' => 0.64,
            '.' | ',' | ' ' | ':' | ';' => 0.32,
            '-' => 0.36,
            '(' | ')' | '[' | ']' | '/' => 0.4,
            '_' => 0.5,
            'i' | 'j' | 'l' | '!' | '|' | '\'' => 0.28,
            'f' | 'r' | 't' => 0.41,
            'm' | 'w' => 0.98,
            'a'..='z' => 0.64,
            'A'..='Z' => 0.78,
            _ => 1.0,
        })
        .sum();
    em * size
}

/// `text` cut, with an ellipsis, to what fits in `width` pixels at font
/// size `size` (by [`text_width`]).
///
/// ```
/// use negotiator_sim::report::svg::{shorten_to_width, text_width};
/// assert_eq!(shorten_to_width("alice@site", 200.0, 11.0), "alice@site");
/// let cut = shorten_to_width("alice-with-a-rather-long-user-name@site", 120.0, 11.0);
/// assert!(cut.ends_with('…') && text_width(&cut, 11.0) <= 120.0, "{cut}");
/// ```
pub fn shorten_to_width(text: &str, width: f64, size: f64) -> String {
    if text_width(text, size) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        out.push(c);
        if text_width(&out, size) + text_width("…", size) > width {
            out.pop();
            break;
        }
    }
    out.push('…');
    out
}

/// The y axis' tick labels of `chart`, from the bottom up.
fn y_tick_labels(chart: &Chart) -> Vec<(f64, String)> {
    let (y0, y1) = chart.y_range;
    let step = tick_step(y1 - y0);
    ticks(y0, y1).into_iter().map(|t| (t, tick_label(t, step))).collect()
}

/// Where the y axis title, its tick labels and the plot area of `chart`
/// go: the title 6 pixels from the chart's edge, the tick labels a line
/// height right of its baseline and 2 more pixels off (the widest
/// estimated at 0.64 em a character), the axis 6 pixels after them (and
/// at [`LEFT`] at least).
///
/// ```
/// use negotiator_sim::report::chart::{Chart, Series};
/// use negotiator_sim::report::svg::{layout, LEFT};
///
/// let mut c = Chart::new("demo", "Demo", "x", "y");
/// c.series.push(Series::line("up", vec![(0.0, 0.0), (1.0, 1.0)]));
/// c.fit();
/// assert_eq!(layout(&c).left, LEFT);
/// c.series.push(Series::line("big", vec![(0.0, 0.0), (1.0, 2_500_000.0)]));
/// c.fit();
/// let l = layout(&c);
/// assert!(l.left > LEFT && l.y_title_x + 12.0 < l.tick_labels_right - l.tick_labels_width);
/// ```
pub fn layout(chart: &Chart) -> Layout {
    // Tick labels are digits, points and minus signs: each counted as a
    // digit (0.64 em), the widest of them.
    let widest =
        y_tick_labels(chart).iter().map(|(_, l)| l.chars().count()).max().unwrap_or(0) as f64 * 0.64 * FONT_SIZE;
    let y_title_x = 6.0 + FONT_SIZE;
    let left = (y_title_x + FONT_SIZE + 2.0 + widest + 6.0).max(LEFT).ceil();
    Layout { y_title_x, tick_labels_right: left - 6.0, tick_labels_width: widest, left }
}

/// The pixel position of chart coordinates `(x, y)` (y clamped to the
/// range shown).
pub fn to_pixels(chart: &Chart, x: f64, y: f64) -> (f64, f64) {
    at_pixels(chart, layout(chart).left, x, y)
}

/// [`to_pixels`] with the plot area's left edge known.
fn at_pixels(chart: &Chart, left: f64, x: f64, y: f64) -> (f64, f64) {
    let (x0, x1) = chart.x_range;
    let (y0, y1) = chart.y_range;
    let y = y.clamp(y0, y1);
    let px = left + (x - x0) / (x1 - x0) * (RIGHT - left);
    let py = BOTTOM - (y - y0) / (y1 - y0) * (BOTTOM - TOP);
    (px, py)
}

/// Escapes text for XML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

fn points_attr(chart: &Chart, left: f64, pts: impl Iterator<Item = (f64, f64)>) -> String {
    let mut s = String::new();
    for (x, y) in pts {
        if !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let (px, py) = at_pixels(chart, left, x, y);
        if !s.is_empty() {
            s.push(' ');
        }
        let _ = write!(s, "{px:.1},{py:.1}");
    }
    s
}

/// The chart as a standalone SVG document.
pub fn render(chart: &Chart) -> String {
    let layout = layout(chart);
    let left = layout.left;
    let to_pixels = |chart: &Chart, x: f64, y: f64| at_pixels(chart, left, x, y);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(s, "<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#ffffff\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">{}</text>",
        (left + RIGHT) / 2.0,
        escape(&chart.title)
    );
    // Grid and tick labels.
    let (x0, x1) = chart.x_range;
    let (y0, _) = chart.y_range;
    let _ = writeln!(s, "<g stroke=\"#dddddd\" stroke-width=\"1\">");
    let xstep = tick_step(x1 - x0);
    let xticks = ticks(x0, x1);
    let yticks = y_tick_labels(chart);
    for &t in &xticks {
        let (px, _) = to_pixels(chart, t, y0);
        let _ = writeln!(s, "<line x1=\"{px:.1}\" y1=\"{TOP}\" x2=\"{px:.1}\" y2=\"{BOTTOM}\"/>");
    }
    for &(t, _) in &yticks {
        let (_, py) = to_pixels(chart, x0, t);
        let _ = writeln!(s, "<line x1=\"{left}\" y1=\"{py:.1}\" x2=\"{RIGHT}\" y2=\"{py:.1}\"/>");
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, "<g fill=\"#333333\">");
    for &t in &xticks {
        let (px, _) = to_pixels(chart, t, y0);
        let _ = writeln!(
            s,
            "<text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            BOTTOM + 16.0,
            tick_label(t, xstep)
        );
    }
    for (t, label) in &yticks {
        let (_, py) = to_pixels(chart, x0, *t);
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>",
            layout.tick_labels_right,
            py + 4.0,
        );
    }
    let _ = writeln!(s, "</g>");
    // Series.
    for series in &chart.series {
        let name = escape(&series.name);
        let colour = &series.colour;
        match &series.style {
            Style::Line | Style::Dashed => {
                let dash = if series.style == Style::Dashed { " stroke-dasharray=\"6 4\"" } else { "" };
                let _ = writeln!(
                    s,
                    "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash} points=\"{}\"><title>{name}</title></polyline>",
                    points_attr(chart, left, series.points.iter().copied())
                );
            }
            Style::Area { lower } => {
                let upper = series.points.iter().copied();
                let back = series.points.iter().zip(lower).rev().map(|(&(x, _), &l)| (x, l));
                let _ = writeln!(
                    s,
                    "<polygon fill=\"{colour}\" fill-opacity=\"0.85\" stroke=\"{colour}\" stroke-width=\"0.5\" points=\"{}\"><title>{name}</title></polygon>",
                    points_attr(chart, left, upper.chain(back))
                );
            }
            Style::Bars { width } => {
                let _ = writeln!(s, "<g fill=\"{colour}\" fill-opacity=\"0.85\"><title>{name}</title>");
                for &(x, y) in &series.points {
                    let (px0, py) = to_pixels(chart, x - width / 2.0, y);
                    let (px1, pbase) = to_pixels(chart, x + width / 2.0, 0.0);
                    let _ = writeln!(
                        s,
                        "<rect x=\"{px0:.1}\" y=\"{py:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>",
                        (px1 - px0 - 1.0).max(0.5),
                        (pbase - py).max(0.0)
                    );
                }
                let _ = writeln!(s, "</g>");
            }
        }
    }
    // Axes.
    let _ = writeln!(
        s,
        "<path d=\"M{left},{TOP} V{BOTTOM} H{RIGHT}\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>"
    );
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
        (left + RIGHT) / 2.0,
        BOTTOM + 40.0,
        escape(&chart.x_label)
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate({:.1} {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        layout.y_title_x,
        (TOP + BOTTOM) / 2.0,
        escape(&chart.y_label)
    );
    // Legend: a swatch and the series' name, cut to what fits in the
    // chart's width (the whole name shows on hovering).
    let (named, more) = legend_split(chart.series.len());
    for (i, series) in chart.series.iter().take(named).enumerate() {
        let y = TOP + 8.0 + 18.0 * i as f64;
        let (x0, x1) = (RIGHT + LEGEND_SWATCH.0, RIGHT + LEGEND_SWATCH.1);
        let swatch = match series.style {
            Style::Line => format!(
                "<line x1=\"{x0}\" y1=\"{y:.1}\" x2=\"{x1}\" y2=\"{y:.1}\" stroke=\"{}\" stroke-width=\"2\"/>",
                series.colour
            ),
            Style::Dashed => format!(
                "<line x1=\"{x0}\" y1=\"{y:.1}\" x2=\"{x1}\" y2=\"{y:.1}\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>",
                series.colour
            ),
            Style::Area { .. } | Style::Bars { .. } => format!(
                "<rect x=\"{x0}\" y=\"{:.1}\" width=\"{}\" height=\"10\" fill=\"{}\"/>",
                y - 5.0,
                x1 - x0,
                series.colour
            ),
        };
        let text_x = RIGHT + LEGEND_TEXT;
        let shown = shorten_to_width(&series.name, WIDTH - 4.0 - text_x, LEGEND_FONT_SIZE);
        let hover =
            if shown == series.name { String::new() } else { format!("<title>{}</title>", escape(&series.name)) };
        let _ = writeln!(
            s,
            "{swatch}<text x=\"{text_x}\" y=\"{:.1}\" font-size=\"{LEGEND_FONT_SIZE}\">{hover}{}</text>",
            y + 4.0,
            escape(&shown)
        );
    }
    if more > 0 {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" font-size=\"{LEGEND_FONT_SIZE}\">and {more} more</text>",
            RIGHT + LEGEND_TEXT,
            TOP + 12.0 + 18.0 * named as f64
        );
    }
    s.push_str("</svg>\n");
    s
}

/// `text` cut to `max` characters, with an ellipsis when cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}
