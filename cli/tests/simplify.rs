//! End-to-end tests of `classad simplify`.

mod common;

use common::{classad, stdout, write_file};

#[test]
fn flattens_in_the_scope_of_an_ad() {
    let job = write_file(
        "simplify-job.ad",
        r#"[ DiskUsage = 100000; ImageSize = 100 * 1000; FileSystemDomain = "cs.wisc.edu"; Next = TARGET.x ]"#,
    );
    let out = classad(&[
        "simplify",
        "--my",
        &job.to_string_lossy(),
        "TARGET.Disk >= DiskUsage && true",
        "(TARGET.Memory * 1024) >= ImageSize",
        "TARGET.FileSystemDomain == MY.FileSystemDomain",
        "Next > 1 ? 2 : 3",
        "x + 1 + 2",
        "ImageSize / 1000",
    ]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "TARGET.Disk >= 100000\n(1024 * TARGET.Memory) >= 100000\nTARGET.FileSystemDomain == MY.FileSystemDomain\n\
         Next > 1 ? 2 : 3\n3 + x\n100\n"
    );
    // `MY` names the ad outside a match only under old semantics.
    let old = classad(&[
        "simplify",
        "--semantics",
        "old",
        "--my",
        &job.to_string_lossy(),
        "TARGET.FileSystemDomain == MY.FileSystemDomain",
    ]);
    assert_eq!(stdout(&old), "TARGET.FileSystemDomain == \"cs.wisc.edu\"\n");
}

#[test]
fn errors_are_reported_in_line() {
    let ad = write_file("simplify-cycle.ad", "[ A = B; B = A ]");
    let out = classad(&["simplify", "--my", &ad.to_string_lossy(), "A + 1", "1 +", "2 * 3"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("flatten error:"), "{text}");
    assert!(lines[1].starts_with("parse error: line 1, column 4:"), "{text}");
    assert_eq!(lines[2], "6");
}

#[test]
fn references_on_request() {
    let machine = write_file(
        "simplify-machine.ad",
        "[ Memory = 8192; Cpus = Slots * 2; Start = TARGET.RequestMemory <= Memory && TARGET.Owner =!= Banned ]",
    );
    let out = classad(&["simplify", "--my", &machine.to_string_lossy(), "--refs", "Start", "Cpus > 2", "\"x\".y"]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "Start\n  external: Banned, TARGET.Owner, TARGET.RequestMemory\n  internal: Memory, Start\n\
         Cpus > 2\n  external: Slots\n  internal: Cpus\n\
         error\n  external: cannot be determined\n  internal: cannot be determined\n"
    );
}

#[test]
fn options_after_the_expressions() {
    let ad = write_file("simplify-after.ad", "[ Memory = 2048 ]");
    let ad = ad.to_string_lossy().into_owned();
    let before = classad(&["simplify", "--my", &ad, "TARGET.Memory >= Memory"]);
    let after = classad(&["simplify", "TARGET.Memory >= Memory", "--my", &ad]);
    assert_eq!(stdout(&before), "TARGET.Memory >= 2048\n");
    assert_eq!(stdout(&after), stdout(&before));
    let typo = classad(&["simplify", "x", "--ref"]);
    assert_eq!(typo.status.code(), Some(2));
}
