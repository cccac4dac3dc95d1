#!/usr/bin/env python3
"""gen-pslot-mixed.py WORKDIR -- partitionable slots (default consumption policy) that
already have claimed dynamic slots, as a busy 23.9 pool looks, with priority preemption on
(PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2).

6 hosts of 16 cpus / 32768 MB. On each host two dynamic slots are Claimed: slot1_1 (4 cpus,
8192 MB) and slot1_2 (2 cpus, 4096 MB), by bench03 on hosts 0-4 and by bench02 on host 5;
the p-slot slot1 advertises what is left (10 cpus, 20480 MB) and lists its children in
the Child* attributes. Dynamic-slot ads carry what a real 23.9 startd publishes for them
(see real-startd-ads/claimed-dslot.ad: SlotType "Dynamic", DynamicSlot, ParentSlotId,
DSlotId, the consumption-policy attributes, WithinResourceLimits).
Users: bench01 factor 1000.001, 40 idle jobs of 2 cpus / 4096 MB; bench02 factor 1000.002,
30 idle jobs of 1 cpu / 2048 MB; bench03 factor 1000, priority 100 (EUP 100000), no idle
jobs. Pool weight (SlotWeight = Cpus on every ad): 6 x (10 + 4 + 2) = 96."""
import sys
from scenario_common import (base_slot, claim, partitionable, set_attrs, q, write_slots,
                             write_submit, write_users, write_config, CHILD_ATTRS, WRL_CP)

work = sys.argv[1]
ads = []
DSLOTS = [(1, 4, 8192), (2, 2, 4096)]
for h in range(6):
    host = "wn%05d.anchor.invalid" % h
    owner = "bench02" if h == 5 else "bench03"
    used_cpus = sum(c for _, c, _ in DSLOTS)
    used_mem = sum(m for _, _, m in DSLOTS)
    used_disk = sum(20000000 * c for _, c, _ in DSLOTS)
    total_disk = 20000000 * 16
    p = base_slot(h, "slot1@" + host, 1, 16 - used_cpus, 32768 - used_mem, total_disk - used_disk,
                  16, 32768, total_disk, 1 + len(DSLOTS), os_major=[9, 8, 12][h % 3])
    partitionable(p, True)
    children = {
        "ChildAccountingGroup": ['"%s@anchor.local"' % owner] * 2,
        "ChildActivity": ['"Busy"'] * 2,
        "ChildCpus": [str(c) for _, c, _ in DSLOTS],
        "ChildCurrentRank": ["0.0"] * 2,
        "ChildDisk": [str(20000000 * c) for _, c, _ in DSLOTS],
        "ChildDSlotId": [str(i) for i, _, _ in DSLOTS],
        "ChildEnteredCurrentState": ["1795589000"] * 2,
        "ChildGPUs": ["0"] * 2,
        "ChildMemory": [str(m) for _, _, m in DSLOTS],
        "ChildName": ['"slot1_%d@%s"' % (i, host) for i, _, _ in DSLOTS],
        "ChildRemoteOwner": ['"%s@anchor.local"' % owner] * 2,
        "ChildRemoteUser": ['"%s@anchor.local"' % owner] * 2,
        "ChildRetirementTimeRemaining": ["0"] * 2,
        "ChildState": ['"Claimed"'] * 2,
    }
    assert set(children) == set(CHILD_ATTRS)
    set_attrs(p, NumDynamicSlots=str(len(DSLOTS)),
              **{k: "{ " + ", ".join(v) + " }" for k, v in children.items()})
    ads.append(p)
    for i, cpus, mem in DSLOTS:
        d = base_slot(h, "slot1_%d@%s" % (i, host), 1, cpus, mem, 20000000 * cpus,
                      16, 32768, total_disk, 1 + len(DSLOTS), os_major=[9, 8, 12][h % 3])
        set_attrs(d, SlotType=q("Dynamic"), DynamicSlot="true", SlotTypeID="1", ParentSlotId="1",
                  DSlotId=str(i), Requirements="START && (WithinResourceLimits)",
                  WithinResourceLimits=WRL_CP, MachineResources=q("Cpus Memory Disk Swap GPUs"),
                  ConsumptionCpus="quantize(target.RequestCpus,{ 1 })",
                  ConsumptionDisk="quantize(target.RequestDisk,{ 1024 })",
                  ConsumptionGPUs="ifthenelse(target.RequestGPUs =?= undefined,0,target.RequestGPUs)",
                  ConsumptionMemory="quantize(target.RequestMemory,{ 128 })",
                  PslotRollupInformation="true")
        claim(d, h, i, owner, "%d.%d" % (500 + h, i - 1), 700 + 300 * i + 11 * h, group=True)
        ads.append(d)
write_slots(work, ads)
G = "gen-pslot-mixed.py"
write_submit(work, "bench01", G, [dict(tag="b1-2c", cpus=2, memory=4096, disk=1000000, count=40)])
write_submit(work, "bench02", G, [dict(tag="b2-1c", cpus=1, memory=2048, disk=1001000, count=30)])
write_users(work, [("bench01", "1000.001", "-"), ("bench02", "1000.002", "-"), ("bench03", "1000", "100")])
write_config(work, ["PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2"])
