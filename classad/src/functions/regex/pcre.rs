//! Reads a pattern in the syntax libclassad accepts (PCRE2 10.32, 8-bit,
//! not UTF: every byte is one character) and writes the same pattern in the
//! syntax of the `regex` crate's byte-oriented, non-Unicode mode.
//!
//! The output spells every literal byte as `\xHH` (ASCII letters and
//! digits excepted), so nothing in it depends on which characters the
//! `regex` crate treats as special, and it never uses the `x` flag: white
//! space and `#` comments of PCRE's extended mode are dropped here, under
//! PCRE's rules (which differ from the `regex` crate's inside classes).
//!
//! A construct PCRE rejects is an error, and so is one the `regex` crate
//! cannot express (back-references, look-around, atomic groups, possessive
//! quantifiers, recursion, conditionals, verbs, `\G`, `\K`, `\X`, `\p`): the
//! caller turns both into ERROR.

use std::fmt::Write as _;

/// PCRE2's largest repeat count (`MAX_REPEAT_COUNT`).
const MAX_REPEAT: u32 = 65535;
/// PCRE2's default limit on nested parentheses (`PARENS_NEST_LIMIT`).
const MAX_NESTING: usize = 250;
/// PCRE2's longest group name (`MAX_NAME_SIZE`).
const MAX_NAME: usize = 32;
/// The POSIX class names PCRE2 knows, all of which the `regex` crate knows
/// too (with the same ASCII meaning).
const POSIX_NAMES: [&[u8]; 14] = [
    b"alpha", b"lower", b"upper", b"alnum", b"ascii", b"blank", b"cntrl", b"digit", b"graph", b"print", b"punct",
    b"space", b"word", b"xdigit",
];

/// A pattern PCRE2 rejects, or one this engine cannot run.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Unsupported;

type Result<T> = std::result::Result<T, Unsupported>;

/// A translated pattern.
#[derive(Debug)]
pub(super) struct Translation {
    /// The pattern in `regex` syntax.
    pub(super) pattern: String,
    /// Whether the pattern has a `$` or `\Z`, whose meaning depends on
    /// whether the target ends with a newline (see [`translate`]).
    pub(super) has_end_anchor: bool,
}

/// The pattern options that change how a pattern is read (the others, `i`,
/// `m` and `s`, go to the `regex` builder unchanged).
#[derive(Clone, Copy, Debug, Default)]
struct Mode {
    /// `x`: white space and `#` comments outside classes are ignored.
    extended: bool,
    /// `xx`: also spaces and tabs inside classes.
    extended_more: bool,
    /// `n`: plain parentheses do not capture.
    no_auto_capture: bool,
}

/// Translates `pattern`. With `extended`, the pattern starts in PCRE's
/// extended mode (option `x`).
///
/// PCRE's `$` (outside multiline mode) and `\Z` match at the end of the
/// target and also before a newline that ends it; the `regex` crate has no
/// such assertion. For a target that does not end with a newline they are
/// `\z`, which is what `for_trailing_newline == false` produces. With
/// `for_trailing_newline`, they are written as a multiline `$`, which is
/// exact unless the target has newlines before its last character.
pub(super) fn translate(pattern: &[u8], extended: bool, for_trailing_newline: bool) -> Result<Translation> {
    let mut t = Translator {
        pat: pattern,
        pos: 0,
        out: String::with_capacity(pattern.len() * 2 + 8),
        mode: Mode { extended, ..Mode::default() },
        saved: Vec::new(),
        captures: 0,
        quoting: false,
        for_trailing_newline,
        has_end_anchor: false,
    };
    t.run()?;
    Ok(Translation { pattern: t.out, has_end_anchor: t.has_end_anchor })
}

struct Translator<'p> {
    pat: &'p [u8],
    pos: usize,
    out: String,
    mode: Mode,
    /// The mode to restore at each open group's `)`.
    saved: Vec<Mode>,
    /// Capturing groups opened so far (PCRE reads `\12` as octal when fewer
    /// than 12 came before).
    captures: u32,
    /// Inside `\Q...\E`.
    quoting: bool,
    for_trailing_newline: bool,
    has_end_anchor: bool,
}

/// What a character class holds, before it is written out.
enum ClassItem {
    Byte(u8),
    Range(u8, u8),
    /// Already in `regex` class syntax (`\d`, `[:alpha:]`, a nested class).
    Set(&'static str),
    /// A `-` that may start a range (PCRE's `META_RANGE_*`); a literal `-`
    /// if nothing completes the range.
    Hyphen,
}

/// Where a class is in reading a range (PCRE's `class_range_state`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum RangeState {
    /// The previous item cannot start a range.
    No,
    /// A `-` followed a single character.
    Started,
    /// The previous item is a single character.
    Ok,
}

impl Translator<'_> {
    fn peek(&self) -> Option<u8> {
        self.pat.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.pat.get(self.pos + offset).copied()
    }

    fn next(&mut self) -> Result<u8> {
        let c = self.peek().ok_or(Unsupported)?;
        self.pos += 1;
        Ok(c)
    }

    /// Writes one literal byte.
    fn literal(&mut self, b: u8) {
        push_byte(&mut self.out, b);
    }

    fn run(&mut self) -> Result<()> {
        // Whether the previous significant item can take a quantifier, and
        // whether it was a quantifier (which may take a `?` or `+` suffix).
        let mut quantifiable = false;
        let mut after_quantifier = false;
        while self.pos < self.pat.len() {
            if self.saved.len() > MAX_NESTING {
                return Err(Unsupported);
            }
            let c = self.pat[self.pos];
            self.pos += 1;

            if self.quoting {
                if c == b'\\' && self.peek() == Some(b'E') {
                    self.quoting = false;
                    self.pos += 1;
                } else {
                    self.literal(c);
                    quantifiable = true;
                    after_quantifier = false;
                }
                continue;
            }
            // `\Q`, `\E`, extended-mode white space and comments, and `(?#...)`
            // are invisible to quantifiers: `a\Q\E+` is `a+`.
            if c == b'\\' && matches!(self.peek(), Some(b'Q' | b'E')) {
                self.quoting = self.peek() == Some(b'Q');
                self.pos += 1;
                continue;
            }
            if self.mode.extended {
                if is_pattern_space(c) {
                    continue;
                }
                if c == b'#' {
                    match memchr::memchr(b'\n', &self.pat[self.pos..]) {
                        Some(at) => self.pos += at + 1,
                        None => self.pos = self.pat.len(),
                    }
                    continue;
                }
            }
            if c == b'(' && self.peek() == Some(b'?') && self.peek_at(1) == Some(b'#') {
                let close = memchr::memchr(b')', &self.pat[self.pos..]).ok_or(Unsupported)?;
                self.pos += close + 1;
                continue;
            }

            let was_quantifiable = std::mem::replace(&mut quantifiable, false);
            let was_quantifier = std::mem::replace(&mut after_quantifier, false);
            if was_quantifier && matches!(c, b'?' | b'+') {
                if c == b'+' {
                    // Possessive quantifiers need backtracking control.
                    return Err(Unsupported);
                }
                self.out.push('?');
                continue;
            }

            match c {
                b'\\' => quantifiable = self.escape()?,
                b'^' => self.out.push('^'),
                b'$' => self.end_anchor(false),
                b'.' => {
                    self.out.push('.');
                    quantifiable = true;
                }
                b'*' | b'+' | b'?' => {
                    if !was_quantifiable {
                        return Err(Unsupported);
                    }
                    self.out.push(c as char);
                    after_quantifier = true;
                }
                b'{' => match read_repeat_counts(self.pat, self.pos)? {
                    Some((min, max, end)) => {
                        if !was_quantifiable {
                            return Err(Unsupported);
                        }
                        self.pos = end;
                        let _ = match max {
                            Some(max) if max == min => write!(self.out, "{{{min}}}"),
                            Some(max) => write!(self.out, "{{{min},{max}}}"),
                            None => write!(self.out, "{{{min},}}"),
                        };
                        after_quantifier = true;
                    }
                    None => {
                        self.literal(b'{');
                        quantifiable = true;
                    }
                },
                b'[' => quantifiable = self.class()?,
                b'(' => self.open_group()?,
                b'|' => self.out.push('|'),
                b')' => {
                    self.mode = self.saved.pop().ok_or(Unsupported)?;
                    self.out.push(')');
                    quantifiable = true;
                }
                _ => {
                    self.literal(c);
                    quantifiable = true;
                }
            }
        }
        if self.saved.is_empty() {
            Ok(())
        } else {
            Err(Unsupported)
        }
    }

    /// Writes `$` (`in_any_mode == false`) or `\Z`.
    fn end_anchor(&mut self, in_any_mode: bool) {
        self.has_end_anchor = true;
        if self.for_trailing_newline {
            self.out.push_str("(?m:$)");
        } else if in_any_mode {
            self.out.push_str(r"\z");
        } else {
            // Multiline mode (flag `m`) makes the `regex` crate's `$` match
            // before every newline, as PCRE's does.
            self.out.push('$');
        }
    }

    /// An escape outside a class (the `\` is read). Returns whether the
    /// item can take a quantifier.
    fn escape(&mut self) -> Result<bool> {
        let c = self.next()?;
        if !c.is_ascii_alphanumeric() {
            self.literal(c);
            return Ok(true);
        }
        if let Some(byte) = self.data_escape(c, false)? {
            self.literal(byte);
            return Ok(true);
        }
        let text = match c {
            b'd' | b'D' | b's' | b'S' | b'w' | b'W' => {
                self.out.push('\\');
                self.out.push(c as char);
                return Ok(true);
            }
            b'h' => r"[\x09\x20\xA0]",
            b'H' => r"[^\x09\x20\xA0]",
            b'v' => r"[\x0A-\x0D\x85]",
            b'V' => r"[^\x0A-\x0D\x85]",
            b'R' => r"(?:\x0D\x0A|[\x0A-\x0D\x85])",
            b'C' => r"(?s:.)",
            b'N' => {
                if self.peek() == Some(b'{') {
                    // `\N{U+...}` needs UTF mode; otherwise only a quantifier
                    // may follow.
                    if read_repeat_counts(self.pat, self.pos + 1)?.is_none() {
                        return Err(Unsupported);
                    }
                }
                r"[^\x0A]"
            }
            b'b' => r"\b",
            b'B' => r"\B",
            b'A' => r"\A",
            b'z' => r"\z",
            b'Z' => {
                self.end_anchor(true);
                return Ok(false);
            }
            // Back-references (`\1`, `\g`, `\k`), `\G`, `\K`, `\X`, `\p`,
            // `\P` and the letters PCRE does not know.
            _ => return Err(Unsupported),
        };
        self.out.push_str(text);
        Ok(!matches!(c, b'b' | b'B' | b'A' | b'z'))
    }

    /// Reads an escape that stands for one character (`c` is the byte after
    /// the backslash, an ASCII letter or digit): its value, or `None` for an
    /// escape of another kind. In a class, digits are always octal.
    fn data_escape(&mut self, c: u8, in_class: bool) -> Result<Option<u8>> {
        Ok(Some(match c {
            b'a' => 0x07,
            b'e' => 0x1B,
            b'f' => 0x0C,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'0' => self.octal(0)?,
            b'1'..=b'9' => {
                if !in_class {
                    // PCRE reads the whole number: a back-reference if it is
                    // below 10, starts with 8 or 9, or names a group that came
                    // before; else up to three octal digits.
                    let digits = self.pat[self.pos - 1..].iter().take_while(|b| b.is_ascii_digit()).count();
                    let number = std::str::from_utf8(&self.pat[self.pos - 1..self.pos - 1 + digits])
                        .ok()
                        .and_then(|s| s.parse::<u64>().ok());
                    match number {
                        Some(n) if n >= 10 && c < b'8' && n > u64::from(self.captures) => {}
                        _ => return Err(Unsupported),
                    }
                }
                if c >= b'8' {
                    // In a class, `\8` and `\9` are the digits themselves.
                    c
                } else {
                    self.octal(c - b'0')?
                }
            }
            b'o' => {
                if self.next()? != b'{' || self.peek() == Some(b'}') {
                    return Err(Unsupported);
                }
                let mut value: u32 = 0;
                while let Some(d @ b'0'..=b'7') = self.peek() {
                    self.pos += 1;
                    value = value * 8 + u32::from(d - b'0');
                    if value > 0xFF {
                        return Err(Unsupported);
                    }
                }
                if self.next()? != b'}' {
                    return Err(Unsupported);
                }
                value as u8
            }
            b'x' => {
                if self.peek() == Some(b'{') {
                    self.pos += 1;
                    if self.peek().is_none_or(|b| b == b'}') {
                        return Err(Unsupported);
                    }
                    let mut value: u32 = 0;
                    while let Some(d) = self.peek().and_then(hex_value) {
                        self.pos += 1;
                        value = value * 16 + d;
                        if value > 0xFF {
                            return Err(Unsupported);
                        }
                    }
                    if self.next()? != b'}' {
                        return Err(Unsupported);
                    }
                    value as u8
                } else {
                    let mut value: u32 = 0;
                    for _ in 0..2 {
                        match self.peek().and_then(hex_value) {
                            Some(d) => {
                                self.pos += 1;
                                value = value * 16 + d;
                            }
                            None => break,
                        }
                    }
                    value as u8
                }
            }
            b'c' => {
                let next = self.next()?.to_ascii_uppercase();
                if !(32..=126).contains(&next) {
                    return Err(Unsupported);
                }
                next ^ 0x40
            }
            _ => return Ok(None),
        }))
    }

    /// The rest of an octal escape whose first digit is `first`: up to two
    /// more octal digits; more than `\377` is an error.
    fn octal(&mut self, first: u8) -> Result<u8> {
        let mut value = u32::from(first);
        for _ in 0..2 {
            match self.peek() {
                Some(d @ b'0'..=b'7') => {
                    self.pos += 1;
                    value = value * 8 + u32::from(d - b'0');
                }
                _ => break,
            }
        }
        // PCRE rejects values above 0xFF in 8-bit mode.
        u8::try_from(value).map_err(|_| Unsupported)
    }

    /// A group after its `(`.
    fn open_group(&mut self) -> Result<()> {
        let c = self.peek().ok_or(Unsupported)?;
        if c != b'?' {
            if c == b'*' {
                // Verbs such as `(*FAIL)` and `(*UTF)`.
                return Err(Unsupported);
            }
            self.saved.push(self.mode);
            if self.mode.no_auto_capture {
                self.out.push_str("(?:");
            } else {
                self.captures += 1;
                self.out.push('(');
            }
            return Ok(());
        }
        self.pos += 1;
        match self.peek().ok_or(Unsupported)? {
            b'P' => {
                self.pos += 1;
                if self.next()? != b'<' {
                    // `(?P=name)` back-reference, `(?P>name)` recursion.
                    return Err(Unsupported);
                }
                self.named_group(b'>')
            }
            b'<' if !matches!(self.peek_at(1), Some(b'=' | b'!')) => {
                self.pos += 1;
                self.named_group(b'>')
            }
            b'\'' => {
                self.pos += 1;
                self.named_group(b'\'')
            }
            // Look-around, atomic groups, branch reset, recursion,
            // subroutine calls, callouts and conditionals.
            b'<' | b'=' | b'!' | b'>' | b'|' | b'R' | b'&' | b'C' | b'(' | b'+' | b'0'..=b'9' => Err(Unsupported),
            b'-' if self.peek_at(1).is_some_and(|b| b.is_ascii_digit()) => Err(Unsupported),
            _ => self.option_setting(),
        }
    }

    /// `(?<name>`, `(?P<name>` or `(?'name'` (read up to the name).
    fn named_group(&mut self, terminator: u8) -> Result<()> {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            self.pos += 1;
        }
        let name = &self.pat[start..self.pos];
        if name.is_empty() || name.len() > MAX_NAME || name[0].is_ascii_digit() || self.next()? != terminator {
            return Err(Unsupported);
        }
        self.saved.push(self.mode);
        self.captures += 1;
        self.out.push_str("(?P<");
        // Only ASCII letters, digits and `_`.
        self.out.extend(name.iter().map(|&b| b as char));
        self.out.push('>');
        Ok(())
    }

    /// `(?flags)` or `(?flags:` (read up to the flags).
    fn option_setting(&mut self) -> Result<()> {
        let mut mode = self.mode;
        // The flags the `regex` crate handles: i, m, s, U.
        let (mut set, mut unset) = (String::new(), String::new());
        let mut unsetting = false;
        let mut hyphen_ok = true;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            mode = Mode::default();
            unset.push_str("ims");
            hyphen_ok = false;
        }
        loop {
            let c = self.next()?;
            let flag = match c {
                b')' | b':' => {
                    let changes = !set.is_empty() || !unset.is_empty();
                    if c == b')' {
                        self.mode = mode;
                        if changes {
                            write_flags(&mut self.out, &set, &unset, ')');
                        }
                    } else {
                        self.saved.push(self.mode);
                        self.mode = mode;
                        if changes {
                            write_flags(&mut self.out, &set, &unset, ':');
                        } else {
                            self.out.push_str("(?:");
                        }
                    }
                    return Ok(());
                }
                b'-' if hyphen_ok => {
                    unsetting = true;
                    hyphen_ok = false;
                    continue;
                }
                b'i' | b'm' | b's' | b'U' => c as char,
                b'x' => {
                    let more = self.peek() == Some(b'x');
                    if more {
                        self.pos += 1;
                    }
                    if unsetting {
                        mode.extended = false;
                        mode.extended_more = false;
                    } else {
                        mode.extended = true;
                        mode.extended_more = more;
                    }
                    continue;
                }
                b'n' => {
                    mode.no_auto_capture = !unsetting;
                    continue;
                }
                // Duplicate group names are allowed; the `regex` crate still
                // rejects them.
                b'J' => continue,
                _ => return Err(Unsupported),
            };
            let (to, from) = if unsetting { (&mut unset, &mut set) } else { (&mut set, &mut unset) };
            from.retain(|f| f != flag);
            if !to.contains(flag) {
                to.push(flag);
            }
        }
    }

    /// A character class after its `[`. Returns whether it can take a
    /// quantifier (it can, unless it was PCRE's `[[:<:]]` or `[[:>:]]`).
    fn class(&mut self) -> Result<bool> {
        let rest = &self.pat[self.pos..];
        if rest.starts_with(b"[:<:]]") || rest.starts_with(b"[:>:]]") {
            self.out.push_str(if rest[2] == b'<' { r"\b{start}" } else { r"\b{end}" });
            self.pos += 6;
            return Ok(false);
        }
        if matches!(self.peek(), Some(b':' | b'.' | b'=')) && posix_end(self.pat, self.pos).is_some() {
            // A POSIX class outside a class: `[:alpha:]`.
            return Err(Unsupported);
        }

        // Leading `\E`, `\Q\E` (and spaces and tabs in `xx` mode) are
        // skipped, and one `^` negates.
        let mut negated = false;
        let mut c;
        loop {
            c = self.next()?;
            if c == b'\\' {
                if self.peek() == Some(b'E') {
                    self.pos += 1;
                    continue;
                }
                if self.pat[self.pos..].starts_with(b"Q\\E") {
                    self.pos += 3;
                    continue;
                }
                break;
            } else if self.mode.extended_more && (c == b' ' || c == b'\t') {
                continue;
            } else if !negated && c == b'^' {
                negated = true;
                continue;
            }
            break;
        }

        // The first character is taken literally even if it is `]`.
        let mut items: Vec<ClassItem> = Vec::new();
        let mut state = RangeState::No;
        loop {
            let mut item_char = None;
            if self.quoting {
                if c == b'\\' && self.peek() == Some(b'E') {
                    self.quoting = false;
                    self.pos += 1;
                } else {
                    item_char = Some(c);
                }
            } else if self.mode.extended_more && (c == b' ' || c == b'\t') {
                // Skipped.
            } else if c == b'['
                && self.pat.len() - self.pos >= 3
                && matches!(self.peek(), Some(b':' | b'.' | b'='))
                && posix_end(self.pat, self.pos).is_some()
            {
                let end = posix_end(self.pat, self.pos).ok_or(Unsupported)?;
                if state == RangeState::Started || self.peek() != Some(b':') {
                    return Err(Unsupported);
                }
                self.pos += 1;
                let negate = self.peek() == Some(b'^');
                if negate {
                    self.pos += 1;
                }
                let name = &self.pat[self.pos..end];
                let set = posix_class(name, negate).ok_or(Unsupported)?;
                self.pos = end + 2;
                if self.hyphen_not_ending_class() {
                    return Err(Unsupported);
                }
                state = RangeState::No;
                items.push(ClassItem::Set(set));
            } else if c == b'-' && state >= RangeState::Ok {
                items.push(ClassItem::Hyphen);
                state = RangeState::Started;
            } else if c != b'\\' {
                item_char = Some(c);
            } else {
                let e = self.next()?;
                if !e.is_ascii_alphanumeric() {
                    item_char = Some(e);
                } else if let Some(byte) = self.data_escape(e, true)? {
                    item_char = Some(byte);
                } else {
                    match e {
                        b'b' => item_char = Some(0x08),
                        b'g' => item_char = Some(b'g'),
                        b'Q' => self.quoting = true,
                        b'E' => {}
                        _ => {
                            if state == RangeState::Started {
                                return Err(Unsupported);
                            }
                            state = RangeState::No;
                            let set = match e {
                                b'd' => r"\d",
                                b'D' => r"\D",
                                b's' => r"\s",
                                b'S' => r"\S",
                                b'w' => r"\w",
                                b'W' => r"\W",
                                b'h' => r"\x09\x20\xA0",
                                b'H' => r"[^\x09\x20\xA0]",
                                b'v' => r"\x0A-\x0D\x85",
                                b'V' => r"[^\x0A-\x0D\x85]",
                                // `\N`, `\p`, `\P`, assertions and unknown letters.
                                _ => return Err(Unsupported),
                            };
                            if self.hyphen_not_ending_class() {
                                return Err(Unsupported);
                            }
                            items.push(ClassItem::Set(set));
                        }
                    }
                }
            }
            if let Some(ch) = item_char {
                if state == RangeState::Started {
                    // The items end with the start character and a hyphen.
                    items.pop();
                    let Some(ClassItem::Byte(start)) = items.pop() else {
                        return Err(Unsupported);
                    };
                    if start > ch {
                        return Err(Unsupported);
                    }
                    items.push(if start == ch { ClassItem::Byte(ch) } else { ClassItem::Range(start, ch) });
                    state = RangeState::No;
                } else {
                    items.push(ClassItem::Byte(ch));
                    state = RangeState::Ok;
                }
            }
            c = self.next()?;
            if c == b']' && !self.quoting {
                break;
            }
        }

        self.out.push('[');
        if negated {
            self.out.push('^');
        }
        for item in &items {
            match *item {
                ClassItem::Byte(b) => push_byte(&mut self.out, b),
                ClassItem::Hyphen => push_hex(&mut self.out, b'-'),
                ClassItem::Range(a, b) => {
                    push_byte(&mut self.out, a);
                    self.out.push('-');
                    push_byte(&mut self.out, b);
                }
                ClassItem::Set(set) => self.out.push_str(set),
            }
        }
        self.out.push(']');
        Ok(true)
    }

    /// After a class escape or POSIX class, a `-` that does not end the
    /// class is an error in PCRE (it cannot start a range).
    fn hyphen_not_ending_class(&self) -> bool {
        self.pos + 1 < self.pat.len() && self.pat[self.pos] == b'-' && self.pat[self.pos + 1] != b']'
    }
}

/// PCRE's `check_posix_syntax`: `pat[at]` is `:`, `.` or `=` after a `[`;
/// if a POSIX-class-like item follows, the index of its closing `:` (or
/// `.`, `=`), which is followed by `]`.
fn posix_end(pat: &[u8], at: usize) -> Option<usize> {
    let terminator = pat[at];
    let mut p = at + 1;
    while p + 2 <= pat.len() {
        if pat[p] == b'\\' && matches!(pat[p + 1], b']' | b'\\') {
            p += 1;
        } else if (pat[p] == b'[' && pat[p + 1] == terminator) || pat[p] == b']' {
            return None;
        } else if pat[p] == terminator && pat[p + 1] == b']' {
            return Some(p);
        }
        p += 1;
    }
    None
}

/// A POSIX class in `regex` class syntax.
fn posix_class(name: &[u8], negated: bool) -> Option<&'static str> {
    const PLAIN: [&str; 14] = [
        "[:alpha:]",
        "[:lower:]",
        "[:upper:]",
        "[:alnum:]",
        "[:ascii:]",
        "[:blank:]",
        "[:cntrl:]",
        "[:digit:]",
        "[:graph:]",
        "[:print:]",
        "[:punct:]",
        "[:space:]",
        "[:word:]",
        "[:xdigit:]",
    ];
    const NEGATED: [&str; 14] = [
        "[:^alpha:]",
        "[:^lower:]",
        "[:^upper:]",
        "[:^alnum:]",
        "[:^ascii:]",
        "[:^blank:]",
        "[:^cntrl:]",
        "[:^digit:]",
        "[:^graph:]",
        "[:^print:]",
        "[:^punct:]",
        "[:^space:]",
        "[:^word:]",
        "[:^xdigit:]",
    ];
    let index = POSIX_NAMES.iter().position(|&n| n == name)?;
    Some(if negated { NEGATED[index] } else { PLAIN[index] })
}

/// PCRE's `read_repeat_counts` at `pat[at..]` (just after a `{`): the
/// minimum, the maximum (`None`: unbounded) and the index after the `}`;
/// `None` when the text is not a quantifier (then `{` is a literal); an
/// error for a number above 65535 or a maximum below the minimum.
fn read_repeat_counts(pat: &[u8], at: usize) -> Result<Option<(u32, Option<u32>, usize)>> {
    let Some((min, mut p)) = read_number(pat, at)? else {
        return Ok(None);
    };
    match pat.get(p) {
        Some(b'}') => Ok(Some((min, Some(min), p + 1))),
        Some(b',') => {
            p += 1;
            match pat.get(p) {
                None => Ok(None),
                Some(b'}') => Ok(Some((min, None, p + 1))),
                Some(_) => {
                    let Some((max, q)) = read_number(pat, p)? else {
                        return Ok(None);
                    };
                    if pat.get(q) != Some(&b'}') {
                        return Ok(None);
                    }
                    if max < min {
                        return Err(Unsupported);
                    }
                    Ok(Some((min, Some(max), q + 1)))
                }
            }
        }
        _ => Ok(None),
    }
}

/// A decimal repeat count at `pat[at..]` and the index after it; `None`
/// without digits; an error above 65535.
fn read_number(pat: &[u8], at: usize) -> Result<Option<(u32, usize)>> {
    let mut value: u32 = 0;
    let mut p = at;
    while let Some(d @ b'0'..=b'9') = pat.get(p) {
        value = value * 10 + u32::from(d - b'0');
        if value > MAX_REPEAT {
            return Err(Unsupported);
        }
        p += 1;
    }
    Ok((p > at).then_some((value, p)))
}

/// White space in PCRE's extended mode: C's `isspace` and NEL (0x85).
fn is_pattern_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | 0x85)
}

fn hex_value(b: u8) -> Option<u32> {
    (b as char).to_digit(16)
}

/// Writes a literal byte: ASCII letters and digits as themselves, anything
/// else as `\xHH`.
fn push_byte(out: &mut String, b: u8) {
    if b.is_ascii_alphanumeric() {
        out.push(b as char);
    } else {
        push_hex(out, b);
    }
}

fn push_hex(out: &mut String, b: u8) {
    let _ = write!(out, "\\x{b:02X}");
}

/// `(?set-unset)` or `(?set-unset:`.
fn write_flags(out: &mut String, set: &str, unset: &str, end: char) {
    out.push_str("(?");
    out.push_str(set);
    if !unset.is_empty() {
        out.push('-');
        out.push_str(unset);
    }
    out.push(end);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tr(pattern: &str) -> Option<String> {
        translate(pattern.as_bytes(), false, false).ok().map(|t| t.pattern)
    }

    fn tr_x(pattern: &str) -> Option<String> {
        translate(pattern.as_bytes(), true, false).ok().map(|t| t.pattern)
    }

    #[test]
    fn literals_are_escaped() {
        assert_eq!(tr("ab-c").as_deref(), Some(r"ab\x2Dc"));
        assert_eq!(tr("é").as_deref(), Some(r"\xC3\xA9"));
        assert_eq!(tr(r"\<\Q.*\E").as_deref(), Some(r"\x3C\x2E\x2A"));
        assert_eq!(tr("x{,3}").as_deref(), Some(r"x\x7B\x2C3\x7D"));
    }

    #[test]
    fn escapes() {
        assert_eq!(tr(r"\x41\x{42}\x4\101\0\cA\e").as_deref(), Some(r"AB\x04A\x00\x01\x1B"));
        assert_eq!(tr(r"\12").as_deref(), Some(r"\x0A"));
        assert_eq!(tr(r"\400"), None);
        assert_eq!(tr(r"\x{100}"), None);
        assert_eq!(tr(r"\o{101}").as_deref(), Some("A"));
        assert_eq!(tr(r"\y"), None);
        assert_eq!(tr("a\\"), None);
    }

    #[test]
    fn back_references_and_look_around_are_unsupported() {
        for pattern in [r"(a)\1", r"(a)\g{1}", r"\k<a>", "(?=a)", "(?!a)", "(?<=a)", "(?<!a)", "(?>a)", "a*+", "(?|a)"]
        {
            assert_eq!(tr(pattern), None, "{pattern}");
        }
    }

    #[test]
    fn quantifiers() {
        assert_eq!(tr("a{2}b{2,}c{2,3}d+?").as_deref(), Some("a{2}b{2,}c{2,3}d+?"));
        for pattern in ["*", "a**", "a{2}{3}", "^*", "a|*", "a{3,2}", "a{65536}", "a+?+"] {
            assert_eq!(tr(pattern), None, "{pattern}");
        }
        assert_eq!(tr(r"a\Q\E*").as_deref(), Some("a*"));
        assert_eq!(tr("a(?#c)*").as_deref(), Some("a*"));
    }

    #[test]
    fn classes() {
        assert_eq!(tr("[a-c-e]").as_deref(), Some(r"[a-c\x2De]"));
        assert_eq!(tr("[]a]").as_deref(), Some(r"[\x5Da]"));
        assert_eq!(tr("[^]a]").as_deref(), Some(r"[^\x5Da]"));
        assert_eq!(tr(r"[\d-]").as_deref(), Some(r"[\d\x2D]"));
        assert_eq!(tr("[[:alpha:][:^digit:]]").as_deref(), Some("[[:alpha:][:^digit:]]"));
        assert_eq!(tr(r"[\Qa-c\E]").as_deref(), Some(r"[a\x2Dc]"));
        for pattern in ["[]", "[a", r"[\d-z]", "[a-\\d]", "[z-a]", "[:alpha:]", "[[:foo:]]", "[[.a.]]", r"[\E]"] {
            assert_eq!(tr(pattern), None, "{pattern}");
        }
        assert_eq!(tr("[[:<:]]a[[:>:]]").as_deref(), Some(r"\b{start}a\b{end}"));
    }

    #[test]
    fn extended_mode() {
        assert_eq!(tr_x("a b # c\nd").as_deref(), Some("abd"));
        assert_eq!(tr_x("[ ]").as_deref(), Some(r"[\x20]"));
        assert_eq!(tr("(?x) a (?-x) b").as_deref(), Some(r"a\x20b"));
        assert_eq!(tr("(?xx)[ a]").as_deref(), Some("[a]"));
        assert_eq!(tr("((?x) b) c").as_deref(), Some(r"(b)\x20c"));
    }

    #[test]
    fn groups_and_flags() {
        assert_eq!(tr("(?i)a(?-i:b)(?ims-U)").as_deref(), Some("(?i)a(?-i:b)(?ims-U)"));
        assert_eq!(tr("(?x)(?:a)(?^)").as_deref(), Some("(?:a)(?-ims)"));
        assert_eq!(tr("(?<n>a)(?P<m>b)(?'o'c)").as_deref(), Some("(?P<n>a)(?P<m>b)(?P<o>c)"));
        assert_eq!(tr("(?n)(a)(?<x>b)").as_deref(), Some("(?:a)(?P<x>b)"));
        assert_eq!(tr("(?i-i)(?ii)").as_deref(), Some("(?-i)(?i)"));
        for pattern in ["(?", "(a", "a)", "(?^-i)", "(?u)", "(*FAIL)", "(?<1a>x)", "(?R)", "(?1)"] {
            assert_eq!(tr(pattern), None, "{pattern}");
        }
    }

    #[test]
    fn end_anchors() {
        let t = translate(br"a$\Z", false, false).unwrap();
        assert_eq!((t.pattern.as_str(), t.has_end_anchor), (r"a$\z", true));
        let t = translate(br"a$\Z", false, true).unwrap();
        assert_eq!(t.pattern, "a(?m:$)(?m:$)");
        assert!(!translate(b"a", false, false).unwrap().has_end_anchor);
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = "(".repeat(300) + &")".repeat(300);
        assert_eq!(tr(&deep), None);
        let fine = "(".repeat(200) + &")".repeat(200);
        assert!(tr(&fine).is_some());
    }
}
