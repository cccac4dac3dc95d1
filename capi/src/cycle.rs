//! Negotiation cycles: `classad_negotiator_cycle` on slot and job ads,
//! `classad_snapshot_cycle` on a pool snapshot's files as `negotiator-sim
//! cycle` runs it, and `ClassadCycle`, what a cycle decided (the matches,
//! the rejections, each submitter's figures), read by index.
//!
//! Thread safety: an outcome never changes once made; its functions may
//! run from many threads at once.

use std::ffi::c_char;

use matchmaker::accountant::{Accountant, AccountantConfig};
use matchmaker::negotiator::{CycleOutcome, Negotiator};
use matchmaker::snapshot::{Priorities, Snapshot};

use crate::accountant::ClassadAccountant;
use crate::ad_list::ClassadAdList;
use crate::error::{guard, ClassadError, ClassadStatus, Failure};
use crate::handles::{free_handle, handle, handle_out, value_out};
use crate::negotiator::ClassadNegotiator;
use crate::strings::{path_in, string_out, ClassadStr, ClassadString};

/// The `now` that tells `classad_negotiator_cycle` to use the
/// accountant's last update as the cycle's time (so that the priorities
/// are used as they are, without decay).
pub const CLASSAD_NOW_LAST_UPDATE: i64 = i64::MIN;

/// Runs one negotiation cycle: `slots` (every slot ad, claimed ones
/// included), `jobs` (idle jobs, JobStatus 1, are negotiated; running ones
/// counted), `submitters` (submitter ads, whose `LastHeardFrom` breaks
/// ties between equal priorities; NULL: none). The idle jobs are grouped
/// into autoclusters as a schedd groups them. `accountant` holds the
/// priorities and is charged the matches (NULL: a fresh one, dropped
/// afterwards). `now` is the cycle's time in seconds since 1970, or
/// [`CLASSAD_NOW_LAST_UPDATE`]. The outcome, stored in `*out`, is the
/// caller's to free with `classad_cycle_free`; the lists are not changed.
///
/// # Safety
/// `negotiator` is a live negotiator; `accountant` NULL or a live
/// accountant no other thread uses; `slots` and `jobs` live lists,
/// `submitters` NULL or one; `out` a valid place for a pointer; `error`
/// NULL or one.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn classad_negotiator_cycle(
    negotiator: *const ClassadNegotiator,
    accountant: *mut ClassadAccountant,
    slots: *const ClassadAdList,
    jobs: *const ClassadAdList,
    submitters: *const ClassadAdList,
    now: i64,
    out: *mut *mut ClassadCycle,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (negotiator, accountant, slots, jobs, submitters) = unsafe {
            (
                handle(negotiator, "the negotiator")?,
                accountant.as_mut(),
                handle(slots, "the slots")?,
                handle(jobs, "the jobs")?,
                submitters.as_ref(),
            )
        };
        let mut fresh;
        let acct = match accountant {
            Some(a) => &mut a.0,
            None => {
                fresh = Accountant::new(AccountantConfig::from_config(&negotiator.config)?);
                &mut fresh
            }
        };
        let none = Vec::new();
        let submitters = submitters.map_or(&none, |s| &s.0);
        let queues = matchmaker::snapshot::queues(&slots.0, &jobs.0, submitters, &negotiator.negotiator);
        let now = if now == CLASSAD_NOW_LAST_UPDATE { acct.last_update() } else { now };
        let outcome = negotiator
            .negotiator
            .cycle(acct, &slots.0, &queues, now)
            .map_err(|e| Failure::new(ClassadStatus::Negotiator, e.to_string()))?;
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, ClassadCycle::new(outcome)) }
    })
}

/// The outcome of a cycle. Made by `classad_negotiator_cycle` or
/// `classad_snapshot_cycle`, freed with `classad_cycle_free`; the strings
/// its functions give are borrowed from it.
pub struct ClassadCycle {
    outcome: CycleOutcome,
    /// Each rejection's reason in words.
    rejection_reasons: Vec<String>,
    /// Each submitter's stop cause and summary in words.
    submitter_words: Vec<(String, String)>,
}

impl ClassadCycle {
    pub(crate) fn new(outcome: CycleOutcome) -> ClassadCycle {
        let rejection_reasons = outcome.rejections.iter().map(|r| r.reason.to_string()).collect();
        let submitter_words = outcome.submitters.iter().map(|s| (s.stopped.to_string(), s.summary())).collect();
        ClassadCycle { outcome, rejection_reasons, submitter_words }
    }
}

/// One match of a cycle. The strings are borrowed from the outcome.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ClassadCycleMatch {
    /// The submitter (`name@domain`, or the accounting group's name).
    pub submitter: ClassadStr,
    /// The job's `ClusterId`.
    pub cluster_id: i64,
    /// The job's `ProcId`.
    pub proc_id: i64,
    /// The slot's `Name`.
    pub slot: ClassadStr,
    /// How the slot was taken, in HTCondor's words: `no preemption`,
    /// `rank preemption`, `priority preemption`.
    pub reason: ClassadStr,
    /// The user preempted (empty when none).
    pub preempting: ClassadStr,
    /// What the match cost the submitter (the slot's weight).
    pub cost: f64,
    /// The pie spin it was made in (1 is the first; 0 the floor round).
    pub spin: u32,
}

/// One rejected request of a cycle.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ClassadCycleRejection {
    /// The submitter.
    pub submitter: ClassadStr,
    /// The `ClusterId` of the job that stood for its autocluster.
    pub cluster_id: i64,
    /// Its `ProcId`.
    pub proc_id: i64,
    /// Why, in HTCondor's words (`no match found`, `submitter limit
    /// exceeded`, `insufficient priority`, ...).
    pub reason: ClassadStr,
    /// The pie spin it was rejected in (1 is the first; 0 the floor round).
    pub spin: u32,
}

/// One submitter's figures in a cycle, in negotiation order.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ClassadCycleSubmitter {
    /// The submitter.
    pub name: ClassadStr,
    /// Its effective priority at the cycle's start.
    pub effective_priority: f64,
    /// Its priority factor.
    pub priority_factor: f64,
    /// Its share of the pool (a fraction).
    pub share: f64,
    /// The slot weight it could take.
    pub limit: f64,
    /// Its usage (slot weight) before the cycle.
    pub usage_before: f64,
    /// Its usage after.
    pub usage_after: f64,
    /// Its idle jobs.
    pub idle_jobs: u64,
    /// Its matches.
    pub matches: u32,
    /// Its rejected requests.
    pub rejections: u32,
    /// Why its negotiation stopped (`got all it wanted`, `share limit`,
    /// `ceiling`, `no idle jobs`, `not reached`).
    pub stopped: ClassadStr,
    /// A sentence of the table `negotiator-sim cycle` prints.
    pub summary: ClassadStr,
}

/// Frees an outcome. NULL is allowed.
///
/// # Safety
/// `cycle` is NULL or made by this library, freed once; nothing borrowed
/// from it is used afterwards.
#[no_mangle]
pub unsafe extern "C" fn classad_cycle_free(cycle: *mut ClassadCycle) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(cycle) }
}

/// The number of matches (0 when `cycle` is NULL).
///
/// # Safety
/// `cycle` is NULL or a live outcome.
#[no_mangle]
pub unsafe extern "C" fn classad_cycle_match_count(cycle: *const ClassadCycle) -> usize {
    // SAFETY: the caller's contract.
    unsafe { cycle.as_ref() }.map_or(0, |c| c.outcome.matches.len())
}

/// The number of rejected requests (0 when `cycle` is NULL).
///
/// # Safety
/// `cycle` is NULL or a live outcome.
#[no_mangle]
pub unsafe extern "C" fn classad_cycle_rejection_count(cycle: *const ClassadCycle) -> usize {
    // SAFETY: the caller's contract.
    unsafe { cycle.as_ref() }.map_or(0, |c| c.outcome.rejections.len())
}

/// The number of submitters negotiated (0 when `cycle` is NULL).
///
/// # Safety
/// `cycle` is NULL or a live outcome.
#[no_mangle]
pub unsafe extern "C" fn classad_cycle_submitter_count(cycle: *const ClassadCycle) -> usize {
    // SAFETY: the caller's contract.
    unsafe { cycle.as_ref() }.map_or(0, |c| c.outcome.submitters.len())
}

fn out_of_range(what: &str, index: usize, len: usize) -> Failure {
    Failure::argument(format!("{what} {index} of {len}"))
}

/// Match `index` (from 0, in the order they were made), in `*out`.
/// `CLASSAD_STATUS_ARGUMENT` past the last.
///
/// # Safety
/// `cycle` is a live outcome; `out` a valid place for a
/// [`ClassadCycleMatch`]; `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_cycle_match(
    cycle: *const ClassadCycle,
    index: usize,
    out: *mut ClassadCycleMatch,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let cycle = unsafe { handle(cycle, "the cycle") }?;
        let all = &cycle.outcome.matches;
        let m = all.get(index).ok_or_else(|| out_of_range("match", index, all.len()))?;
        let found = ClassadCycleMatch {
            submitter: ClassadStr::of(&m.submitter),
            cluster_id: m.job.cluster,
            proc_id: m.job.proc,
            slot: ClassadStr::of(&m.slot),
            reason: ClassadStr::of(m.reason()),
            preempting: ClassadStr::of(m.preempting.as_deref().unwrap_or("")),
            cost: m.cost,
            spin: m.spin,
        };
        // SAFETY: the caller's contract.
        unsafe { value_out(out, found) }
    })
}

/// Rejection `index` (from 0, in order), in `*out`.
/// `CLASSAD_STATUS_ARGUMENT` past the last.
///
/// # Safety
/// `cycle` is a live outcome; `out` a valid place for a
/// [`ClassadCycleRejection`]; `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_cycle_rejection(
    cycle: *const ClassadCycle,
    index: usize,
    out: *mut ClassadCycleRejection,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let cycle = unsafe { handle(cycle, "the cycle") }?;
        let all = &cycle.outcome.rejections;
        let r = all.get(index).ok_or_else(|| out_of_range("rejection", index, all.len()))?;
        let found = ClassadCycleRejection {
            submitter: ClassadStr::of(&r.submitter),
            cluster_id: r.job.cluster,
            proc_id: r.job.proc,
            reason: ClassadStr::of(&cycle.rejection_reasons[index]),
            spin: r.spin,
        };
        // SAFETY: the caller's contract.
        unsafe { value_out(out, found) }
    })
}

/// Submitter `index` (from 0, in negotiation order), in `*out`.
/// `CLASSAD_STATUS_ARGUMENT` past the last.
///
/// # Safety
/// `cycle` is a live outcome; `out` a valid place for a
/// [`ClassadCycleSubmitter`]; `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_cycle_submitter(
    cycle: *const ClassadCycle,
    index: usize,
    out: *mut ClassadCycleSubmitter,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let cycle = unsafe { handle(cycle, "the cycle") }?;
        let all = &cycle.outcome.submitters;
        let s = all.get(index).ok_or_else(|| out_of_range("submitter", index, all.len()))?;
        let (stopped, summary) = &cycle.submitter_words[index];
        let found = ClassadCycleSubmitter {
            name: ClassadStr::of(&s.name),
            effective_priority: s.eup,
            priority_factor: s.factor,
            share: s.share,
            limit: s.limit,
            usage_before: s.usage_before,
            usage_after: s.usage_after,
            idle_jobs: s.idle_jobs,
            matches: s.matches,
            rejections: s.rejections,
            stopped: ClassadStr::of(stopped),
            summary: ClassadStr::of(summary),
        };
        // SAFETY: the caller's contract.
        unsafe { value_out(out, found) }
    })
}

/// The whole outcome as JSON (matches, rejections, submitters, the
/// cycle's statistics, groups), in `*out`, which the caller frees with
/// `classad_string_free`.
///
/// # Safety
/// `cycle` is a live outcome; `out` a valid place for a
/// [`ClassadString`]; `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_cycle_json(
    cycle: *const ClassadCycle,
    out: *mut ClassadString,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let cycle = unsafe { handle(cycle, "the cycle") }?;
        let text = serde_json::to_string_pretty(&cycle.outcome)
            .map_err(|e| Failure::new(ClassadStatus::Internal, e.to_string()))?;
        // SAFETY: the caller's contract.
        unsafe { string_out(out, &text) }
    })
}

/// One cycle on a pool snapshot's files, as `negotiator-sim cycle` runs
/// it: `slots` (`condor_status -long` or `-json` output), `jobs`
/// (`condor_q -allusers -long` or `-json`), `config` (NULL: HTCondor's
/// defaults), `accountant_log` (NULL: nobody has a history) and
/// `submitters` (`condor_status -submitters -long`; NULL: none), each a
/// file name of UTF-8 with its length; duplicate slot and job ads are
/// read once (the later wins), and the cycle's time is the priorities'
/// last update. `resend_matched_jobs` is
/// `classad_negotiator_set_resend_matched_jobs`'s. The outcome, stored in `*out`, is the caller's to free
/// with [`classad_cycle_free`].
///
/// # Safety
/// Each name is NULL (where allowed) or points to its length's bytes;
/// `out` is a valid place for a pointer; `error` NULL or one.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn classad_snapshot_cycle(
    slots: *const c_char,
    slots_len: usize,
    jobs: *const c_char,
    jobs_len: usize,
    config: *const c_char,
    config_len: usize,
    accountant_log: *const c_char,
    accountant_log_len: usize,
    submitters: *const c_char,
    submitters_len: usize,
    resend_matched_jobs: bool,
    out: *mut *mut ClassadCycle,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (slots, jobs, config, log, submitters) = unsafe {
            (
                path_in(slots, slots_len, "the slots' file name")?.ok_or_else(|| Failure::null("slots"))?,
                path_in(jobs, jobs_len, "the jobs' file name")?.ok_or_else(|| Failure::null("jobs"))?,
                path_in(config, config_len, "the configuration's file name")?,
                path_in(accountant_log, accountant_log_len, "the accountant log's file name")?,
                path_in(submitters, submitters_len, "the submitters' file name")?,
            )
        };
        let priorities = log.map_or(Priorities::Fresh, Priorities::Log);
        let mut snapshot = Snapshot::read(&slots, &jobs, config.as_deref(), &priorities, submitters.as_deref())?;
        let mut negotiator = Negotiator::from_config(&snapshot.config)?;
        negotiator.settings.resend_matched_jobs = resend_matched_jobs;
        let queues = snapshot.queues(&negotiator);
        let now = snapshot.last_update;
        let outcome = negotiator
            .cycle(&mut snapshot.accountant, &snapshot.slots, &queues, now)
            .map_err(|e| Failure::new(ClassadStatus::Negotiator, e.to_string()))?;
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, ClassadCycle::new(outcome)) }
    })
}
