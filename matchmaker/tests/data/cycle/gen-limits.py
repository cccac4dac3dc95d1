#!/usr/bin/env python3
"""gen-limits.py WORKDIR -- a pool for concurrency limits.

15 hosts x 8 static slots, 1 cpu / 4096 MB each (pool weight 120). Host 14 is Claimed by
bench03 (PREEMPTION_REQUIREMENTS stays False, so nothing preempts it); its running jobs
hold concurrency limits as a real startd publishes them (lower case, sorted, no spaces):
slot1 "sw_a", slot2 "sw_a", slot3 "lic.x", slot4 "sw_b:2", slot5 "lic.x:2,sw_a",
slots 6-8 none. In use before the cycle: sw_a 3, sw_b 2, lic.x 3.
Negotiator: SW_A_LIMIT = 5, SW_B_LIMIT = 7, CONCURRENCY_LIMIT_DEFAULT = 100,
CONCURRENCY_LIMIT_DEFAULT_LIC = 4.
Idle jobs (1 cpu, 1024 MB each):
  bench01: 15 x none, 10 x "sw_a", 10 x "sw_b:2" (the class without limits comes first:
           condor_submit leaves a later class with an empty concurrency_limits with the
           cluster ad's value, i.e. the first class's)
  bench02: 10 x "lic.x", 10 x "lic.y", 5 x "sw_a, lic.x"
  bench03: 5 x "SW_A" (upper case), 4 x "sw_b:0.5", 10 x "big:60", 3 x "other"
Priority factors 1000.001, 1000.002, 1000.003."""
import sys
from scenario_common import base_slot, claim, write_slots, write_submit, write_users, write_config

work = sys.argv[1]
ads = []
held = {1: "sw_a", 2: "sw_a", 3: "lic.x", 4: "sw_b:2", 5: "lic.x:2,sw_a"}
for h in range(15):
    for s in range(1, 9):
        ad = base_slot(h, "slot%d@wn%05d.anchor.invalid" % (s, h), s, 1, 4096, 20000000,
                       8, 8 * 4096, 8 * 20000000, 8, os_major=[9, 8, 12][h % 3])
        if h == 14:
            claim(ad, h, s, "bench03", "%d.%d" % (200, s - 1), 900 + 60 * s, limits=held.get(s))
        ads.append(ad)
write_slots(work, ads)
G = "gen-limits.py"
d = 1000000
write_submit(work, "bench01", G, [
    dict(tag="b1-none", cpus=1, memory=1024, disk=d, count=15),
    dict(tag="b1-sw_a", cpus=1, memory=1024, disk=d, count=10, limits="sw_a"),
    dict(tag="b1-sw_b2", cpus=1, memory=1024, disk=d, count=10, limits="sw_b:2")])
write_submit(work, "bench02", G, [
    dict(tag="b2-lic.x", cpus=1, memory=1024, disk=d, count=10, limits="lic.x"),
    dict(tag="b2-lic.y", cpus=1, memory=1024, disk=d, count=10, limits="lic.y"),
    dict(tag="b2-sw_a+lic.x", cpus=1, memory=1024, disk=d, count=5, limits="sw_a, lic.x")])
write_submit(work, "bench03", G, [
    dict(tag="b3-SW_A", cpus=1, memory=1024, disk=d, count=5, limits="SW_A"),
    dict(tag="b3-sw_b0.5", cpus=1, memory=1024, disk=d, count=4, limits="sw_b:0.5"),
    dict(tag="b3-big60", cpus=1, memory=1024, disk=d, count=10, limits="big:60"),
    dict(tag="b3-other", cpus=1, memory=1024, disk=d, count=3, limits="other")])
write_users(work, [("bench01", "1000.001", "-"), ("bench02", "1000.002", "-"),
                   ("bench03", "1000.003", "-")])
write_config(work, ["SW_A_LIMIT = 5", "SW_B_LIMIT = 7", "CONCURRENCY_LIMIT_DEFAULT = 100",
                    "CONCURRENCY_LIMIT_DEFAULT_LIC = 4"])
