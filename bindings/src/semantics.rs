//! The `semantics=` argument of every call that evaluates.
//!
//! classad2 has no such argument: libclassad keeps one process-wide switch
//! that starts at new semantics and that the first `parseAds`, `parseOne`
//! or `parseNext` of an ad (or `import htcondor2`) turns to old semantics
//! for good. What a classad2 script sees is therefore old semantics,
//! nearly always; so that such scripts run unchanged, old semantics is the
//! default here, and `semantics="new"` asks for the other.

use classad::{EvalOptions, Semantics};
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// The semantics of a call that does not name one.
pub(crate) const DEFAULT: Semantics = Semantics::Old;

/// A `semantics=` argument: `"old"` or `"new"`, in any case.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SemanticsArg(pub(crate) Semantics);

impl<'a, 'py> FromPyObject<'a, 'py> for SemanticsArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<SemanticsArg> {
        // A literal "old" or "new" in the caller's code is the interned
        // string, so comparing identities spares reading the text (this
        // argument is on the path of every `eval`).
        let py = obj.py();
        if obj.is(intern!(py, "old")) {
            return Ok(SemanticsArg(Semantics::Old));
        }
        if obj.is(intern!(py, "new")) {
            return Ok(SemanticsArg(Semantics::New));
        }
        let name = obj.cast::<PyString>()?;
        let name = name.to_cow()?;
        if name.eq_ignore_ascii_case("old") {
            Ok(SemanticsArg(Semantics::Old))
        } else if name.eq_ignore_ascii_case("new") {
            Ok(SemanticsArg(Semantics::New))
        } else {
            Err(PyValueError::new_err(format!("semantics must be \"old\" or \"new\", not {name:?}")))
        }
    }
}

/// The evaluation options of a call: its semantics, or [`DEFAULT`].
pub(crate) fn options(semantics: Option<SemanticsArg>) -> EvalOptions {
    EvalOptions::new().semantics(semantics.map_or(DEFAULT, |s| s.0))
}
