//! End-to-end tests of `classad convert`.

mod common;

use std::io::Read;

use common::{classad, classad_with_input, stderr, stdout, write_file};

const LONG: &str = "MyType = \"Machine\"\nName = \"slot1@wn\"\nCpus = 8\nLoadAvg = 0.25\nStart = (KeyboardIdle > 15 * 60) && MY.Cpus > 0\n\nMyType = \"Machine\"\nName = \"slot2@wn\"\nCpus = 4\n\n";

#[test]
fn old_to_every_format_and_back() {
    for to in ["new", "json", "xml", "old"] {
        let there = classad_with_input(&["convert", "--to", to], LONG.as_bytes());
        assert!(there.status.success(), "{to}: {}", stderr(&there));
        let back = classad_with_input(&["convert", "--to", "old"], &there.stdout);
        assert!(back.status.success(), "{to}: {}", stderr(&back));
        assert_eq!(stdout(&back), LONG, "through {to}:\n{}", stdout(&there));
    }
}

#[test]
fn each_format_as_htcondor_writes_it() {
    let input = "A = 1\nB = \"x\"\n\nC = undefined\n";
    let out = classad_with_input(&["convert", "--to", "new"], input.as_bytes());
    assert_eq!(stdout(&out), "[ A = 1; B = \"x\" ]\n[ C = undefined ]\n");
    let out = classad_with_input(&["convert", "--to", "json"], input.as_bytes());
    assert_eq!(stdout(&out), "[\n{\n  \"A\": 1,\n  \"B\": \"x\"\n}\n,\n{\n  \"C\": null\n}\n]\n");
    let out = classad_with_input(&["convert", "--to", "xml"], b"A = 1\n");
    let xml = stdout(&out);
    assert!(xml.starts_with("<?xml version=\"1.0\"?>\n"), "{xml}");
    assert!(xml.ends_with("<c>\n    <a n=\"A\"><i>1</i></a>\n</c>\n\n</classads>\n"), "{xml}");
}

#[test]
fn the_input_format_can_be_named() {
    // Detected as new syntax…
    let out = classad_with_input(&["convert", "--to", "old"], b"[ a = 1 ]\n");
    assert_eq!(stdout(&out), "a = 1\n\n");
    // …but read as the old format when told so: `[ a = 1 ]` has no valid name.
    let out = classad_with_input(&["convert", "--from", "old", "--to", "old"], b"[ a = 1 ]\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("ad 1, line 1"), "{}", stderr(&out));
}

#[test]
fn a_file_argument_or_a_dash() {
    let path = write_file("ads.long", LONG);
    let from_file = classad(&["convert", "--to", "json", &path.to_string_lossy()]);
    let from_dash = classad_with_input(&["convert", "--to", "json", "-"], LONG.as_bytes());
    assert!(from_file.status.success());
    assert_eq!(stdout(&from_file), stdout(&from_dash));
}

#[test]
fn a_bad_ad_stops_with_its_position() {
    let input = "A = 1\n\nB = (2\nC = 3\n\nD = 4\n";
    let out = classad_with_input(&["convert", "--to", "json"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "classad: standard input: ad 2, line 3, column 7: unexpected end of input; expected `)`\n"
    );
    // The ads before it are written and the output is complete JSON.
    assert_eq!(stdout(&out), "[\n{\n  \"A\": 1\n}\n]\n");
}

#[test]
fn skip_bad_leaves_bad_ads_out() {
    let input = "A = 1\n\nB = (2\n\nD = 4\n\nE = \"unterminated\n";
    let out = classad_with_input(&["convert", "--skip-bad"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "[ A = 1 ]\n[ D = 4 ]\n");
    let errors = stderr(&out);
    assert_eq!(errors.lines().count(), 2, "{errors}");
    assert!(errors.contains("ad 2, line 3"), "{errors}");
    assert!(errors.contains("ad 4, line 7"), "{errors}");
}

#[test]
fn unreadable_files_and_bad_options() {
    let out = classad(&["convert", "/nonexistent/ads"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("classad: cannot read /nonexistent/ads:"), "{}", stderr(&out));
    let out = classad(&["convert", "--to", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("invalid value 'yaml'"), "{}", stderr(&out));
}

#[test]
fn invalid_utf8_is_reported_not_a_panic() {
    let out = classad_with_input(&["convert"], b"A = \"caf\xe9\"\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("ad 1, line 1"), "{}", stderr(&out));
}

/// The pool sample through old → XML → JSON → new → old comes back as the
/// same text as old → old.
#[test]
fn the_pool_sample_survives_every_format() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../classad/tests/data/pool_sample.ads.gz");
    let mut pool = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).expect("pool sample"))
        .read_to_end(&mut pool)
        .expect("gunzip");
    let direct = classad_with_input(&["convert", "--to", "old"], &pool);
    assert!(direct.status.success(), "{}", stderr(&direct));
    let mut text = pool;
    for to in ["xml", "json", "new", "old"] {
        let out = classad_with_input(&["convert", "--to", to], &text);
        assert!(out.status.success(), "to {to}: {}", stderr(&out));
        text = out.stdout;
    }
    assert_eq!(text, direct.stdout);
    let ads = String::from_utf8_lossy(&text).matches("\n\n").count();
    assert!(ads > 100, "{ads} ads");
}
