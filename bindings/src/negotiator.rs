//! One negotiation cycle (`matchmaker::negotiator`): `Negotiator`, and
//! the submitters' queues it negotiates (`JobQueues`); what a cycle
//! decided is [`crate::outcome`]'s. The GIL is released while a cycle
//! runs.

use std::path::PathBuf;

use classad::ClassAd;
use matchmaker::accountant::Accountant;
use matchmaker::autocluster::SubmitterQueue;
use matchmaker::config::{Config, Loader};
use matchmaker::negotiator::Negotiator;
use matchmaker::snapshot::{self, read_ads};
use pyo3::prelude::*;

use crate::accountant::{accountant_config, PyAccountant};
use crate::config::{config_error, PyConfig};
use crate::errors::error;
use crate::objects::PyClassAd;
use crate::outcome::PyCycleOutcome;
use crate::repr::{repr, Repr};

/// Ads given as a list of `ClassAd`s or as the path of a file of ads
/// (`condor_status -l`, `condor_q -l`, JSON or XML; gzipped or not).
#[derive(FromPyObject)]
pub(crate) enum Ads<'py> {
    Path(PathBuf),
    List(Vec<PyRef<'py, PyClassAd>>),
}

/// Ads borrowed from a list, or read from a file.
enum AdsView<'a> {
    Refs(Vec<&'a ClassAd>),
    Owned(Vec<ClassAd>),
}

/// Jobs as ads, or already grouped into submitters' queues.
#[derive(FromPyObject)]
pub(crate) enum Jobs<'py> {
    Queues(PyRef<'py, PyJobQueues>),
    Ads(Ads<'py>),
}

/// The idle jobs of a queue grouped into autoclusters, as a schedd groups
/// them for a negotiator (`Negotiator.queues`): given to `cycle` in place
/// of the jobs, they are not grouped again.
#[pyclass(name = "JobQueues", module = "classad_rs", frozen)]
pub(crate) struct PyJobQueues {
    queues: Vec<SubmitterQueue>,
}

#[pymethods]
impl PyJobQueues {
    /// The submitters, in the order their queues were made.
    #[getter]
    fn submitters(&self) -> Vec<String> {
        self.queues.iter().map(|q| q.name.clone()).collect()
    }

    /// Idle jobs in all queues.
    #[getter]
    fn idle_jobs(&self) -> u64 {
        self.queues.iter().map(SubmitterQueue::idle_jobs).sum()
    }

    /// Autoclusters (resource requests) in all queues.
    #[getter]
    fn autoclusters(&self) -> usize {
        self.queues.iter().map(|q| q.requests.len()).sum()
    }

    fn __len__(&self) -> usize {
        self.queues.len()
    }

    fn __repr__(&self) -> String {
        Repr::new("JobQueues")
            .text(&format!("{} submitters", self.queues.len()))
            .text(&format!("{} autoclusters", self.autoclusters()))
            .finish()
    }
}

/// Borrowed ads, or ads read from a file (read with the GIL released).
enum AdsRef<'a> {
    Borrowed(Vec<&'a ClassAd>),
    File(PathBuf),
}

impl<'a> AdsRef<'a> {
    fn of(ads: &'a Ads<'_>) -> AdsRef<'a> {
        match ads {
            Ads::Path(p) => AdsRef::File(p.clone()),
            Ads::List(list) => AdsRef::Borrowed(list.iter().map(|a| &a.ad).collect()),
        }
    }

    /// The ads, not copied when they are a list's, read when a file.
    fn view(self) -> Result<AdsView<'a>, String> {
        match self {
            AdsRef::Borrowed(ads) => Ok(AdsView::Refs(ads)),
            AdsRef::File(path) => read_ads(&path).map(AdsView::Owned).map_err(|e| e.to_string()),
        }
    }

    /// The ads, owned.
    fn load(self) -> Result<Vec<ClassAd>, String> {
        match self {
            AdsRef::Borrowed(ads) => Ok(ads.into_iter().cloned().collect()),
            AdsRef::File(path) => read_ads(&path).map_err(|e| e.to_string()),
        }
    }
}

/// The submitters' queues of `jobs`, grouped for `negotiator`.
fn group(
    slots: &[ClassAd],
    jobs: &AdsView<'_>,
    submitters: &[ClassAd],
    negotiator: &Negotiator,
) -> Vec<SubmitterQueue> {
    match jobs {
        AdsView::Refs(r) => snapshot::queues(slots, r, submitters, negotiator),
        AdsView::Owned(o) => snapshot::queues(slots, o, submitters, negotiator),
    }
}

/// The negotiator: its knobs (`NEGOTIATOR_*`, `PREEMPTION_*`, group
/// quotas, concurrency limits...) read from a configuration, and
/// `cycle(...)`, one negotiation cycle.
///
/// `Negotiator(config=None, resend_matched_jobs=False)`: without `config`,
/// HTCondor's defaults. `resend_matched_jobs` makes the schedd offer jobs
/// matched in an earlier spin again (as in `negotiator-sim cycle`).
#[pyclass(name = "Negotiator", module = "classad_rs", frozen)]
pub(crate) struct PyNegotiator {
    negotiator: Negotiator,
    config: Config,
}

#[pymethods]
impl PyNegotiator {
    #[new]
    #[pyo3(signature = (config=None, resend_matched_jobs=false))]
    fn new(config: Option<PyRef<'_, PyConfig>>, resend_matched_jobs: bool) -> PyResult<PyNegotiator> {
        let config = match config {
            Some(c) => c.config.clone(),
            None => Loader::new().subsystem("NEGOTIATOR").defaults(),
        };
        let mut negotiator = Negotiator::from_config(&config).map_err(|e| config_error(&e))?;
        negotiator.settings.resend_matched_jobs = resend_matched_jobs;
        Ok(PyNegotiator { negotiator, config })
    }

    /// The configuration the negotiator was made from.
    #[getter]
    fn config(&self) -> PyConfig {
        PyConfig { config: self.config.clone() }
    }

    /// The idle jobs of `jobs` (a list of `ClassAd`s or a file path)
    /// grouped into autoclusters as a schedd groups them for this
    /// negotiator and these `slots`, with the tie-breaks of `submitters`;
    /// `cycle` takes them in place of the jobs. The GIL is released.
    #[pyo3(signature = (slots, jobs, submitters=None))]
    fn queues(
        &self,
        py: Python<'_>,
        slots: Ads<'_>,
        jobs: Ads<'_>,
        submitters: Option<Ads<'_>>,
    ) -> PyResult<PyJobQueues> {
        let (slots, jobs) = (AdsRef::of(&slots), AdsRef::of(&jobs));
        let submitters = submitters.as_ref().map(AdsRef::of);
        let negotiator = &self.negotiator;
        let queues = py
            .detach(move || -> Result<_, String> {
                let slots = slots.load()?;
                let jobs = jobs.view()?;
                let submitters = match submitters {
                    Some(s) => s.load()?,
                    None => Vec::new(),
                };
                Ok(group(&slots, &jobs, &submitters, negotiator))
            })
            .map_err(error)?;
        Ok(PyJobQueues { queues })
    }

    /// Runs one negotiation cycle: `slots` (every slot ad, claimed ones
    /// included) and `jobs` (idle jobs are negotiated; running ones are
    /// counted), each a list of `ClassAd`s or a file path; the idle jobs
    /// are grouped into autoclusters as a schedd groups them (or `jobs`
    /// is a `JobQueues`, already grouped).
    /// `accountant` holds the priorities and is charged the matches (a
    /// fresh one, everybody at the lowest priority, when `None`);
    /// `submitters` (submitter ads) break ties between equal priorities.
    /// `now` defaults to the accountant's last update. The GIL is released
    /// while the cycle runs.
    #[pyo3(signature = (slots, jobs, accountant=None, now=None, submitters=None))]
    fn cycle(
        &self,
        py: Python<'_>,
        slots: Ads<'_>,
        jobs: Jobs<'_>,
        accountant: Option<PyRefMut<'_, PyAccountant>>,
        now: Option<i64>,
        submitters: Option<Ads<'_>>,
    ) -> PyResult<PyCycleOutcome> {
        let mut fresh;
        let mut held = accountant;
        let acct: &mut Accountant = match held.as_deref_mut() {
            Some(a) => &mut a.acct,
            None => {
                fresh = Accountant::new(accountant_config(Some(&PyConfig { config: self.config.clone() }))?);
                &mut fresh
            }
        };
        let slots = AdsRef::of(&slots);
        let (jobs, grouped) = match &jobs {
            Jobs::Ads(ads) => (Some(AdsRef::of(ads)), None),
            Jobs::Queues(q) => (None, Some(q.queues.as_slice())),
        };
        if grouped.is_some() && submitters.is_some() {
            return Err(error("give submitters to Negotiator.queues, not with a JobQueues".to_string()));
        }
        let submitters = submitters.as_ref().map(AdsRef::of);
        let negotiator = &self.negotiator;
        let outcome = py
            .detach(move || {
                let slots = slots.load()?;
                let made;
                let queues = match (grouped, jobs) {
                    (Some(q), _) => q,
                    (None, Some(jobs)) => {
                        let jobs = jobs.view()?;
                        let submitters = match submitters {
                            Some(s) => s.load()?,
                            None => Vec::new(),
                        };
                        made = group(&slots, &jobs, &submitters, negotiator);
                        made.as_slice()
                    }
                    (None, None) => &[],
                };
                let now = now.unwrap_or_else(|| acct.last_update());
                negotiator.cycle_owned(acct, slots, queues, now).map_err(|e| e.to_string())
            })
            .map_err(error)?;
        Ok(PyCycleOutcome::new(outcome))
    }

    fn __repr__(&self) -> String {
        let files: Vec<&str> = self.config.files().collect();
        Repr::new("Negotiator").text(&format!("config files={}", repr(&files))).finish()
    }
}
