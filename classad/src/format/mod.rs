//! Reading and writing ClassAds in HTCondor's formats.
//!
//! | [`Format`] | what it looks like | written by |
//! |---|---|---|
//! | [`Old`](Format::Old) | `Name = value` lines, ads separated by blank lines | `condor_status -long`, `condor_q -long` |
//! | [`New`](Format::New) | `[ Name = value; ... ]` records | `condor_status -long:new`, libclassad's unparser |
//! | [`Json`](Format::Json) | `{ "Name": value, ... }` objects | `condor_status -json`, `condor_q -json` |
//! | [`Xml`](Format::Xml) | `<classads><c><a n="Name">...</a></c></classads>` | `condor_status -xml` |
//!
//! [`Reader`] reads a stream of ads in any of them (or detects which, as
//! libclassad's "auto" parser does) one ad at a time, in memory bounded by
//! the largest ad; [`Writer`] writes one. [`parse_ads`] and [`to_string`] do
//! the same for text in memory. [`open`] (a file) and [`decode`] (any byte
//! stream) prepare an input for a `Reader`: gzip is decompressed, a UTF-8
//! byte order mark skipped, and binary data refused with a clear error.
//!
//! ```
//! use classad::format::{self, Format};
//! let text = "MyType = \"Machine\"\nCpus = 8\n\nMyType = \"Machine\"\nCpus = 4\n";
//! let ads = format::parse_ads(text, None)?; // detected: old (long) format
//! assert_eq!(ads.len(), 2);
//! let json = format::to_string(&ads, Format::Json);
//! assert!(json.starts_with("[\n{\n  \"MyType\": \"Machine\",\n  \"Cpus\": 8\n}\n,\n{"));
//! assert_eq!(format::parse_ads(&json, None)?, ads);
//! # Ok::<(), classad::format::FormatError>(())
//! ```

mod input;
mod json;
mod new;
mod old;
mod source;
mod xml;

use std::fmt;
use std::io::{self, BufRead};
use std::str::FromStr;

use crate::ad::ClassAd;
use crate::parser::{ParseError, ParseErrorKind, ParseLimits, Parser, Syntax};
pub use input::{decode, open, InputError};
use source::{Frame, Source};

/// A ClassAd file format.
///
/// Not `#[non_exhaustive]`, on purpose: these are the four formats
/// HTCondor's tools read and write (`ClassAdFileParseHelper::ParseType`
/// in its `compat_classad.h`: long, XML, JSON, new), and code that handles
/// each format (a converter, a test over every format) should fail to
/// compile when one is added, rather than send it to a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Old ClassAd syntax, one `Name = value` per line (HTCondor's "long"
    /// format); ads are separated by blank lines or `***` banner lines.
    Old,
    /// New ClassAd syntax: `[ ... ]` records, one after another (or in a
    /// `{ ..., ... }` list, as `condor_status -long:new` writes them).
    New,
    /// JSON as `condor_status -json` writes it.
    Json,
    /// XML as `condor_status -xml` writes it.
    Xml,
}

impl Format {
    /// Guesses the format of a text from its first bytes, as libclassad's
    /// automatic parser does: `<` starts XML; `[` followed by `{` or `]` a
    /// JSON array, otherwise new-syntax records; `{` followed by `[` a list
    /// of new-syntax records, otherwise JSON; anything else is the old
    /// format. Leading white space and `//` and `/* */` comments are
    /// skipped.
    ///
    /// ```
    /// use classad::format::Format;
    /// assert_eq!(Format::detect(b"  <?xml version=\"1.0\"?>"), Format::Xml);
    /// assert_eq!(Format::detect(b"[\n{\n  \"a\": 1"), Format::Json);
    /// assert_eq!(Format::detect(b"[ a = 1 ]"), Format::New);
    /// assert_eq!(Format::detect(b"{\"a\": 1}\n{\"a\": 2}"), Format::Json);
    /// assert_eq!(Format::detect(b"Cpus = 8\n"), Format::Old);
    /// assert_eq!(Format::detect(b"/* slots */\n[ Cpus = 8 ]"), Format::New);
    /// ```
    pub fn detect(start: &[u8]) -> Format {
        let mut rest = skip_space_and_comments(start);
        let Some(&first) = rest.first() else {
            return Format::Old;
        };
        rest = skip_space_and_comments(&rest[1..]);
        let second = rest.first().copied();
        match (first, second) {
            (b'<', _) => Format::Xml,
            (b'[', Some(b'{' | b']')) => Format::Json,
            (b'[', _) => Format::New,
            (b'{', Some(b'[')) => Format::New,
            (b'{', _) => Format::Json,
            _ => Format::Old,
        }
    }

    /// The format's name as the command-line tool takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Old => "old",
            Format::New => "new",
            Format::Json => "json",
            Format::Xml => "xml",
        }
    }
}

fn skip_space_and_comments(mut bytes: &[u8]) -> &[u8] {
    loop {
        let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
        bytes = &bytes[start..];
        if bytes.starts_with(b"//") {
            let end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
            bytes = &bytes[end..];
        } else if bytes.starts_with(b"/*") {
            let end = memchr::memmem::find(&bytes[2..], b"*/").map_or(bytes.len(), |at| at + 4);
            bytes = &bytes[end..];
        } else {
            return bytes;
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown format `{0}` (expected old, long, new, json or xml)")]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;

    /// `old` (or `long`), `new`, `json`, `xml`, in any case.
    fn from_str(name: &str) -> Result<Format, UnknownFormat> {
        match name.to_ascii_lowercase().as_str() {
            "old" | "long" => Ok(Format::Old),
            "new" => Ok(Format::New),
            "json" => Ok(Format::Json),
            "xml" => Ok(Format::Xml),
            _ => Err(UnknownFormat(name.to_string())),
        }
    }
}

/// An ad that could not be read: which ad of the input (counting from 1),
/// where, and why.
///
/// ```
/// use classad::format;
/// let err = format::parse_ads("A = 1\n\nB = (2\n", None).unwrap_err();
/// assert_eq!((err.ad, err.line), (2, 3));
/// assert_eq!(err.to_string(), "ad 2, line 3, column 7: unexpected end of input; expected `)`");
/// assert_eq!(err.kind(), format::FormatErrorKind::Parse(classad::ParseErrorKind::UnexpectedEnd));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ad {ad}, line {line}, column {column}: {message}")]
pub struct FormatError {
    /// The ad's position in the input, from 1.
    pub ad: usize,
    /// The 1-based line of the problem in the input.
    pub line: usize,
    /// The 1-based column of the problem (0 when it concerns a whole line
    /// or the input itself).
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// What kind of problem it is.
    kind: FormatErrorKind,
}

/// What kind of problem a [`FormatError`] reports (where it is: the
/// error's `ad`, `line` and `column`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FormatErrorKind {
    /// The text is not well formed in its format: the framing of the
    /// stream (a missing `[` or `{`, a stray tag), a line of the old
    /// format that is no `Name = value`, JSON or XML that does not read.
    Malformed,
    /// An expression did not parse (an ad in new syntax, a value of the old
    /// format, an expression or a string in JSON or XML): how.
    Parse(ParseErrorKind),
    /// The input ended inside an ad or a list of ads.
    Truncated,
    /// Bytes that are not UTF-8.
    InvalidUtf8,
    /// An ad larger than [`ReadLimits::max_ad_bytes`].
    TooLarge,
    /// A new attribute name while the process-wide table of names is at
    /// its [`NameLimits`](crate::NameLimits).
    TooManyNames,
    /// Reading the input failed.
    Io,
}

impl FormatError {
    fn new(ad: usize, line: usize, column: usize, kind: FormatErrorKind, message: impl Into<String>) -> FormatError {
        FormatError { ad, line, column, message: message.into(), kind }
    }

    /// An error of a parse that started at `line`, `column` of the input.
    fn from_parse(ad: usize, line: usize, column: usize, error: &ParseError) -> FormatError {
        let (line, column) =
            if error.line == 1 { (line, column + error.column - 1) } else { (line + error.line - 1, error.column) };
        FormatError::new(ad, line, column, FormatErrorKind::Parse(error.kind()), error.message.clone())
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> FormatErrorKind {
        self.kind
    }
}

/// Bounds on what a [`Reader`] accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// The largest ad, in bytes of input; a larger one is an error (and is
    /// skipped without being held in memory).
    pub max_ad_bytes: usize,
    /// Limits of the expression parser.
    pub parse: ParseLimits,
}

impl Default for ReadLimits {
    /// Ads of up to 16 MiB (real slot ads are 10-50 KB) and the parser's
    /// default limits.
    fn default() -> ReadLimits {
        ReadLimits { max_ad_bytes: 16 << 20, parse: ParseLimits::default() }
    }
}

/// Reads ads one at a time from a byte stream, in a given format or the
/// one [`Format::detect`] finds.
///
/// Each ad is an `Ok`, or an `Err` naming the ad, the line and what is
/// wrong. After an error the reader stops, unless
/// [`skip_bad_ads`](Reader::skip_bad_ads) was set: then it goes on with the
/// next ad where the format allows it (the old format always does; JSON,
/// XML and new syntax do when the bad ad was complete).
///
/// ```
/// use classad::format::{Format, Reader};
/// let input = "A = 1\n\nB = )\n\nC = 3\n";
/// let ads: Vec<_> = Reader::new(input.as_bytes(), Some(Format::Old)).skip_bad_ads(true).collect();
/// assert_eq!(ads.len(), 3);
/// assert!(ads[0].is_ok() && ads[1].is_err() && ads[2].is_ok());
/// ```
pub struct Reader<R> {
    source: Source<R>,
    format: Option<Format>,
    limits: ReadLimits,
    skip_bad: bool,
    /// Ads read so far (good or bad).
    count: usize,
    /// Where the framing of the stream is (for JSON arrays and the like).
    state: State,
    buf: Vec<u8>,
    /// The attributes of the ad being read (kept to reuse the allocation).
    attributes: Vec<(crate::name::Name, crate::expr::Expr)>,
}

/// Where a reader is in its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Nothing read yet.
    Start,
    /// Between ads.
    Ads,
    /// Inside a `[...]` (JSON) or `{...}` (new syntax) list of ads;
    /// `first` until one has been read.
    List { first: bool },
    /// Finished (the input ended, or an error stopped the reader).
    Done,
}

/// What reading one ad gave.
enum Next {
    Ad(ClassAd),
    Bad { error: FormatError, recoverable: bool },
    End,
}

impl<R: BufRead> Reader<R> {
    /// A reader of `input` in `format` (`None`: detect it from the first
    /// bytes).
    pub fn new(input: R, format: Option<Format>) -> Reader<R> {
        Reader {
            source: Source::new(input),
            format,
            limits: ReadLimits::default(),
            skip_bad: false,
            count: 0,
            state: State::Start,
            buf: Vec::new(),
            attributes: Vec::new(),
        }
    }

    /// Sets the limits.
    pub fn limits(mut self, limits: ReadLimits) -> Reader<R> {
        self.limits = limits;
        self
    }

    /// After a bad ad, goes on with the next one instead of stopping.
    pub fn skip_bad_ads(mut self, skip: bool) -> Reader<R> {
        self.skip_bad = skip;
        self
    }

    /// The input. Reading from it directly skips what the reader has not
    /// read yet; the reader takes from it only what its `fill_buf` gives,
    /// so an input that gives one line at a time is left just after the
    /// last line of the last ad read.
    pub fn get_mut(&mut self) -> &mut R {
        self.source.get_mut()
    }

    /// The format being read; `None` until detected (before the first ad).
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    fn parser(&self, syntax: Syntax) -> Parser {
        Parser::new(self.limits.parse).syntax(syntax)
    }

    /// Reads the next ad.
    fn next_ad(&mut self) -> io::Result<Next> {
        let format = match self.format {
            Some(format) => format,
            None => {
                let detected = Format::detect(self.source.fill()?);
                self.format = Some(detected);
                detected
            }
        };
        match format {
            Format::Old => old::next_ad(self),
            Format::New => new::next_ad(self),
            Format::Json => json::next_ad(self),
            Format::Xml => xml::next_ad(self),
        }
    }

    /// The error of the ad being read, at the current line.
    fn error_here(&self, column: usize, kind: FormatErrorKind, message: impl Into<String>) -> FormatError {
        FormatError::new(self.count + 1, self.source.line(), column, kind, message)
    }

    /// Reads the ad that started at `line`, `column` into `self.buf` (after
    /// what is there already), byte by byte while `step` says it goes on.
    /// `Some` is what to yield instead when the ad is too large or the
    /// input ends inside it.
    fn read_ad_frame(&mut self, line: usize, column: usize, step: impl FnMut(u8) -> bool) -> io::Result<Option<Next>> {
        Ok(match self.source.read_frame(&mut self.buf, self.limits.max_ad_bytes, step)? {
            Frame::Complete => None,
            Frame::TooLong => Some(Next::Bad { error: self.too_large(line), recoverable: true }),
            Frame::End => {
                let error = FormatError::new(
                    self.count + 1,
                    line,
                    column,
                    FormatErrorKind::Truncated,
                    "the input ended inside this ad",
                );
                Some(Next::Bad { error, recoverable: false })
            }
        })
    }

    /// The text of the ad in `self.buf`, which started at `line`, `column`;
    /// `Err` is the error to yield when it is not UTF-8.
    fn ad_text(&self, line: usize, column: usize) -> Result<&str, Next> {
        std::str::from_utf8(&self.buf).map_err(|e| {
            let (line, column) = position_after(&self.buf[..e.valid_up_to()], line, column);
            Next::Bad {
                error: FormatError::new(self.count + 1, line, column, FormatErrorKind::InvalidUtf8, "invalid UTF-8"),
                recoverable: true,
            }
        })
    }

    fn too_large(&self, line: usize) -> FormatError {
        FormatError::new(
            self.count + 1,
            line,
            0,
            FormatErrorKind::TooLarge,
            format!("ad larger than the limit of {} bytes", self.limits.max_ad_bytes),
        )
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<ClassAd, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.state == State::Done {
            return None;
        }
        let next = match self.next_ad() {
            Ok(next) => next,
            Err(e) => {
                self.state = State::Done;
                return Some(Err(self.error_here(0, FormatErrorKind::Io, format!("cannot read the input: {e}"))));
            }
        };
        match next {
            Next::Ad(ad) => {
                self.count += 1;
                Some(Ok(ad))
            }
            Next::Bad { error, recoverable } => {
                self.count += 1;
                if !(recoverable && self.skip_bad) {
                    self.state = State::Done;
                }
                Some(Err(error))
            }
            Next::End => {
                self.state = State::Done;
                None
            }
        }
    }
}

/// The line and column just after `before`, a text that started at
/// `line`, `column` (columns count characters).
fn position_after(before: &[u8], line: usize, column: usize) -> (usize, usize) {
    let chars = |bytes: &[u8]| String::from_utf8_lossy(bytes).chars().count();
    match memchr::memrchr(b'\n', before) {
        Some(last) => (line + memchr::memchr_iter(b'\n', before).count(), chars(&before[last + 1..]) + 1),
        None => (line, column + chars(before)),
    }
}

/// Reads every ad of `text` (in `format`, or the detected one).
///
/// ```
/// use classad::format::{self, Format};
/// let ads = format::parse_ads(r#"[ a = 1 ] [ a = 2 ]"#, Some(Format::New))?;
/// assert_eq!(ads.len(), 2);
/// # Ok::<(), classad::format::FormatError>(())
/// ```
pub fn parse_ads(text: &str, format: Option<Format>) -> Result<Vec<ClassAd>, FormatError> {
    Reader::new(text.as_bytes(), format).collect()
}

/// Writes ads to a byte stream in one format.
///
/// The layout is HTCondor's: old format ads end with a blank line; JSON is
/// an array (`[`, the ads separated by `,` lines, `]`) as `condor_status
/// -json` writes; XML has `condor_status -xml`'s header and `<classads>`
/// element. New syntax is one `[ ... ]` record per line (what libclassad's
/// automatic parser and [`Reader`] read back). Call
/// [`finish`](Writer::finish) to close the JSON array or XML element.
///
/// ```
/// use classad::{ClassAd, format::{Format, Writer}};
/// let ad: ClassAd = "[ Name = \"slot1\"; Cpus = 4 ]".parse()?;
/// let mut writer = Writer::new(Vec::new(), Format::Old);
/// writer.write(&ad)?;
/// let bytes = writer.finish()?;
/// assert_eq!(String::from_utf8(bytes).unwrap(), "Name = \"slot1\"\nCpus = 4\n\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Writer<W: io::Write> {
    out: W,
    format: Format,
    count: usize,
    buf: String,
}

impl<W: io::Write> Writer<W> {
    /// A writer of `format` to `out`.
    pub fn new(out: W, format: Format) -> Writer<W> {
        Writer { out, format, count: 0, buf: String::new() }
    }

    /// Writes one ad.
    pub fn write(&mut self, ad: &ClassAd) -> io::Result<()> {
        self.buf.clear();
        let buf = &mut self.buf;
        match self.format {
            Format::Old => old::write_ad(buf, ad),
            Format::New => {
                buf.push_str(&ad.to_string());
                buf.push('\n');
            }
            Format::Json => {
                buf.push_str(if self.count == 0 { "[\n" } else { "\n,\n" });
                json::write_ad(buf, ad, 0);
            }
            Format::Xml => {
                if self.count == 0 {
                    buf.push_str(xml::HEADER);
                }
                xml::write_ad(buf, ad, 0);
                buf.push('\n');
            }
        }
        self.count += 1;
        self.out.write_all(self.buf.as_bytes())
    }

    /// Ends the output (closing the JSON array or the XML document) and
    /// returns the stream.
    pub fn finish(mut self) -> io::Result<W> {
        let end = match (self.format, self.count) {
            (Format::Json, 0) => "[\n]\n",
            (Format::Json, _) => "\n]\n",
            (Format::Xml, 0) => {
                self.out.write_all(xml::HEADER.as_bytes())?;
                "</classads>\n"
            }
            (Format::Xml, _) => "</classads>\n",
            _ => "",
        };
        self.out.write_all(end.as_bytes())?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// One ad as text in `format`, without what a stream of ads puts around
/// it: the old format's lines without the blank line that ends an ad, a
/// JSON object without the enclosing array, one new-syntax record (as
/// [`ClassAd`]'s `Display`), an XML document holding the ad.
///
/// ```
/// use classad::format::{self, Format};
/// let ad: classad::ClassAd = "[ a = 1; b = a + 1 ]".parse()?;
/// assert_eq!(format::ad_to_string(&ad, Format::Old), "a = 1\nb = a + 1\n");
/// assert_eq!(format::ad_to_string(&ad, Format::Json), "{\n  \"a\": 1,\n  \"b\": \"\\/Expr(a + 1)\\/\"\n}");
/// assert_eq!(format::ad_to_string(&ad, Format::New), "[ a = 1; b = a + 1 ]");
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn ad_to_string(ad: &ClassAd, format: Format) -> String {
    let mut out = String::new();
    match format {
        Format::Old => {
            old::write_ad(&mut out, ad);
            // The blank line that separates ads in a stream.
            out.pop();
        }
        Format::New => out = ad.to_string(),
        Format::Json => json::write_ad(&mut out, ad, 0),
        Format::Xml => out = to_string([ad], Format::Xml),
    }
    out
}

/// The ads as text in `format`, laid out as [`Writer`] writes them.
pub fn to_string<'a>(ads: impl IntoIterator<Item = &'a ClassAd>, format: Format) -> String {
    let mut writer = Writer::new(Vec::new(), format);
    for ad in ads {
        // Writing to a Vec cannot fail.
        let _ = writer.write(ad);
    }
    let bytes = writer.finish().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}
