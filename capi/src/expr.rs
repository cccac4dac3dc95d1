//! `ClassadExpr`: an expression parsed once and evaluated many times.
//!
//! Expressions never change once made, so every function here may run on
//! the same expression from many threads at once.

use std::ffi::c_char;

use classad::{EvalContext, Syntax};

use crate::ad::{name_in, not_found, ClassadAd};
use crate::error::{guard, ClassadError, ClassadStatus};
use crate::handles::{free_handle, handle, handle_mut, handle_out};
use crate::options::{eval_options, ClassadFormat, ClassadSemantics, CLASSAD_FORMAT_OLD};
use crate::strings::{string_out, text_in, ClassadString};
use crate::value::ClassadValue;

/// A parsed expression (`TARGET.Memory >= RequestMemory`, `"text"`,
/// `[ a = 1 ]`, ...). Made by `classad_expr_parse` or `classad_ad_get`,
/// freed with `classad_expr_free`.
pub struct ClassadExpr(pub(crate) classad::Expr);

/// Parses `text` (`len` bytes of UTF-8, the new syntax) into a new
/// expression stored in `*out`, which the caller frees with
/// [`classad_expr_free`]. Text that does not parse is
/// `CLASSAD_STATUS_PARSE`, with the line and column of the problem.
///
/// # Safety
/// `text` points to `len` readable bytes; `out` is a valid place for a
/// pointer; `error` is NULL or a valid place for one.
#[no_mangle]
pub unsafe extern "C" fn classad_expr_parse(
    text: *const c_char,
    len: usize,
    out: *mut *mut ClassadExpr,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let text = unsafe { text_in(text, len, "the expression") }?;
        let expr = classad::parse_expr(text)?;
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, ClassadExpr(expr)) }
    })
}

/// Frees an expression. NULL is allowed.
///
/// # Safety
/// `expr` is NULL or an expression made by this library, freed once.
#[no_mangle]
pub unsafe extern "C" fn classad_expr_free(expr: *mut ClassadExpr) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(expr) }
}

/// Evaluates `expr` with `my` as MY and `target` as TARGET (either may be
/// NULL: no such ad), in `semantics`, into `value` (made by
/// `classad_value_new`; what it held is replaced). Evaluating into the
/// same value again and again allocates nothing for numbers and booleans.
///
/// Thread safety: many threads may evaluate the same expression and ads
/// at once, each into its own value.
///
/// # Safety
/// `expr` is a live expression; `my` and `target` NULL or live ads;
/// `value` a live value no other thread uses; `error` NULL or a valid
/// place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_expr_eval(
    expr: *const ClassadExpr,
    my: *const ClassadAd,
    target: *const ClassadAd,
    semantics: ClassadSemantics,
    value: *mut ClassadValue,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (expr, my, target, value) =
            unsafe { (handle(expr, "the expression")?, my.as_ref(), target.as_ref(), handle_mut(value, "the value")?) };
        let options = eval_options(semantics)?;
        let mut ctx = EvalContext::new(&options);
        if let Some(my) = my {
            ctx = ctx.my(&my.0);
        }
        if let Some(target) = target {
            ctx = ctx.target(&target.0);
        }
        value.0 = ctx.eval(&expr.0);
        Ok(())
    })
}

/// `expr` as text, in `*out` (freed by the caller with
/// `classad_string_free`): the old syntax for `CLASSAD_FORMAT_OLD`, the
/// new one for every other format, as libclassad unparses it.
///
/// # Safety
/// `expr` is a live expression; `out` is a valid place for a
/// [`ClassadString`]; `error` is NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_expr_print(
    expr: *const ClassadExpr,
    format: ClassadFormat,
    out: *mut ClassadString,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let expr = unsafe { handle(expr, "the expression") }?;
        crate::options::read_format(format)?;
        let syntax = if format == CLASSAD_FORMAT_OLD { Syntax::Old } else { Syntax::New };
        let text = expr.0.display(syntax).to_string();
        // SAFETY: the caller's contract.
        unsafe { string_out(out, &text) }
    })
}

/// The expression of attribute `name` of `ad` (not evaluated) in a new
/// handle stored in `*out`, which the caller frees with
/// `classad_expr_free`; `CLASSAD_STATUS_NOT_FOUND` when the ad has none.
///
/// # Safety
/// `ad` is a live ad; `name` points to `name_len` bytes; `out` is a valid
/// place for a pointer; `error` is NULL or one.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_get(
    ad: *const ClassadAd,
    name: *const c_char,
    name_len: usize,
    out: *mut *mut ClassadExpr,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (ad, name) = unsafe { (handle(ad, "the ad")?, text_in(name, name_len, "the attribute name")?) };
        let expr = ad.0.get(name).ok_or_else(|| not_found(name))?;
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, ClassadExpr(expr.clone())) }
    })
}

/// Sets attribute `name` of `ad` to a parsed expression (shared, not
/// copied: expressions never change).
///
/// # Safety
/// `ad` is a live ad no other thread uses; `expr` a live expression;
/// `name` points to `name_len` bytes; `error` is NULL or a valid place
/// for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_ad_set_expr(
    ad: *mut ClassadAd,
    name: *const c_char,
    name_len: usize,
    expr: *const ClassadExpr,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (ad, name, expr) =
            unsafe { (handle_mut(ad, "the ad")?, name_in(name, name_len)?, handle(expr, "the expression")?) };
        ad.0.insert(name, expr.0.clone());
        Ok(())
    })
}
