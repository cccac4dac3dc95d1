//! One negotiation cycle on a live pool, as `condor_negotiator` runs it
//! with request prefetching (NEGOTIATOR_PREFETCH_REQUESTS, on by
//! default):
//!
//! 1. **fetch**: the slot ads, their claim ids and the submitter ads from
//!    the collector ([`Pool::fetch`]);
//! 2. **prefetch**: from every submitter with idle jobs, its resource
//!    requests, one negotiation per submitter on one kept connection per
//!    schedd ([`ScheddLink`]);
//! 3. **match**: `matchmaker`'s cycle on all of it (the accountant brought
//!    up to date, the pie, the spins);
//! 4. **deliver**: per submitter, a negotiation that sends its matches
//!    (`PERMISSION_AND_AD` with the slot's claim id) and rejections.
//!
//! A schedd that fails (connection refused, timeout, garbage) loses its
//! connection and its submitters' turn; the cycle goes on with the others
//! and the report names it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cedar::client::{Client, CollectorClient};
use cedar::sinful::Sinful;
use classad::{ClassAd, EvalContext, EvalOptions, Value};
use matchmaker::accountant::Accountant;
use matchmaker::autocluster::{significant_attributes, JobId, ResourceRequest, SubmitterQueue};
use matchmaker::negotiator::{CycleOutcome, Negotiator, NegotiatorError};

use crate::pool::{claim_key, wants_claiming, Pool};
use crate::schedd::{
    Header, Request, ScheddLink, ATTR_RESOURCE_REQUEST_CLUSTER, ATTR_RESOURCE_REQUEST_PROC, MAX_REQUESTS,
};

/// The cycle's knobs that are not the matchmaker's.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CycleSettings {
    /// NEGOTIATOR_RESOURCE_REQUEST_LIST_SIZE (200): requests asked for per
    /// round.
    pub request_list_size: u32,
    /// NEGOTIATOR_SLOT_CONSTRAINT, as text, sent to the collector.
    pub slot_constraint: Option<String>,
    /// NEGOTIATOR_JOB_CONSTRAINT, as text, sent to the schedds.
    pub job_constraint: Option<String>,
}

impl Default for CycleSettings {
    fn default() -> CycleSettings {
        CycleSettings { request_list_size: 200, slot_constraint: None, job_constraint: None }
    }
}

/// Why a cycle did not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CycleError {
    /// The collector could not be asked for the pool.
    #[error("fetching the pool from the collector: {0}")]
    Collector(#[source] cedar::Error),
    /// The matchmaker's cycle failed (the accountant's log).
    #[error(transparent)]
    Negotiator(#[from] NegotiatorError),
}

/// A submitter the cycle could not negotiate with, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Failure {
    /// The submitter.
    pub submitter: String,
    /// Its schedd's address.
    pub schedd: String,
    /// In which phase (`prefetch` or `deliver`).
    pub phase: &'static str,
    /// What went wrong.
    pub error: String,
}

/// How long each phase took (wall clock time in
/// [`CycleReport::phases`], the process's CPU time in
/// [`CycleReport::cpu`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct Phases {
    /// Fetching the pool from the collector.
    pub fetch: Duration,
    /// Fetching the requests from the schedds.
    pub prefetch: Duration,
    /// The matchmaker's cycle.
    pub matching: Duration,
    /// Sending matches and rejections to the schedds.
    pub deliver: Duration,
}

/// What one cycle did.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CycleReport {
    /// When it started (Unix seconds).
    pub started: i64,
    /// Its phases' wall clock time.
    pub phases: Phases,
    /// The CPU time the process used in each phase (user and system, all
    /// threads), as condor_negotiator's `…CpuTime` figures count it: what
    /// a phase spent waiting (for the collector or a schedd) is the
    /// difference from [`phases`](CycleReport::phases).
    pub cpu: Phases,
    /// Slot ads fetched.
    pub slots: usize,
    /// Private ads fetched.
    pub private_ads: usize,
    /// Slots left out because they want claiming and have no claim id.
    pub slots_without_claim: usize,
    /// Submitter ads fetched.
    pub submitter_ads: usize,
    /// Schedds negotiated with.
    pub schedds: usize,
    /// Requests fetched.
    pub requests: usize,
    /// Matches the schedds were sent.
    pub matches_sent: usize,
    /// Rejections the schedds were sent.
    pub rejections_sent: usize,
    /// Submitters that failed, and why.
    pub failures: Vec<Failure>,
    /// What the matchmaker decided.
    pub outcome: CycleOutcome,
}

impl CycleReport {
    /// The whole cycle's duration.
    pub fn duration(&self) -> Duration {
        self.phases.fetch + self.phases.prefetch + self.phases.matching + self.phases.deliver
    }
}

/// A phase's wall clock and CPU time, from its start.
struct Stopwatch {
    wall: Instant,
    cpu: Duration,
}

impl Stopwatch {
    fn start() -> Stopwatch {
        Stopwatch { wall: Instant::now(), cpu: process_cpu_time() }
    }

    /// The wall clock and the CPU time since the start.
    fn stop(&self) -> (Duration, Duration) {
        (self.wall.elapsed(), process_cpu_time().saturating_sub(self.cpu))
    }
}

/// The CPU time the process has used (`CLOCK_PROCESS_CPUTIME_ID`).
fn process_cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
}

/// One submitter being negotiated for.
struct Submitter {
    name: String,
    schedd_addr: String,
    header: Header,
    /// Request autocluster ids as the schedd gave them, by the matchmaker's.
    autoclusters: HashMap<u32, i64>,
    /// The request ads, by their job.
    requests: HashMap<JobId, Arc<ClassAd>>,
    /// Its accounting group (`<none>` without one).
    group: String,
}

/// The negotiator's live side: the connections it keeps to schedds and the
/// client it makes them with. [`LiveNegotiator::cycle`] runs one cycle.
pub struct LiveNegotiator {
    client: Client,
    links: HashMap<String, ScheddLink>,
    match_log: Option<MatchLog>,
    /// The cycle's own knobs.
    pub settings: CycleSettings,
}

/// Where the `Matched …` and `Rejected …` lines go (HTCondor's MatchLog).
pub type MatchLog = Arc<dyn Fn(&str) + Send + Sync>;

impl LiveNegotiator {
    /// A negotiator connecting to schedds with `client` (its security and
    /// NEGOTIATOR_TIMEOUT as the timeout).
    pub fn new(client: Client, settings: CycleSettings) -> LiveNegotiator {
        LiveNegotiator { client, links: HashMap::new(), match_log: None, settings }
    }

    /// Sends the `Matched …` and `Rejected …` lines (the ones
    /// condor_negotiator writes to `NEGOTIATOR_MATCH_LOG`) to `log`
    /// instead of to `tracing` at INFO.
    pub fn set_match_log(&mut self, log: MatchLog) {
        self.match_log = Some(log);
    }

    /// Forgets every kept schedd connection (as a reconfig does).
    pub fn drop_connections(&mut self) {
        self.links.clear();
    }

    /// Runs one cycle: fetch, prefetch, match, deliver (see the module's
    /// documentation) at Unix time `now`.
    ///
    /// Real schedds reject a match to a slot they cannot claim (claim id
    /// `null`: `WantClaiming = false`, `Offline`) and offer the job again
    /// in the next spin; set `negotiator.settings.resend_claimless_matches`
    /// for the cycle to expect that, as `classad-negotiator` does.
    pub fn cycle(
        &mut self,
        collector: &CollectorClient,
        negotiator: &Negotiator,
        accountant: &mut Accountant,
        now: i64,
    ) -> Result<CycleReport, CycleError> {
        let mut report = CycleReport { started: now, ..CycleReport::default() };

        let t = Stopwatch::start();
        let pool = Pool::fetch(collector, self.settings.slot_constraint.as_deref()).map_err(CycleError::Collector)?;
        report.slots = pool.slots.len();
        report.private_ads = pool.private_ads;
        report.submitter_ads = pool.submitters.len();
        let Pool { slots, mut claims, submitters: submitter_ads, .. } = pool;
        // A slot that wants claiming and has no claim id cannot be offered
        // (HTCondor tries it and drops it then).
        let slots: Vec<Arc<ClassAd>> = slots
            .into_iter()
            .filter(|s| !wants_claiming(s) || claim_key(s).is_some_and(|(n, a)| claims.has(&n, &a)))
            .map(Arc::new)
            .collect();
        report.slots_without_claim = report.slots - slots.len();
        (report.phases.fetch, report.cpu.fetch) = t.stop();

        let t = Stopwatch::start();
        let significant = significant_attributes(&slots, &negotiator.expressions()).join(",");
        let mut subs = Vec::new();
        let mut queues = Vec::new();
        for ad in &submitter_ads {
            if ad.lookup_integer("IdleJobs").unwrap_or(0) <= 0 {
                continue;
            }
            let (Some(name), Some(addr)) = (ad.lookup_string("Name"), ad.lookup_string("ScheddIpAddr")) else {
                continue;
            };
            let header = Header {
                owner: ad.lookup_string("OriginalName").unwrap_or_else(|| name.clone()),
                autocluster_attrs: significant.clone(),
                submitter_tag: ad.lookup_string("SubmitterTag").unwrap_or_default(),
                job_constraint: self.settings.job_constraint.clone(),
            };
            let mut sub = Submitter {
                name,
                schedd_addr: addr,
                header,
                autoclusters: HashMap::new(),
                requests: HashMap::new(),
                group: String::new(),
            };
            match self.prefetch(&sub) {
                Ok(requests) => {
                    report.requests += requests.len();
                    let queue = queue_of(&mut sub, ad, requests);
                    queues.push(queue);
                    subs.push(sub);
                }
                Err(e) => {
                    tracing::warn!("prefetching from {} ({}): {e}; skipping it this cycle", sub.name, sub.schedd_addr);
                    self.links.remove(&sub.schedd_addr);
                    report.failures.push(Failure {
                        submitter: sub.name.clone(),
                        schedd: sub.schedd_addr.clone(),
                        phase: "prefetch",
                        error: e.to_string(),
                    });
                }
            }
        }
        report.schedds = self.links.len();
        (report.phases.prefetch, report.cpu.prefetch) = t.stop();

        let t = Stopwatch::start();
        let outcome = negotiator.cycle_shared(accountant, slots.clone(), &queues, now)?;
        (report.phases.matching, report.cpu.matching) = t.stop();
        for sub in &mut subs {
            sub.group = accountant.group_of(&sub.name).to_owned();
        }

        let t = Stopwatch::start();
        let match_log = self.match_log.clone();
        let decision = |line: std::fmt::Arguments<'_>| match &match_log {
            Some(log) => log(&line.to_string()),
            None => tracing::info!("{line}"),
        };
        for sub in &subs {
            let matches: Vec<_> = outcome.matches.iter().filter(|m| m.submitter == sub.name).collect();
            let rejections: Vec<_> = outcome.rejections.iter().filter(|r| r.submitter == sub.name).collect();
            if matches.is_empty() && rejections.is_empty() {
                continue;
            }
            let result = (|| -> Result<(usize, usize), cedar::Error> {
                let link = self.link(&sub.schedd_addr)?;
                link.negotiate(&sub.header)?;
                let mut sent = (0, 0);
                for m in &matches {
                    let slot = &slots[m.slot_index];
                    let Some((claim_ids, offer)) = offer_for(slot, m, &mut claims, &slots, sub) else {
                        tracing::info!("      {} has no claim id", m.slot);
                        continue;
                    };
                    link.send_match(&claim_ids, &offer)?;
                    decision(format_args!(
                        "      Matched {} {} {} preempting {} {} {}",
                        m.job,
                        sub.name,
                        sub.schedd_addr,
                        m.preempting.as_deref().unwrap_or("none"),
                        slot.lookup_string("StartdIpAddr").unwrap_or_default(),
                        m.slot
                    ));
                    sent.0 += 1;
                }
                for r in &rejections {
                    let ac = sub.autoclusters.get(&r.autocluster).copied().unwrap_or(-1);
                    link.send_rejection(&r.reason.to_string(), ac, r.job.cluster, r.job.proc)?;
                    decision(format_args!("      Rejected {} {} {}: {}", r.job, sub.name, sub.schedd_addr, r.reason));
                    sent.1 += 1;
                }
                link.end()?;
                Ok(sent)
            })();
            match result {
                Ok((m, r)) => {
                    report.matches_sent += m;
                    report.rejections_sent += r;
                }
                Err(e) => {
                    tracing::warn!("negotiating with {} ({}): {e}", sub.name, sub.schedd_addr);
                    self.links.remove(&sub.schedd_addr);
                    report.failures.push(Failure {
                        submitter: sub.name.clone(),
                        schedd: sub.schedd_addr.clone(),
                        phase: "deliver",
                        error: e.to_string(),
                    });
                }
            }
        }
        (report.phases.deliver, report.cpu.deliver) = t.stop();
        report.outcome = outcome;
        Ok(report)
    }

    /// The kept connection to a schedd, or a new one.
    fn link(&mut self, addr: &str) -> Result<&mut ScheddLink, cedar::Error> {
        if !self.links.contains_key(addr) {
            let sinful: Sinful = addr.parse()?;
            let link = ScheddLink::connect(&self.client, &sinful)?;
            self.links.insert(addr.to_owned(), link);
        }
        self.links
            .get_mut(addr)
            .ok_or_else(|| cedar::Error::new(cedar::ErrorKind::Protocol, "the schedd connection went away"))
    }

    /// One submitter's requests: a negotiation that fetches them all and
    /// ends.
    fn prefetch(&mut self, sub: &Submitter) -> Result<Vec<Request>, cedar::Error> {
        let per_round = self.settings.request_list_size;
        let link = self.link(&sub.schedd_addr)?;
        link.negotiate(&sub.header)?;
        let fetched = link.fetch_requests(per_round, MAX_REQUESTS)?;
        link.end()?;
        Ok(fetched.requests)
    }
}

/// The matchmaker's queue for one submitter's requests.
fn queue_of(sub: &mut Submitter, ad: &ClassAd, requests: Vec<Request>) -> SubmitterQueue {
    let mut queue = SubmitterQueue {
        name: sub.name.clone(),
        schedd: ad.lookup_string("ScheddName").unwrap_or_default(),
        running_jobs: ad.lookup_integer("RunningJobs").unwrap_or(0).clamp(0, i64::from(u32::MAX)) as u32,
        tie_break: ad.lookup_integer("LastHeardFrom").unwrap_or(0).rem_euclid(1009),
        ..SubmitterQueue::default()
    };
    let mut next_private = u32::MAX;
    for r in requests {
        let id = match u32::try_from(r.autocluster) {
            Ok(id) if !sub.autoclusters.contains_key(&id) || sub.autoclusters[&id] == r.autocluster => id,
            _ => {
                next_private -= 1;
                next_private
            }
        };
        sub.autoclusters.insert(id, r.autocluster);
        let job = JobId { cluster: r.cluster, proc: r.proc };
        let ad = Arc::new(r.ad);
        sub.requests.insert(job, ad.clone());
        queue.requests.push(ResourceRequest { count: r.count, job, autocluster: id, ad });
    }
    queue
}

/// The claim id(s) and the offer for one match (HTCondor's
/// `matchmakingProtocol`): `None` when the slot's claim was offered
/// already.
fn offer_for(
    slot: &ClassAd,
    m: &matchmaker::negotiator::MatchRecord,
    claims: &mut crate::pool::ClaimIds,
    slots: &[Arc<ClassAd>],
    sub: &Submitter,
) -> Option<(String, ClassAd)> {
    let mut claim_ids = if wants_claiming(slot) {
        let (name, addr) = claim_key(slot)?;
        claims.take(&name, &addr)?
    } else {
        "null".to_owned()
    };
    // The dynamic slots a partitionable slot is taken with go with it.
    for child in &m.preempted_dynamic_slots {
        let found = slots.iter().find(|s| s.lookup_string("Name").as_deref() == Some(child.as_str()));
        if let Some((n, a)) = found.and_then(|s| claim_key(s)) {
            if let Some(id) = claims.take(&n, &a) {
                claim_ids.push(' ');
                claim_ids.push_str(&id);
            }
        }
    }
    let mut offer = slot.clone();
    let empty = ClassAd::new();
    let request = sub.requests.get(&m.job).map_or(&empty, |r| r.as_ref());
    decorate_offer(&mut offer, request, m.job, &sub.group);
    Some((claim_ids, offer))
}

/// Completes an offer as HTCondor's negotiator does before it sends it:
/// `Requirements` back from `SavedRequirements`, the request's concurrency
/// limits evaluated against the slot and lower-cased
/// (`MatchedConcurrencyLimits`), the submitter's groups (`RemoteGroup`,
/// `RemoteNegotiatingGroup`, `RemoteAutoregroup`) and the request's ids
/// (`_condor_RESOURCE_CLUSTER`, `_condor_RESOURCE_PROC`), by which the
/// schedd finds the job.
///
/// ```
/// use matchmaker::autocluster::JobId;
/// let mut offer: classad::ClassAd = r#"[ Name = "slot1@n"; Cpus = 4 ]"#.parse()?;
/// let request: classad::ClassAd = r#"[ ConcurrencyLimits = "DB:2" ]"#.parse()?;
/// negotiator::cycle::decorate_offer(&mut offer, &request, JobId { cluster: 7, proc: 0 }, "<none>");
/// assert_eq!(offer.lookup_string("MatchedConcurrencyLimits").as_deref(), Some("db:2"));
/// assert_eq!(offer.lookup_integer("_condor_RESOURCE_CLUSTER"), Some(7));
/// assert_eq!(offer.lookup_string("RemoteNegotiatingGroup").as_deref(), Some("<none>"));
/// assert!(offer.lookup("RemoteGroup").is_none());
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn decorate_offer(offer: &mut ClassAd, request: &ClassAd, job: JobId, group: &str) {
    if let Some(saved) = offer.lookup("SavedRequirements").cloned() {
        offer.insert("Requirements", saved);
    }
    let opts = EvalOptions::new();
    match request.lookup("ConcurrencyLimits").map(|e| EvalContext::new(&opts).my(request).target(offer).eval(e)) {
        Some(Value::Str(s)) => {
            offer.insert("MatchedConcurrencyLimits", s.as_str().to_ascii_lowercase().as_str());
        }
        _ => {
            offer.remove("MatchedConcurrencyLimits");
        }
    }
    let group = if group.is_empty() { matchmaker::groups::ROOT } else { group };
    if group != matchmaker::groups::ROOT {
        offer.insert("RemoteGroup", group);
    }
    offer.insert("RemoteNegotiatingGroup", group);
    offer.insert("RemoteAutoregroup", false);
    offer.insert(ATTR_RESOURCE_REQUEST_CLUSTER, job.cluster);
    offer.insert(ATTR_RESOURCE_REQUEST_PROC, job.proc);
}
