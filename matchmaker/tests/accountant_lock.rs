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
    let (acct, _) = Accountant::load(config(), &path).expect("the log loads");
    let lost: Vec<_> = done.iter().filter(|(name, factor)| acct.priority_factor(name) != *factor).collect();
    assert!(
        failed.is_empty() && lost.is_empty(),
        "{} edits failed: {failed:?}; {} of {} edits reported as done are not in the log: {lost:?}",
        failed.len(),
        lost.len(),
        done.len()
    );
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

#[test]
fn a_file_that_is_not_a_log_is_refused_and_left_as_it_is() {
    use matchmaker::classad_log::{LogError, LogLock, LogWriter, Records};
    let dir = scratch("notalog");
    let text: String = (0..361).map(|i| format!("service{i}\t{}/tcp\n", 1000 + i)).collect();
    for (name, content) in [("text", text.into_bytes()), ("zeros", vec![0u8; 4096]), ("binary", vec![0xff, 0xfe, 10])] {
        let path = dir.join(name);
        std::fs::write(&path, &content).expect("write");
        match Accountant::open(config(), &path, 1) {
            Err(matchmaker::accountant::AccountantError::Log(LogError::NotALog { path: p, .. })) => {
                assert_eq!(p, path)
            }
            other => panic!("{name}: expected NotALog, got {other:?}"),
        }
        let err = Accountant::open(config(), &path, 1).expect_err("refused").to_string();
        assert!(err.contains(":1: not an accountant log"), "{err}");
        // What `Accountant.save` in Python does: refused too.
        let lock = LogLock::acquire(&path, Duration::from_secs(1)).expect("lock");
        assert!(matches!(LogWriter::replace(lock, &path, 1, &Records::default()), Err(LogError::NotALog { .. })));
        assert_eq!(std::fs::read(&path).expect("read"), content, "{name}: changed");
        // A reader warns.
        let (_, report) = Accountant::load(config(), &path).expect("a reader reads");
        assert!(report.not_a_log.is_some() && report.warnings.iter().any(|w| w.contains("not an accountant log")));
    }
    // An empty file is an empty log.
    let empty = dir.join("empty");
    std::fs::write(&empty, "").expect("write");
    Accountant::open(config(), &empty, 1).expect("an empty file is a log");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tail_that_cannot_be_read_is_kept_aside_before_the_log_is_rewritten() {
    let dir = scratch("aside");
    let path = dir.join("Accountantnew.log");
    {
        let (mut a, _) = Accountant::open(config(), &path, 1).expect("new log");
        a.set_priority_factor("kept@x", 2.0).expect("edit");
    }
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).expect("append");
    f.write_all(b"\x01\x02 garbage that is not a record\nmore\n").expect("garbage");
    drop(f);
    let before = std::fs::read(&path).expect("read");
    let (a, report) = Accountant::open(config(), &path, 1).expect("opens");
    let aside = dir.join("Accountantnew.log.corrupt-1");
    assert_eq!(std::fs::read(&aside).expect("kept aside"), before);
    assert!(report.warnings.iter().any(|w| w.contains("Accountantnew.log.corrupt-1")), "{:?}", report.warnings);
    assert_eq!(a.priority_factor("kept@x"), 2.0);
    drop(a);
    // A second time: the next free name.
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).expect("append");
    f.write_all(b"105 \n103 Customer.x@x Priority 1").expect("torn");
    drop(f);
    let (_a, report) = Accountant::open(config(), &path, 1).expect("opens");
    assert!(dir.join("Accountantnew.log.corrupt-2").exists(), "{:?}", report.warnings);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What the readers refuse, the writers refuse first: a name that makes a
/// line longer than a reader takes was written, and every load failed.
#[test]
fn a_record_no_reader_takes_is_never_written() {
    use matchmaker::classad_log::{Records, MAX_LINE};
    let dir = scratch("limits");
    let path = dir.join("Accountantnew.log");
    let long = format!("{}@x", "x".repeat(20_000_000));
    {
        let (mut a, _) = Accountant::open(config(), &path, 1).expect("new log");
        a.set_priority_factor("ok@x", 2.0).expect("edit");
        let err = a.set_priority_factor(&long, 5.0).expect_err("too long a name").to_string();
        assert!(err.contains("the log's readers take at most"), "{}", &err[..err.len().min(300)]);
        assert!(err.len() < 1000, "the error quotes the whole name");
        a.set_priority_factor("after@x", 3.0).expect("the accountant goes on");
    }
    let (b, report) = Accountant::load(config(), &path).expect("the log still loads");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(b.priority_factor("ok@x"), 2.0);
    assert_eq!(b.priority_factor("after@x"), 3.0);
    // Without a log too (what Python's `save` would write).
    let mut c = Accountant::new(config());
    assert!(c.set_priority_factor(&long, 5.0).is_err());
    assert!(c.snapshot().is_ok());
    // Values: a line too long, a value that does not parse.
    let mut r = Records::default();
    let big = format!("\"{}\"", "y".repeat(MAX_LINE));
    assert!(r.set("Customer.a@x", "Note", &big).is_err());
    assert!(r.set("Customer.a@x", "Note", "(((").is_err());
    assert!(r.set("Customer.a@x", "Note", "").is_err());
    assert!(r.is_empty());
    r.set("Customer.a@x", "Note", "\"fine\" + 1").expect("an expression");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A process that does not take the lock (HTCondor's own negotiator)
/// appended a transaction: compacting reads it in rather than dropping it;
/// a log replaced under the writer is an error, not overwritten.
#[test]
fn compacting_keeps_what_a_writer_without_the_lock_appended() {
    let dir = scratch("foreign");
    let path = dir.join("Accountantnew.log");
    let (mut a, _) = Accountant::open(config(), &path, 1).expect("new log");
    a.set_priority_factor("ours@x", 2.0).expect("edit");
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).expect("append");
    f.write_all(b"105 \n101 Customer.theirs@x * *\n103 Customer.theirs@x PriorityFactor 7.000000\n106 \n")
        .expect("foreign transaction");
    drop(f);
    a.compact().expect("compacts");
    let (b, report) = Accountant::load(config(), &path).expect("loads");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(b.priority_factor("theirs@x"), 7.0, "the foreign record was dropped");
    assert_eq!(b.priority_factor("ours@x"), 2.0);
    assert!(a.take_warnings().iter().any(|w| w.contains("does not hold the log's lock")));
    // Replaced behind the writer's back: compacting refuses.
    std::fs::write(dir.join("other"), "107 1 CreationTimestamp 1\n").expect("write");
    std::fs::rename(dir.join("other"), &path).expect("rename");
    let err = a.compact().expect_err("replaced").to_string();
    assert!(err.contains("replaced by another process"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "107 1 CreationTimestamp 1\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A symbolic link planted where compaction writes its temporary file (or
/// keeps a torn tail aside) is never written through: the file it points
/// to is left as it was, and the log is compacted all the same.
#[test]
fn compaction_never_writes_through_a_planted_link() {
    let dir = scratch("symlink");
    let path = dir.join("Accountantnew.log");
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious\n").expect("victim");
    {
        let (mut a, _) = Accountant::open(config(), &path, 1).expect("new log");
        a.set_priority_factor("seed@x", 2.0).expect("seed");
    }
    tear(&path);
    let name = |suffix: String| {
        let mut n = path.as_os_str().to_owned();
        n.push(suffix);
        PathBuf::from(n)
    };
    // This process's temporary names, and the names a torn tail is kept under.
    for n in 0..64 {
        std::os::unix::fs::symlink(&victim, name(format!(".tmp-{}-{n}", std::process::id()))).expect("plant");
    }
    for n in 0..8 {
        std::os::unix::fs::symlink(&victim, name(format!(".corrupt-{n}"))).expect("plant");
    }
    let (mut a, report) = Accountant::open(config(), &path, 2).expect("open compacts the torn log");
    assert!(report.needs_compaction, "the log had a torn tail");
    a.set_priority_factor("after@x", 3.0).expect("edit");
    drop(a);
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "precious\n");
    let log = std::fs::read_to_string(&path).expect("log");
    assert!(log.contains("seed@x") && log.contains("after@x") && !log.contains("torn@x"), "{log}");
    assert!(!std::fs::symlink_metadata(&path).expect("log").file_type().is_symlink());
}
