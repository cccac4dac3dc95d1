//! HTCondor's own functions: job environments and arguments, user maps,
//! home directories.
//!
//! HTCondor keeps a job's environment and arguments as strings in one of
//! two syntaxes. These functions convert between them the way
//! `condor_submit` and the schedd do (HTCondor's `env.cpp` and
//! `condor_arglist.cpp`). Both use the *raw* V2 form, without the
//! surrounding double quotes a submit file puts around it.
//!
//! **V2 (raw) syntax** (`Environment`, `Arguments`): items separated by
//! spaces, tabs, carriage returns or newlines; a single quote starts and
//! ends a quoted run in which those separators are ordinary, and `''`
//! inside quotes is one literal `'`. `a 'b c' d''e` is the three items
//! `a`, `b c`, `de`; `''` alone is an empty item. Written back, every run
//! of separator characters and single quotes in an item is quoted
//! (`b' 'c`, `it''''s`) and an empty item is `''`.
//!
//! **V1 environment** (`Env`): `NAME=value` items separated by `;` (or by
//! newlines). When the string starts with one of
//! ``!#$%&*+,-/:;<>?@^`|~`` or the control character 0x1F, that character is
//! the separator instead and is dropped. Blanks before an item are
//! skipped; nothing is trimmed after it.
//!
//! **Environment items** are `NAME=value`, split at the first `=`; an item
//! without `=` is ERROR (unless it contains `$$`: then it is kept as a
//! bare name, an unexpanded `$$()` macro); an empty name is ERROR. A later
//! item for a name replaces an earlier one, and the result lists the names
//! in byte order.
//!
//! * `envV1ToV2(env)`: the V1 environment string `env` in V2 syntax.
//!   UNDEFINED stays UNDEFINED; any other non-string, or an item without
//!   `=`, is ERROR. `envV1ToV2("PATH=/bin;HOME=/home/a b")` is
//!   `"HOME=/home/a' 'b PATH=/bin"`.
//!
//! * `mergeEnvironment(env, ...)`: the V2 environments merged left to
//!   right (later values win), in V2 syntax. UNDEFINED arguments are
//!   skipped; a non-string or an unparsable environment (unbalanced
//!   quote, item without `=`, empty item) is ERROR. No arguments give `""`.
//!
//! * `argsToList(args[, version])`: the argument string split into a list
//!   of strings; `version` is the integer 2 (V2 syntax, the default) or 1
//!   (V1: split at blanks, quotes are ordinary). A non-string `args`, a
//!   `version` other than the integers 1 and 2, or (V2) an unbalanced
//!   quote is ERROR.
//!
//! * `listToArgs(list[, version])`: the list of strings joined into an
//!   argument string in V2 (default) or V1 syntax. A non-list, an element
//!   that is not a string (UNDEFINED included), a bad `version`, or (V1)
//!   an element holding a blank is ERROR. In V1 the elements are joined
//!   with single spaces, except that nothing separates a leading run of
//!   empty elements from the next one (as HTCondor does).
//!
//! * `userMap(mapName, input[, preferred[, default]])`: `input` mapped by
//!   the map registered as `mapName` (see [`crate::usermap`]; `"name.method"`
//!   looks in the lines of that method). With two arguments the mapped
//!   value as it is (a comma-separated list, as one string). With three or
//!   four, one item of that list (items trimmed of blanks, empty items
//!   skipped): `preferred` when it is a string equal to an item ignoring
//!   ASCII case, else the first item. When the map or a mapping is missing
//!   or has no items, the result is `default` (whatever its value) or
//!   UNDEFINED. A non-string `mapName` or `input` gives
//!   ERROR if either is ERROR, else `default` or UNDEFINED.
//!
//! * `userHome(user[, default])`: the home directory of `user` from
//!   [`crate::usermap::home_dir`] (by default the system passwd file).
//!   `default` counts only when it is a non-empty string. An unknown user
//!   gives `default` or UNDEFINED; UNDEFINED `user` gives `default` or
//!   UNDEFINED; any other non-string `user` gives `default` or ERROR. A
//!   wrong argument count is ERROR (libclassad fails the whole evaluation;
//!   see `docs/divergences.md`, `eval-failure`).
//!
//! Strings are cut at a NUL character, as HTCondor passes them to C
//! functions.
//!
//! ```
//! use classad::{Expr, Value};
//! let e: Expr = r#"envV1ToV2("PATH=/bin;HOME=/home/a b")"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::from("HOME=/home/a' 'b PATH=/bin"));
//! let e: Expr = r#"mergeEnvironment(envV1ToV2(undefined), "A=1 B=2", "B=3")"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::from("A=1 B=3"));
//! let e: Expr = r#"argsToList("-n 'two words' it''s")"#.parse().unwrap();
//! assert_eq!(e.eval().to_string(), r#"{ "-n","two words","its" }"#);
//! let e: Expr = r#"listToArgs({ "-n", "two words", "it's" })"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::from("-n two' 'words it''''s"));
//! let e: Expr = r#"userMap("no such map", "alice", "cms", "default_group")"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::from("default_group"));
//! ```

use std::collections::BTreeMap;
use std::rc::Rc;

use super::Implementations;
use crate::builtins::BuiltinId;
use crate::eval::{Evaluator, Frame, List, Val};
use crate::expr::Expr;

/// The part of `s` a C function would see: up to the first NUL.
fn c_str(s: &str) -> &str {
    match s.find('\0') {
        Some(end) => &s[..end],
        None => s,
    }
}

/// The characters that separate V2 items (and V1 arguments).
fn is_separator(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Splits a V2 (raw) string into its items; `None` on an unbalanced quote
/// (HTCondor's `split_args`).
fn split_v2(text: &str) -> Option<Vec<String>> {
    let mut items = Vec::new();
    let mut item = String::new();
    let mut in_item = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            in_item = true;
            loop {
                match chars.next()? {
                    '\'' if chars.peek() == Some(&'\'') => {
                        chars.next();
                        item.push('\'');
                    }
                    '\'' => break,
                    other => item.push(other),
                }
            }
        } else if is_separator(c) {
            if in_item {
                items.push(std::mem::take(&mut item));
                in_item = false;
            }
        } else {
            in_item = true;
            item.push(c);
        }
    }
    if in_item {
        items.push(item);
    }
    Some(items)
}

/// Appends `arg` to a V2 string, quoting as HTCondor's `append_arg` does.
fn append_v2(out: &mut String, arg: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    if arg.is_empty() {
        out.push_str("''");
    }
    for c in arg.chars() {
        if is_separator(c) || c == '\'' {
            // Extend the quoted run just closed rather than open another.
            if out.ends_with('\'') {
                out.pop();
            } else {
                out.push('\'');
            }
            if c == '\'' {
                out.push('\'');
            }
            out.push(c);
            out.push('\'');
        } else {
            out.push(c);
        }
    }
}

/// An environment: names in byte order, each with its value, or `None`
/// for a bare `$$()` name.
#[derive(Default)]
struct Env(BTreeMap<String, Option<String>>);

/// HTCondor marks a bare name with this value internally, so a value
/// equal to it prints as a bare name too.
const NO_VALUE: &str = "\u{1}\u{2}\u{3}\u{4}\u{5}\u{6}";

impl Env {
    /// Adds one `NAME=value` item; false when it is not one.
    fn set(&mut self, item: &str) -> bool {
        match item.split_once('=') {
            Some(("", _)) => false,
            Some((name, value)) => {
                let value = (value != NO_VALUE).then(|| value.to_string());
                self.0.insert(name.to_string(), value);
                true
            }
            None if item.contains("$$") => {
                self.0.insert(item.to_string(), None);
                true
            }
            None => false,
        }
    }

    /// Merges a V2 (raw) environment; false when it does not parse.
    fn merge_v2(&mut self, text: &str) -> bool {
        match split_v2(text) {
            Some(items) => items.iter().all(|item| self.set(item)),
            None => false,
        }
    }

    /// Merges a V1 environment, its separator chosen by its first
    /// character; false when an item is not `NAME=value`.
    fn merge_v1(&mut self, text: &str) -> bool {
        const PERMITTED: &str = "!#$%&*+,-/:;<>?@^`|~\u{1F}";
        let (separator, mut rest) = match text.chars().next() {
            Some(c) if PERMITTED.contains(c) => (c, &text[1..]),
            _ => (';', text),
        };
        while !rest.is_empty() {
            rest = rest.trim_start_matches([' ', '\t', '\n', '\r']);
            let (item, next) = match rest.find([separator, '\n']) {
                Some(at) => (&rest[..at], &rest[at + 1..]),
                None => (rest, ""),
            };
            if !item.is_empty() && !self.set(item) {
                return false;
            }
            rest = next;
        }
        true
    }

    /// The environment in V2 (raw) syntax.
    fn to_v2(&self) -> String {
        let mut out = String::new();
        let mut item = String::new();
        for (name, value) in &self.0 {
            item.clear();
            item.push_str(name);
            if let Some(value) = value {
                item.push('=');
                item.push_str(value);
            }
            append_v2(&mut out, &item);
        }
        out
    }
}

fn env_v1_to_v2<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    match super::one_arg(ev, args, frame) {
        Some(Val::Undefined) => Val::Undefined,
        Some(Val::Str(s)) => {
            let mut env = Env::default();
            if env.merge_v1(c_str(s.as_str())) {
                Val::string(env.to_v2())
            } else {
                Val::Error
            }
        }
        _ => Val::Error,
    }
}

fn merge_environment<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let mut env = Env::default();
    for arg in args {
        match ev.eval(arg, frame) {
            Val::Undefined => {}
            Val::Str(s) if env.merge_v2(c_str(s.as_str())) => {}
            _ => return Val::Error,
        }
    }
    Val::string(env.to_v2())
}

/// The syntax version argument of `argsToList` and `listToArgs`: V1 is
/// `Some(true)`, V2 (also when absent) `Some(false)`; `None` for anything
/// but the integers 1 and 2.
fn is_v1<'a>(ev: &mut Evaluator<'a>, version: Option<&'a Expr>, frame: &'a Frame<'a>) -> Option<bool> {
    let Some(version) = version else {
        return Some(false);
    };
    match ev.eval(version, frame) {
        Val::Int(1) => Some(true),
        Val::Int(2) => Some(false),
        _ => None,
    }
}

/// The arguments of `argsToList` and `listToArgs`: the main one and the
/// version, V1 or not; `None` for a wrong count or a bad version.
fn with_version<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Option<(&'a Expr, bool)> {
    let (main, version) = match args {
        [main] => (main, None),
        [main, version] => (main, Some(version)),
        _ => return None,
    };
    Some((main, is_v1(ev, version, frame)?))
}

fn args_to_list<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let Some((text, v1)) = with_version(ev, args, frame) else {
        return Val::Error;
    };
    let Val::Str(text) = ev.eval(text, frame) else {
        return Val::Error;
    };
    let text = c_str(text.as_str());
    let items: Vec<Val<'a>> = if v1 {
        text.split(is_separator).filter(|s| !s.is_empty()).map(Val::string).collect()
    } else {
        match split_v2(text) {
            Some(items) => items.into_iter().map(Val::string).collect(),
            None => return Val::Error,
        }
    };
    Val::List(List::Values(Rc::from(items)))
}

fn list_to_args<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let Some((list, v1)) = with_version(ev, args, frame) else {
        return Val::Error;
    };
    let Val::List(list) = ev.eval(list, frame) else {
        return Val::Error;
    };
    let mut out = String::new();
    for i in 0..list.len() {
        let Val::Str(arg) = ev.element(&list, i) else {
            return Val::Error;
        };
        let arg = c_str(arg.as_str());
        if v1 {
            if arg.contains(is_separator) {
                return Val::Error;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(arg);
        } else {
            append_v2(&mut out, arg);
        }
    }
    Val::string(out)
}

fn user_home<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let (user, default) = match args {
        [user] => (user, None),
        [user, default] => (user, Some(default)),
        _ => return Val::Error,
    };
    let default = match default.map(|d| ev.eval(d, frame)) {
        Some(Val::Str(s)) if !s.as_str().is_empty() => Some(Val::Str(s)),
        _ => None,
    };
    let user = match ev.eval(user, frame) {
        Val::Str(user) => user,
        Val::Undefined => return default.unwrap_or(Val::Undefined),
        _ => return default.unwrap_or(Val::Error),
    };
    match crate::usermap::home_dir(c_str(user.as_str())) {
        Some(home) => Val::string(home),
        None => default.unwrap_or(Val::Undefined),
    }
}

fn user_map<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    if !(2..=4).contains(&args.len()) {
        return Val::Error;
    }
    let map_name = ev.eval(&args[0], frame);
    let input = ev.eval(&args[1], frame);
    let preferred = args.get(2).map(|arg| ev.eval(arg, frame));
    // With four arguments the result starts as the default, whatever it is.
    let fallback = match args.get(3) {
        Some(default) => ev.eval(default, frame),
        None => Val::Undefined,
    };
    let (Val::Str(map_name), Val::Str(input)) = (&map_name, &input) else {
        return match (map_name, input) {
            (Val::Error, _) | (_, Val::Error) => Val::Error,
            _ => fallback,
        };
    };
    let Some(mapped) = crate::usermap::lookup(c_str(map_name.as_str()), c_str(input.as_str())) else {
        return fallback;
    };
    let Some(preferred) = preferred else {
        return Val::string(mapped);
    };
    let is_blank = |c: char| matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r');
    let mut items = mapped.split(',').map(|item| item.trim_matches(is_blank)).filter(|item| !item.is_empty());
    let chosen = match &preferred {
        Val::Str(p) => {
            let p = c_str(p.as_str());
            items.clone().find(|item| item.eq_ignore_ascii_case(p)).or_else(|| items.next())
        }
        _ => items.next(),
    };
    match chosen {
        Some(item) => Val::string(item),
        None => fallback,
    }
}

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations = &[
    (BuiltinId::EnvV1ToV2, env_v1_to_v2),
    (BuiltinId::MergeEnvironment, merge_environment),
    (BuiltinId::ArgsToList, args_to_list),
    (BuiltinId::ListToArgs, list_to_args),
    (BuiltinId::UserHome, user_home),
    (BuiltinId::UserMap, user_map),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_round_trip() {
        let args = ["a", "b c", "", "d'e", "f' 'g", " ", "'", "a\tb"];
        let mut joined = String::new();
        for arg in args {
            append_v2(&mut joined, arg);
        }
        assert_eq!(joined, "a b' 'c '' d''''e f''' '''g ' ' '''' a'\t'b");
        assert_eq!(split_v2(&joined), Some(args.iter().map(|s| s.to_string()).collect()));
        assert_eq!(split_v2("a 'b"), None);
        assert_eq!(split_v2("e''f ''"), Some(vec!["ef".to_string(), String::new()]));
    }

    #[test]
    fn v1_environment_separators() {
        let mut env = Env::default();
        assert!(env.merge_v1("|a=1|b=x y\nc= 2 "));
        assert_eq!(env.to_v2(), "a=1 b=x' 'y c=' '2' '");
        let mut env = Env::default();
        assert!(!env.merge_v1("$$(X)"));
        let mut env = Env::default();
        assert!(env.merge_v1(";$$(X);a=\u{1}\u{2}\u{3}\u{4}\u{5}\u{6}"));
        assert_eq!(env.to_v2(), "$$(X) a");
    }
}
