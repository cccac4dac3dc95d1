//! Autoclusters: a job queue's idle jobs grouped as a schedd offers them
//! to the negotiator.
//!
//! Jobs alike in every attribute matching can read (their *significant
//! attributes*) match the same slots in the same order, so the schedd
//! sends one resource request per group, its first job's ad with a count,
//! instead of every job. The significant attributes are the attributes
//! the slots' expressions read from a job (their external references,
//! trimmed: `TARGET.RequestMemory` is `RequestMemory`), those of the
//! negotiator's own expressions, the job's `Requirements`, `Rank` and
//! `ConcurrencyLimits` and the job attributes those read, and who submits
//! the job.
//!
//! ```
//! use classad::ClassAd;
//! use matchmaker::autocluster::{queues, significant_attributes};
//!
//! let slots: Vec<ClassAd> = vec![r#"[ Memory = 4096; Start = TARGET.RequestMemory <= Memory; Requirements = START ]"#.parse()?];
//! let jobs: Vec<ClassAd> = (0..5)
//!     .map(|i| format!(r#"[ ClusterId = 1; ProcId = {i}; JobStatus = 1; User = "amy@site"; Owner = "amy";
//!         RequestMemory = {}; Requirements = TARGET.Memory >= RequestMemory ]"#, if i < 3 { 1024 } else { 2048 }).parse())
//!     .collect::<Result<_, _>>()?;
//! let significant = significant_attributes(&slots, &[]);
//! assert!(significant.iter().any(|a| a == "RequestMemory"));
//! let queues = queues(&jobs, &significant);
//! assert_eq!(queues.len(), 1);
//! let counts: Vec<(String, u32)> = queues[0].requests.iter().map(|r| (r.job.to_string(), r.count)).collect();
//! assert_eq!(counts, [("1.0".to_string(), 3), ("1.3".to_string(), 2)]);
//! # Ok::<(), classad::ParseError>(())
//! ```

use std::fmt;
use std::sync::Arc;

use classad::references::{external, internal, trim_all, Side};
use classad::{ClassAd, EvalContext, EvalOptions, Expr, Semantics, Value};
use rustc_hash::FxHashMap;

/// A job's id, `cluster.proc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct JobId {
    /// `ClusterId`.
    pub cluster: i64,
    /// `ProcId`.
    pub proc: i64,
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.cluster, self.proc)
    }
}

/// One resource request: an autocluster's first idle job and how many idle
/// jobs the autocluster has.
#[derive(Debug, Clone)]
pub struct ResourceRequest {
    /// The representative job's ad (shared: the negotiator hands policy
    /// expressions a small ad of its own attributes chained to it).
    pub ad: Arc<ClassAd>,
    /// How many jobs it stands for.
    pub count: u32,
    /// The representative job's id.
    pub job: JobId,
    /// The autocluster's id (unique within its submitter's queue).
    pub autocluster: u32,
}

/// What one submitter offers the negotiator: its resource requests in the
/// order the schedd sends them.
#[derive(Debug, Clone, Default)]
pub struct SubmitterQueue {
    /// The submitter's name (`user@domain`, or `group.user@domain`).
    pub name: String,
    /// The schedd the jobs are queued on.
    pub schedd: String,
    /// Its resource requests, in order.
    pub requests: Vec<ResourceRequest>,
    /// Its running jobs.
    pub running_jobs: u32,
    /// `LastHeardFrom % 1009` of its submitter ad: the negotiator's last
    /// tie-break among equal priorities (0 when unknown).
    pub tie_break: i64,
}

impl SubmitterQueue {
    /// How many idle jobs its requests stand for.
    pub fn idle_jobs(&self) -> u64 {
        self.requests.iter().map(|r| u64::from(r.count)).sum()
    }
}

/// Attributes every job's autocluster depends on, whatever the slots read.
const ALWAYS: &[&str] = &[
    "Requirements",
    "Rank",
    "ConcurrencyLimits",
    "NiceUser",
    "JobUniverse",
    "AccountingGroup",
    "User",
    "Owner",
    "RequestCpus",
    "RequestMemory",
    "RequestDisk",
    "RequestGPUs",
];

/// The job attributes matching can read: the trimmed external references
/// of every expression of `slots` and of `negotiator_exprs` (the
/// negotiator's PRE/POST_JOB_RANK, PREEMPTION_REQUIREMENTS/RANK...),
/// and the attributes every autocluster depends on; in case-insensitive
/// order, one spelling per name. Slots whose references cannot be
/// determined (a cycle) are skipped, as HTCondor does.
pub fn significant_attributes<S: std::borrow::Borrow<ClassAd>>(slots: &[S], negotiator_exprs: &[&Expr]) -> Vec<String> {
    let opts = EvalOptions::new().semantics(Semantics::Old);
    let mut names: Vec<String> = ALWAYS.iter().map(|s| s.to_string()).collect();
    // Slots of one pool repeat the same few expressions: look at each text once.
    let mut seen: rustc_hash::FxHashSet<(String, String)> = Default::default();
    for ad in slots.iter().map(|s| s.borrow()) {
        // A slot chained to a parent (a host's shared attributes) has the
        // parent's expressions too.
        let mut layers = vec![ad];
        while let Some(parent) = layers.last().and_then(|a| a.chained_parent()) {
            layers.push(parent);
        }
        for (name, expr) in layers.iter().flat_map(|a| a.iter()) {
            let slot = ad;
            if expr.as_literal().is_some() {
                continue;
            }
            if !seen.insert((name.as_str().to_ascii_lowercase(), expr.to_string())) {
                continue;
            }
            if let Ok(refs) = external(&opts, slot, expr) {
                names.extend(refs);
            }
        }
    }
    let empty = ClassAd::new();
    for expr in negotiator_exprs {
        if let Ok(refs) = external(&opts, &empty, expr) {
            names.extend(refs);
        }
    }
    trim_all(&names, Side::External)
}

/// The submitter a job is negotiated for: its `AccountingGroup` (with the
/// domain of its `User`) when it has one, else its `User`, else
/// `Owner@local`.
pub fn submitter_of(job: &ClassAd) -> String {
    let user = text(job, "User");
    let domain = user.as_deref().and_then(|u| u.rsplit_once('@')).map(|(_, d)| d.to_string());
    if let Some(group) = text(job, "AccountingGroup") {
        return match domain {
            Some(d) if !group.contains('@') => format!("{group}@{d}"),
            _ => group,
        };
    }
    user.or_else(|| text(job, "Owner").map(|o| format!("{o}@local"))).unwrap_or_else(|| "nobody@local".to_string())
}

fn text(ad: &ClassAd, name: &str) -> Option<String> {
    match ad.lookup(name).and_then(Expr::as_literal) {
        Some(classad::Literal::Str(s)) => Some(s.as_str().to_string()),
        _ => None,
    }
}

fn int(ad: &ClassAd, name: &str, default: i64) -> i64 {
    let opts = EvalOptions::new().semantics(Semantics::Old);
    match EvalContext::new(&opts).my(ad).eval_attr(name) {
        Value::Int(i) => i,
        Value::Real(r) => r as i64,
        _ => default,
    }
}

/// The schedd a job is queued on: the part of its `GlobalJobId` before the
/// first `#` (`local` without one).
fn schedd_of(job: &ClassAd) -> String {
    text(job, "GlobalJobId")
        .and_then(|g| g.split_once('#').map(|(s, _)| s.to_string()))
        .unwrap_or_else(|| "local".to_string())
}

/// The job attributes a job's autocluster is keyed on: the significant
/// attributes, and the job's own attributes its `Requirements` and `Rank`
/// read.
fn key_names(job: &ClassAd, significant: &[String]) -> Vec<String> {
    let opts = EvalOptions::new().semantics(Semantics::Old);
    let mut names: Vec<String> = significant.to_vec();
    for attr in ["Requirements", "Rank"] {
        if let Some(expr) = job.lookup(attr) {
            if let Ok(refs) = internal(&opts, job, expr) {
                names.extend(refs);
            }
        }
    }
    trim_all(&names, Side::Internal)
}

/// Groups `jobs` (a `condor_q -l` listing: idle jobs have `JobStatus` 1,
/// running ones 2) into each submitter's resource requests. Jobs are taken
/// in the schedd's order (higher `JobPrio` first, then by id); an
/// autocluster's request is its first idle job, in the order its first
/// job comes. Submitters are returned by name. The jobs may be ads or
/// references to ads (`&[&ClassAd]`), so that a caller holding them
/// elsewhere need not copy them.
pub fn queues<J: std::borrow::Borrow<ClassAd>>(jobs: &[J], significant: &[String]) -> Vec<SubmitterQueue> {
    let mut order: Vec<(i64, JobId, usize)> = jobs
        .iter()
        .map(J::borrow)
        .enumerate()
        .map(|(i, job)| {
            (-int(job, "JobPrio", 0), JobId { cluster: int(job, "ClusterId", 0), proc: int(job, "ProcId", 0) }, i)
        })
        .collect();
    order.sort();
    let mut by_name: FxHashMap<String, usize> = FxHashMap::default();
    let mut out: Vec<SubmitterQueue> = Vec::new();
    let mut clusters: Vec<FxHashMap<String, usize>> = Vec::new();
    // Jobs of one submit share their significant names; key them once per shape.
    let mut names_cache: FxHashMap<String, Vec<String>> = FxHashMap::default();
    for (_, id, i) in order {
        let job: &ClassAd = jobs[i].borrow();
        let name = submitter_of(job);
        let at = *by_name.entry(name.clone()).or_insert_with(|| {
            out.push(SubmitterQueue { name, schedd: schedd_of(job), ..SubmitterQueue::default() });
            clusters.push(FxHashMap::default());
            out.len() - 1
        });
        match int(job, "JobStatus", 1) {
            1 => {}
            2 => {
                out[at].running_jobs += 1;
                continue;
            }
            _ => continue,
        }
        let shape = ["Requirements", "Rank"]
            .iter()
            .map(|a| job.lookup(*a).map(|e| e.to_string()).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\u{1}");
        let names = names_cache.entry(shape).or_insert_with(|| key_names(job, significant));
        let mut key = String::new();
        for n in names.iter() {
            if let Some(expr) = job.lookup(n.as_str()) {
                key.push_str(n);
                key.push('=');
                key.push_str(&expr.to_string());
            }
            key.push('\u{1}');
        }
        let queue = &mut out[at];
        match clusters[at].get(&key) {
            Some(&r) => queue.requests[r].count += 1,
            None => {
                let autocluster = u32::try_from(queue.requests.len()).unwrap_or(u32::MAX);
                clusters[at].insert(key, queue.requests.len());
                queue.requests.push(ResourceRequest { ad: Arc::new(job.clone()), count: 1, job: id, autocluster });
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ad(text: &str) -> ClassAd {
        text.parse().expect("ad")
    }

    #[test]
    fn submitters_and_groups() {
        assert_eq!(submitter_of(&ad(r#"[ User = "amy@x.org"; Owner = "amy" ]"#)), "amy@x.org");
        assert_eq!(
            submitter_of(&ad(r#"[ User = "amy@x.org"; AccountingGroup = "group_a.amy" ]"#)),
            "group_a.amy@x.org"
        );
        assert_eq!(submitter_of(&ad(r#"[ Owner = "bob" ]"#)), "bob@local");
    }

    #[test]
    fn running_jobs_count_and_priority_orders_requests() {
        let jobs: Vec<ClassAd> = [
            r#"[ ClusterId = 2; ProcId = 0; JobStatus = 1; User = "a@d"; RequestCpus = 1 ]"#,
            r#"[ ClusterId = 1; ProcId = 0; JobStatus = 2; User = "a@d"; RequestCpus = 1 ]"#,
            r#"[ ClusterId = 3; ProcId = 0; JobStatus = 1; User = "a@d"; RequestCpus = 2; JobPrio = 5 ]"#,
            r#"[ ClusterId = 1; ProcId = 1; JobStatus = 1; User = "a@d"; RequestCpus = 1 ]"#,
            r#"[ ClusterId = 4; ProcId = 0; JobStatus = 5; User = "a@d"; RequestCpus = 1 ]"#,
        ]
        .iter()
        .map(|t| ad(t))
        .collect();
        let q = queues(&jobs, &significant_attributes::<ClassAd>(&[], &[]));
        assert_eq!(q.len(), 1);
        assert_eq!(q[0].running_jobs, 1);
        let requests: Vec<(String, u32)> = q[0].requests.iter().map(|r| (r.job.to_string(), r.count)).collect();
        assert_eq!(requests, [("3.0".to_string(), 1), ("1.1".to_string(), 2)]);
        assert_eq!(q[0].idle_jobs(), 3);
    }
}
