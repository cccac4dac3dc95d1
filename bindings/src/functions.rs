//! Python functions callable from expressions: `register` (as the v1
//! `classad` module had) and `unregister`.
//!
//! A registered function gets its arguments evaluated, as Python values
//! (converted as `ExprTree.eval` converts), and its result is converted
//! back as a value given to an ad is. An exception it raises makes the
//! call ERROR inside the evaluation, and is raised again by the Python
//! call that evaluated (`eval`, `matches`, ...) once it returns.

use classad::functions::Args;
use classad::{EvalContext, EvalOptions, Value};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::convert::{py_to_expr, value_to_py};
use crate::errors::raised_in_evaluation;

/// Makes `function` callable from expressions as `name` (any case;
/// `function.__name__` by default), replacing a function registered
/// earlier under that name. `ValueError` for a built-in's name or a name
/// that is not an identifier.
#[pyfunction]
#[pyo3(signature = (function, name=None))]
pub(crate) fn register(function: &Bound<'_, PyAny>, name: Option<String>) -> PyResult<()> {
    if !function.is_callable() {
        return Err(PyTypeError::new_err("register() needs a callable"));
    }
    let name = match name {
        Some(name) => name,
        None => function.getattr("__name__")?.extract()?,
    };
    let function = function.clone().unbind();
    classad::functions::unregister(&name);
    classad::functions::register(&name, move |args: &mut Args<'_, '_>| call(&function, args))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Removes the function registered as `name`; False if there was none.
#[pyfunction]
pub(crate) fn unregister(name: &str) -> bool {
    classad::functions::unregister(name)
}

/// Calls the Python function with the call's arguments evaluated.
fn call(function: &Py<PyAny>, args: &mut Args<'_, '_>) -> Value {
    let values: Vec<Value> = (0..args.len()).map(|i| args.eval(i)).collect();
    let result = Python::attach(|py| {
        let py_args = values.iter().map(|value| value_to_py(py, value)).collect::<PyResult<Vec<_>>>()?;
        let result = function.call1(py, PyTuple::new(py, py_args)?)?;
        let expr = py_to_expr(result.bind(py))?;
        // Lists and ads given back are evaluated into values.
        Ok::<Value, PyErr>(EvalContext::new(&EvalOptions::new()).eval(&expr))
    });
    result.unwrap_or_else(|err| {
        raised_in_evaluation(err);
        Value::Error
    })
}
