//! String functions.
//!
//! * `strcat(a, b, ...)`: the arguments converted as by `string()` and
//!   concatenated; the first argument that is UNDEFINED or ERROR makes the
//!   result UNDEFINED or ERROR.
//!
//! * `toUpper(s)`, `toLower(s)`: ASCII case conversion of `string(s)`.
//!
//! * `substr(s, offset[, length])`: the part of string `s` from byte
//!   `offset` (counted from the end when negative), `length` bytes long
//!   (to the end when absent; when negative, that many bytes short of the
//!   end). Out-of-range offsets and lengths are clamped. `s` must be a
//!   string and the numbers integers, else ERROR. A cut inside a UTF-8
//!   character moves to the character's start (libclassad would split it;
//!   see `docs/divergences.md`, `utf8-strings`).
//!
//! * `strcmp(a, b)`, `stricmp(a, b)`: -1, 0 or 1 as `string(a)` sorts
//!   before, with or after `string(b)` (byte order; `stricmp` ignores ASCII
//!   case). Lists and ads compare as their text.
//!
//! In all of them an UNDEFINED argument makes the result UNDEFINED before
//! an ERROR one makes it ERROR.
//!
//! * `join(sep, a, b, ...)`: the arguments converted as by `string()`,
//!   with `sep` between them; `join(sep, list)` and `join(list)` (no
//!   separator) join a list's elements. UNDEFINED items are skipped (the
//!   result is UNDEFINED only when nothing else is left), ERROR ones make
//!   the result ERROR. As in HTCondor, the separator goes only after
//!   non-empty text: `join(",", "", "a")` is `"a"`.
//! * `split(s[, seps])`: the list of the parts of `s` between separator
//!   characters (default: comma, space and tab). Runs of white space, and
//!   white space around one other separator, count as one separator; each
//!   repeat of the same non-space separator adds an empty part
//!   (`split("a,,b")` is `{"a", "", "b"}`); leading and trailing
//!   separators add nothing.
//! * `splitUserName(name)`: `{user, domain}` from `user@domain` (at the
//!   first `@`; no `@` gives `{name, ""}`). `splitSlotName(name)`:
//!   `{slot, machine}` the same way, with `{"", name}` when there is no
//!   `@`. Anything but a string is ERROR.
//!
//! ```
//! use classad::{Expr, Value};
//! let e: Expr = "strcat(\"slot\", 1, \"@\", \"wn01\")".parse().unwrap();
//! assert_eq!(e.eval(), Value::from("slot1@wn01"));
//! let e: Expr = r#"substr("slot1@wn01", -4)"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::from("wn01"));
//! let e: Expr = r#"stricmp("Linux", "LINUX")"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::Int(0));
//! let e: Expr = r#"join(", ", split("a b,c"))"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::from("a, b, c"));
//! let e: Expr = r#"splitUserName("alice@example.org")[1]"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::from("example.org"));
//! ```

use super::Implementations;
use crate::builtins::BuiltinId;
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;

fn strcat<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let mut out = String::new();
    for arg in args {
        let v = ev.eval(arg, frame);
        match v {
            Val::Error | Val::Undefined => return v,
            v => match super::conversion::to_text(&v) {
                Some(text) => {
                    if !ev.append(&mut out, &text) {
                        return Val::Error;
                    }
                }
                None => return Val::Error,
            },
        }
    }
    Val::string(out)
}

/// Shared body of `toUpper` and `toLower`.
fn convert_case<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, upper: bool) -> Val<'a> {
    match super::one_arg(ev, args, frame) {
        Some(v @ (Val::Undefined | Val::Error)) => v,
        Some(v) => match super::conversion::to_text(&v) {
            Some(text) if upper => Val::string(text.to_ascii_uppercase()),
            Some(text) => Val::string(text.to_ascii_lowercase()),
            None => Val::Error,
        },
        None => Val::Error,
    }
}

fn to_upper<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    convert_case(ev, args, frame, true)
}

fn to_lower<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    convert_case(ev, args, frame, false)
}

/// The result when one of `values` is UNDEFINED (which wins) or ERROR.
fn undefined_or_error<'a>(values: &[Val<'a>]) -> Option<Val<'a>> {
    if values.iter().any(|v| matches!(v, Val::Undefined)) {
        return Some(Val::Undefined);
    }
    values.iter().any(|v| matches!(v, Val::Error)).then_some(Val::Error)
}

fn substr<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let (text, offset, length) = match args {
        [text, offset] => (text, offset, None),
        [text, offset, length] => (text, offset, Some(length)),
        _ => return Val::Error,
    };
    let text = ev.eval(text, frame);
    let offset = ev.eval(offset, frame);
    // A missing length is "to the end".
    let length = length.map_or(Val::Int(i64::MAX), |length| ev.eval(length, frame));
    let values = [text, offset, length];
    if let Some(v) = undefined_or_error(&values) {
        return v;
    }
    let [Val::Str(s), Val::Int(offset), Val::Int(length)] = values else {
        return Val::Error;
    };
    let text = s.as_str();
    let size = text.len() as i64;
    let start = if offset < 0 { offset.saturating_add(size) } else { offset }.clamp(0, size);
    let end = if length < 0 { size.saturating_add(length) } else { start.saturating_add(length) }.clamp(start, size);
    // `end >= start`, and moving both to a character start keeps that.
    let (start, end) = (char_start(text, start as usize), char_start(text, end as usize));
    Val::string(text[start..end].to_string())
}

/// The start of the character holding byte `at` of `text` (or `at` itself
/// when it is a character boundary or the end).
fn char_start(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Shared body of `strcmp` and `stricmp`.
fn compare<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, ignore_case: bool) -> Val<'a> {
    let [a, b] = args else {
        return Val::Error;
    };
    let values = [ev.eval(a, frame), ev.eval(b, frame)];
    if let Some(v) = undefined_or_error(&values) {
        return v;
    }
    let [a, b] = values;
    let (Some(a), Some(b)) = (super::conversion::to_text(&a), super::conversion::to_text(&b)) else {
        return Val::Error;
    };
    let order = if ignore_case {
        a.bytes().map(|c| c.to_ascii_lowercase()).cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
    } else {
        a.as_bytes().cmp(b.as_bytes())
    };
    Val::Int(order as i64)
}

fn strcmp<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    compare(ev, args, frame, false)
}

fn stricmp<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    compare(ev, args, frame, true)
}

fn join<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    // The separator first, then the items.
    let mut values: Vec<Val<'a>> = Vec::with_capacity(args.len().max(1));
    match args {
        [.., last] if args.len() <= 2 => {
            let last = ev.eval(last, frame);
            if let Val::List(list) = last {
                values.push(match args {
                    [separator, _] => ev.eval(separator, frame),
                    _ => Val::Str(crate::eval::StrVal::Borrowed("")),
                });
                values.extend((0..list.len()).map(|i| ev.element(&list, i)));
            } else {
                values.extend(args[..args.len() - 1].iter().map(|arg| ev.eval(arg, frame)));
                values.push(last);
            }
        }
        _ => values.extend(args.iter().map(|arg| ev.eval(arg, frame))),
    }
    let mut out = String::new();
    let mut separator = std::borrow::Cow::Borrowed("");
    let (mut defined, mut undefined) = (false, false);
    for (i, value) in values.iter().enumerate() {
        let text = match value {
            Val::Undefined => {
                undefined = true;
                continue;
            }
            value => match super::conversion::to_text(value) {
                Some(text) => text,
                None => return Val::Error,
            },
        };
        if i == 0 {
            separator = text;
            continue;
        }
        if !out.is_empty() && !ev.append(&mut out, &separator) {
            return Val::Error;
        }
        if !ev.append(&mut out, &text) {
            return Val::Error;
        }
        defined = true;
    }
    if undefined && !defined {
        Val::Undefined
    } else {
        Val::string(out)
    }
}

fn split<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let (text, separators) = match args {
        [text] => (ev.eval(text, frame), None),
        [text, separators] => (ev.eval(text, frame), Some(ev.eval(separators, frame))),
        _ => return Val::Error,
    };
    let separators = match &separators {
        None => ", \t",
        Some(Val::Str(s)) => s.as_str(),
        Some(_) => return Val::Error,
    };
    let Val::Str(text) = &text else {
        return Val::Error;
    };
    let bytes = text.as_str().as_bytes();
    let separators = separators.as_bytes();
    let part = |range: &[u8]| Val::string(String::from_utf8_lossy(range).as_ref());
    let mut parts = Vec::new();
    let mut last = 0;
    // The last separator that was not white space.
    let mut previous: Option<u8> = None;
    if !separators.is_empty() {
        for (i, &byte) in bytes.iter().enumerate() {
            if !separators.contains(&byte) {
                continue;
            }
            if i > last {
                parts.push(part(&bytes[last..i]));
            } else if previous == Some(byte) {
                parts.push(Val::string(""));
            }
            if !super::string_lists::is_c_space(byte) {
                previous = Some(byte);
            }
            last = i + 1;
        }
    }
    if bytes.len() > last {
        parts.push(part(&bytes[last..]));
    }
    Val::List(crate::eval::List::Values(parts.into()))
}

/// Shared body of `splitUserName` and `splitSlotName`: the parts before and
/// after the first `@`; without one, the whole name is the user (or the
/// machine).
fn split_at<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, alone_is_first: bool) -> Val<'a> {
    let Some(Val::Str(name)) = super::one_arg(ev, args, frame) else {
        return Val::Error;
    };
    let name = name.as_str();
    let (first, second) = match name.split_once('@') {
        Some(parts) => parts,
        None if alone_is_first => (name, ""),
        None => ("", name),
    };
    Val::List(crate::eval::List::Values([Val::string(first), Val::string(second)].into()))
}

fn split_user_name<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    split_at(ev, args, frame, true)
}

fn split_slot_name<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    split_at(ev, args, frame, false)
}

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations = &[
    (BuiltinId::Substr, substr),
    (BuiltinId::Strcmp, strcmp),
    (BuiltinId::Stricmp, stricmp),
    (BuiltinId::Strcat, strcat),
    (BuiltinId::ToUpper, to_upper),
    (BuiltinId::ToLower, to_lower),
    (BuiltinId::Join, join),
    (BuiltinId::Split, split),
    (BuiltinId::SplitUserName, split_user_name),
    (BuiltinId::SplitSlotName, split_slot_name),
];
