//! The accountant's log survives crashes: a log cut at any byte, or left by
//! a writer killed at any moment, loads as the state after some committed
//! transaction, and never loses one that was committed.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use matchmaker::accountant::{Accountant, AccountantConfig};

/// The edit number `i` of the writers below: a priority, a factor or a
/// reset, on one of seven submitters, or a priority update (which compacts
/// the log when it has grown).
fn edit(acct: &mut Accountant, i: u64) {
    let user = format!("user{}@site", i % 7);
    let result = match i % 4 {
        0 => acct.set_priority(&user, i as f64 + 0.25),
        1 => acct.set_priority_factor(&user, 1.0 + i as f64),
        2 => acct.reset_usage(&user, i as i64),
        _ => acct.update_priorities(1000 + i as i64),
    };
    result.expect("edit");
}

fn config() -> AccountantConfig {
    let mut config = AccountantConfig::default();
    // Small, so that the writers compact the log now and then.
    config.max_log_size = 2_500;
    config
}

/// The records after the first `n` edits, made in memory.
fn expected_after(n: u64) -> Accountant {
    let mut acct = Accountant::new(config());
    for i in 0..n {
        edit(&mut acct, i);
    }
    acct
}

fn same_state(a: &Accountant, b: &Accountant) -> bool {
    let mut x: Vec<_> = a.customers().iter().filter(|c| c.name != "<none>").cloned().collect();
    let mut y: Vec<_> = b.customers().iter().filter(|c| c.name != "<none>").cloned().collect();
    x.sort_by(|p, q| p.name.cmp(&q.name));
    y.sort_by(|p, q| p.name.cmp(&q.name));
    x == y
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("classad-rs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

#[test]
fn a_log_cut_at_every_byte_loads_the_last_committed_state() {
    let dir = scratch("cut");
    let path = dir.join("Accountantnew.log");
    let mut config = config();
    config.max_log_size = u64::MAX;
    let (mut acct, _) = Accountant::open(config.clone(), &path, 1).expect("open");
    // The log's length after each committed edit.
    let mut ends = vec![std::fs::metadata(&path).expect("log").len()];
    for i in 0..40 {
        edit(&mut acct, i);
        ends.push(std::fs::metadata(&path).expect("log").len());
    }
    let full = std::fs::read(&path).expect("log");
    let cut_path = dir.join("cut.log");
    for len in 0..=full.len() {
        std::fs::write(&cut_path, &full[..len]).expect("write cut");
        let (loaded, _) = Accountant::load(config.clone(), &cut_path).expect("a cut log always loads");
        let committed = ends.iter().rposition(|&end| end as usize <= len).map_or(0, |k| k as u64);
        assert!(
            same_state(&loaded, &expected_after(committed)),
            "cut at byte {len}: expected the state after {committed} edits"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run as a child process by the test below: edits the log in `WRITER_LOG`
/// forever, printing `committed N` on a line of its own once edit N is
/// committed (the leading newline keeps it off the line where libtest
/// prints `test writer_child ... `).
#[test]
fn writer_child() {
    let Ok(path) = std::env::var("WRITER_LOG") else {
        return; // Only does something when run by the test below.
    };
    let (mut acct, _) = Accountant::open(config(), Path::new(&path), 1).expect("open");
    let start = acct.customers().iter().filter(|c| c.name != "<none>").count() as u64;
    assert_eq!(start, 0, "the child starts from an empty log");
    let mut out = std::io::stdout().lock();
    for i in 0.. {
        edit(&mut acct, i);
        use std::io::Write;
        let _ = write!(out, "\ncommitted {}\n", i + 1);
        let _ = out.flush();
    }
}

#[test]
fn a_writer_killed_at_random_moments_never_loses_a_commit() {
    let dir = scratch("kill");
    let exe = std::env::current_exe().expect("test binary");
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..12 {
        let path = dir.join(format!("round{round}.log"));
        let mut child = Command::new(&exe)
            .args(["--exact", "writer_child", "--nocapture", "--test-threads=1"])
            .env("WRITER_LOG", &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the writer");
        let stdout = child.stdout.take().expect("piped");
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let wait = Duration::from_millis(20 + seed % 180);
        let reader = std::thread::spawn(move || {
            let mut last = 0u64;
            for line in BufReader::new(stdout).lines() {
                let n = line.ok().and_then(|l| l.trim().strip_prefix("committed ").and_then(|n| n.parse::<u64>().ok()));
                match n {
                    Some(n) => last = n,
                    None => continue,
                }
            }
            last
        });
        std::thread::sleep(wait);
        child.kill().expect("kill -9");
        let _ = child.wait();
        let confirmed = reader.join().expect("reader");
        eprintln!(
            "round {round}: {confirmed} edits confirmed, log {} bytes",
            std::fs::metadata(&path).map_or(0, |m| m.len())
        );
        let (loaded, _) = Accountant::load(config(), &path).expect("the log loads after a kill");
        // Every confirmed edit is there; at most one more (committed, not yet reported).
        let ok = (confirmed..=confirmed + 1).any(|n| same_state(&loaded, &expected_after(n)));
        assert!(ok, "round {round}: {confirmed} edits confirmed, the log holds another state");
        // Reopening cleans a torn tail and keeps going.
        let (mut reopened, _) = Accountant::open(config(), &path, 2).expect("reopen");
        reopened.set_priority("after@crash", 5.0).expect("edit after the crash");
        let (again, report) = Accountant::load(config(), &path).expect("load");
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert_eq!(again.real_priority("after@crash"), 5.0);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
