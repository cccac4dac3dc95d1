//! Status codes and errors: every fallible function returns a
//! [`ClassadStatus`] and, when the caller passes somewhere to put it, a
//! [`ClassadError`] saying what went wrong. No Rust panic crosses the
//! boundary: each function runs under `guard`, which turns one into
//! [`ClassadStatus::Internal`].

use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a function did: `CLASSAD_STATUS_OK` (0), or why it did not.
///
/// New codes may be added in a minor version of the ABI: treat an
/// unknown nonzero code as a failure.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClassadStatus {
    /// Done.
    Ok = 0,
    /// A wrong argument: a NULL pointer where a handle or a result must
    /// go, an index out of range, an unknown enumerator.
    Argument = 1,
    /// Text that is not UTF-8.
    Utf8 = 2,
    /// Text that does not parse: the error's line and column say where.
    Parse = 3,
    /// A file that cannot be read (the message names it and says why).
    Io = 4,
    /// A configuration that does not read, or a knob of the wrong type.
    Config = 5,
    /// The attribute is not in the ad.
    NotFound = 6,
    /// The accountant or the negotiator refused (a name too long, a value
    /// out of range, a cycle that cannot run).
    Negotiator = 7,
    /// A bug in the library (a Rust panic, caught): the message says
    /// where. Handles given to the call are still valid to free.
    Internal = 8,
}

/// What went wrong in a call: its status code, a message, and for text
/// that does not parse the line and column (from 1; 0 when unknown).
///
/// Made by the library, freed by the caller with [`classad_error_free`].
/// Its functions may be called from any thread; it is not shared by the
/// library once returned.
pub struct ClassadError {
    code: ClassadStatus,
    message: CString,
    line: usize,
    column: usize,
}

/// The failure of one call, before it becomes a [`ClassadError`].
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) code: ClassadStatus,
    pub(crate) message: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

impl Failure {
    /// A failure without a position.
    pub(crate) fn new(code: ClassadStatus, message: impl Into<String>) -> Failure {
        Failure { code, message: message.into(), line: 0, column: 0 }
    }

    /// A wrong argument.
    pub(crate) fn argument(message: impl Into<String>) -> Failure {
        Failure::new(ClassadStatus::Argument, message)
    }

    /// A NULL pointer given for `what`.
    pub(crate) fn null(what: &str) -> Failure {
        Failure::argument(format!("{what} is NULL"))
    }

    /// Text that did not parse, at `line` and `column`.
    pub(crate) fn parse(message: impl Into<String>, line: usize, column: usize) -> Failure {
        Failure { code: ClassadStatus::Parse, message: message.into(), line, column }
    }
}

impl From<classad::ParseError> for Failure {
    fn from(e: classad::ParseError) -> Failure {
        Failure::parse(e.message.clone(), e.line, e.column)
    }
}

impl From<classad::format::FormatError> for Failure {
    fn from(e: classad::format::FormatError) -> Failure {
        let code = match e.kind() {
            classad::format::FormatErrorKind::Io => ClassadStatus::Io,
            classad::format::FormatErrorKind::InvalidUtf8 => ClassadStatus::Utf8,
            _ => ClassadStatus::Parse,
        };
        Failure { code, message: e.to_string(), line: e.line, column: e.column }
    }
}

impl From<matchmaker::config::ConfigError> for Failure {
    fn from(e: matchmaker::config::ConfigError) -> Failure {
        Failure::new(ClassadStatus::Config, e.to_string())
    }
}

/// Runs `f` as the body of an exported function: its failure (or a
/// panic, caught) becomes the status and, when `error` is not NULL, a
/// [`ClassadError`] stored there; on success `*error` is set to NULL.
pub(crate) fn guard(error: *mut *mut ClassadError, f: impl FnOnce() -> Result<(), Failure>) -> ClassadStatus {
    let outcome = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        Err(Failure::new(ClassadStatus::Internal, format!("internal error (a bug: please report it): {what}")))
    });
    let (status, made) = match outcome {
        Ok(()) => (ClassadStatus::Ok, std::ptr::null_mut()),
        Err(failure) => (failure.code, Box::into_raw(Box::new(ClassadError::from(failure)))),
    };
    if error.is_null() {
        if !made.is_null() {
            // SAFETY: `made` came from Box::into_raw just above and was not shared.
            drop(unsafe { Box::from_raw(made) });
        }
    } else {
        // SAFETY: the caller passes NULL or a valid place for one pointer
        // (the contract of every function taking `error`).
        unsafe { *error = made };
    }
    status
}

impl From<Failure> for ClassadError {
    fn from(f: Failure) -> ClassadError {
        // A message with a NUL (from the input it quotes) is cut there.
        let bytes: Vec<u8> = f.message.into_bytes().into_iter().take_while(|&b| b != 0).collect();
        let message = CString::new(bytes).unwrap_or_default();
        ClassadError { code: f.code, message, line: f.line, column: f.column }
    }
}

/// The status code of `error` (`CLASSAD_STATUS_ARGUMENT` when `error` is
/// NULL).
///
/// # Safety
/// `error` is NULL or an error returned by this library and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn classad_error_code(error: *const ClassadError) -> ClassadStatus {
    // SAFETY: the caller's contract.
    unsafe { error.as_ref() }.map_or(ClassadStatus::Argument, |e| e.code)
}

/// The message of `error`: UTF-8, NUL-terminated, owned by `error` (valid
/// until [`classad_error_free`]; do not free it). An empty string when
/// `error` is NULL.
///
/// # Safety
/// `error` is NULL or an error returned by this library and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn classad_error_message(error: *const ClassadError) -> *const c_char {
    // SAFETY: the caller's contract.
    match unsafe { error.as_ref() } {
        Some(e) => e.message.as_ptr(),
        None => c"".as_ptr(),
    }
}

/// The line (from 1) of the text where the problem is, for
/// `CLASSAD_STATUS_PARSE`; 0 when there is none.
///
/// # Safety
/// `error` is NULL or an error returned by this library and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn classad_error_line(error: *const ClassadError) -> usize {
    // SAFETY: the caller's contract.
    unsafe { error.as_ref() }.map_or(0, |e| e.line)
}

/// The column (from 1, in characters) of the problem on its line, for
/// `CLASSAD_STATUS_PARSE`; 0 when there is none.
///
/// # Safety
/// `error` is NULL or an error returned by this library and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn classad_error_column(error: *const ClassadError) -> usize {
    // SAFETY: the caller's contract.
    unsafe { error.as_ref() }.map_or(0, |e| e.column)
}

/// Frees an error. NULL is allowed (nothing happens).
///
/// # Safety
/// `error` is NULL or an error returned by this library, freed once.
#[no_mangle]
pub unsafe extern "C" fn classad_error_free(error: *mut ClassadError) {
    if !error.is_null() {
        // SAFETY: the caller's contract: it came from Box::into_raw in `guard`.
        drop(unsafe { Box::from_raw(error) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_an_internal_error_with_its_message() {
        let mut error = std::ptr::null_mut();
        let status = guard(&mut error, || panic!("boom"));
        assert_eq!(status, ClassadStatus::Internal);
        // SAFETY: `error` was just made by `guard`.
        unsafe {
            let message = std::ffi::CStr::from_ptr(classad_error_message(error)).to_str().expect("UTF-8");
            assert!(message.contains("boom"), "{message}");
            assert_eq!(classad_error_code(error), ClassadStatus::Internal);
            classad_error_free(error);
        }
    }

    #[test]
    fn success_clears_the_error_and_null_is_allowed() {
        let mut error = std::ptr::dangling_mut::<ClassadError>();
        assert_eq!(guard(&mut error, || Ok(())), ClassadStatus::Ok);
        assert!(error.is_null());
        assert_eq!(guard(std::ptr::null_mut(), || Err(Failure::argument("x"))), ClassadStatus::Argument);
    }
}
