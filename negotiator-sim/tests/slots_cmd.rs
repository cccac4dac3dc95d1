//! `negotiator-sim slots`: the slot ads of a machine and a configuration.

use std::path::{Path, PathBuf};
use std::process::Command;

use classad::format::{parse_ads, Format};
use classad::{ClassAd, Value};

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_negotiator-sim")).arg("slots").args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ints(ads: &[ClassAd], attr: &str) -> Vec<i64> {
    ads.iter()
        .map(|ad| match ad.eval_attr(attr) {
            Value::Int(i) => i,
            other => panic!("{attr} = {other:?}"),
        })
        .collect()
}

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("slots-cmd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn a_captured_layout_gives_the_real_startds_numbers() {
    // the static_shares layout, captured from condor_startd 23.9.6
    let conf = data("../matchmaker/tests/data/slots/static_shares/startd.conf");
    let (code, out, err) = run(&["--config", conf.to_str().expect("utf-8"), "--name", "vm", "--cpus", "2"]);
    assert_eq!(code, 0, "{err}");
    let ads = parse_ads(&out, Some(Format::Old)).expect("condor_status -long form");
    assert_eq!(ints(&ads, "Cpus"), [2, 2, 1, 1, 1]);
    assert_eq!(ints(&ads, "Memory"), [4096, 4096, 1000, 3596, 3596]);
    assert_eq!(ints(&ads, "Disk"), [2000000, 2000000, 1333334, 1333334, 1333334]);
    assert_eq!(ads[4].eval_attr("Name"), Value::Str("slot5@vm".into()));
}

#[test]
fn machine_file_claims_and_json() {
    let machine = data("tests/data/slots/node.toml");
    let job = write_temp(
        "job.ad",
        "[ RequestCpus = 3; RequestMemory = 1000; RequestDisk = 1000; RequestGPUs = 1; User = \"u@site\" ]\n",
    );
    let (code, out, err) =
        run(&["--machine", machine.to_str().expect("utf-8"), "--claim", job.to_str().expect("utf-8"), "--json"]);
    assert_eq!(code, 0, "{err}");
    let ads = parse_ads(&out, Some(Format::Json)).expect("json");
    assert_eq!(ads.len(), 2);
    assert_eq!(ads[0].eval_attr("Name"), Value::Str("slot1@gpu7.example.org".into()));
    assert_eq!(ints(&ads, "Cpus"), [5, 3]);
    assert_eq!(ints(&ads, "Memory"), [16384 - 1024, 1024]);
    assert_eq!(ads[1].eval_attr("AssignedGPUs"), Value::Str("CUDA0".into()));
    assert_eq!(ads[1].eval_attr("RemoteUser"), Value::Str("u@site".into()));
    assert_eq!(ads[0].eval_attr("OpSysMajorVer"), Value::Int(9));
}

#[test]
fn errors_are_reported_not_panics() {
    let conf = write_temp("over.conf", "NUM_CPUS = 4\nSLOT_TYPE_1 = cpus=3\nNUM_SLOTS_TYPE_1 = 2\n");
    let (code, out, err) = run(&["--config", conf.to_str().expect("utf-8")]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("can't allocate 2nd slot of type 1"), "{err}");
    let bad = write_temp("bad.toml", "cpus = many\n");
    let (code, _, err) = run(&["--machine", bad.to_str().expect("utf-8")]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.toml, line 1: 'cpus' must be a non-negative integer"), "{err}");
    let job = write_temp("big.ad", "[ RequestCpus = 64; RequestMemory = 1; RequestDisk = 1 ]\n");
    let (code, _, err) = run(&["--claim", job.to_str().expect("utf-8")]);
    assert_eq!(code, 1);
    assert!(err.contains("job 1: slot1@localhost can't be split"), "{err}");
}
