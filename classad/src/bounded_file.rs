//! Reading an input file whole, bounded: a limit on the file's size and on
//! the length of each of its lines, so that a huge file, `/dev/zero` or a
//! pipe that never ends gives an error naming the file instead of filling
//! the memory.
//!
//! Every tool of the workspace that reads a whole text file (rules,
//! traces, scenarios, machine descriptions, accountant logs) reads it
//! here, under the process-wide [`FileLimits`].
//!
//! ```
//! use classad::bounded_file::{self, FileError, FileLimits};
//! let dir = std::env::temp_dir().join(format!("bounded-file-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("rules");
//! std::fs::write(&path, "a = 1\nb = 2\n")?;
//! assert_eq!(bounded_file::read_to_string(&path)?, "a = 1\nb = 2\n");
//! let small = FileLimits { max_file: 4, ..FileLimits::default() };
//! let err = bounded_file::read_with(&path, small).unwrap_err();
//! assert!(matches!(err, FileError::TooLarge { limit: 4, .. }));
//! assert!(err.to_string().contains("rules"));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The size limits of an input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileLimits {
    /// Most bytes in one file (64 MiB unless changed).
    pub max_file: u64,
    /// Most bytes in one line of it, without its line break (16 MiB
    /// unless changed).
    pub max_line: usize,
}

const DEFAULT_MAX_FILE: u64 = 64 << 20;
const DEFAULT_MAX_LINE: usize = 16 << 20;

static MAX_FILE: AtomicU64 = AtomicU64::new(DEFAULT_MAX_FILE);
static MAX_LINE: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_LINE);

impl Default for FileLimits {
    fn default() -> FileLimits {
        FileLimits { max_file: DEFAULT_MAX_FILE, max_line: DEFAULT_MAX_LINE }
    }
}

impl FileLimits {
    /// The limits in force for the process.
    pub fn current() -> FileLimits {
        FileLimits { max_file: MAX_FILE.load(Ordering::Relaxed), max_line: MAX_LINE.load(Ordering::Relaxed) }
    }

    /// Puts these limits in force for the whole process, from the next file
    /// read on.
    pub fn install(self) {
        MAX_FILE.store(self.max_file, Ordering::Relaxed);
        MAX_LINE.store(self.max_line, Ordering::Relaxed);
    }
}

/// Why an input file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file holds more than [`FileLimits::max_file`] bytes.
    #[error("{}: larger than the limit of {limit} bytes for an input file", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        limit: u64,
    },
    /// A line of the file is longer than [`FileLimits::max_line`] bytes.
    #[error("{}:{line}: line longer than the limit of {limit} bytes", path.display())]
    LineTooLong {
        /// The file.
        path: PathBuf,
        /// 1-based number of the line.
        line: usize,
        /// The limit.
        limit: usize,
    },
    /// The file is not UTF-8 text.
    #[error("{}:{line}: not UTF-8 text", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// 1-based number of the line with the first invalid byte.
        line: usize,
    },
}

impl FileError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            FileError::Io { path, .. }
            | FileError::TooLarge { path, .. }
            | FileError::LineTooLong { path, .. }
            | FileError::NotUtf8 { path, .. } => path,
        }
    }
}

/// The text of the file at `path`, under the process's [`FileLimits`].
pub fn read_to_string(path: &Path) -> Result<String, FileError> {
    read_with(path, FileLimits::current())
}

/// The text of the file at `path`, under `limits`.
pub fn read_with(path: &Path, limits: FileLimits) -> Result<String, FileError> {
    text(path, read_bytes_with(path, limits)?)
}

/// The text `reader` gives (standard input, say), under the process's
/// [`FileLimits`]; `name` names it in errors.
pub fn read_stream(reader: impl Read, name: &Path) -> Result<String, FileError> {
    let limits = FileLimits::current();
    text(name, bounded(reader, name, limits)?)
}

/// The bytes of the file at `path`, under `limits`, for a reader that
/// decodes them itself.
pub fn read_bytes_with(path: &Path, limits: FileLimits) -> Result<Vec<u8>, FileError> {
    let io_error = |source| FileError::Io { path: path.to_path_buf(), source };
    let file = File::open(path).map_err(io_error)?;
    let meta = file.metadata().map_err(io_error)?;
    if meta.is_file() && meta.len() > limits.max_file {
        return Err(FileError::TooLarge { path: path.to_path_buf(), limit: limits.max_file });
    }
    bounded(file, path, limits)
}

/// Reads `reader` to its end, keeping at most `limits.max_file` bytes;
/// checks the lines' length.
fn bounded(reader: impl Read, path: &Path, limits: FileLimits) -> Result<Vec<u8>, FileError> {
    let mut bytes = Vec::new();
    reader
        .take(limits.max_file.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| FileError::Io { path: path.to_path_buf(), source })?;
    if bytes.len() as u64 > limits.max_file {
        return Err(FileError::TooLarge { path: path.to_path_buf(), limit: limits.max_file });
    }
    if bytes.len() > limits.max_line {
        let mut start = 0;
        for (index, end) in memchr::memchr_iter(b'\n', &bytes).chain([bytes.len()]).enumerate() {
            let line = &bytes[start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.len() > limits.max_line {
                return Err(FileError::LineTooLong {
                    path: path.to_path_buf(),
                    line: index + 1,
                    limit: limits.max_line,
                });
            }
            start = (end + 1).min(bytes.len());
        }
    }
    Ok(bytes)
}

fn text(path: &Path, bytes: Vec<u8>) -> Result<String, FileError> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = memchr::memchr_iter(b'\n', &e.as_bytes()[..valid]).count() + 1;
        FileError::NotUtf8 { path: path.to_path_buf(), line }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bounded-file-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir.join(name)
    }

    #[test]
    fn a_sparse_gigabyte_is_refused_by_its_size() {
        let path = temp("huge");
        File::create(&path).and_then(|f| f.set_len(1 << 30)).expect("sparse file");
        let err = read_to_string(&path).unwrap_err();
        assert!(matches!(err, FileError::TooLarge { limit: DEFAULT_MAX_FILE, .. }), "{err}");
        assert!(err.to_string().starts_with(&path.display().to_string()), "{err}");
        let _ = std::fs::remove_file(&path);
    }

    #[cfg(unix)]
    #[test]
    fn dev_zero_stops_at_the_limit() {
        let small = FileLimits { max_file: 1 << 20, max_line: 1 << 20 };
        let err = read_with(Path::new("/dev/zero"), small).unwrap_err();
        assert!(matches!(err, FileError::TooLarge { limit: 1048576, .. }), "{err}");
        assert!(err.to_string().contains("/dev/zero"), "{err}");
    }

    #[test]
    fn a_long_line_is_named_by_its_number() {
        let path = temp("lines");
        std::fs::write(&path, format!("short\r\n{}\nshort\n", "x".repeat(100))).expect("write");
        let limits = FileLimits { max_file: 1 << 20, max_line: 99 };
        let err = read_with(&path, limits).unwrap_err();
        assert!(matches!(err, FileError::LineTooLong { line: 2, limit: 99, .. }), "{err}");
        assert!(err.to_string().contains("lines:2: line longer"), "{err}");
        assert!(read_with(&path, FileLimits { max_line: 100, ..limits }).is_ok());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn invalid_utf8_names_its_line() {
        let path = temp("latin1");
        std::fs::write(&path, b"ok\nbad \xe9\n").expect("write");
        let err = read_to_string(&path).unwrap_err();
        assert!(matches!(err, FileError::NotUtf8 { line: 2, .. }), "{err}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_stream_is_bounded_too() {
        let endless = io::repeat(b'a');
        let limits = FileLimits { max_file: 1000, max_line: 10 };
        let err = bounded(endless, Path::new("<stdin>"), limits).unwrap_err();
        assert!(matches!(err, FileError::TooLarge { limit: 1000, .. }), "{err}");
    }
}
