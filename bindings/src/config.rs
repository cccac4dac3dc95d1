//! HTCondor configuration (`matchmaker::config`): `Config`, read from
//! configuration files or text as `condor_config_val` reads them, with
//! HTCondor's defaults underneath and typed getters.

use std::path::PathBuf;

use matchmaker::config::{Config, ConfigError, Loader, Source};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;

use crate::errors::error;
use crate::objects::PyExprTree;
use crate::repr::Repr;

pub(crate) fn config_error(e: &ConfigError) -> PyErr {
    error(e.to_string())
}

fn loader(subsystem: Option<&str>) -> Loader {
    match subsystem {
        Some(s) => Loader::new().subsystem(s),
        None => Loader::new(),
    }
}

/// A configuration: the values of a set of files (or a text) on top of
/// HTCondor's defaults.
///
/// `Config(text=None, *, file=None, subsystem=None, name="<config>")`:
/// `text` is read as a configuration file named `name`; `file` is a top
/// file, followed as HTCondor follows it (`LOCAL_CONFIG_FILE`, `include`,
/// ...); neither gives HTCondor's defaults. With `subsystem`
/// (`"NEGOTIATOR"`, `"STARTD"`...), `SUBSYSTEM.NAME` settings win over
/// `NAME` ones, as they do in that daemon. A malformed statement raises
/// `ClassAdException` naming the file and line.
#[pyclass(name = "Config", module = "classad_rs")]
#[derive(Clone)]
pub(crate) struct PyConfig {
    pub(crate) config: Config,
}

#[pymethods]
impl PyConfig {
    #[new]
    #[pyo3(signature = (text=None, *, file=None, subsystem=None, name="<config>"))]
    fn new(text: Option<&str>, file: Option<PathBuf>, subsystem: Option<&str>, name: &str) -> PyResult<PyConfig> {
        let loader = loader(subsystem);
        let config = match (text, file) {
            (Some(_), Some(_)) => return Err(error("give text or file, not both".to_string())),
            (Some(text), None) => loader.parse_str(text, name),
            (None, Some(file)) => loader.load_file(file),
            (None, None) => Ok(loader.defaults()),
        };
        config.map(|config| PyConfig { config }).map_err(|e| config_error(&e))
    }

    /// Reads the top configuration file `path` (see `Config`).
    #[staticmethod]
    #[pyo3(signature = (path, subsystem=None))]
    fn from_file(path: PathBuf, subsystem: Option<&str>) -> PyResult<PyConfig> {
        let config = loader(subsystem).load_file(path).map_err(|e| config_error(&e))?;
        Ok(PyConfig { config })
    }

    /// `name`'s value with its macros expanded, or `default` when neither
    /// the files nor HTCondor's defaults define it. Names ignore case.
    /// Raises `ClassAdException` when the value cannot be expanded (a macro
    /// cycle, named with its chain and where each link is set).
    #[pyo3(signature = (name, default=None))]
    fn get(&self, name: &str, default: Option<String>) -> PyResult<Option<String>> {
        Ok(self.config.try_lookup(name).map_err(|e| config_error(&e))?.map(|l| l.value).or(default))
    }

    /// `name`'s value as stored (macros unexpanded), or `None`.
    fn raw(&self, name: &str) -> Option<String> {
        self.config.raw(name).map(str::to_string)
    }

    /// Where `name` was set, as `condor_config_val -v` prints it
    /// (`"site.conf, line 3"`, `"<Default>"`), or `None`.
    fn source(&self, name: &str) -> Option<String> {
        self.config.lookup(name).map(|l| l.source.to_string())
    }

    /// `name` read as HTCondor reads a boolean knob; raises
    /// `ClassAdException` if it is undefined or not a boolean.
    fn get_bool(&self, name: &str) -> PyResult<bool> {
        self.config.get_bool(name).map_err(|e| config_error(&e))
    }

    /// `name` read as an integer knob (an expression is evaluated).
    fn get_int(&self, name: &str) -> PyResult<i64> {
        self.config.get_int(name).map_err(|e| config_error(&e))
    }

    /// `name` read as a real knob.
    fn get_real(&self, name: &str) -> PyResult<f64> {
        self.config.get_real(name).map_err(|e| config_error(&e))
    }

    /// `name`'s expanded value as a string; raises if undefined.
    fn get_string(&self, name: &str) -> PyResult<String> {
        self.config.get_string(name).map_err(|e| config_error(&e))
    }

    /// `name` parsed as a ClassAd expression, `None` when it is undefined
    /// or empty.
    fn get_expr(&self, name: &str) -> PyResult<Option<PyExprTree>> {
        let expr = self.config.get_expr_opt(name).map_err(|e| config_error(&e))?;
        Ok(expr.map(|expr| PyExprTree { expr }))
    }

    /// Expands the macros of `text` against this configuration.
    fn expand(&self, text: &str) -> PyResult<String> {
        self.config.expand(text).map_err(|e| config_error(&e))
    }

    /// Sets `name` to `value` (references to its own previous value are
    /// expanded, as a configuration statement's are).
    fn set(&mut self, name: &str, value: &str) -> PyResult<()> {
        self.config.set(name, value, Source::Environment).map_err(|e| config_error(&e))
    }

    /// The names `condor_config_val -dump` lists (those set and HTCondor's
    /// defaults), sorted ignoring case.
    fn names(&self) -> Vec<String> {
        self.config.names()
    }

    /// The files read, top file first. A `condor_config_val -dump`
    /// output is read alone (see `is_dump`): it is the only file.
    #[getter]
    fn files(&self) -> Vec<String> {
        self.config.files().map(str::to_string).collect()
    }

    /// Whether the top file is `condor_config_val -dump` output (its first
    /// line `# Configuration from ...`): the whole configuration of the
    /// machine it was taken on, read without the files its
    /// `LOCAL_CONFIG_FILE` and `LOCAL_CONFIG_DIR` name on this machine.
    #[getter]
    fn is_dump(&self) -> bool {
        self.config.is_dump()
    }

    /// The local files `LOCAL_CONFIG_FILE` and `LOCAL_CONFIG_DIR` led to,
    /// in order (a missing `LOCAL_CONFIG_FILE` that need not exist
    /// included, as `condor_config_val` lists it); none for a dump. A
    /// snapshot's configuration with some reads this machine's files.
    #[getter]
    fn local_files(&self) -> Vec<String> {
        self.config.local_files().map(str::to_string).collect()
    }

    /// The warnings of reading (`warning :` statements and the like).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.config.warnings().to_vec()
    }

    fn __getitem__(&self, name: &str) -> PyResult<String> {
        self.config
            .try_lookup(name)
            .map_err(|e| config_error(&e))?
            .map(|l| l.value)
            .ok_or_else(|| PyKeyError::new_err(name.to_string()))
    }

    fn __contains__(&self, name: &str) -> bool {
        self.config.raw(name).is_some()
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let names = pyo3::types::PyList::new(py, self.config.names())?;
        Ok(names.as_any().try_iter()?.into_any().unbind())
    }

    fn __len__(&self) -> usize {
        self.config.names().len()
    }

    fn __repr__(&self) -> String {
        Repr::new("Config").field("files", &self.files()).finish()
    }
}
