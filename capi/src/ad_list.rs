//! `ClassadAdList`: many ads, read from text or a file (a `condor_status
//! -long` or `condor_q -json` dump), as a pool or a cycle takes them.
//!
//! Thread safety: functions that take a `const ClassadAdList *` may run
//! on the same list from many threads at once; `classad_ad_list_push`
//! needs the list to itself.

use std::ffi::c_char;

use classad::ClassAd;
use matchmaker::snapshot::SnapshotError;

use crate::ad::ClassadAd;
use crate::error::{guard, ClassadError, ClassadStatus, Failure};
use crate::handles::{free_handle, handle, handle_mut, handle_out};
use crate::options::{read_format, write_format, ClassadFormat};
use crate::strings::{path_in, string_out, text_in, ClassadString};

/// Ads in order. Made by `classad_ad_list_new`, `classad_ad_list_parse`
/// or `classad_ad_list_read_file`, freed with `classad_ad_list_free`
/// (which frees the ads it holds).
pub struct ClassadAdList(pub(crate) Vec<ClassAd>);

impl From<SnapshotError> for Failure {
    fn from(e: SnapshotError) -> Failure {
        let message = e.to_string();
        match e {
            SnapshotError::Ad { source, .. } => Failure { message, ..Failure::from(source) },
            SnapshotError::Config(_) => Failure::new(ClassadStatus::Config, message),
            SnapshotError::Accountant { .. } => Failure::new(ClassadStatus::Negotiator, message),
            _ => Failure::new(ClassadStatus::Io, message),
        }
    }
}

/// A new, empty list. Free it with [`classad_ad_list_free`].
#[no_mangle]
pub extern "C" fn classad_ad_list_new() -> *mut ClassadAdList {
    Box::into_raw(Box::new(ClassadAdList(Vec::new())))
}

/// Reads every ad of `text` (`len` bytes of UTF-8) in `format`
/// (`CLASSAD_FORMAT_AUTO` detects it) into a new list stored in `*out`,
/// which the caller frees with [`classad_ad_list_free`]. An ad that does
/// not read is `CLASSAD_STATUS_PARSE`, with its line and column in the
/// text.
///
/// # Safety
/// `text` points to `len` readable bytes; `out` is a valid place for a
/// pointer; `error` is NULL or a valid place for one.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_parse(
    text: *const c_char,
    len: usize,
    format: ClassadFormat,
    out: *mut *mut ClassadAdList,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let text = unsafe { text_in(text, len, "the text") }?;
        let ads = classad::format::parse_ads(text, read_format(format)?)?;
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, ClassadAdList(ads)) }
    })
}

/// Reads every ad of the file `path` (`path_len` bytes of UTF-8): any of
/// HTCondor's formats, detected, gzipped or not, as `condor_status -long`,
/// `condor_q -json` or `condor_status -xml` wrote it. The list, stored in
/// `*out`, is the caller's to free with [`classad_ad_list_free`]. A file
/// that cannot be read is `CLASSAD_STATUS_IO`; an ad that does not read,
/// `CLASSAD_STATUS_PARSE` with its line and column.
///
/// # Safety
/// `path` points to `path_len` readable bytes; `out` is a valid place for
/// a pointer; `error` is NULL or a valid place for one.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_read_file(
    path: *const c_char,
    path_len: usize,
    out: *mut *mut ClassadAdList,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let path = unsafe { path_in(path, path_len, "the file name") }?.ok_or_else(|| Failure::null("path"))?;
        let ads = matchmaker::snapshot::read_ads(&path)?;
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, ClassadAdList(ads)) }
    })
}

/// Frees a list and its ads. NULL is allowed.
///
/// # Safety
/// `list` is NULL or a list made by this library, freed once; no ad
/// borrowed from it is used afterwards.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_free(list: *mut ClassadAdList) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(list) }
}

/// The number of ads in `list` (0 when `list` is NULL).
///
/// # Safety
/// `list` is NULL or a live list.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_len(list: *const ClassadAdList) -> usize {
    // SAFETY: the caller's contract.
    unsafe { list.as_ref() }.map_or(0, |l| l.0.len())
}

/// Ad `index` of `list` (from 0), borrowed: valid while the list lives
/// and is not pushed to; do not free it (`classad_ad_clone` makes a copy
/// to keep). NULL when `list` is NULL or `index` is past the end.
///
/// # Safety
/// `list` is NULL or a live list.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_get(list: *const ClassadAdList, index: usize) -> *const ClassadAd {
    // SAFETY: the caller's contract.
    match unsafe { list.as_ref() }.and_then(|l| l.0.get(index)) {
        Some(ad) => ClassadAd::borrowed(ad),
        None => std::ptr::null(),
    }
}

/// Appends a copy of `ad` to `list` (the caller still owns `ad`). Ads
/// borrowed from the list before are invalid afterwards.
///
/// # Safety
/// `list` is a live list no other thread uses; `ad` a live ad;
/// `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_push(
    list: *mut ClassadAdList,
    ad: *const ClassadAd,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (list, ad) = unsafe { (handle_mut(list, "the list")?, handle(ad, "the ad")?) };
        list.0.push(ad.0.clone());
        Ok(())
    })
}

/// Every ad of `list` as text in `format` (`CLASSAD_FORMAT_AUTO`: the new
/// syntax), in `*out`, which the caller frees with `classad_string_free`.
///
/// # Safety
/// `list` is a live list; `out` a valid place for a [`ClassadString`];
/// `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_list_print(
    list: *const ClassadAdList,
    format: ClassadFormat,
    out: *mut ClassadString,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let list = unsafe { handle(list, "the list") }?;
        let text = classad::format::to_string(&list.0, write_format(format)?);
        // SAFETY: the caller's contract.
        unsafe { string_out(out, &text) }
    })
}
