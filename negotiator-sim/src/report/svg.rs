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

use super::chart::{tick_label, tick_step, ticks, Chart, Style};

/// The size of a chart, in pixels.
pub const WIDTH: f64 = 760.0;
/// The height of a chart, in pixels.
pub const HEIGHT: f64 = 400.0;
/// The plot area's left edge.
pub const LEFT: f64 = 70.0;
/// The plot area's right edge (the legend is to its right).
pub const RIGHT: f64 = 590.0;
/// The plot area's top edge.
pub const TOP: f64 = 40.0;
/// The plot area's bottom edge.
pub const BOTTOM: f64 = 340.0;

/// The pixel position of chart coordinates `(x, y)` (y clamped to the
/// range shown).
pub fn to_pixels(chart: &Chart, x: f64, y: f64) -> (f64, f64) {
    let (x0, x1) = chart.x_range;
    let (y0, y1) = chart.y_range;
    let y = y.clamp(y0, y1);
    let px = LEFT + (x - x0) / (x1 - x0) * (RIGHT - LEFT);
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

fn points_attr(chart: &Chart, pts: impl Iterator<Item = (f64, f64)>) -> String {
    let mut s = String::new();
    for (x, y) in pts {
        if !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let (px, py) = to_pixels(chart, x, y);
        if !s.is_empty() {
            s.push(' ');
        }
        let _ = write!(s, "{px:.1},{py:.1}");
    }
    s
}

/// The chart as a standalone SVG document.
pub fn render(chart: &Chart) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(s, "<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#ffffff\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">{}</text>",
        (LEFT + RIGHT) / 2.0,
        escape(&chart.title)
    );
    // Grid and tick labels.
    let (x0, x1) = chart.x_range;
    let (y0, y1) = chart.y_range;
    let _ = writeln!(s, "<g stroke=\"#dddddd\" stroke-width=\"1\">");
    let xstep = tick_step(x1 - x0);
    let ystep = tick_step(y1 - y0);
    let xticks = ticks(x0, x1);
    let yticks = ticks(y0, y1);
    for &t in &xticks {
        let (px, _) = to_pixels(chart, t, y0);
        let _ = writeln!(s, "<line x1=\"{px:.1}\" y1=\"{TOP}\" x2=\"{px:.1}\" y2=\"{BOTTOM}\"/>");
    }
    for &t in &yticks {
        let (_, py) = to_pixels(chart, x0, t);
        let _ = writeln!(s, "<line x1=\"{LEFT}\" y1=\"{py:.1}\" x2=\"{RIGHT}\" y2=\"{py:.1}\"/>");
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
    for &t in &yticks {
        let (_, py) = to_pixels(chart, x0, t);
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 6.0,
            py + 4.0,
            tick_label(t, ystep)
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
                    points_attr(chart, series.points.iter().copied())
                );
            }
            Style::Area { lower } => {
                let upper = series.points.iter().copied();
                let back = series.points.iter().zip(lower).rev().map(|(&(x, _), &l)| (x, l));
                let _ = writeln!(
                    s,
                    "<polygon fill=\"{colour}\" fill-opacity=\"0.85\" stroke=\"{colour}\" stroke-width=\"0.5\" points=\"{}\"><title>{name}</title></polygon>",
                    points_attr(chart, upper.chain(back))
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
        "<path d=\"M{LEFT},{TOP} V{BOTTOM} H{RIGHT}\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>"
    );
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 40.0,
        escape(&chart.x_label)
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate(18 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        (TOP + BOTTOM) / 2.0,
        escape(&chart.y_label)
    );
    // Legend.
    for (i, series) in chart.series.iter().enumerate() {
        let y = TOP + 8.0 + 18.0 * i as f64;
        let swatch = match series.style {
            Style::Line => format!(
                "<line x1=\"{0}\" y1=\"{1:.1}\" x2=\"{2}\" y2=\"{1:.1}\" stroke=\"{3}\" stroke-width=\"2\"/>",
                RIGHT + 12.0,
                y,
                RIGHT + 30.0,
                series.colour
            ),
            Style::Dashed => format!(
                "<line x1=\"{0}\" y1=\"{1:.1}\" x2=\"{2}\" y2=\"{1:.1}\" stroke=\"{3}\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>",
                RIGHT + 12.0,
                y,
                RIGHT + 30.0,
                series.colour
            ),
            Style::Area { .. } | Style::Bars { .. } => format!(
                "<rect x=\"{}\" y=\"{:.1}\" width=\"18\" height=\"10\" fill=\"{}\"/>",
                RIGHT + 12.0,
                y - 5.0,
                series.colour
            ),
        };
        let _ = writeln!(
            s,
            "{swatch}<text x=\"{}\" y=\"{:.1}\">{}</text>",
            RIGHT + 36.0,
            y + 4.0,
            escape(&shorten(&series.name, 24))
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
