//! The test collector against HTCondor 23.9.6's own command-line tools
//! (`condor_status`, `condor_advertise`, `condor_ping`) from the project's
//! Debian chroot: opt-in, since it needs root and the chroot. Run with
//! `CEDAR_CHROOT=/work/chroot cargo nextest run -p cedar --test chroot`;
//! without `CEDAR_CHROOT` the tests say so and pass.
//!
//! The chroot shares the host's network, so its tools reach the fixture on
//! 127.0.0.1.

#[path = "../examples/test_collector.rs"]
mod test_collector;

use std::path::{Path, PathBuf};
use std::process::Command;

use test_collector::{spawn, FixtureOptions};

const CONFIG: &str = "SEC_CLIENT_AUTHENTICATION = PREFERRED
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
SEC_DEFAULT_CRYPTO_METHODS = AES
SEC_CLIENT_AUTHENTICATION_METHODS = FS
";

const SLOTS: &str = r#"MyType = "Machine"
Name = "slot1@chroot"
Machine = "chroot"
State = "Unclaimed"
Activity = "Idle"
Cpus = 4
Memory = 8192
OpSys = "LINUX"
Arch = "X86_64"
MyAddress = "<127.0.0.1:1?noUDP>"
ClaimId = "c1"

MyType = "Machine"
Name = "slot2@chroot"
Machine = "chroot"
State = "Claimed"
Activity = "Busy"
Cpus = 2
Memory = 4096
OpSys = "LINUX"
Arch = "X86_64"
MyAddress = "<127.0.0.1:1?noUDP>"
"#;

fn chroot() -> Option<PathBuf> {
    let Some(root) = std::env::var_os("CEDAR_CHROOT") else {
        eprintln!("skipped: set CEDAR_CHROOT to the HTCondor 23.9.6 chroot to run these tests");
        return None;
    };
    Some(PathBuf::from(root))
}

/// Runs an HTCondor tool in the chroot; its stdout and stderr, joined.
fn tool(root: &Path, config: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new("chroot")
        .arg(root)
        .args(["env", &format!("CONDOR_CONFIG={config}")])
        .args(args)
        .output()
        .expect("chroot runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

#[test]
fn condor_status_advertise_and_ping_work_against_the_fixture() {
    let Some(root) = chroot() else { return };
    let tag = std::process::id();
    let config = format!("/tmp/cedar-chroot-{tag}.config");
    let slots = format!("/tmp/cedar-chroot-{tag}.ads");
    std::fs::write(root.join(&config[1..]), CONFIG).expect("config written");
    std::fs::write(root.join(&slots[1..]), SLOTS).expect("ads written");
    let (addr, _store) = spawn("127.0.0.1:0", FixtureOptions::default()).expect("the fixture listens");
    let pool = addr.to_string();

    let (ok, out) =
        tool(&root, &config, &["condor_advertise", "-pool", &pool, "-multiple", "UPDATE_STARTD_AD", &slots]);
    assert!(ok && out.contains("Sent 2 of 2 ads"), "{out}");

    // The default slot view: QUERY_STARTD_ADS with a projection.
    let (ok, out) = tool(&root, &config, &["condor_status", "-pool", &pool]);
    assert!(ok, "{out}");
    assert!(out.contains("slot1@chroot") && out.contains("slot2@chroot"), "{out}");
    assert!(out.contains("X86_64/LINUX     2     0       1         1"), "{out}");

    let af = |extra: &[&str]| {
        let mut args = vec!["condor_status", "-pool", pool.as_str()];
        args.extend_from_slice(extra);
        tool(&root, &config, &args)
    };
    // The private attribute stays in the collector.
    let (_, out) = af(&["-af", "Name", "Cpus", "ClaimId"]);
    assert_eq!(out, "slot1@chroot 4 undefined\nslot2@chroot 2 undefined\n");
    let (_, out) = af(&["-constraint", "Cpus > 2", "-af", "Name"]);
    assert_eq!(out, "slot1@chroot\n");
    // -limit sends LimitResults.
    let (_, out) = af(&["-limit", "1", "-af", "Name"]);
    assert_eq!(out, "slot1@chroot\n");
    let (_, out) = af(&["-any", "-af", "MyType", "Name"]);
    assert_eq!(out, "Collector test_collector@127.0.0.1\nMachine slot1@chroot\nMachine slot2@chroot\n");

    // condor_ping: DC_SEC_QUERY for the DC_NOP_* command of each level.
    let (ok, out) =
        tool(&root, &config, &["condor_ping", "-verbose", "-pool", &pool, "-type", "collector", "READ", "WRITE"]);
    assert!(ok, "{out}");
    assert_eq!(out.matches("Authorized:                  TRUE").count(), 2, "{out}");
    assert!(out.contains("Authentication:              none"), "{out}");

    // A StartD daemon ad, and `condor_status -startd` (QUERY_MULTIPLE_ADS
    // with TargetType "StartD" in 23.9).
    let startd = format!("/tmp/cedar-chroot-{tag}.startd");
    std::fs::write(root.join(&startd[1..]), STARTD).expect("ad written");
    let (ok, out) = tool(&root, &config, &["condor_advertise", "-pool", &pool, "UPDATE_STARTD_AD", &startd]);
    assert!(ok && out.contains("Sent 1 of 1 ad"), "{out}");
    let (_, out) = af(&["-startd", "-af", "MyType", "Name"]);
    assert_eq!(out, "StartD chroot\n");

    // INVALIDATE_STARTD_ADS by constraint.
    let invalidate = format!("/tmp/cedar-chroot-{tag}.invalidate");
    std::fs::write(root.join(&invalidate[1..]), INVALIDATE).expect("ad written");
    let (ok, out) = tool(&root, &config, &["condor_advertise", "-pool", &pool, "INVALIDATE_STARTD_ADS", &invalidate]);
    assert!(ok, "{out}");
    let (_, out) = af(&["-af", "Name"]);
    assert_eq!(out, "slot1@chroot\n");

    // The raw protocol: no DC_AUTHENTICATE at all.
    let raw = format!("/tmp/cedar-chroot-{tag}.raw.config");
    std::fs::write(
        root.join(&raw[1..]),
        format!("{CONFIG}SEC_CLIENT_NEGOTIATION = NEVER\nSEC_CLIENT_AUTHENTICATION = OPTIONAL\n"),
    )
    .expect("config written");
    let (ok, out) = tool(&root, &raw, &["condor_status", "-pool", &pool, "-af", "Name"]);
    assert!(ok, "{out}");
    assert_eq!(out, "slot1@chroot\n");

    for f in [&config, &slots, &startd, &invalidate, &raw] {
        let _ = std::fs::remove_file(root.join(&f[1..]));
    }
}

const STARTD: &str = r#"MyType = "StartD"
Name = "chroot"
Machine = "chroot"
MyAddress = "<127.0.0.1:1?noUDP>"
"#;

const INVALIDATE: &str = r#"MyType = "Query"
TargetType = "Machine"
Requirements = Name == "slot2@chroot"
"#;
