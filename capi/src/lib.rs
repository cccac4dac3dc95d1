//! # classad-capi
//!
//! A C ABI over classad-rs, for schedulers that are not written in Rust
//! (C, C++, Go through cgo, anything with a C FFI): ClassAds, matching and
//! the negotiator. The header is `include/classad.h` (made by cbindgen
//! from this crate; a test checks that it is current); the libraries are
//! `libclassad_capi.so` and `libclassad_capi.a`. `docs/c-api.md` of the
//! repository is the guide; the examples are in `capi/examples/`.
//!
//! ## The rules of the ABI
//! * **Handles** are opaque pointers (`ClassadAd *`, `ClassadPool *`,
//!   ...), each made by a function of this library and freed by its
//!   type's `*_free` function, which accepts NULL. Something borrowed (an
//!   ad of a list, a `ClassadStr`) is never freed and lives as long as
//!   the handle it came from; every function says which it gives.
//! * **Errors**: a fallible function returns a [`ClassadStatus`]
//!   (`CLASSAD_STATUS_OK` is 0) and takes a last argument
//!   `ClassadError **error`: NULL, or a place where a failure stores an
//!   error (message, line, column) that the caller frees with
//!   [`classad_error_free`]; on success `*error` is set to NULL.
//! * **No panic crosses the boundary**: one is caught and returned as
//!   `CLASSAD_STATUS_INTERNAL`.
//! * **Strings** in are UTF-8 with a length in bytes (no NUL needed);
//!   strings out are a [`ClassadString`] the caller frees with
//!   [`classad_string_free`] (also NUL-terminated), or a [`ClassadStr`]
//!   borrowed from a handle (not NUL-terminated).
//! * **No global state**: everything a call uses is in its arguments.
//!   Each function's documentation says what may run at once on the same
//!   handles: reading a handle from many threads is safe, changing one
//!   needs it to itself.
//! * **Versions**: [`classad_abi_version`] and the header's
//!   `CLASSAD_ABI_VERSION_*` (semantic: see [`version`]).
//!
//! ## An example, from Rust (the C is the same calls)
//! ```
//! use classad_capi::*;
//! use std::ptr::null_mut;
//!
//! let job = "[ RequestMemory = 2048; Requirements = TARGET.Memory >= RequestMemory ]";
//! let slots = "[ Name = \"a\"; Memory = 1024; Requirements = true ]\n\
//!              [ Name = \"b\"; Memory = 4096; Requirements = true ]";
//! unsafe {
//!     let (mut ad, mut list, mut pool) = (null_mut(), null_mut(), null_mut());
//!     let status = classad_ad_parse(job.as_ptr().cast(), job.len(), CLASSAD_FORMAT_NEW, &mut ad, null_mut());
//!     assert_eq!(status, ClassadStatus::Ok);
//!     classad_ad_list_parse(slots.as_ptr().cast(), slots.len(), CLASSAD_FORMAT_AUTO, &mut list, null_mut());
//!     classad_pool_new(list, CLASSAD_SEMANTICS_OLD, &mut pool, null_mut());
//!     let matches = classad_matches_new();
//!     classad_pool_matches(pool, ad, matches, null_mut());
//!     assert_eq!(classad_matches_len(matches), 1);
//!     assert_eq!((*classad_matches_data(matches)).index, 1);
//!     classad_matches_free(matches);
//!     classad_pool_free(pool);
//!     classad_ad_list_free(list);
//!     classad_ad_free(ad);
//! }
//! ```

// A C ABI dereferences the pointers its callers pass: every exported
// function is `unsafe extern "C"` with its contract under `# Safety`, and
// each dereference says which part of the contract makes it sound.
#![allow(unsafe_code)]

pub mod accountant;
pub mod ad;
pub mod ad_list;
pub mod cycle;
pub mod error;
pub mod expr;
mod handles;
pub mod matching;
pub mod negotiator;
pub mod options;
pub mod strings;
pub mod value;
pub mod version;

pub use accountant::*;
pub use ad::*;
pub use ad_list::*;
pub use cycle::*;
pub use error::{
    classad_error_code, classad_error_column, classad_error_free, classad_error_line, classad_error_message,
};
pub use error::{ClassadError, ClassadStatus};
pub use expr::*;
pub use matching::*;
pub use negotiator::*;
pub use options::*;
pub use strings::{classad_string_free, ClassadStr, ClassadString};
pub use value::*;
pub use version::*;

/// What the functions' thread-safety notes promise, checked by the
/// compiler: every handle may be sent to another thread, and those read
/// from many threads at once are `Sync`.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<ClassadAd>();
    shared::<ClassadAdList>();
    shared::<ClassadExpr>();
    shared::<ClassadValue>();
    shared::<ClassadPool>();
    shared::<ClassadMatches>();
    shared::<ClassadNegotiator>();
    shared::<ClassadAccountant>();
    shared::<ClassadCycle>();
    shared::<ClassadError>();
};
