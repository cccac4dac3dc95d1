//! `ClassadAd`: one ClassAd, made, read, changed, evaluated and printed.
//!
//! Thread safety: functions that take a `const ClassadAd *` may run on
//! the same ad from many threads at once; those that take a
//! `ClassadAd *` need the ad to themselves.

use std::ffi::c_char;

use classad::{ClassAd, EvalContext, Expr, Name};

use crate::error::{guard, ClassadError, ClassadStatus, Failure};
use crate::handles::{free_handle, handle, handle_mut, handle_out, value_out};
use crate::options::{eval_options, read_format, write_format, ClassadFormat, ClassadSemantics};
use crate::strings::{string_out, text_in, ClassadStr, ClassadString};
use crate::value::ClassadValue;

/// A ClassAd: named expressions, case-insensitive and case-preserving,
/// in the order they were set. Made by `classad_ad_new`,
/// `classad_ad_parse` or `classad_ad_clone`, freed with
/// `classad_ad_free`; an ad borrowed from a list or a pool is not freed.
#[repr(transparent)]
pub struct ClassadAd(pub(crate) ClassAd);

impl ClassadAd {
    /// The handle of an ad held elsewhere (a list's, a pool's).
    pub(crate) fn borrowed(ad: &ClassAd) -> *const ClassadAd {
        // ClassadAd is repr(transparent) over ClassAd.
        std::ptr::from_ref(ad).cast()
    }
}

/// An attribute name from the caller, interned.
///
/// # Safety
/// As [`text_in`].
pub(crate) unsafe fn name_in(ptr: *const c_char, len: usize) -> Result<Name, Failure> {
    // SAFETY: the caller's contract.
    let text = unsafe { text_in(ptr, len, "the attribute name") }?;
    if text.is_empty() {
        return Err(Failure::argument("the attribute name is empty"));
    }
    Name::try_new(text).map_err(|e| Failure::new(ClassadStatus::Argument, e.to_string()))
}

/// A new, empty ad. Free it with [`classad_ad_free`].
#[no_mangle]
pub extern "C" fn classad_ad_new() -> *mut ClassadAd {
    Box::into_raw(Box::new(ClassadAd(ClassAd::new())))
}

/// Reads one ad from `text` (`len` bytes of UTF-8) in `format`
/// (`CLASSAD_FORMAT_AUTO` detects it) into a new ad stored in `*out`,
/// which the caller frees with [`classad_ad_free`]. Text holding no ad or
/// more than one is an error (`CLASSAD_STATUS_PARSE`; lists of ads are
/// `classad_ad_list_parse`'s); so is text that does not parse, with the
/// error's line and column.
///
/// Thread safety: any thread, at any time.
///
/// # Safety
/// `text` points to `len` readable bytes; `out` is a valid place for a
/// pointer; `error` is NULL or a valid place for one.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_parse(
    text: *const c_char,
    len: usize,
    format: ClassadFormat,
    out: *mut *mut ClassadAd,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let text = unsafe { text_in(text, len, "the text") }?;
        let mut ads = classad::format::parse_ads(text, read_format(format)?)?;
        if ads.len() != 1 {
            return Err(Failure::parse(format!("expected one ad, found {}", ads.len()), 0, 0));
        }
        let ad = ads.pop().ok_or_else(|| Failure::parse("no ad", 0, 0))?;
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, ClassadAd(ad)) }
    })
}

/// A copy of `ad` (NULL when `ad` is NULL), which the caller frees with
/// [`classad_ad_free`].
///
/// # Safety
/// `ad` is NULL or a live ad.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_clone(ad: *const ClassadAd) -> *mut ClassadAd {
    // SAFETY: the caller's contract.
    match unsafe { ad.as_ref() } {
        Some(ad) => Box::into_raw(Box::new(ClassadAd(ad.0.clone()))),
        None => std::ptr::null_mut(),
    }
}

/// Frees an ad made by `classad_ad_new`, `classad_ad_parse` or
/// `classad_ad_clone` (never one borrowed from a list or a pool). NULL is
/// allowed.
///
/// # Safety
/// `ad` is NULL or such an ad, freed once.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_free(ad: *mut ClassadAd) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(ad) }
}

/// The number of attributes of `ad` (0 when `ad` is NULL).
///
/// # Safety
/// `ad` is NULL or a live ad.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_size(ad: *const ClassadAd) -> usize {
    // SAFETY: the caller's contract.
    unsafe { ad.as_ref() }.map_or(0, |ad| ad.0.len())
}

/// The name of attribute `index` of `ad` (from 0, in the order they were
/// set), as written when first set, in `*out`: borrowed, valid for the
/// life of the process (names are interned). `CLASSAD_STATUS_ARGUMENT`
/// past the last.
///
/// # Safety
/// `ad` is a live ad; `out` a valid place for a [`ClassadStr`]; `error`
/// NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_name(
    ad: *const ClassadAd,
    index: usize,
    out: *mut ClassadStr,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let ad = unsafe { handle(ad, "the ad") }?;
        let name =
            ad.0.names()
                .nth(index)
                .ok_or_else(|| Failure::argument(format!("attribute {index} of an ad of {} attributes", ad.0.len())))?;
        // SAFETY: the caller's contract.
        unsafe { value_out(out, ClassadStr::of(name.as_str())) }
    })
}

/// Sets attribute `name` of `ad` to the expression `text` (new syntax,
/// e.g. `TARGET.Memory >= 2048`, `"a string"`, `{1, 2}`), replacing what
/// it was. Text that does not parse is `CLASSAD_STATUS_PARSE` with its
/// line and column; the ad is then unchanged.
///
/// # Safety
/// `ad` is a live ad no other thread uses; `name`/`text` point to their
/// lengths' bytes; `error` is NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_set(
    ad: *mut ClassadAd,
    name: *const c_char,
    name_len: usize,
    text: *const c_char,
    text_len: usize,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (ad, name, text) = unsafe {
            (handle_mut(ad, "the ad")?, name_in(name, name_len)?, text_in(text, text_len, "the expression")?)
        };
        let expr = classad::parse_expr(text)?;
        ad.0.insert(name, expr);
        Ok(())
    })
}

/// Sets attribute `name` of `ad` to the literal `expr`.
///
/// # Safety
/// As the exported setters'.
unsafe fn set_literal(
    ad: *mut ClassadAd,
    name: *const c_char,
    name_len: usize,
    expr: Expr,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (ad, name) = unsafe { (handle_mut(ad, "the ad")?, name_in(name, name_len)?) };
        ad.0.insert(name, expr);
        Ok(())
    })
}

/// Sets attribute `name` of `ad` to the integer `value`.
///
/// # Safety
/// `ad` is a live ad no other thread uses; `name` points to `name_len`
/// bytes; `error` is NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_set_int(
    ad: *mut ClassadAd,
    name: *const c_char,
    name_len: usize,
    value: i64,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_literal(ad, name, name_len, Expr::from(value), error) }
}

/// Sets attribute `name` of `ad` to the real `value`.
///
/// # Safety
/// `ad` is a live ad no other thread uses; `name` points to `name_len`
/// bytes; `error` is NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_set_real(
    ad: *mut ClassadAd,
    name: *const c_char,
    name_len: usize,
    value: f64,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_literal(ad, name, name_len, Expr::from(value), error) }
}

/// Sets attribute `name` of `ad` to `value`, `true` or `false`.
///
/// # Safety
/// `ad` is a live ad no other thread uses; `name` points to `name_len`
/// bytes; `error` is NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_set_bool(
    ad: *mut ClassadAd,
    name: *const c_char,
    name_len: usize,
    value: bool,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_literal(ad, name, name_len, Expr::from(value), error) }
}

/// Sets attribute `name` of `ad` to the string literal `value` (`len`
/// bytes of UTF-8, taken as they are: no escapes are read).
///
/// # Safety
/// `ad` is a live ad no other thread uses; `name` and `value` point to
/// their lengths' bytes; `error` is NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_set_string(
    ad: *mut ClassadAd,
    name: *const c_char,
    name_len: usize,
    value: *const c_char,
    value_len: usize,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (ad, name, value) =
            unsafe { (handle_mut(ad, "the ad")?, name_in(name, name_len)?, text_in(value, value_len, "the string")?) };
        ad.0.insert(name, Expr::from(value));
        Ok(())
    })
}

/// Removes attribute `name` from `ad`: `CLASSAD_STATUS_NOT_FOUND` when it
/// has none.
///
/// # Safety
/// `ad` is a live ad no other thread uses; `name` points to `name_len`
/// bytes; `error` is NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_remove(
    ad: *mut ClassadAd,
    name: *const c_char,
    name_len: usize,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (ad, name) = unsafe { (handle_mut(ad, "the ad")?, text_in(name, name_len, "the attribute name")?) };
        ad.0.remove(name).map(drop).ok_or_else(|| not_found(name))
    })
}

pub(crate) fn not_found(name: &str) -> Failure {
    Failure::new(ClassadStatus::NotFound, format!("the ad has no attribute {name}"))
}

/// Evaluates attribute `name` of `ad` with `ad` as MY and `target` (NULL
/// for none) as TARGET, in `semantics`, into `value` (made by
/// `classad_value_new`; what it held is replaced). A missing attribute is
/// the value UNDEFINED, not an error.
///
/// Thread safety: many threads may evaluate the same ads at once, each
/// into its own value.
///
/// # Safety
/// `ad` is a live ad, `target` NULL or one; `name` points to `name_len`
/// bytes; `value` is a live value no other thread uses; `error` is NULL
/// or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_eval(
    ad: *const ClassadAd,
    target: *const ClassadAd,
    name: *const c_char,
    name_len: usize,
    semantics: ClassadSemantics,
    value: *mut ClassadValue,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (ad, target, name, value) = unsafe {
            (
                handle(ad, "the ad")?,
                target.as_ref(),
                text_in(name, name_len, "the attribute name")?,
                handle_mut(value, "the value")?,
            )
        };
        let options = eval_options(semantics)?;
        let mut ctx = EvalContext::new(&options).my(&ad.0);
        if let Some(target) = target {
            ctx = ctx.target(&target.0);
        }
        value.0 = ctx.eval_attr(name);
        Ok(())
    })
}

/// `ad` as text in `format` (`CLASSAD_FORMAT_AUTO`: the new syntax), in
/// `*out`, which the caller frees with `classad_string_free`.
///
/// # Safety
/// `ad` is a live ad; `out` is a valid place for a [`ClassadString`];
/// `error` is NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_print(
    ad: *const ClassadAd,
    format: ClassadFormat,
    out: *mut ClassadString,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let ad = unsafe { handle(ad, "the ad") }?;
        let text = classad::format::ad_to_string(&ad.0, write_format(format)?);
        // SAFETY: the caller's contract.
        unsafe { string_out(out, &text) }
    })
}
