#!/usr/bin/env python3
"""gen-floor.py WORKDIR -- submitter floors and ceilings (condor_userprio -setfloor /
-setceiling) on a pool of 200 unclaimed static 1-cpu slots (25 hosts x 8, 4096 MB).
  bench01: factor 1000.001, ceiling 60, 150 idle jobs
  bench02: factor 1000.002, 150 idle jobs
  bench03: factor 1000, priority 50 (EUP 50000), floor 40, 100 idle jobs
  bench04: factor 1000, priority 5 (EUP 5000), no floor, 100 idle jobs
All jobs 1 cpu / 1024 MB, one class per user."""
import sys
from scenario_common import base_slot, write_slots, write_submit, write_users, write_config

work = sys.argv[1]
ads = []
for h in range(25):
    for s in range(1, 9):
        ads.append(base_slot(h, "slot%d@wn%05d.anchor.invalid" % (s, h), s, 1, 4096, 20000000,
                             8, 8 * 4096, 8 * 20000000, 8, os_major=[9, 8, 12][h % 3]))
write_slots(work, ads)
G = "gen-floor.py"
for u, n, disk in (("bench01", 150, 1000000), ("bench02", 150, 1001000),
                   ("bench03", 100, 1002000), ("bench04", 100, 1003000)):
    write_submit(work, u, G, [dict(tag=u, cpus=1, memory=1024, disk=disk, count=n)])
write_users(work, [("bench01", "1000.001", "-", "60", "-"), ("bench02", "1000.002", "-", "-", "-"),
                   ("bench03", "1000", "50", "-", "40"), ("bench04", "1000", "5", "-", "-")])
write_config(work, [])
