//! Reading ads from text and files: `parseAds`, `parseNext`, `quote` and
//! `unquote`.

use std::io::{self, BufRead, Read};
use std::path::PathBuf;

use classad::format::{self, Format, FormatError, InputError};
use classad::{ClassAd, Expr, Literal};
use pyo3::exceptions::{PyIsADirectoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{error, stream_error};
use crate::objects::PyClassAd;

/// A `parser` argument: a `ParserType` member (an integer), a format name
/// (`"new"`, `"old"`, `"long"`, `"json"`, `"xml"`, `"auto"`), or None;
/// `None` for "detect it".
pub(crate) fn format_arg(parser: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Format>> {
    let Some(parser) = parser.filter(|p| !p.is_none()) else {
        return Ok(None);
    };
    if let Ok(number) = parser.extract::<i64>() {
        return match number {
            -1 | 4 => Ok(None),
            0 => Ok(Some(Format::Old)),
            1 => Ok(Some(Format::Xml)),
            2 => Ok(Some(Format::Json)),
            3 => Ok(Some(Format::New)),
            _ => Err(PyValueError::new_err(format!("unknown parser type {number}"))),
        };
    }
    let name: String = parser.extract()?;
    match name.to_ascii_lowercase().as_str() {
        "auto" => Ok(None),
        "new" => Ok(Some(Format::New)),
        "old" | "long" => Ok(Some(Format::Old)),
        "json" => Ok(Some(Format::Json)),
        "xml" => Ok(Some(Format::Xml)),
        other => Err(PyValueError::new_err(format!("unknown format {other:?}"))),
    }
}

/// The ads of `text` in the format `parser` names (detected when it is
/// None or `Auto`), parsed without holding the GIL.
#[pyfunction]
#[pyo3(signature = (text, parser=None))]
pub(crate) fn parse_ads(py: Python<'_>, text: &str, parser: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<PyClassAd>> {
    let format = format_arg(parser)?;
    // A Python `str` is immutable and the call keeps it alive: it can be
    // read without the GIL, no copy needed.
    let ads = py.detach(|| format::parse_ads(text, format)).map_err(|e| stream_error(py, &e))?;
    Ok(ads.into_iter().map(|ad| PyClassAd { ad }).collect())
}

/// The ads of `data`, bytes of a file in the format `parser` names
/// (detected when None): gzip is decompressed and a UTF-8 byte order mark
/// skipped; binary data and other compressions raise `ClassAdException`
/// saying what they are.
#[pyfunction]
#[pyo3(signature = (data, parser=None))]
pub(crate) fn parse_ads_bytes(
    py: Python<'_>,
    data: &[u8],
    parser: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<PyClassAd>> {
    let format = format_arg(parser)?;
    let ads = py.detach(|| read_ads(format::decode(data), format))?;
    Ok(ads.map_err(|e| stream_error(py, &e))?.into_iter().map(|ad| PyClassAd { ad }).collect())
}

/// The ads of the file at `path`, read as [`parse_ads_bytes`] reads bytes;
/// a file that cannot be read raises `OSError` (`IsADirectoryError` for a
/// directory).
#[pyfunction]
#[pyo3(signature = (path, parser=None))]
pub(crate) fn parse_ads_file(
    py: Python<'_>,
    path: PathBuf,
    parser: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<PyClassAd>> {
    let format = format_arg(parser)?;
    let ads = py.detach(|| read_ads(format::open(&path), format))?;
    Ok(ads.map_err(|e| stream_error(py, &e))?.into_iter().map(|ad| PyClassAd { ad }).collect())
}

/// Every ad of an opened input; the outer error is the input's own (not
/// ClassAd text, or unreadable), the inner one a malformed ad.
fn read_ads(
    input: Result<Box<dyn BufRead + '_>, InputError>,
    format: Option<Format>,
) -> PyResult<Result<Vec<ClassAd>, FormatError>> {
    match input {
        Ok(input) => Ok(format::Reader::new(input, format).collect()),
        Err(InputError::Io(e)) => Err(e.into()),
        Err(InputError::Directory) => Err(PyIsADirectoryError::new_err("Is a directory")),
        Err(e) => Err(error(format!("Unable to parse input stream into a ClassAd: {e}"))),
    }
}

/// The first ad of `input` (`classad2.parseNext`): of a string, or read
/// from a file object, which is left just after the ad (it is read a line
/// at a time, so what follows the ad on its last line is lost).
///
/// None when the input has no more ads, except that a file at its end
/// raises `ClassAdException` (a `ValueError`) unless `parser` is `Old`, as
/// classad2's does. A malformed ad raises `ClassAdException` with its
/// position.
#[pyfunction]
#[pyo3(name = "parseNext", signature = (input, parser=None))]
pub(crate) fn parse_next(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    parser: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<PyClassAd>> {
    let format = format_arg(parser)?;
    if let Ok(text) = input.cast::<PyString>() {
        let text = text.to_cow()?;
        let first = format::Reader::new(text.as_bytes(), format).next();
        return first.transpose().map(|ad| ad.map(|ad| PyClassAd { ad })).map_err(|e| stream_error(py, &e));
    }
    let mut lines = FileLines::new(input.clone());
    if format.is_none() {
        // Enough of the file for the format to be told from its start.
        lines.read_to_second_token()?;
    } else if !lines.at_end {
        lines.read_line()?;
    }
    // Compressed or binary data is said to be so (this reads a line at a
    // time, so it cannot decompress); a byte order mark is skipped.
    if let Some(problem) = InputError::of_start(&lines.line) {
        return Err(error(format!("Unable to parse input stream into a ClassAd: {problem}")));
    }
    if lines.line.starts_with(b"\xef\xbb\xbf") {
        lines.consumed = 3;
    }
    let mut reader = format::Reader::new(lines, format);
    let first = reader.next();
    if let Some(err) = reader.get_mut().error.take() {
        return Err(err);
    }
    match first {
        Some(Ok(ad)) => Ok(Some(PyClassAd { ad })),
        Some(Err(e)) => Err(stream_error(py, &e)),
        None if format == Some(Format::Old) => Ok(None),
        None => Err(error("Unable to parse input stream into a ClassAd: no ad before the end of the input".to_owned())),
    }
}

/// The most characters one `readline()` call is asked for.
const LINE_CHUNK: usize = 64 * 1024;

/// The most bytes held while looking for the start of the first ad (white
/// space and comments before it).
const DETECT_LIMIT: usize = 1024 * 1024;

/// A Python file object read with its `readline()`, as a [`BufRead`] that
/// holds one line at a time (so that nothing past the line that ends an ad
/// is taken from the file). Text and binary files both work.
struct FileLines<'py> {
    file: Bound<'py, PyAny>,
    line: Vec<u8>,
    consumed: usize,
    at_end: bool,
    /// The Python exception a `readline()` raised, re-raised as itself.
    error: Option<PyErr>,
}

impl<'py> FileLines<'py> {
    fn new(file: Bound<'py, PyAny>) -> FileLines<'py> {
        FileLines { file, line: Vec::new(), consumed: 0, at_end: false, error: None }
    }

    /// Reads lines until they hold two characters other than white space
    /// and comments (what telling the format apart needs), the file ends,
    /// or [`DETECT_LIMIT`] bytes are held (the format is then told from
    /// those).
    fn read_to_second_token(&mut self) -> PyResult<()> {
        while !self.at_end && self.line.len() < DETECT_LIMIT && !has_two_tokens(&self.line) {
            self.read_line()?;
        }
        Ok(())
    }

    /// Appends the file's next line, or its next [`LINE_CHUNK`]
    /// characters of a longer one (nothing at its end): a line of any
    /// length is never held whole.
    fn read_line(&mut self) -> PyResult<()> {
        let line = self.file.call_method1("readline", (LINE_CHUNK,))?;
        if let Ok(text) = line.cast::<PyString>() {
            self.line.extend_from_slice(text.to_cow()?.as_bytes());
        } else {
            self.line.extend_from_slice(&line.extract::<Vec<u8>>()?);
        }
        self.at_end = line.len()? == 0;
        Ok(())
    }
}

/// True when `text` holds two characters other than white space and `//`
/// and `/* */` comments, as [`Format::detect`] looks for them; false when a
/// comment is still open at its end.
fn has_two_tokens(text: &[u8]) -> bool {
    let mut rest = text;
    let mut seen = 0;
    loop {
        rest = rest.trim_ascii_start();
        if rest.starts_with(b"//") {
            match rest.iter().position(|&b| b == b'\n') {
                Some(end) => rest = &rest[end..],
                None => return false,
            }
        } else if rest.starts_with(b"/*") {
            match rest[2..].windows(2).position(|pair| pair == b"*/") {
                Some(end) => rest = &rest[end + 4..],
                None => return false,
            }
        } else if rest.is_empty() {
            return false;
        } else {
            seen += 1;
            if seen == 2 {
                return true;
            }
            rest = &rest[1..];
        }
    }
}

impl Read for FileLines<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for FileLines<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.consumed == self.line.len() && !self.at_end {
            self.line.clear();
            self.consumed = 0;
            if let Err(err) = self.read_line() {
                let message = err.to_string();
                self.error = Some(err);
                self.at_end = true;
                return Err(io::Error::other(message));
            }
        }
        Ok(&self.line[self.consumed..])
    }

    fn consume(&mut self, n: usize) {
        self.consumed = (self.consumed + n).min(self.line.len());
    }
}

/// The string literal (new syntax, quotes and escapes) whose value is `text`.
#[pyfunction]
pub(crate) fn quote(text: &str) -> String {
    Expr::literal(Literal::Str(text.into())).to_string()
}

/// The value of the string literal `text`.
#[pyfunction]
pub(crate) fn unquote(text: &str) -> PyResult<String> {
    let Ok(expr) = classad::parse_expr(text) else {
        return Err(PyValueError::new_err("String does not parse to a ClassAd literal"));
    };
    match expr.as_literal() {
        Some(Literal::Str(s)) => Ok(s.to_string()),
        _ => Err(PyValueError::new_err("String does not parse to a ClassAd literal")),
    }
}
