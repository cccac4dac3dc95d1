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

/// Modes M1 and M2 with 23.9.6's tools: `condor_ping` authenticates with
/// CLAIMTOBE, then with the IDTOKENS fixture token, and AES-GCM carries
/// `condor_advertise` and `condor_status`.
#[test]
fn m1_and_m2_with_the_23_9_tools() {
    let Some(root) = chroot() else { return };
    let tag = std::process::id();
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/token");
    let pool_key = data.join("keys/POOL");
    let options = FixtureOptions::secure(&[
        ("SEC_DEFAULT_AUTHENTICATION_METHODS", "CLAIMTOBE, IDTOKENS"),
        ("TRUST_DOMAIN", "anchor.local"),
        ("SEC_TOKEN_POOL_SIGNING_KEY_FILE", pool_key.to_str().unwrap_or_default()),
    ]);
    let (addr, store) = spawn("127.0.0.1:0", options).expect("the fixture listens");
    let pool = addr.to_string();
    let tokens = format!("/tmp/cedar-chroot-{tag}.tokens");
    std::fs::create_dir_all(root.join(&tokens[1..])).expect("token dir");
    let write = |name: &str, text: &str| {
        let path = format!("/tmp/cedar-chroot-{tag}.{name}");
        std::fs::write(root.join(&path[1..]), text).expect("written");
        path
    };
    let common = format!(
        "SEC_CLIENT_AUTHENTICATION = REQUIRED\nSEC_DEFAULT_CRYPTO_METHODS = AES\nTRUST_DOMAIN = anchor.local\n\
         SEC_TOKEN_DIRECTORY = {tokens}\nSEC_TOKEN_SYSTEM_DIRECTORY = {tokens}\n"
    );
    let m1 = write("m1.config", &format!("{common}SEC_CLIENT_AUTHENTICATION_METHODS = CLAIMTOBE\n"));
    let m2 = write("m2.config", &format!("{common}SEC_CLIENT_AUTHENTICATION_METHODS = IDTOKENS\n"));
    let slots = write("ads", SLOTS);

    let ping =
        |config: &str| tool(&root, config, &["condor_ping", "-verbose", "-pool", &pool, "-type", "collector", "READ"]);
    let (ok, out) = ping(&m1);
    assert!(ok, "{out}");
    assert!(out.contains("Authenticated using:         CLAIMTOBE"), "{out}");
    // The tool claims its condor-priv user; no domain is added.
    assert!(out.contains("Remote Mapping:              condor\n"), "{out}");
    assert!(out.contains("Encryption:                  AES"), "{out}");
    assert!(out.contains("Authorized:                  TRUE"), "{out}");
    let (ok, out) = tool(&root, &m1, &["condor_advertise", "-pool", &pool, "-multiple", "UPDATE_STARTD_AD", &slots]);
    assert!(ok && out.contains("Sent 2 of 2 ads"), "{out}");
    let (ok, out) = tool(&root, &m1, &["condor_status", "-pool", &pool, "-af", "Name", "AuthenticationMethod"]);
    assert!(ok, "{out}");
    assert_eq!(out, "slot1@chroot CLAIMTOBE\nslot2@chroot CLAIMTOBE\n");

    // M2: the real token in the client's token directory.
    let token = std::fs::read_to_string(data.join("condor.jwt")).expect("the fixture token");
    let token_file = root.join(&tokens[1..]).join("condor");
    std::fs::write(&token_file, token).expect("token written");
    // read_secure_file refuses a token readable by others.
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let (ok, out) = ping(&m2);
    assert!(ok, "{out}");
    assert!(out.contains("Authenticated using:         IDTOKENS"), "{out}");
    assert!(out.contains("Remote Mapping:              condor@anchor.local"), "{out}");
    assert!(out.contains("Authorized:                  TRUE"), "{out}");
    let (ok, out) = tool(&root, &m2, &["condor_advertise", "-pool", &pool, "-multiple", "UPDATE_STARTD_AD", &slots]);
    assert!(ok && out.contains("Sent 2 of 2 ads"), "{out}");
    // A query after the updates (the fixture serves one connection at a
    // time, so the updates are in).
    let (ok, out) = tool(&root, &m2, &["condor_status", "-pool", &pool, "-af", "Name", "AuthenticationMethod"]);
    assert!(ok, "{out}");
    assert_eq!(out, "slot1@chroot IDTOKENS\nslot2@chroot IDTOKENS\n");
    let ads = store.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let ids: Vec<String> = ads
        .iter()
        .filter_map(|a| a.lookup("AuthenticatedIdentity"))
        .map(|e| e.display(classad::Syntax::Old).to_string())
        .collect();
    assert_eq!(ids, ["\"condor@anchor.local\"", "\"condor@anchor.local\""]);
    drop(ads);
    let _ = std::fs::remove_dir_all(root.join(&tokens[1..]));
    for f in [&m1, &m2, &slots] {
        let _ = std::fs::remove_file(root.join(&f[1..]));
    }
}
