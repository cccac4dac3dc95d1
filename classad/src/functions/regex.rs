//! Regular-expression functions.
//!
//! Patterns have the syntax of libclassad's engine, PCRE2, working on bytes
//! (not in UTF mode): `.` matches one byte, `\w`, `\d`, `\s`, the POSIX
//! classes and case-insensitive matching know only ASCII. They run on a
//! linear-time engine (the `regex` crate), so no pattern makes an
//! evaluation hang. PCRE features that need backtracking are ERROR, as an
//! invalid pattern is: back-references (`(a)\1`), look-ahead and
//! look-behind (`(?=`, `(?<!`), atomic groups, possessive quantifiers
//! (`a*+`), recursion, conditionals, `(*VERB)`s, `\G`, `\K`, `\X`, `\p`
//! (see `docs/divergences.md`, `regex-engine`).
//!
//! `options` is a string of option letters; letters other than these are
//! ignored, and so is the case of none (`"I"` is not `"i"`):
//!
//! | letter | meaning |
//! |---|---|
//! | `i` | case-insensitive (ASCII) |
//! | `m` | multiline: `^` and `$` also match at line starts and ends |
//! | `s` | `.` also matches a newline |
//! | `x` | extended: white space and `#` comments in the pattern are ignored |
//! | `f` | substitution: the result is the whole target with the substitution in place of the match |
//! | `g` | substitution: every match is replaced, not only the first |
//!
//! * `regexp(pattern, target[, options])`: true when `pattern` matches
//!   somewhere in `target`.
//!
//! * `regexpMember(pattern, list[, options])`: true when `pattern` matches
//!   an element of `list`. The elements are tried in order: the first one
//!   that matches gives true; an element that is neither a string nor
//!   UNDEFINED, met before any match, gives ERROR. With no match, the result
//!   is UNDEFINED if an element was UNDEFINED, else false. An invalid
//!   pattern matches nothing here (false, not ERROR, as in libclassad).
//!
//! * `regexps(pattern, target, substitute[, options])`: the substitution
//!   for the first match: `substitute` with `\0` replaced by the matched text
//!   and `\1` to `\9` by what the groups captured. No match gives `""`. With
//!   `f`, the target with the match replaced; with `g`, every match is
//!   substituted (without `f`, the substitutions are concatenated).
//!
//! * `replace(pattern, target, substitute[, options])`: `regexps` with
//!   option `f`: the target with its first match replaced.
//!
//! * `replaceAll(pattern, target, substitute[, options])`: `regexps` with
//!   options `fg`: the target with every match replaced.
//!
//! In `substitute`, a backslash followed by a digit is a group reference;
//! a group that did not take part in the match gives `""`, and a number past
//! the last group that did is ERROR (libclassad's rule: `regexps("(a)|(b)",
//! "a", "\\2")` is ERROR, `regexps("(a)|(b)", "b", "[\\1]")` is `"[]"`). Any
//! other backslash is kept as it is.
//!
//! With `g`, after an empty match the search goes on one byte further, and
//! that byte is kept in the result even without `f`. As in libclassad, a
//! global substitution whose pattern matches the empty string at the end of
//! the target is ERROR (`replaceAll("x*", "abc", "-")`).
//!
//! Arguments: wrong arity is ERROR; then any ERROR argument gives ERROR,
//! then any UNDEFINED argument UNDEFINED (note the order: the reverse of the
//! string functions'); then `options` that is not a string, or a pattern,
//! target or substitute that is not a string (`list` not a list), is ERROR,
//! and so is an invalid pattern. A result that would not be valid UTF-8
//! (a match that splits a multi-byte character, as `.` can) is ERROR; a
//! substitution result longer than 16 MiB is ERROR.
//!
//! ```
//! use classad::{Expr, Value};
//! let eval = |s: &str| s.parse::<Expr>().unwrap().eval();
//! assert_eq!(eval(r#"regexp("^slot[0-9]+@", "slot12@wn01")"#), Value::Bool(true));
//! assert_eq!(eval(r#"regexp("LINUX", "linux", "i")"#), Value::Bool(true));
//! assert_eq!(eval(r#"regexpMember("^wn", {"cn01", "wn02"})"#), Value::Bool(true));
//! assert_eq!(eval(r#"regexps("([^@]+)@(.*)", "alice@example.org", "\\2: \\1")"#), Value::from("example.org: alice"));
//! assert_eq!(eval(r#"replace("o", "foo", "0")"#), Value::from("f0o"));
//! assert_eq!(eval(r#"replaceAll("[aeiou]", "condor", "_")"#), Value::from("c_nd_r"));
//! assert_eq!(eval(r#"regexp("(a)\\1", "aa")"#), Value::Error); // back-references are not supported
//! assert_eq!(eval(r#"regexp(undefined, "x")"#), Value::Undefined);
//! ```

mod pcre;

use std::cell::RefCell;
use std::rc::Rc;

use ::regex::bytes::{Regex, RegexBuilder};
use rustc_hash::FxHashMap;

use super::Implementations;
use crate::builtins::BuiltinId;
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;

/// The most memory one compiled pattern may take (the `regex` crate's
/// `size_limit`); a bigger pattern is invalid.
const SIZE_LIMIT: usize = 1 << 20;
/// The most memory a pattern's lazy DFA may use before the engine falls back
/// to a slower (still linear) one.
const DFA_SIZE_LIMIT: usize = 1 << 20;
/// The `regex` crate's limit on nesting in the translated pattern (PCRE's own
/// limit of 250 nested groups applies before it).
const NEST_LIMIT: u32 = 1000;
/// The longest result of a substitution.
const MAX_OUTPUT: usize = 16 << 20;
/// How many patterns each thread keeps compiled.
const CACHE_CAPACITY: usize = 32;
/// How many option sets one cached pattern keeps compiled.
const CACHE_VARIANTS: usize = 4;

/// The pattern options `i`, `m`, `s` and `x`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Options {
    /// `i`: ASCII case-insensitive.
    pub(crate) caseless: bool,
    /// `m`: `^` and `$` match at every line.
    pub(crate) multiline: bool,
    /// `s`: `.` matches a newline too.
    pub(crate) dotall: bool,
    /// `x`: white space and `#` comments in the pattern are ignored.
    pub(crate) extended: bool,
}

impl Options {
    /// The options named by the lower-case letters `i`, `m`, `s` and `x`
    /// of `letters` (other characters are ignored), as `regexp` reads them.
    pub(crate) fn from_letters(letters: &str) -> Options {
        let has = |c| letters.as_bytes().contains(&c);
        Options { caseless: has(b'i'), multiline: has(b'm'), dotall: has(b's'), extended: has(b'x') }
    }

    /// Only `i`.
    pub(crate) fn caseless() -> Options {
        Options { caseless: true, ..Options::default() }
    }

    fn bits(self) -> u8 {
        u8::from(self.caseless)
            | u8::from(self.multiline) << 1
            | u8::from(self.dotall) << 2
            | u8::from(self.extended) << 3
    }
}

/// A compiled pattern.
#[derive(Debug)]
struct Compiled {
    /// For every target, except as below.
    plain: Regex,
    /// For a target ending with a newline, when the pattern has `$` or `\Z`
    /// (which then also match before that newline).
    trailing_newline: Option<Regex>,
}

/// A valid compiled pattern, shared with the per-thread cache.
#[derive(Clone, Debug)]
pub(crate) struct Pattern(Rc<Compiled>);

impl Pattern {
    /// The engine to use on `target`.
    fn regex_for(&self, target: &[u8]) -> &Regex {
        match &self.0.trailing_newline {
            Some(regex) if target.last() == Some(&b'\n') => regex,
            _ => &self.0.plain,
        }
    }

    /// Whether the pattern matches somewhere in `target` (the text up to a
    /// NUL, if there is one, as libclassad sees it).
    pub(crate) fn is_match(&self, target: &str) -> bool {
        let target = c_str(target).as_bytes();
        self.regex_for(target).is_match(target)
    }

    /// Whether the pattern matches a non-empty part of `target` (PCRE's
    /// `NOTEMPTY`), as `unresolved` asks.
    pub(crate) fn has_nonempty_match(&self, target: &str) -> bool {
        let target = c_str(target).as_bytes();
        let regex = self.regex_for(target);
        let mut start = 0;
        while let Some(found) = regex.find_at(target, start) {
            if !found.is_empty() {
                return true;
            }
            // An empty match: look for a longer one from the next byte.
            start = found.start() + 1;
            if start > target.len() {
                break;
            }
        }
        false
    }
}

/// Compiles `pattern` (up to a NUL, if there is one) with `options`, or
/// takes it from this thread's cache; `None` when the pattern is invalid,
/// longer than `max_len` bytes, or uses a feature this engine does not
/// have.
pub(crate) fn compile(pattern: &str, options: Options, max_len: usize) -> Option<Pattern> {
    let pattern = c_str(pattern);
    if pattern.len() > max_len {
        return None;
    }
    let key = options.bits();
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        cache.clock += 1;
        let clock = cache.clock;
        if let Some(entry) = cache.entries.get_mut(pattern) {
            entry.last_used = clock;
            if let Some((_, compiled)) = entry.variants.iter().find(|(bits, _)| *bits == key) {
                return compiled.clone();
            }
        }
        let compiled = build(pattern.as_bytes(), options).map(|c| Pattern(Rc::new(c)));
        cache.insert(pattern, key, compiled.clone(), clock);
        compiled
    })
}

/// Translates and compiles a pattern.
fn build(pattern: &[u8], options: Options) -> Option<Compiled> {
    let regex = |translated: &str| {
        RegexBuilder::new(translated)
            .unicode(false)
            .case_insensitive(options.caseless)
            .multi_line(options.multiline)
            .dot_matches_new_line(options.dotall)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(DFA_SIZE_LIMIT)
            .nest_limit(NEST_LIMIT)
            .build()
            .ok()
    };
    let plain = pcre::translate(pattern, options.extended, false).ok()?;
    let trailing_newline = if plain.has_end_anchor {
        let translated = pcre::translate(pattern, options.extended, true).ok()?;
        Some(regex(&translated.pattern)?)
    } else {
        None
    };
    Some(Compiled { plain: regex(&plain.pattern)?, trailing_newline })
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

/// Recently used patterns, compiled (`None`: invalid), least recently used
/// evicted first.
#[derive(Default)]
struct Cache {
    entries: FxHashMap<Box<str>, CacheEntry>,
    clock: u64,
}

struct CacheEntry {
    /// Per set of options (`Options::bits`).
    variants: Vec<(u8, Option<Pattern>)>,
    last_used: u64,
}

impl Cache {
    fn insert(&mut self, pattern: &str, key: u8, compiled: Option<Pattern>, clock: u64) {
        if !self.entries.contains_key(pattern) && self.entries.len() >= CACHE_CAPACITY {
            let oldest = self.entries.iter().min_by_key(|(_, entry)| entry.last_used).map(|(p, _)| p.clone());
            if let Some(oldest) = oldest {
                self.entries.remove(&oldest);
            }
        }
        let entry =
            self.entries.entry(pattern.into()).or_insert_with(|| CacheEntry { variants: Vec::new(), last_used: clock });
        if entry.variants.len() >= CACHE_VARIANTS {
            entry.variants.remove(0);
        }
        entry.variants.push((key, compiled));
    }
}

/// The text up to the first NUL: libclassad hands its engine C strings.
fn c_str(s: &str) -> &str {
    match memchr::memchr(0, s.as_bytes()) {
        // A NUL is a character boundary.
        Some(at) => &s[..at],
        None => s,
    }
}

/// libclassad's order for these functions: ERROR before UNDEFINED.
fn error_or_undefined<'a>(values: &[&Val<'_>]) -> Option<Val<'a>> {
    if values.iter().any(|v| matches!(v, Val::Error)) {
        return Some(Val::Error);
    }
    values.iter().any(|v| matches!(v, Val::Undefined)).then_some(Val::Undefined)
}

/// The options argument's letters: `""` when absent, `None` (ERROR) when
/// it is not a string.
fn option_letters<'v>(options: &'v Option<Val<'_>>) -> Option<&'v str> {
    match options {
        None => Some(""),
        Some(Val::Str(s)) => Some(s.as_str()),
        Some(_) => None,
    }
}

fn regexp<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let (pattern, target, options) = match args {
        [p, t] => (p, t, None),
        [p, t, o] => (p, t, Some(o)),
        _ => return Val::Error,
    };
    let pattern = ev.eval(pattern, frame);
    let target = ev.eval(target, frame);
    let options = options.map(|o| ev.eval(o, frame));
    if let Some(v) = error_or_undefined(&[&pattern, &target, options.as_ref().unwrap_or(&Val::Bool(true))]) {
        return v;
    }
    let Some(letters) = option_letters(&options) else {
        return Val::Error;
    };
    let (Val::Str(pattern), Val::Str(target)) = (&pattern, &target) else {
        return Val::Error;
    };
    match compile(pattern.as_str(), Options::from_letters(letters), ev.options.limits.max_regex) {
        Some(compiled) => Val::Bool(compiled.is_match(target.as_str())),
        None => Val::Error,
    }
}

fn regexp_member<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let (pattern, list, options) = match args {
        [p, l] => (p, l, None),
        [p, l, o] => (p, l, Some(o)),
        _ => return Val::Error,
    };
    let pattern = ev.eval(pattern, frame);
    let list = ev.eval(list, frame);
    let options = options.map(|o| ev.eval(o, frame));
    if let Some(v) = error_or_undefined(&[&pattern, &list, options.as_ref().unwrap_or(&Val::Bool(true))]) {
        return v;
    }
    let Some(letters) = option_letters(&options) else {
        return Val::Error;
    };
    let (Val::Str(pattern), Val::List(list)) = (&pattern, &list) else {
        return Val::Error;
    };
    // libclassad compiles the pattern per element and takes a failure as
    // "no match": an invalid pattern gives false (or UNDEFINED), not ERROR.
    let compiled = compile(pattern.as_str(), Options::from_letters(letters), ev.options.limits.max_regex);
    let mut saw_undefined = false;
    for i in 0..list.len() {
        match ev.element(list, i) {
            Val::Str(s) => {
                if compiled.as_ref().is_some_and(|c| c.is_match(s.as_str())) {
                    return Val::Bool(true);
                }
            }
            Val::Undefined => saw_undefined = true,
            _ => return Val::Error,
        }
    }
    if saw_undefined {
        Val::Undefined
    } else {
        Val::Bool(false)
    }
}

/// Which substitution function is called.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Substitution {
    Regexps,
    Replace,
    ReplaceAll,
}

/// Shared body of `regexps`, `replace` and `replaceAll`.
fn substitution<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, function: Substitution) -> Val<'a> {
    let (pattern, target, substitute, options) = match args {
        [p, t, s] => (p, t, s, None),
        [p, t, s, o] => (p, t, s, Some(o)),
        _ => return Val::Error,
    };
    let pattern = ev.eval(pattern, frame);
    let target = ev.eval(target, frame);
    let substitute = ev.eval(substitute, frame);
    let options = options.map(|o| ev.eval(o, frame));
    let present = options.as_ref().unwrap_or(&Val::Bool(true));
    if let Some(v) = error_or_undefined(&[&pattern, &target, &substitute, present]) {
        return v;
    }
    let Some(letters) = option_letters(&options) else {
        return Val::Error;
    };
    let (Val::Str(pattern), Val::Str(target), Val::Str(substitute)) = (&pattern, &target, &substitute) else {
        return Val::Error;
    };
    let has = |c| letters.as_bytes().contains(&c);
    let full = has(b'f') || function != Substitution::Regexps;
    let global = has(b'g') || function == Substitution::ReplaceAll;
    let Some(compiled) = compile(pattern.as_str(), Options::from_letters(letters), ev.options.limits.max_regex) else {
        return Val::Error;
    };
    let target = c_str(target.as_str()).as_bytes();
    let substitute = c_str(substitute.as_str()).as_bytes();
    match substitute_matches(&compiled, target, substitute, full, global).map(String::from_utf8) {
        Some(Ok(text)) => Val::string(text),
        // No match, or a match that split a UTF-8 character.
        Some(Err(_)) | None => Val::Error,
    }
}

/// libclassad's substitution loop. `None` for ERROR: a reference to a
/// group past the last one that took part in the match, an empty match at
/// the end of the target in a global substitution, or a result longer than
/// [`MAX_OUTPUT`].
fn substitute_matches(
    pattern: &Pattern,
    target: &[u8],
    substitute: &[u8],
    full: bool,
    global: bool,
) -> Option<Vec<u8>> {
    let regex = pattern.regex_for(target);
    let mut locations = regex.capture_locations();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = regex.captures_read_at(&mut locations, target, at) {
        if full {
            out.extend_from_slice(&target[at..found.start()]);
        }
        // PCRE's count of groups: one more than the last that took part.
        let groups = (0..locations.len()).rev().find(|&g| locations.get(g).is_some()).map_or(0, |g| g + 1);
        let mut rest = substitute;
        while let Some(backslash) = memchr::memchr(b'\\', rest) {
            out.extend_from_slice(&rest[..backslash]);
            match rest.get(backslash + 1) {
                Some(&digit) if digit.is_ascii_digit() => {
                    let group = usize::from(digit - b'0');
                    if group >= groups {
                        return None;
                    }
                    if let Some((start, end)) = locations.get(group) {
                        out.extend_from_slice(&target[start..end]);
                    }
                    rest = &rest[backslash + 2..];
                }
                _ => {
                    out.push(b'\\');
                    rest = &rest[backslash + 1..];
                }
            }
            if out.len() > MAX_OUTPUT {
                return None;
            }
        }
        out.extend_from_slice(rest);
        if out.len() > MAX_OUTPUT {
            return None;
        }
        at = found.end();
        if !global {
            break;
        }
        if found.is_empty() {
            // PCRE retries at the same place for a non-empty match, then
            // moves one byte on, keeping it; at the end of the target it
            // fails (libclassad then starts a search past the end).
            if at >= target.len() {
                return None;
            }
            out.push(target[at]);
            at += 1;
        }
    }
    if full {
        out.extend_from_slice(&target[at..]);
    }
    Some(out)
}

fn regexps<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    substitution(ev, args, frame, Substitution::Regexps)
}

fn replace<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    substitution(ev, args, frame, Substitution::Replace)
}

fn replace_all<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    substitution(ev, args, frame, Substitution::ReplaceAll)
}

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations = &[
    (BuiltinId::Regexp, regexp),
    (BuiltinId::RegexpMember, regexp_member),
    (BuiltinId::Regexps, regexps),
    (BuiltinId::Replace, replace),
    (BuiltinId::ReplaceAll, replace_all),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn eval(text: &str) -> crate::Value {
        text.parse::<crate::Expr>().expect("parses").eval()
    }

    #[test]
    fn matches() {
        assert_eq!(eval(r#"regexp("b+", "abbc")"#), crate::Value::Bool(true));
        assert_eq!(eval(r#"regexp("^b", "abc")"#), crate::Value::Bool(false));
        assert_eq!(eval(r#"regexp("a$", "a\n")"#), crate::Value::Bool(true));
        assert_eq!(eval(r#"regexp("^.$", "é")"#), crate::Value::Bool(false));
        assert_eq!(eval(r#"regexp("^..$", "é")"#), crate::Value::Bool(true));
    }

    #[test]
    fn substitutions() {
        assert_eq!(eval(r#"regexps("b", "abcb", "x", "g")"#), crate::Value::from("xx"));
        assert_eq!(eval(r#"replaceAll("b", "abcb", "<\\0>")"#), crate::Value::from("a<b>c<b>"));
        assert_eq!(eval(r#"replaceAll("^", "abc", ">")"#), crate::Value::from(">abc"));
        assert_eq!(eval(r#"replaceAll("x*", "abc", "-")"#), crate::Value::Error);
        assert_eq!(eval(r#"regexps(".", "é", "\\0")"#), crate::Value::Error);
    }

    #[test]
    fn cache_is_bounded_and_reused() {
        for i in 0..(CACHE_CAPACITY * 3) {
            assert!(compile(&format!("a{i}"), Options::default(), usize::MAX).is_some());
        }
        let first = compile("reused", Options::default(), usize::MAX).expect("valid");
        let again = compile("reused", Options::default(), usize::MAX).expect("valid");
        assert!(Rc::ptr_eq(&first.0, &again.0));
        assert!(compile("(", Options::default(), usize::MAX).is_none());
        CACHE.with(|cache| assert!(cache.borrow().entries.len() <= CACHE_CAPACITY));
    }

    #[test]
    fn hostile_patterns_finish_fast() {
        let start = Instant::now();
        let target = "a".repeat(100_000);
        let pattern = compile("(a*)*b", Options::default(), usize::MAX).expect("valid");
        assert!(!pattern.is_match(&target));
        let pattern = compile("(a|aa)*c", Options::default(), usize::MAX).expect("valid");
        assert!(!pattern.is_match(&target));
        let pattern = compile("(x+x+)+y", Options::default(), usize::MAX).expect("valid");
        assert!(!pattern.is_match(&"x".repeat(100_000)));
        let replaced = substitute_matches(
            &compile("(a*)*b", Options::default(), usize::MAX).expect("valid"),
            target.as_bytes(),
            b"x",
            true,
            true,
        );
        assert_eq!(replaced.as_deref(), Some(target.as_bytes()));
        // A hang guard, not a speed measurement: backtracking would take ages.
        assert!(start.elapsed() < Duration::from_secs(30), "took {:?}", start.elapsed());
    }

    #[test]
    fn huge_patterns_and_outputs_are_errors() {
        assert!(compile("(a{65535}){65535}", Options::default(), usize::MAX).is_none());
        assert!(compile("((a{1000}){1000}){1000}", Options::default(), usize::MAX).is_none());
        let pattern = compile("b", Options::default(), usize::MAX).expect("valid");
        let target = "b".repeat(4096);
        let substitute = "\\0".to_string() + &"y".repeat(8192);
        assert_eq!(substitute_matches(&pattern, target.as_bytes(), substitute.as_bytes(), true, true), None);
    }
}
