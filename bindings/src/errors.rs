//! `ClassAdException` and the errors raised with it.

use pyo3::prelude::*;

pyo3::create_exception!(
    _classad_rs,
    ClassAdException,
    pyo3::exceptions::PyException,
    "A text that does not parse, or an operation a ClassAd refuses."
);

/// The exception for a parse error: `ClassAdException` with the message,
/// and `line`, `column` and `offset` attributes (1-based line and column).
pub(crate) fn parse_error(py: Python<'_>, err: &classad::ParseError) -> PyErr {
    let exc = ClassAdException::new_err(format!("Unable to parse string into a ClassAd: {err}"));
    let value = exc.value(py);
    // Setting attributes on a fresh exception instance cannot fail.
    let _ = value.setattr("line", err.line);
    let _ = value.setattr("column", err.column);
    let _ = value.setattr("offset", err.offset);
    exc
}
