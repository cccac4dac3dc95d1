//! Python functions callable from expressions: `register` (as the v1
//! `classad` module had) and `unregister`.
//!
//! A registered function gets its arguments evaluated, as Python values
//! (converted as `ExprTree.eval` converts), and its result is converted
//! back as a value given to an ad is. An exception it raises makes the
//! call ERROR inside the evaluation, and is raised again by the Python
//! call that evaluated (`eval`, `matches`, ...) once it returns.
//!
//! A registered function may evaluate expressions that call it (or
//! another registered function) again. Each such level costs native stack
//! (the interpreter's frames and the evaluator's) that Python's recursion
//! limit does not see, so the nesting is bounded here: past
//! [`MAX_NESTED_CALLS`] levels, or with less than [`STACK_RESERVE`] bytes of
//! the thread's stack left, the call raises `RecursionError` instead of
//! calling the function.

use std::cell::Cell;

use classad::functions::Args;
use classad::{EvalContext, EvalOptions, Value};

use pyo3::exceptions::{PyRecursionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::convert::{py_to_expr, value_to_py};
use crate::errors::raised_in_evaluation;

/// Makes `function` callable from expressions as `name` (any case;
/// `function.__name__` by default), replacing a function registered
/// earlier under that name. `ValueError` for a built-in's name or a name
/// that is not an identifier. A function that evaluates expressions which
/// call registered functions again may nest 256 levels deep (fewer on a
/// thread with a small stack); a deeper call raises `RecursionError`.
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

/// How many calls of registered functions may be nested in each other on
/// one thread (a function evaluating an expression that calls a registered
/// function, which evaluates...). A level costs about 9 KiB of stack in a
/// debug build and a quarter of that in a release one, so this many fit in a 8 MiB
/// main thread with room to spare; Python's default recursion limit (1000)
/// stops a simple recursive function at about 500 levels, before this.
pub(crate) const MAX_NESTED_CALLS: u32 = 256;

/// The stack a thread must have left for a registered function to be
/// called from inside another: room for a level and for what the function
/// itself does, on threads whose stack is smaller than [`MAX_NESTED_CALLS`]
/// levels need.
pub(crate) const STACK_RESERVE: usize = 128 * 1024;

thread_local! {
    /// Calls of registered functions running on this thread.
    static NESTED_CALLS: Cell<u32> = const { Cell::new(0) };
}

/// One level of calls of registered functions, counted while it lives.
struct Nesting;

impl Nesting {
    /// A level more, or the `RecursionError` that refuses it.
    fn enter() -> PyResult<Nesting> {
        let depth = NESTED_CALLS.get();
        if depth >= MAX_NESTED_CALLS {
            return Err(PyRecursionError::new_err(format!(
                "registered functions nested more than {MAX_NESTED_CALLS} levels deep \
                 (a registered function evaluating an expression that calls it again?)"
            )));
        }
        // The first call is not nested: it runs with whatever stack the
        // caller has, as any Python call does.
        let low = (depth > 0).then(stacker::remaining_stack).flatten().filter(|&left| left < STACK_RESERVE);
        if let Some(left) = low {
            return Err(PyRecursionError::new_err(format!(
                "registered functions nested {depth} levels deep: {} KiB of this thread's stack left, \
                 a call needs {} KiB (a registered function evaluating an expression that calls it again?)",
                left / 1024,
                STACK_RESERVE / 1024
            )));
        }
        NESTED_CALLS.set(depth + 1);
        Ok(Nesting)
    }
}

impl Drop for Nesting {
    fn drop(&mut self) {
        NESTED_CALLS.set(NESTED_CALLS.get().saturating_sub(1));
    }
}

/// Calls the Python function with the call's arguments evaluated, unless
/// that would nest calls too deep (see the module's documentation).
fn call(function: &Py<PyAny>, args: &mut Args<'_, '_>) -> Value {
    let values: Vec<Value> = (0..args.len()).map(|i| args.eval(i)).collect();
    let result = Python::attach(|py| {
        let _level = Nesting::enter()?;
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
