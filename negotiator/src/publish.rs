//! What the negotiator tells the collector: its own ad with the last
//! cycles' `LastNegotiationCycle*<i>` figures (`condor_status -negotiator
//! -l`; HTCondor's `publishNegotiationCycleStats`), and one accounting ad
//! per submitter that uses resources (`condor_userprio` reads them from
//! the collector when the negotiator cannot be asked; HTCondor's
//! `forwardAccountingData`).

use std::collections::VecDeque;

use classad::{ClassAd, Expr};
use matchmaker::accountant::Accountant;

use crate::cycle::CycleReport;

/// How many cycles' figures the ad carries
/// (NEGOTIATION_CYCLE_STATS_LENGTH, 3 by default).
pub const DEFAULT_HISTORY: usize = 3;

/// One cycle's published figures.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct CycleFigures {
    /// Start and end (Unix seconds).
    pub start: i64,
    /// See `start`.
    pub end: i64,
    /// Seconds of the whole cycle and of its four phases (1: fetching the
    /// pool; 2: accounting and the pie; 3: the prefetch of requests;
    /// 4: matchmaking and delivery).
    pub duration: f64,
    /// See `duration`.
    pub phases: [f64; 4],
    /// The CPU seconds of the whole cycle and of each phase, as `phases`
    /// (phase 2's share of the matchmaker's CPU time is taken to be its
    /// wall clock time, the rest of it goes to phase 4).
    pub cpu: [f64; 4],
    /// Seconds prefetching.
    pub prefetch: f64,
    /// CPU seconds prefetching.
    pub prefetch_cpu: f64,
    /// `TotalSlots`, `TrimmedSlots`, `CandidateSlots`.
    pub total_slots: usize,
    /// See `total_slots`.
    pub trimmed_slots: usize,
    /// See `total_slots`.
    pub candidate_slots: usize,
    /// `NumSchedulers`, `NumIdleJobs`, `NumJobsConsidered`.
    pub schedulers: usize,
    /// See `schedulers`.
    pub idle_jobs: u64,
    /// See `schedulers`.
    pub jobs_considered: u64,
    /// `Matches`, `Rejections`, `Pies`, `PieSpins`.
    pub matches: usize,
    /// See `matches`.
    pub rejections: usize,
    /// See `matches`.
    pub pies: u32,
    /// See `matches`.
    pub pie_spins: u32,
    /// `ActiveSubmitterCount`.
    pub active_submitters: usize,
    /// `SubmittersFailed` and `SubmittersShareLimit`: names.
    pub submitters_failed: Vec<String>,
    /// See `submitters_failed`.
    pub submitters_share_limit: Vec<String>,
}

impl CycleFigures {
    /// A cycle's figures from its report.
    pub fn from_report(report: &CycleReport) -> CycleFigures {
        let s = &report.outcome.stats;
        let p = &report.phases;
        let secs = |d: std::time::Duration| d.as_secs_f64();
        let mut failed: Vec<String> = report.failures.iter().map(|f| f.submitter.clone()).collect();
        failed.sort();
        failed.dedup();
        CycleFigures {
            start: report.started,
            end: report.started + report.duration().as_secs() as i64,
            duration: secs(report.duration()),
            phases: [
                secs(p.fetch),
                s.phase2_seconds,
                secs(p.prefetch),
                secs(p.matching) - s.phase2_seconds + secs(p.deliver),
            ],
            cpu: {
                let c = &report.cpu;
                let phase2 = s.phase2_seconds.min(secs(c.matching));
                [secs(c.fetch), phase2, secs(c.prefetch), secs(c.matching) - phase2 + secs(c.deliver)]
            },
            prefetch: secs(p.prefetch),
            prefetch_cpu: secs(report.cpu.prefetch),
            total_slots: report.slots,
            trimmed_slots: s.trimmed_slots,
            candidate_slots: s.candidate_slots,
            schedulers: report.schedds,
            idle_jobs: s.idle_jobs,
            jobs_considered: s.jobs_considered,
            matches: report.matches_sent,
            rejections: s.rejections,
            pies: s.pies,
            pie_spins: s.pie_spins,
            active_submitters: s.active_submitters,
            submitters_failed: failed,
            submitters_share_limit: s.submitters_share_limit.clone(),
        }
    }
}

/// Who the negotiator is, for its ad.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Identity {
    /// `Name` (NEGOTIATOR_NAME, else the host name).
    pub name: String,
    /// `Machine`: the host name.
    pub machine: String,
    /// Our command address (`MyAddress`, `NegotiatorIpAddr`).
    pub address: String,
    /// `CondorVersion` (without it `condor_userprio` cannot find us).
    pub version: String,
    /// `CondorPlatform`.
    pub platform: String,
    /// `DaemonStartTime`.
    pub start_time: i64,
}

/// The negotiator's ad: identity, daemon-core attributes and the figures
/// of the last cycles, newest first (index 0).
///
/// ```
/// use negotiator::publish::{negotiator_ad, CycleFigures, Identity};
/// let mut me = Identity::default();
/// me.name = "neg@cm".into();
/// me.address = "<127.0.0.1:9620>".into();
/// let mut last = CycleFigures::default();
/// last.matches = 3;
/// last.submitters_share_limit = vec!["a@x".into(), "b@x".into()];
/// let ad = negotiator_ad(&me, [&last], 1_700_000_000);
/// assert_eq!(ad.lookup_string("MyType").as_deref(), Some("Negotiator"));
/// assert_eq!(ad.lookup_integer("LastNegotiationCycleMatches0"), Some(3));
/// assert_eq!(ad.lookup_string("LastNegotiationCycleSubmittersShareLimit0").as_deref(), Some("a@x, b@x"));
/// ```
pub fn negotiator_ad<'a>(me: &Identity, history: impl IntoIterator<Item = &'a CycleFigures>, now: i64) -> ClassAd {
    let mut ad = ClassAd::with_capacity(64);
    ad.insert("MyType", "Negotiator");
    ad.insert("Name", me.name.as_str());
    ad.insert("Machine", me.machine.as_str());
    ad.insert("NegotiatorIpAddr", me.address.as_str());
    ad.insert("MyAddress", me.address.as_str());
    ad.insert(
        "AddressV1",
        format!(
            "{{[ p=\"primary\"; a=\"{}\"; port={}; n=\"Internet\"; ]}}",
            host_of(&me.address),
            port_of(&me.address)
        )
        .as_str(),
    );
    ad.insert("CondorVersion", me.version.as_str());
    ad.insert("CondorPlatform", me.platform.as_str());
    ad.insert("DaemonStartTime", me.start_time);
    ad.insert("DaemonLastReconfigTime", me.start_time);
    ad.insert("MonitorSelfTime", now);
    ad.insert("RealUid", i64::from(real_uid()));
    let history: Vec<&CycleFigures> = history.into_iter().collect();
    for (i, s) in history.iter().enumerate() {
        let period = history.get(i + 1).map_or(0, |older| s.end - older.end);
        let set = |ad: &mut ClassAd, name: &str, value: Expr| {
            ad.insert(format!("LastNegotiationCycle{name}{i}").as_str(), value);
        };
        set(&mut ad, "Time", s.start.into());
        set(&mut ad, "End", s.end.into());
        set(&mut ad, "Period", period.into());
        set(&mut ad, "Duration", (s.duration as i64).into());
        for (k, d) in s.phases.iter().enumerate() {
            set(&mut ad, &format!("Phase{}Duration", k + 1), (*d as i64).into());
        }
        set(&mut ad, "TotalSlots", (s.total_slots as i64).into());
        set(&mut ad, "TrimmedSlots", (s.trimmed_slots as i64).into());
        set(&mut ad, "CandidateSlots", (s.candidate_slots as i64).into());
        set(&mut ad, "SlotShareIter", 0i64.into());
        set(&mut ad, "NumSchedulers", (s.schedulers as i64).into());
        set(&mut ad, "NumIdleJobs", (s.idle_jobs as i64).into());
        set(&mut ad, "NumJobsConsidered", (s.jobs_considered as i64).into());
        set(&mut ad, "Matches", (s.matches as i64).into());
        set(&mut ad, "Rejections", (s.rejections as i64).into());
        let rate = if s.duration >= 1.0 { s.matches as f64 / s.duration.floor() } else { 0.0 };
        set(&mut ad, "MatchRate", rate.into());
        let sustained = if period > 0 { s.matches as f64 / period as f64 } else { 0.0 };
        set(&mut ad, "MatchRateSustained", sustained.into());
        set(&mut ad, "ActiveSubmitterCount", (s.active_submitters as i64).into());
        set(&mut ad, "Pies", i64::from(s.pies).into());
        set(&mut ad, "PieSpins", i64::from(s.pie_spins).into());
        set(&mut ad, "PrefetchDuration", (s.prefetch as i64).into());
        set(&mut ad, "PrefetchCpuTime", s.prefetch_cpu.into());
        // condor_negotiator 23.9.6 publishes phase 1's CPU time as the
        // cycle's.
        set(&mut ad, "CpuTime", s.cpu[0].into());
        for (k, d) in s.cpu.iter().enumerate() {
            set(&mut ad, &format!("Phase{}CpuTime", k + 1), (*d).into());
        }
        set(&mut ad, "ScheddsOutOfTime", "".into());
        set(&mut ad, "SubmittersFailed", s.submitters_failed.join(", ").as_str().into());
        set(&mut ad, "SubmittersOutOfTime", "".into());
        set(&mut ad, "SubmittersShareLimit", s.submitters_share_limit.join(", ").as_str().into());
    }
    ad
}

/// The last cycles' figures, newest first, at most `len`.
#[derive(Debug, Clone)]
pub struct History {
    len: usize,
    cycles: VecDeque<CycleFigures>,
}

impl History {
    /// Room for `len` cycles (at least one).
    pub fn new(len: usize) -> History {
        History { len: len.max(1), cycles: VecDeque::new() }
    }

    /// Adds the newest cycle.
    pub fn push(&mut self, figures: CycleFigures) {
        self.cycles.push_front(figures);
        self.cycles.truncate(self.len);
    }

    /// Newest first.
    pub fn iter(&self) -> impl Iterator<Item = &CycleFigures> {
        self.cycles.iter()
    }

    /// The newest cycle.
    pub fn last(&self) -> Option<&CycleFigures> {
        self.cycles.front()
    }
}

/// One accounting ad per submitter record with `ResourcesUsed` (as
/// HTCondor sends only those), `MyType = "Accounting"`.
pub fn accounting_ads(accountant: &Accountant, negotiator_name: &str) -> Vec<ClassAd> {
    let mut ads = Vec::new();
    for record in accountant.customers() {
        let name = record.name.as_str();
        if record.resources_used.is_none() {
            continue;
        }
        let mut ad = ClassAd::with_capacity(24);
        for (attr, text) in record.attributes() {
            if let Ok(expr) = text.parse::<Expr>() {
                ad.insert(attr, expr);
            }
        }
        ad.insert("MyType", "Accounting");
        ad.insert("Name", name);
        ad.insert("NegotiatorName", negotiator_name);
        ad.insert("Priority", accountant.real_priority(name));
        ad.insert("Ceiling", accountant.ceiling(name).unwrap_or(-1));
        ad.insert("Floor", accountant.floor(name));
        let group = accountant.group_of(name);
        let is_group = group == name;
        ad.insert("IsAccountingGroup", is_group);
        ad.insert("AccountingGroup", group);
        ad.insert("LastUpdate", accountant.last_update());
        ads.push(ad);
    }
    ads
}

fn host_of(sinful: &str) -> &str {
    sinful.trim_start_matches('<').split([':', '>', '?']).next().unwrap_or("")
}

fn port_of(sinful: &str) -> i64 {
    sinful
        .trim_start_matches('<')
        .split(['>', '?'])
        .next()
        .and_then(|a| a.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or(0)
}

fn real_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map_or(0, |m| m.uid())
}
