#!/usr/bin/env python3
"""gen-preemption.py WORKDIR [nopreempt] -- a 200-slot pool where most slots are Claimed, for a cycle
with priority and startd-rank preemption (PREEMPTION_REQUIREMENTS = HTCondor's classic
`RemoteUserPrio > SubmitterUserPrio * 1.2`).

25 hosts x 8 static slots; per-slot Cpus [1, 2, 1, 4][host % 4], Memory 4096 MB per cpu.
  hosts  0-2   Unclaimed
  hosts  3-14  Claimed by bench03 (EUP 500000: preemptible by priority); AccountingGroup
               published on even hosts only
  hosts 15-17  Claimed by bench03, startd Rank = (TARGET.Owner =?= "bench02") * 10 (rank
               preemption by bench02), CurrentRank 0
  host  18     Claimed by bench03, Rank = (TARGET.Owner =?= "bench03") * 5, CurrentRank 5
               (priority preemption blocked: new job's rank 0 < 5)
  hosts 19-20  Claimed by bench04 (EUP 550: PREEMPTION_REQUIREMENTS false for EUP 500 users)
  host  21     Claimed by bench03 with RetirementTimeRemaining = 600 (trimmed: no early
               preemption)
  host  22     Claimed by bench02 (the submitter itself)
  hosts 23-24  Unclaimed, Rank = (TARGET.Owner =?= "bench02") * 10
With "nopreempt" the same pool and jobs, but NEGOTIATOR_CONSIDER_PREEMPTION = False.
Users: bench01 factor 1000.001 (150 idle jobs), bench02 1000.002 (40), bench03 factor 1000
priority 500 (10 idle jobs), bench04 factor 1000 priority 0.55 (no jobs)."""
import sys
from scenario_common import (base_slot, claim, set_attrs, write_slots, write_submit,
                             write_users, write_config)

work = sys.argv[1]
ads = []
for h in range(25):
    cpus = [1, 2, 1, 4][h % 4]
    mem = 4096 * cpus
    disk = 20000000 * cpus
    for s in range(1, 9):
        name = "slot%d@wn%05d.anchor.invalid" % (s, h)
        rank = "0.0"
        if 15 <= h <= 17 or h >= 23:
            rank = '(TARGET.Owner =?= "bench02") * 10.0'
        elif h == 18:
            rank = '(TARGET.Owner =?= "bench03") * 5.0'
        ad = base_slot(h, name, s, cpus, mem, disk, cpus * 8, mem * 8, disk * 8, 8, rank=rank,
                       os_major=[9, 8, 12][h % 3])
        jid = "%d.%d" % (100 + h, s - 1)
        runtime = 600 + 97 * ((h * 8 + s) % 31)
        if 3 <= h <= 17:
            claim(ad, h, s, "bench03", jid, runtime, group=(h % 2 == 0))
        elif h == 18:
            claim(ad, h, s, "bench03", jid, runtime, current_rank=5.0)
        elif h in (19, 20):
            claim(ad, h, s, "bench04", jid, runtime)
        elif h == 21:
            claim(ad, h, s, "bench03", jid, runtime, retirement=600)
        elif h == 22:
            claim(ad, h, s, "bench02", jid, runtime)
        ads.append(ad)
write_slots(work, ads)
G = "gen-preemption.py"
write_submit(work, "bench01", G, [
    dict(tag="b1-small", cpus=1, memory=1024, disk=1000000, count=100),
    dict(tag="b1-two", cpus=2, memory=2048, disk=1001000, count=50, rank="KFlops")])
write_submit(work, "bench02", G, [
    dict(tag="b2-small", cpus=1, memory=1024, disk=1002000, count=30),
    dict(tag="b2-four", cpus=4, memory=4096, disk=1003000, count=10, rank="Memory")])
write_submit(work, "bench03", G, [
    dict(tag="b3-small", cpus=1, memory=1024, disk=1004000, count=10)])
write_users(work, [("bench01", "1000.001", "-"), ("bench02", "1000.002", "-"),
                   ("bench03", "1000", "500"), ("bench04", "1000", "0.55")])
conf = ["PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2"]
if sys.argv[2:] == ["nopreempt"]:
    conf.append("NEGOTIATOR_CONSIDER_PREEMPTION = False")
write_config(work, conf)
