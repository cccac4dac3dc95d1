//! `if` / `elif` / `else` / `endif`: the stack of open conditionals and
//! the conditions HTCondor accepts (`true`, `false`, `yes`, `no`, numbers,
//! `defined NAME`, `defined use CATEGORY:KNOB`, `version >= 8.1.2`, a
//! leading `!`, macros expanding to one of those, an empty expansion as
//! false).

use super::expand::{expand, Mode};
use super::metaknobs;
use super::Config;

/// The HTCondor version `version` conditions compare with.
pub const HTCONDOR_VERSION: (i64, i64, i64) = (23, 9, 6);

/// Open conditionals, at most 63 deep.
#[derive(Default)]
pub(crate) struct IfStack {
    /// Per level: whether the branch being read is on, whether one branch
    /// of it was taken, whether `else` was seen.
    levels: Vec<Level>,
}

struct Level {
    on: bool,
    taken: bool,
    in_else: bool,
}

impl IfStack {
    /// Whether statements at this point are read.
    pub(crate) fn enabled(&self) -> bool {
        self.levels.iter().all(|l| l.on)
    }

    /// Whether an `if` is open.
    pub(crate) fn inside(&self) -> bool {
        !self.levels.is_empty()
    }

    /// If `line` is an `if`, `elif`, `else` or `endif`, handles it and
    /// returns `Some(result)`; otherwise `None`.
    pub(crate) fn handle(
        &mut self,
        line: &str,
        config: &Config,
        warnings: &mut Vec<String>,
    ) -> Option<Result<(), String>> {
        let (word, rest) = keyword(line)?;
        Some(match word {
            Word::If => {
                let outer = self.enabled();
                let on = if outer {
                    match test(rest, config, warnings) {
                        Ok(b) => b,
                        Err(e) => return Some(Err(format!("{rest} is not a valid if condition because {e}"))),
                    }
                } else {
                    false
                };
                if self.levels.len() >= 63 {
                    return Some(Err("if nesting too deep".to_string()));
                }
                self.levels.push(Level { on, taken: on, in_else: false });
                Ok(())
            }
            Word::Elif => {
                let outer = self.levels.len() <= 1 || self.levels[..self.levels.len() - 1].iter().all(|l| l.on);
                let Some(top) = self.levels.last() else {
                    return Some(Err("elif without matching if".to_string()));
                };
                if top.in_else {
                    return Some(Err("elif is not allowed after else".to_string()));
                }
                let evaluate = outer && !top.taken;
                let on = if evaluate {
                    match test(rest, config, warnings) {
                        Ok(b) => b,
                        Err(e) => return Some(Err(format!("{rest} is not a valid elif condition because {e}"))),
                    }
                } else {
                    false
                };
                if let Some(top) = self.levels.last_mut() {
                    top.on = on;
                    top.taken |= on;
                }
                Ok(())
            }
            Word::Else => match self.levels.last_mut() {
                None => Err("else without matching if".to_string()),
                Some(top) if top.in_else => Err("else is not allowed after else".to_string()),
                Some(top) => {
                    top.in_else = true;
                    top.on = !top.taken;
                    Ok(())
                }
            },
            Word::Endif => match self.levels.pop() {
                None => Err("endif without matching if".to_string()),
                Some(_) => Ok(()),
            },
        })
    }
}

enum Word {
    If,
    Elif,
    Else,
    Endif,
}

fn keyword(line: &str) -> Option<(Word, &str)> {
    for (w, word) in [("if", Word::If), ("elif", Word::Elif), ("else", Word::Else), ("endif", Word::Endif)] {
        if line.len() >= w.len() && line.as_bytes()[..w.len()].eq_ignore_ascii_case(w.as_bytes()) {
            let rest = &line[w.len()..];
            if rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_whitespace()) {
                return Some((word, rest.trim_start()));
            }
        }
    }
    None
}

fn is_word(text: &str, word: &str) -> bool {
    text.trim().eq_ignore_ascii_case(word)
}

/// The value of an `if` condition.
fn test(expr: &str, config: &Config, warnings: &mut Vec<String>) -> Result<bool, String> {
    let expanded;
    let mut expr = expr;
    let had_macro = expr.contains('$');
    if had_macro {
        expanded = expand(config, expr, Mode::All, warnings)?;
        expr = expanded.trim_end();
    }
    expr = expr.trim_start();
    let mut inverted = false;
    if let Some(rest) = expr.strip_prefix('!') {
        inverted = true;
        expr = rest.trim_start();
    }
    let value = if had_macro && expr.is_empty() { false } else { evaluate(expr, config)? };
    Ok(value != inverted)
}

pub(crate) fn looks_numeric(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    !s.is_empty()
        && s.bytes().any(|c| c.is_ascii_digit())
        && s.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
}

pub(crate) fn crufty_bool(s: &str) -> Option<bool> {
    let t = s.trim();
    if ["true", "yes", "t"].iter().any(|w| t.eq_ignore_ascii_case(w)) {
        Some(true)
    } else if ["false", "no", "f"].iter().any(|w| t.eq_ignore_ascii_case(w)) {
        Some(false)
    } else {
        None
    }
}

fn evaluate(expr: &str, config: &Config) -> Result<bool, String> {
    let t = expr.trim();
    if t.is_empty() {
        return Err("expression is not a conditional".to_string());
    }
    if looks_numeric(t) {
        return Ok(t.parse::<f64>().map(|d| d != 0.0).unwrap_or(false));
    }
    if let Some(b) = crufty_bool(t) {
        return Ok(b);
    }
    if let Some(rest) = strip_word(t, "version") {
        return version(rest);
    }
    if let Some(rest) = strip_word(t, "defined") {
        return defined(rest.trim(), config);
    }
    if t.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/')) {
        return Err("expression is not a conditional".to_string());
    }
    Err("complex conditionals are not supported".to_string())
}

/// `text` without its first word `word` (any case), if it starts with it.
pub(crate) fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let head = text.get(..word.len())?;
    if !head.eq_ignore_ascii_case(word) {
        return None;
    }
    let rest = &text[word.len()..];
    (rest.is_empty() || !rest.as_bytes()[0].is_ascii_alphanumeric()).then_some(rest)
}

pub(crate) fn version(rest: &str) -> Result<bool, String> {
    let mut p = rest.trim_start();
    let negated = p.starts_with('!');
    if negated {
        p = &p[1..];
    }
    let mut op = 0i32;
    if let Some(c) = p.chars().next().filter(|c| matches!(c, '<' | '=' | '>')) {
        op = c as i32 - '=' as i32;
        p = &p[1..];
    }
    let mut or_equal = false;
    if let Some(r) = p.strip_prefix('=') {
        or_equal = true;
        p = r;
    }
    let p = p.trim_start();
    let p = p.strip_prefix(['v', 'V']).unwrap_or(p);
    let nums: Vec<i64> = p
        .split('.')
        .take(3)
        .map_while(|f| {
            let d: String = f.chars().take_while(char::is_ascii_digit).collect();
            d.parse().ok()
        })
        .collect();
    if nums.len() < 2 || nums[0] < 6 {
        return Err("the version literal is invalid".to_string());
    }
    let theirs = (nums[0], nums[1], nums.get(2).copied().unwrap_or(HTCONDOR_VERSION.2));
    let diff = match HTCONDOR_VERSION.cmp(&theirs) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    };
    let result = diff == op || (or_equal && diff == 0);
    Ok(result != negated)
}

fn defined(what: &str, config: &Config) -> Result<bool, String> {
    if what.is_empty() {
        return Ok(false);
    }
    if let Some(rest) = strip_word(what, "use").filter(|r| r.starts_with(char::is_whitespace)) {
        let spec = rest.trim();
        if spec.contains([' ', '\t', '\r']) {
            return Err("defined use meta argument with internal spaces will never match".to_string());
        }
        let (cat, knob) = match spec.split_once(':') {
            Some((c, k)) => (c, Some(k)),
            None => (spec, None),
        };
        return Ok(match knob {
            None | Some("") => metaknobs::is_category(cat),
            Some(k) => metaknobs::find(cat, k).is_some(),
        });
    }
    if looks_numeric(what) || is_word(what, "true") || is_word(what, "false") {
        return Ok(true);
    }
    if what.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/' | b':')) {
        return Ok(match config.raw(what) {
            Some(v) => !v.is_empty(),
            None => crufty_bool(what).is_some(),
        });
    }
    Err("defined argument must be param name, boolean, or number".to_string())
}
