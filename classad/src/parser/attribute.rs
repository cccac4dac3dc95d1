//! [`AttributeParser`]: `Name = value` strings one after another, as a
//! stream of ads brings them (CEDAR's `getClassAd`, a `condor_status -l`
//! reply of thousands of slot ads), with caches shared by every ad.

use rustc_hash::FxHashMap;

use super::{descent, scan, ParseError, ParseLimits, Parser, Syntax};
use crate::expr::{Expr, Literal};
use crate::name::{Name, Recent, TooManyNames};

/// Strings up to this length are stored inside the expression (no
/// allocation): not worth a cache entry.
const INLINE_TEXT: usize = 23;

/// Bounds on the value cache of an [`AttributeParser`].
///
/// The cache holds at most `max_entries` values of at most `max_text`
/// bytes of text each (so at most `max_entries * max_text` bytes of text,
/// 16 MiB with the defaults, plus their expressions); when it is full it
/// is emptied and fills again with what comes next.
///
/// ```
/// use classad::ValueCacheLimits;
/// let limits = ValueCacheLimits::default();
/// assert_eq!((limits.max_entries, limits.max_text), (8192, 2048));
/// let none = ValueCacheLimits::default().max_entries(0); // no cache at all
/// assert_eq!(none.max_entries, 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValueCacheLimits {
    /// Most values remembered (0: none).
    pub max_entries: usize,
    /// Longer value texts are parsed every time, never remembered.
    pub max_text: usize,
}

impl Default for ValueCacheLimits {
    /// 8,192 values of up to 2 KiB of text.
    fn default() -> ValueCacheLimits {
        ValueCacheLimits { max_entries: 8192, max_text: 2048 }
    }
}

impl ValueCacheLimits {
    /// The same limits with another bound on the number of values.
    pub fn max_entries(mut self, n: usize) -> ValueCacheLimits {
        self.max_entries = n;
        self
    }

    /// The same limits with another bound on one value's text.
    pub fn max_text(mut self, n: usize) -> ValueCacheLimits {
        self.max_text = n;
        self
    }
}

/// Why [`AttributeParser::attribute`] refused a `Name = value` string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AttributeError {
    /// The string has no `=`.
    #[error("expected `Name = value`")]
    NoAssignment,
    /// Nothing but white space before the `=`.
    #[error("no attribute name before `=`")]
    EmptyName,
    /// The name is new and the process-wide table of names is full.
    #[error(transparent)]
    TooManyNames(#[from] TooManyNames),
    /// The value does not parse.
    #[error("attribute {name}: {error}")]
    Value {
        /// The attribute's name as written.
        name: String,
        /// What the parser said.
        error: ParseError,
    },
}

/// Parses attribute values (and interns attribute names) one after
/// another, with caches shared between them: what a reader of many ads
/// holds for the whole stream.
///
/// * names go through a cache of recently interned names;
/// * a value that is a plain literal (an integer, a real without exponent,
///   `true`, `false`, `undefined`, `error`, a short string without escapes)
///   is read straight from its text;
/// * any other value is looked up by its exact text in a bounded cache
///   ([`ValueCacheLimits`]) of the values parsed before, and parsed only
///   when it is not there: the ads of a pool repeat most of their values
///   (every slot of a machine has the same `START`, `CondorVersion`,
///   `MyAddress`).
///
/// The expression is always the one [`Parser::parse_expr`] gives for the
/// same text with the same limits and syntax (expressions are immutable;
/// a cached one is shared, not copied), and it prints the same.
///
/// ```
/// use classad::{AttributeParser, Literal, ParseLimits, Syntax};
/// let mut parser = AttributeParser::new(ParseLimits::default()); // old syntax
/// let (name, value) = parser.attribute("Cpus = 8")?;
/// assert_eq!((name.as_str(), value.as_literal()), ("Cpus", Some(&Literal::Int(8))));
/// let (_, start) = parser.attribute("START = (KeyboardIdle > 15 * 60) && (LoadAvg <= 0.3)")?;
/// let (_, again) = parser.attribute("START = (KeyboardIdle > 15 * 60) && (LoadAvg <= 0.3)")?;
/// assert!(again.same_as(&start));
/// assert_eq!(again.display(Syntax::Old).to_string(), "(KeyboardIdle > 15 * 60) && (LoadAvg <= 0.3)");
/// assert!(parser.attribute("Broken = (1 +").is_err());
/// # Ok::<(), classad::AttributeError>(())
/// ```
pub struct AttributeParser {
    parser: Parser,
    /// A name cache of the parser's own (96 KB: a parser is meant to
    /// last for many ads).
    names: Recent,
    values: FxHashMap<Box<str>, Expr>,
    /// The last line seen at each position of an ad
    /// ([`attribute_at`](AttributeParser::attribute_at)).
    lines: Vec<Line>,
    cache: ValueCacheLimits,
}

/// A line remembered at its position, with what it gave.
struct Line {
    text: String,
    name: Name,
    expr: Expr,
}

impl std::fmt::Debug for AttributeParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttributeParser")
            .field("parser", &self.parser)
            .field("cached", &self.values.len())
            .field("cache", &self.cache)
            .finish()
    }
}

impl Default for AttributeParser {
    fn default() -> AttributeParser {
        AttributeParser::new(ParseLimits::default())
    }
}

impl AttributeParser {
    /// A parser of old-syntax values (as ads on the wire and in the long
    /// format have) within `limits`, with the default cache limits.
    pub fn new(limits: ParseLimits) -> AttributeParser {
        AttributeParser {
            parser: Parser::new(limits).syntax(Syntax::Old),
            names: Recent::new(),
            values: FxHashMap::default(),
            lines: Vec::new(),
            cache: ValueCacheLimits::default(),
        }
    }

    /// The same parser for values in `syntax` (its cache emptied).
    pub fn syntax(mut self, syntax: Syntax) -> AttributeParser {
        self.parser = self.parser.syntax(syntax);
        self.clear_cache();
        self
    }

    /// The same parser with other bounds on its value cache (emptied).
    pub fn cache_limits(mut self, limits: ValueCacheLimits) -> AttributeParser {
        self.cache = limits;
        self.values = FxHashMap::default();
        self.lines = Vec::new();
        self
    }

    /// The parse limits in force.
    pub fn limits(&self) -> ParseLimits {
        self.parser.limits()
    }

    /// The syntax values are parsed in.
    pub fn syntax_in_use(&self) -> Syntax {
        self.parser.syntax
    }

    /// How many values the cache holds.
    pub fn cached(&self) -> usize {
        self.values.len()
    }

    /// Forgets every cached value and line.
    pub fn clear_cache(&mut self) {
        self.values.clear();
        self.lines.clear();
    }

    /// Interns an attribute name read from input, as [`Name::try_new`]
    /// does.
    #[inline]
    pub fn name(&mut self, text: &str) -> Result<Name, TooManyNames> {
        self.names.try_name(text)
    }

    /// Parses one value, as [`Parser::parse_expr`] would with these limits
    /// and syntax.
    pub fn value(&mut self, text: &str) -> Result<Expr, ParseError> {
        self.parser.check_size(text)?;
        if let Some(expr) = inline_literal(text, self.parser.syntax, self.parser.limits.max_depth) {
            return Ok(expr);
        }
        let cacheable = text.len() <= self.cache.max_text && self.cache.max_entries > 0;
        if cacheable {
            if let Some(expr) = self.values.get(text) {
                return Ok(expr.clone());
            }
        }
        let expr = self.parser.parse_expr_cached(text, &mut self.names)?;
        if cacheable {
            if self.values.len() >= self.cache.max_entries {
                self.values.clear();
            }
            self.values.insert(text.into(), expr.clone());
        }
        Ok(expr)
    }

    /// Parses `Name = value` as HTCondor's `SplitLongFormAttrValue` splits
    /// it: leading white space skipped, the name is what precedes the first
    /// `=` less its trailing spaces (taken as written, quotes and all), the
    /// value what follows less its leading spaces.
    ///
    /// ```
    /// let mut parser = classad::AttributeParser::default();
    /// let (name, value) = parser.attribute("  Memory=  2048")?;
    /// assert_eq!((name.as_str(), value.to_string().as_str()), ("Memory", "2048"));
    /// assert_eq!(parser.attribute("no assignment"), Err(classad::AttributeError::NoAssignment));
    /// # Ok::<(), classad::AttributeError>(())
    /// ```
    pub fn attribute(&mut self, line: &str) -> Result<(Name, Expr), AttributeError> {
        let (name, value) = split_attribute(line)?;
        let value = self.value(value).map_err(|error| AttributeError::Value { name: name.to_owned(), error })?;
        let name = self.name(name)?;
        Ok((name, value))
    }

    /// [`attribute`](Self::attribute) for the attribute at position `index`
    /// of its ad, given as bytes (bytes that are not UTF-8 are replaced as
    /// [`String::from_utf8_lossy`] replaces them).
    ///
    /// Ads of one kind list their attributes in the same order, and
    /// consecutive ads (the slots of one machine) repeat most of their
    /// lines exactly: the parser remembers the last line at each of the
    /// first [`max_entries`](ValueCacheLimits::max_entries) positions (up
    /// to [`max_text`](ValueCacheLimits::max_text) bytes), and a line equal
    /// to it takes its name and value with one comparison. Any `index`
    /// gives the same result; the right one is only faster.
    ///
    /// ```
    /// let mut parser = classad::AttributeParser::default();
    /// let first = parser.attribute_at(0, b"Start = KeyboardIdle > 15 * 60")?;
    /// let again = parser.attribute_at(0, b"Start = KeyboardIdle > 15 * 60")?;
    /// assert!(first.1.same_as(&again.1));
    /// let other = parser.attribute_at(0, b"Cpus = 4")?;
    /// assert_eq!(other.0.as_str(), "Cpus");
    /// # Ok::<(), classad::AttributeError>(())
    /// ```
    pub fn attribute_at(&mut self, index: usize, line: &[u8]) -> Result<(Name, Expr), AttributeError> {
        if let Some(seen) = self.lines.get(index) {
            // Never an empty line: an unused position holds one.
            if seen.text.as_bytes() == line && !line.is_empty() {
                return Ok((seen.name, seen.expr.clone()));
            }
        }
        let text = String::from_utf8_lossy(line);
        let (name, expr) = self.attribute(&text)?;
        if index < self.cache.max_entries && text.len() <= self.cache.max_text {
            if index >= self.lines.len() {
                let blank = || Line { text: String::new(), name: Name::NONE, expr: Expr::literal(Literal::Undefined) };
                self.lines.resize_with(index + 1, blank);
            }
            let seen = &mut self.lines[index];
            seen.text.clear();
            seen.text.push_str(&text);
            seen.name = name;
            seen.expr = expr.clone();
        }
        Ok((name, expr))
    }
}

/// `Name = value` split as [`AttributeParser::attribute`] splits it.
fn split_attribute(line: &str) -> Result<(&str, &str), AttributeError> {
    let line = line.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let eq = memchr::memchr(b'=', line.as_bytes()).ok_or(AttributeError::NoAssignment)?;
    let name = line[..eq].trim_end_matches(' ');
    let value = line[eq + 1..].trim_start_matches(' ');
    if name.is_empty() {
        return Err(AttributeError::EmptyName);
    }
    Ok((name, value))
}

/// The expression of `text` when it is a literal stored inline (no
/// allocation): what the parser's own first step gives for it.
#[inline]
fn inline_literal(text: &str, syntax: Syntax, max_depth: u32) -> Option<Expr> {
    let value = scan::whole_simple_value(text)?;
    if let scan::SimpleValue::Str(s) = value {
        if s.len() > INLINE_TEXT {
            return None;
        }
    }
    // Names are no literals: `Cpus` is an attribute reference, a node.
    let expr = descent::simple_value(value, syntax, &mut |_| None, max_depth, |expr| expr)?;
    debug_assert!(!matches!(expr.as_literal(), Some(Literal::Str(s)) if s.len() > INLINE_TEXT));
    Some(expr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_bounded() {
        let mut parser =
            AttributeParser::default().cache_limits(ValueCacheLimits::default().max_entries(4).max_text(16));
        for i in 0..10 {
            let text = format!("a + {i}");
            let expr = parser.value(&text).expect("parses");
            assert!(expr.same_as(&Parser::default().syntax(Syntax::Old).parse_expr(&text).expect("parses")));
            assert!(parser.cached() <= 4);
        }
        assert!(parser.cached() > 0);
        // Too long to keep.
        parser.clear_cache();
        parser.value("aaaaaaaa + bbbbbbbbb").expect("parses");
        assert_eq!(parser.cached(), 0);
        // Inline literals are never kept.
        parser.value("12").expect("parses");
        parser.value("\"short\"").expect("parses");
        assert_eq!(parser.cached(), 0);
    }

    #[test]
    fn a_cached_value_is_shared() {
        let mut parser = AttributeParser::default();
        let long = "\"a string longer than twenty-three bytes\"";
        let first = parser.value(long).expect("parses");
        let second = parser.value(long).expect("parses");
        assert!(first.same_as(&second));
        assert_eq!(parser.cached(), 1);
    }

    #[test]
    fn limits_apply_to_cached_values_too() {
        let mut parser = AttributeParser::new(ParseLimits { max_depth: 2, max_input: 8 });
        assert!(parser.value("((1))").is_err());
        assert!(parser.value("123456789").is_err());
        assert!(parser.value("(1)").is_ok());
    }
}
