//! The statements of a transform and how each line is read.
//!
//! A line is a variable assignment (`NAME = value`, or `NAME @=tag` ...
//! `@tag` over several lines), a conditional (`if`, `elif`, `else`,
//! `endif`), or a command: a keyword, its first argument (an attribute
//! name, or `/regex/` for `COPY`, `RENAME` and `DELETE`), and the rest of
//! the line, which is macro-expanded when the command runs.

use super::error::TransformError;

/// A transform command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keyword {
    Copy,
    Default,
    Delete,
    EvalMacro,
    EvalSet,
    Name,
    Rename,
    Requirements,
    Set,
    Transform,
    Universe,
}

impl Keyword {
    fn lookup(word: &str) -> Option<Keyword> {
        const TABLE: [(&str, Keyword); 11] = [
            ("COPY", Keyword::Copy),
            ("DEFAULT", Keyword::Default),
            ("DELETE", Keyword::Delete),
            ("EVALMACRO", Keyword::EvalMacro),
            ("EVALSET", Keyword::EvalSet),
            ("NAME", Keyword::Name),
            ("RENAME", Keyword::Rename),
            ("REQUIREMENTS", Keyword::Requirements),
            ("SET", Keyword::Set),
            ("TRANSFORM", Keyword::Transform),
            ("UNIVERSE", Keyword::Universe),
        ];
        TABLE.iter().find(|(w, _)| w.eq_ignore_ascii_case(word)).map(|(_, k)| *k)
    }

    pub(crate) fn word(self) -> &'static str {
        match self {
            Keyword::Copy => "COPY",
            Keyword::Default => "DEFAULT",
            Keyword::Delete => "DELETE",
            Keyword::EvalMacro => "EVALMACRO",
            Keyword::EvalSet => "EVALSET",
            Keyword::Name => "NAME",
            Keyword::Rename => "RENAME",
            Keyword::Requirements => "REQUIREMENTS",
            Keyword::Set => "SET",
            Keyword::Transform => "TRANSFORM",
            Keyword::Universe => "UNIVERSE",
        }
    }

    /// How many arguments the command takes (0: the rest of the line).
    fn arguments(self) -> usize {
        match self {
            Keyword::Copy
            | Keyword::Default
            | Keyword::EvalMacro
            | Keyword::EvalSet
            | Keyword::Rename
            | Keyword::Set => 2,
            Keyword::Delete | Keyword::Universe => 1,
            Keyword::Name | Keyword::Requirements | Keyword::Transform => 0,
        }
    }

    fn takes_regex(self) -> bool {
        matches!(self, Keyword::Copy | Keyword::Rename | Keyword::Delete)
    }
}

/// The first argument of a command.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// An attribute (or variable) name, as written.
    Name(String),
    /// `/regex/flags`: matched against attribute names, ignoring case.
    Regex(NameRegex),
}

/// One statement.
#[derive(Debug, Clone)]
pub(crate) enum Stmt {
    /// `NAME = value`: sets a variable.
    Assign { name: String, value: String },
    /// `if condition`.
    If(String),
    /// `elif condition`.
    Elif(String),
    /// `else`.
    Else,
    /// `endif`.
    Endif,
    /// A command; `rest` is the unexpanded text after the first argument
    /// (and after an `=` or `,` between the arguments) for two-argument
    /// commands, or from the first argument on for the others; `None` when
    /// the line ends after the keyword (allowed for `TRANSFORM` only).
    Command { keyword: Keyword, target: Option<Target>, rest: Option<String> },
    /// A line that does not read (an unknown keyword, a command without its
    /// arguments, a regex without its closing `/`): an error when it is
    /// reached, as in HTCondor (a line in an `if` branch not taken is never
    /// read).
    Invalid(String),
    /// A line HTCondor reads and leaves out with a message when it is
    /// reached: a `/regex/` that does not compile ("this entry will be
    /// ignored"); the rest of the transform runs.
    Ignored(String),
}

/// A meta statement (`NAME`, `REQUIREMENTS`, `UNIVERSE`, `TRANSFORM`
/// followed by white space and arguments): the keyword and its arguments.
pub(crate) fn meta_statement(line: &str) -> Option<(Keyword, &str)> {
    let line = line.trim_start();
    for keyword in [Keyword::Name, Keyword::Requirements, Keyword::Universe, Keyword::Transform] {
        let word = keyword.word();
        let Some(head) = line.get(..word.len()) else { continue };
        if !head.eq_ignore_ascii_case(word) {
            continue;
        }
        let rest = &line[word.len()..];
        if !rest.starts_with(|c: char| c.is_ascii_whitespace()) {
            continue;
        }
        let args = rest.trim_start();
        if args.starts_with(['=', ':']) {
            return None;
        }
        return Some((keyword, args));
    }
    None
}

/// If `line` starts a multi-line value (`NAME @=tag`), its name and tag.
pub(crate) fn here_start(line: &str) -> Option<(&str, &str)> {
    let (name, rest) = line.split_once(|c: char| c.is_ascii_whitespace() || c == '@')?;
    let rest = if line.as_bytes().get(name.len()) == Some(&b'@') { &line[name.len()..] } else { rest.trim_start() };
    let tag = rest.strip_prefix("@=")?;
    if name.is_empty() || tag.is_empty() || tag.starts_with(char::is_whitespace) {
        return None;
    }
    Some((name, tag.trim_end()))
}

/// Whether `name` is a valid attribute name: a letter or `_`, then
/// letters, digits and `_`.
pub(crate) fn is_valid_attr_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Reads one (trimmed, non-empty, non-comment) line into a statement.
pub(crate) fn parse_line(line: &str, source: &str, number: u32) -> Result<Stmt, TransformError> {
    let err = |message: String| TransformError::syntax(source, number, message);
    let first_end = line.find(|c: char| c.is_ascii_whitespace() || c == '=').unwrap_or(line.len());
    let first = &line[..first_end];
    let after = line[first_end..].trim_start();
    // `queue` is a statement of the submit language HTCondor reads
    // transforms with, never a variable.
    if !first.is_empty() && after.starts_with('=') && !first.eq_ignore_ascii_case("queue") {
        return Ok(Stmt::Assign { name: first.to_string(), value: after[1..].trim().to_string() });
    }
    let word_end = line.find(|c: char| c.is_ascii_whitespace()).unwrap_or(line.len());
    let word = &line[..word_end];
    let rest = line[word_end..].trim();
    match word.to_ascii_lowercase().as_str() {
        "if" => return Ok(Stmt::If(rest.to_string())),
        "elif" => return Ok(Stmt::Elif(rest.to_string())),
        "else" if rest.is_empty() => return Ok(Stmt::Else),
        "endif" if rest.is_empty() => return Ok(Stmt::Endif),
        "include" | "use" => {
            return Err(err(format!("'{word}' statements may not be used in a transform")));
        }
        _ => {}
    }
    let keyword = Keyword::lookup(word).ok_or_else(|| err(format!("{word} is not a valid transform keyword")))?;
    let mut pos = skip_space(line, word_end);
    if pos >= line.len() {
        if keyword == Keyword::Transform {
            return Ok(Stmt::Command { keyword, target: None, rest: None });
        }
        return Err(err(format!("{} needs {}", keyword.word(), argument_count(keyword))));
    }
    let first_arg = pos;
    let target = if keyword.takes_regex() && line[pos..].starts_with('/') {
        let (regex, end) = read_regex(&line[pos..]).map_err(err)?;
        pos += end;
        match regex {
            Ok(regex) => Target::Regex(regex),
            Err(message) => return Ok(Stmt::Ignored(format!("{message}; this entry will be ignored"))),
        }
    } else {
        let end = token_end(line, pos);
        let mut name = &line[pos..end];
        if let Some(stripped) = name.strip_suffix([',', '=']) {
            name = stripped;
        }
        pos = end;
        Target::Name(name.to_string())
    };
    let rest = if keyword.arguments() == 2 {
        pos = skip_space(line, pos);
        if pos >= line.len() {
            return Err(err(format!("{} needs 2 arguments", keyword.word())));
        }
        let end = token_end(line, pos);
        if matches!(&line[pos..end], "=" | ",") {
            pos = skip_space(line, end);
            if pos >= line.len() {
                return Err(err(format!("{} needs 2 arguments", keyword.word())));
            }
        }
        line[pos..].to_string()
    } else {
        line[first_arg..].to_string()
    };
    Ok(Stmt::Command { keyword, target: Some(target), rest: Some(rest) })
}

fn argument_count(keyword: Keyword) -> &'static str {
    match keyword.arguments() {
        2 => "2 arguments",
        _ => "an argument",
    }
}

fn skip_space(line: &str, pos: usize) -> usize {
    line[pos..].find(|c: char| !c.is_ascii_whitespace()).map_or(line.len(), |i| pos + i)
}

/// The end of the token at `pos`: a quoted string runs to its closing
/// quote, anything else to white space.
fn token_end(line: &str, pos: usize) -> usize {
    let bytes = line.as_bytes();
    if bytes[pos] == b'"' {
        let mut i = pos + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => return i + 1,
                _ => i += 1,
            }
        }
        return bytes.len();
    }
    line[pos..].find(|c: char| c.is_ascii_whitespace()).map_or(line.len(), |i| pos + i)
}

/// A `/regex/` of `COPY`, `RENAME` or `DELETE`: the `regex` crate's
/// engine, or, for what only a backtracking engine does (back-references,
/// look-around), `fancy-regex`'s, as HTCondor's PCRE2 accepts those too.
#[derive(Debug, Clone)]
pub(crate) enum NameRegex {
    /// Without backtracking-only constructs.
    Plain(regex::Regex),
    /// With back-references or look-around.
    Backtracking(fancy_regex::Regex),
}

impl NameRegex {
    /// The pattern as written (with the flags the reader added).
    #[cfg(test)]
    fn as_str(&self) -> &str {
        match self {
            NameRegex::Plain(r) => r.as_str(),
            NameRegex::Backtracking(r) => r.as_str(),
        }
    }

    /// The groups of the first match in `name` (group 0, the whole match,
    /// first; `None` for a group that took no part), or `None` when it does
    /// not match (or a backtracking match gives up at its limit).
    pub(crate) fn captures<'n>(&self, name: &'n str) -> Option<Vec<Option<&'n str>>> {
        match self {
            NameRegex::Plain(r) => r.captures(name).map(|c| c.iter().map(|m| m.map(|m| m.as_str())).collect()),
            NameRegex::Backtracking(r) => {
                r.captures(name).ok().flatten().map(|c| c.iter().map(|m| m.map(|m| m.as_str())).collect())
            }
        }
    }
}

/// Reads `/pattern/flags` at the start of `text`: the regex (always
/// ignoring case; `U` swaps greediness, `m` is multi-line mode), or why it
/// does not compile, and where it ends.
fn read_regex(text: &str) -> Result<(Result<NameRegex, String>, usize), String> {
    let bytes = text.as_bytes();
    let mut i = 1;
    let mut pattern = String::new();
    loop {
        match bytes.get(i) {
            None => return Err(format!("invalid regex {text}: no closing /")),
            Some(b'\\') if bytes.get(i + 1) == Some(&b'/') => {
                pattern.push('/');
                i += 2;
            }
            Some(b'/') => break,
            Some(_) => {
                let c = text[i..].chars().next().unwrap_or('/');
                pattern.push(c);
                i += c.len_utf8();
            }
        }
    }
    i += 1;
    let (mut swap_greed, mut multi_line) = (false, false);
    while let Some(&c) = bytes.get(i) {
        match c {
            b'i' | b'g' => {}
            b'U' => swap_greed = true,
            b'm' => multi_line = true,
            _ if c.is_ascii_whitespace() => break,
            _ => {
                let flag = text[i..].chars().next().unwrap_or('?');
                return Err(format!("invalid regex flag '{flag}' in {}", &text[..i]));
            }
        }
        i += 1;
    }
    let plain = regex::RegexBuilder::new(&pattern)
        .case_insensitive(true)
        .swap_greed(swap_greed)
        .multi_line(multi_line)
        .size_limit(1 << 20)
        .build();
    let regex = match plain {
        Ok(r) => Ok(NameRegex::Plain(r)),
        Err(e) => {
            // The same flags, written into the pattern for the backtracking engine.
            let flags = format!("(?i{}{})", if multi_line { "m" } else { "" }, if swap_greed { "U" } else { "" });
            fancy_regex::RegexBuilder::new(&format!("{flags}{pattern}"))
                .backtrack_limit(100_000)
                .build()
                .map(NameRegex::Backtracking)
                .map_err(|_| format!("error compiling regex /{pattern}/: {e}"))
        }
    };
    Ok((regex, i))
}

/// Substitutes `\0` ... `\9` in `template` with the groups of a match
/// (`\N` for a group the regex does not have is left as written).
pub(crate) fn substitute(template: &str, groups: &[Option<&str>]) -> String {
    let mut out = String::with_capacity(template.len());
    let bytes = template.as_bytes();
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit() {
            let n = usize::from(bytes[i + 1] - b'0');
            if n < groups.len() {
                out.push_str(&template[last..i]);
                out.push_str(groups[n].unwrap_or(""));
                i += 2;
                last = i;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&template[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(line: &str) -> (Keyword, String, Option<String>) {
        match parse_line(line, "t", 1).expect("parses") {
            Stmt::Command { keyword, target, rest } => {
                let t = match target {
                    Some(Target::Name(n)) => n,
                    Some(Target::Regex(r)) => format!("/{}/", r.as_str()),
                    None => String::new(),
                };
                (keyword, t, rest)
            }
            other => panic!("not a command: {other:?}"),
        }
    }

    #[test]
    fn commands_and_their_arguments() {
        assert_eq!(cmd("SET A 1 + 2"), (Keyword::Set, "A".into(), Some("1 + 2".into())));
        assert_eq!(cmd("set A = 2"), (Keyword::Set, "A".into(), Some("2".into())));
        assert_eq!(cmd("SET A= 2"), (Keyword::Set, "A".into(), Some("2".into())));
        assert_eq!(cmd(r#"SET S "a b""#), (Keyword::Set, "S".into(), Some(r#""a b""#.into())));
        assert_eq!(cmd("DELETE Foo"), (Keyword::Delete, "Foo".into(), Some("Foo".into())));
        assert_eq!(cmd(r"COPY /^a(.*)\/x/i B\1"), (Keyword::Copy, "/^a(.*)/x/".into(), Some(r"B\1".into())));
        assert_eq!(cmd("TRANSFORM"), (Keyword::Transform, String::new(), None));
    }

    #[test]
    fn assignments_conditionals_and_errors() {
        assert!(
            matches!(parse_line("X = a b", "t", 1), Ok(Stmt::Assign { ref name, ref value }) if name == "X" && value == "a b")
        );
        assert!(matches!(parse_line("X=", "t", 1), Ok(Stmt::Assign { ref value, .. }) if value.is_empty()));
        assert!(matches!(parse_line("if defined MY.A", "t", 1), Ok(Stmt::If(ref c)) if c == "defined MY.A"));
        let e = parse_line("SET A", "rules", 7).unwrap_err().to_string();
        assert_eq!(e, "rules, line 7: SET needs 2 arguments");
        assert!(parse_line("DELETE", "t", 1).is_err());
        // A regex that does not compile is left out when reached, as HTCondor does.
        assert!(matches!(parse_line("COPY /a(/ b", "t", 1), Ok(Stmt::Ignored(ref m)) if m.contains("will be ignored")));
        assert!(parse_line("COPY /a b", "t", 1).unwrap_err().to_string().contains("no closing /"));
        assert!(parse_line("include : x", "t", 1).is_err());
        let e = parse_line("Queue = long", "t", 1).unwrap_err().to_string();
        assert_eq!(e, "t, line 1: Queue is not a valid transform keyword");
    }

    #[test]
    fn meta_statements_and_here_values() {
        assert_eq!(meta_statement("  REQUIREMENTS x > 1"), Some((Keyword::Requirements, "x > 1")));
        assert_eq!(meta_statement("name = 3"), None);
        assert_eq!(meta_statement("TRANSFORM"), None);
        assert_eq!(here_start("X @=end"), Some(("X", "end")));
        assert_eq!(here_start("X@=end"), Some(("X", "end")));
        assert_eq!(here_start("X = @=end"), None);
    }

    #[test]
    fn regex_substitution() {
        let (re, _) = read_regex("/(Req)uest(.*)/").unwrap();
        let re = re.unwrap();
        let groups = re.captures("RequestMemory").unwrap();
        assert_eq!(substitute(r"\2\1 \0 \7", &groups), r"MemoryReq RequestMemory \7");
        // Back-references and look-around, as PCRE2 reads them in HTCondor.
        let (re, _) = read_regex(r"/^(U)ndef\1?/").unwrap();
        let re = re.unwrap();
        assert!(matches!(re, NameRegex::Backtracking(_)) && re.captures("undefattr").is_some());
        let (re, _) = read_regex("/^(Req)uest(?=Cpus)/").unwrap();
        let re = re.unwrap();
        assert!(re.captures("RequestCpus").is_some() && re.captures("RequestMemory").is_none());
        assert!(is_valid_attr_name("_a1") && !is_valid_attr_name("1a") && !is_valid_attr_name("a b"));
    }
}
