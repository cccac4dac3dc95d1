//! `parseAds` of a Python file object: the ads read as the file gives them
//! (`AdStream`), a chunk at a time, so that memory is bounded by the
//! largest ad and the first ad comes before the file has been read to its
//! end, as the Rust readers do ([`classad::format::Reader`], with its
//! limits: an ad of more than 16 MiB is an error).
//!
//! The start of the file is looked at when `parseAds` is called, as
//! [`classad::format::decode`] looks at a file's: gzip is decompressed, a
//! UTF-8 byte order mark skipped, and binary data or another compression
//! raises `ClassAdException` there and then. A malformed ad raises when
//! the iteration reaches it.

use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};

use classad::format::{self, Format, InputError};
use pyo3::exceptions::{PyRuntimeError, PyUnicodeDecodeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::errors::{error, stream_error};
use crate::objects::PyClassAd;
use crate::parsing::format_arg;

/// How much is asked of the file at a time (characters of a text file,
/// bytes of a binary one), as `format::open` buffers a file.
const CHUNK: usize = 1 << 16;

/// How much of the start of a stream is looked at for binary data, as
/// `format::decode` looks.
const PEEK: usize = 1024;

/// The Python exception the file raised, kept to be raised as itself.
type Raised = Arc<Mutex<Option<PyErr>>>;

/// How the file is asked for its next chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    /// `read(n)`: files that can seek (which are at hand, so it does not
    /// wait), and objects that have nothing else.
    Read,
    /// `read1(n)`: binary streams (pipes, sockets), whatever is there
    /// without waiting for `n` bytes.
    Read1,
    /// `readline(n)`: text streams, a line (of at most `n` characters) as
    /// soon as it is there.
    Readline,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Read => "read",
            Method::Read1 => "read1",
            Method::Readline => "readline",
        }
    }

    /// The method for `file`.
    fn of(file: &Bound<'_, PyAny>) -> PyResult<Method> {
        if seekable(file) {
            return Ok(Method::Read);
        }
        if file.hasattr("read1")? {
            return Ok(Method::Read1);
        }
        let text_io = file.py().import("io")?.getattr("TextIOBase")?;
        if file.is_instance(&text_io)? && file.hasattr("readline")? {
            return Ok(Method::Readline);
        }
        Ok(Method::Read)
    }
}

/// Whether `file.seekable()` says so (false when it has no such method or
/// the method raises).
fn seekable(file: &Bound<'_, PyAny>) -> bool {
    file.call_method0("seekable").and_then(|s| s.is_truthy()).unwrap_or(false)
}

/// A Python file object (text or binary) as a [`BufRead`] that holds one
/// chunk at a time. A Python exception from the file is kept in `raised`
/// and given to the reader as an I/O error.
struct FileChunks {
    file: Py<PyAny>,
    method: Method,
    chunk: Vec<u8>,
    consumed: usize,
    at_end: bool,
    /// Before the first chunk: where the file was, to read the bytes under
    /// a text file that does not decode (a gzip file opened in text mode)
    /// from there.
    start: Option<u64>,
    raised: Raised,
}

impl FileChunks {
    fn new(file: &Bound<'_, PyAny>, raised: Raised) -> PyResult<FileChunks> {
        let method = Method::of(file)?;
        let start = if method == Method::Read && file.hasattr("buffer")? {
            file.call_method0("tell").and_then(|t| t.extract::<u64>()).ok()
        } else {
            None
        };
        Ok(FileChunks {
            file: file.clone().unbind(),
            method,
            chunk: Vec::new(),
            consumed: 0,
            at_end: false,
            start,
            raised,
        })
    }

    /// Replaces the chunk with the file's next one (empty at its end).
    fn next_chunk(&mut self, py: Python<'_>) -> PyResult<()> {
        self.chunk.clear();
        self.consumed = 0;
        let file = self.file.bind(py);
        let got = match file.call_method1(self.method.name(), (CHUNK,)) {
            Err(err) if err.is_instance_of::<PyUnicodeDecodeError>(py) => match self.start.take() {
                // Nothing was taken from the file yet: its bytes are read
                // instead, as bytes given to `parseAds` are.
                Some(start) => {
                    file.call_method1("seek", (start,))?;
                    let buffer = file.getattr("buffer")?;
                    self.file = buffer.clone().unbind();
                    buffer.call_method1("read", (CHUNK,))?
                }
                None => return Err(err),
            },
            got => got?,
        };
        self.start = None;
        if let Ok(text) = got.cast::<PyString>() {
            self.chunk.extend_from_slice(text.to_cow()?.as_bytes());
        } else if let Ok(bytes) = got.cast::<PyBytes>() {
            self.chunk.extend_from_slice(bytes.as_bytes());
        } else {
            self.chunk.extend_from_slice(&got.extract::<Vec<u8>>()?);
        }
        self.at_end = self.chunk.is_empty();
        Ok(())
    }
}

impl Read for FileChunks {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for FileChunks {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.consumed == self.chunk.len() && !self.at_end {
            if let Err(err) = Python::attach(|py| self.next_chunk(py)) {
                let message = err.to_string();
                *self.raised.lock().unwrap_or_else(PoisonError::into_inner) = Some(err);
                self.at_end = true;
                self.chunk.clear();
                return Err(io::Error::other(message));
            }
        }
        Ok(&self.chunk[self.consumed..])
    }

    fn consume(&mut self, n: usize) {
        self.consumed = (self.consumed + n).min(self.chunk.len());
    }
}

/// What a stream is read through once its start has been looked at.
type Input = Box<dyn BufRead + Send>;

/// `input` ready for a reader, as [`format::decode`] makes a stream
/// ready (gzip decompressed, a byte order mark skipped, binary data and
/// other compressions refused), without reading more than the first chunk.
fn decode(mut input: Input, may_be_compressed: bool) -> Result<Input, InputError> {
    let start = peek(&mut input)?;
    if may_be_compressed && start.starts_with(&[0x1f, 0x8b]) {
        let compressed = Cursor::new(start).chain(input);
        let decompressed = flate2::bufread::MultiGzDecoder::new(compressed);
        return decode(Box::new(BufReader::with_capacity(CHUNK, decompressed)), false);
    }
    if let Some(problem) = InputError::of_start(&start[..start.len().min(PEEK)]) {
        return Err(problem);
    }
    let mut start = Cursor::new(start);
    start.set_position(if start.get_ref().starts_with(b"\xef\xbb\xbf") { 3 } else { 0 });
    Ok(Box::new(start.chain(input)))
}

/// The first bytes of `input`, taken from it: what it gives at once, or
/// more until there are three (enough to tell gzip and a byte order mark).
fn peek(input: &mut Input) -> io::Result<Vec<u8>> {
    let mut start = Vec::new();
    while start.len() < 3 {
        let got = input.fill_buf()?;
        if got.is_empty() {
            break;
        }
        start.extend_from_slice(got);
        let n = got.len();
        input.consume(n);
    }
    Ok(start)
}

/// The ads of a file object, read as `parseAds` iterates
/// (`classad_rs.parseAds(open(path))`).
#[pyclass(name = "AdStream", module = "classad_rs")]
pub(crate) struct PyAdStream {
    reader: Mutex<format::Reader<Input>>,
    raised: Raised,
}

impl PyAdStream {
    /// The ads of `file` in `format` (detected when `None`).
    pub(crate) fn new(py: Python<'_>, file: &Bound<'_, PyAny>, format: Option<Format>) -> PyResult<PyAdStream> {
        let raised = Raised::default();
        let chunks = FileChunks::new(file, raised.clone())?;
        let decoded = py.detach(|| decode(Box::new(chunks), true));
        let input = match decoded {
            Ok(input) => input,
            Err(_) if raised.lock().map(|r| r.is_some()).unwrap_or(true) => return Err(take(&raised)),
            Err(InputError::Io(e)) => return Err(e.into()),
            Err(e) => return Err(error(format!("Unable to parse input stream into a ClassAd: {e}"))),
        };
        Ok(PyAdStream { reader: Mutex::new(format::Reader::new(input, format)), raised })
    }
}

/// The exception the file raised (a `RuntimeError` if it was lost).
fn take(raised: &Raised) -> PyErr {
    raised
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
        .unwrap_or_else(|| PyRuntimeError::new_err("the file object's exception was lost"))
}

#[pymethods]
impl PyAdStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next ad; raises what the file raised, or `ClassAdException` for
    /// a malformed ad (and then ends).
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyClassAd>> {
        let mut reader = match self.reader.try_lock() {
            Ok(reader) => reader,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            // Waiting here, with the GIL, for a thread that needs the GIL
            // to read its chunk would never end.
            Err(TryLockError::WouldBlock) => {
                return Err(PyRuntimeError::new_err("these ads are being read by another thread"));
            }
        };
        let reader: &mut format::Reader<Input> = &mut reader;
        let next = py.detach(|| reader.next());
        if self.raised.lock().map(|r| r.is_some()).unwrap_or(true) {
            return Err(take(&self.raised));
        }
        match next {
            None => Ok(None),
            Some(Ok(ad)) => Ok(Some(PyClassAd { ad })),
            Some(Err(e)) => Err(stream_error(py, &e)),
        }
    }
}

/// The ads of the file object `file` (text or binary), read as they are
/// iterated, in the format `parser` names (detected when None); what
/// `parseAds` gives for a file object.
#[pyfunction]
#[pyo3(signature = (file, parser=None))]
pub(crate) fn parse_ads_stream(
    py: Python<'_>,
    file: &Bound<'_, PyAny>,
    parser: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyAdStream> {
    let format = format_arg(parser)?;
    PyAdStream::new(py, file, format)
}
