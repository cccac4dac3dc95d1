#!/usr/bin/env python3
"""gen-groups.py WORKDIR [autoregroup] -- hierarchical group quotas on 100 unclaimed static 1-cpu slots
(13 hosts x 8, the last host with 4 slots).
Negotiator: GROUP_NAMES = group_a, group_b, group_b.sub1, group_c
  GROUP_QUOTA_group_a = 40, GROUP_ACCEPT_SURPLUS_group_a = True
  GROUP_QUOTA_DYNAMIC_group_b = 0.3, GROUP_QUOTA_DYNAMIC_group_b.sub1 = 0.5
  GROUP_QUOTA_group_c = 10 (no surplus)
With "autoregroup" (modelled on HTCondor's test job_hgq_autoregroup_basic_van, scaled up):
20 slots, GROUP_NAMES = group_x, group_y, GROUP_QUOTA_group_x = 5, GROUP_QUOTA_group_y = 3,
GROUP_ACCEPT_SURPLUS = False, GROUP_AUTOREGROUP = True, NEGOTIATOR_USE_SLOT_WEIGHTS = False,
NEGOTIATOR_CONSIDER_PREEMPTION = False, GROUP_SORT_EXPR putting group_y first, then
group_x, then <none>; jobs: bench01 12 in group_x, bench02 12 in group_y, bench03 4
without group.
Idle jobs (1 cpu, 1024 MB):
  bench01 60 in group_a; bench02 20 in group_b; bench03 30 in group_b.sub1;
  bench04 25 in group_c; bench05 30 without accounting group (<none>)."""
import sys
from scenario_common import base_slot, write_slots, write_submit, write_users, write_config

work = sys.argv[1]
autoregroup = sys.argv[2:] == ["autoregroup"]
ads = []
n = 0
for h in range(3 if autoregroup else 13):
    per = (8 if h < 2 else 4) if autoregroup else (8 if h < 12 else 4)
    for s in range(1, per + 1):
        ads.append(base_slot(h, "slot%d@wn%05d.anchor.invalid" % (s, h), s, 1, 4096, 20000000,
                             per, per * 4096, per * 20000000, per, os_major=[9, 8, 12][h % 3]))
write_slots(work, ads)
G = "gen-groups.py"
jobs = ((("bench01", "group_x", 12), ("bench02", "group_y", 12), ("bench03", None, 4))
        if autoregroup else
        (("bench01", "group_a", 60), ("bench02", "group_b", 20), ("bench03", "group_b.sub1", 30),
         ("bench04", "group_c", 25), ("bench05", None, 30)))
for i, (u, grp, cnt) in enumerate(jobs):
    write_submit(work, u, G, [dict(tag=u, cpus=1, memory=1024, disk=1000000 + 1000 * i,
                                   count=cnt, group=grp)])
write_users(work, [(u, "-", "-") for u, _, _ in jobs])
if autoregroup:
    write_config(work, ["GROUP_NAMES = group_x, group_y",
                        "GROUP_QUOTA_group_x = 5",
                        "GROUP_QUOTA_group_y = 3",
                        "GROUP_ACCEPT_SURPLUS = False",
                        "GROUP_AUTOREGROUP = True",
                        "NEGOTIATOR_USE_SLOT_WEIGHTS = False",
                        "NEGOTIATOR_CONSIDER_PREEMPTION = False",
                        'GROUP_SORT_EXPR = ifThenElse(AccountingGroup=?="group_x", 2, '
                        'ifThenElse(AccountingGroup=?="group_y", 1, 3.40282e+38))'])
    sys.exit(0)
write_config(work, ["GROUP_NAMES = group_a, group_b, group_b.sub1, group_c",
                    "GROUP_QUOTA_group_a = 40",
                    "GROUP_ACCEPT_SURPLUS_group_a = True",
                    "GROUP_QUOTA_DYNAMIC_group_b = 0.3",
                    "GROUP_QUOTA_DYNAMIC_group_b.sub1 = 0.5",
                    "GROUP_QUOTA_group_c = 10"])
