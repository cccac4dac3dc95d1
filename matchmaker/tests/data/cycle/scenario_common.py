"""Shared pieces of the scenario generators (gen-*.py) used by capture-scenario.sh.

Slot ads follow the shape of the ads a real HTCondor 23.9.6 startd publishes (see
real-startd-ads/), reduced to the 51 "lean" attributes of the anchor's
negotiation-bench.sh plus what claimed, partitionable or consumption-policy slots carry.
Every ad has WantClaiming = false (the negotiator then needs no claim id and the schedd
declines the matches, so nothing ever runs) and AnchorSynthetic = true (for cleanup)."""
import os

UDOMAIN = "anchor.local"
VER = '"$CondorVersion: 23.9.6 2026-07-12 PackageID: 23.9.6+dfsg-2.1+b10 $"'
PLAT = '"$CondorPlatform: X86_64-Debian_13 $"'
BASE = 1795590000  # fixed epoch for timestamps, so reruns give identical ads
SCHEDD = "vm"


def q(s):
    return '"' + s + '"'


def host_name(h):
    return "wn%05d.anchor.invalid" % h


def sinful(h):
    return "<127.0.0.1:9?addrs=127.0.0.1-9&alias=%s>" % host_name(h)


def base_slot(h, slot_name, slot_id, cpus, mem, disk, total_cpus, total_mem, total_disk,
              n_slots_host, start="true", rank="0.0", os_major=9):
    """Attributes common to every slot ad (unclaimed static slot by default)."""
    osname = {9: "AlmaLinux", 8: "Rocky", 12: "Debian"}[os_major]
    return [
        ("MyType", q("Machine")), ("TargetType", q("Job")),
        ("Name", q(slot_name)), ("Machine", q(host_name(h))),
        ("MyAddress", q(sinful(h))), ("StartdIpAddr", q(sinful(h))),
        ("SlotID", str(slot_id)), ("SlotType", q("Static")), ("SlotTypeID", "1"),
        ("State", q("Unclaimed")), ("Activity", q("Idle")),
        ("EnteredCurrentState", str(BASE)), ("EnteredCurrentActivity", str(BASE)),
        ("Requirements", "START"), ("Start", start), ("Rank", rank), ("CurrentRank", "0.0"),
        ("SlotWeight", "Cpus"),
        ("Cpus", str(cpus)), ("Memory", str(mem)), ("Disk", str(disk)), ("GPUs", "0"),
        ("TotalCpus", "%d.0" % total_cpus), ("TotalMemory", str(total_mem)),
        ("TotalDisk", str(total_disk)), ("TotalSlots", str(n_slots_host)),
        ("DetectedCpus", str(total_cpus)), ("DetectedMemory", str(total_mem)),
        ("Arch", q("X86_64")), ("OpSys", q("LINUX")),
        ("OpSysAndVer", q("%s%d" % (osname, os_major))), ("OpSysMajorVer", str(os_major)),
        ("OpSysName", q(osname)), ("Microarch", q("x86_64-v3")),
        ("HasFileTransfer", "true"), ("FileSystemDomain", q(UDOMAIN)), ("UidDomain", q(UDOMAIN)),
        ("KeyboardIdle", str(3600 + h * 37)), ("ConsoleIdle", str(3600 + h * 37)),
        ("LoadAvg", "0.0"), ("CondorLoadAvg", "0.0"), ("TotalLoadAvg", "0.0"),
        ("Mips", str(20000 + 1000 * (h % 8))), ("KFlops", str(1500000 + 50000 * (h % 7))),
        ("CondorVersion", VER), ("CondorPlatform", PLAT),
        ("DaemonStartTime", str(BASE - 3600)), ("UpdateSequenceNumber", "2"),
        ("RetirementTimeRemaining", "0"), ("MaxJobRetirementTime", "0"),
        ("WantClaiming", "false"), ("AnchorSynthetic", "true"), ("ClassAdLifetime", "86400"),
    ]


def set_attrs(ad, **kv):
    """Replace or append attributes (values are ClassAd expression text)."""
    idx = {k.lower(): i for i, (k, _) in enumerate(ad)}
    for k, v in kv.items():
        if k.lower() in idx:
            ad[idx[k.lower()]] = (k, v)
        else:
            idx[k.lower()] = len(ad)
            ad.append((k, v))
    return ad


def claim(ad, h, slot_id, user, job_id, runtime, current_rank=0.0, group=False,
          retirement=0, limits=None):
    """Turn a slot ad into a Claimed/Busy one running JOB_ID of USER (what a real 23.9
    startd adds to a claimed slot; see real-startd-ads/claimed-dslot.ad)."""
    owner = "%s@%s" % (user, UDOMAIN)
    start = BASE - runtime
    kv = dict(
        State=q("Claimed"), Activity=q("Busy"),
        EnteredCurrentState=str(start), EnteredCurrentActivity=str(start),
        CurrentRank=repr(float(current_rank)),
        RemoteUser=q(owner), RemoteOwner=q(owner), RemoteScheddName=q(SCHEDD),
        RemoteNegotiatingGroup=q("<none>"), RemoteAutoregroup="false",
        ClientMachine=q("127.0.0.1"), JobId=q(job_id),
        GlobalJobId=q("%s#%s#%d" % (SCHEDD, job_id, start)), JobStart=str(start),
        JobUniverse="5", TotalJobRunTime=str(runtime), TotalClaimRunTime=str(runtime),
        ImageSize="26588", NumPids="1",
        PublicClaimId=q("%s#%d#%d#..." % (sinful(h), BASE - 3600, slot_id)),
        RetirementTimeRemaining=str(retirement),
    )
    if retirement:
        kv["MaxJobRetirementTime"] = str(retirement + runtime)
    if group:
        kv["AccountingGroup"] = q(owner)
    if limits:
        kv["ConcurrencyLimits"] = q(limits)
    return set_attrs(ad, **kv)


WRL_PLAIN = ("(MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && "
             "TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk && "
             "(TARGET.RequestGPUs =?= undefined || MY.GPUs >= TARGET.RequestGPUs))")
WRL_CP = ("(ifThenElse(TARGET._cp_orig_RequestCpus =!= undefined,TARGET.RequestCpus <= MY.Cpus,"
          "MY.ConsumptionCpus <= MY.Cpus) && ifThenElse(TARGET._cp_orig_RequestDisk =!= undefined,"
          "TARGET.RequestDisk <= MY.Disk,MY.ConsumptionDisk <= MY.Disk) && "
          "ifThenElse(TARGET._cp_orig_RequestGPUs =!= undefined,TARGET.RequestGPUs <= MY.GPUs,"
          "MY.ConsumptionGPUs <= MY.GPUs) && ifThenElse(TARGET._cp_orig_RequestMemory =!= undefined,"
          "TARGET.RequestMemory <= MY.Memory,MY.ConsumptionMemory <= MY.Memory))")
CHILD_ATTRS = ["ChildAccountingGroup", "ChildActivity", "ChildCpus", "ChildCurrentRank", "ChildDisk",
               "ChildDSlotId", "ChildEnteredCurrentState", "ChildGPUs", "ChildMemory", "ChildName",
               "ChildRemoteOwner", "ChildRemoteUser", "ChildRetirementTimeRemaining", "ChildState"]


def partitionable(ad, consumption_policy):
    """Turn a whole-machine slot ad into a partitionable slot without children, as a 23.9
    startd publishes it (with CONSUMPTION_POLICY = True when consumption_policy)."""
    kv = dict(SlotType=q("Partitionable"), PartitionableSlot="true", SlotTypeID="1",
              Requirements="START && (WithinResourceLimits)",
              WithinResourceLimits=WRL_CP if consumption_policy else WRL_PLAIN,
              MachineResources=q("Cpus Memory Disk Swap GPUs"),
              NumDynamicSlots="0", PslotRollupInformation="true")
    for a in CHILD_ATTRS:
        kv[a] = "{  }"
    if consumption_policy:
        kv.update(ConsumptionCpus="quantize(target.RequestCpus,{ 1 })",
                  ConsumptionDisk="quantize(target.RequestDisk,{ 1024 })",
                  ConsumptionGPUs="ifthenelse(target.RequestGPUs =?= undefined,0,target.RequestGPUs)",
                  ConsumptionMemory="quantize(target.RequestMemory,{ 128 })")
    return set_attrs(ad, **kv)


def write_slots(workdir, ads):
    with open(os.path.join(workdir, "slots.ad"), "w") as f:
        for a in ads:
            f.write("".join("%s = %s\n" % kv for kv in a))
            f.write("\n")


SUB_HEAD = """# generated by %s
universe                = vanilla
executable              = /bin/sleep
arguments               = 3600
initialdir              = /tmp
should_transfer_files   = YES
when_to_transfer_output = ON_EXIT
notification            = never
hold                    = false
+AnchorBench            = true
"""


def write_submit(workdir, user, gen, classes):
    """classes: list of dicts with cpus, memory, disk, count and optional rank,
    requirements, limits (concurrency_limits), group (accounting_group), tag (+AnchorClass)."""
    with open(os.path.join(workdir, "%s.sub" % user), "w") as f:
        f.write(SUB_HEAD % gen)
        for c in classes:
            f.write("\n# class %s\n" % c.get("tag", ""))
            f.write("request_cpus   = %d\nrequest_memory = %d\nrequest_disk   = %d\n"
                    % (c["cpus"], c["memory"], c["disk"]))
            f.write("rank           = %s\nrequirements   = %s\n" % (c.get("rank", ""), c.get("requirements", "")))
            f.write("concurrency_limits = %s\n" % c.get("limits", ""))
            if c.get("group"):
                f.write("accounting_group = %s\naccounting_group_user = %s\n" % (c["group"], user))
            f.write("+AnchorClass   = %s\n" % q(str(c.get("tag", ""))))
            f.write("queue %d\n" % c["count"])


def write_users(workdir, rows):
    """rows: (user, prio_factor, priority[, ceiling[, floor]]), '-' = leave alone."""
    with open(os.path.join(workdir, "users.tsv"), "w") as f:
        f.write("# user\tprio_factor\tpriority (RUP)\tceiling\tfloor (- = leave alone)\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")


def write_config(workdir, lines):
    with open(os.path.join(workdir, "negotiator.config"), "w") as f:
        f.write("".join(l + "\n" for l in lines))
