//! One transform: its name, requirements, statements and iteration.

use classad::{ClassAd, EvalContext, Expr, ParseLimits, Parser, Syntax, Value};

use super::error::TransformError;
use super::iterate::Iteration;
use super::macros::{evaluate_expr, leading_expr, strip_prefix_ci, Expander, Macros};
use super::statements::{self, here_start, is_valid_attr_name, meta_statement, Keyword, Stmt, Target};
use crate::config::conditional::{crufty_bool, looks_numeric, strip_word, version};
use crate::config::Config;

/// A transform in HTCondor's transform language, ready to apply to job
/// ads.
///
/// ```
/// use matchmaker::schedd::{Macros, Transform};
/// let rules = "REQUIREMENTS Owner == \"alice\"\n\
///              Mem = 2048\n\
///              SET RequestMemory $(Mem)\n\
///              COPY /^Foo(.*)/ Bar\\1\n";
/// let t = Transform::parse("mem", rules, "mem.xform")?;
/// let mut job: classad::ClassAd = r#"[ Owner = "alice"; FooX = 1 ]"#.parse()?;
/// assert!(t.matches(&job));
/// let log = t.apply(&mut job, &mut Macros::new(), None)?;
/// assert!(log.is_empty());
/// assert_eq!(job.to_string(), r#"[ Owner = "alice"; FooX = 1; RequestMemory = 2048; BarX = 1 ]"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Transform {
    name: String,
    source: String,
    requirements: Option<(String, Expr)>,
    universe: Option<String>,
    statements: Vec<(u32, Stmt)>,
    iteration: Option<Iteration>,
    origin: Origin,
}

/// How a text is being read: from a rules file (a `TRANSFORM` statement
/// ends it and may be followed by its items) or a configuration value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    File,
    Config,
}

impl Transform {
    /// Reads a transform from its text; `source` names it in errors (a
    /// file, or `JOB_TRANSFORM_<name>`). A `REQUIREMENTS` expression that
    /// does not parse, a multi-line value without its end and a bad
    /// `TRANSFORM` statement are errors here; other lines that do not read
    /// are errors when they are reached (see [`validate`](Self::validate)).
    ///
    /// `NAME`, `REQUIREMENTS`, `UNIVERSE` and `TRANSFORM` statements are
    /// taken out wherever they are (the last of each wins); reading stops
    /// at `TRANSFORM`, and in a file the lines after `TRANSFORM ... from (`
    /// up to `)` are its items.
    pub fn parse(name: &str, text: &str, source: &str) -> Result<Transform, TransformError> {
        Transform::read(name, text, source, Origin::File)
    }

    pub(crate) fn read(name: &str, text: &str, source: &str, origin: Origin) -> Result<Transform, TransformError> {
        let mut t = Transform {
            name: name.to_string(),
            source: source.to_string(),
            requirements: None,
            universe: None,
            statements: Vec::new(),
            iteration: None,
            origin,
        };
        let lines = logical_lines(text);
        let mut i = 0;
        while i < lines.len() {
            let (number, ref line) = lines[i];
            i += 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some((var, tag)) = here_start(line) {
                let end = format!("@{tag}");
                let mut value = Vec::new();
                loop {
                    let Some((_, l)) = lines.get(i) else {
                        return Err(TransformError::syntax(source, number, format!("{var} @={tag}: no closing {end}")));
                    };
                    i += 1;
                    if l.trim() == end {
                        break;
                    }
                    value.push(l.as_str());
                }
                t.statements.push((number, Stmt::Assign { name: var.to_string(), value: value.join("\n") }));
                continue;
            }
            if let Some((keyword, args)) = meta_statement(line) {
                match keyword {
                    Keyword::Name => {
                        // A rules file's NAME replaces its path; a configuration
                        // value's keeps the name it is listed under.
                        let given = args.trim();
                        if (origin == Origin::File && !given.is_empty()) || t.name.is_empty() {
                            t.name = given.to_string();
                        }
                    }
                    Keyword::Requirements => {
                        let expr =
                            Parser::new(ParseLimits::default()).syntax(Syntax::Old).parse_expr(args).map_err(|e| {
                                TransformError::syntax(source, number, format!("invalid REQUIREMENTS : {args} ({e})"))
                            })?;
                        t.requirements = Some((args.to_string(), expr));
                    }
                    Keyword::Universe => t.universe = Some(args.trim().to_string()),
                    _ => {
                        if is_trivial_iteration(args) {
                            if origin == Origin::Config {
                                break;
                            }
                        } else {
                            let rest: Vec<&str> = match origin {
                                Origin::File => lines[i..].iter().map(|(_, l)| l.as_str()).collect(),
                                Origin::Config => Vec::new(),
                            };
                            let mut it =
                                Iteration::parse(args, &rest).map_err(|m| TransformError::syntax(source, number, m))?;
                            it.line = number;
                            t.iteration = Some(it);
                        }
                        break;
                    }
                }
                continue;
            }
            let stmt = match statements::parse_line(line, source, number) {
                Ok(stmt) => stmt,
                Err(TransformError::Syntax { message, .. }) => Stmt::Invalid(message),
                Err(e) => return Err(e),
            };
            t.statements.push((number, stmt));
        }
        Ok(t)
    }

    /// Checks every statement, as `condor_transform_ads` does when it
    /// loads a rules file: the first line that does not read (an unknown
    /// keyword, a command without its arguments, a bad regex). Such a line
    /// is only an error for [`apply`](Self::apply) when it is reached.
    ///
    /// ```
    /// use matchmaker::schedd::{Macros, Transform};
    /// let t = Transform::parse("t", "if false\n  FROB X\nendif\nSET A 1\n", "t.xform")?;
    /// let err = t.validate().unwrap_err();
    /// assert_eq!(err.to_string(), "t.xform, line 2: FROB is not a valid transform keyword");
    /// let mut ad = classad::ClassAd::new();
    /// t.apply(&mut ad, &mut Macros::new(), None)?; // the line is in a branch not taken
    /// assert_eq!(ad.to_string(), "[ A = 1 ]");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate(&self) -> Result<(), TransformError> {
        match self.statements.iter().find(|(_, s)| matches!(s, Stmt::Invalid(_))) {
            Some((number, Stmt::Invalid(message))) => {
                Err(TransformError::syntax(&self.source, *number, message.clone()))
            }
            _ => Ok(()),
        }
    }

    /// Walks the statements as `condor_transform_ads` does when it loads a
    /// transform, with no job (`defined MY.x` is false): the commands
    /// found before the first line that does not read, and that line's
    /// error.
    pub(crate) fn check(&self, config: Option<&Config>) -> (usize, Option<TransformError>) {
        let empty = ClassAd::new();
        let mut vars = Macros::new();
        let mut conds: Vec<Cond> = Vec::new();
        let mut commands = 0;
        for (number, stmt) in &self.statements {
            let enabled = conds.iter().all(|c| c.on);
            match stmt {
                Stmt::If(text) => {
                    let on = match enabled.then(|| self.condition(text, *number, &empty, &vars, config)) {
                        Some(Ok(on)) => on,
                        Some(Err(e)) => return (commands, Some(e)),
                        None => false,
                    };
                    conds.push(Cond { on, taken: on, parent_on: enabled, in_else: false });
                }
                Stmt::Elif(text) => {
                    let Some(c) = conds.last() else { return (commands, None) };
                    let (parent_on, taken) = (c.parent_on, c.taken);
                    let on =
                        parent_on && !taken && self.condition(text, *number, &empty, &vars, config).unwrap_or(false);
                    if let Some(c) = conds.last_mut() {
                        c.on = on;
                        c.taken |= on;
                    }
                }
                Stmt::Else => {
                    if let Some(c) = conds.last_mut() {
                        c.on = c.parent_on && !c.taken;
                    }
                }
                Stmt::Endif => {
                    conds.pop();
                }
                _ if !enabled => {}
                Stmt::Assign { name, value } => vars.assign(name, value),
                Stmt::Command { .. } => commands += 1,
                Stmt::Ignored(_) => {}
                Stmt::Invalid(message) => {
                    return (commands, Some(TransformError::syntax(&self.source, *number, message.clone())));
                }
            }
        }
        (commands, None)
    }

    /// The transform's name (a `NAME` statement's, in a rules file).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where it was read from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The `REQUIREMENTS` expression as written, if any.
    pub fn requirements(&self) -> Option<&str> {
        self.requirements.as_ref().map(|(t, _)| t.as_str())
    }

    /// The `UNIVERSE` statement's argument, if any (read, but not used to
    /// select jobs, as in HTCondor 23.9).
    pub fn universe(&self) -> Option<&str> {
        self.universe.as_deref()
    }

    /// The `TRANSFORM` statement's iteration, if it makes more than one
    /// ad from each input ad.
    pub fn iteration(&self) -> Option<&Iteration> {
        self.iteration.as_ref()
    }

    /// Whether the transform was read from a configuration value
    /// (`JOB_TRANSFORM_<name>`) rather than a rules file.
    pub(crate) fn is_from_config(&self) -> bool {
        self.origin == Origin::Config
    }

    /// Whether the transform applies to `ad`: no `REQUIREMENTS`, or
    /// `REQUIREMENTS` evaluate (against the ad as it is now) to true or a
    /// non-zero number.
    ///
    /// ```
    /// use matchmaker::schedd::Transform;
    /// let t = Transform::parse("big", "REQUIREMENTS RequestMemory\nSET Big true\n", "big.xform")?;
    /// assert!(t.matches(&"[ RequestMemory = 4096 ]".parse()?));
    /// assert!(!t.matches(&"[ RequestMemory = 0 ]".parse()?));
    /// assert!(!t.matches(&"[ Owner = \"a\" ]".parse()?)); // undefined
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn matches(&self, ad: &ClassAd) -> bool {
        let Some((_, expr)) = &self.requirements else { return true };
        let options = super::macros::options();
        match EvalContext::new(&options).my(ad).eval(expr) {
            Value::Bool(b) => b,
            Value::Int(i) => i != 0,
            Value::Real(r) => r != 0.0,
            _ => false,
        }
    }

    /// Applies the statements to `ad` (whether or not [`matches`](Self::matches)
    /// holds), with the variables `vars` (which keep what the transform
    /// sets) and configuration values from `config`.
    ///
    /// Returns the messages of commands that failed without stopping the
    /// transform (a `SET` whose expression does not parse, a `COPY` to an
    /// invalid name, ...), as HTCondor logs them. An unknown keyword, a bad
    /// condition or a failed expansion stops it with an error.
    pub fn apply(
        &self,
        ad: &mut ClassAd,
        vars: &mut Macros,
        config: Option<&Config>,
    ) -> Result<Vec<String>, TransformError> {
        let mut log = Vec::new();
        let mut conds: Vec<Cond> = Vec::new();
        for (number, stmt) in &self.statements {
            let number = *number;
            let enabled = conds.iter().all(|c| c.on);
            match stmt {
                Stmt::If(text) => {
                    let on = enabled && self.condition(text, number, ad, vars, config)?;
                    conds.push(Cond { on, taken: on, parent_on: enabled, in_else: false });
                }
                Stmt::Elif(text) => {
                    let Some(c) = conds.last() else {
                        return Err(TransformError::syntax(&self.source, number, "elif without if"));
                    };
                    if c.in_else {
                        return Err(TransformError::syntax(&self.source, number, "elif after else"));
                    }
                    let (parent_on, taken) = (c.parent_on, c.taken);
                    let on = parent_on && !taken && self.condition(text, number, ad, vars, config)?;
                    if let Some(c) = conds.last_mut() {
                        c.on = on;
                        c.taken |= on;
                    }
                }
                Stmt::Else => {
                    let Some(c) = conds.last_mut() else {
                        return Err(TransformError::syntax(&self.source, number, "else without if"));
                    };
                    if c.in_else {
                        return Err(TransformError::syntax(&self.source, number, "else after else"));
                    }
                    c.in_else = true;
                    c.on = c.parent_on && !c.taken;
                }
                Stmt::Endif => {
                    if conds.pop().is_none() {
                        return Err(TransformError::syntax(&self.source, number, "endif without if"));
                    }
                }
                _ if !enabled => {}
                Stmt::Assign { name, value } => vars.assign(name, value),
                Stmt::Invalid(message) => return Err(TransformError::syntax(&self.source, number, message.clone())),
                Stmt::Ignored(message) => log.push(
                    classad::excerpt::quote(&format!(
                        "{}, line {number}: {message}",
                        classad::excerpt::quote(&self.source)
                    ))
                    .into_owned(),
                ),
                Stmt::Command { keyword, target, rest } => {
                    self.command(*keyword, target.as_ref(), rest.as_deref(), number, ad, vars, config, &mut log)?;
                }
            }
        }
        if !conds.is_empty() {
            let last = self.statements.last().map_or(0, |(n, _)| *n);
            return Err(TransformError::syntax(&self.source, last, "if without endif"));
        }
        Ok(log)
    }

    fn condition(
        &self,
        text: &str,
        number: u32,
        ad: &ClassAd,
        vars: &Macros,
        config: Option<&Config>,
    ) -> Result<bool, TransformError> {
        let ex = Expander { vars, ad, config };
        let expanded = ex.expand(text).map_err(|m| TransformError::expansion(&self.source, number, m))?;
        let mut t = expanded.trim();
        let mut inverted = false;
        if let Some(rest) = t.strip_prefix('!') {
            inverted = true;
            t = rest.trim_start();
        }
        let bad = |why: &str| {
            TransformError::syntax(&self.source, number, format!("{text} is not a valid if condition because {why}"))
        };
        let value = if t.is_empty() {
            false
        } else if looks_numeric(t) {
            t.parse::<f64>().map(|d| d != 0.0).unwrap_or(false)
        } else if let Some(b) = crufty_bool(t) {
            b
        } else if let Some(rest) = strip_word(t, "version") {
            version(rest).map_err(|m| bad(&m))?
        } else if let Some(rest) = strip_word(t, "defined") {
            let what = rest.trim();
            if let Some(attr) = strip_prefix_ci(what, "MY.") {
                // An attribute that is an empty string is not defined.
                ad.lookup(attr).is_some_and(|e| !super::macros::attr_text(e).is_empty())
            } else if what.is_empty() {
                false
            } else {
                vars.get(what).map(|v| !v.is_empty()).unwrap_or_else(|| {
                    super::macros::builtin(what).is_some()
                        || config.and_then(|c| c.raw(what)).is_some_and(|v| !v.is_empty())
                })
            }
        } else {
            return Err(bad("complex conditionals are not supported"));
        };
        Ok(value != inverted)
    }

    #[allow(clippy::too_many_arguments)] // one command's whole context
    fn command(
        &self,
        keyword: Keyword,
        target: Option<&Target>,
        rest: Option<&str>,
        number: u32,
        ad: &mut ClassAd,
        vars: &mut Macros,
        config: Option<&Config>,
        log: &mut Vec<String>,
    ) -> Result<(), TransformError> {
        let (Some(target), Some(rest)) = (target, rest) else { return Ok(()) };
        let rhs = {
            let ex = Expander { vars, ad, config };
            ex.expand(rest).map_err(|m| TransformError::expansion(&self.source, number, m))?
        };
        let at = format!("{}, line {number}", classad::excerpt::quote(&self.source));
        let name = match target {
            Target::Name(n) => n.as_str(),
            Target::Regex(re) => {
                regex_command(keyword, re, &rhs, ad, &at, log);
                return Ok(());
            }
        };
        match keyword {
            Keyword::Name | Keyword::Universe | Keyword::Requirements | Keyword::Transform => {}
            Keyword::Default | Keyword::Set => {
                if keyword == Keyword::Default && ad.lookup(name).is_some() {
                    return Ok(());
                }
                match Parser::new(ParseLimits::default()).syntax(Syntax::Old).parse_expr(&rhs) {
                    Ok(expr) => {
                        ad.insert(name, expr);
                    }
                    Err(e) => log.push(
                        classad::excerpt::quote(&format!("{at}: SET {name} invalid expression : {rhs} ({e})"))
                            .into_owned(),
                    ),
                }
            }
            Keyword::EvalSet | Keyword::EvalMacro => {
                let value = leading_expr(&rhs).map(|expr| evaluate_expr(&expr, Some(ad)));
                let Some(value) = value else {
                    log.push(
                        classad::excerpt::quote(&format!("{at}: {} {name} could not evaluate : {rhs}", keyword.word()))
                            .into_owned(),
                    );
                    return Ok(());
                };
                if keyword == Keyword::EvalSet {
                    ad.insert(name, value.to_expr());
                } else {
                    let text = match &value {
                        Value::Str(s) => s.to_string(),
                        v => v.to_expr().display(Syntax::Old).to_string(),
                    };
                    vars.set(name, &text);
                }
            }
            Keyword::Copy | Keyword::Rename => copy_or_rename(keyword, name, &rhs, ad, &at, log),
            Keyword::Delete => {
                ad.remove(name);
            }
        }
        Ok(())
    }
}

/// One open conditional.
struct Cond {
    on: bool,
    taken: bool,
    parent_on: bool,
    in_else: bool,
}

fn copy_or_rename(keyword: Keyword, name: &str, new: &str, ad: &mut ClassAd, at: &str, log: &mut Vec<String>) {
    if !is_valid_attr_name(new) {
        log.push(
            classad::excerpt::quote(&format!("{at}: {} {name} new name {new} is not valid", keyword.word()))
                .into_owned(),
        );
        return;
    }
    if keyword == Keyword::Rename {
        if let Some(expr) = ad.remove(name) {
            ad.insert(new, expr);
        }
    } else if let Some(expr) = ad.lookup(name).cloned() {
        ad.insert(new, expr);
    }
}

fn regex_command(
    keyword: Keyword,
    re: &statements::NameRegex,
    template: &str,
    ad: &mut ClassAd,
    at: &str,
    log: &mut Vec<String>,
) {
    let mut matched: Vec<(String, String)> = Vec::new();
    for (name, _) in ad.iter() {
        let name = name.as_str();
        if let Some(groups) = re.captures(name) {
            let new =
                if keyword == Keyword::Delete { String::new() } else { statements::substitute(template, &groups) };
            matched.push((name.to_string(), new));
        }
    }
    matched.sort();
    for (name, new) in matched {
        match keyword {
            Keyword::Delete => {
                ad.remove(name.as_str());
            }
            _ => copy_or_rename(keyword, &name, &new, ad, at, log),
        }
    }
}

/// `TRANSFORM`, `TRANSFORM 1` or `TRANSFORM 1` with nothing after: one ad
/// out for each in.
fn is_trivial_iteration(args: &str) -> bool {
    let args = args.trim();
    if args.is_empty() {
        return true;
    }
    let digits = args.bytes().take_while(u8::is_ascii_digit).count();
    let num: u64 = args[..digits].parse().unwrap_or(0);
    (num == 0 || num == 1) && args[digits..].trim().is_empty()
}

/// The lines of a text with `\` continuations joined, each with its first
/// line's number.
fn logical_lines(text: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(u32, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let (start, mut acc) = pending.take().unwrap_or((number, String::new()));
        let trimmed = raw.trim_end();
        if let Some(head) = trimmed.strip_suffix('\\') {
            acc.push_str(head);
            pending = Some((start, acc));
        } else {
            acc.push_str(raw);
            out.push((start, acc));
        }
    }
    if let Some(p) = pending {
        out.push(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any text either reads or gives an error, and applying what
        /// reads gives ads or an error: no panic, no hang.
        #[test]
        fn arbitrary_rules_never_panic(text in "([A-Za-z$()/\\\\:=,.\"{}\\[\\] \\n@é#!]|SET |COPY |RENAME |DELETE |EVALSET |DEFAULT |EVALMACRO |if |else\\n|endif\\n|REQUIREMENTS |TRANSFORM ){0,60}") {
            if let Ok(t) = Transform::parse("p", &text, "p.xform") {
                let mut ad: ClassAd = r#"[ Owner = "a"; FooX = 1 ]"#.parse().expect("ad");
                let _ = t.matches(&ad);
                let _ = t.apply(&mut ad, &mut Macros::new(), None);
            }
        }
    }

    #[test]
    fn conditionals_nest_and_errors_name_the_line() {
        let t = Transform::parse(
            "c",
            "if true\n if false\n SET A 1\n else\n SET A 2\n endif\nelse\n SET A 3\nendif\n",
            "c.xform",
        )
        .expect("reads");
        let mut ad = ClassAd::new();
        t.apply(&mut ad, &mut Macros::new(), None).expect("applies");
        assert_eq!(ad.to_string(), "[ A = 2 ]");
        let t = Transform::parse("c", "SET A 1\nif $(X) > 3\nendif\n", "c.xform").expect("reads");
        let e = t.apply(&mut ad, &mut Macros::new(), None).unwrap_err().to_string();
        assert_eq!(
            e,
            "c.xform, line 2: $(X) > 3 is not a valid if condition because complex conditionals are not supported"
        );
        let t = Transform::parse("c", "if true\nSET A 1\n", "c.xform").expect("reads");
        assert!(t.apply(&mut ad, &mut Macros::new(), None).unwrap_err().to_string().contains("if without endif"));
        let e = Transform::parse("c", "X @=end\nno end\n", "c.xform").unwrap_err().to_string();
        assert!(e.starts_with("c.xform, line 1: X @=end: no closing @end"), "{e}");
    }
}
