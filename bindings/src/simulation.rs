//! A pool over simulated time (`negotiator_sim::simulate`): `Scenario`,
//! `Simulation` with `run(until, progress)`, and `SimulationResults`, the
//! tables `users`, `groups`, `cycles`, `jobs` as columns for pyarrow and
//! pandas. The GIL is released while a scenario is read, a pool is built
//! and a simulation runs; it is taken back only to call `progress`.

use std::path::PathBuf;
use std::sync::Mutex;

use negotiator_sim::footprint::{self, Limit};
use negotiator_sim::simulate::results::{Results, Summary};
use negotiator_sim::simulate::run::{Progress, Simulation};
use negotiator_sim::simulate::scenario::{parse_duration, Scenario, ScenarioError};
use negotiator_sim::simulate::SimError;
use negotiator_sim::table::{Column as SimColumn, Table};
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};

use crate::arrow::{self, Column};
use crate::errors::error;
use crate::repr::{repr, Repr};

/// The name a scenario given as text gets, in errors; its relative file
/// names are found from the current directory.
const TEXT_ORIGIN: &str = "<scenario>";

/// How many progress reports a run makes, about (one per cycle at most).
const REPORTS: i64 = 100;

/// A duration argument (`until=`), in whole simulated seconds: an `int`,
/// a `float` (rounded) or a text read as the scenario file and the
/// command line read one (`"90s"`, `"8h"`, `"1.5d"`, `"3600"`). A
/// negative or non-finite number, or a text that is not a duration, is a
/// `ValueError`; another type a `TypeError`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DurationArg(pub(crate) i64);

impl<'a, 'py> FromPyObject<'a, 'py> for DurationArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<DurationArg> {
        let seconds = if obj.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err("a duration is an int, a float or a text such as \"8h\", not a bool"));
        } else if obj.is_instance_of::<PyInt>() {
            let n: i64 = obj.extract()?;
            if n < 0 {
                return Err(PyValueError::new_err(format!("a duration is not negative: {n}")));
            }
            return Ok(DurationArg(n));
        } else if obj.is_instance_of::<PyFloat>() {
            let x: f64 = obj.extract()?;
            if !x.is_finite() || x < 0.0 {
                return Err(PyValueError::new_err(format!("a duration is a non-negative finite number, not {x}")));
            }
            x
        } else if let Ok(text) = obj.cast::<PyString>() {
            parse_duration(&text.to_cow()?).map_err(PyValueError::new_err)?
        } else {
            let kind = obj.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "a duration is an int, a float or a text such as \"8h\", not {kind}"
            )));
        };
        // As the command line's --until: to the nearest second.
        Ok(DurationArg(seconds.round().min(i64::MAX as f64) as i64))
    }
}

/// The exception for a scenario that cannot be read: `OSError` (its
/// subclass for the cause) for a file that cannot be read, else
/// `ClassAdException` naming the file, line and column.
fn scenario_error(e: ScenarioError) -> PyErr {
    match e {
        ScenarioError::Io { path, source } => {
            PyErr::from(std::io::Error::new(source.kind(), format!("{}: {source}", path.display())))
        }
        other => error(other.to_string()),
    }
}

/// The exception for a simulation that cannot be built or run.
fn sim_error(e: SimError) -> PyErr {
    match e {
        SimError::Scenario(e) => scenario_error(e),
        other => error(other.to_string()),
    }
}

/// A scenario: the pool (machine types, HTCondor configuration), the
/// users and their workloads (or a recorded trace), the duration and the
/// seed, from TOML (the format of `negotiator-sim simulate`).
///
/// `Scenario(text, path=None, seed=None, config=None)`: from TOML text;
/// `path` names it in errors and anchors its relative file names (the
/// current directory without it); `seed` overrides the scenario's;
/// `config` is HTCondor configuration read after the scenario's own (its
/// definitions win: a policy to try). `Scenario.read(path)` reads a file.
/// Scenarios pickle (as their text).
#[pyclass(name = "Scenario", module = "classad_rs", frozen)]
pub(crate) struct PyScenario {
    pub(crate) scenario: Scenario,
    text: String,
    origin: Option<PathBuf>,
    /// Configuration added after the scenario's.
    extra_config: String,
}

impl PyScenario {
    fn copy(&self) -> PyScenario {
        PyScenario {
            scenario: self.scenario.clone(),
            text: self.text.clone(),
            origin: self.origin.clone(),
            extra_config: self.extra_config.clone(),
        }
    }

    fn parse(
        py: Python<'_>,
        text: String,
        origin: Option<PathBuf>,
        seed: Option<u64>,
        config: Option<String>,
    ) -> PyResult<PyScenario> {
        let path = origin.clone().unwrap_or_else(|| PathBuf::from(TEXT_ORIGIN));
        let scenario = py.detach(|| Scenario::from_toml_str(&text, &path)).map_err(scenario_error)?;
        let mut me = PyScenario { scenario, text, origin, extra_config: String::new() };
        if let Some(seed) = seed {
            me.scenario.seed = seed;
        }
        if let Some(config) = config {
            me.add_config(&config);
        }
        Ok(me)
    }

    fn add_config(&mut self, config: &str) {
        for text in [&mut self.scenario.config, &mut self.extra_config] {
            text.push_str(config);
            if !config.ends_with('\n') {
                text.push('\n');
            }
        }
    }
}

#[pymethods]
impl PyScenario {
    #[new]
    #[pyo3(signature = (text, path=None, seed=None, config=None))]
    fn new(
        py: Python<'_>,
        text: String,
        path: Option<PathBuf>,
        seed: Option<u64>,
        config: Option<String>,
    ) -> PyResult<PyScenario> {
        PyScenario::parse(py, text, path, seed, config)
    }

    /// The scenario in the TOML file at `path` (`OSError` when it cannot be
    /// read, `ClassAdException` when it is wrong).
    #[classmethod]
    #[pyo3(signature = (path, seed=None, config=None))]
    fn read(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        path: PathBuf,
        seed: Option<u64>,
        config: Option<String>,
    ) -> PyResult<PyScenario> {
        let text = py.detach(|| negotiator_sim::simulate::scenario::read_text(&path)).map_err(scenario_error)?;
        PyScenario::parse(py, text, Some(path), seed, config)
    }

    /// The same scenario with seed `seed`.
    fn with_seed(&self, seed: u64) -> PyScenario {
        let mut copy = self.copy();
        copy.scenario.seed = seed;
        copy
    }

    /// The same scenario with HTCondor configuration `config` read after
    /// its own (`"PRIORITY_HALFLIFE = 600"`): its definitions win.
    fn with_config(&self, config: &str) -> PyScenario {
        let mut copy = self.copy();
        copy.add_config(config);
        copy
    }

    /// The configuration added to the scenario's (`config`,
    /// `with_config`), `""` without.
    #[getter]
    fn extra_config(&self) -> &str {
        &self.extra_config
    }

    /// The seed of its random numbers.
    #[getter]
    fn seed(&self) -> u64 {
        self.scenario.seed
    }

    /// Simulated seconds a run lasts.
    #[getter]
    fn duration(&self) -> i64 {
        self.scenario.duration
    }

    /// The file it was read from (`None` for text given without a path).
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.origin.clone()
    }

    /// Its TOML text.
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    /// Its HTCondor configuration text (the `config_file`'s contents, the
    /// inline `config`, then what `with_config` added).
    #[getter]
    fn config(&self) -> &str {
        &self.scenario.config
    }

    /// The names of the scenario's user types.
    #[getter]
    fn users(&self) -> Vec<String> {
        self.scenario.users.iter().map(|u| u.name.clone()).collect()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let me = slf.get();
        let extra = (!me.extra_config.is_empty()).then(|| me.extra_config.clone());
        let args = (me.text.clone(), me.origin.clone(), me.scenario.seed, extra);
        PyTuple::new(slf.py(), [slf.get_type().into_any(), args.into_pyobject(slf.py())?.into_any()])
    }

    /// Scenarios are equal when made from the same text, path, seed and
    /// added configuration.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyScenario>().is_ok_and(|o| {
            let o = o.get();
            (&o.text, &o.origin, o.scenario.seed, &o.extra_config)
                == (&self.text, &self.origin, self.scenario.seed, &self.extra_config)
        })
    }

    fn __repr__(&self) -> String {
        let from = self.origin.as_ref().map_or_else(|| "text".to_string(), |p| repr(&p.display().to_string()));
        Repr::new("Scenario")
            .text(&from)
            .field("seed", &self.scenario.seed)
            .text(&format!("duration={}s", self.scenario.duration))
            .text(&format!("{} machine types", self.scenario.machines.len()))
            .text(&format!("{} user types", self.scenario.users.len()))
            .finish()
    }
}

/// Where a run is: what `Simulation.run` hands its `progress` callable
/// about a hundred times a run (after a negotiation cycle), and once at
/// the end.
#[pyclass(name = "SimulationProgress", module = "classad_rs", frozen, get_all)]
pub(crate) struct PySimulationProgress {
    /// Simulated seconds since the start.
    time: i64,
    /// Simulated seconds the run lasts.
    until: i64,
    /// Events handled so far.
    events: u64,
    /// Negotiation cycles so far.
    cycles: u64,
    /// Of those, cycles that ran the match phase.
    full_cycles: u64,
    /// `time / until`, between 0 and 1.
    fraction: f64,
    /// Whether the run is over.
    done: bool,
}

impl PySimulationProgress {
    fn new(p: &Progress, done: bool) -> Self {
        PySimulationProgress {
            time: p.time,
            until: p.until,
            events: p.events,
            cycles: p.cycles,
            full_cycles: p.full_cycles,
            fraction: if p.until > 0 { (p.time as f64 / p.until as f64).clamp(0.0, 1.0) } else { 1.0 },
            done,
        }
    }
}

#[pymethods]
impl PySimulationProgress {
    fn __repr__(&self) -> String {
        Repr::new("SimulationProgress")
            .field("time", &self.time)
            .field("until", &self.until)
            .field("events", &self.events)
            .field("cycles", &self.cycles)
            .field("done", &self.done)
            .finish()
    }
}

/// A simulation of a scenario, ready to run: `Simulation(scenario,
/// seed=None, max_memory=None)` builds the pool (with the GIL released);
/// `run()` runs it once. Before building, the memory the run needs is
/// estimated from the scenario's size and checked against `max_memory`
/// (bytes, or `"unlimited"`; default: the memory the machine has
/// available): past it, `MemoryError` says the figures.
#[pyclass(name = "Simulation", module = "classad_rs", frozen)]
pub(crate) struct PySimulation {
    /// The simulation, until it has run.
    sim: Mutex<Option<Simulation>>,
    seed: u64,
    duration: i64,
}

#[pymethods]
impl PySimulation {
    #[new]
    #[pyo3(signature = (scenario, seed=None, max_memory=None))]
    fn new(
        py: Python<'_>,
        scenario: PyRef<'_, PyScenario>,
        seed: Option<u64>,
        max_memory: Option<MemoryArg>,
    ) -> PyResult<PySimulation> {
        let scenario = &scenario.scenario;
        let seed = seed.unwrap_or(scenario.seed);
        let limit = max_memory.map_or_else(Limit::available_memory, |m| m.0);
        footprint::simulation_memory(scenario, None).check(&limit).map_err(|e| {
            PyMemoryError::new_err(format!("{e}; pass max_memory= (bytes, or \"unlimited\") to run it anyway"))
        })?;
        let sim = py.detach(|| Simulation::with_seed(scenario, seed)).map_err(sim_error)?;
        Ok(PySimulation { sim: Mutex::new(Some(sim)), seed, duration: scenario.duration })
    }

    /// The seed of the run.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// Runs the simulation to the scenario's duration (or to `until`:
    /// simulated seconds as an `int` or `float`, or a duration text such
    /// as `"8h"` or `"1.5d"`, read as the scenario's durations are) and
    /// gives its results. The GIL is released while it runs;
    /// `progress`, when given, is called with a `SimulationProgress` about
    /// a hundred times (and once at the end), with the GIL held; an
    /// exception it raises, or Ctrl-C, stops the run and is raised here.
    /// A simulation runs once.
    #[pyo3(signature = (until=None, progress=None))]
    fn run(
        &self,
        py: Python<'_>,
        until: Option<DurationArg>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<PySimulationResults> {
        let taken = self.sim.lock().map_err(|_| error("the simulation failed while running".to_string()))?.take();
        let Some(mut sim) = taken else {
            return Err(error("this simulation has already run: make a new Simulation".to_string()));
        };
        let until = until.map_or(self.duration, |d| d.0).max(0);
        sim.set_until(until);
        let every = (until / REPORTS).max(1);
        let report = |p: &Progress, done: bool| -> PyResult<()> {
            Python::attach(|py| {
                py.check_signals()?;
                if let Some(callback) = &progress {
                    callback.call1(py, (PySimulationProgress::new(p, done),))?;
                }
                Ok(())
            })
        };
        let results = py.detach(move || -> PyResult<Results> {
            let mut next = 0;
            let mut last = Progress { time: 0, until, events: 0, cycles: 0, full_cycles: 0, after_full_cycle: false };
            loop {
                let mut cycle = None;
                let more = sim.step(&mut |p| cycle = Some(*p)).map_err(sim_error)?;
                if let Some(p) = cycle {
                    last = p;
                    if p.time >= next {
                        next = p.time + every;
                        report(&p, false)?;
                    }
                }
                if !more {
                    break;
                }
            }
            // Every event is handled: `run` only hands the tables over
            // (moved, not copied).
            let results = sim.run(None, &mut |_| {}).map_err(sim_error)?;
            last.time = until;
            last.events = results.summary.events;
            report(&last, true)?;
            Ok(results)
        })?;
        Ok(PySimulationResults { results, seed: self.seed })
    }

    fn __repr__(&self) -> String {
        let ran = self.sim.lock().map(|s| s.is_none()).unwrap_or(true);
        let r = Repr::new("Simulation").field("seed", &self.seed).text(&format!("duration={}s", self.duration));
        if ran { r.text("has run") } else { r }.finish()
    }
}

/// What a run leaves: the tables `"users"`, `"groups"`, `"cycles"`,
/// `"jobs"` (as columns, Arrow tables or data frames) and totals. Results
/// compare equal when every value is, and pickle.
#[pyclass(name = "SimulationResults", module = "classad_rs", frozen)]
pub(crate) struct PySimulationResults {
    results: Results,
    seed: u64,
}

/// A table's columns in the form the arrow module takes.
fn arrow_table(table: &Table) -> Vec<(&str, Column)> {
    table
        .columns
        .iter()
        .map(|(name, column)| {
            let column = match column {
                SimColumn::Int(v) => Column::I64(v.clone()),
                SimColumn::Float(v) => Column::F64(v.clone()),
                SimColumn::Str(v) => Column::Str(v.iter().cloned().map(Some).collect()),
            };
            (name.as_str(), column)
        })
        .collect()
}

/// A column's type name, as `arrow_buffers` names it.
fn kind(column: &SimColumn) -> &'static str {
    match column {
        SimColumn::Int(_) => "i64",
        SimColumn::Float(_) => "f64",
        SimColumn::Str(_) => "str",
    }
}

/// Numbers as their little-endian bytes, one after the other.
fn le_bytes<T: Copy>(values: &[T], bytes: impl Fn(T) -> [u8; 8]) -> Vec<u8> {
    values.iter().flat_map(|&x| bytes(x)).collect()
}

/// Numbers from their little-endian bytes; `None` when the length is not
/// a multiple of 8.
fn from_le_bytes<T>(bytes: &[u8], number: impl Fn([u8; 8]) -> T) -> Option<Vec<T>> {
    let chunks = bytes.chunks_exact(8);
    if !chunks.remainder().is_empty() {
        return None;
    }
    chunks.map(|c| c.try_into().ok().map(&number)).collect()
}

/// The error for bytes that are not 8-byte numbers.
fn odd(at: String) -> PyErr {
    error(format!("{at}: the bytes are not a whole number of 8-byte values"))
}

/// What pickle keeps of results: the seed, the totals `(cycles,
/// full_cycles, events, jobs, finished, started, started_wait, badput)`,
/// and per table its name and
/// columns `(name, type, values)`, the values a list, or for numbers
/// their little-endian bytes.
type State<'py> =
    (u64, (u64, u64, u64, u64, u64, u64, i64, i64), Vec<(String, Vec<(String, String, Bound<'py, PyAny>)>)>);

impl PySimulationResults {
    fn table(&self, name: &str) -> PyResult<&Table> {
        self.results.table(name).ok_or_else(|| {
            let names: Vec<&str> = self.results.tables.iter().map(|t| t.name.as_str()).collect();
            error(format!("no table {name:?}: the tables are {names:?}"))
        })
    }
}

#[pymethods]
impl PySimulationResults {
    /// Results rebuilt from the state `__reduce__` gives (what unpickling
    /// does); `Simulation.run` makes them.
    #[new]
    fn new(state: State<'_>) -> PyResult<PySimulationResults> {
        let (seed, (cycles, full_cycles, events, jobs, finished, started, started_wait, badput), tables) = state;
        let mut out = Vec::new();
        for (name, columns) in tables {
            let mut table = Table::new(&name);
            let mut rows = None;
            for (column, kind, values) in columns {
                let bytes = values.cast::<PyBytes>().ok().map(|b| b.as_bytes());
                let at = || format!("table {name}, column {column}");
                let values = match (kind.as_str(), bytes) {
                    ("i64", Some(b)) => SimColumn::Int(from_le_bytes(b, i64::from_le_bytes).ok_or_else(|| odd(at()))?),
                    ("f64", Some(b)) => {
                        SimColumn::Float(from_le_bytes(b, f64::from_le_bytes).ok_or_else(|| odd(at()))?)
                    }
                    ("i64", None) => SimColumn::Int(values.extract()?),
                    ("f64", None) => SimColumn::Float(values.extract()?),
                    ("str", _) => SimColumn::Str(values.extract()?),
                    (other, _) => return Err(error(format!("{}: no column type {other:?}", at()))),
                };
                if *rows.get_or_insert(values.len()) != values.len() {
                    return Err(error(format!("table {name}, column {column}: a different number of rows")));
                }
                table.push(&column, values);
            }
            out.push(table);
        }
        let summary = Summary { cycles, full_cycles, events, jobs, finished, started, started_wait, badput };
        Ok(PySimulationResults { results: Results { tables: out, summary }, seed })
    }

    /// The seed of the run.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// Negotiation cycles.
    #[getter]
    fn cycles(&self) -> u64 {
        self.results.summary.cycles
    }

    /// Cycles that ran the match phase (the others only updated the
    /// accountant: nothing could be matched).
    #[getter]
    fn full_cycles(&self) -> u64 {
        self.results.summary.full_cycles
    }

    /// Events handled.
    #[getter]
    fn events(&self) -> u64 {
        self.results.summary.events
    }

    /// Jobs submitted.
    #[getter]
    fn jobs(&self) -> u64 {
        self.results.summary.jobs
    }

    /// Jobs finished.
    #[getter]
    fn finished(&self) -> u64 {
        self.results.summary.finished
    }

    /// The tables' names: `["users", "groups", "cycles", "jobs"]`.
    fn tables(&self) -> Vec<String> {
        self.results.tables.iter().map(|t| t.name.clone()).collect()
    }

    /// A table as `{column: list}` (plain Python values).
    #[pyo3(signature = (table="users"))]
    fn columns<'py>(&self, py: Python<'py>, table: &str) -> PyResult<Bound<'py, PyDict>> {
        arrow::columns(py, &arrow_table(self.table(table)?))
    }

    /// A table as Arrow buffers: per column `(name, type, length,
    /// validity, data, offsets)`, as `CycleOutcome.arrow_buffers` gives
    /// them.
    #[pyo3(signature = (table="users"))]
    fn arrow_buffers<'py>(&self, py: Python<'py>, table: &str) -> PyResult<Bound<'py, PyList>> {
        arrow::buffers(py, &arrow_table(self.table(table)?))
    }

    /// A table as a `pyarrow.Table`, its columns wrapping the buffers of
    /// `arrow_buffers` (needs pyarrow).
    #[pyo3(signature = (table="users"))]
    fn to_arrow<'py>(slf: &Bound<'py, Self>, table: &str) -> PyResult<Bound<'py, PyAny>> {
        slf.get().table(table)?;
        slf.py().import("classad_rs._tables")?.call_method1("to_arrow", (slf, table))
    }

    /// A table as a `pandas.DataFrame` (needs pandas; through pyarrow when
    /// it is installed).
    #[pyo3(signature = (table="users"))]
    fn to_pandas<'py>(slf: &Bound<'py, Self>, table: &str) -> PyResult<Bound<'py, PyAny>> {
        slf.get().table(table)?;
        slf.py().import("classad_rs._tables")?.call_method1("to_pandas", (slf, table))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let me = slf.get();
        let s = &me.results.summary;
        let tables = PyList::empty(py);
        for table in &me.results.tables {
            let columns = PyList::empty(py);
            for (name, column) in &table.columns {
                // Numbers as little-endian bytes: quick to pickle.
                let values = match column {
                    SimColumn::Int(v) => PyBytes::new(py, &le_bytes(v, |x| x.to_le_bytes())).into_any(),
                    SimColumn::Float(v) => PyBytes::new(py, &le_bytes(v, |x| x.to_le_bytes())).into_any(),
                    SimColumn::Str(v) => PyList::new(py, v)?.into_any(),
                };
                columns.append((name, kind(column), values))?;
            }
            tables.append((&table.name, columns))?;
        }
        let state = (
            me.seed,
            (s.cycles, s.full_cycles, s.events, s.jobs, s.finished, s.started, s.started_wait, s.badput),
            tables,
        );
        let args = PyTuple::new(py, [state.into_pyobject(py)?.into_any()])?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PySimulationResults>().is_ok_and(|o| o.get().results == self.results && o.get().seed == self.seed)
    }

    fn __repr__(&self) -> String {
        let s = &self.results.summary;
        format!("SimulationResults(seed={}, {} cycles, {} jobs, {} finished)", self.seed, s.cycles, s.jobs, s.finished)
    }
}

/// `max_memory=`: bytes, or `"unlimited"`.
struct MemoryArg(Limit);

impl<'a, 'py> FromPyObject<'a, 'py> for MemoryArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<MemoryArg> {
        if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
            let bytes: u64 = obj.extract().map_err(|_| PyValueError::new_err("max_memory: bytes are not negative"))?;
            return Ok(MemoryArg(Limit::Bytes { bytes, source: "given by max_memory".into() }));
        }
        match obj.cast::<PyString>() {
            Ok(text) if text.to_cow()? == "unlimited" => Ok(MemoryArg(Limit::Unlimited)),
            _ => Err(PyTypeError::new_err(format!(
                "max_memory: a number of bytes or \"unlimited\", not {}",
                obj.repr()?.to_cow()?
            ))),
        }
    }
}
