#!/usr/bin/env python3
"""gen-preemption-rank.py WORKDIR -- startd-rank preemption by a submitter that is over its
fair share (spin 1 lets such a submitter take rank preemptions only), with
PREEMPTION_REQUIREMENTS left at its default False (no priority preemption).

10 hosts x 8 static 1-cpu slots (pool weight 80):
  hosts 0-2  Claimed by bench02, Rank = (TARGET.Owner =?= "bench02") * 10, CurrentRank 10
  hosts 3-5  Claimed by bench02, Rank 0
  hosts 6-7  Claimed by bench03 (not a submitter), Rank = (TARGET.Owner =?= "bench02") * 10,
             CurrentRank 0
  host  8    Claimed by bench01, Rank = (TARGET.Owner =?= "bench02") * 10, CurrentRank 0
  host  9    Unclaimed, Rank = (TARGET.Owner =?= "bench02") * 10
bench02 holds 48 of 80 (its fair share is 40), so its submitter limit is 0.
Idle jobs (1 cpu, 1024 MB): bench01 30, bench02 40. Factors 1000.001, 1000.002, bench03 1000."""
import sys
from scenario_common import base_slot, claim, write_slots, write_submit, write_users, write_config

work = sys.argv[1]
PREFER2 = '(TARGET.Owner =?= "bench02") * 10.0'
ads = []
for h in range(10):
    for s in range(1, 9):
        rank = PREFER2 if h in (0, 1, 2, 6, 7, 8, 9) else "0.0"
        ad = base_slot(h, "slot%d@wn%05d.anchor.invalid" % (s, h), s, 1, 4096, 20000000,
                       8, 8 * 4096, 8 * 20000000, 8, rank=rank, os_major=[9, 8, 12][h % 3])
        jid = "%d.%d" % (300 + h, s - 1)
        runtime = 600 + 97 * ((h * 8 + s) % 31)
        if h <= 2:
            claim(ad, h, s, "bench02", jid, runtime, current_rank=10.0)
        elif h <= 5:
            claim(ad, h, s, "bench02", jid, runtime)
        elif h <= 7:
            claim(ad, h, s, "bench03", jid, runtime)
        elif h == 8:
            claim(ad, h, s, "bench01", jid, runtime)
        ads.append(ad)
write_slots(work, ads)
G = "gen-preemption-rank.py"
write_submit(work, "bench01", G, [dict(tag="b1", cpus=1, memory=1024, disk=1000000, count=30)])
write_submit(work, "bench02", G, [dict(tag="b2", cpus=1, memory=1024, disk=1001000, count=40)])
write_users(work, [("bench01", "1000.001", "-"), ("bench02", "1000.002", "-"), ("bench03", "1000", "-")])
write_config(work, [])
