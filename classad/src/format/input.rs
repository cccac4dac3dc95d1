//! Opening a byte stream of ads: what its first bytes say it is.
//!
//! [`decode`] looks at the start of a stream before a [`Reader`](super::Reader)
//! sees it: gzip is decompressed (files such as `pool.ads.gz` read as they
//! are), a UTF-8 byte order mark is skipped, and the inputs that cannot be
//! ClassAd text get a clear error instead of "invalid UTF-8" at some column:
//! other compressions (zstd, xz, bzip2), UTF-16 text, and binary data.
//! [`open`] does the same for a file, and refuses a directory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;

/// How many bytes of the start of a stream are looked at.
const PEEK: usize = 1024;

/// A stream that cannot be read as ClassAd text.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Compressed in a format this library does not decompress.
    #[error("{format}-compressed input: not supported (decompress it first, e.g. with `{tool} -d`)")]
    Compressed {
        /// The compression format (`zstd`, `xz`, `bzip2`).
        format: &'static str,
        /// The command that decompresses it.
        tool: &'static str,
    },
    /// UTF-16 text (it starts with a UTF-16 byte order mark).
    #[error("UTF-16 text: not supported (convert it to UTF-8 first, e.g. with `iconv -f UTF-16 -t UTF-8`)")]
    Utf16,
    /// Bytes that are not text: control characters other than white space,
    /// or NUL, near the start.
    #[error("not a ClassAd file (binary data)")]
    Binary,
    /// A directory where a file was expected.
    #[error("is a directory")]
    Directory,
    /// The stream could not be read.
    #[error("{0}")]
    Io(#[from] io::Error),
}

impl InputError {
    /// What `start`, the first bytes of an input, says it is when it is not
    /// ClassAd text as it stands: compressed (gzip too, which [`decode`]
    /// decompresses), UTF-16, or binary data; `None` for text (a UTF-8 byte
    /// order mark included). For readers that cannot use [`decode`]
    /// because they must not read ahead.
    ///
    /// ```
    /// use classad::format::InputError;
    /// assert!(InputError::of_start(b"\xef\xbb\xbfCpus = 8\n").is_none());
    /// let gzip = InputError::of_start(&[0x1f, 0x8b, 0x08, 0x00]).map(|e| e.to_string());
    /// assert_eq!(gzip.as_deref(), Some("gzip-compressed input: not supported (decompress it first, e.g. with `gzip -d`)"));
    /// ```
    pub fn of_start(start: &[u8]) -> Option<InputError> {
        if start.starts_with(&[0x1f, 0x8b]) {
            return Some(InputError::Compressed { format: "gzip", tool: "gzip" });
        }
        if let Some((format, tool)) = compression(start) {
            return Some(InputError::Compressed { format, tool });
        }
        if start.starts_with(&[0xff, 0xfe]) || start.starts_with(&[0xfe, 0xff]) {
            return Some(InputError::Utf16);
        }
        let text = start.strip_prefix(b"\xef\xbb\xbf").unwrap_or(start);
        text.iter().any(|&b| is_binary(b)).then_some(InputError::Binary)
    }
}

/// `input` ready for a [`Reader`](super::Reader): decompressed when it is
/// gzip, without its UTF-8 byte order mark, or an error saying what it is
/// when it cannot be ClassAd text.
///
/// ```
/// use std::io::Read;
/// use classad::format::{self, InputError};
///
/// let mut text = String::new();
/// format::decode(&b"\xef\xbb\xbfCpus = 8\n"[..])?.read_to_string(&mut text)?;
/// assert_eq!(text, "Cpus = 8\n");
///
/// let binary = format::decode(&b"\x7fELF\x02\x01\x01\x00"[..]);
/// assert_eq!(binary.err().map(|e| e.to_string()).as_deref(), Some("not a ClassAd file (binary data)"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode<'a, R: BufRead + 'a>(input: R) -> Result<Box<dyn BufRead + 'a>, InputError> {
    decode_within(Box::new(input), true)
}

/// [`decode`] of the file at `path`; a directory is an error.
///
/// ```
/// use classad::format::{self, InputError};
/// assert!(matches!(format::open(std::env::temp_dir().as_path()), Err(InputError::Directory)));
/// ```
pub fn open(path: &Path) -> Result<Box<dyn BufRead>, InputError> {
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(InputError::Directory);
    }
    decode(BufReader::with_capacity(1 << 16, file))
}

fn decode_within<'a>(
    mut input: Box<dyn BufRead + 'a>,
    may_be_compressed: bool,
) -> Result<Box<dyn BufRead + 'a>, InputError> {
    let start = peek(&mut input)?;
    if may_be_compressed && start.starts_with(&[0x1f, 0x8b]) {
        let decompressed = flate2::bufread::MultiGzDecoder::new(Cursor::new(start).chain(input));
        return decode_within(Box::new(BufReader::with_capacity(1 << 16, decompressed)), false);
    }
    if let Some(error) = InputError::of_start(&start) {
        return Err(error);
    }
    let skip = if start.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
    let mut start = Cursor::new(start);
    start.set_position(skip as u64);
    Ok(Box::new(start.chain(input)))
}

/// The first [`PEEK`] bytes of `input` (fewer when it ends sooner), taken
/// from it.
fn peek(input: &mut dyn BufRead) -> io::Result<Vec<u8>> {
    let mut start = Vec::with_capacity(PEEK);
    while start.len() < PEEK {
        let buffered = match input.fill_buf() {
            Ok(buffered) => buffered,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffered.is_empty() {
            break;
        }
        let n = buffered.len().min(PEEK - start.len());
        start.extend_from_slice(&buffered[..n]);
        input.consume(n);
    }
    Ok(start)
}

/// The compression (and its tool) that `start` is the start of, among
/// those not decompressed here.
fn compression(start: &[u8]) -> Option<(&'static str, &'static str)> {
    if start.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(("zstd", "zstd"))
    } else if start.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        Some(("xz", "xz"))
    } else if start.len() >= 10
        && start.starts_with(b"BZh")
        && (b'1'..=b'9').contains(&start[3])
        && &start[4..10] == b"1AY&SY"
    {
        Some(("bzip2", "bzip2"))
    } else {
        None
    }
}

/// A byte that text does not hold: a control character other than tab,
/// line feed, vertical tab, form feed and carriage return.
fn is_binary(byte: u8) -> bool {
    matches!(byte, 0x00..=0x08 | 0x0e..=0x1f)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn read(bytes: &[u8]) -> Result<String, String> {
        let mut text = String::new();
        let mut input = decode(bytes).map_err(|e| e.to_string())?;
        input.read_to_string(&mut text).map_err(|e| e.to_string())?;
        Ok(text)
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(bytes).expect("in memory");
        encoder.finish().expect("in memory")
    }

    #[test]
    fn text_passes_unchanged() {
        assert_eq!(read(b"A = 1\n\tB = \"\xc3\xa9\"\r\n").as_deref(), Ok("A = 1\n\tB = \"é\"\r\n"));
        assert_eq!(read(b"").as_deref(), Ok(""));
        let long = "A = 1\n".repeat(1000);
        assert_eq!(read(long.as_bytes()), Ok(long));
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        assert_eq!(read(b"\xef\xbb\xbfA = 1\n").as_deref(), Ok("A = 1\n"));
        assert_eq!(read(&gzip(b"\xef\xbb\xbf[ a = 1 ]")).as_deref(), Ok("[ a = 1 ]"));
    }

    #[test]
    fn gzip_is_decompressed_even_of_several_members() {
        let text = "A = 1\n\n".repeat(2000);
        assert_eq!(read(&gzip(text.as_bytes())), Ok(text));
        let mut two = gzip(b"A = 1\n\n");
        two.extend(gzip(b"A = 2\n"));
        assert_eq!(read(&two).as_deref(), Ok("A = 1\n\nA = 2\n"));
    }

    #[test]
    fn what_cannot_be_text_says_what_it_is() {
        let zstd = read(&[0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x05]).unwrap_err();
        assert_eq!(zstd, "zstd-compressed input: not supported (decompress it first, e.g. with `zstd -d`)");
        assert!(read(b"\xfd7zXZ\x00\x00\x04").unwrap_err().starts_with("xz-compressed input"));
        assert!(read(b"BZh91AY&SY\x12\x34").unwrap_err().starts_with("bzip2-compressed input"));
        assert!(read(b"\xff\xfeA\x00").unwrap_err().starts_with("UTF-16 text"));
        assert_eq!(read(b"\x7fELF\x02\x01\x01\x00").unwrap_err(), "not a ClassAd file (binary data)");
        assert_eq!(read(&gzip(b"\x00\x01\x02")).unwrap_err(), "not a ClassAd file (binary data)");
        // Text that merely starts like a signature is text.
        assert_eq!(read(b"BZh9 = 1\n").as_deref(), Ok("BZh9 = 1\n"));
    }

    #[test]
    fn a_stream_given_a_byte_at_a_time_is_seen_whole() {
        let gz = gzip(b"A = 1\n");
        let trickle = BufReader::with_capacity(1, &gz[..]);
        let mut text = String::new();
        decode(trickle).expect("gzip").read_to_string(&mut text).expect("decompresses");
        assert_eq!(text, "A = 1\n");
    }
}
