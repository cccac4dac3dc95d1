//! The SVG charts' layout, in numbers: the y axis title, its tick labels
//! and the legend's names keep clear of each other and of the chart's
//! edge, whatever the values' size. Text widths are estimated here from
//! the font size and the characters alone (no font at hand): 0.64 em a
//! digit, which is DejaVu Sans' (0.636 em), and as much for the point and
//! minus, wider than they are; the legend's letters as the test says.

use negotiator_sim::report::chart::{Chart, Series, Style};
use negotiator_sim::report::svg::{self, FONT_SIZE, WIDTH};

/// The attribute `name` of the element starting at `tag` (its text up to
/// the closing `>`).
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let rest = &tag[start..];
    Some(&rest[..rest.find('"')?])
}

/// Every `<text ...>content</text>` of `svg`: its opening tag and its
/// content (a `<title>` inside left out).
fn texts(svg: &str) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    for piece in svg.split("<text").skip(1) {
        let Some(end_tag) = piece.find('>') else { continue };
        let tag = &piece[..end_tag];
        let body = &piece[end_tag + 1..piece.find("</text>").unwrap_or(piece.len())];
        let content = match body.find("</title>") {
            Some(i) => body[i + "</title>".len()..].to_string(),
            None => body.to_string(),
        };
        out.push((tag, content.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")));
    }
    out
}

/// A line chart from 0 up to `top`.
fn chart_up_to(top: f64) -> Chart {
    let mut c = Chart::new("c", "A chart", "time (h)", "weighted slots in use");
    c.series.push(Series::line("a", vec![(0.0, 0.0), (5.0, top)]));
    c.fit();
    c
}

#[test]
fn the_y_axis_title_stays_left_of_the_tick_labels() {
    for top in [1.0, 0.003, 7.5, 160.0, 2500.0, 150_000.0, 2_500_000.0, 1.2e9, -40_000.0, -0.25] {
        let chart = chart_up_to(top);
        let rendered = svg::render(&chart);
        let texts = texts(&rendered);
        // The y title: turned a quarter, its letters left of its baseline
        // at x, less than a font size high.
        let (title, _) = texts
            .iter()
            .find(|(tag, _)| tag.contains("rotate(-90)"))
            .unwrap_or_else(|| panic!("no y title in {rendered}"));
        let transform = attr(title, "transform").expect("transform");
        let title_x: f64 = transform
            .trim_start_matches("translate(")
            .split(' ')
            .next()
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("{transform}"));
        // The tick labels: right-aligned at x.
        let ticks: Vec<(f64, &String)> = texts
            .iter()
            .filter(|(tag, _)| attr(tag, "text-anchor") == Some("end"))
            .map(|(tag, text)| (attr(tag, "x").and_then(|x| x.parse().ok()).expect("x"), text))
            .collect();
        assert!(ticks.len() >= 3, "{top}: {ticks:?}");
        let leftmost = ticks
            .iter()
            .map(|(x, text)| x - text.chars().count() as f64 * 0.64 * FONT_SIZE)
            .fold(f64::INFINITY, f64::min);
        let widest = ticks.iter().map(|(_, t)| t.chars().count()).max().unwrap_or(0);
        assert!(
            title_x + FONT_SIZE < leftmost,
            "{top}: the y title (x {title_x}, {FONT_SIZE} high) reaches the tick labels (from x {leftmost}, \
             {widest} characters)"
        );
        assert!(title_x - FONT_SIZE >= 0.0, "{top}: the y title is cut by the chart's edge");
        // The labels end left of the axis, which is where the layout says.
        let layout = svg::layout(&chart);
        assert!(ticks.iter().all(|(x, _)| *x < layout.left), "{top}");
        assert!(rendered.contains(&format!("<path d=\"M{},", layout.left)), "{top}");
        let (px, _) = svg::to_pixels(&chart, chart.x_range.0, 0.0);
        assert_eq!(px, layout.left, "{top}");
    }
}

#[test]
fn short_tick_labels_keep_the_usual_plot_area() {
    for top in [1.0, 160.0, 2500.0] {
        assert_eq!(svg::layout(&chart_up_to(top)).left, svg::LEFT, "{top}");
    }
    assert!(svg::layout(&chart_up_to(2_500_000.0)).left > svg::LEFT);
}

#[test]
fn legend_names_stay_inside_the_chart() {
    let mut c = Chart::new("c", "Usage by group against quota", "time (h)", "weighted slots");
    let names = [
        "alice@site".to_string(),
        "group_chemistry quota".to_string(),
        "alice-with-a-rather-long-user-name@sim".to_string(),
        "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm".to_string(),
    ];
    for (i, name) in names.iter().enumerate() {
        let style = if i % 2 == 0 { Style::Line } else { Style::Dashed };
        c.series.push(Series { style, ..Series::line(name, vec![(0.0, i as f64), (1.0, 2.0)]) });
    }
    c.fit();
    let rendered = svg::render(&c);
    let legend: Vec<(f64, f64, String)> = texts(&rendered)
        .into_iter()
        .filter(|(tag, _)| attr(tag, "font-size").is_some() && !tag.contains("font-weight"))
        .map(|(tag, text)| {
            let x = attr(tag, "x").and_then(|x| x.parse().ok()).expect("x");
            let size = attr(tag, "font-size").and_then(|s| s.parse().ok()).expect("font-size");
            (x, size, text)
        })
        .collect();
    assert_eq!(legend.len(), names.len(), "{rendered}");
    for ((x, size, text), name) in legend.iter().zip(&names) {
        // DejaVu Sans' widths, rounded up: m, w, @ and … about 1 em, i, j
        // and l 0.3, the hyphen, point and space 0.4, f, r and t 0.45, the
        // others 0.64 at most.
        let width: f64 = text
            .chars()
            .map(|ch| match ch {
                'm' | 'w' | '@' | '…' => 1.0,
                'i' | 'j' | 'l' => 0.3,
                '-' | '.' | ' ' => 0.4,
                'f' | 'r' | 't' => 0.45,
                _ => 0.64,
            })
            .sum::<f64>()
            * size;
        assert!(x + width <= WIDTH, "{text:?} ends at {} of {WIDTH}", x + width);
        if text != name {
            // Cut, with the whole name on hovering.
            assert!(text.ends_with('…') && name.starts_with(text.trim_end_matches('…')), "{text:?}");
            assert!(rendered.contains(&format!("<title>{name}</title>")), "{name}");
        }
    }
    assert_eq!(legend[0].2, "alice@site");
    assert_eq!(legend[1].2, "group_chemistry quota");
}

#[test]
fn a_legend_of_more_series_than_fit_counts_the_rest() {
    let mut c = Chart::new("c", "Many", "x", "y");
    for i in 0..40 {
        c.series.push(Series::line(&format!("group_{i:02} usage"), vec![(0.0, i as f64), (1.0, 1.0)]));
    }
    c.fit();
    let rendered = svg::render(&c);
    let legend: Vec<(f64, String)> = texts(&rendered)
        .into_iter()
        .filter(|(tag, _)| attr(tag, "font-size").is_some() && !tag.contains("font-weight"))
        .map(|(tag, text)| (attr(tag, "y").and_then(|y| y.parse().ok()).expect("y"), text))
        .collect();
    assert_eq!(legend.len(), 20, "{legend:?}");
    assert_eq!(legend[18].1, "group_18 usage");
    assert_eq!(legend[19].1, "and 21 more");
    assert!(legend.iter().all(|(y, _)| *y <= svg::HEIGHT - 4.0), "{legend:?}");
    // Every series is still drawn.
    assert_eq!(rendered.matches("<polyline").count(), 40);
}
