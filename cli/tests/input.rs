//! What every command accepts as an input file: gzip-compressed ads, a
//! UTF-8 byte order mark; and the clear errors (exit status 2) for a
//! directory, binary data and compressions that are not read.

mod common;

use std::io::Write;
use std::path::PathBuf;

use common::{classad, classad_with_input, stderr, stdout, write_file};

fn write_bytes(name: &str, bytes: &[u8]) -> PathBuf {
    let path = write_file(name, "");
    std::fs::write(&path, bytes).expect("write file");
    path
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("in memory");
    encoder.finish().expect("in memory")
}

#[test]
fn gzip_files_are_read_as_they_are() {
    let pool = include_bytes!("../../classad/tests/data/pool_sample.ads.gz");
    let path = write_bytes("pool.ads.gz", pool);
    let out = classad(&["convert", "--to", "new", &path.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 205);

    let job = write_bytes("job.ad.gz", &gzip(b"RequestCpus = 2\n"));
    let out = classad(&["eval", "--my", &job.to_string_lossy(), "RequestCpus * 2"]);
    assert_eq!(stdout(&out), "4\n", "{}", stderr(&out));
    let out = classad_with_input(&["convert", "--to", "new"], &gzip(b"A = 1\n"));
    assert_eq!(stdout(&out), "[ A = 1 ]\n", "{}", stderr(&out));
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_name() {
    let out = classad_with_input(&["convert", "--to", "new"], b"\xef\xbb\xbfA = 1\n");
    assert_eq!(stdout(&out), "[ A = 1 ]\n", "{}", stderr(&out));
}

#[test]
fn binary_data_is_not_a_classad_file() {
    let path = write_bytes("program", b"\x7fELF\x02\x01\x01\x00\x00\x00");
    let out = classad(&["convert", &path.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), format!("classad: {}: not a ClassAd file (binary data)\n", path.display()));
    let out = classad_with_input(&["query", "-"], b"\x00\x01\x02\x03");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "classad: standard input: not a ClassAd file (binary data)\n");
}

#[test]
fn zstd_says_it_is_not_supported() {
    let path = write_bytes("ads.zst", &[0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x05, 0x29, 0x00]);
    let out = classad(&["convert", &path.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("zstd-compressed input: not supported"), "{}", stderr(&out));
}

#[test]
fn a_directory_exits_2_like_an_unreadable_file() {
    let dir = std::env::temp_dir();
    let dir = dir.to_string_lossy();
    for args in [
        vec!["convert", &*dir],
        vec!["query", &*dir],
        vec!["eval", "--my", &*dir, "1"],
        vec!["analyze", "--job", &*dir, "--machines", &*dir],
    ] {
        let out = classad(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("is a directory"), "{args:?}: {}", stderr(&out));
    }
}
