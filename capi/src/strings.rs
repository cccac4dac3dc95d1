//! Strings across the boundary. In: a pointer and a length in bytes,
//! UTF-8, no terminating NUL needed. Out: a [`ClassadString`] the caller
//! owns and frees with [`classad_string_free`], or a [`ClassadStr`]
//! borrowed from the handle that holds it.

use std::ffi::c_char;
use std::path::PathBuf;

use crate::error::{ClassadStatus, Failure};

/// A string made by the library for the caller: `len` bytes of UTF-8 at
/// `ptr`, followed by a NUL (so `ptr` is also a C string when the text
/// holds no NUL of its own). The caller frees it with
/// [`classad_string_free`], once.
#[repr(C)]
#[derive(Debug)]
pub struct ClassadString {
    /// The bytes (NULL only in a string that was never set).
    pub ptr: *mut c_char,
    /// Their number, the NUL after them not counted.
    pub len: usize,
}

impl ClassadString {
    /// The empty place a function fills.
    pub(crate) const EMPTY: ClassadString = ClassadString { ptr: std::ptr::null_mut(), len: 0 };

    /// `text`, copied, with a NUL after it.
    pub(crate) fn new(text: &str) -> ClassadString {
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(0);
        let len = text.len();
        let ptr = Box::into_raw(bytes.into_boxed_slice()).cast::<c_char>();
        ClassadString { ptr, len }
    }
}

/// A string borrowed from a handle: `len` bytes of UTF-8 at `ptr`, not
/// NUL-terminated (print it with `%.*s`). Valid as long as the handle it
/// came from, which owns it: do not free it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ClassadStr {
    /// The bytes.
    pub ptr: *const c_char,
    /// Their number.
    pub len: usize,
}

impl ClassadStr {
    /// A view of `text`, which must outlive every use the caller makes.
    pub(crate) fn of(text: &str) -> ClassadStr {
        ClassadStr { ptr: text.as_ptr().cast(), len: text.len() }
    }
}

/// Frees a string the library made, and sets it empty (`ptr` NULL, `len`
/// 0), so that freeing it twice does nothing. NULL is allowed.
///
/// # Safety
/// `string` is NULL or points to a [`ClassadString`] filled by this
/// library (or set empty by this function).
#[no_mangle]
pub unsafe extern "C" fn classad_string_free(string: *mut ClassadString) {
    // SAFETY: the caller's contract.
    let Some(s) = (unsafe { string.as_mut() }) else {
        return;
    };
    if !s.ptr.is_null() {
        let bytes = std::ptr::slice_from_raw_parts_mut(s.ptr.cast::<u8>(), s.len + 1);
        // SAFETY: made by `ClassadString::new` from a boxed slice of len + 1 bytes.
        drop(unsafe { Box::from_raw(bytes) });
    }
    *s = ClassadString::EMPTY;
}

/// The caller's text `ptr`/`len` (`what` names it in errors). NULL with a
/// length of 0 is the empty string.
///
/// # Safety
/// `ptr` is NULL or points to `len` readable bytes that stay unchanged
/// for `'a`.
pub(crate) unsafe fn text_in<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return if len == 0 { Ok("") } else { Err(Failure::null(what)) };
    }
    // SAFETY: the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    std::str::from_utf8(bytes).map_err(|e| Failure::new(ClassadStatus::Utf8, format!("{what} is not UTF-8: {e}")))
}

/// The caller's file name `ptr`/`len`, or `None` when `ptr` is NULL.
///
/// # Safety
/// As [`text_in`].
pub(crate) unsafe fn path_in(ptr: *const c_char, len: usize, what: &str) -> Result<Option<PathBuf>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract.
    let text = unsafe { text_in(ptr, len, what) }?;
    Ok(Some(PathBuf::from(text)))
}

/// Stores `text` in the caller's `out`.
///
/// # Safety
/// `out` is NULL (an error) or a valid place for a [`ClassadString`].
pub(crate) unsafe fn string_out(out: *mut ClassadString, text: &str) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::null("the result"));
    }
    // SAFETY: the caller's contract; whatever was there is not ours to free.
    unsafe { out.write(ClassadString::new(text)) };
    Ok(())
}
