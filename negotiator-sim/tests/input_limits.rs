//! Every command that reads a file whole refuses one over the input limit
//! (a sparse gigabyte, `/dev/zero`, a line without end) with an error
//! naming the file, in bounded memory: each runs under an address-space
//! limit of 512 MiB, so a reader that reads on regardless fails the test
//! instead of filling the machine.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The address-space limit each command runs under.
const MEMORY: u64 = 512 << 20;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("input-limits-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A sparse file of a gigabyte (no disk used).
fn sparse(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path).and_then(|f| f.set_len(1 << 30)).expect("sparse file");
    path
}

/// `negotiator-sim ARGS` under the memory limit: exit code and stderr.
fn run(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = Command::new("prlimit")
        .arg(format!("--as={MEMORY}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_negotiator-sim"))
        .args(args)
        .output()
        .expect("prlimit runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

/// The command failed with the limit's message naming `file`, and a short one.
fn refused(args: &[&std::ffi::OsStr], file: &Path) {
    let (rc, err) = run(args);
    assert_ne!(rc, 0, "{args:?} succeeded");
    assert!(err.len() < 2000, "{args:?}: {} bytes of error", err.len());
    let named = err.contains(&file.display().to_string());
    let limit = err.contains("larger than the limit of 67108864 bytes") || err.contains("line longer than the limit");
    assert!(named && limit, "{args:?}: {err}");
}

#[test]
fn userprio_log_and_inputfile() {
    let dir = temp("userprio");
    let big = sparse(&dir, "Accountantnew.log");
    refused(&[os("userprio"), os("--log"), big.as_os_str()], &big);
    refused(&[os("userprio"), os("--inputfile"), big.as_os_str()], &big);
    refused(&[os("userprio"), os("--inputfile"), os("/dev/zero")], Path::new("/dev/zero"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn simulate_scenario_config_file_and_trace() {
    let dir = temp("simulate");
    let big = sparse(&dir, "big.toml");
    refused(&[os("simulate"), os("-q"), big.as_os_str()], &big);
    let scenario = dir.join("s.toml");
    std::fs::write(&scenario, "duration = \"1h\"\nconfig_file = \"/dev/zero\"\n").expect("writes");
    refused(&[os("simulate"), os("-q"), scenario.as_os_str()], Path::new("/dev/zero"));
    // An SWF trace of one line longer than the line limit (16 MiB).
    let swf = dir.join("long.swf");
    std::fs::write(&swf, vec![b'1'; (16 << 20) + 10]).expect("writes");
    std::fs::write(&scenario, "duration = \"1h\"\nconfig = \"NEGOTIATOR_INTERVAL = 60\"\n[[pool.machines]]\nname = \"node\"\ncount = 2\ncpus = 1\nmemory = 1024\n\n[trace]\nfile = \"long.swf\"\n")
        .expect("writes");
    refused(&[os("simulate"), os("-q"), scenario.as_os_str()], &swf);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn policy_trace() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/policy");
    let (config, job) = (data.join("desktop.conf"), data.join("job.ad"));
    let args = [os("policy"), os("--config"), config.as_os_str(), os("--job"), job.as_os_str(), os("--trace")];
    refused(&[&args[..], &[os("/dev/zero")]].concat(), Path::new("/dev/zero"));
    let trace = data.join("desktop.trace");
    let zero_job = [os("policy"), os("--config"), config.as_os_str(), os("--job"), os("/dev/zero"), os("--trace")];
    refused(&[&zero_job[..], &[trace.as_os_str()]].concat(), Path::new("/dev/zero"));
}

#[test]
fn transform_rules_and_a_rules_items_file() {
    let dir = temp("transform");
    let jobs = dir.join("jobs.ad");
    std::fs::write(&jobs, "ClusterId = 1\nProcId = 0\nOwner = \"alice\"\n").expect("writes");
    let big = sparse(&dir, "big.xform");
    refused(&[os("transform"), os("--rules"), big.as_os_str(), jobs.as_os_str()], &big);
    let rules = dir.join("q.xform");
    std::fs::write(&rules, "SET Foo = \"$(Q)\"\nTRANSFORM Q from /dev/zero\n").expect("writes");
    refused(&[os("transform"), os("--rules"), rules.as_os_str(), jobs.as_os_str()], Path::new("/dev/zero"));
    refused(&[os("transform"), os("--rules"), rules.as_os_str(), os("/dev/zero")], Path::new("/dev/zero"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn slots_machine() {
    let dir = temp("slots");
    let big = sparse(&dir, "machine.toml");
    refused(&[os("slots"), os("--machine"), big.as_os_str()], &big);
    refused(&[os("slots"), os("--machine"), os("/dev/zero")], Path::new("/dev/zero"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_limit_is_overridden_on_the_command_line() {
    let dir = temp("override");
    let machine = dir.join("m.toml");
    std::fs::write(&machine, "cpus = 4\nmemory = 8192\n").expect("writes");
    let (rc, err) = run(&[os("slots"), os("--machine"), machine.as_os_str(), os("--max-input-size"), os("10")]);
    assert_ne!(rc, 0);
    assert!(err.contains("m.toml: larger than the limit of 10 bytes"), "{err}");
    let (rc, err) = run(&[os("slots"), os("--machine"), machine.as_os_str(), os("--max-input-size"), os("1000")]);
    assert_eq!(rc, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
