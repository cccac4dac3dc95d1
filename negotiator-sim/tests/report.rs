//! The report of a small run: values read back from the summary, the
//! SVG charts and the PNG images.

use std::path::PathBuf;

mod common;
use common::{run, run_b, strs};

use negotiator_sim::report::compare::{compare, measures, ALL};
use negotiator_sim::report::{self, build, chart::Style, svg, Images};
use negotiator_sim::table::Column;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn writes_the_page_and_the_images() {
    let dir = scratch("report_files");
    let r = build("Small run", &run()).unwrap();
    let written = r.write(&dir, Images { svg: true, png: true }).unwrap();
    let ids: Vec<&str> = r.charts.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["usage_by_user", "usage_by_group", "rup", "eup", "utilisation", "wait_histogram", "wait_cdf"]);
    assert_eq!(written.len(), 1 + 2 * ids.len());
    for id in ids {
        let svg = std::fs::read_to_string(dir.join(format!("charts/{id}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }
}

#[test]
fn summary_quotes_waits_and_usage_shares() {
    let r = build("Small run", &run()).unwrap();
    let s = r.summary.as_ref().unwrap();
    assert_eq!(s.column("user"), Some(&strs(vec!["alice@site", "bob@site"])));
    assert_eq!(s.column("jobs"), Some(&Column::Int(vec![19, 1])));
    assert_eq!(s.column("started"), Some(&Column::Int(vec![19, 0])));
    // alice waited 0, 60, ..., 1080 s: mean 540; the 95th percentile of
    // 19 values is the 19th (ceil(0.95 × 19) = 19): 1080.
    assert_eq!(s.column("mean_wait"), Some(&Column::Float(vec![540.0, 5000.0])));
    assert_eq!(s.column("p95_wait"), Some(&Column::Float(vec![1080.0, 5000.0])));
    // Slot-seconds by the last cycle: alice 5×6×60 + 4×4×60 = 2760,
    // bob 5×2×60 + 4×6×60 = 2040.
    assert_eq!(s.column("usage_share"), Some(&Column::Float(vec![2760.0 / 4800.0, 2040.0 / 4800.0])));
    let html = r.html();
    assert!(html.contains(
        "<tr><td>alice@site</td><td></td><td>19</td><td>19</td><td>00:09:00</td><td>00:18:00</td><td>57.5 %</td></tr>"
    ));
    assert!(html.contains("<tr><td>mean utilisation</td><td>90.0 %</td></tr>"), "{html}");
    assert!(html.contains("<tr><td>simulated time</td><td>00:09:00</td></tr>"));
    // Self-contained: no script, nothing loaded.
    for banned in ["<script", "src=", "href=", "https:", "@import"] {
        assert!(!html.contains(banned), "{banned}");
    }
    assert_eq!(html.matches("<svg ").count(), 7);
}

/// The points attribute of the element whose title is `name`.
fn points_of<'s>(svg: &'s str, name: &str) -> &'s str {
    let end = svg.find(&format!("<title>{name}</title>")).expect("series in the SVG");
    let start = svg[..end].rfind("points=\"").expect("a points attribute") + 8;
    let len = svg[start..].find('"').expect("the attribute's end");
    &svg[start..start + len]
}

fn px(chart: &report::chart::Chart, x: f64, y: f64) -> String {
    let (px, py) = svg::to_pixels(chart, x, y);
    format!("{px:.1},{py:.1}")
}

#[test]
fn svg_charts_draw_the_tables_values() {
    let r = build("Small run", &run()).unwrap();
    let usage = &r.charts[0];
    assert_eq!((usage.y_range, usage.x_range), ((0.0, 10.0), (0.0, 9.0)));
    let text = svg::render(usage);
    // bob's band sits on alice's: from 6 to 8 slots before 5 minutes, from
    // 4 to 10 after.
    let bob = points_of(&text, "bob@site");
    for (x, y) in [(0.0, 8.0), (4.0, 8.0), (5.0, 10.0), (9.0, 10.0), (9.0, 4.0), (4.0, 6.0), (0.0, 6.0)] {
        assert!(bob.split(' ').any(|p| p == px(usage, x, y)), "({x}, {y}) not in {bob}");
    }
    assert!(matches!(&usage.series[1].style, Style::Area { lower } if lower[9] == 4.0));
    // The pool's size, dashed, at 10 slots (the top of the frame).
    let pool = points_of(&text, "pool (total slots)");
    assert!(pool.starts_with("70.0,40.0 ") && pool.ends_with(" 590.0,40.0"), "{pool}");
    // Utilisation: 0.8 then 1.0.
    let util = r.charts.iter().find(|c| c.id == "utilisation").unwrap();
    let util_svg = svg::render(util);
    let line = points_of(&util_svg, "utilisation");
    assert!(line.contains(&px(util, 4.0, 0.8)) && line.ends_with(&px(util, 9.0, 1.0)), "{line}");
    // Group usage against a dashed quota of 4.
    let groups = svg::render(&r.charts[1]);
    assert!(groups.contains("stroke-dasharray=\"6 4\" points=\"70.0,"));
    assert!(points_of(&groups, "group_b quota")
        .split(' ')
        .all(|p| p.ends_with(&format!(",{:.1}", svg::to_pixels(&r.charts[1], 0.0, 4.0).1))));
    // The histogram: 20 jobs in bins of 10 minutes (half the tick step of
    // 20 minutes), the last alone at 5000 s (83.3 minutes: the bin from 80
    // to 90, centred on 85); the first holds alice's waits under 10 minutes.
    let hist = r.charts.iter().find(|c| c.id == "wait_histogram").unwrap();
    assert_eq!(hist.series[0].name, "jobs (20)");
    assert_eq!(hist.series[0].points.last(), Some(&(85.0, 1.0)));
    assert_eq!(hist.series[0].points[0], (5.0, 10.0));
    assert_eq!(hist.series[0].points.iter().map(|p| p.1).sum::<f64>(), 20.0);
    // The CDF of all jobs reaches 0.95 at 18 minutes, 1 at 83.3.
    let cdf = r.charts.iter().find(|c| c.id == "wait_cdf").unwrap();
    let all = &cdf.series.last().unwrap().points;
    assert!(all.contains(&(18.0, 0.95)));
    assert_eq!(all.last(), Some(&(5000.0 / 60.0, 1.0)));
}

#[test]
fn charts_are_the_same_bytes_every_time() {
    let a = build("Small run", &run()).unwrap();
    let b = build("Small run", &run()).unwrap();
    assert_eq!(a.html(), b.html());
    for (x, y) in a.charts.iter().zip(&b.charts) {
        assert_eq!(report::png::render(x).unwrap(), report::png::render(y).unwrap(), "{}", x.id);
    }
}

fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(bytes);
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a PNG image");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn png_areas_follow_the_usage() {
    let r = build("Small run", &run()).unwrap();
    let (w, h, pixels) = decode(&report::png::render(&r.charts[0]).unwrap());
    assert_eq!((w, h), (760, 400));
    // Areas are drawn at 85 % over white: count each user's colour.
    let blend = |c: u8| (f64::from(c) * 0.85 + 255.0 * 0.15) as i32;
    let count = |hex: &str| {
        let c: Vec<i32> = (0..3).map(|i| blend(u8::from_str_radix(&hex[1 + 2 * i..3 + 2 * i], 16).unwrap())).collect();
        pixels.chunks(3).filter(|p| (0..3).all(|i| (i32::from(p[i]) - c[i]).abs() <= 2)).count() as f64
    };
    let alice = count("#0072b2");
    let bob = count("#e69f00");
    // Slot-minutes: alice 6×4 + 5 + 4×4 = 45, bob 2×4 + 4 + 6×4 = 36.
    assert!(alice > 20_000.0 && bob > 15_000.0, "{alice} {bob}");
    assert!((alice / bob - 45.0 / 36.0).abs() < 0.05, "{alice} / {bob}");
}

#[test]
fn a_table_without_a_needed_column_is_a_clear_error() {
    let mut tables = run();
    tables[0].columns.retain(|(n, _)| n != "rup");
    let err = build("x", &tables).unwrap_err().to_string();
    assert_eq!(err, "table users: no column rup");
    assert_eq!(
        build("x", &[]).unwrap_err().to_string(),
        "no result table (users, groups, cycles or jobs) to report on"
    );
}

#[test]
fn fair_share_error_utilisation_and_waits_of_two_runs() {
    let a = measures(&run()).unwrap();
    // Both users have idle jobs and equal factors: each deserves half of
    // what is handed out. A gave alice 6 of 8 (0.75) and then 4 of 10 (0.4):
    // errors 0.25 for five cycles and 0.1 for five, mean 0.175; bob the same.
    let alice = a["alice@site"];
    assert!((alice.fair_share_error - 0.175).abs() < 1e-12, "{alice:?}");
    assert!((a["bob@site"].fair_share_error - 0.175).abs() < 1e-12);
    assert!((a[ALL].fair_share_error - 0.175).abs() < 1e-12);
    // Utilisation: alice (5×6 + 5×4) / 10 cycles / 10 slots, bob (5×2 + 5×6) / 100.
    assert!((alice.utilisation - 0.5).abs() < 1e-12 && (a["bob@site"].utilisation - 0.4).abs() < 1e-12);
    assert!((a[ALL].utilisation - 0.9).abs() < 1e-12);
    assert_eq!((alice.mean_wait, alice.p95_wait, alice.jobs), (540.0, 1080.0, 19));
    let b = measures(&run_b()).unwrap();
    assert!(b["alice@site"].fair_share_error.abs() < 1e-12);
    assert_eq!(b[ALL].utilisation, 1.0);

    let c = compare(&run(), &run_b()).unwrap();
    let t = c.table();
    assert_eq!(t.column("user"), Some(&strs(vec![ALL, "alice@site", "bob@site"])));
    let Some(Column::Float(diff)) = t.column("fair_share_error_diff") else { panic!() };
    assert!(diff.iter().all(|d| (d + 0.175).abs() < 1e-12), "{diff:?}");
    let Some(Column::Float(p95)) = t.column("p95_wait_b") else { panic!() };
    // (all) in B: 20 waits, the 19th smallest is 1020 s.
    assert_eq!(p95, &vec![1020.0, 1080.0, 100.0]);
    let text = c.text();
    assert!(
        text.contains("bob@site\n  fair share error                   0.1750         0.0000        -0.1750\n"),
        "{text}"
    );
    assert!(text.contains("  mean wait                          5000 s          100 s        -4900 s\n"), "{text}");
    assert!(text.contains("  utilisation                        90.0 %        100.0 %        +10.0 %\n"), "{text}");
}

#[test]
fn a_user_of_one_run_only_shows_dashes_in_the_other() {
    let mut b = run_b();
    for (name, column) in b[3].columns.iter_mut() {
        if let ("user", Column::Str(v)) = (name.as_str(), column) {
            v[19] = "carol@site".into();
        }
    }
    let c = compare(&run(), &b).unwrap();
    let carol = c.rows.iter().find(|r| r.0 == "carol@site").unwrap();
    assert!(carol.1.is_none() && carol.2.is_some_and(|m| m.jobs == 1));
    assert!(
        c.text().contains("carol@site\n  fair share error                        -         0.0000              -\n"),
        "{}",
        c.text()
    );
}
