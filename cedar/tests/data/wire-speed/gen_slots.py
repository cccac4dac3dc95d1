#!/usr/bin/env python3
"""Writes N real-looking static-slot ads (158 attributes, old ClassAd
format, a blank line between ads) for the cedar decode/encode benchmark.

The ads are the project anchor's negotiation-bench slot ads (modelled on a
real HTCondor 23.9.6 startd's static slot ad): 8 slots per fake host, 8
host types, 5 % aarch64, three OSes, three START policies. Unlike the
anchor the times are fixed, so every run writes the same bytes.

Usage: python3 gen_slots.py N OUT_FILE     (50000 for the benchmark)
"""
import sys

n_slots = int(sys.argv[1])
out = sys.argv[2]
mode = "full"
udomain = "anchor.invalid"
users = ["bench01"]
SPP = 8
base = 1_780_000_000
VER = '"$CondorVersion: 23.9.6 2026-07-12 PackageID: 23.9.6+dfsg-2.1+b10 $"'
PLAT = '"$CondorPlatform: X86_64-Debian_13 $"'
HOSTTYPES = [(1, 2048), (1, 2048), (1, 4096), (1, 4096), (2, 8192), (2, 8192), (4, 16384), (8, 32768)]
OSES = [("AlmaLinux", 9, 904, "AlmaLinux 9.4 (Seafoam Ocelot)"),
        ("Rocky", 8, 810, "Rocky Linux 8.10 (Green Obsidian)"),
        ("Debian", 12, 1200, "Debian GNU/Linux 12 (bookworm)")]
START_TRUE = "true"
START_RES = "(TARGET.RequestCpus <= MY.Cpus) && (TARGET.RequestMemory <= MY.Memory)"
START_DESK = "(KeyboardIdle > 15 * 60) && ((LoadAvg - CondorLoadAvg) <= 0.3)"
LEAN = set()

def q(s): return '"' + s + '"'

def slot_ad(i):
    h, s = divmod(i, SPP); s += 1
    cpus, mem = HOSTTYPES[h % 8]
    nslots_host = min(SPP, n_slots - h * SPP)
    disk = cpus * 20000000
    arm = (h % 20 == 19)
    osname, osmaj, osver, oslong = OSES[h % 3]
    host = "wn%05d.anchor.invalid" % h
    port = 9
    sinful = "<127.0.0.1:%d?addrs=127.0.0.1-%d&alias=%s>" % (port, port, host)
    addrv1 = ('{[ p=\\"primary\\"; a=\\"127.0.0.1\\"; port=%d; n=\\"Internet\\"; alias=\\"%s\\"; ], '
              '[ p=\\"IPv4\\"; a=\\"127.0.0.1\\"; port=%d; n=\\"Internet\\"; alias=\\"%s\\"; ]}') % (port, host, port, host)
    pol = h % 10
    start = START_TRUE if pol < 7 else (START_RES if pol < 9 else START_DESK)
    rank = '(TARGET.Owner =?= "%s") * 10.0' % users[0] if h % 25 == 0 else "0.0"
    load = round((h % 10) * 0.01, 2)
    kbd = 3600 + (h * 37) % 86400
    a = [
        ("AcceptedWhileDraining", "false"), ("ActivationRequests", "0"), ("Activity", q("Idle")),
        ("AddressV1", q(addrv1)), ("Arch", q("aarch64" if arm else "X86_64")),
        ("CanHibernate", "false"), ("ClaimRequests", "0"), ("ClockDay", str(h % 7)),
        ("ClockMin", str(h % 1440)), ("COLLECTOR_HOST_STRING", q("127.0.0.1:9618")),
        ("CondorLoadAvg", "0.0"), ("CondorPlatform", PLAT),
        ("CondorScratchDir", q("#CoNdOrScRaTcHdIr#")), ("CondorVersion", VER),
        ("ConsoleIdle", str(kbd)), ("CpuBusy", "false"), ("CpuCacheSize", "512"),
        ("CpuFamily", "25"), ("CpuModelNumber", "1"), ("Cpus", str(cpus)),
        ("CurrentRank", "0.0"), ("DaemonCoreDutyCycle", "0.0006769981417236171"),
        ("DaemonLastReconfigTime", str(base)), ("DaemonStartTime", str(base)),
        ("DetectedCpus", str(cpus * nslots_host)), ("DetectedGPUs", "0"),
        ("DetectedMemory", str(mem * nslots_host)), ("Disk", str(disk)),
        ("EnteredCurrentActivity", str(base)), ("EnteredCurrentState", str(base)),
        ("ExpectedMachineGracefulDrainingBadput", "0"),
        ("ExpectedMachineGracefulDrainingCompletion", str(base)),
        ("ExpectedMachineQuickDrainingBadput", "0"),
        ("ExpectedMachineQuickDrainingCompletion", str(base)),
        ("FileSystemDomain", q(udomain)), ("GPUs", "0"), ("HardwareAddress", q("00:00:00:00:00:00")),
    ]
    if not arm:
        a += [("has_avx", "true"), ("has_avx2", "true"), ("has_sse4_1", "true"),
              ("has_sse4_2", "true"), ("has_ssse3", "true")]
    a += [
        ("HasFileTransfer", "false" if h % 50 == 49 else "true"),
        ("HasFileTransferPluginMethods", q("box,https,gdrive,dav,davs,http,onedrive,data,ftp,file,s3,gs")),
        ("HasIOProxy", "true"), ("HasJICLocalConfig", "true"), ("HasJICLocalStdin", "true"),
        ("HasJobDeferral", "true"), ("HasJobTransferPlugins", "true"), ("HasMPI", "true"),
        ("HasPerFileEncryption", "true"), ("HasReconnect", "true"),
        ("HasSelfCheckpointTransfers", "true"), ("HasSshd", "false"), ("HasStartDaemonAd", "true"),
        ("HasTDP", "true"), ("HasTransferInputRemaps", "true"), ("HasVM", "false"),
        ("HibernationLevel", "0"), ("HibernationState", q("NONE")), ("HibernationSupportedStates", q("")),
        ("IsLocalStartd", "false"), ("IsWakeAble", "false"), ("IsWakeOnLanEnabled", "false"),
        ("IsWakeOnLanSupported", "false"), ("JobPreemptions", "0"), ("JobRankPreemptions", "0"),
        ("JobStarts", "0"), ("JobUserPrioPreemptions", "0"), ("KeyboardIdle", str(kbd)),
        ("KFlops", str(1500000 + 50000 * (h % 7))), ("LastBenchmark", str(base)),
        ("LastFetchWorkCompleted", "0"), ("LastFetchWorkSpawned", "0"), ("LoadAvg", str(load)),
        ("Machine", q(host)), ("MachineMaxVacateTime", "10 * 60"),
        ("MachineResources", q("Cpus Memory Disk Swap GPUs")), ("MaxJobRetirementTime", "0"),
        ("Memory", str(mem)), ("Microarch", q("armv8.2-a" if arm else "x86_64-v3")),
        ("Mips", str(20000 + 1000 * (h % 8))),
        ("MonitorSelfAge", "3600"), ("MonitorSelfCPUUsage", "0.0"), ("MonitorSelfImageSize", "23892"),
        ("MonitorSelfRegisteredSocketCount", "1"), ("MonitorSelfResidentSetSize", "16896"),
        ("MonitorSelfSecuritySessions", "4"), ("MonitorSelfTime", str(base + 3500)),
        ("MyAddress", q(sinful)), ("MyCurrentTime", str(base + 3590)), ("MyType", q("Machine")),
        ("Name", q("slot%d@%s" % (s, host))), ("NewDSlotNotMatch", "0"), ("NextFetchWorkDelay", "-1"),
        ("NumPids", "0"), ("OpSys", q("LINUX")), ("OpSysAndVer", q("%s%d" % (osname, osmaj))),
        ("OpSysLegacy", q("LINUX")), ("OpSysLongName", q(oslong)), ("OpSysMajorVer", str(osmaj)),
        ("OpSysName", q(osname)), ("OpSysShortName", q(osname)), ("OpSysVer", str(osver)),
        ("PrivateNetworkName", q(host)), ("Rank", rank),
        ("RecentActivationRequests", "0"), ("RecentClaimRequests", "0"),
        ("RecentDaemonCoreDutyCycle", "0.0006769981417236171"), ("RecentJobPreemptions", "0"),
        ("RecentJobRankPreemptions", "0"), ("RecentJobStarts", "0"),
        ("RecentJobUserPrioPreemptions", "0"), ("RecentNewDSlotNotMatch", "0"),
        ("Requirements", "START"), ("RetirementTimeRemaining", "0"), ("SlotID", str(s)),
        ("SlotType", q("Static")), ("SlotTypeID", "1"), ("SlotWeight", "Cpus"), ("Start", start),
        ("StartdIpAddr", q(sinful)),
        ("StarterAbilityList", q("HasVM,HasMPI,HasTDP,HasSshd,HasReconnect,HasJobDeferral,HasFileTransfer,HasJICLocalStdin,HasJICLocalConfig,HasPerFileEncryption,HasJobTransferPlugins,HasTransferInputRemaps,HasSelfCheckpointTransfers,HasFileTransferPluginMethods")),
        ("State", q("Unclaimed")), ("SubnetMask", q("255.0.0.0")), ("TargetType", q("Job")),
        ("TimeToLive", "2147483647"), ("TotalCondorLoadAvg", "0.0"),
        ("TotalCpus", "%d.0" % (cpus * nslots_host)), ("TotalDisk", str(disk * nslots_host)),
        ("TotalGPUs", "0"), ("TotalLoadAvg", str(load)), ("TotalMemory", str(mem * nslots_host)),
        ("TotalSlotCpus", str(cpus)), ("TotalSlotDisk", "%d.0" % disk), ("TotalSlotGPUs", "0"),
        ("TotalSlotMemory", str(mem)), ("TotalSlots", str(nslots_host)),
        ("TotalTimeUnclaimedIdle", "3600"), ("TotalVirtualMemory", str(mem * nslots_host * 1024)),
        ("UidDomain", q(udomain)), ("Unhibernate", "MY.MachineLastMatchTime =!= undefined"),
        ("UpdateSequenceNumber", "2"), ("UpdatesHistory", q("00000000000000000000000000000000")),
        ("UpdatesLost", "0"), ("UpdatesSequenced", "1"), ("UpdatesTotal", "2"),
        ("UtsnameMachine", q("aarch64" if arm else "x86_64")), ("UtsnameNodename", q(host)),
        ("UtsnameRelease", q("5.14.0-427.el9.x86_64")), ("UtsnameSysname", q("Linux")),
        ("UtsnameVersion", q("#1 SMP PREEMPT_DYNAMIC")), ("VirtualMemory", "0"),
        ("WakeOnLanEnabledFlags", q("NONE")), ("WakeOnLanSupportedFlags", q("NONE")),
        # --- anchor additions ---
        ("WantClaiming", "false"), ("AnchorSynthetic", "true"), ("ClassAdLifetime", "86400"),
    ]
    if mode == "lean":
        a = [kv for kv in a if kv[0] in LEAN]
    return a


with open(out, "w") as f:
    for i in range(n_slots):
        f.write("".join("%s = %s\n" % kv for kv in slot_ad(i)))
        f.write("\n")
