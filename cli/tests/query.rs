//! End-to-end tests of `classad query`, against what `condor_status -ads`
//! prints for the pool sample (`data/query/`, written by `generate.sh`).

mod common;

use std::io::Read;

use common::{classad, classad_with_input, stderr, stdout, write_file};

fn pool_sample() -> Vec<u8> {
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(&include_bytes!("../../classad/tests/data/pool_sample.ads.gz")[..])
        .read_to_end(&mut text)
        .expect("gzip data");
    text
}

fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

#[test]
fn autoformat_prints_as_condor_status() {
    let args: Vec<&str> = include_str!("data/query/af.args").lines().collect();
    let mut command = vec!["query", "-", "--af"];
    command.extend(&args);
    let out = classad_with_input(&command, &pool_sample());
    assert!(out.status.success(), "{}", stderr(&out));
    let ours = stdout(&out);
    assert_eq!(sorted_lines(&ours), sorted_lines(include_str!("data/query/af.txt")));
}

#[test]
fn constraint_selects_as_condor_status() {
    let out = classad_with_input(
        &[
            "query",
            "-",
            "--constraint",
            r#"Memory > 50000 || (Cpus >= 8 && State == "Unclaimed")"#,
            "--af",
            "Name",
            "Memory",
            "Cpus",
        ],
        &pool_sample(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(sorted_lines(&stdout(&out)), sorted_lines(include_str!("data/query/constraint.txt")));
}

/// condor_status's arguments in a `sort-N.args` file as ours: `-sort`
/// and `-constraint` take one value, `-af` the rest; `-l` (whole ads in
/// the old format) is our default.
fn our_arguments(args: &str) -> Vec<String> {
    let mut ours = vec!["query".to_owned(), "-".to_owned()];
    let mut lines = args.lines();
    while let Some(arg) = lines.next() {
        match arg {
            "-sort" | "-constraint" => {
                ours.push(format!("-{arg}"));
                ours.push(lines.next().expect("a value").to_owned());
            }
            "-af" => {
                ours.push("--af".to_owned());
                ours.extend(lines.by_ref().map(str::to_owned));
            }
            "-l" => {}
            other => panic!("unexpected argument {other}"),
        }
    }
    ours
}

#[test]
fn sort_orders_as_condor_status() {
    let cases = [
        (include_str!("data/query/sort-1.args"), include_str!("data/query/sort-1.txt")),
        (include_str!("data/query/sort-2.args"), include_str!("data/query/sort-2.txt")),
        (include_str!("data/query/sort-3.args"), include_str!("data/query/sort-3.txt")),
        (include_str!("data/query/sort-4.args"), include_str!("data/query/sort-4.txt")),
        (include_str!("data/query/sort-5.args"), include_str!("data/query/sort-5.txt")),
        (include_str!("data/query/sort-6.args"), include_str!("data/query/sort-6.txt")),
        (include_str!("data/query/sort-7.args"), include_str!("data/query/sort-7.txt")),
    ];
    let sample = pool_sample();
    for (args, expected) in cases {
        let ours = our_arguments(args);
        let ours: Vec<&str> = ours.iter().map(String::as_str).collect();
        let out = classad_with_input(&ours, &sample);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out), expected, "{ours:?}");
    }
}

const ADS: &str = r#"[ Name = "b"; Memory = 2048; Arch = "X86_64" ]
[ Name = "a"; Memory = 512; Arch = "aarch64" ]
[ Name = "C"; Arch = "X86_64" ]
[ Name = "d"; Memory = 4096.5; Arch = "x86_64" ]
"#;

#[test]
fn sort_orders_numbers_by_value_and_leaves_out_undefined_keys() {
    // Numbers by value (condor_status would put 4096.5 after every
    // integer), texts in natural order, case-sensitive; C has no Memory.
    let ads = format!("{ADS}[ Name = \"e\"; Memory = -1 ]\n[ Name = \"f\"; Memory = \"x10\" ]\n[ Name = \"g\"; Memory = \"x9\" ]\n[ Name = \"h\"; Memory = \"\" ]\n");
    let out = classad_with_input(&["query", "--sort", "Memory", "--af", "Name", "Memory", "--", "-"], ads.as_bytes());
    assert_eq!(stdout(&out), "h \ne -1\na 512\nb 2048\nd 4096.5\ng x9\nf x10\n");
    let by_name = classad_with_input(&["query", "-", "--sort", "Name", "--af", "Name"], ADS.as_bytes());
    assert_eq!(stdout(&by_name), "C\na\nb\nd\n");
    // Ties keep their input order; a second key orders them.
    let by_arch = classad_with_input(&["query", "-", "--sort", "toLower(Arch)", "--af", "Name"], ADS.as_bytes());
    assert_eq!(stdout(&by_arch), "a\nb\nC\nd\n");
    let by_arch_name = classad_with_input(
        &["query", "-", "--sort", "toLower(Arch)", "--sort", "Name", "--af", "Name"],
        ADS.as_bytes(),
    );
    assert_eq!(stdout(&by_arch_name), "a\nC\nb\nd\n");
}

#[test]
fn whole_ads_in_any_format_in_input_order() {
    let file = write_file("query-ads.ad", ADS);
    let file = file.to_string_lossy();
    // `==` compares strings ignoring case.
    let old = classad(&["query", &file, "--constraint", "Arch == \"x86_64\" && Memory > 1000"]);
    assert_eq!(
        stdout(&old),
        "Name = \"b\"\nMemory = 2048\nArch = \"X86_64\"\n\nName = \"d\"\nMemory = 4096.5\nArch = \"x86_64\"\n\n"
    );
    let json = classad(&["query", &file, "--constraint", "Memory < 1000", "--to", "json"]);
    assert_eq!(stdout(&json), "[\n{\n  \"Name\": \"a\",\n  \"Memory\": 512,\n  \"Arch\": \"aarch64\"\n}\n]\n");
}

#[test]
fn constraint_takes_non_zero_numbers_as_true() {
    let ads = "[ Name = \"a\"; K = 0 ]\n[ Name = \"b\"; K = -2.5 ]\n[ Name = \"c\"; K = \"x\" ]\n[ Name = \"d\"; K = true ]\n[ Name = \"e\" ]\n";
    let out = classad_with_input(&["query", "-", "--constraint", "K", "--af", "Name"], ads.as_bytes());
    assert_eq!(stdout(&out), "b\nd\n");
}

#[test]
fn bad_input_is_reported() {
    let bad = classad_with_input(&["query", "-", "--constraint", "Memory >"], ADS.as_bytes());
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).contains("bad constraint"), "{}", stderr(&bad));
    let broken = classad_with_input(&["query", "-"], b"[ a = ; ]");
    assert_eq!(broken.status.code(), Some(1));
    let missing = classad(&["query", "/nonexistent/ads"]);
    assert_eq!(missing.status.code(), Some(2));
}

/// The arguments of an `.args` file (one per line).
fn args_of(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[test]
fn htcondor_spellings_print_as_condor_status() {
    let cases = [
        (include_str!("data/query/spell-1.args"), include_str!("data/query/spell-1.txt")),
        (include_str!("data/query/spell-2.args"), include_str!("data/query/spell-2.txt")),
        (include_str!("data/query/spell-3.args"), include_str!("data/query/spell-3.txt")),
        (include_str!("data/query/spell-4.args"), include_str!("data/query/spell-4.txt")),
        (include_str!("data/query/spell-5.args"), include_str!("data/query/spell-5.txt")),
        (include_str!("data/query/spell-6.args"), include_str!("data/query/spell-6.txt")),
        (include_str!("data/query/spell-7.args"), include_str!("data/query/spell-7.txt")),
        (include_str!("data/query/spell-8.args"), include_str!("data/query/spell-8.txt")),
        (include_str!("data/query/spell-9.args"), include_str!("data/query/spell-9.txt")),
        (include_str!("data/query/spell-10.args"), include_str!("data/query/spell-10.txt")),
        (include_str!("data/query/spell-11.args"), include_str!("data/query/spell-11.txt")),
        (include_str!("data/query/spell-12.args"), include_str!("data/query/spell-12.txt")),
        (include_str!("data/query/spell-13.args"), include_str!("data/query/spell-13.txt")),
        (include_str!("data/query/spell-14.args"), include_str!("data/query/spell-14.txt")),
        (include_str!("data/query/spell-15.args"), include_str!("data/query/spell-15.txt")),
    ];
    let sample = pool_sample();
    for (args, expected) in cases {
        // As `condor_status -ads FILE ARGS...`, the file being standard input.
        let mut command = vec!["query", "-ads", "-"];
        command.extend(args_of(args));
        let out = classad_with_input(&command, &sample);
        assert!(out.status.success(), "{command:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), expected, "{command:?}");
    }
}

#[test]
fn job_ids_print_as_condor_q() {
    let cases = [
        (include_str!("data/query/jobs-1.args"), include_str!("data/query/jobs-1.txt")),
        (include_str!("data/query/jobs-2.args"), include_str!("data/query/jobs-2.txt")),
        (include_str!("data/query/jobs-3.args"), include_str!("data/query/jobs-3.txt")),
        (include_str!("data/query/jobs-4.args"), include_str!("data/query/jobs-4.txt")),
    ];
    let jobs = include_bytes!("data/query/jobs.ads");
    for (args, expected) in cases {
        // condor_q lists jobs by ID.
        let mut command = vec!["query", "-", "-sort", "ClusterId"];
        command.extend(args_of(args));
        let out = classad_with_input(&command, jobs);
        assert!(out.status.success(), "{command:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), expected, "{command:?}");
    }
}

#[test]
fn long_and_single_dash_spellings_mean_the_same() {
    let ads = ADS.as_bytes();
    let long = classad_with_input(&["query", "--constraint", "Memory > 600", "--af", "Name", "Memory", "--", "-"], ads);
    let single = classad_with_input(&["query", "-", "-constraint", "Memory > 600", "-af", "Name", "Memory"], ads);
    assert_eq!(stdout(&long), "b 2048\nd 4096.5\n");
    assert_eq!(stdout(&single), stdout(&long));
    // Options after --af end its list; -limit takes the first ads read
    // (that have the sort keys), then sorts them, as condor_status.
    let after = classad_with_input(&["query", "-af", "Name", "-limit", "2", "-sort", "Name", "-ads", "-"], ads);
    assert_eq!(stdout(&after), "a\nb\n");
    let whole = classad_with_input(&["query", "-ads", "-", "-l", "-limit", "1"], ads);
    assert_eq!(stdout(&whole), "Name = \"b\"\nMemory = 2048\nArch = \"X86_64\"\n\n");
}

#[test]
fn bad_htcondor_options_are_reported() {
    let unknown = classad_with_input(&["query", "-", "-af:q", "Name"], ADS.as_bytes());
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("unknown letter 'q'"), "{}", stderr(&unknown));
    let format = classad_with_input(&["query", "-", "-format", "%y", "Name"], ADS.as_bytes());
    assert_eq!(format.status.code(), Some(1));
    assert!(stderr(&format).contains("unknown conversion `%y`"), "{}", stderr(&format));
    let typo = classad_with_input(&["query", "-", "-constrain", "x"], ADS.as_bytes());
    assert_eq!(typo.status.code(), Some(2));
    let both = classad_with_input(&["query", "-", "-af", "Name", "-format", "%s", "Name"], ADS.as_bytes());
    assert_eq!(both.status.code(), Some(2));
}
