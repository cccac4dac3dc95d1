//! Recorded workloads: HTCondor's job history (`condor_history -json` or
//! `-long`) and the Standard Workload Format (SWF) of the Parallel
//! Workloads Archive. Each job is submitted at its recorded submission
//! time and runs for its recorded run time.
//!
//! ```
//! use negotiator_sim::simulate::trace::read_swf;
//!
//! let swf = "; a comment\n\
//!     1 0 10 3600 4 -1 -1 4 7200 262144 1 7 3 -1 1 -1 -1 -1\n\
//!     2 60 0 600 -1 -1 -1 1 -1 -1 1 8 3 -1 1 -1 -1 -1\n";
//! let jobs = read_swf(swf.as_bytes(), "log.swf".as_ref(), "sim")?;
//! assert_eq!(jobs.len(), 2);
//! assert_eq!((jobs[0].submit, jobs[0].runtime, jobs[0].cpus, jobs[0].memory), (0, 3600, 4, 1024));
//! assert_eq!((jobs[1].user.as_str(), jobs[1].cpus), ("u8@sim", 1));
//! # Ok::<(), negotiator_sim::simulate::trace::TraceError>(())
//! ```

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use classad::{ClassAd, EvalContext, EvalOptions, Semantics, Value};

/// A job of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceJob {
    /// Submission time (epoch seconds for a history, the trace's own
    /// seconds for SWF).
    pub submit: i64,
    /// Seconds it runs.
    pub runtime: i64,
    /// `user@domain`.
    pub user: String,
    /// Accounting group (the part of `AccountingGroup` before its last
    /// `.`), if any.
    pub group: Option<String>,
    /// Its id in the trace: `ClusterId` and `ProcId` (SWF: job number, 0).
    pub cluster: i64,
    /// See `cluster`.
    pub proc: i64,
    /// CPUs requested.
    pub cpus: u32,
    /// Memory requested (MB).
    pub memory: i64,
    /// Disk requested (KB).
    pub disk: i64,
    /// The job's own `Requirements`, when kept.
    pub requirements: Option<String>,
}

/// Why a trace could not be read: the file, and where in it.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {place}: {message}")]
pub struct TraceError {
    /// The file.
    pub file: PathBuf,
    /// `line N`, `ad N, line M`, or `file`.
    pub place: String,
    /// What is wrong.
    pub message: String,
}

/// What the history reader left out, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Jobs that never ran (no run time).
    pub never_ran: u64,
    /// Jobs without `QDate`.
    pub no_submit_time: u64,
}

/// Reads a job trace file: HTCondor history (`condor_history -json`,
/// `-long`, gzipped or not) or SWF, decided by the file's name (`.swf`)
/// or `swf`.
pub fn read_trace(
    path: &Path,
    swf: bool,
    domain: &str,
    keep_requirements: bool,
) -> Result<(Vec<TraceJob>, Skipped), TraceError> {
    let err = |place: &str, message: String| TraceError { file: path.to_path_buf(), place: place.into(), message };
    let input = classad::format::open(path).map_err(|e| err("file", e.to_string()))?;
    if swf {
        Ok((read_swf(input, path, domain)?, Skipped::default()))
    } else {
        read_history(input, path, domain, keep_requirements)
    }
}

fn number(ad: &ClassAd, name: &str) -> Option<f64> {
    let opts = EvalOptions::new().semantics(Semantics::Old);
    match EvalContext::new(&opts).my(ad).eval_attr(name) {
        Value::Int(i) => Some(i as f64),
        Value::Real(r) if r.is_finite() => Some(r),
        _ => None,
    }
}

fn text(ad: &ClassAd, name: &str) -> Option<String> {
    let opts = EvalOptions::new().semantics(Semantics::Old);
    match EvalContext::new(&opts).my(ad).eval_attr(name) {
        Value::Str(s) if !s.as_str().is_empty() => Some(s.as_str().to_string()),
        _ => None,
    }
}

/// The run time of a history ad: the last run (`CompletionDate −
/// JobCurrentStartDate`), else `RemoteWallClockTime`, else `CompletionDate
/// − JobStartDate`.
fn history_runtime(ad: &ClassAd) -> Option<i64> {
    let positive = |name: &str| number(ad, name).filter(|v| *v > 0.0);
    if let (Some(end), Some(start)) = (positive("CompletionDate"), positive("JobCurrentStartDate")) {
        if end >= start {
            return Some((end - start).round() as i64);
        }
    }
    if let Some(wall) = positive("RemoteWallClockTime") {
        return Some(wall.round() as i64);
    }
    match (positive("CompletionDate"), positive("JobStartDate")) {
        (Some(end), Some(start)) if end >= start => Some((end - start).round() as i64),
        _ => None,
    }
}

/// Reads `condor_history -json` or `-long` output (any format the
/// `classad` crate detects). Jobs are returned in order of submission (ties
/// by id); those that never ran are counted in [`Skipped`].
pub fn read_history(
    input: impl BufRead,
    path: &Path,
    domain: &str,
    keep_requirements: bool,
) -> Result<(Vec<TraceJob>, Skipped), TraceError> {
    let mut jobs = Vec::new();
    let mut skipped = Skipped::default();
    for (k, ad) in classad::format::Reader::new(input, None).enumerate() {
        let ad = ad.map_err(|e| TraceError {
            file: path.to_path_buf(),
            place: format!("ad {}, line {}", e.ad, e.line),
            message: e.message,
        })?;
        let place = || format!("ad {}", k + 1);
        let Some(submit) = number(&ad, "QDate") else {
            skipped.no_submit_time += 1;
            continue;
        };
        let Some(runtime) = history_runtime(&ad) else {
            skipped.never_ran += 1;
            continue;
        };
        let user = match (text(&ad, "User"), text(&ad, "Owner")) {
            (Some(u), _) if u.contains('@') => u,
            (Some(u), _) | (None, Some(u)) => format!("{u}@{domain}"),
            (None, None) => {
                return Err(TraceError {
                    file: path.to_path_buf(),
                    place: place(),
                    message: "the job has neither User nor Owner".into(),
                })
            }
        };
        let group = text(&ad, "AccountingGroup").and_then(|g| {
            let g = g.split('@').next().unwrap_or("").to_string();
            g.rsplit_once('.').map(|(group, _)| group.to_string())
        });
        let cpus = number(&ad, "RequestCpus").map_or(1, |c| c.ceil().max(1.0) as u32);
        let memory = number(&ad, "RequestMemory").map_or(1024, |m| m.ceil().max(1.0) as i64);
        let disk = number(&ad, "RequestDisk").map_or(1024, |d| d.ceil().max(1.0) as i64);
        let requirements = if keep_requirements { ad.lookup("Requirements").map(|e| e.to_string()) } else { None };
        jobs.push(TraceJob {
            submit: submit.round() as i64,
            runtime: runtime.max(0),
            user,
            group,
            cluster: number(&ad, "ClusterId").map_or(k as i64 + 1, |c| c as i64),
            proc: number(&ad, "ProcId").map_or(0, |p| p as i64),
            cpus,
            memory,
            disk,
            requirements,
        });
    }
    jobs.sort_by_key(|j| (j.submit, j.cluster, j.proc));
    Ok((jobs, skipped))
}

/// Reads the Standard Workload Format: one job per line, 18 numbers
/// (job number, submit time, wait, run time, allocated processors, CPU
/// time, used memory, requested processors, requested time, requested
/// memory, status, user, group, executable, queue, partition, preceding
/// job, think time; −1 for unknown), `;` comments. Processors are the
/// requested ones (else the allocated ones); memory is per processor in
/// KB (requested, else used; 1024 MB when unknown). Jobs without a run
/// time are left out. Users are `u<id>@domain`.
pub fn read_swf(mut input: impl BufRead, path: &Path, domain: &str) -> Result<Vec<TraceJob>, TraceError> {
    let mut jobs = Vec::new();
    let max_line = classad::bounded_file::FileLimits::current().max_line;
    let mut buf = Vec::new();
    for k in 0.. {
        let place = || format!("line {}", k + 1);
        let fail = |message: String| TraceError { file: path.to_path_buf(), place: place(), message };
        buf.clear();
        // One line at most `max_line` bytes long: `/dev/zero` or a file
        // without line breaks stops here instead of filling the memory.
        let read =
            (&mut input).take(max_line as u64 + 1).read_until(b'\n', &mut buf).map_err(|e| fail(e.to_string()))?;
        if read == 0 {
            break;
        }
        let text = buf.strip_suffix(b"\n").unwrap_or(&buf);
        if text.len() > max_line {
            return Err(fail(format!("line longer than the limit of {max_line} bytes")));
        }
        let line = std::str::from_utf8(text).map_err(|_| fail("not UTF-8 text".into()))?;
        let line = line.split(';').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<f64> =
            line.split_whitespace().map(|f| f.parse::<f64>()).collect::<Result<_, _>>().map_err(|_| TraceError {
                file: path.to_path_buf(),
                place: place(),
                message: format!("`{}` is not a line of numbers", classad::excerpt::quote(line)),
            })?;
        if fields.len() < 18 {
            return Err(TraceError {
                file: path.to_path_buf(),
                place: place(),
                message: format!("{} fields, where SWF has 18", fields.len()),
            });
        }
        let known = |v: f64| (v >= 0.0).then_some(v);
        let (Some(submit), Some(runtime)) = (known(fields[1]), known(fields[3])) else {
            continue;
        };
        let cpus = known(fields[7]).filter(|&p| p > 0.0).or(known(fields[4]).filter(|&p| p > 0.0)).unwrap_or(1.0);
        let memory = known(fields[9])
            .filter(|&m| m > 0.0)
            .or(known(fields[6]).filter(|&m| m > 0.0))
            .map_or(1024, |kb| ((kb * cpus) / 1024.0).ceil().max(1.0) as i64);
        let user = known(fields[11]).map_or_else(|| format!("unknown@{domain}"), |u| format!("u{}@{domain}", u as i64));
        jobs.push(TraceJob {
            submit: submit.round() as i64,
            runtime: runtime.round() as i64,
            user,
            group: None,
            cluster: fields[0] as i64,
            proc: 0,
            cpus: cpus.round().max(1.0) as u32,
            memory,
            disk: 1024,
            requirements: None,
        });
    }
    jobs.sort_by_key(|j| (j.submit, j.cluster, j.proc));
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_long_and_json_give_the_same_jobs() {
        let long = "ClusterId = 5\nProcId = 1\nOwner = \"amy\"\nUser = \"amy@pool.org\"\nQDate = 1000\n\
                    JobCurrentStartDate = 1100\nCompletionDate = 1400\nRemoteWallClockTime = 500.0\n\
                    RequestCpus = 2\nRequestMemory = 2048\nRequestDisk = 4096\nAccountingGroup = \"group_a.amy\"\nJobStatus = 4\n\n\
                    ClusterId = 5\nProcId = 0\nOwner = \"amy\"\nQDate = 1000\nRemoteWallClockTime = 60.0\nJobStatus = 4\n\n\
                    ClusterId = 6\nProcId = 0\nOwner = \"bob\"\nQDate = 900\nJobStatus = 3\n";
        let (jobs, skipped) = read_history(long.as_bytes(), Path::new("h"), "d", false).expect("reads");
        assert_eq!(skipped, Skipped { never_ran: 1, no_submit_time: 0 });
        assert_eq!(jobs.len(), 2);
        assert_eq!((jobs[0].cluster, jobs[0].proc, jobs[0].runtime, jobs[0].user.as_str()), (5, 0, 60, "amy@d"));
        assert_eq!((jobs[0].cpus, jobs[0].memory), (1, 1024));
        let j = &jobs[1];
        assert_eq!((j.runtime, j.cpus, j.memory, j.disk), (300, 2, 2048, 4096));
        assert_eq!((j.user.as_str(), j.group.as_deref()), ("amy@pool.org", Some("group_a")));

        let json = r#"[
            {"ClusterId": 5, "ProcId": 1, "Owner": "amy", "User": "amy@pool.org", "QDate": 1000,
             "JobCurrentStartDate": 1100, "CompletionDate": 1400, "RequestCpus": 2, "RequestMemory": 2048,
             "RequestDisk": 4096, "AccountingGroup": "group_a.amy"},
            {"ClusterId": 5, "ProcId": 0, "Owner": "amy", "QDate": 1000, "RemoteWallClockTime": 60.0}
        ]"#;
        let (from_json, _) = read_history(json.as_bytes(), Path::new("h"), "d", false).expect("reads");
        assert_eq!(from_json, jobs);
    }

    #[test]
    fn history_errors_name_the_place() {
        let e = read_history("QDate = 5\nRemoteWallClockTime = 3\n".as_bytes(), Path::new("h.ads"), "d", false)
            .expect_err("no user");
        assert_eq!(e.to_string(), "h.ads: ad 1: the job has neither User nor Owner");
        let e = read_history("QDate = 5\nOwner = (\n".as_bytes(), Path::new("h.ads"), "d", false).expect_err("bad");
        assert!(e.to_string().starts_with("h.ads: ad 1, line 2: "), "{e}");
    }

    #[test]
    fn swf_fields_and_errors() {
        let e = read_swf("1 2 3\n".as_bytes(), Path::new("x.swf"), "d").expect_err("short");
        assert_eq!(e.to_string(), "x.swf: line 1: 3 fields, where SWF has 18");
        let e = read_swf("; c\n1 2 x\n".as_bytes(), Path::new("x.swf"), "d").expect_err("word");
        assert!(e.to_string().starts_with("x.swf: line 2: "), "{e}");
        // Missing run time: left out. Used memory when none requested.
        let swf = "3 50 -1 -1 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n4 40 -1 10 2 -1 2048 -1 -1 -1 1 2 1 -1 1 -1 -1 -1\n";
        let jobs = read_swf(swf.as_bytes(), Path::new("x.swf"), "d").expect("reads");
        assert_eq!(jobs.len(), 1);
        assert_eq!((jobs[0].cpus, jobs[0].memory, jobs[0].runtime), (2, 4, 10));
    }
}
