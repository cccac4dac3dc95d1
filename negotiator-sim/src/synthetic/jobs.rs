//! The job ads of a synthetic pool: the ads the schedd holds after
//! `condor_submit` of the script's submit files, one cluster per user,
//! made from one template per batch.

use std::sync::Arc;

use classad::{ClassAd, Expr, Name};

use super::{expr, Layout, Spec, CONDOR_PLATFORM, CONDOR_VERSION, DOMAIN, SCHEDD_NAME};

/// A job class of the script (`job_class(k)`): cores, MB, KB of disk,
/// rank, extra requirements.
fn job_class(k: usize) -> (i64, i64, i64, &'static str, &'static str) {
    let cpus = [1, 1, 1, 1, 2, 2, 4, 8][k % 8];
    let mem = cpus * [1024, 2048, 1536, 512][(k / 8) % 4];
    let disk = 1_000_000 + 1000 * k as i64;
    let rank = ["", "Memory", "KFlops"][k % 3];
    let req = if k % 5 == 4 { "(TARGET.OpSysMajorVer >= 9)" } else { "" };
    (cpus, mem, disk, rank, req)
}

/// The `Requirements` condor_submit 23.9 builds for a job of the script's
/// submit files (vanilla universe, file transfer, submitted on an x86_64
/// Linux host): the submit file's own requirements first, then the
/// platform, disk and memory, cores when more than one is asked for, and
/// file transfer.
fn submit_requirements(extra: &str, cpus: i64) -> String {
    let mut out = String::new();
    if !extra.is_empty() {
        out.push_str(&format!("({extra}) && "));
    }
    out.push_str(
        "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && \
         (TARGET.Memory >= RequestMemory)",
    );
    if cpus > 1 {
        out.push_str(" && (TARGET.Cpus >= RequestCpus)");
    }
    out.push_str(" && (TARGET.HasFileTransfer)");
    out
}

/// The schedd's `AutoClusterAttrs` for a job with this rank: its default
/// significant attributes, the job attributes the rank refers to, and
/// `RequestDisk`.
fn autocluster_attrs(rank: &str) -> String {
    let mut out =
        String::from("Offline,Owner,RemoteOwner,RequestCpus,RequestMemory,TotalJobRuntime,ConcurrencyLimits,FlockTo,Rank,Requirements");
    if !rank.is_empty() {
        out.push(',');
        out.push_str(rank);
    }
    out.push_str(",RequestDisk");
    out
}

/// One `queue N` of a submit file.
#[derive(Clone, Copy, Debug)]
pub(super) struct Batch {
    pub(super) user: usize,
    pub(super) class: usize,
    pub(super) count: usize,
    pub(super) cluster: i64,
    pub(super) autocluster: i64,
    /// Jobs in the batch's cluster (`TotalSubmitProcs`).
    pub(super) cluster_procs: usize,
    /// The `ProcId` of the batch's first job.
    pub(super) first_proc: i64,
}

/// What job ads are made from.
pub(super) struct JobGen {
    spec: Spec,
    owners: Vec<String>,
    pub(super) batches: Vec<Batch>,
    proc_id: Name,
    global_job_id: Name,
}

impl JobGen {
    pub(super) fn new(spec: &Spec) -> JobGen {
        JobGen {
            spec: spec.clone(),
            owners: spec.user_names(),
            batches: spec.batches(),
            proc_id: Name::new("ProcId"),
            global_job_id: Name::new("GlobalJobId"),
        }
    }

    /// The ad of a batch's jobs, without their `ProcId` and `GlobalJobId`.
    pub(super) fn template(&self, b: &Batch) -> Arc<ClassAd> {
        let mut ad = job_template(&self.spec, &self.owners[b.user], b);
        if self.spec.layout == Layout::Chained {
            ad.remove(self.proc_id);
            ad.remove(self.global_job_id);
        }
        Arc::new(ad)
    }

    /// The job `proc` of a batch's cluster, from the batch's template.
    pub(super) fn job(&self, template: &Arc<ClassAd>, cluster: i64, proc: i64) -> ClassAd {
        let mut ad = match self.spec.layout {
            Layout::Flat => ClassAd::clone(template),
            Layout::Chained => {
                let mut own = ClassAd::with_capacity(2);
                own.chain_to(Arc::clone(template));
                own
            }
        };
        let qdate = self.spec.base_time + 3600;
        ad.insert(self.proc_id, Expr::from(proc));
        ad.insert(self.global_job_id, Expr::from(format!("{SCHEDD_NAME}#{cluster}.{proc}#{qdate}")));
        ad
    }
}

/// The job ads of a [`Spec`], generated one at a time; see
/// [`Spec::job_ads`].
pub struct JobAds {
    pub(super) gen: JobGen,
    /// The batch being made, its template and the next job's index in it.
    pub(super) batch: usize,
    pub(super) template: Option<Arc<ClassAd>>,
    pub(super) done: usize,
}

impl Iterator for JobAds {
    type Item = ClassAd;

    fn next(&mut self) -> Option<ClassAd> {
        let mut b = *self.gen.batches.get(self.batch)?;
        if self.done == b.count {
            self.batch += 1;
            self.done = 0;
            self.template = None;
            b = *self.gen.batches.get(self.batch)?;
        }
        if self.template.is_none() {
            self.template = Some(self.gen.template(&b));
        }
        let ad = self.gen.job(self.template.as_ref()?, b.cluster, b.first_proc + self.done as i64);
        self.done += 1;
        Some(ad)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let rest = self.gen.batches.get(self.batch..).unwrap_or_default();
        let left = rest.iter().map(|b| b.count).sum::<usize>() - self.done.min(rest.first().map_or(0, |b| b.count));
        (left, Some(left))
    }
}

impl ExactSizeIterator for JobAds {}

/// The ad of a batch's jobs, attributes in `condor_q -l`'s order.
fn job_template(spec: &Spec, owner: &str, b: &Batch) -> ClassAd {
    let (cpus, mem, disk, rank, req) = job_class(b.class);
    let qdate = spec.base_time + 3600;
    let int = |v: i64| Expr::from(v);
    let zero = || Expr::from(0);
    let real_zero = || Expr::from(0.0);
    let no = || Expr::from(false);
    let a: Vec<(&str, Expr)> = vec![
        ("AnchorBench", Expr::from(true)),
        ("AnchorClass", int(b.class as i64)),
        ("Args", Expr::from("3600")),
        ("AutoClusterAttrs", Expr::from(autocluster_attrs(rank))),
        ("AutoClusterId", int(b.autocluster)),
        ("ClusterId", int(b.cluster)),
        ("Cmd", Expr::from("/bin/sleep")),
        ("CommittedSlotTime", zero()),
        ("CommittedSuspensionTime", zero()),
        ("CommittedTime", zero()),
        ("CondorPlatform", Expr::from(CONDOR_PLATFORM)),
        ("CondorVersion", Expr::from(CONDOR_VERSION)),
        ("CumulativeRemoteSysCpu", real_zero()),
        ("CumulativeRemoteUserCpu", real_zero()),
        ("CumulativeSlotTime", zero()),
        ("CumulativeSuspensionTime", zero()),
        ("CurrentHosts", zero()),
        ("DiskUsage", int(45)),
        ("DiskUsage_RAW", int(43)),
        ("EnteredCurrentStatus", int(qdate)),
        ("Environment", Expr::from("")),
        ("Err", Expr::from("/dev/null")),
        ("ExecutableSize", int(45)),
        ("ExecutableSize_RAW", int(43)),
        ("ExitBySignal", no()),
        ("ExitStatus", zero()),
        ("GlobalJobId", Expr::from("")),
        ("ImageSize", int(45)),
        ("ImageSize_RAW", int(43)),
        ("In", Expr::from("/dev/null")),
        ("Iwd", Expr::from("/tmp/anchor-bench")),
        ("JobBatchName", Expr::from("anchor-bench")),
        ("JobLeaseDuration", int(2400)),
        ("JobNotification", zero()),
        ("JobPrio", zero()),
        ("JobStatus", int(1)),
        ("JobSubmitFile", Expr::from(format!("{}/{owner}.sub", spec.run_dir()))),
        ("JobSubmitMethod", zero()),
        ("JobUniverse", int(5)),
        ("LastSuspensionTime", zero()),
        ("LeaveJobInQueue", no()),
        ("MaxHosts", int(1)),
        ("MinHosts", int(1)),
        ("MyType", Expr::from("Job")),
        ("NumCkpts", zero()),
        ("NumCkpts_RAW", zero()),
        ("NumJobCompletions", zero()),
        ("NumJobStarts", zero()),
        ("NumRestarts", zero()),
        ("NumSystemHolds", zero()),
        ("Out", Expr::from("/dev/null")),
        ("Owner", Expr::from(owner)),
        ("ProcId", zero()),
        ("QDate", int(qdate)),
        ("Rank", if rank.is_empty() { real_zero() } else { expr(rank) }),
        ("RemoteSysCpu", real_zero()),
        ("RemoteUserCpu", real_zero()),
        ("RemoteWallClockTime", real_zero()),
        ("RequestCpus", int(cpus)),
        ("RequestDisk", int(disk)),
        ("RequestMemory", int(mem)),
        ("Requirements", expr(&submit_requirements(req, cpus))),
        ("ServerTime", int(qdate)),
        ("ShouldTransferFiles", Expr::from("YES")),
        ("TargetType", Expr::from("Machine")),
        ("TotalSubmitProcs", int(b.cluster_procs as i64)),
        ("TotalSuspensions", zero()),
        ("TransferErr", no()),
        ("TransferIn", no()),
        ("TransferInputSizeMB", zero()),
        ("TransferOut", no()),
        ("User", Expr::from(format!("{owner}@{DOMAIN}"))),
        ("WhenToTransferOutput", Expr::from("ON_EXIT")),
    ];
    ClassAd::from_attributes(a.into_iter().map(|(n, e)| (Name::new(n), e)).collect::<Vec<_>>())
}
