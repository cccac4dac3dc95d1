//! The result tables written as CSV and Parquet and read back: by our CSV
//! reader, by the parquet crate's reader and, where python3 has pyarrow,
//! by pyarrow.

use std::path::PathBuf;
use std::process::Command;

use negotiator_sim::output::{self, parquet, read_tables, write_tables, Format};
use negotiator_sim::table::{Column, Table};

fn strs(v: &[&str]) -> Column {
    Column::Str(v.iter().map(|s| s.to_string()).collect())
}

/// The four tables of a small run, with awkward values: text with commas,
/// quotes and line breaks, reals with no short decimal form.
fn tables() -> Vec<Table> {
    let mut users = Table::new("users");
    users.push("time", Column::Int(vec![0, 0, 60, 60]));
    users.push("user", strs(&["alice@site", "bob, \"the\" builder@site", "alice@site", "bob, \"the\" builder@site"]));
    users.push("group", strs(&["", "group_physics", "", "group_physics"]));
    users.push("usage", Column::Float(vec![3.0, 1.0, 2.5, 1.5]));
    users.push("accumulated_usage", Column::Float(vec![0.0, 0.0, 180.0, 60.0]));
    users.push("rup", Column::Float(vec![0.5, 0.5, 0.5 + 1.0 / 3.0, 0.500_000_000_000_1]));
    users.push("eup", Column::Float(vec![500.0, 500.0, 833.333_333_333_333_4, 500.000_000_000_1]));
    users.push("share", Column::Float(vec![0.75, 0.25, 0.625, 0.375]));
    users.push("idle", Column::Int(vec![10, 4, 8, 3]));
    users.push("running", Column::Int(vec![3, 1, 2, 2]));
    let mut groups = Table::new("groups");
    groups.push("time", Column::Int(vec![0, 60]));
    groups.push("group", strs(&["group_physics", "group_physics"]));
    groups.push("quota", Column::Float(vec![2.0, 2.0]));
    groups.push("demand", Column::Float(vec![5.0, 4.0]));
    groups.push("allocated", Column::Float(vec![2.0, 2.0]));
    groups.push("usage", Column::Float(vec![1.0, 1.5]));
    let mut cycles = Table::new("cycles");
    cycles.push("time", Column::Int(vec![0, 60]));
    cycles.push("matches", Column::Int(vec![4, 1]));
    cycles.push("rejections", Column::Int(vec![0, 2]));
    cycles.push("preemptions", Column::Int(vec![0, 1]));
    cycles.push("idle_jobs", Column::Int(vec![14, 11]));
    cycles.push("running_jobs", Column::Int(vec![4, 4]));
    cycles.push("busy_slots", Column::Float(vec![4.0, 4.0]));
    cycles.push("total_slots", Column::Float(vec![4.0, 4.0]));
    cycles.push("pie_spins", Column::Int(vec![2, 1]));
    let mut jobs = Table::new("jobs");
    jobs.push("job", strs(&["1.0", "2.0", "3.0"]));
    jobs.push("user", strs(&["alice@site", "alice@site", "bob, \"the\" builder@site"]));
    jobs.push("group", strs(&["", "", "group_physics"]));
    jobs.push("submit", Column::Int(vec![0, 0, 0]));
    jobs.push("start", Column::Int(vec![0, 60, -1]));
    jobs.push("end", Column::Int(vec![120, -1, -1]));
    jobs.push("wait", Column::Int(vec![0, 60, 120]));
    jobs.push("run", Column::Int(vec![120, 60, 0]));
    jobs.push("badput", Column::Int(vec![0, 0, 0]));
    jobs.push("preemptions", Column::Int(vec![0, 1, 0]));
    jobs.push("slot", strs(&["slot1@node\nA", "slot1_2@node", ""]));
    vec![users, groups, cycles, jobs]
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn csv_round_trip_of_the_four_tables() {
    let dir = scratch("csv_round_trip");
    let written = write_tables(&dir, &tables(), &[Format::Csv]).unwrap();
    let names: Vec<String> = written.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["users.csv", "groups.csv", "cycles.csv", "jobs.csv"]);
    let mut expected = tables();
    expected.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(read_tables(&dir).unwrap(), expected);
    let text = std::fs::read_to_string(dir.join("users.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("time,user,group,usage,accumulated_usage,rup,eup,share,idle,running"));
    assert_eq!(lines.next(), Some("0,\"alice@site\",\"\",3.0,0.0,0.5,500.0,0.75,10,3"));
    assert_eq!(lines.next(), Some("0,\"bob, \"\"the\"\" builder@site\",\"group_physics\",1.0,0.0,0.5,500.0,0.25,4,1"));
    assert_eq!(lines.next(), Some("60,\"alice@site\",\"\",2.5,180.0,0.8333333333333333,833.3333333333334,0.625,8,2"));
}

#[test]
fn parquet_files_read_back_by_the_parquet_reader() {
    let dir = scratch("parquet_round_trip");
    let written = write_tables(&dir, &tables(), &[Format::Parquet, Format::Csv]).unwrap();
    assert_eq!(written.len(), 8);
    for table in tables() {
        let path = dir.join(format!("{}.parquet", table.name));
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..4], b"PAR1");
        assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
        assert_eq!(parquet::read_file(&path).unwrap(), table, "{}", path.display());
    }
}

#[test]
fn parquet_and_csv_bytes_are_the_same_run_after_run() {
    let a = scratch("det_a");
    let b = scratch("det_b");
    write_tables(&a, &tables(), &[Format::Csv, Format::Parquet]).unwrap();
    write_tables(&b, &tables(), &[Format::Csv, Format::Parquet]).unwrap();
    for t in tables() {
        for ext in ["csv", "parquet"] {
            let name = format!("{}.{ext}", t.name);
            assert_eq!(std::fs::read(a.join(&name)).unwrap(), std::fs::read(b.join(&name)).unwrap(), "{name}");
        }
    }
}

#[test]
fn an_empty_table_is_written_and_read_back() {
    let dir = scratch("empty");
    let mut t = Table::new("cycles");
    t.push("time", Column::Int(vec![]));
    t.push("busy_slots", Column::Float(vec![]));
    write_tables(&dir, std::slice::from_ref(&t), &[Format::Csv, Format::Parquet]).unwrap();
    assert_eq!(read_tables(&dir).unwrap(), vec![t.clone()]);
    assert_eq!(parquet::read_file(&dir.join("cycles.parquet")).unwrap(), t);
}

#[test]
fn a_directory_that_cannot_be_made_is_a_clear_error() {
    let dir = scratch("blocked");
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    std::fs::write(&dir, "a file, not a directory").unwrap();
    let err = write_tables(&dir.join("sub"), &tables(), &[Format::Csv]).unwrap_err();
    assert!(matches!(err, output::OutputError::Io { .. }), "{err}");
    assert!(err.to_string().contains("blocked"), "{err}");
    let _ = std::fs::remove_file(&dir);
}

#[test]
fn format_names() {
    assert_eq!("CSV".parse::<Format>().unwrap(), Format::Csv);
    assert_eq!("parquet".parse::<Format>().unwrap(), Format::Parquet);
    assert_eq!(
        "xlsx".parse::<Format>().unwrap_err().to_string(),
        "unknown output format \"xlsx\" (expected csv or parquet)"
    );
}

/// A second, independent reader: pyarrow. Runs where python3 can import
/// it (`pip install pyarrow`); says so and passes elsewhere, the parquet
/// crate's reader above being the check that always runs.
#[test]
fn parquet_files_read_back_by_pyarrow() {
    let has_pyarrow = Command::new("python3").args(["-c", "import pyarrow"]).status().is_ok_and(|s| s.success());
    if !has_pyarrow {
        eprintln!("skipped: python3 cannot import pyarrow");
        return;
    }
    let dir = scratch("pyarrow");
    write_tables(&dir, &tables(), &[Format::Parquet]).unwrap();
    let script = r#"
import sys, pyarrow.parquet as pq
for name in ["users", "groups", "cycles", "jobs"]:
    t = pq.read_table(sys.argv[1] + "/" + name + ".parquet")
    cols = ",".join(f"{f.name}:{f.type}" for f in t.schema)
    print(name, t.num_rows, cols)
u = pq.read_table(sys.argv[1] + "/users.parquet").to_pydict()
print(repr(u["user"][1]), repr(u["rup"][2]), repr(u["eup"][3]))
j = pq.read_table(sys.argv[1] + "/jobs.parquet").to_pydict()
print(repr(j["slot"][0]), j["start"])
"#;
    let out = Command::new("python3").arg("-c").arg(script).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "users 4 time:int64,user:string,group:string,usage:double,accumulated_usage:double,rup:double,eup:double,share:double,idle:int64,running:int64"
    );
    assert_eq!(lines[1], "groups 2 time:int64,group:string,quota:double,demand:double,allocated:double,usage:double");
    assert_eq!(lines[3], "jobs 3 job:string,user:string,group:string,submit:int64,start:int64,end:int64,wait:int64,run:int64,badput:int64,preemptions:int64,slot:string");
    // Python's repr of a float is also the shortest exact form.
    assert_eq!(lines[4], "'bob, \"the\" builder@site' 0.8333333333333333 500.0000000001");
    assert_eq!(lines[5], "'slot1@node\\nA' [0, 60, -1]");
}
