//! Slot layouts against a real `condor_startd` (HTCondor 23.9.6).
//!
//! Each directory of `tests/data/slots/` holds one layout: the startd's
//! configuration (`startd.conf`, plus `base.conf`, the policy knobs the
//! real startd had from its other configuration files), the ads it
//! advertised (`slots.ads`, `condor_status -l`) and, for layouts with a
//! partitionable slot, the job it ran (`job.ads`) and the ads while the
//! job held a dynamic slot (`claimed.ads`) and after it left
//! (`released.ads`). Layouts the startd refuses hold
//! its error lines instead (`startd.log`). `capture.sh` regenerates them.
//!
//! The machine is read from the captured ads (host name, detected CPUs
//! and memory, disk, inventory results); the layouts override CPUs, memory
//! and disk so they do not depend on the capturing host. Every attribute
//! of the real ads is either compared (the attributes about the layout)
//! or ignored with a reason ([`IGNORED`]); an attribute in neither list
//! fails the test, so new attributes are noticed.

use std::path::{Path, PathBuf};

use classad::{ClassAd, Syntax, Value};
use matchmaker::config::Config;
use matchmaker::snapshot::read_ads;
use matchmaker::startd::slots::{Machine, Startd};

/// Attributes compared exactly (values, including integer vs real).
const COMPARED: &[&str] = &[
    "MyType",
    "TargetType",
    "Name",
    "Machine",
    "SlotID",
    "SlotTypeID",
    "SlotType",
    "PartitionableSlot",
    "DynamicSlot",
    "ParentSlotId",
    "DSlotId",
    "PslotRollupInformation",
    "State",
    "Activity",
    "Cpus",
    "Memory",
    "Disk",
    "TotalSlotCpus",
    "TotalSlotMemory",
    "TotalSlotDisk",
    "TotalCpus",
    "TotalMemory",
    "TotalDisk",
    "TotalSlots",
    "MachineResources",
    "DetectedCpus",
    "DetectedMemory",
    "NumDynamicSlots",
    "ChildCpus",
    "ChildMemory",
    "ChildDisk",
    "ChildName",
    "ChildDSlotId",
    "ChildState",
    "ChildActivity",
    "ChildRemoteUser",
    "ChildRemoteOwner",
    "RemoteUser",
    "RemoteOwner",
    "JobId",
    "IsLocalStartd",
    "NumClaims",
    // STARTD_ATTRS of the layouts
    "SiteName",
    "HasScratch",
    "IS_OWNER",
];

/// Expressions compared as expressions (printed the same after parsing).
const COMPARED_EXPRS: &[&str] = &["Start", "Requirements", "WithinResourceLimits", "Rank", "SlotWeight"];

/// Attributes not compared, by prefix (`*` at the end) or name, with why.
const IGNORED: &[(&str, &str)] = &[
    // clocks and timestamps: when the ad was made, not what it describes
    ("*Time", "a time stamp"),
    ("*Time*", "a time stamp or duration"),
    ("Entered*", "a time stamp"),
    ("ClockDay", "the clock"),
    ("ClockMin", "the clock"),
    ("LastHeardFrom", "the collector's clock"),
    ("LastBenchmark", "a time stamp"),
    ("LastFetchWork*", "a time stamp"),
    ("NextFetchWorkDelay", "work-fetch hook state"),
    ("ExpectedMachine*", "draining estimates from the clock"),
    ("TotalTime*", "time spent per state"),
    ("TimeToLive", "collector bookkeeping"),
    // load and activity measured on the host
    ("*LoadAvg", "measured load"),
    ("CpuBusy*", "measured load"),
    ("KeyboardIdle", "measured idle time"),
    ("ConsoleIdle", "measured idle time"),
    ("NumPids", "measured"),
    ("DaemonCoreDutyCycle", "daemon statistics"),
    ("RecentDaemonCoreDutyCycle", "daemon statistics"),
    ("MonitorSelf*", "daemon statistics"),
    ("Updates*", "collector update statistics"),
    ("UpdateSequenceNumber", "collector update statistics"),
    ("Recent*", "claim statistics over a window"),
    ("JobStarts", "claim statistics"),
    ("Job*", "claim statistics or the running job"),
    ("ActivationRequests", "claim statistics"),
    ("ClaimRequests", "claim statistics"),
    ("NewDSlotNotMatch", "claim statistics"),
    ("CurrentRank", "the running job's rank, evaluated"),
    ("TotalJobRunTime", "claim statistics"),
    // addresses and security session details
    ("MyAddress", "network address"),
    ("StartdIpAddr", "network address"),
    ("AddressV1", "network address"),
    ("PublicClaimId", "claim id"),
    ("ClientMachine", "the schedd's host"),
    ("RemoteScheddName", "the schedd's name"),
    ("RemoteNegotiatingGroup", "the negotiator's accounting"),
    ("RemoteAutoregroup", "the negotiator's accounting"),
    ("AccountingGroup", "the negotiator's accounting"),
    ("AuthenticatedIdentity", "security session"),
    ("AuthenticationMethod", "security session"),
    ("HardwareAddress", "network interface"),
    ("SubnetMask", "network interface"),
    ("PrivateNetworkName", "network interface"),
    ("COLLECTOR_HOST_STRING", "the pool's collector address"),
    ("IsWakeAble", "network interface"),
    ("IsWakeOnLan*", "network interface"),
    ("WakeOnLan*", "network interface"),
    // the host, its software and the daemon: facts a machine description supplies
    ("Arch", "host fact (machine description)"),
    ("OpSys*", "host fact (machine description)"),
    ("Utsname*", "host fact (machine description)"),
    ("CpuCacheSize", "host fact (machine description)"),
    ("CpuFamily", "host fact (machine description)"),
    ("CpuModel*", "host fact (machine description)"),
    ("Microarch", "host fact (machine description)"),
    ("has_*", "host fact (machine description)"),
    ("TotalVirtualMemory", "host fact (machine description)"),
    (
        "VirtualMemory",
        "recomputed from the host's swap by a periodic update: 0 in the first ads, the slot's share of TotalVirtualMemory later",
    ),
    ("FileSystemDomain", "site configuration"),
    ("UidDomain", "site configuration"),
    ("Condor*", "the daemon's version and platform"),
    ("Has*", "the daemon's and starter's abilities"),
    ("StarterAbilityList", "the starter's abilities"),
    ("Hibernation*", "power management"),
    ("CanHibernate", "power management"),
    ("Unhibernate", "power management"),
    ("MachineMaxVacateTime", "vacate policy (a default expression)"),
    ("MaxJobRetirementTime", "retirement policy, evaluated"),
    ("RetirementTimeRemaining", "retirement policy, evaluated"),
    ("AcceptedWhileDraining", "draining state"),
    ("DetectedGPUs", "compared through the resource attributes below"),
    ("AvailableGPUs", "GPU device handles, not modelled"),
    ("OfflineGPUs", "GPU device handles, not modelled"),
    ("GPUs_*", "GPU device properties, not modelled"),
    ("ChildAccountingGroup", "the negotiator's accounting"),
    ("ChildCurrentRank", "the running job's rank, evaluated"),
    ("ChildEnteredCurrentState", "a time stamp"),
    ("ChildRetirementTimeRemaining", "retirement policy, evaluated"),
    ("ChildGPUs", "compared as a resource list below"),
    // the job on a claimed slot (copied from the job ad, not modelled)
    ("RemoteGroup", "the job's accounting group"),
    ("ImageSize", "the running job's size"),
    ("ExecutableSize", "the running job's size"),
    ("DiskUsage", "the running job's size"),
    ("ResidentSetSize", "the running job's size"),
    ("DockerCachedImageSizeMb", "docker state"),
    ("ProportionalSetSizeKb", "the running job's size"),
    ("JobUniverse", "the running job"),
    ("GlobalJobId", "the running job"),
    ("CpusUsage", "the running job's measured CPU use"),
    ("MemoryUsage", "the running job's measured memory use"),
    ("JobBusy*", "the running job"),
    ("Machine*Rank", "the running job"),
    ("PreemptingRank", "the running job"),
    ("PreemptingUser", "the running job"),
    ("PreemptingConcurrencyLimits", "the running job"),
    ("ConcurrencyLimits", "the running job"),
    ("StartdName", "the running job"),
    ("ProcessRegistryHandles", "the running job"),
    ("LastBenchmark", "benchmark"),
    ("Kflops", "benchmark"),
    ("Mips", "benchmark"),
    ("WorkingCM", "flocking state"),
    ("ShutdownAlive", "daemon state"),
];

fn ignored(attr: &str) -> Option<&'static str> {
    IGNORED.iter().find_map(|(pattern, why)| {
        let hit = match (pattern.strip_prefix('*'), pattern.strip_suffix('*')) {
            (Some(rest), _) if rest.ends_with('*') => {
                attr.to_ascii_lowercase().contains(&rest[..rest.len() - 1].to_ascii_lowercase())
            }
            (Some(rest), _) => attr.to_ascii_lowercase().ends_with(&rest.to_ascii_lowercase()),
            (None, Some(prefix)) => attr.to_ascii_lowercase().starts_with(&prefix.to_ascii_lowercase()),
            (None, None) => attr.eq_ignore_ascii_case(pattern),
        };
        hit.then_some(*why)
    })
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/slots")
}

fn config(dir: &Path) -> Config {
    let mut text = String::new();
    for f in ["base.conf", "startd.conf"] {
        let t = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
        text.push_str(&t);
        text.push('\n');
    }
    Config::parse_str(&text, &dir.join("startd.conf").display().to_string()).expect("layout config parses")
}

fn machine(ads: &[ClassAd]) -> Machine {
    let mut m = Machine::from_slot_ad(&ads[0], &[]);
    m.swap = 0; // the capturing host has no swap: VirtualMemory is 0
    m
}

/// The resource names of an ad's `MachineResources` beyond the standard ones.
fn custom_resources(ad: &ClassAd) -> Vec<String> {
    match ad.eval_attr("MachineResources") {
        Value::Str(s) => s
            .split_whitespace()
            .filter(|r| !["Cpus", "Memory", "Disk", "Swap"].contains(r))
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

fn printed(ad: &ClassAd, attr: &str) -> Option<String> {
    ad.lookup(attr).map(|e| {
        let text = e.display(Syntax::New).to_string();
        // parse and print again so the two sides print alike
        classad::parse_expr(&text).map(|p| p.display(Syntax::New).to_string()).unwrap_or(text)
    })
}

/// Compares our ads with the real ones; returns the differences.
fn compare(layout: &str, real: &[ClassAd], ours: &[ClassAd]) -> Vec<String> {
    let mut diffs = Vec::new();
    let name = |ad: &ClassAd| match ad.eval_attr("Name") {
        Value::Str(s) => s.to_string(),
        _ => String::new(),
    };
    let mut real_names: Vec<String> = real.iter().map(name).collect();
    let mut our_names: Vec<String> = ours.iter().map(name).collect();
    real_names.sort();
    our_names.sort();
    if real_names != our_names {
        diffs.push(format!("{layout}: slots {real_names:?}, ours {our_names:?}"));
        return diffs;
    }
    for r in real {
        let n = name(r);
        let Some(o) = ours.iter().find(|o| name(o) == n) else { continue };
        let mut compared: Vec<String> = COMPARED.iter().map(|s| s.to_string()).collect();
        for res in custom_resources(r) {
            for p in ["", "TotalSlot", "Total", "Assigned", "Child"] {
                compared.push(format!("{p}{res}"));
            }
            compared.push(format!("Detected{res}"));
        }
        for attr in &compared {
            let (rv, ov) = (r.lookup(attr.as_str()), o.lookup(attr.as_str()));
            match (rv, ov) {
                (None, None) => {}
                (Some(_), None) => diffs.push(format!("{layout} {n}: {attr} missing from ours")),
                (None, Some(_)) => diffs.push(format!("{layout} {n}: {attr} only in ours")),
                (Some(_), Some(_)) => {
                    let (a, b) = (r.eval_attr(attr.as_str()), o.eval_attr(attr.as_str()));
                    if format!("{a:?}") != format!("{b:?}") {
                        diffs.push(format!("{layout} {n}: {attr} real {a:?}, ours {b:?}"));
                    }
                }
            }
        }
        let mut exprs: Vec<String> = COMPARED_EXPRS.iter().map(|s| s.to_string()).collect();
        for res in ["Cpus", "Memory", "Disk"].into_iter().map(str::to_string).chain(custom_resources(r)) {
            exprs.push(format!("Consumption{res}"));
        }
        for attr in &exprs {
            let (a, b) = (printed(r, attr), printed(o, attr));
            if a != b {
                diffs.push(format!("{layout} {n}: {attr} real {a:?}, ours {b:?}"));
            }
        }
        for (attr, _) in r.iter() {
            let attr = attr.as_str();
            let known = compared.iter().any(|c| c.eq_ignore_ascii_case(attr))
                || exprs.iter().any(|c| c.eq_ignore_ascii_case(attr))
                || ignored(attr).is_some();
            if !known {
                diffs.push(format!("{layout} {n}: attribute {attr} neither compared nor ignored"));
            }
        }
    }
    diffs
}

fn layouts() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(data())
        .expect("tests/data/slots")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("slots.ads").exists() && !p.join("expect-failure").exists())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn layouts_match_the_real_startd() {
    let dirs = layouts();
    assert!(dirs.len() >= 5, "expected the captured layouts, found {dirs:?}");
    let mut diffs = Vec::new();
    for dir in &dirs {
        let layout = dir.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default();
        let real = read_ads(&dir.join("slots.ads")).expect("slots.ads");
        let mut startd = Startd::new(machine(&real), &config(dir)).expect("layout builds");
        diffs.extend(compare(&layout, &real, &startd.ads()));
    }
    assert!(diffs.is_empty(), "{} differences:\n{}", diffs.len(), diffs.join("\n"));
}

#[test]
fn dynamic_slots_match_the_real_startd() {
    let mut seen = 0;
    let mut diffs = Vec::new();
    for dir in layouts() {
        let (claimed, job) = (dir.join("claimed.ads"), dir.join("job.ads"));
        if !claimed.exists() || !job.exists() {
            continue;
        }
        let layout = dir.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default();
        let real = read_ads(&claimed).expect("claimed.ads");
        let jobs = read_ads(&job).expect("job.ads");
        let before = read_ads(&dir.join("slots.ads")).expect("slots.ads");
        let mut startd = Startd::new(machine(&before), &config(&dir)).expect("layout builds");
        // the partitionable slot that has a child
        let parent = real
            .iter()
            .find(|ad| matches!(ad.eval_attr("NumDynamicSlots"), Value::Int(n) if n > 0))
            .map(|ad| match ad.eval_attr("Name") {
                Value::Str(s) => s.to_string(),
                _ => String::new(),
            })
            .expect("a partitionable slot with a dynamic slot");
        let claim = startd.claim(&parent, &jobs[0]).expect("the claim succeeds");
        diffs.extend(compare(&format!("{layout} (claimed)"), &real, &startd.ads()));
        seen += 1;
        // and after the job left: the dynamic slot is gone, its resources back
        let released = dir.join("released.ads");
        if released.exists() {
            let real = read_ads(&released).expect("released.ads");
            startd.release(&claim.name).expect("the release succeeds");
            diffs.extend(compare(&format!("{layout} (released)"), &real, &startd.ads()));
        }
    }
    assert!(seen >= 1, "no claimed layouts captured");
    assert!(diffs.is_empty(), "{} differences:\n{}", diffs.len(), diffs.join("\n"));
}

/// Layouts the real startd refuses: ours are errors too, naming the same
/// slot, type, request and availability.
#[test]
fn refused_layouts_are_refused_alike() {
    let mut seen = 0;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(data())
        .expect("tests/data/slots")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expect-failure").exists())
        .collect();
    dirs.sort();
    for dir in dirs {
        let log = std::fs::read_to_string(dir.join("startd.log")).expect("startd.log");
        let machine = Machine { name: "vm".into(), cpus: 2, memory: 24105, ..Machine::default() };
        let err = match Startd::new(machine, &config(&dir)) {
            Ok(_) => panic!("{}: the real startd refused this layout", dir.display()),
            Err(e) => e.to_string(),
        };
        if let Some(line) = log.lines().find(|l| l.starts_with("ERROR: Can't allocate ")) {
            // "ERROR: Can't allocate 3rd slot of type 1"
            let what = line.trim_start_matches("ERROR: Can't allocate ").to_ascii_lowercase();
            assert!(err.starts_with(&format!("can't allocate {what}:")), "{err}\nvs {line}");
            for key in ["Requesting:", "Available:"] {
                let real = log
                    .lines()
                    .find_map(|l| l.trim().strip_prefix(key))
                    .unwrap_or_else(|| panic!("{key} in {}", dir.display()))
                    .trim();
                assert!(err.contains(real), "{err}\nlacks {key} {real}");
            }
        } else if let Some(line) = log.lines().find(|l| l.starts_with("ERROR: Bad description of slot type ")) {
            // ERROR: Bad description of slot type 1: "4" is invalid.
            let rest = line.trim_start_matches("ERROR: ");
            let head = rest.split(" is invalid").next().unwrap_or(rest).to_ascii_lowercase();
            assert!(err.starts_with(&head), "{err}\nvs {line}");
        } else {
            panic!("{}: no error line recognised in startd.log", dir.display());
        }
        seen += 1;
    }
    assert!(seen >= 2, "expected the refused layouts");
}

#[test]
fn every_ignored_attribute_has_a_reason() {
    assert!(IGNORED.iter().all(|(_, why)| !why.is_empty()));
    assert_eq!(ignored("EnteredCurrentState"), Some("a time stamp"));
    assert_eq!(ignored("MyCurrentTime"), Some("a time stamp"));
    assert_eq!(ignored("Cpus"), None);
}
