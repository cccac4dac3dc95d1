//! The slot ads of a synthetic pool: the script's machine ads, attribute
//! for attribute and in its order (host types, operating systems, `START`
//! policies, full or lean attribute sets), flat or chained to what a
//! host's slots share.

use std::sync::Arc;

use classad::{ClassAd, Expr, Name};

use super::{expr, Layout, SlotAttrs, Spec, CONDOR_PLATFORM, CONDOR_VERSION, DOMAIN, SLOTS_PER_HOST};

/// The script's host types: (cores, MB of memory) per slot.
const HOST_TYPES: [(i64, i64); 8] =
    [(1, 2048), (1, 2048), (1, 4096), (1, 4096), (2, 8192), (2, 8192), (4, 16384), (8, 32768)];

/// The script's operating systems: name, major version, version, long name.
const OSES: [(&str, i64, i64, &str); 3] = [
    ("AlmaLinux", 9, 904, "AlmaLinux 9.4 (Seafoam Ocelot)"),
    ("Rocky", 8, 810, "Rocky Linux 8.10 (Green Obsidian)"),
    ("Debian", 12, 1200, "Debian GNU/Linux 12 (bookworm)"),
];

/// The attributes of lean slot ads.
const LEAN: [&str; 51] = [
    "MyType",
    "TargetType",
    "Name",
    "Machine",
    "MyAddress",
    "StartdIpAddr",
    "SlotID",
    "SlotType",
    "SlotTypeID",
    "State",
    "Activity",
    "EnteredCurrentState",
    "EnteredCurrentActivity",
    "Requirements",
    "Start",
    "Rank",
    "CurrentRank",
    "SlotWeight",
    "Cpus",
    "Memory",
    "Disk",
    "GPUs",
    "TotalCpus",
    "TotalMemory",
    "TotalDisk",
    "TotalSlots",
    "DetectedCpus",
    "DetectedMemory",
    "Arch",
    "OpSys",
    "OpSysAndVer",
    "OpSysMajorVer",
    "OpSysName",
    "Microarch",
    "HasFileTransfer",
    "FileSystemDomain",
    "UidDomain",
    "KeyboardIdle",
    "ConsoleIdle",
    "LoadAvg",
    "CondorLoadAvg",
    "TotalLoadAvg",
    "Mips",
    "KFlops",
    "CondorVersion",
    "CondorPlatform",
    "DaemonStartTime",
    "UpdateSequenceNumber",
    "WantClaiming",
    "AnchorSynthetic",
    "ClassAdLifetime",
];

/// What every slot ad of a pool shares: the expressions, parsed once, and
/// the long strings, allocated once.
pub(super) struct SlotConsts {
    lean: Option<Vec<Name>>,
    name: Name,
    slot_id: Name,
    start_true: Expr,
    start_resources: Expr,
    start_desktop: Expr,
    rank_first_user: Expr,
    real_zero: Expr,
    duty_cycle: Expr,
    vacate_time: Expr,
    requirements: Expr,
    slot_weight: Expr,
    unhibernate: Expr,
    strings: [Expr; 12],
}

/// Indices into [`SlotConsts::strings`].
const VERSION: usize = 0;
const PLATFORM: usize = 1;
const PLUGINS: usize = 2;
const STARTER_ABILITIES: usize = 3;
const UPDATES_HISTORY: usize = 4;
const MACHINE_RESOURCES: usize = 5;
const UTS_RELEASE: usize = 6;
const UTS_VERSION: usize = 7;
const COLLECTOR: usize = 8;
const SCRATCH: usize = 9;
const IDLE: usize = 10;
const UNCLAIMED: usize = 11;

impl SlotConsts {
    pub(super) fn new(attrs: SlotAttrs, first_user: &str) -> SlotConsts {
        let s = |text: &str| Expr::from(text);
        SlotConsts {
            lean: (attrs == SlotAttrs::Lean).then(|| LEAN.iter().map(|n| Name::new(n)).collect()),
            name: Name::new("Name"),
            slot_id: Name::new("SlotID"),
            start_true: expr("true"),
            start_resources: expr("(TARGET.RequestCpus <= MY.Cpus) && (TARGET.RequestMemory <= MY.Memory)"),
            start_desktop: expr("(KeyboardIdle > 15 * 60) && ((LoadAvg - CondorLoadAvg) <= 0.3)"),
            rank_first_user: expr(&format!("(TARGET.Owner =?= \"{first_user}\") * 10.0")),
            real_zero: Expr::from(0.0),
            duty_cycle: expr("0.0006769981417236171"),
            vacate_time: expr("10 * 60"),
            requirements: expr("START"),
            slot_weight: expr("Cpus"),
            unhibernate: expr("MY.MachineLastMatchTime =!= undefined"),
            strings: [
                s(CONDOR_VERSION),
                s(CONDOR_PLATFORM),
                s("box,https,gdrive,dav,davs,http,onedrive,data,ftp,file,s3,gs"),
                s("HasVM,HasMPI,HasTDP,HasSshd,HasReconnect,HasJobDeferral,HasFileTransfer,HasJICLocalStdin,HasJICLocalConfig,HasPerFileEncryption,HasJobTransferPlugins,HasTransferInputRemaps,HasSelfCheckpointTransfers,HasFileTransferPluginMethods"),
                s("00000000000000000000000000000000"),
                s("Cpus Memory Disk Swap GPUs"),
                s("5.14.0-427.el9.x86_64"),
                s("#1 SMP PREEMPT_DYNAMIC"),
                s("127.0.0.1:9618"),
                s("#CoNdOrScRaTcHdIr#"),
                s("Idle"),
                s("Unclaimed"),
            ],
        }
    }
}

/// One host's slot ad, with the slot's own `Name` and `SlotID` still to
/// fill in.
pub(super) struct HostTemplate {
    host: usize,
    host_name: String,
    ad: Arc<ClassAd>,
    layout: Layout,
}

impl HostTemplate {
    /// Slot `slot` (1 to 8) of the host: the template with its name and id.
    fn slot(&self, c: &SlotConsts, slot: usize) -> ClassAd {
        let mut ad = match self.layout {
            Layout::Flat => ClassAd::clone(&self.ad),
            Layout::Chained => {
                let mut own = ClassAd::with_capacity(2);
                own.chain_to(Arc::clone(&self.ad));
                own
            }
        };
        ad.insert(c.name, Expr::from(format!("slot{slot}@{}", self.host_name)));
        ad.insert(c.slot_id, Expr::from(slot as i64));
        ad
    }
}

/// The slot ads of a [`Spec`], generated one at a time; see
/// [`Spec::slot_ads`].
pub struct SlotAds {
    pub(super) consts: Arc<SlotConsts>,
    pub(super) spec: Spec,
    pub(super) next: usize,
    pub(super) host: Option<HostTemplate>,
}

impl Iterator for SlotAds {
    type Item = ClassAd;

    fn next(&mut self) -> Option<ClassAd> {
        if self.next >= self.spec.slots {
            return None;
        }
        let h = self.next / SLOTS_PER_HOST;
        if self.host.as_ref().is_none_or(|t| t.host != h) {
            self.host = Some(host_template(&self.consts, &self.spec, h));
        }
        let ad = self.host.as_ref()?.slot(&self.consts, self.next % SLOTS_PER_HOST + 1);
        self.next += 1;
        Some(ad)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.spec.slots - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for SlotAds {}

/// Every slot ad of host `h`.
pub(super) fn host_slots(c: &SlotConsts, spec: &Spec, h: usize) -> Vec<ClassAd> {
    let t = host_template(c, spec, h);
    let n = SLOTS_PER_HOST.min(spec.slots - h * SLOTS_PER_HOST);
    (1..=n).map(|slot| t.slot(c, slot)).collect()
}

/// The attributes of host `h`'s slots, in the script's order, as the
/// script computes them (`slot_ad` in its generator).
fn host_template(c: &SlotConsts, spec: &Spec, h: usize) -> HostTemplate {
    let base = spec.base_time;
    let (cpus, mem) = HOST_TYPES[h % 8];
    let nslots = SLOTS_PER_HOST.min(spec.slots - h * SLOTS_PER_HOST) as i64;
    let disk = cpus * 20_000_000;
    let arm = h % 20 == 19;
    let (os_name, os_major, os_version, os_long) = OSES[h % 3];
    let host = format!("wn{h:05}.anchor.invalid");
    let port = 9;
    let sinful = Expr::from(format!("<127.0.0.1:{port}?addrs=127.0.0.1-{port}&alias={host}>"));
    let address_v1 = format!(
        "{{[ p=\"primary\"; a=\"127.0.0.1\"; port={port}; n=\"Internet\"; alias=\"{host}\"; ], \
         [ p=\"IPv4\"; a=\"127.0.0.1\"; port={port}; n=\"Internet\"; alias=\"{host}\"; ]}}"
    );
    let host_expr = Expr::from(host.as_str());
    let os_name_expr = Expr::from(os_name);
    let start = match h % 10 {
        0..7 => &c.start_true,
        7 | 8 => &c.start_resources,
        _ => &c.start_desktop,
    };
    let rank = if h.is_multiple_of(25) { c.rank_first_user.clone() } else { c.real_zero.clone() };
    let load = Expr::from((h % 10) as f64 / 100.0);
    let idle = 3600 + ((h * 37) % 86400) as i64;
    let s = |i: usize| c.strings[i].clone();
    let int = |v: i64| Expr::from(v);
    let real = |v: i64| Expr::from(v as f64);
    let yes = || Expr::from(true);
    let no = || Expr::from(false);
    let zero = || Expr::from(0);

    let mut a: Vec<(&str, Expr)> = Vec::with_capacity(160);
    a.extend([
        ("AcceptedWhileDraining", no()),
        ("ActivationRequests", zero()),
        ("Activity", s(IDLE)),
        ("AddressV1", Expr::from(address_v1)),
        ("Arch", Expr::from(if arm { "aarch64" } else { "X86_64" })),
        ("CanHibernate", no()),
        ("ClaimRequests", zero()),
        ("ClockDay", int((h % 7) as i64)),
        ("ClockMin", int((h % 1440) as i64)),
        ("COLLECTOR_HOST_STRING", s(COLLECTOR)),
        ("CondorLoadAvg", c.real_zero.clone()),
        ("CondorPlatform", s(PLATFORM)),
        ("CondorScratchDir", s(SCRATCH)),
        ("CondorVersion", s(VERSION)),
        ("ConsoleIdle", int(idle)),
        ("CpuBusy", no()),
        ("CpuCacheSize", int(512)),
        ("CpuFamily", int(25)),
        ("CpuModelNumber", int(1)),
        ("Cpus", int(cpus)),
        ("CurrentRank", c.real_zero.clone()),
        ("DaemonCoreDutyCycle", c.duty_cycle.clone()),
        ("DaemonLastReconfigTime", int(base)),
        ("DaemonStartTime", int(base)),
        ("DetectedCpus", int(cpus * nslots)),
        ("DetectedGPUs", zero()),
        ("DetectedMemory", int(mem * nslots)),
        ("Disk", int(disk)),
        ("EnteredCurrentActivity", int(base)),
        ("EnteredCurrentState", int(base)),
        ("ExpectedMachineGracefulDrainingBadput", zero()),
        ("ExpectedMachineGracefulDrainingCompletion", int(base)),
        ("ExpectedMachineQuickDrainingBadput", zero()),
        ("ExpectedMachineQuickDrainingCompletion", int(base)),
        ("FileSystemDomain", Expr::from(DOMAIN)),
        ("GPUs", zero()),
        ("HardwareAddress", Expr::from("00:00:00:00:00:00")),
    ]);
    if !arm {
        a.extend([
            ("has_avx", yes()),
            ("has_avx2", yes()),
            ("has_sse4_1", yes()),
            ("has_sse4_2", yes()),
            ("has_ssse3", yes()),
        ]);
    }
    a.extend([
        ("HasFileTransfer", Expr::from(h % 50 != 49)),
        ("HasFileTransferPluginMethods", s(PLUGINS)),
        ("HasIOProxy", yes()),
        ("HasJICLocalConfig", yes()),
        ("HasJICLocalStdin", yes()),
        ("HasJobDeferral", yes()),
        ("HasJobTransferPlugins", yes()),
        ("HasMPI", yes()),
        ("HasPerFileEncryption", yes()),
        ("HasReconnect", yes()),
        ("HasSelfCheckpointTransfers", yes()),
        ("HasSshd", no()),
        ("HasStartDaemonAd", yes()),
        ("HasTDP", yes()),
        ("HasTransferInputRemaps", yes()),
        ("HasVM", no()),
        ("HibernationLevel", zero()),
        ("HibernationState", Expr::from("NONE")),
        ("HibernationSupportedStates", Expr::from("")),
        ("IsLocalStartd", no()),
        ("IsWakeAble", no()),
        ("IsWakeOnLanEnabled", no()),
        ("IsWakeOnLanSupported", no()),
        ("JobPreemptions", zero()),
        ("JobRankPreemptions", zero()),
        ("JobStarts", zero()),
        ("JobUserPrioPreemptions", zero()),
        ("KeyboardIdle", int(idle)),
        ("KFlops", int(1_500_000 + 50_000 * (h % 7) as i64)),
        ("LastBenchmark", int(base)),
        ("LastFetchWorkCompleted", zero()),
        ("LastFetchWorkSpawned", zero()),
        ("LoadAvg", load.clone()),
        ("Machine", host_expr.clone()),
        ("MachineMaxVacateTime", c.vacate_time.clone()),
        ("MachineResources", s(MACHINE_RESOURCES)),
        ("MaxJobRetirementTime", zero()),
        ("Memory", int(mem)),
        ("Microarch", Expr::from(if arm { "armv8.2-a" } else { "x86_64-v3" })),
        ("Mips", int(20_000 + 1000 * (h % 8) as i64)),
        ("MonitorSelfAge", int(3600)),
        ("MonitorSelfCPUUsage", c.real_zero.clone()),
        ("MonitorSelfImageSize", int(23892)),
        ("MonitorSelfRegisteredSocketCount", int(1)),
        ("MonitorSelfResidentSetSize", int(16896)),
        ("MonitorSelfSecuritySessions", int(4)),
        ("MonitorSelfTime", int(base + 3500)),
        ("MyAddress", sinful.clone()),
        ("MyCurrentTime", int(base + 3590)),
        ("MyType", Expr::from("Machine")),
        ("Name", Expr::from("")),
        ("NewDSlotNotMatch", zero()),
        ("NextFetchWorkDelay", int(-1)),
        ("NumPids", zero()),
        ("OpSys", Expr::from("LINUX")),
        ("OpSysAndVer", Expr::from(format!("{os_name}{os_major}"))),
        ("OpSysLegacy", Expr::from("LINUX")),
        ("OpSysLongName", Expr::from(os_long)),
        ("OpSysMajorVer", int(os_major)),
        ("OpSysName", os_name_expr.clone()),
        ("OpSysShortName", os_name_expr),
        ("OpSysVer", int(os_version)),
        ("PrivateNetworkName", host_expr.clone()),
        ("Rank", rank),
        ("RecentActivationRequests", zero()),
        ("RecentClaimRequests", zero()),
        ("RecentDaemonCoreDutyCycle", c.duty_cycle.clone()),
        ("RecentJobPreemptions", zero()),
        ("RecentJobRankPreemptions", zero()),
        ("RecentJobStarts", zero()),
        ("RecentJobUserPrioPreemptions", zero()),
        ("RecentNewDSlotNotMatch", zero()),
        ("Requirements", c.requirements.clone()),
        ("RetirementTimeRemaining", zero()),
        ("SlotID", zero()),
        ("SlotType", Expr::from("Static")),
        ("SlotTypeID", int(1)),
        ("SlotWeight", c.slot_weight.clone()),
        ("Start", start.clone()),
        ("StartdIpAddr", sinful),
        ("StarterAbilityList", s(STARTER_ABILITIES)),
        ("State", s(UNCLAIMED)),
        ("SubnetMask", Expr::from("255.0.0.0")),
        ("TargetType", Expr::from("Job")),
        ("TimeToLive", int(2_147_483_647)),
        ("TotalCondorLoadAvg", c.real_zero.clone()),
        ("TotalCpus", real(cpus * nslots)),
        ("TotalDisk", int(disk * nslots)),
        ("TotalGPUs", zero()),
        ("TotalLoadAvg", load),
        ("TotalMemory", int(mem * nslots)),
        ("TotalSlotCpus", int(cpus)),
        ("TotalSlotDisk", real(disk)),
        ("TotalSlotGPUs", zero()),
        ("TotalSlotMemory", int(mem)),
        ("TotalSlots", int(nslots)),
        ("TotalTimeUnclaimedIdle", int(3600)),
        ("TotalVirtualMemory", int(mem * nslots * 1024)),
        ("UidDomain", Expr::from(DOMAIN)),
        ("Unhibernate", c.unhibernate.clone()),
        ("UpdateSequenceNumber", int(2)),
        ("UpdatesHistory", s(UPDATES_HISTORY)),
        ("UpdatesLost", zero()),
        ("UpdatesSequenced", int(1)),
        ("UpdatesTotal", int(2)),
        ("UtsnameMachine", Expr::from(if arm { "aarch64" } else { "x86_64" })),
        ("UtsnameNodename", host_expr),
        ("UtsnameRelease", s(UTS_RELEASE)),
        ("UtsnameSysname", Expr::from("Linux")),
        ("UtsnameVersion", s(UTS_VERSION)),
        ("VirtualMemory", zero()),
        ("WakeOnLanEnabledFlags", Expr::from("NONE")),
        ("WakeOnLanSupportedFlags", Expr::from("NONE")),
        // The script's additions: no claiming, a mark, a day's lifetime.
        ("WantClaiming", no()),
        ("AnchorSynthetic", yes()),
        ("ClassAdLifetime", int(86400)),
    ]);
    let mut attrs: Vec<(Name, Expr)> = Vec::with_capacity(a.len());
    for (text, value) in a {
        let name = Name::new(text);
        if c.lean.as_ref().is_none_or(|lean| lean.contains(&name)) {
            attrs.push((name, value));
        }
    }
    if spec.layout == Layout::Chained {
        // The slots' own attributes are theirs alone.
        attrs.retain(|(name, _)| *name != c.name && *name != c.slot_id);
    }
    HostTemplate { host: h, host_name: host, ad: Arc::new(ClassAd::from_attributes(attrs)), layout: spec.layout }
}
