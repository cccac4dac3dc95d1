//! The version of the ABI, semantic: a new major version may break
//! callers (a function removed or changed, a struct's layout changed); a
//! new minor version only adds (functions, status codes, value types,
//! constants); a patch changes no declaration.

use std::ffi::c_char;

/// The ABI's major version: a program built against another major version
/// must not use this library.
pub const CLASSAD_ABI_VERSION_MAJOR: u32 = 0;
/// The ABI's minor version: a program built against minor version N runs
/// with this library when this is N or more (and the major is the same).
pub const CLASSAD_ABI_VERSION_MINOR: u32 = 1;
/// The ABI's patch version.
pub const CLASSAD_ABI_VERSION_PATCH: u32 = 0;

/// The library's ABI version as one number, `major * 1000000 + minor *
/// 1000 + patch`, to compare with the header's `CLASSAD_ABI_VERSION_*`
/// at run time: the library a program loaded may not be the one it was
/// built against.
///
/// Thread safety: any thread, at any time.
#[no_mangle]
pub extern "C" fn classad_abi_version() -> u32 {
    CLASSAD_ABI_VERSION_MAJOR * 1_000_000 + CLASSAD_ABI_VERSION_MINOR * 1000 + CLASSAD_ABI_VERSION_PATCH
}

/// The library's version, as text (`"0.1.0"`): NUL-terminated, static
/// (never freed).
///
/// Thread safety: any thread, at any time.
#[no_mangle]
pub extern "C" fn classad_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
