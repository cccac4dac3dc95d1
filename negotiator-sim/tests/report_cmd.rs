//! `negotiator-sim report DIR`: the report of a results directory of CSV
//! tables, and its comparison with another run's.

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::{run, run_b};

use negotiator_sim::output::{csv, write_tables, Format};
use negotiator_sim::table::Column;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn sim(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_negotiator-sim")).arg("report").args(args).output().expect("negotiator-sim runs")
}

#[test]
fn report_of_a_results_directory_with_comparison() {
    let a = scratch("cli_a");
    let b = scratch("cli_b");
    let out = scratch("cli_out");
    write_tables(&a, &run(), &[Format::Csv]).unwrap();
    write_tables(&b, &run_b(), &[Format::Csv]).unwrap();
    let o = sim(&[a.as_os_str(), "--out".as_ref(), out.as_os_str(), "--compare".as_ref(), b.as_os_str()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("4 tables read, drawing 9 charts"), "{stderr}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<title>Simulation results: cli_a</title>"));
    assert!(html.contains("<tr><td>bob@site</td><td>group_b</td><td>1</td><td>0</td><td>01:23:20</td>"), "{html}");
    assert!(html.contains("<h2>Compared with run B</h2>"));
    assert!(html.contains("<tr><th colspan=\"4\">bob@site</th></tr>\n<tr><td>fair share error</td><td>0.1750</td><td>0.0000</td><td>-0.1750</td></tr>"), "{html}");
    // Run B's utilisation is 1 throughout: its line is flat at the top.
    let util = std::fs::read_to_string(out.join("charts/compare_utilisation.svg")).unwrap();
    let b_line = util.split("<polyline").nth(2).unwrap();
    assert!(b_line.contains("<title>B</title>"));
    let ys: Vec<&str> = b_line
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .split(' ')
        .map(|p| p.split(',').nth(1).unwrap())
        .collect();
    assert!(ys.len() == 10 && ys.iter().all(|y| *y == "40.0"), "{ys:?}");
    for id in [
        "usage_by_user",
        "usage_by_group",
        "rup",
        "eup",
        "utilisation",
        "wait_histogram",
        "wait_cdf",
        "compare_utilisation",
        "compare_wait_cdf",
    ] {
        assert!(out.join(format!("charts/{id}.svg")).is_file() && out.join(format!("charts/{id}.png")).is_file());
    }
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(stdout.contains("  mean wait                          5000 s          100 s        -4900 s\n"), "{stdout}");
    let table = csv::read_file(&out.join("compare.csv")).unwrap();
    let Some(Column::Float(u)) = table.column("utilisation_b") else { panic!("{table:?}") };
    assert_eq!(u, &vec![1.0, 0.5, 0.5]);
}

/// A results directory written in Parquet alone (`simulate --format
/// parquet`) gives the same report, and the same comparison, as in CSV.
#[test]
fn report_of_a_parquet_only_results_directory() {
    let (csv_a, csv_b, csv_out) = (scratch("pq_csv_a"), scratch("pq_csv_b"), scratch("pq_csv_out"));
    let (a, b, out) = (scratch("pq_a"), scratch("pq_b"), scratch("pq_out"));
    write_tables(&csv_a, &run(), &[Format::Csv]).unwrap();
    write_tables(&csv_b, &run_b(), &[Format::Csv]).unwrap();
    write_tables(&a, &run(), &[Format::Parquet]).unwrap();
    write_tables(&b, &run_b(), &[Format::Parquet]).unwrap();
    assert!(std::fs::read_dir(&a).unwrap().all(|e| e.unwrap().path().extension().unwrap() == "parquet"));
    let args = |dir: &PathBuf, b: &PathBuf, out: &PathBuf| {
        sim(&[
            dir.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--title".as_ref(),
            "t".as_ref(),
            "--compare".as_ref(),
            b.as_os_str(),
            "--no-png".as_ref(),
        ])
    };
    let o = args(&a, &b, &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("4 tables read, drawing 9 charts"), "{stderr}");
    let from_csv = args(&csv_a, &csv_b, &csv_out);
    assert!(from_csv.status.success(), "{}", String::from_utf8_lossy(&from_csv.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&from_csv.stdout), "the comparison");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<tr><td>bob@site</td><td>group_b</td><td>1</td><td>0</td><td>01:23:20</td>"), "{html}");
    assert_eq!(html, std::fs::read_to_string(csv_out.join("report.html")).unwrap());
}

#[test]
fn no_png_writes_svg_only() {
    let a = scratch("cli_svg_only");
    write_tables(&a, &run()[2..3], &[Format::Csv]).unwrap();
    let o = sim(&[a.as_os_str(), "--no-png".as_ref(), "--title".as_ref(), "Cycles & <more>".as_ref()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(a.join("charts/utilisation.svg").is_file() && !a.join("charts/utilisation.png").exists());
    let html = std::fs::read_to_string(a.join("report.html")).unwrap();
    assert!(html.contains("<h1>Cycles &amp; &lt;more&gt;</h1>"));
}

#[test]
fn bad_input_names_the_file_and_line() {
    let a = scratch("cli_bad");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::write(a.join("cycles.csv"), "time,busy_slots,total_slots\n0,1.0,2.0\n60,lots,2.0\n").unwrap();
    let o = sim(&[a.as_os_str()]);
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("cycles.csv:3: column busy_slots: \"lots\" is not a number"), "{stderr}");
    let missing = a.join("nothing here");
    let o = sim(&[missing.as_os_str()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("nothing here"));
    let empty = scratch("cli_empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = sim(&[empty.as_os_str()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    // The directory is named, and the two forms a table is read in.
    assert!(stderr.contains("no result table"), "{stderr}");
    assert!(stderr.contains("cli_empty") && stderr.contains("NAME.csv or NAME.parquet"), "{stderr}");
    let help = Command::new(env!("CARGO_BIN_EXE_negotiator-sim")).arg("--help").output().expect("runs");
    let help = String::from_utf8_lossy(&help.stdout);
    let line = help.lines().find(|l| l.trim_start().starts_with("report ")).unwrap_or_default();
    assert!(line.contains("CSV or Parquet"), "{help}");
}
