//! Running the `classad` binary in tests.

#![allow(dead_code)] // each test file uses part of this

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Runs `classad ARGS` (TZ=UTC) with `stdin` as its standard input.
pub fn classad_with_input(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_classad"))
        .args(args)
        .env("TZ", "UTC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.to_vec();
    // Write from a thread so a large input cannot deadlock against the output.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("finishes");
    writer.join().expect("writer");
    output
}

/// Runs `classad ARGS` with an empty standard input.
pub fn classad(args: &[&str]) -> Output {
    classad_with_input(args, b"")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Writes `text` to a file of this test process's temporary directory.
pub fn write_file(name: &str, text: &str) -> PathBuf {
    // Under target/tmp, which cargo keeps for integration tests.
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("classad-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write file");
    path
}
