//! `max_input_size()` and `set_max_input_size(n)`: the most bytes of one
//! file the module reads whole (accountant logs, scenarios, config files,
//! transform rules, traces, items files), as `negotiator-sim
//! --max-input-size` sets it for the command (see `classad::bounded_file`).

use classad::bounded_file::FileLimits;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The most bytes of one file read whole (64 MiB unless changed).
#[pyfunction]
pub(crate) fn max_input_size() -> u64 {
    FileLimits::current().max_file
}

/// Sets the most bytes of one file read whole, for the whole process, from
/// the next file read on; raises `ValueError` for 0.
#[pyfunction]
pub(crate) fn set_max_input_size(bytes: u64) -> PyResult<()> {
    if bytes == 0 {
        return Err(PyValueError::new_err("set_max_input_size: the limit is at least 1 byte"));
    }
    FileLimits { max_file: bytes, ..FileLimits::current() }.install();
    Ok(())
}
