//! Gives the shared library an soname carrying the ABI's major version
//! (`libclassad_capi.so.0`), so that a program linked against one major
//! version never loads another (see src/version.rs).

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let major = include_str!("src/version.rs")
            .lines()
            .find_map(|l| l.strip_prefix("pub const CLASSAD_ABI_VERSION_MAJOR: u32 = "))
            .and_then(|v| v.strip_suffix(';'))
            .expect("src/version.rs defines CLASSAD_ABI_VERSION_MAJOR");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libclassad_capi.so.{major}");
    }
    println!("cargo:rerun-if-changed=src/version.rs");
}
