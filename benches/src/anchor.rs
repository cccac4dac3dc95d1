//! A port of the synthetic ad generator of libclassad's benchmark
//! (`../shared/anchor/classad-bench.cpp`: `machine_attrs`, `job_attrs`,
//! `to_new`), so that classad-rs and libclassad are timed on byte-identical
//! input.
//!
//! Machine ads have 40 attributes (a static slot: 8 slots per host, 8 host
//! types, 5% aarch64, 2% without file transfer, `Start` 70% `true`, 20% a
//! resource check, 10% a desktop policy); job ads have 60 attributes, as
//! `condor_submit` 23.9.6 writes them.

/// The job's `Requirements`, as in the anchor (`REQ_EXPR`).
pub const REQ_EXPR: &str = "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && \
    (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && \
    (TARGET.Cpus >= RequestCpus) && (TARGET.HasFileTransfer)";

/// The 23.9.6 negotiator's `NEGOTIATOR_PRE_JOB_RANK` default, evaluated with
/// the machine as MY and the job as TARGET (`PRE_JOB_RANK` in the anchor).
pub const PRE_JOB_RANK: &str =
    "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory";

const CONDOR_VERSION: &str = "$CondorVersion: 23.9.6 2026-07-12 PackageID: 23.9.6+dfsg-2.1+b10 $";

/// An ad as the anchor builds it: (name, value expression text) pairs.
pub type KvList = Vec<(&'static str, String)>;

fn q(s: &str) -> String {
    format!("\"{s}\"")
}

/// The attributes of synthetic machine ad `i` (40 of them).
pub fn machine_attrs(i: u32) -> KvList {
    const CPUS_T: [i64; 8] = [1, 1, 1, 1, 2, 2, 4, 8];
    const MEM_T: [i64; 8] = [2048, 2048, 4096, 4096, 8192, 8192, 16384, 32768];
    const OS_T: [(&str, &str); 3] = [("AlmaLinux", "9"), ("Rocky", "8"), ("Debian", "12")];
    let (h, s) = (i / 8, i % 8 + 1);
    let t = (h % 8) as usize;
    let (cpus, mem) = (CPUS_T[t], MEM_T[t]);
    let disk = cpus * 20_000_000;
    let arm = h % 20 == 19;
    let host = format!("wn{h:05}.anchor.invalid");
    let sinful = format!("<127.0.0.1:9?addrs=127.0.0.1-9&alias={host}>");
    let pol = h % 10;
    let start = if pol < 7 {
        "true"
    } else if pol < 9 {
        "(TARGET.RequestCpus <= MY.Cpus) && (TARGET.RequestMemory <= MY.Memory)"
    } else {
        "(KeyboardIdle > 15 * 60) && ((LoadAvg - CondorLoadAvg) <= 0.3)"
    };
    let kbd = 3600 + (h * 37) % 86400;
    // printf("%.2f", (h % 10) * 0.01)
    let load = format!("{:.2}", f64::from(h % 10) * 0.01);
    let (osn, osm) = OS_T[(h % 3) as usize];
    vec![
        ("MyType", q("Machine")),
        ("TargetType", q("Job")),
        ("Name", q(&format!("slot{s}@{host}"))),
        ("Machine", q(&host)),
        ("MyAddress", q(&sinful)),
        ("StartdIpAddr", q(&sinful)),
        ("SlotID", s.to_string()),
        ("SlotType", q("Static")),
        ("State", q("Unclaimed")),
        ("Activity", q("Idle")),
        ("EnteredCurrentState", "1795300000".into()),
        ("Arch", q(if arm { "aarch64" } else { "X86_64" })),
        ("OpSys", q("LINUX")),
        ("OpSysAndVer", q(&format!("{osn}{osm}"))),
        ("OpSysMajorVer", osm.into()),
        ("OpSysName", q(osn)),
        ("Cpus", cpus.to_string()),
        ("Memory", mem.to_string()),
        ("Disk", disk.to_string()),
        ("GPUs", "0".into()),
        ("TotalCpus", format!("{}.0", cpus * 8)),
        ("TotalMemory", (mem * 8).to_string()),
        ("TotalSlots", "8".into()),
        ("KFlops", (1_500_000 + 50_000 * (h % 7)).to_string()),
        ("Mips", (20_000 + 1_000 * (h % 8)).to_string()),
        ("LoadAvg", load),
        ("CondorLoadAvg", "0.0".into()),
        ("KeyboardIdle", kbd.to_string()),
        ("ConsoleIdle", kbd.to_string()),
        ("HasFileTransfer", if h % 50 == 49 { "false" } else { "true" }.into()),
        ("FileSystemDomain", q("anchor.local")),
        ("UidDomain", q("anchor.local")),
        ("Start", start.into()),
        ("Requirements", "START".into()),
        ("Rank", if h % 25 == 0 { "(TARGET.Owner =?= \"bench01\") * 10.0" } else { "0.0" }.into()),
        ("CurrentRank", "0.0".into()),
        ("SlotWeight", "Cpus".into()),
        ("CondorVersion", q(CONDOR_VERSION)),
        ("Microarch", q(if arm { "armv8.2-a" } else { "x86_64-v3" })),
        ("HasVM", "false".into()),
    ]
}

/// The attributes of synthetic job ad `i` (60 of them).
pub fn job_attrs(i: u32) -> KvList {
    let cpus: u32 = match i % 8 {
        0..=3 => 1,
        4 | 5 => 2,
        6 => 4,
        _ => 8,
    };
    let mem = 1024 * cpus;
    let (cluster, proc_) = (1 + i / 100, i % 100);
    let owner = format!("bench{}", 1 + i % 20);
    let z = |s: &str| s.to_string();
    vec![
        ("MyType", q("Job")),
        ("TargetType", q("Machine")),
        ("ClusterId", cluster.to_string()),
        ("ProcId", proc_.to_string()),
        ("Owner", q(&owner)),
        ("User", q(&format!("{owner}@anchor.local"))),
        ("QDate", z("1795318986")),
        ("EnteredCurrentStatus", z("1795318986")),
        ("JobStatus", z("1")),
        ("JobUniverse", z("5")),
        ("JobPrio", z("0")),
        ("Cmd", q("/bin/sleep")),
        ("Args", q("3600")),
        ("Iwd", q("/tmp/anchor-bench")),
        ("In", q("/dev/null")),
        ("Out", q("/dev/null")),
        ("Err", q("/dev/null")),
        ("Environment", q("")),
        ("RequestCpus", cpus.to_string()),
        ("RequestMemory", mem.to_string()),
        ("RequestDisk", z("1000000")),
        ("Requirements", z(REQ_EXPR)),
        ("Rank", z("0.0")),
        ("ShouldTransferFiles", q("YES")),
        ("WhenToTransferOutput", q("ON_EXIT")),
        ("TransferIn", z("false")),
        ("TransferOut", z("false")),
        ("TransferErr", z("false")),
        ("TransferInputSizeMB", z("0")),
        ("DiskUsage", z("45")),
        ("DiskUsage_RAW", z("43")),
        ("ExecutableSize", z("45")),
        ("ExecutableSize_RAW", z("43")),
        ("ImageSize", z("45")),
        ("ImageSize_RAW", z("43")),
        ("JobLeaseDuration", z("2400")),
        ("JobNotification", z("0")),
        ("LeaveJobInQueue", z("false")),
        ("MaxHosts", z("1")),
        ("MinHosts", z("1")),
        ("NumCkpts", z("0")),
        ("NumCkpts_RAW", z("0")),
        ("NumJobCompletions", z("0")),
        ("NumJobStarts", z("0")),
        ("NumRestarts", z("0")),
        ("NumSystemHolds", z("0")),
        ("CommittedTime", z("0")),
        ("CommittedSlotTime", z("0")),
        ("CommittedSuspensionTime", z("0")),
        ("CumulativeRemoteSysCpu", z("0.0")),
        ("CumulativeRemoteUserCpu", z("0.0")),
        ("CumulativeSlotTime", z("0")),
        ("CumulativeSuspensionTime", z("0")),
        ("CurrentHosts", z("0")),
        ("ExitBySignal", z("false")),
        ("ExitStatus", z("0")),
        ("GlobalJobId", q(&format!("vm#{cluster}.{proc_}#1795318986"))),
        ("RemoteWallClockTime", z("0.0")),
        ("TotalSuspensions", z("0")),
        ("CondorVersion", q(CONDOR_VERSION)),
    ]
}

/// Renders an ad in new syntax exactly as the anchor's `to_new` does:
/// `[ a = 1; b = 2; ]`.
pub fn to_new(attrs: &[(&str, String)]) -> String {
    let mut s = String::from("[ ");
    for (name, value) in attrs {
        s.push_str(name);
        s.push_str(" = ");
        s.push_str(value);
        s.push_str("; ");
    }
    s.push(']');
    s
}

/// Machine ad `i` in new syntax.
pub fn machine_ad_text(i: u32) -> String {
    to_new(&machine_attrs(i))
}

/// Job ad `i` in new syntax.
pub fn job_ad_text(i: u32) -> String {
    to_new(&job_attrs(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_ad_parses_to_40_attributes() {
        for i in [0, 56, 72, 152, 200, 392, 19_999] {
            let ad = classad::parse_ad(&machine_ad_text(i)).expect("machine ad parses");
            assert_eq!(ad.len(), 40, "machine ad {i}");
        }
    }

    #[test]
    fn job_ad_parses_to_60_attributes() {
        for i in 0..8 {
            let ad = classad::parse_ad(&job_ad_text(i)).expect("job ad parses");
            assert_eq!(ad.len(), 60, "job ad {i}");
        }
    }

    /// Ads printed by the anchor's own generator (compiled from
    /// classad-bench.cpp): the port must reproduce them byte for byte.
    #[test]
    fn matches_the_anchor_byte_for_byte() {
        let fixture = include_str!("../data/anchor_ads_sample.txt");
        let mut n = 0;
        for line in fixture.lines() {
            let (what, text) = line.split_once(' ').expect("`kind index` prefix");
            let (kind, i) = what.split_once(':').expect("kind:index");
            let i: u32 = i.parse().expect("index");
            let ours = match kind {
                "machine" => machine_ad_text(i),
                "job" => job_ad_text(i),
                other => panic!("unknown kind {other}"),
            };
            assert_eq!(ours, text, "{kind} ad {i}");
            n += 1;
        }
        assert!(n > 10);
    }

    /// The same over a full dump of the anchor's generator, one ad per line
    /// (`machine:I [ ... ]` / `job:I [ ... ]`), named by `ANCHOR_ADS_DUMP`;
    /// see `docs/benchmarks.md` for how to make one.
    #[test]
    #[ignore = "needs ANCHOR_ADS_DUMP, a dump made with the anchor's generator"]
    fn matches_a_full_anchor_dump() {
        let path = std::env::var("ANCHOR_ADS_DUMP").expect("ANCHOR_ADS_DUMP is set");
        let dump = std::fs::read_to_string(path).expect("dump is readable");
        let mut n = 0;
        for line in dump.lines() {
            let (what, text) = line.split_once(' ').expect("`kind:index` prefix");
            let (kind, i) = what.split_once(':').expect("kind:index");
            let i: u32 = i.parse().expect("index");
            let ours = if kind == "machine" { machine_ad_text(i) } else { job_ad_text(i) };
            assert_eq!(ours, text, "{kind} ad {i}");
            n += 1;
        }
        assert!(n > 0);
    }
}
