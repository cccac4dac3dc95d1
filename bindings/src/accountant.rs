//! User priorities (`matchmaker::accountant`): `Accountant`, loaded from
//! and saved to HTCondor's accountant log (`Accountantnew.log`) or read
//! from `condor_userprio -l` output, with `condor_userprio`'s admin
//! operations.

use std::path::{Path, PathBuf};

use matchmaker::accountant::{Accountant, AccountantConfig, AccountantError, PriorityRow};
use matchmaker::classad_log::{LogLock, LogWriter, DEFAULT_LOCK_TIMEOUT};
use matchmaker::snapshot::read_ads;
use pyo3::exceptions::PyFileNotFoundError;
use pyo3::prelude::*;

use crate::config::{config_error, PyConfig};
use crate::errors::error;
use crate::objects::PyClassAd;
use crate::repr::Repr;

pub(crate) fn accountant_error(e: &AccountantError) -> PyErr {
    error(e.to_string())
}

/// The accountant's settings (`PRIORITY_HALFLIFE`, `DEFAULT_PRIO_FACTOR`,
/// the groups...) from `config`, HTCondor's defaults without one.
pub(crate) fn accountant_config(config: Option<&PyConfig>) -> PyResult<AccountantConfig> {
    match config {
        Some(c) => AccountantConfig::from_config(&c.config).map_err(|e| config_error(&e)),
        None => AccountantConfig::from_config(&matchmaker::config::Loader::new().subsystem("NEGOTIATOR").defaults())
            .map_err(|e| config_error(&e)),
    }
}

/// A ClassAd given as one, or a file of ads given by its path.
#[derive(FromPyObject)]
pub(crate) enum AdOrPath<'py> {
    Ad(PyRef<'py, PyClassAd>),
    Path(PathBuf),
}

/// User priorities: each submitter's real priority, factor, usage,
/// ceiling and floor, updated as HTCondor's accountant updates them.
///
/// `Accountant(config=None)` has no records (every submitter at the lowest
/// priority); `Accountant.load(path)` reads an `Accountantnew.log`,
/// `Accountant.open(path, now)` also keeps appending to it as the
/// negotiator does, and `Accountant.from_userprio(ad_or_path)` takes
/// `condor_userprio -allusers -l` output. The settings (half-life,
/// default factor, groups) come from `config`.
///
/// Only one writer at a time: `open` and `save` take an exclusive lock
/// (`flock` on `<path>.lock`), `open` from before it reads the log until
/// `close()` or until the accountant is garbage-collected. A second
/// writer of the same log (another process, or another `open` in this
/// one) waits up to `lock_timeout` seconds (10) and then raises
/// `ClassAdException` naming the log and saying that another writer holds
/// it. Reading (`load`) takes no lock; it raises `FileNotFoundError` for a
/// log that does not exist. `with Accountant.open(path, now) as acct:`
/// closes the accountant when the block ends.
#[pyclass(name = "Accountant", module = "classad_rs")]
pub(crate) struct PyAccountant {
    pub(crate) acct: Accountant,
    warnings: Vec<String>,
}

/// One row of `condor_userprio -l`: a submitter or a group.
#[pyclass(name = "PriorityRow", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyPriorityRow {
    /// The submitter or group.
    name: String,
    /// Whether it is a group.
    is_group: bool,
    /// The group its usage is charged to.
    accounting_group: String,
    /// Its effective priority.
    effective_priority: f64,
    /// Its priority factor.
    priority_factor: f64,
    /// Its ceiling (-1: none).
    ceiling: i64,
    /// Its floor (0: none).
    floor: i64,
    /// Slots used now.
    resources_used: i64,
    /// Weighted slots used now.
    weighted_resources_used: f64,
    /// Accumulated usage, seconds.
    accumulated_usage: f64,
    /// Weighted accumulated usage.
    weighted_accumulated_usage: f64,
    /// When usage began (epoch seconds).
    begin_usage_time: i64,
    /// When usage was last seen.
    last_usage_time: i64,
}

#[pymethods]
impl PyPriorityRow {
    fn __repr__(&self) -> String {
        Repr::new("PriorityRow")
            .field("name", &self.name)
            .field("effective_priority", &self.effective_priority)
            .field("priority_factor", &self.priority_factor)
            .field("weighted_resources_used", &self.weighted_resources_used)
            .finish()
    }
}

impl From<PriorityRow> for PyPriorityRow {
    fn from(r: PriorityRow) -> Self {
        PyPriorityRow {
            name: r.name,
            is_group: r.is_group,
            accounting_group: r.accounting_group,
            effective_priority: r.effective_priority,
            priority_factor: r.priority_factor,
            ceiling: r.ceiling,
            floor: r.floor,
            resources_used: r.resources_used,
            weighted_resources_used: r.weighted_resources_used,
            accumulated_usage: r.accumulated_usage,
            weighted_accumulated_usage: r.weighted_accumulated_usage,
            begin_usage_time: r.begin_usage_time,
            last_usage_time: r.last_usage_time,
        }
    }
}

impl PyAccountant {
    fn wrap(acct: Accountant, warnings: Vec<String>) -> PyAccountant {
        PyAccountant { acct, warnings }
    }
}

#[pymethods]
impl PyAccountant {
    #[new]
    #[pyo3(signature = (config=None))]
    fn new(config: Option<PyRef<'_, PyConfig>>) -> PyResult<PyAccountant> {
        Ok(PyAccountant::wrap(Accountant::new(accountant_config(config.as_deref())?), Vec::new()))
    }

    /// Reads the accountant log at `path` without writing to it. A missing
    /// file raises `FileNotFoundError`, as reading a file does (`open`
    /// starts a new log where there is none). A torn tail is skipped with
    /// a warning.
    #[staticmethod]
    #[pyo3(signature = (path, config=None))]
    fn load(path: PathBuf, config: Option<PyRef<'_, PyConfig>>) -> PyResult<PyAccountant> {
        if let Err(e) = std::fs::metadata(&path) {
            if e.kind() == std::io::ErrorKind::NotFound {
                return Err(not_found(&path));
            }
        }
        let (acct, report) =
            Accountant::load(accountant_config(config.as_deref())?, &path).map_err(|e| accountant_error(&e))?;
        Ok(PyAccountant::wrap(acct, report.warnings))
    }

    /// Opens the accountant log at `path` (created if missing, dated
    /// `now`) and appends every later change to it, as the negotiator
    /// does, holding the log's lock until `close()`: waits up to
    /// `lock_timeout` seconds for another writer, then raises. A file that
    /// is not an accountant log is refused and left as it is; a torn tail
    /// is cleaned, the old file kept as `<path>.corrupt-<n>` (in
    /// `take_warnings()`).
    #[staticmethod]
    #[pyo3(signature = (path, now, config=None, lock_timeout=None))]
    fn open(
        path: PathBuf,
        now: i64,
        config: Option<PyRef<'_, PyConfig>>,
        lock_timeout: Option<f64>,
    ) -> PyResult<PyAccountant> {
        let mut settings = accountant_config(config.as_deref())?;
        settings.lock_timeout = timeout(lock_timeout)?;
        let (acct, report) = Accountant::open(settings, &path, now).map_err(|e| accountant_error(&e))?;
        Ok(PyAccountant::wrap(acct, report.warnings))
    }

    /// Stops appending to the log `open` opened and releases its lock;
    /// later changes stay in memory.
    fn close(&mut self) {
        self.acct.close_log();
    }

    /// `with Accountant.open(path, now) as acct:` gives the accountant,
    /// and closes it (as `close()`) when the block ends.
    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Closes the accountant (as `close()`); an exception that ended the
    /// block goes on.
    #[pyo3(signature = (_exc_type=None, _exc_value=None, _traceback=None))]
    fn __exit__(
        &mut self,
        _exc_type: Option<&Bound<'_, PyAny>>,
        _exc_value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close();
        false
    }

    /// Reads an accountant log from its text.
    #[staticmethod]
    #[pyo3(signature = (text, config=None))]
    fn from_log_text(text: &str, config: Option<PyRef<'_, PyConfig>>) -> PyResult<PyAccountant> {
        let (acct, report) =
            Accountant::from_log_text(accountant_config(config.as_deref())?, text).map_err(|e| accountant_error(&e))?;
        Ok(PyAccountant::wrap(acct, report.warnings))
    }

    /// The priorities `condor_userprio -allusers -l` shows: its one ad, or
    /// the path of a file holding it.
    #[staticmethod]
    #[pyo3(signature = (source, config=None))]
    fn from_userprio(source: AdOrPath<'_>, config: Option<PyRef<'_, PyConfig>>) -> PyResult<PyAccountant> {
        let settings = accountant_config(config.as_deref())?;
        let acct = match source {
            AdOrPath::Ad(ad) => Accountant::from_userprio_ad(settings, &ad.ad),
            AdOrPath::Path(path) => {
                let ads = read_ads(&path).map_err(|e| error(e.to_string()))?;
                let [ad] = ads.as_slice() else {
                    return Err(error(format!(
                        "{}: condor_userprio -l output holds one ad, this file holds {}",
                        path.display(),
                        ads.len()
                    )));
                };
                Accountant::from_userprio_ad(settings, ad)
            }
        };
        Ok(PyAccountant::wrap(acct.map_err(|e| accountant_error(&e))?, Vec::new()))
    }

    /// Writes every record to `path` as a compacted accountant log (dated
    /// `now` when the file is new), replacing the file (through a new file
    /// renamed over it); `Accountant.load` and HTCondor's negotiator read
    /// it. Takes the log's lock as `open` does (waiting up to
    /// `lock_timeout` seconds for another writer, then raising); a file at
    /// `path` that is not an accountant log is refused and left as it is.
    #[pyo3(signature = (path, now=0, lock_timeout=None))]
    fn save(&self, path: PathBuf, now: i64, lock_timeout: Option<f64>) -> PyResult<()> {
        let records = self.acct.snapshot().map_err(|e| error(e.to_string()))?;
        let lock = LogLock::acquire(&path, timeout(lock_timeout)?).map_err(|e| error(e.to_string()))?;
        LogWriter::replace(lock, &path, now, &records).map_err(|e| error(e.to_string()))?;
        Ok(())
    }

    /// The log this accountant appends to (`open`), if any.
    #[getter]
    fn log_path(&self) -> Option<PathBuf> {
        self.acct.log_path().map(Path::to_path_buf)
    }

    /// When priorities were last updated (epoch seconds; 0 if never).
    #[getter]
    fn last_update(&self) -> i64 {
        self.acct.last_update()
    }

    /// Problems met reading or writing the log; each is given once.
    fn take_warnings(&mut self) -> Vec<String> {
        let mut out = std::mem::take(&mut self.warnings);
        out.extend(self.acct.take_warnings());
        out
    }

    /// The names of the submitters and groups with a record.
    fn names(&self) -> Vec<String> {
        self.acct.customers().iter().map(|c| c.name.clone()).collect()
    }

    /// The rows `condor_userprio -l` shows: groups first, then submitters.
    fn rows(&self) -> Vec<PyPriorityRow> {
        self.acct.priority_rows().into_iter().map(PyPriorityRow::from).collect()
    }

    /// A submitter's real priority (at least 0.5).
    fn real_priority(&self, name: &str) -> f64 {
        self.acct.real_priority(name)
    }

    /// A submitter's effective priority: real priority times factor.
    fn effective_priority(&self, name: &str) -> f64 {
        self.acct.effective_priority(name)
    }

    /// A submitter's priority factor (its own, or the default for it).
    fn priority_factor(&self, name: &str) -> f64 {
        self.acct.priority_factor(name)
    }

    /// A submitter's ceiling, `None` for none.
    fn ceiling(&self, name: &str) -> Option<i64> {
        self.acct.ceiling(name)
    }

    /// A submitter's floor (0: none).
    fn floor(&self, name: &str) -> i64 {
        self.acct.floor(name)
    }

    /// Weighted slots a submitter or group uses now.
    fn usage(&self, name: &str) -> f64 {
        self.acct.weighted_resources_used(name)
    }

    /// Slots a submitter or group uses now.
    fn resources_used(&self, name: &str) -> i64 {
        self.acct.resources_used(name)
    }

    /// The accounting group a submitter is charged to.
    fn group_of(&self, name: &str) -> String {
        self.acct.group_of(name).to_string()
    }

    /// Decays every priority towards usage up to `now`, as the negotiator
    /// does at the start of a cycle.
    fn update_priorities(&mut self, now: i64) -> PyResult<()> {
        self.acct.update_priorities(now).map_err(|e| accountant_error(&e))
    }

    /// Recounts who uses what from the slot ads (claimed slots'
    /// `RemoteUser`), as the negotiator does each cycle.
    fn check_matches(&mut self, now: i64, slots: Vec<PyRef<'_, PyClassAd>>) -> PyResult<()> {
        let slots: Vec<classad::ClassAd> = slots.iter().map(|s| s.ad.clone()).collect();
        self.acct.check_matches(now, &slots).map_err(|e| accountant_error(&e))
    }

    /// `condor_userprio -setprio`: sets the real priority.
    fn set_priority(&mut self, name: &str, priority: f64) -> PyResult<()> {
        self.acct.set_priority(name, priority).map_err(|e| accountant_error(&e))
    }

    /// `condor_userprio -setfactor`: sets the priority factor (at least 1).
    fn set_priority_factor(&mut self, name: &str, factor: f64) -> PyResult<()> {
        self.acct.set_priority_factor(name, factor).map_err(|e| accountant_error(&e))
    }

    /// `condor_userprio -setceiling` (-1: no ceiling).
    fn set_ceiling(&mut self, name: &str, ceiling: i64) -> PyResult<()> {
        self.acct.set_ceiling(name, ceiling).map_err(|e| accountant_error(&e))
    }

    /// `condor_userprio -setfloor` (0: no floor).
    fn set_floor(&mut self, name: &str, floor: i64) -> PyResult<()> {
        self.acct.set_floor(name, floor).map_err(|e| accountant_error(&e))
    }

    /// `condor_userprio -setaccum`: the weighted accumulated usage.
    fn set_accumulated_usage(&mut self, name: &str, usage: f64) -> PyResult<()> {
        self.acct.set_accumulated_usage(name, usage).map_err(|e| accountant_error(&e))
    }

    /// `condor_userprio -setbegin`.
    fn set_begin_time(&mut self, name: &str, time: i64) -> PyResult<()> {
        self.acct.set_begin_time(name, time).map_err(|e| accountant_error(&e))
    }

    /// `condor_userprio -setlast`.
    fn set_last_time(&mut self, name: &str, time: i64) -> PyResult<()> {
        self.acct.set_last_time(name, time).map_err(|e| accountant_error(&e))
    }

    /// `condor_userprio -resetusage`: accumulated usage back to zero.
    fn reset_usage(&mut self, name: &str, now: i64) -> PyResult<()> {
        self.acct.reset_usage(name, now).map_err(|e| accountant_error(&e))
    }

    /// `condor_userprio -resetall`.
    fn reset_all_usage(&mut self, now: i64) -> PyResult<()> {
        self.acct.reset_all_usage(now).map_err(|e| accountant_error(&e))
    }

    /// `condor_userprio -delete`: removes a record; whether there was one.
    fn delete(&mut self, name: &str) -> PyResult<bool> {
        self.acct.delete_record(name).map_err(|e| accountant_error(&e))
    }

    /// Rewrites the open log as its current records only.
    fn compact(&mut self) -> PyResult<()> {
        self.acct.compact().map_err(|e| accountant_error(&e))
    }

    fn __contains__(&self, name: &str) -> bool {
        self.acct.customer(name).is_some()
    }

    fn __len__(&self) -> usize {
        self.acct.customers().len()
    }

    fn __repr__(&self) -> String {
        Repr::new("Accountant")
            .text(&format!("{} records", self.acct.customers().len()))
            .field("last_update", &self.acct.last_update())
            .finish()
    }
}

/// The `FileNotFoundError` of a log `load` does not find, with its
/// `errno`, `strerror` and `filename` as `open()` gives them.
fn not_found(path: &Path) -> PyErr {
    /// `ENOENT`, the same number on every platform Python runs on.
    const ENOENT: i32 = 2;
    let strerror = "No such file or directory (Accountant.open starts a new accountant log)";
    PyFileNotFoundError::new_err((ENOENT, strerror, path.to_path_buf()))
}

/// A lock timeout in seconds (10 when not given).
fn timeout(seconds: Option<f64>) -> PyResult<std::time::Duration> {
    match seconds {
        None => Ok(DEFAULT_LOCK_TIMEOUT),
        Some(s) if s.is_finite() && s >= 0.0 => Ok(std::time::Duration::from_secs_f64(s.min(1e9))),
        Some(s) => Err(error(format!("lock_timeout must be a number of seconds, at least 0, not {s}"))),
    }
}
