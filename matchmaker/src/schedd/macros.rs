//! Transform variables and `$(...)` expansion.
//!
//! A transform's `NAME = value` statements, `EVALMACRO` results,
//! `TRANSFORM` loop variables and command-line `key=value` arguments are
//! *variables*. Values are stored raw and expanded where they are used,
//! with the value a variable has at that point of the transform (not its
//! last value, as in a configuration file).
//!
//! `$(NAME)` looks in the variables, then in the built-in values
//! (`IsLinux`, `Iterating`, and while iterating `Row`, `Step`, ...), then
//! in the configuration, then in the machine's `OPSYS` and `ARCH`; a
//! `NAME = value` line that refers to `NAME` itself takes its earlier
//! value at once ([`Macros::assign`]); `$(MY.Attr)` is the job's attribute (a string's
//! text without quotes, any other expression as written). `$(NAME:default)`
//! gives `default` when nothing defines `NAME`. Also expanded:
//! `$(DOLLAR)`, `$ENV(X)` (`UNDEFINED` when `X` is not set), `$INT(X[, format])`, `$REAL(X[, format])`,
//! `$STRING(X[, format])` (a C `printf` format with one conversion),
//! `$EVAL(expr)` (where `expr` may be a name standing for its value),
//! `$CHOICE(i, a, b, ...)`, `$SUBSTR(X, start[, length])`, `$BASENAME(X)`,
//! `$DIRNAME(X)` and the file-name parts `$F[pdnxqawub](X)` (see
//! [`super::filename`]). `$$(...)` is left as it is. Other macro functions
//! (`$RANDOM_CHOICE`, `$RANDOM_INTEGER`, `$Ff...` full paths) are
//! refused with an error.

use classad::{ClassAd, EvalContext, EvalOptions, Expr, Literal, Syntax, Value};
use rustc_hash::FxHashMap;

use super::filename::{file_name_parts, Parts};
use super::printf::{self, Arg};
use crate::config::Config;

/// Most replacements while expanding one text.
const MAX_EXPANSIONS: usize = 10_000;
/// Longest text an expansion may produce.
const MAX_TEXT: usize = 64 << 10;
/// Deepest nesting of macros inside macros (`$(A:$(B:$(C)))`).
const MAX_NESTING: usize = 32;

/// A transform's variables: names are case-insensitive.
///
/// ```
/// use matchmaker::schedd::Macros;
/// let mut vars = Macros::new();
/// vars.set("Queue", "short");
/// assert_eq!(vars.get("QUEUE"), Some("short"));
/// assert_eq!(vars.get("other"), None);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Macros {
    map: FxHashMap<String, String>,
}

impl Macros {
    /// No variables.
    pub fn new() -> Macros {
        Macros::default()
    }

    /// Sets `name` to the raw `value`.
    pub fn set(&mut self, name: &str, value: &str) {
        self.map.insert(name.to_ascii_lowercase(), value.to_string());
    }

    /// Sets `name` to `value` as a `NAME = value` line of a transform
    /// does: a reference to `name` itself in `value` (`A = $(A) more`,
    /// `$(A:default)`) is replaced at once by what `name` was (its raw
    /// value, or a built-in value such as `IsLinux`; else the default, or
    /// nothing), as HTCondor's macro language expands a self-reference;
    /// every other reference is kept, to expand where the value is used.
    ///
    /// ```
    /// use matchmaker::schedd::Macros;
    /// let mut vars = Macros::new();
    /// vars.assign("A", "x");
    /// vars.assign("a", "$(A)0 $(B)");
    /// assert_eq!(vars.get("A"), Some("x0 $(B)"));
    /// vars.assign("C", "$(C:none)!");
    /// assert_eq!(vars.get("C"), Some("none!"));
    /// ```
    pub fn assign(&mut self, name: &str, value: &str) {
        let previous = self.get(name).or_else(|| builtin(name)).map(str::to_string);
        let value = replace_self_references(value, name, previous.as_deref());
        self.set(name, &value);
    }

    /// The raw value of `name`, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(&name.to_ascii_lowercase()).map(String::as_str)
    }

    /// Removes `name`.
    pub fn remove(&mut self, name: &str) {
        self.map.remove(&name.to_ascii_lowercase());
    }
}

/// The built-in values a transform sees when no variable of that name is
/// set (HTCondor's table for non-iterating transforms).
pub(crate) fn builtin(name: &str) -> Option<&'static str> {
    const TABLE: [(&str, &str); 5] =
        [("IsClusterAd", "0"), ("IsLinux", "1"), ("IsWindows", "0"), ("Iterating", "0"), ("LateMaterialization", "0")];
    TABLE.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
}

/// The values HTCondor's transform language takes from the machine it
/// runs on when the configuration does not set them: `OPSYS` and `ARCH`
/// (what HTCondor's `uname` translation gives: `LINUX`, `X86_64`,
/// `INTEL`, `aarch64`...). The distribution's name and version
/// (`OPSYSANDVER`, `OPSYSVER`, `OPSYSMAJORVER`) are not detected: see
/// `transform-detected-macros` in `docs/divergences.md`.
fn platform(name: &str) -> Option<&'static str> {
    if name.eq_ignore_ascii_case("OPSYS") {
        Some(match std::env::consts::OS {
            "linux" => "LINUX",
            "macos" => "OSX",
            "freebsd" => "FREEBSD",
            "windows" => "WINDOWS",
            _ => return None,
        })
    } else if name.eq_ignore_ascii_case("ARCH") {
        Some(match std::env::consts::ARCH {
            "x86_64" => "X86_64",
            "x86" => "INTEL",
            "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
            "powerpc64" => "PPC64",
            "powerpc" => "PPC",
            other => other,
        })
    } else {
        None
    }
}

/// `value` with each `$(name)` and `$(name:default)` replaced by
/// `previous` (or the default, or nothing when `previous` is `None`).
fn replace_self_references(value: &str, name: &str, previous: Option<&str>) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find("$(") {
        // `$$(...)` is the negotiator's, not a reference.
        let escaped = at > 0 && rest.as_bytes()[at - 1] == b'$';
        let Some(close) = closing(rest.as_bytes(), at + 1) else {
            break;
        };
        let body = &rest[at + 2..close];
        let (referred, default) = match body.split_once(':') {
            Some((n, d)) => (n.trim(), Some(d)),
            None => (body.trim(), None),
        };
        out.push_str(&rest[..at]);
        if !escaped && referred.eq_ignore_ascii_case(name) {
            out.push_str(previous.or(default).unwrap_or(""));
        } else {
            out.push_str(&rest[at..=close]);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// What `$(...)` expands against.
pub(crate) struct Expander<'a> {
    pub(crate) vars: &'a Macros,
    pub(crate) ad: &'a ClassAd,
    pub(crate) config: Option<&'a Config>,
}

/// One replacement: its text, and whether that text is scanned again (raw
/// variable values and the job's attributes are, as in HTCondor;
/// configuration values, already expanded, are not).
struct Replacement {
    text: String,
    rescan: bool,
}

impl Replacement {
    fn done(text: String) -> Replacement {
        Replacement { text, rescan: false }
    }
}

/// The kinds of `$NAME(` prefixes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Func {
    Plain,
    Env,
    Int,
    Real,
    Str,
    Eval,
    Choice,
    Substr,
    /// `$BASENAME` (`nx`), `$DIRNAME` (`p`) and `$F<letters>`.
    Filename,
    Refused,
}

fn classify(name: &str) -> Option<Func> {
    Some(match name {
        "" => Func::Plain,
        "ENV" => Func::Env,
        "INT" => Func::Int,
        "REAL" => Func::Real,
        "STRING" => Func::Str,
        "EVAL" => Func::Eval,
        "CHOICE" => Func::Choice,
        "SUBSTR" => Func::Substr,
        "BASENAME" | "DIRNAME" => Func::Filename,
        "RANDOM_CHOICE" | "RANDOM_INTEGER" | "UNPARSE" => Func::Refused,
        n if n.starts_with('F') && n[1..].bytes().all(|c| b"pnxdqabfwu".contains(&(c | 0x20))) => {
            if n[1..].bytes().any(|c| c | 0x20 == b'f') {
                Func::Refused
            } else {
                Func::Filename
            }
        }
        _ => return None,
    })
}

/// Finds the `)` closing the `(` at `open`, counting nested parentheses.
fn closing(s: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in s.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

impl Expander<'_> {
    /// Expands the macros of `text`; the error says what failed.
    pub(crate) fn expand(&self, text: &str) -> Result<String, String> {
        self.expand_at(text, 0)
    }

    fn expand_at(&self, text: &str, nesting: usize) -> Result<String, String> {
        if nesting > MAX_NESTING {
            return Err(format!("macros nested more than {MAX_NESTING} deep"));
        }
        let mut s = text.to_string();
        let mut from = 0;
        let mut count = 0;
        while let Some(rel) = s.get(from..).and_then(|rest| rest.find('$')) {
            let dollar = from + rel;
            let bytes = s.as_bytes();
            if bytes.get(dollar + 1) == Some(&b'$') {
                // `$$(...)` is kept for later (the negotiator's).
                from = dollar + 2;
                continue;
            }
            let mut p = dollar + 1;
            while p < bytes.len() && (bytes[p].is_ascii_alphanumeric() || bytes[p] == b'_') {
                p += 1;
            }
            let func = if bytes.get(p) == Some(&b'(') { classify(&s[dollar + 1..p]) } else { None };
            let Some((func, close)) = func.and_then(|f| Some((f, closing(bytes, p)?))) else {
                from = dollar + 1;
                continue;
            };
            count += 1;
            if count > MAX_EXPANSIONS {
                return Err(format!("more than {MAX_EXPANSIONS} macro replacements (a macro that refers to itself?)"));
            }
            let mut body = s[p + 1..close].to_string();
            if body.contains('$') {
                body = self.expand_at(&body, nesting + 1)?;
            }
            let r = self.replace(func, &s[dollar + 1..p], &body)?;
            if s.len() - (close + 1 - dollar) + r.text.len() > MAX_TEXT {
                return Err(format!("the expansion is longer than {MAX_TEXT} bytes"));
            }
            s.replace_range(dollar..=close, &r.text);
            from = if r.rescan { dollar } else { dollar + r.text.len() };
        }
        Ok(s)
    }

    fn replace(&self, func: Func, fname: &str, body: &str) -> Result<Replacement, String> {
        match func {
            Func::Plain => Ok(self.plain(body)),
            Func::Env => {
                // `$ENV(NAME)` is the variable's value, `UNDEFINED` when it
                // is not set, `$ENV(NAME:default)` the default then; a name
                // with spaces or other characters is no macro (kept as is).
                let (name, default) = match body.split_once(':') {
                    Some((n, d)) => (n, Some(d)),
                    None => (body, None),
                };
                if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.') {
                    return Ok(Replacement::done(format!("${fname}({body})")));
                }
                Ok(Replacement::done(match std::env::var_os(name) {
                    Some(v) => v.to_string_lossy().into_owned(),
                    None => default.unwrap_or("UNDEFINED").to_string(),
                }))
            }
            Func::Int | Func::Real | Func::Str => {
                let (name, format) = match body.split_once(',') {
                    // The format is all the text after the comma, spaces too.
                    Some((n, f)) => (n.trim(), Some(f)),
                    None => (body.trim(), None),
                };
                let text = self.lookup_expanded(name)?.unwrap_or_else(|| name.to_string());
                let value = evaluate(&text, None);
                let what = match func {
                    Func::Int => "an integer",
                    Func::Real => "a real",
                    _ => "a string",
                };
                let not = || format!("${fname}() macro: {text} does not evaluate to {what}");
                let arg = match (func, &value) {
                    (Func::Int, Value::Int(i)) => Arg::Int(*i),
                    (Func::Int, Value::Real(r)) => Arg::Int(c_long_long(*r)),
                    (Func::Int, Value::Bool(b)) => Arg::Int(i64::from(*b)),
                    (Func::Real, Value::Int(i)) => Arg::Real(*i as f64),
                    (Func::Real, Value::Real(r)) => Arg::Real(*r),
                    (Func::Real, Value::Bool(b)) => Arg::Real(f64::from(u8::from(*b))),
                    (Func::Str, Value::Str(t)) => Arg::Str(t.as_ref()),
                    // Anything else is the text itself, as in HTCondor.
                    (Func::Str, _) => Arg::Str(&text),
                    _ => return Err(not()),
                };
                let out = match (format, &arg) {
                    (None, Arg::Int(i)) => i.to_string(),
                    (None, Arg::Real(r)) => format_g16(*r),
                    (None, Arg::Str(s)) => (*s).to_string(),
                    (Some(f), arg) => {
                        let mut out = printf::format(f, arg).map_err(|e| format!("${fname}() macro: {e}"))?;
                        // A formatted real always looks like one.
                        if matches!(arg, Arg::Real(_)) && !out.contains('.') {
                            out.push_str(".0");
                        }
                        out
                    }
                };
                Ok(Replacement::done(out))
            }
            Func::Eval => {
                // A name (of a variable or `MY.Attr`) stands for its value.
                let text = self.lookup_expanded(body.trim())?.unwrap_or_else(|| body.to_string());
                let value = evaluate(&text, Some(self.ad));
                Ok(Replacement::done(match value {
                    Value::Str(t) => t.to_string(),
                    v => v.to_expr().display(Syntax::Old).to_string(),
                }))
            }
            Func::Choice => {
                let mut parts = body.split(',');
                let index = parts.next().unwrap_or("").trim();
                let items: Vec<&str> = parts.map(str::trim).collect();
                let idx_text = self.lookup_expanded(index)?.unwrap_or_else(|| index.to_string());
                let i = match evaluate(&idx_text, None) {
                    Value::Int(i) => i,
                    _ => return Err(format!("$CHOICE() macro: {index} is not a valid index")),
                };
                usize::try_from(i)
                    .ok()
                    .and_then(|i| items.get(i))
                    .map(|s| Replacement::done((*s).to_string()))
                    .ok_or_else(|| format!("$CHOICE() macro: index {i} is out of range"))
            }
            Func::Substr => {
                let args: Vec<&str> = body.split(',').map(str::trim).collect();
                let (name, start) = match args.as_slice() {
                    [n, s] | [n, s, _] => (*n, *s),
                    _ => return Err(format!("$SUBSTR({body}): expected a name, a start and an optional length")),
                };
                let text = self.lookup_expanded(name)?.unwrap_or_default();
                let chars: Vec<char> = text.chars().collect();
                let n = chars.len() as i64;
                let num = |t: &str| t.parse::<i64>().map_err(|_| format!("$SUBSTR({body}): {t} is not a number"));
                let mut begin = num(start)?;
                if begin < 0 {
                    begin = n.saturating_add(begin).max(0);
                }
                let begin = begin.min(n);
                let end = match args.get(2) {
                    Some(l) => {
                        let len = num(l)?;
                        if len < 0 {
                            n.saturating_add(len).max(begin)
                        } else {
                            begin.saturating_add(len).min(n)
                        }
                    }
                    None => n,
                };
                Ok(Replacement::done(chars[begin as usize..end as usize].iter().collect()))
            }
            Func::Filename => {
                // (`$BASENAME(X, suffix)` is HTCondor 25's: in 23.9 the
                // whole body is the name, as here.)
                let name = body;
                // A name nothing defines stands for itself, as in HTCondor;
                // a variable's value is expanded first.
                let text = self.lookup_expanded(name.trim())?.unwrap_or_else(|| name.trim().to_string());
                let parts = match fname {
                    "BASENAME" => Parts::basename(),
                    "DIRNAME" => Parts::dirname(),
                    f => Parts::of_letters(&f[1..]),
                };
                Ok(Replacement::done(file_name_parts(&text, parts)))
            }
            Func::Refused => Err(format!("${fname}(...) is not supported")),
        }
    }

    /// `$(NAME)` or `$(NAME:default)`.
    fn plain(&self, body: &str) -> Replacement {
        let (name, default) = match body.split_once(':') {
            Some((n, d)) => (n.trim(), Some(d)),
            None => (body.trim(), None),
        };
        if name.eq_ignore_ascii_case("DOLLAR") {
            return Replacement::done("$".to_string());
        }
        // An empty value is no value when there is a default (`E =`, an
        // attribute that is an empty string), as in HTCondor.
        match (self.lookup(name), default) {
            (Some(r), Some(d)) if r.text.is_empty() => Replacement { text: d.to_string(), rescan: true },
            (Some(r), _) => r,
            (None, Some(d)) => Replacement { text: d.to_string(), rescan: true },
            (None, None) => Replacement::done(String::new()),
        }
    }

    /// The value of `name` with its own macros expanded, as the macro
    /// functions read a name's value.
    fn lookup_expanded(&self, name: &str) -> Result<Option<String>, String> {
        match self.lookup(name) {
            Some(r) if r.rescan && r.text.contains('$') => self.expand_at(&r.text, 1).map(Some),
            Some(r) => Ok(Some(r.text)),
            None => Ok(None),
        }
    }

    /// The value of `name`: `MY.Attr`, a variable, a built-in value or a
    /// configuration value.
    fn lookup(&self, name: &str) -> Option<Replacement> {
        if let Some(attr) = strip_prefix_ci(name, "MY.") {
            let expr = self.ad.lookup(attr)?;
            // Scanned again, as HTCondor scans it: `$(...)` in an
            // attribute's text is a macro too.
            return Some(Replacement { text: attr_text(expr), rescan: true });
        }
        if let Some(v) = self.vars.get(name) {
            return Some(Replacement { text: v.to_string(), rescan: true });
        }
        if let Some(v) = builtin(name) {
            return Some(Replacement::done(v.to_string()));
        }
        if let Some(l) = self.config.and_then(|c| c.lookup(name)) {
            return Some(Replacement::done(l.value));
        }
        platform(name).map(|v| Replacement::done(v.to_string()))
    }
}

/// `$(MY.Attr)`: a string literal's text, or the expression as written.
pub(crate) fn attr_text(expr: &Expr) -> String {
    match expr.as_literal() {
        Some(Literal::Str(t)) => t.to_string(),
        _ => expr.display(Syntax::Old).to_string(),
    }
}

pub(crate) fn strip_prefix_ci<'s>(s: &'s str, prefix: &str) -> Option<&'s str> {
    if s.len() >= prefix.len() && s.is_char_boundary(prefix.len()) && s[..prefix.len()].eq_ignore_ascii_case(prefix) {
        Some(&s[prefix.len()..])
    } else {
        None
    }
}

/// The evaluation options of transforms and submit requirements: old
/// ClassAd semantics, as HTCondor's schedd and tools evaluate (`MY.x`
/// names the ad's attribute; unscoped names fall through to TARGET).
pub(crate) fn options() -> EvalOptions {
    EvalOptions::new().semantics(classad::Semantics::Old)
}

/// Evaluates `text` as a ClassAd expression (new syntax), in `ad` if given;
/// a text that does not parse is an error value.
pub(crate) fn evaluate(text: &str, ad: Option<&ClassAd>) -> Value {
    match classad::parse_expr(text) {
        Ok(expr) => evaluate_expr(&expr, ad),
        Err(_) => Value::Error,
    }
}

/// `expr` evaluated against `ad` (or no ad).
pub(crate) fn evaluate_expr(expr: &Expr, ad: Option<&ClassAd>) -> Value {
    let options = options();
    match ad {
        Some(ad) => EvalContext::new(&options).my(ad).eval(expr),
        None => EvalContext::new(&options).eval(expr),
    }
}

/// The expression at the start of `text`, the rest dropped, as HTCondor
/// reads `EVALSET`'s and `EVALMACRO`'s (`1 2` is 1, `a b` is `a`,
/// `C:\x` is `C`); `None` when no start of it is an expression (`1 +`).
pub(crate) fn leading_expr(text: &str) -> Option<Expr> {
    let mut end = text.len();
    loop {
        match classad::parse_expr(&text[..end]) {
            Ok(expr) => return Some(expr),
            Err(e) => {
                let at = e.span().start;
                if at == 0 || at >= end || !text.is_char_boundary(at) {
                    return None;
                }
                end = at;
            }
        }
    }
}

/// A real converted to `long long` as HTCondor's C++ converts it on
/// x86-64: truncated, and outside the range (or NaN) the "integer
/// indefinite" value, `i64::MIN` (a `$INT` of 1e308 is then 0 with `%d`).
fn c_long_long(r: f64) -> i64 {
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&r) {
        r.trunc() as i64
    } else {
        i64::MIN
    }
}

/// A real as C's `%.16G` writes it.
pub(crate) fn format_g16(x: f64) -> String {
    classad::printf::format_g(x, 16).to_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(vars: &[(&str, &str)], ad: &str, text: &str) -> Result<String, String> {
        let mut m = Macros::new();
        for (k, v) in vars {
            m.set(k, v);
        }
        let ad: ClassAd = ad.parse().expect("ad");
        Expander { vars: &m, ad: &ad, config: None }.expand(text)
    }

    #[test]
    fn plain_defaults_and_ad_attributes() {
        let ad = r#"[ Owner = "alice"; Mem = 2 * 1024 ]"#;
        assert_eq!(expand(&[("X", "$(Y)!"), ("y", "why")], ad, "$(X) $(Z:dflt) $(Z)|").unwrap(), "why! dflt |");
        assert_eq!(expand(&[], ad, "$(MY.Owner)/$(my.mem)/$(MY.None:n)").unwrap(), "alice/2 * 1024/n");
        assert_eq!(expand(&[], ad, "$(DOLLAR)(X) $$(Cpus)").unwrap(), "$(X) $$(Cpus)");
        assert_eq!(expand(&[], ad, "$(IsLinux)$(Iterating)").unwrap(), "10");
    }

    #[test]
    fn functions() {
        let ad = r#"[ Owner = "alice"; Cmd = "/bin/sleep"; Mem = 1024 ]"#;
        let vars = [("N", "5"), ("R", "1.0/3")];
        assert_eq!(expand(&vars, ad, "$INT(N) $REAL(N) $REAL(R)").unwrap(), "5 5 0.3333333333333333");
        assert_eq!(expand(&vars, ad, "$CHOICE(1, a, b, c) $SUBSTR(MY.Owner, 1, 2)").unwrap(), "b li");
        assert_eq!(expand(&vars, ad, "$BASENAME(MY.Cmd) $EVAL(MY.Mem * 2)").unwrap(), "sleep 2048");
        // HTCondor's: the name stands for its value, `alice`, which is undefined.
        assert_eq!(expand(&vars, ad, "$EVAL(MY.Owner) $Fq(MY.Cmd)").unwrap(), r#"undefined "/bin/sleep""#);
        assert!(expand(&vars, ad, "$RANDOM_CHOICE(a,b)").unwrap_err().contains("not supported"));
        assert_eq!(expand(&vars, ad, "$NOTAFUNC(x)").unwrap(), "$NOTAFUNC(x)");
        // A `$` before a `)` that closes nothing (found by the property test).
        assert_eq!(expand(&vars, ad, "$)(").unwrap(), "$)(");
        assert_eq!(expand(&vars, ad, "$(N").unwrap(), "$(N");
    }

    #[test]
    fn self_reference_deep_nesting_and_growth_are_errors() {
        assert!(expand(&[("A", "$(A)")], "[]", "$(A)").is_err());
        let deep = format!("{}x{}", "$(A:".repeat(10_000), ")".repeat(10_000));
        assert!(expand(&[], "[]", &deep).unwrap_err().contains("nested"));
        let doubling = [("A", "$(B)$(B)"), ("B", "$(C)$(C)"), ("C", "$(D)$(D)"), ("D", "xxxxxxxxxxxxxxxxxxxx")];
        assert!(expand(&doubling, "[]", &"$(A)".repeat(2000)).is_err());
        assert_eq!(
            expand(&[("S", "abc")], "[]", "$SUBSTR(S, -9223372036854775807, 9223372036854775807)").unwrap(),
            "abc"
        );
    }

    #[test]
    fn file_name_parts_as_htcondor_gives_them() {
        let vars = [("P", "/home/bob/work/data.tar.gz"), ("B", "plain"), ("Q", "\"quoted name.txt\"")];
        let e = |t: &str| expand(&vars, "[]", t).unwrap();
        assert_eq!(
            e("$Fp(P)|$Fn(P)|$Fx(P)|$Fd(P)|$Fnx(P)|$Fpn(P)|$Fdn(P)"),
            "/home/bob/work/|data.tar|.gz|work/|data.tar.gz|/home/bob/work/data.tar|work/data.tar"
        );
        assert_eq!(e("$Fp(B)|$Fn(B)|$Fx(B)|$Fd(B)|$Fnx(B)"), "|plain|||plain");
        assert_eq!(e("$DIRNAME(P)|$DIRNAME(B)|$BASENAME(P)"), "/home/bob/work/||data.tar.gz");
        assert_eq!(e("$Fn(Q)|$Fx(Q)|$Fq(Q)|$Fqn(P)"), "quoted name|.txt|\"quoted name.txt\"|\"data.tar\"");
        assert_eq!(e("$Fw(P)"), r"\home\bob\work\data.tar.gz");
        assert!(expand(&vars, "[]", "$Ff(P)").is_err());
    }

    #[test]
    fn g16() {
        assert_eq!(format_g16(5.0), "5");
        assert_eq!(format_g16(1e20), "1E+20");
        assert_eq!(format_g16(0.25), "0.25");
        assert_eq!(format_g16(1.0 / 3.0), "0.3333333333333333");
    }

    #[test]
    fn g16_keeps_the_sign_of_zero_and_nan() {
        // condor_transform_ads 23.9.6: `$REAL(X)` of -0.0 and -real("NaN").
        assert_eq!(format_g16(-0.0), "-0");
        assert_eq!(format_g16(-f64::NAN), "-NAN");
        assert_eq!(format_g16(f64::NAN), "NAN");
    }
}
