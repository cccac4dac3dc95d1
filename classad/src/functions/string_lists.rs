//! String lists: a string holding items separated by delimiter characters,
//! as HTCondor configuration and ads write lists (`"slot1, slot2"`).
//!
//! Items are the runs between delimiter characters, with surrounding
//! white space removed; empty items are skipped. The optional last
//! argument is the set of delimiter characters (each byte is one); an
//! empty set makes the whole string one item.
//!
//! * `stringListSize(list[, delims])`: the number of items.
//! * `stringListSum`, `stringListAvg`, `stringListMin`, `stringListMax`
//!   `(list[, delims])`: items read as numbers (C's `%lf`: a leading
//!   number, hexadecimal, `inf` and `nan` included; no number at all is
//!   ERROR). The result is an integer when every item is written with
//!   digits and signs only, else a real; an integer average truncates. An
//!   empty list has sum and average 0.0 and UNDEFINED minimum and maximum.
//!   As in HTCondor, the minimum starts from the largest `float` and the
//!   maximum from the smallest positive `float` (so the maximum of negative
//!   numbers is 0). These four and `stringListSize` need string arguments
//!   (UNDEFINED is ERROR); the default delimiters are `", "`.
//! * `stringListMember(item, list[, delims])`: whether `item` is one of the
//!   items; `stringListIMember` ignores ASCII case.
//! * `stringListSubsetMatch(items, list[, delims])`: whether every item of
//!   `items` is an item of `list` (an empty `items` string is a subset of
//!   anything, a string of only delimiters of nothing);
//!   `stringListISubsetMatch` ignores ASCII case.
//!
//!   For these four, arguments must be strings or UNDEFINED (anything else
//!   is ERROR); both lists UNDEFINED is UNDEFINED, one UNDEFINED reads as an
//!   empty string; the default delimiters are `", \t\r\n"`, also for an
//!   UNDEFINED `delims`.
//! * `stringListsIntersect(a, b[, delims])`: whether the lists share an
//!   item. Items are not trimmed here; the default (and an empty `delims`)
//!   is `" ,"`. ERROR arguments give ERROR, then UNDEFINED ones UNDEFINED,
//!   then anything but strings ERROR.
//!
//! * `stringList_regexpMember(pattern, list[, delims[, options]])`: whether
//!   the regular expression `pattern` matches some item (see
//!   [`regex`](super::regex); option letters in either case). All
//!   arguments must be strings and the pattern valid, else ERROR; an empty
//!   list is UNDEFINED. Default delimiters `", "`.
//!
//! ```
//! use classad::{Expr, Value};
//! let e: Expr = r#"stringList_regexpMember("^slot[0-9]+$", "x, slot2")"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::Bool(true));
//! let e: Expr = r#"stringListIMember("SLOT2", "slot1, slot2")"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::Bool(true));
//! let e: Expr = r#"stringListSum("1, 2, 3.5")"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::Real(6.5));
//! let e: Expr = r#"stringListSubsetMatch("a b", "c,b,a", " ,")"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::Bool(true));
//! ```

use super::conversion::leading_real;
use super::Implementations;
use crate::builtins::BuiltinId;
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;

/// The delimiters `stringListSize` and the arithmetic functions default to.
const SUMMARY_DELIMITERS: &str = ", ";
/// The delimiters the member and subset functions default to.
const MEMBER_DELIMITERS: &str = ", \t\r\n";
/// The delimiters `stringListsIntersect` defaults to.
const INTERSECT_DELIMITERS: &str = " ,";

/// White space as C's `isspace` in the C locale.
pub(crate) fn is_c_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The items of a string list: runs between delimiter bytes, trimmed of
/// white space, never empty (HTCondor's `StringTokenIterator`).
pub(crate) struct Items<'s> {
    text: &'s [u8],
    delimiters: &'s [u8],
    pos: usize,
}

impl<'s> Items<'s> {
    pub(crate) fn new(text: &'s str, delimiters: &'s str) -> Items<'s> {
        Items { text: text.as_bytes(), delimiters: delimiters.as_bytes(), pos: 0 }
    }

    fn is_delimiter(&self, byte: u8) -> bool {
        self.delimiters.contains(&byte)
    }
}

impl<'s> Iterator for Items<'s> {
    type Item = &'s [u8];

    fn next(&mut self) -> Option<&'s [u8]> {
        let text = self.text;
        let mut i = self.pos;
        while i < text.len() && text[i] != 0 && (self.is_delimiter(text[i]) || is_c_space(text[i])) {
            i += 1;
        }
        let start = i;
        let mut end = i;
        while i < text.len() && text[i] != 0 && !self.is_delimiter(text[i]) {
            if !is_c_space(text[i]) {
                end = i + 1;
            }
            i += 1;
        }
        self.pos = i;
        (end > start).then(|| &text[start..end])
    }
}

/// A string argument, or `None` when the value is not a string.
fn text<'v>(v: &'v Val<'_>) -> Option<&'v str> {
    match v {
        Val::Str(s) => Some(s.as_str()),
        _ => None,
    }
}

/// Evaluates `(list[, delims])` for the size and arithmetic functions and
/// gives them to `body`; both must be strings, else the result is ERROR.
fn with_list<'a>(
    ev: &mut Evaluator<'a>,
    args: &'a [Expr],
    frame: &'a Frame<'a>,
    body: impl FnOnce(&str, &str) -> Val<'a>,
) -> Val<'a> {
    let (list, delimiters) = match args {
        [list] => (ev.eval(list, frame), None),
        [list, delimiters] => (ev.eval(list, frame), Some(ev.eval(delimiters, frame))),
        _ => return Val::Error,
    };
    let delimiters = match &delimiters {
        None => Some(SUMMARY_DELIMITERS),
        Some(v) => text(v),
    };
    match (text(&list), delimiters) {
        (Some(list), Some(delimiters)) => body(list, delimiters),
        _ => Val::Error,
    }
}

fn string_list_size<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    with_list(ev, args, frame, |list, delimiters| Val::Int(Items::new(list, delimiters).count() as i64))
}

/// Which summary of the numbers in a list.
#[derive(Clone, Copy, PartialEq)]
enum Summary {
    Sum,
    Avg,
    Min,
    Max,
}

fn summarize<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, summary: Summary) -> Val<'a> {
    with_list(ev, args, frame, |list, delimiters| summarize_items(Items::new(list, delimiters), summary))
}

/// The sum, average, minimum or maximum of the numbers in `items`.
fn summarize_items<'a>(items: Items<'_>, summary: Summary) -> Val<'a> {
    let mut total = match summary {
        Summary::Sum | Summary::Avg => 0.0,
        Summary::Min => f64::from(f32::MAX),
        Summary::Max => f64::from(f32::MIN_POSITIVE),
    };
    let mut count = 0usize;
    let mut real = false;
    for item in items {
        count += 1;
        let item = String::from_utf8_lossy(item);
        let (x, used) = leading_real(&item);
        if used == 0 {
            return Val::Error;
        }
        real |= item.bytes().any(|b| !matches!(b, b'+' | b'-' | b'0'..=b'9'));
        total = match summary {
            Summary::Sum | Summary::Avg => total + x,
            Summary::Min if x < total => x,
            Summary::Max if x > total => x,
            Summary::Min | Summary::Max => total,
        };
    }
    if count == 0 {
        return match summary {
            Summary::Sum | Summary::Avg => Val::Real(0.0),
            Summary::Min | Summary::Max => Val::Undefined,
        };
    }
    if summary == Summary::Avg {
        total /= count as f64;
    }
    if real {
        Val::Real(total)
    } else {
        Val::Int(super::math::c_truncate(total))
    }
}

fn string_list_sum<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    summarize(ev, args, frame, Summary::Sum)
}

fn string_list_avg<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    summarize(ev, args, frame, Summary::Avg)
}

fn string_list_min<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    summarize(ev, args, frame, Summary::Min)
}

fn string_list_max<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    summarize(ev, args, frame, Summary::Max)
}

/// The arguments of the member and subset functions, checked: strings, or
/// UNDEFINED read as an empty string (`Err` holds the result otherwise).
pub(crate) fn member_args<'a, 'v>(
    first: &'v Val<'a>,
    list: &'v Val<'a>,
    delimiters: Option<&'v Val<'a>>,
) -> Result<(&'v str, &'v str, &'v str), Val<'a>> {
    let string_or_undefined = |v: &'v Val<'a>, default: &'static str| match v {
        Val::Undefined => Some(default),
        Val::Str(s) => Some(s.as_str()),
        _ => None,
    };
    let (Some(item), Some(list_text)) = (string_or_undefined(first, ""), string_or_undefined(list, "")) else {
        return Err(Val::Error);
    };
    let delimiters = match delimiters {
        None => MEMBER_DELIMITERS,
        Some(v) => string_or_undefined(v, MEMBER_DELIMITERS).ok_or(Val::Error)?,
    };
    if matches!(first, Val::Undefined) && matches!(list, Val::Undefined) {
        return Err(Val::Undefined);
    }
    Ok((item, list_text, delimiters))
}

/// Evaluates the two or three arguments of a member-like function.
pub(crate) fn eval_member_args<'a>(
    ev: &mut Evaluator<'a>,
    args: &'a [Expr],
    frame: &'a Frame<'a>,
) -> Option<(Val<'a>, Val<'a>, Option<Val<'a>>)> {
    match args {
        [first, list] => Some((ev.eval(first, frame), ev.eval(list, frame), None)),
        [first, list, delimiters] => {
            Some((ev.eval(first, frame), ev.eval(list, frame), Some(ev.eval(delimiters, frame))))
        }
        _ => None,
    }
}

fn same(a: &[u8], b: &[u8], ignore_case: bool) -> bool {
    if ignore_case {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

fn member<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, ignore_case: bool) -> Val<'a> {
    let Some((item, list, delimiters)) = eval_member_args(ev, args, frame) else {
        return Val::Error;
    };
    match member_args(&item, &list, delimiters.as_ref()) {
        Ok((item, list, delimiters)) => {
            // The item is compared as it is; only list items are trimmed.
            let item = item.as_bytes();
            Val::Bool(Items::new(list, delimiters).any(|candidate| same(candidate, item, ignore_case)))
        }
        Err(v) => v,
    }
}

fn string_list_member<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    member(ev, args, frame, false)
}

fn string_list_imember<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    member(ev, args, frame, true)
}

fn subset_match<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, ignore_case: bool) -> Val<'a> {
    let Some((items, list, delimiters)) = eval_member_args(ev, args, frame) else {
        return Val::Error;
    };
    match member_args(&items, &list, delimiters.as_ref()) {
        Ok(("", _, _)) => Val::Bool(true),
        Ok((items, list, delimiters)) => {
            let list: Vec<&[u8]> = Items::new(list, delimiters).collect();
            let mut all = false;
            for item in Items::new(items, delimiters) {
                all = list.iter().any(|candidate| same(candidate, item, ignore_case));
                if !all {
                    break;
                }
            }
            Val::Bool(all)
        }
        Err(v) => v,
    }
}

fn string_list_subset_match<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    subset_match(ev, args, frame, false)
}

fn string_list_isubset_match<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    subset_match(ev, args, frame, true)
}

/// The untrimmed, non-empty runs between delimiter bytes, up to the first
/// NUL byte (where a C string ends).
fn raw_items<'s>(text: &'s str, delimiters: &'s [u8]) -> impl Iterator<Item = &'s [u8]> + 's {
    let text = text.as_bytes();
    let text = &text[..memchr::memchr(0, text).unwrap_or(text.len())];
    text.split(move |b| delimiters.contains(b)).filter(|item| !item.is_empty())
}

fn string_lists_intersect<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let (a, b, delimiters) = match args {
        [a, b] => (ev.eval(a, frame), ev.eval(b, frame), None),
        [a, b, delimiters] => (ev.eval(a, frame), ev.eval(b, frame), Some(ev.eval(delimiters, frame))),
        _ => return Val::Error,
    };
    let values = [Some(&a), Some(&b), delimiters.as_ref()];
    if values.iter().flatten().any(|v| matches!(v, Val::Error)) {
        return Val::Error;
    }
    if values.iter().flatten().any(|v| matches!(v, Val::Undefined)) {
        return Val::Undefined;
    }
    let delimiters = match &delimiters {
        None => INTERSECT_DELIMITERS,
        Some(Val::Str(s)) if s.as_str().is_empty() => INTERSECT_DELIMITERS,
        Some(Val::Str(s)) => s.as_str(),
        Some(_) => return Val::Error,
    };
    let (Some(a), Some(b)) = (text(&a), text(&b)) else {
        return Val::Error;
    };
    let delimiters = delimiters.as_bytes();
    let b_items: Vec<&[u8]> = raw_items(b, delimiters).collect();
    let shared = raw_items(a, delimiters).any(|item| b_items.contains(&item));
    Val::Bool(shared)
}

fn string_list_regexp_member<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    if !(2..=4).contains(&args.len()) {
        return Val::Error;
    }
    let values: Vec<Val<'a>> = args.iter().map(|arg| ev.eval(arg, frame)).collect();
    let strings: Option<Vec<&str>> = values.iter().map(text).collect();
    let Some(strings) = strings else {
        return Val::Error;
    };
    let (pattern, list) = (strings[0], strings[1]);
    let delimiters = strings.get(2).copied().unwrap_or(SUMMARY_DELIMITERS);
    // Unlike regexp's, these option letters may be upper case.
    let options = super::regex::Options::from_letters(&strings.get(3).copied().unwrap_or("").to_ascii_lowercase());
    let Some(pattern) = super::regex::compile(pattern, options, ev.options.limits.max_regex) else {
        return Val::Error;
    };
    let mut items = Items::new(list, delimiters).peekable();
    if items.peek().is_none() {
        return Val::Undefined;
    }
    Val::Bool(items.any(|item| pattern.is_match(&String::from_utf8_lossy(item))))
}

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations = &[
    (BuiltinId::StringListSize, string_list_size),
    (BuiltinId::StringListSum, string_list_sum),
    (BuiltinId::StringListAvg, string_list_avg),
    (BuiltinId::StringListMin, string_list_min),
    (BuiltinId::StringListMax, string_list_max),
    (BuiltinId::StringListMember, string_list_member),
    (BuiltinId::StringListIMember, string_list_imember),
    (BuiltinId::StringListSubsetMatch, string_list_subset_match),
    (BuiltinId::StringListISubsetMatch, string_list_isubset_match),
    (BuiltinId::StringListsIntersect, string_lists_intersect),
    (BuiltinId::StringListRegexpMember, string_list_regexp_member),
];

#[cfg(test)]
mod tests {
    use super::Items;

    fn items(text: &str, delimiters: &str) -> Vec<String> {
        Items::new(text, delimiters).map(|item| String::from_utf8_lossy(item).into_owned()).collect()
    }

    #[test]
    fn items_are_trimmed_and_never_empty() {
        assert_eq!(items(" a , b,,c ", ", "), ["a", "b", "c"]);
        assert_eq!(items("a;b c", ";"), ["a", "b c"]);
        assert_eq!(items("  x y  ", ""), ["x y"]);
        assert_eq!(items(" , ,", ", "), Vec::<String>::new());
        assert_eq!(items("a\tb", ","), ["a\tb"]);
    }
}
