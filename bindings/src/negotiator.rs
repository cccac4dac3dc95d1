//! One negotiation cycle (`matchmaker::negotiator`): `Negotiator` and what
//! a cycle decided (`CycleOutcome`, with its matches, rejections,
//! per-submitter and per-group figures and statistics), and the outcome's
//! tables as columns for pyarrow and pandas. The GIL is released while a
//! cycle runs.

use std::path::PathBuf;

use classad::ClassAd;
use matchmaker::accountant::Accountant;
use matchmaker::autocluster::SubmitterQueue;
use matchmaker::candidates::ClaimKind;
use matchmaker::config::{Config, Loader};
use matchmaker::negotiator::{
    CycleOutcome, CycleStats, GroupReport, GroupRoundFigures, GroupRoundTotals, MatchRecord, Negotiator, Rejection,
    SubmitterReport,
};
use matchmaker::snapshot::{self, read_ads};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::accountant::{accountant_config, PyAccountant};
use crate::arrow::{self, Column};
use crate::config::{config_error, PyConfig};
use crate::errors::error;
use crate::objects::PyClassAd;

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
        format!("JobQueues({} submitters, {} autoclusters)", self.queues.len(), self.autoclusters())
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

/// HTCondor's name of a way to take a slot.
fn claim_name(claim: ClaimKind) -> &'static str {
    match claim {
        ClaimKind::Unclaimed => "no preemption",
        ClaimKind::RankPreemption => "rank preemption",
        ClaimKind::PriorityPreemption => "priority preemption",
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
        Ok(PyCycleOutcome { outcome })
    }

    fn __repr__(&self) -> String {
        let files: Vec<&str> = self.config.files().collect();
        format!("Negotiator(config files={files:?})")
    }
}

/// One match of a cycle: a submitter's request given a slot.
#[pyclass(name = "CycleMatch", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyCycleMatch {
    /// The submitter.
    submitter: String,
    /// The request's representative job, `"cluster.proc"`.
    job: String,
    /// Its `ClusterId`.
    cluster: i64,
    /// Its `ProcId`.
    proc: i64,
    /// The request's autocluster.
    autocluster: u32,
    /// The slot's `Name`.
    slot: String,
    /// The slot's position in the cycle's input.
    slot_index: usize,
    /// How the slot is taken: `"no preemption"`, `"rank preemption"` or
    /// `"priority preemption"`.
    claim: &'static str,
    /// Who is preempted, if anybody.
    preempting: Option<String>,
    /// With `ALLOW_PSLOT_PREEMPTION`, the dynamic slots of the matched
    /// partitionable slot that the match preempts, by `Name` (empty for any
    /// other match).
    preempted_dynamic_slots: Vec<String>,
    /// What the match costs the submitter (the slot's weight).
    cost: f64,
    /// The pie spin (1 is the first; 0 the floor round).
    spin: u32,
}

#[pymethods]
impl PyCycleMatch {
    fn __repr__(&self) -> String {
        format!(
            "CycleMatch(submitter={:?}, job={:?}, slot={:?}, claim={:?})",
            self.submitter, self.job, self.slot, self.claim
        )
    }
}

impl From<&MatchRecord> for PyCycleMatch {
    fn from(m: &MatchRecord) -> Self {
        PyCycleMatch {
            submitter: m.submitter.clone(),
            job: m.job.to_string(),
            cluster: m.job.cluster,
            proc: m.job.proc,
            autocluster: m.autocluster,
            slot: m.slot.clone(),
            slot_index: m.slot_index,
            claim: claim_name(m.claim),
            preempting: m.preempting.clone(),
            preempted_dynamic_slots: m.preempted_dynamic_slots.clone(),
            cost: m.cost,
            spin: m.spin,
        }
    }
}

/// A request that found no slot.
#[pyclass(name = "Rejection", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyRejection {
    /// The submitter.
    submitter: String,
    /// The request's representative job, `"cluster.proc"`.
    job: String,
    /// The request's autocluster.
    autocluster: u32,
    /// Why, in HTCondor's words (`"no match found"`, `"submitter limit
    /// exceeded"`, ...).
    reason: String,
    /// The pie spin.
    spin: u32,
}

#[pymethods]
impl PyRejection {
    fn __repr__(&self) -> String {
        format!("Rejection(submitter={:?}, job={:?}, reason={:?})", self.submitter, self.job, self.reason)
    }
}

impl From<&Rejection> for PyRejection {
    fn from(r: &Rejection) -> Self {
        PyRejection {
            submitter: r.submitter.clone(),
            job: r.job.to_string(),
            autocluster: r.autocluster,
            reason: r.reason.to_string(),
            spin: r.spin,
        }
    }
}

/// One submitter's figures in a cycle.
#[pyclass(name = "SubmitterFigures", module = "classad_rs", frozen, get_all)]
pub(crate) struct PySubmitterFigures {
    /// The submitter.
    name: String,
    /// Its effective priority.
    effective_priority: f64,
    /// Its priority factor.
    priority_factor: f64,
    /// Its share of the pool in the first spin.
    share: f64,
    /// Its share times the pool's slot weight (`SubmitterLimit`).
    limit: f64,
    /// Weighted usage when the cycle began.
    usage_before: f64,
    /// Weighted usage when it ended.
    usage_after: f64,
    /// Idle jobs it offered.
    idle_jobs: u64,
    /// Matches made.
    matches: u32,
    /// Requests rejected.
    rejections: u32,
    /// Why it stopped (`"got all it wanted"`, `"share limit"`, ...).
    stopped: String,
}

#[pymethods]
impl PySubmitterFigures {
    fn __repr__(&self) -> String {
        format!(
            "SubmitterFigures(name={:?}, share={}, matches={}, stopped={:?})",
            self.name, self.share, self.matches, self.stopped
        )
    }
}

impl From<&SubmitterReport> for PySubmitterFigures {
    fn from(r: &SubmitterReport) -> Self {
        PySubmitterFigures {
            name: r.name.clone(),
            effective_priority: r.eup,
            priority_factor: r.factor,
            share: r.share,
            limit: r.limit,
            usage_before: r.usage_before,
            usage_after: r.usage_after,
            idle_jobs: r.idle_jobs,
            matches: r.matches,
            rejections: r.rejections,
            stopped: r.stopped.to_string(),
        }
    }
}

/// A group's figures in one allocation round.
#[pyclass(name = "GroupRound", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyGroupRound {
    /// The round (1 is the first).
    round: u32,
    /// The quota the group negotiated with.
    quota: f64,
    /// What it asked for.
    requested: f64,
    /// What it was allocated.
    allocated: f64,
    /// What was left unallocated.
    unallocated: f64,
    /// Its sort key (`GROUP_SORT_EXPR`).
    sort_key: f64,
    /// Its submitters' limits.
    limits: Vec<f64>,
    /// Why it was skipped, if it was.
    skipped: Option<String>,
    /// What capped its allocation, if anything.
    capped_by: Option<String>,
    /// Matches made in the round.
    matches: usize,
    /// Weighted usage after the round.
    usage_after: f64,
}

impl From<&GroupRoundFigures> for PyGroupRound {
    fn from(f: &GroupRoundFigures) -> Self {
        PyGroupRound {
            round: f.round,
            quota: f.quota,
            requested: f.requested,
            allocated: f.allocated,
            unallocated: f.unallocated,
            sort_key: f.sort_key,
            limits: f.limits.clone(),
            skipped: f.skipped.clone(),
            capped_by: f.capped_by.clone(),
            matches: f.matches,
            usage_after: f.usage_after,
        }
    }
}

/// A group of the group tree and its quota in a cycle.
#[pyclass(name = "GroupFigures", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyGroupFigures {
    /// The group (`"<none>"` is the root).
    name: String,
    /// Its parent, `None` for the root.
    parent: Option<String>,
    /// Its configured quota (`GROUP_QUOTA_*` or a dynamic fraction).
    config_quota: f64,
    /// Whether the configured quota is static (a number of slots).
    static_quota: bool,
    /// Whether it accepts surplus.
    accept_surplus: bool,
    /// Whether it negotiates again as `<none>` (`GROUP_AUTOREGROUP`).
    autoregroup: bool,
    /// The quota assigned to it this cycle.
    quota: f64,
    /// The quota of its subtree.
    subtree_quota: f64,
    /// Its demand (weighted idle and running jobs).
    demand: f64,
    /// Its submitters.
    submitters: usize,
    /// What it was allocated.
    allocated: f64,
    /// The surplus it received.
    surplus: f64,
    /// Weighted usage when the cycle began.
    usage_before: f64,
    /// Weighted usage when it ended.
    usage_after: f64,
    /// Matches made.
    matches: usize,
    /// Its figures per allocation round.
    rounds: Vec<Py<PyGroupRound>>,
    /// Why it got what it got, in words.
    explanation: String,
}

#[pymethods]
impl PyGroupFigures {
    fn __repr__(&self) -> String {
        format!(
            "GroupFigures(name={:?}, quota={}, allocated={}, matches={})",
            self.name, self.quota, self.allocated, self.matches
        )
    }
}

impl PyGroupFigures {
    fn new(py: Python<'_>, g: &GroupReport) -> PyResult<Self> {
        Ok(PyGroupFigures {
            name: g.name.clone(),
            parent: g.parent.clone(),
            config_quota: g.config_quota,
            static_quota: g.static_quota,
            accept_surplus: g.accept_surplus,
            autoregroup: g.autoregroup,
            quota: g.quota,
            subtree_quota: g.subtree_quota,
            demand: g.demand,
            submitters: g.submitters,
            allocated: g.allocated,
            surplus: g.surplus,
            usage_before: g.usage_before,
            usage_after: g.usage_after,
            matches: g.matches,
            rounds: g.rounds.iter().map(|f| Py::new(py, PyGroupRound::from(f))).collect::<PyResult<_>>()?,
            explanation: g.explanation.clone(),
        })
    }
}

/// The totals of one group allocation round.
#[pyclass(name = "GroupRoundTotals", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyGroupRoundTotals {
    /// The round.
    round: u32,
    /// Allocated in the round.
    allocated: f64,
    /// Weighted usage after it.
    usage: f64,
    /// Surplus left unallocated.
    surplus: f64,
    /// The largest change of a group's allocation.
    max_delta: f64,
    /// The order groups negotiated in.
    order: Vec<String>,
}

impl From<&GroupRoundTotals> for PyGroupRoundTotals {
    fn from(t: &GroupRoundTotals) -> Self {
        PyGroupRoundTotals {
            round: t.round,
            allocated: t.allocated,
            usage: t.usage,
            surplus: t.surplus,
            max_delta: t.max_delta,
            order: t.order.clone(),
        }
    }
}

/// A cycle's statistics, as HTCondor publishes them in the negotiator ad
/// (`LastNegotiationCycle*`).
#[pyclass(name = "CycleStats", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyCycleStats {
    /// Slots received.
    total_slots: usize,
    /// Slots left after trimming.
    trimmed_slots: usize,
    /// Slots matching could consider.
    candidate_slots: usize,
    /// The pool's slot weight.
    slot_weight_total: f64,
    /// The smallest slot weight.
    min_slot_weight: f64,
    /// Matches.
    matches: usize,
    /// Rejections.
    rejections: usize,
    /// Pies negotiated.
    pies: u32,
    /// Pie spins.
    pie_spins: u32,
    /// Requests considered.
    jobs_considered: u64,
    /// Idle jobs of the submitters negotiated with.
    idle_jobs: u64,
    /// Submitters negotiated with.
    active_submitters: usize,
    /// Submitters stopped by their share, in order.
    submitters_share_limit: Vec<String>,
    /// Match lists built.
    match_lists: u64,
    /// Seconds spent accounting and preparing.
    phase2_seconds: f64,
    /// Seconds spent matchmaking.
    phase4_seconds: f64,
}

impl From<&CycleStats> for PyCycleStats {
    fn from(s: &CycleStats) -> Self {
        PyCycleStats {
            total_slots: s.total_slots,
            trimmed_slots: s.trimmed_slots,
            candidate_slots: s.candidate_slots,
            slot_weight_total: s.slot_weight_total,
            min_slot_weight: s.min_slot_weight,
            matches: s.matches,
            rejections: s.rejections,
            pies: s.pies,
            pie_spins: s.pie_spins,
            jobs_considered: s.jobs_considered,
            idle_jobs: s.idle_jobs,
            active_submitters: s.active_submitters,
            submitters_share_limit: s.submitters_share_limit.clone(),
            match_lists: s.match_lists,
            phase2_seconds: s.phase2_seconds,
            phase4_seconds: s.phase4_seconds,
        }
    }
}

/// Everything one cycle decided. The lists are made when asked for (keep
/// one in a variable rather than asking again); `to_arrow(table)` and
/// `to_pandas(table)` give the tables `"matches"`, `"rejections"`,
/// `"submitters"`, `"groups"`.
#[pyclass(name = "CycleOutcome", module = "classad_rs", frozen)]
pub(crate) struct PyCycleOutcome {
    outcome: CycleOutcome,
}

fn table(outcome: &CycleOutcome, which: &str) -> PyResult<Vec<(&'static str, Column)>> {
    let s = |v: &str| Some(v.to_string());
    Ok(match which {
        "matches" => {
            let m = &outcome.matches;
            vec![
                ("submitter", Column::Str(m.iter().map(|m| s(&m.submitter)).collect())),
                ("job", Column::Str(m.iter().map(|m| Some(m.job.to_string())).collect())),
                ("cluster", Column::I64(m.iter().map(|m| m.job.cluster).collect())),
                ("proc", Column::I64(m.iter().map(|m| m.job.proc).collect())),
                ("autocluster", Column::I64(m.iter().map(|m| i64::from(m.autocluster)).collect())),
                ("slot", Column::Str(m.iter().map(|m| s(&m.slot)).collect())),
                ("slot_index", Column::I64(m.iter().map(|m| m.slot_index as i64).collect())),
                ("claim", Column::Str(m.iter().map(|m| s(claim_name(m.claim))).collect())),
                ("preempting", Column::Str(m.iter().map(|m| m.preempting.clone()).collect())),
                ("cost", Column::F64(m.iter().map(|m| m.cost).collect())),
                ("spin", Column::I64(m.iter().map(|m| i64::from(m.spin)).collect())),
            ]
        }
        "rejections" => {
            let r = &outcome.rejections;
            vec![
                ("submitter", Column::Str(r.iter().map(|r| s(&r.submitter)).collect())),
                ("job", Column::Str(r.iter().map(|r| Some(r.job.to_string())).collect())),
                ("autocluster", Column::I64(r.iter().map(|r| i64::from(r.autocluster)).collect())),
                ("reason", Column::Str(r.iter().map(|r| Some(r.reason.to_string())).collect())),
                ("spin", Column::I64(r.iter().map(|r| i64::from(r.spin)).collect())),
            ]
        }
        "submitters" => {
            let r = &outcome.submitters;
            vec![
                ("name", Column::Str(r.iter().map(|r| s(&r.name)).collect())),
                ("effective_priority", Column::F64(r.iter().map(|r| r.eup).collect())),
                ("priority_factor", Column::F64(r.iter().map(|r| r.factor).collect())),
                ("share", Column::F64(r.iter().map(|r| r.share).collect())),
                ("limit", Column::F64(r.iter().map(|r| r.limit).collect())),
                ("usage_before", Column::F64(r.iter().map(|r| r.usage_before).collect())),
                ("usage_after", Column::F64(r.iter().map(|r| r.usage_after).collect())),
                ("idle_jobs", Column::I64(r.iter().map(|r| r.idle_jobs as i64).collect())),
                ("matches", Column::I64(r.iter().map(|r| i64::from(r.matches)).collect())),
                ("rejections", Column::I64(r.iter().map(|r| i64::from(r.rejections)).collect())),
                ("stopped", Column::Str(r.iter().map(|r| Some(r.stopped.to_string())).collect())),
            ]
        }
        "groups" => {
            let g = &outcome.groups;
            vec![
                ("name", Column::Str(g.iter().map(|g| s(&g.name)).collect())),
                ("parent", Column::Str(g.iter().map(|g| g.parent.clone()).collect())),
                ("config_quota", Column::F64(g.iter().map(|g| g.config_quota).collect())),
                ("static_quota", Column::Bool(g.iter().map(|g| g.static_quota).collect())),
                ("accept_surplus", Column::Bool(g.iter().map(|g| g.accept_surplus).collect())),
                ("autoregroup", Column::Bool(g.iter().map(|g| g.autoregroup).collect())),
                ("quota", Column::F64(g.iter().map(|g| g.quota).collect())),
                ("subtree_quota", Column::F64(g.iter().map(|g| g.subtree_quota).collect())),
                ("demand", Column::F64(g.iter().map(|g| g.demand).collect())),
                ("submitters", Column::I64(g.iter().map(|g| g.submitters as i64).collect())),
                ("allocated", Column::F64(g.iter().map(|g| g.allocated).collect())),
                ("surplus", Column::F64(g.iter().map(|g| g.surplus).collect())),
                ("usage_before", Column::F64(g.iter().map(|g| g.usage_before).collect())),
                ("usage_after", Column::F64(g.iter().map(|g| g.usage_after).collect())),
                ("matches", Column::I64(g.iter().map(|g| g.matches as i64).collect())),
                ("rounds", Column::I64(g.iter().map(|g| g.rounds.len() as i64).collect())),
                ("explanation", Column::Str(g.iter().map(|g| s(&g.explanation)).collect())),
            ]
        }
        other => {
            return Err(error(format!(
                "no table {other:?}: the tables are \"matches\", \"rejections\", \"submitters\", \"groups\""
            )))
        }
    })
}

#[pymethods]
impl PyCycleOutcome {
    /// The matches, in the order they were made.
    #[getter]
    fn matches(&self) -> Vec<PyCycleMatch> {
        self.outcome.matches.iter().map(PyCycleMatch::from).collect()
    }

    /// The rejected requests, in order.
    #[getter]
    fn rejections(&self) -> Vec<PyRejection> {
        self.outcome.rejections.iter().map(PyRejection::from).collect()
    }

    /// Per submitter, in negotiation order.
    #[getter]
    fn submitters(&self) -> Vec<PySubmitterFigures> {
        self.outcome.submitters.iter().map(PySubmitterFigures::from).collect()
    }

    /// With group quotas, the group tree: each group's quota and figures,
    /// breadth first from `"<none>"` (empty without groups).
    #[getter]
    fn groups(&self, py: Python<'_>) -> PyResult<Vec<PyGroupFigures>> {
        self.outcome.groups.iter().map(|g| PyGroupFigures::new(py, g)).collect()
    }

    /// With group quotas, each allocation round's totals.
    #[getter]
    fn group_rounds(&self) -> Vec<PyGroupRoundTotals> {
        self.outcome.group_rounds.iter().map(PyGroupRoundTotals::from).collect()
    }

    /// The cycle's statistics.
    #[getter]
    fn stats(&self) -> PyCycleStats {
        PyCycleStats::from(&self.outcome.stats)
    }

    /// How many matches `submitter` got.
    fn matches_of(&self, submitter: &str) -> usize {
        self.outcome.matches_of(submitter)
    }

    /// A table as `{column: list}` (plain Python values; `None` for a
    /// missing value).
    #[pyo3(signature = (table="matches"))]
    fn columns<'py>(&self, py: Python<'py>, table: &str) -> PyResult<Bound<'py, PyDict>> {
        arrow::columns(py, &self::table(&self.outcome, table)?)
    }

    /// A table as Arrow buffers: per column `(name, type, length,
    /// validity, data, offsets)`, type one of `"f64"`, `"i64"`, `"bool"`,
    /// `"str"`; the buffers are bytes laid out as Arrow lays them out
    /// (little-endian values, packed bits, 32-bit string offsets), so that
    /// `pyarrow.Array.from_buffers` wraps them without copying.
    #[pyo3(signature = (table="matches"))]
    fn arrow_buffers<'py>(&self, py: Python<'py>, table: &str) -> PyResult<Bound<'py, PyList>> {
        arrow::buffers(py, &self::table(&self.outcome, table)?)
    }

    /// A table as a `pyarrow.Table`, its columns wrapping the buffers of
    /// `arrow_buffers` (needs pyarrow).
    #[pyo3(signature = (table="matches"))]
    fn to_arrow<'py>(slf: &Bound<'py, Self>, table: &str) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("classad_rs._tables")?.call_method1("to_arrow", (slf, table))
    }

    /// A table as a `pandas.DataFrame` (needs pandas; through pyarrow when
    /// it is installed).
    #[pyo3(signature = (table="matches"))]
    fn to_pandas<'py>(slf: &Bound<'py, Self>, table: &str) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("classad_rs._tables")?.call_method1("to_pandas", (slf, table))
    }

    fn __repr__(&self) -> String {
        format!(
            "CycleOutcome({} matches, {} rejections, {} submitters, {} groups)",
            self.outcome.matches.len(),
            self.outcome.rejections.len(),
            self.outcome.submitters.len(),
            self.outcome.groups.len()
        )
    }
}
