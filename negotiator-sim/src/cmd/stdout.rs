//! The commands' standard output. A reader that goes away (`| head`, a
//! closed pipe) ends the printing, not the command: what is left to print is
//! dropped without a word, the command still writes its files, and its exit
//! status is what it would have been. Any other failure to write (a full
//! disk under `> file`) is said once on stderr and makes the exit status 1
//! ([`failed`]).
//!
//! Every command prints through [`stdout`] (or the [`out!`] and [`outln!`]
//! macros), never with `print!`, which panics on a closed pipe.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once the reader of standard output has gone away.
static CLOSED: AtomicBool = AtomicBool::new(false);
/// Set once writing standard output failed for another reason.
static FAILED: AtomicBool = AtomicBool::new(false);

/// Standard output, locked, that drops what it is given once the reader has
/// gone away.
pub struct Stdout {
    inner: io::StdoutLock<'static>,
}

/// The commands' standard output (see the module's documentation).
pub fn stdout() -> Stdout {
    Stdout { inner: io::stdout().lock() }
}

/// Whether writing standard output failed for a reason other than its
/// reader going away (said on stderr when it happened).
pub fn failed() -> bool {
    FAILED.load(Ordering::Relaxed)
}

/// Whether `e` means that nobody reads standard output any more. (A
/// standard output closed before the command started, `>&-`, needs nothing
/// here: Rust's runtime opens `/dev/null` in its place.)
fn reader_gone(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

impl Stdout {
    /// `result` of a write, or `done` when the reader has gone away or the
    /// write failed (said once on stderr, and remembered for [`failed`]).
    fn settle<T>(&self, result: io::Result<T>, done: T) -> io::Result<T> {
        match result {
            Err(e) if reader_gone(&e) => {
                CLOSED.store(true, Ordering::Relaxed);
                Ok(done)
            }
            Err(e) => {
                if !FAILED.swap(true, Ordering::Relaxed) {
                    eprintln!("negotiator-sim: writing standard output: {e}");
                }
                Ok(done)
            }
            ok => ok,
        }
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if CLOSED.load(Ordering::Relaxed) || FAILED.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        let result = self.inner.write(buf);
        self.settle(result, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if CLOSED.load(Ordering::Relaxed) || FAILED.load(Ordering::Relaxed) {
            return Ok(());
        }
        let result = self.inner.flush();
        self.settle(result, ())
    }
}

/// `print!` to the commands' [`stdout`].
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // Cannot fail: a failure is recorded and said by the writer.
        let _ = write!($crate::cmd::stdout::stdout(), $($arg)*);
    }};
}

/// `println!` to the commands' [`stdout`].
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // Cannot fail: a failure is recorded and said by the writer.
        let _ = writeln!($crate::cmd::stdout::stdout(), $($arg)*);
    }};
}

pub(crate) use {out, outln};
