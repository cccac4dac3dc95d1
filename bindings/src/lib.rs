//! The native half of the `classad_rs` Python module: thin wrappers of
//! [`classad`] types, conversions between ClassAd values and Python
//! objects, and the errors. The Python package (`python/classad_rs`)
//! re-exports these with the `classad2` names.
//!
//! Every function that evaluates takes the semantics as an explicit
//! argument (`"old"` by default, as classad2 scripts see it; see the
//! `semantics` module); nothing in the module changes it behind the caller's
//! back.

mod accountant;
mod ad;
mod arrow;
mod config;
mod convert;
mod errors;
mod expr_tree;
mod file_limits;
mod functions;
mod matching;
mod negotiator;
mod objects;
mod outcome;
mod parsing;
mod repr;
mod schedd;
mod semantics;
mod simulation;
mod startd;
mod stream;

use pyo3::prelude::*;

// The module's own allocations (ads, cycles, simulations) go through
// mimalloc, as the `negotiator-sim` command's do: simulations spend much of
// their time allocating and freeing small ads, where it is markedly faster
// than the system allocator. Python's objects are not affected.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The module `classad_rs._classad_rs`.
#[pymodule]
fn _classad_rs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<objects::PyClassAd>()?;
    m.add_class::<objects::PyExprTree>()?;
    m.add("ClassAdException", m.py().get_type::<errors::ClassAdException>())?;
    m.add_function(wrap_pyfunction!(parsing::parse_ads, m)?)?;
    m.add_function(wrap_pyfunction!(parsing::parse_ads_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(parsing::parse_ads_file, m)?)?;
    m.add_function(wrap_pyfunction!(parsing::parse_next, m)?)?;
    m.add_function(wrap_pyfunction!(stream::parse_ads_stream, m)?)?;
    m.add_class::<stream::PyAdStream>()?;
    m.add_function(wrap_pyfunction!(errors::last_error, m)?)?;
    m.add_function(wrap_pyfunction!(file_limits::max_input_size, m)?)?;
    m.add_function(wrap_pyfunction!(file_limits::set_max_input_size, m)?)?;
    m.add_class::<matching::PyPool>()?;
    m.add_class::<matching::PyMatch>()?;
    m.add_class::<matching::PyAnalysis>()?;
    m.add_function(wrap_pyfunction!(matching::analyze, m)?)?;
    m.add_class::<schedd::PyJobTransforms>()?;
    m.add_class::<schedd::PySubmitRequirements>()?;
    m.add_class::<schedd::PySubmitVerdict>()?;
    m.add_class::<config::PyConfig>()?;
    m.add_class::<accountant::PyAccountant>()?;
    m.add_class::<accountant::PyPriorityRow>()?;
    m.add_class::<negotiator::PyNegotiator>()?;
    m.add_class::<negotiator::PyJobQueues>()?;
    m.add_class::<outcome::PyCycleOutcome>()?;
    m.add_class::<outcome::PyCycleMatch>()?;
    m.add_class::<outcome::PyRejection>()?;
    m.add_class::<outcome::PySubmitterFigures>()?;
    m.add_class::<outcome::PyGroupFigures>()?;
    m.add_class::<outcome::PyGroupRound>()?;
    m.add_class::<outcome::PyGroupRoundTotals>()?;
    m.add_class::<outcome::PyCycleStats>()?;
    m.add_class::<simulation::PyScenario>()?;
    m.add_class::<simulation::PySimulation>()?;
    m.add_class::<simulation::PySimulationProgress>()?;
    m.add_class::<simulation::PySimulationResults>()?;
    m.add_class::<startd::PyStartdPolicy>()?;
    m.add_class::<startd::PySlotState>()?;
    m.add_class::<startd::PyTransition>()?;
    m.add_class::<startd::PyStartdAction>()?;
    m.add_class::<startd::PyStep>()?;
    m.add_function(wrap_pyfunction!(functions::register, m)?)?;
    m.add_function(wrap_pyfunction!(functions::unregister, m)?)?;
    m.add_function(wrap_pyfunction!(expr_tree::attribute, m)?)?;
    m.add_function(wrap_pyfunction!(expr_tree::function, m)?)?;
    m.add_function(wrap_pyfunction!(expr_tree::literal, m)?)?;
    m.add_function(wrap_pyfunction!(parsing::quote, m)?)?;
    m.add_function(wrap_pyfunction!(parsing::unquote, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
