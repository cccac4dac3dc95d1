//! Two writers of one accountant log: every edit reported as done is in the
//! log afterwards, and a writer that cannot get the lock says so.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use matchmaker::accountant::{Accountant, AccountantConfig};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("classad-rs-lock-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn config() -> AccountantConfig {
    // A small size limit: the log is compacted every few edits as well.
    let mut config = AccountantConfig::default();
    config.max_log_size = 3000;
    config
}

/// A transaction cut short, as a crash in the middle of a write leaves it.
fn tear(path: &Path) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).expect("append");
    f.write_all(b"105 \n103 Customer.torn@x Priority 12.5").expect("torn tail");
}

#[test]
fn two_writers_racing_on_a_torn_log_lose_no_edit() {
    let dir = scratch("race");
    let path = dir.join("Accountantnew.log");
    {
        let (mut a, _) = Accountant::open(config(), &path, 1).expect("new log");
        a.set_priority_factor("seed@x", 2.0).expect("seed");
    }
    tear(&path);
    const EDITS: usize = 60;
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut done = Vec::new();
                let mut failed = Vec::new();
                for i in 0..EDITS {
                    let name = format!("w{w}-{i}@x");
                    let factor = 1.0 + (w * EDITS + i) as f64;
                    let edit = Accountant::open(config(), &path, 1).and_then(|(mut a, _)| {
                        a.set_priority_factor(&name, factor)?;
                        // Leave a torn tail behind now and then, as a
                        // writer killed in the middle of a write would: the
                        // next writer compacts the log.
                        if i % 3 == 0 {
                            tear(&path);
                        }
                        Ok(())
                    });
                    match edit {
                        Ok(()) => done.push((name, factor)),
                        Err(e) => failed.push(format!("{name}: {e}")),
                    }
                }
                (done, failed)
            })
        })
        .collect();
    let mut done = Vec::new();
    let mut failed = Vec::new();
    for w in writers {
        let (d, f) = w.join().expect("writer thread");
        done.extend(d);
        failed.extend(f);
    }
    assert!(failed.is_empty(), "edits failed: {failed:?}");
    let (acct, _) = Accountant::load(config(), &path).expect("the log loads");
    let lost: Vec<_> = done.iter().filter(|(name, factor)| acct.priority_factor(name) != *factor).collect();
    assert!(lost.is_empty(), "{} of {} edits reported as done are not in the log: {lost:?}", lost.len(), done.len());
    assert_eq!(acct.priority_factor("seed@x"), 2.0);
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_writer_that_cannot_get_the_lock_says_who_holds_it() {
    let dir = scratch("timeout");
    let path = dir.join("Accountantnew.log");
    let (_holder, _) = Accountant::open(config(), &path, 1).expect("first writer");
    let mut quick = config();
    quick.lock_timeout = Duration::from_millis(300);
    let start = std::time::Instant::now();
    let err = Accountant::open(quick.clone(), &path, 1).expect_err("the lock is held");
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(5), "{waited:?}");
    let message = err.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("another writer holds the lock"), "{message}");
    assert!(message.contains("Accountantnew.log.lock"), "{message}");
    // Readers are not held up.
    Accountant::load(config(), &path).expect("a reader reads");
    drop(_holder);
    Accountant::open(quick, &path, 1).expect("free again");
    let _ = std::fs::remove_dir_all(&dir);
}
