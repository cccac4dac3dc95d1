//! The manual's worked examples on user priorities and group quotas,
//! computed by the matchmaker's accountant and quota code, checked
//! against the manual's numbers; and the charts of them in the user
//! documentation (`docs/img`), which must be what the code draws now.
//! `REGENERATE_DOCS_IMG=1 cargo test -p negotiator-sim --test worked_examples`
//! rewrites them.

use std::path::PathBuf;

use negotiator_sim::report::svg;
use negotiator_sim::report::worked_examples::{charts, group_quotas, rup_growth, two_users};
use negotiator_sim::table::{Column, Table};

fn floats<'t>(t: &'t Table, name: &str) -> &'t [f64] {
    match t.column(name) {
        Some(Column::Float(v)) => v,
        _ => panic!("no real column {name}"),
    }
}

#[test]
fn rup_of_100_cores_is_75_at_48_hours_and_halves_a_day_after_stopping() {
    let users = rup_growth(3600).unwrap();
    let rup = floats(&users, "rup");
    let steady = |h: usize| rup[2 * h];
    let stops = |h: usize| rup[2 * h + 1];
    // Everyone starts at the minimum, 0.5.
    assert_eq!((steady(0), stops(0)), (0.5, 0.5));
    // "about 75.0 at the 48 hour mark": 100 × (1 − ¼) + 0.5 × ¼.
    assert!((steady(48) - 75.125).abs() < 1e-3, "{}", steady(48));
    // Half-way to 100 after one half-life.
    assert!((steady(24) - 50.25).abs() < 1e-3);
    // Toward 100 in the long run.
    assert!(steady(96) > 93.7 && steady(96) < 100.0);
    // 100 cores for 24 hours: 50.25 when the jobs go, then halving daily
    // ("a RUP of 10 ... would be 5 one day later, 2.5 two days later").
    assert!((stops(24) - 50.25).abs() < 1e-3);
    assert!((stops(48) - 25.125).abs() < 1e-3, "{}", stops(48));
    assert!((stops(72) - 12.5625).abs() < 1e-3);
    // Monotone: rising while running, falling after.
    assert!((1..=24).all(|h| stops(h) > stops(h - 1)) && (25..=96).all(|h| stops(h) < stops(h - 1)));
}

#[test]
fn two_users_a_drops_below_one_core_and_climbs_back_toward_half() {
    let (users, cycles) = two_users(600, 240).unwrap();
    let usage = floats(&users, "usage");
    let rup = floats(&users, "rup");
    let eup = floats(&users, "eup");
    let at = |h: f64| (h * 6.0).round() as usize;
    let a = |h: f64| usage[2 * at(h)];
    // A alone has the whole pool.
    assert_eq!(a(47.0), 100.0);
    // At 48 hours A's RUP is about 75, B's 0.5: B "deserves 150 times" A.
    let i = 2 * at(48.0);
    assert!((rup[i] - 75.125).abs() < 1e-3 && rup[i + 1] == 0.5);
    assert!((eup[i] / eup[i + 1] - 150.25).abs() < 0.01);
    // "from all 100 cores to less than one core immediately",
    assert!(a(48.0) < 1.0 && a(48.0) > 0.6, "{}", a(48.0));
    // "will quickly rebound to a handful of cores",
    assert!(a(49.0) > 3.0 && a(49.0) < 10.0, "{}", a(49.0));
    // "and will asymptotically approach half of the pool".
    assert!(a(96.0) > 45.0 && a(96.0) < 50.0);
    assert!((a(240.0) - 50.0).abs() < 0.1);
    assert!((49..240).all(|h| a(h as f64) >= a(h as f64 - 1.0)));
    // Shares add up to the pool.
    let share = floats(&users, "share");
    assert!((share[i] + share[i + 1] - 1.0).abs() < 1e-9);
    assert_eq!(cycles.rows(), 240 * 6 + 1);
}

#[test]
fn group_quotas_follow_the_manual_as_demand_changes() {
    let g = group_quotas().unwrap();
    let quota = floats(&g, "quota");
    let alloc = floats(&g, "allocated");
    // Rows: every 10 minutes, hep, lep, chemistry.
    let row = |hour: usize, group: usize| 3 * 6 * hour + group;
    let (hep, lep, chem) = (0, 1, 2);
    // Within quota: everyone gets its demand.
    assert_eq!((alloc[row(0, hep)], alloc[row(0, lep)], alloc[row(0, chem)]), (10.0, 5.0, 10.0));
    // hep wants 30: held to its quota of 15.
    assert_eq!(alloc[row(2, hep)], 15.0);
    // lep idle: hep takes lep's 5 but no more than physics' 20.
    assert_eq!((alloc[row(4, hep)], alloc[row(4, lep)]), (20.0, 0.0));
    // Chemistry uses 2 of 10: physics does not accept surplus, hep stays 15.
    assert_eq!((alloc[row(6, hep)], alloc[row(6, chem)]), (15.0, 2.0));
    // "If a power failure removed half of the original 30 ... physics would
    // be scaled back to a quota of ten, and chemistry to five."
    assert_eq!((quota[row(8, hep)] + quota[row(8, lep)], quota[row(8, chem)]), (10.0, 5.0));
    assert_eq!((alloc[row(9, hep)], alloc[row(9, lep)], alloc[row(9, chem)]), (7.5, 2.5, 5.0));
    assert_eq!(quota[row(12, hep)], 15.0);
}

#[test]
fn documentation_charts_are_up_to_date() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/img");
    let regenerate = std::env::var_os("REGENERATE_DOCS_IMG").is_some();
    for chart in charts().unwrap() {
        let path = dir.join(format!("{}.svg", chart.id));
        let svg = svg::render(&chart);
        if regenerate {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &svg).unwrap();
            eprintln!("wrote {}", path.display());
        }
        let on_disk = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (REGENERATE_DOCS_IMG=1 writes it)", path.display()));
        assert!(on_disk == svg, "{} is out of date: REGENERATE_DOCS_IMG=1 rewrites it", path.display());
    }
}

#[test]
fn the_rup_chart_draws_75_at_48_hours() {
    let c = charts().unwrap().into_iter().find(|c| c.id == "rup-growth").unwrap();
    let text = svg::render(&c);
    // The steady user's line passes through (48 h, 75.125).
    let (px, py) = svg::to_pixels(&c, 48.0, 75.125);
    assert!(text.contains(&format!("{px:.1},{py:.1}")), "({px:.1},{py:.1})");
    assert!(text.contains("<title>100 cores for 24 h</title>"));
}
