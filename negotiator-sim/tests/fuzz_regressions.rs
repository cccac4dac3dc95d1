//! Inputs the fuzz targets of negotiator-sim's readers found failing
//! (kept in `fuzz/regressions/<target>/`, the target's own input format:
//! see `fuzz/fuzz_targets/<target>.rs`), replayed through the calls the
//! targets make. Each must read or be refused with an error; none may
//! panic.

use std::path::{Path, PathBuf};

use negotiator_sim::output::{csv, parquet};

/// The regression inputs of `target`, by file.
fn regressions(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions").join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, Vec<u8>)> = entries
        .map(|e| e.expect("a directory entry").path())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

const REPORT_TABLES: &[&str] = &["cycles", "jobs", "users", "slots", "groups", "other"];

/// The `report` target: the first byte chooses the table's name and CSV or
/// Parquet; a table that reads is given to the report.
fn report(data: &[u8]) -> Result<(), String> {
    let (&selector, input) = data.split_first().ok_or("empty")?;
    let name = REPORT_TABLES[usize::from(selector >> 1) % REPORT_TABLES.len()];
    let table = if selector & 1 == 0 {
        csv::from_csv_str(name, std::str::from_utf8(input).map_err(|e| e.to_string())?)
    } else {
        parquet::from_parquet_bytes(name, input.to_vec())
    }
    .map_err(|e| e.to_string())?;
    let report = negotiator_sim::report::build("fuzz", &[table]).map_err(|e| e.to_string())?;
    let _ = report.html();
    Ok(())
}

#[test]
fn report_regressions_read_or_fail_cleanly() {
    let files = regressions("report");
    assert!(!files.is_empty(), "fuzz/regressions/report/ holds the report target's findings");
    for (path, data) in files {
        // A panic fails the test; an error is what these inputs deserve.
        let _ = report(&data).map_err(|e| eprintln!("{}: {e}", path.display()));
    }
}

#[cfg(feature = "parquet")]
#[test]
fn a_parquet_chunk_at_a_negative_offset_is_an_error() {
    // The report target's first finding: a footer giving a column chunk a
    // negative offset made the Parquet reader assert.
    let (_, data) = regressions("report")
        .into_iter()
        .find(|(p, _)| p.ends_with("crash-c6c3505a22b06a5203d1b62099a85f526e176aa4"))
        .expect("the regression file");
    let err = parquet::from_parquet_bytes("cycles", data[1..].to_vec()).expect_err("a corrupt file");
    let text = err.to_string();
    assert!(text.starts_with("cycles") && text.contains("outside the file's"), "{text}");
}

#[test]
fn a_transform_asking_for_66665_ads_is_held_to_the_limit_set() {
    // The transform target's first finding, a timeout: `TRANSFORM 66665`
    // makes 66,665 ads of the job, each expanding and parsing the rules
    // again (4 s in a release build, minutes under the sanitizer). That is
    // work in proportion to what was asked, under the million-ad limit; the
    // target now sets a limit of 1,000, and the limit holds.
    use matchmaker::schedd::{JobTransforms, Macros, Transform};
    let (_, data) = regressions("transform")
        .into_iter()
        .find(|(p, _)| p.ends_with("timeout-df49403f4cbdbf01648ddb4d63f05d78c7fcf2ba"))
        .expect("the regression file");
    assert_eq!(data[0] % 3, 0, "the transform language");
    let rules = std::str::from_utf8(&data[1..]).expect("UTF-8");
    let mut transforms = JobTransforms::new();
    transforms.push(Transform::parse("fuzz", rules, "fuzz.xform").expect("the rules read"));
    transforms.set_max_ads(1000);
    let job = classad::parse_ad("[ Owner = \"alice\"; ClusterId = 1; ProcId = 0 ]").expect("a job");
    let err = transforms.transform_ads(&job, &Macros::new(), None).expect_err("past the limit");
    assert!(err.to_string().contains("more than 1000 ads"), "{err}");
}

#[test]
fn a_userprio_ad_with_a_huge_num_submittors_reads_the_rows_it_has() {
    // The userprio target's first finding, out of memory: `NumSubmittors`
    // of 10^18 reserved a row for each number before reading any. Only the
    // `NameN` present are rows now (`Name07` is not record 7).
    use matchmaker::accountant::{Accountant, AccountantConfig, PriorityRow};
    let files = regressions("userprio");
    assert!(!files.is_empty(), "fuzz/regressions/userprio/ holds the userprio target's findings");
    for (path, data) in files {
        let text = std::str::from_utf8(&data).expect("UTF-8");
        let ad = classad::parse_ad(text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (rows, last_update) = PriorityRow::from_userprio_ad(&ad);
        if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("oom-")) {
            let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
            assert_eq!(names, ["amy@site", "bob@site"], "{}", path.display());
            assert_eq!(last_update, 1000);
        }
        let _ = Accountant::from_userprio_ad(AccountantConfig::default(), &ad).map(|a| a.priority_rows());
    }
}

#[test]
fn trace_regressions_read_or_fail_cleanly() {
    // The trace target's first finding: a `condor_history -json` trace
    // whose string `"\/Expr..."` had a two-byte character at its seventh
    // byte made the JSON reader panic.
    use negotiator_sim::simulate::trace::{read_history, read_swf};
    let files = regressions("trace");
    assert!(!files.is_empty(), "fuzz/regressions/trace/ holds the trace target's findings");
    for (path, data) in files {
        let (&selector, input) = data.split_first().expect("a selector byte");
        let name = std::path::Path::new("trace");
        match selector % 3 {
            0 => drop(read_swf(input, name, "example.org")),
            n => drop(read_history(input, name, "example.org", n == 2)),
        }
        eprintln!("{}: read or refused without a panic", path.display());
    }
}
