//! `ClassAdException`, the errors raised with it, `lastError`, and the
//! exceptions registered functions raise inside an evaluation ([`checked`]).

use std::cell::RefCell;
use std::sync::Mutex;

use pyo3::prelude::*;

pyo3::create_exception!(
    _classad_rs,
    ClassAdException,
    pyo3::exceptions::PyValueError,
    "A text that does not parse, or an operation a ClassAd refuses. A \
     `ValueError`, which is what classad2 raises for an unreadable stream."
);

/// The message of the last `ClassAdException` raised, for `lastError()`.
static LAST_ERROR: Mutex<String> = Mutex::new(String::new());

/// A `ClassAdException` with `message`, remembered for `lastError()`.
pub(crate) fn error(message: String) -> PyErr {
    remember(&message);
    ClassAdException::new_err(message)
}

/// Makes `message` what `lastError()` gives.
pub(crate) fn remember(message: &str) {
    if let Ok(mut last) = LAST_ERROR.lock() {
        message.clone_into(&mut last);
    }
}

/// `error(message)` with the `line` and `column` (1-based) of the problem
/// as attributes, and `offset` when known.
fn positioned(py: Python<'_>, message: String, line: usize, column: usize, offset: Option<usize>) -> PyErr {
    let exc = error(message);
    let value = exc.value(py);
    // Setting attributes on a fresh exception instance cannot fail.
    let _ = value.setattr("line", line);
    let _ = value.setattr("column", column);
    let _ = value.setattr("offset", offset);
    exc
}

/// The exception for text that does not parse as an expression or an ad.
pub(crate) fn parse_error(py: Python<'_>, err: &classad::ParseError) -> PyErr {
    let message = format!("Unable to parse string into a ClassAd: {err}");
    positioned(py, message, err.line, err.column, Some(err.offset))
}

/// The exception for a stream of ads that cannot be read.
pub(crate) fn stream_error(py: Python<'_>, err: &classad::format::FormatError) -> PyErr {
    let message = format!("Unable to parse input stream into a ClassAd: {err}");
    positioned(py, message, err.line, err.column, None)
}

/// The message of the last error: of the last `ClassAdException` this
/// module raised, or libclassad's reason for an ERROR an evaluation gave
/// since (`"strings can only be compared to strings"`), whichever came
/// last; `""` before the first. classad2 gives libclassad's last message,
/// which its own exceptions do not set.
#[pyfunction]
#[pyo3(name = "lastError")]
pub(crate) fn last_error() -> String {
    LAST_ERROR.lock().map(|last| last.clone()).unwrap_or_default()
}

thread_local! {
    /// The exception a registered function raised during the evaluation
    /// running on this thread.
    static RAISED: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// `result`, unless a registered function raised during the evaluation
/// that computed it: then that exception. Every evaluation's result goes
/// through here, which also hands libclassad's reason for an ERROR the
/// evaluation gave to `lastError()`.
pub(crate) fn checked<T>(result: T) -> PyResult<T> {
    if let Some(reason) = classad::eval::take_error_reason() {
        remember(reason);
    }
    match RAISED.with(|raised| raised.borrow_mut().take()) {
        Some(err) => Err(err),
        None => Ok(result),
    }
}

/// Keeps `err`, raised by a registered Python function during the
/// evaluation running on this thread, for [`checked`] to raise once the
/// evaluation returns.
pub(crate) fn raised_in_evaluation(err: PyErr) {
    RAISED.with(|raised| *raised.borrow_mut() = Some(err));
}
