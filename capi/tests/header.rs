//! `include/classad.h` is what cbindgen makes from the crate today: a
//! change to an exported item that forgot the header fails here.
//! `CLASSAD_CAPI_BLESS=1` writes the new header instead.

use std::path::Path;

#[test]
fn the_header_in_the_repository_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml reads");
    let mut made = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut made);
    let made = String::from_utf8(made).expect("UTF-8");
    let path = dir.join("include/classad.h");
    if std::env::var_os("CLASSAD_CAPI_BLESS").is_some() {
        std::fs::write(&path, &made).expect("write the header");
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == made,
        "include/classad.h is not what cbindgen makes from the crate: run \
         `CLASSAD_CAPI_BLESS=1 cargo test -p classad-capi --test header` and commit the header"
    );
}
