#!/usr/bin/env python3
"""gen-roundup.py WORKDIR -- submitter limits below the slot weight ("round up once per
pie spin"): 4 static slots on 4 hosts, Cpus 16, 16, 16 and 4 (SlotWeight = Cpus, pool
weight 52), 4 users with 3 idle 1-cpu jobs each, factors 1000.001 .. 1000.004, so each
user's limit is about 13, below a 16-cpu slot."""
import sys
from scenario_common import base_slot, write_slots, write_submit, write_users, write_config

work = sys.argv[1]
ads = []
for h, cpus in enumerate((16, 16, 16, 4)):
    ads.append(base_slot(h, "slot1@wn%05d.anchor.invalid" % h, 1, cpus, 2048 * cpus,
                         20000000 * cpus, cpus, 2048 * cpus, 20000000 * cpus, 1))
write_slots(work, ads)
for i in range(4):
    write_submit(work, "bench0%d" % (i + 1), "gen-roundup.py",
                 [dict(tag="u%d" % (i + 1), cpus=1, memory=1024, disk=1000000 + 1000 * i, count=3)])
write_users(work, [("bench0%d" % i, "1000.00%d" % i, "-") for i in range(1, 5)])
write_config(work, [])
