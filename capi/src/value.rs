//! `ClassadValue`: what evaluation produces, read by type.

use classad::Value;

use crate::error::{guard, ClassadError, ClassadStatus, Failure};
use crate::handles::{free_handle, handle, value_out};
use crate::strings::{string_out, ClassadStr, ClassadString};

/// A value: UNDEFINED, ERROR, a boolean, an integer, a real, a string, a
/// time, a list or an ad. Made empty (UNDEFINED) by `classad_value_new`,
/// filled by `classad_expr_eval` and `classad_ad_eval` (again and again),
/// freed with `classad_value_free`. A value is used by one thread at a
/// time while it is being filled; reading it from many is fine.
pub struct ClassadValue(pub(crate) Value);

/// The type of a [`ClassadValue`].
///
/// New types may be added in a minor version of the ABI.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClassadValueType {
    /// UNDEFINED: a missing attribute, an operation on one.
    Undefined = 0,
    /// ERROR: an ill-typed operation.
    Error = 1,
    /// `true` or `false`: `classad_value_bool`.
    Bool = 2,
    /// A 64-bit integer: `classad_value_int`.
    Int = 3,
    /// A double: `classad_value_real`.
    Real = 4,
    /// A string: `classad_value_string`.
    String = 5,
    /// A point in time: `classad_value_abstime`.
    AbsTime = 6,
    /// A duration: `classad_value_reltime`.
    RelTime = 7,
    /// A list: its length is `classad_value_list_len`; `classad_value_print`
    /// prints it.
    List = 8,
    /// A nested ad: `classad_value_print` prints it.
    Ad = 9,
}

/// A new value, UNDEFINED, to evaluate into. Free it with
/// [`classad_value_free`].
#[no_mangle]
pub extern "C" fn classad_value_new() -> *mut ClassadValue {
    Box::into_raw(Box::new(ClassadValue(Value::Undefined)))
}

/// Frees a value. NULL is allowed.
///
/// # Safety
/// `value` is NULL or a value made by [`classad_value_new`], freed once.
#[no_mangle]
pub unsafe extern "C" fn classad_value_free(value: *mut ClassadValue) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(value) }
}

/// The type of `value` (`CLASSAD_VALUE_TYPE_UNDEFINED` for NULL).
///
/// # Safety
/// `value` is NULL or a live value.
#[no_mangle]
pub unsafe extern "C" fn classad_value_type(value: *const ClassadValue) -> ClassadValueType {
    // SAFETY: the caller's contract.
    let Some(value) = (unsafe { value.as_ref() }) else {
        return ClassadValueType::Undefined;
    };
    match value.0 {
        Value::Undefined => ClassadValueType::Undefined,
        Value::Error => ClassadValueType::Error,
        Value::Bool(_) => ClassadValueType::Bool,
        Value::Int(_) => ClassadValueType::Int,
        Value::Real(_) => ClassadValueType::Real,
        Value::Str(_) => ClassadValueType::String,
        Value::AbsTime(_) => ClassadValueType::AbsTime,
        Value::RelTime(_) => ClassadValueType::RelTime,
        Value::List(_) => ClassadValueType::List,
        Value::ClassAd(_) => ClassadValueType::Ad,
    }
}

/// A value of the wrong type for an accessor.
fn wrong_type(value: &Value, wanted: &str) -> Failure {
    Failure::argument(format!("the value is {}, not {wanted}", value.type_name()))
}

/// Reads one type out of `value` with `get` into `out`.
///
/// # Safety
/// As the exported accessors'.
unsafe fn read<T>(
    value: *const ClassadValue,
    out: *mut T,
    error: *mut *mut ClassadError,
    wanted: &str,
    get: impl FnOnce(&Value) -> Option<T>,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let value = unsafe { handle(value, "the value") }?;
        let got = get(&value.0).ok_or_else(|| wrong_type(&value.0, wanted))?;
        // SAFETY: the caller's contract.
        unsafe { value_out(out, got) }
    })
}

/// The boolean of `value`, in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.
///
/// # Safety
/// `value` is a live value; `out` a valid place for the result; `error`
/// NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_value_bool(
    value: *const ClassadValue,
    out: *mut bool,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read(value, out, error, "a boolean", |v| match v {
            Value::Bool(b) => Some(*b),
            _ => None,
        })
    }
}

/// The integer of `value`, in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.
///
/// # Safety
/// `value` is a live value; `out` a valid place for the result; `error`
/// NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_value_int(
    value: *const ClassadValue,
    out: *mut i64,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read(value, out, error, "an integer", |v| match v {
            Value::Int(i) => Some(*i),
            _ => None,
        })
    }
}

/// The number of `value`, an integer or a real, as a double, in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.
///
/// # Safety
/// `value` is a live value; `out` a valid place for the result; `error`
/// NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_value_real(
    value: *const ClassadValue,
    out: *mut f64,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read(value, out, error, "a number", |v| match v {
            Value::Real(r) => Some(*r),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        })
    }
}

/// The seconds since 1970 (UTC) of an absolute time, in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.
///
/// # Safety
/// `value` is a live value; `out` a valid place for the result; `error`
/// NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_value_abstime(
    value: *const ClassadValue,
    out: *mut i64,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read(value, out, error, "an absolute time", |v| match v {
            Value::AbsTime(t) => Some(t.secs),
            _ => None,
        })
    }
}

/// The seconds of a relative time (may be fractional or negative), in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.
///
/// # Safety
/// `value` is a live value; `out` a valid place for the result; `error`
/// NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_value_reltime(
    value: *const ClassadValue,
    out: *mut f64,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read(value, out, error, "a relative time", |v| match v {
            Value::RelTime(t) => Some(t.0),
            _ => None,
        })
    }
}

/// The number of elements of a list, in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.
///
/// # Safety
/// `value` is a live value; `out` a valid place for the result; `error`
/// NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_value_list_len(
    value: *const ClassadValue,
    out: *mut usize,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read(value, out, error, "a list", |v| match v {
            Value::List(l) => Some(l.len()),
            _ => None,
        })
    }
}

/// The string of `value`, borrowed in `*out` (valid until `value` is
/// evaluated into again or freed; not NUL-terminated);
/// `CLASSAD_STATUS_ARGUMENT` for another type.
///
/// # Safety
/// `value` is a live value; `out` a valid place for a [`ClassadStr`];
/// `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_value_string(
    value: *const ClassadValue,
    out: *mut ClassadStr,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let value = unsafe { handle(value, "the value") }?;
        let Value::Str(s) = &value.0 else {
            return Err(wrong_type(&value.0, "a string"));
        };
        // SAFETY: the caller's contract.
        unsafe { value_out(out, ClassadStr::of(s.as_str())) }
    })
}

/// `value` as a ClassAd literal (new syntax: `"text"` quoted, `{ 1, 2 }`,
/// `[ a = 1 ]`, `undefined`), in `*out`, which the caller frees with
/// `classad_string_free`.
///
/// # Safety
/// `value` is a live value; `out` a valid place for a [`ClassadString`];
/// `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_value_print(
    value: *const ClassadValue,
    out: *mut ClassadString,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let value = unsafe { handle(value, "the value") }?;
        // SAFETY: the caller's contract.
        unsafe { string_out(out, &value.0.to_string()) }
    })
}
