#!/usr/bin/env python3
"""gen-groups-tree.py WORKDIR [unweighted] -- a two-level group tree with static and dynamic
quotas, surplus accepted by some groups and not by others, and more demand than supply in
some groups and less in others.

Slots: 12 hosts x 8 one-cpu static slots and 3 hosts x 4 two-cpu static slots (108 slots,
slot weight 120), all unclaimed.
Groups (GROUP_NAMES = group_phys, group_phys.hep, group_phys.lep, group_chem, group_bio,
group_bio.genome, group_bio.protein):
  group_phys static 50 (no surplus); .hep static 30 (surplus); .lep static 15 (surplus)
  group_chem dynamic 0.2 (surplus)
  group_bio dynamic 0.3 (surplus); .genome dynamic 0.6 (no surplus); .protein dynamic 0.3 (surplus)
Default: NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = False, slot weights on.
With "unweighted": NEGOTIATOR_USE_SLOT_WEIGHTS = False (quotas count slots, allocations are
whole slots, fractions recovered round-robin), oversubscription left at its default (True),
GROUP_ACCEPT_SURPLUS = True with group_phys and group_bio.genome set to False.
Idle jobs (1 cpu, 1024 MB): bench01 60 in group_phys.hep; bench02 5 in group_phys.lep;
bench03 10 in group_phys; bench04 40 in group_chem; bench05 30 in group_bio.genome;
bench06 5 in group_bio.protein; bench07 20 without accounting group."""
import sys
from scenario_common import base_slot, write_slots, write_submit, write_users, write_config

work = sys.argv[1]
unweighted = sys.argv[2:] == ["unweighted"]
ads = []
for h in range(15):
    two = h >= 12
    per, cpus = (4, 2) if two else (8, 1)
    for s in range(1, per + 1):
        ads.append(base_slot(h, "slot%d@wn%05d.anchor.invalid" % (s, h), s, cpus, 4096 * cpus, 20000000,
                             per * cpus, per * cpus * 4096, per * 20000000, per, os_major=[9, 8, 12][h % 3]))
write_slots(work, ads)
G = "gen-groups-tree.py"
jobs = (("bench01", "group_phys.hep", 60), ("bench02", "group_phys.lep", 5), ("bench03", "group_phys", 10),
        ("bench04", "group_chem", 40), ("bench05", "group_bio.genome", 30), ("bench06", "group_bio.protein", 5),
        ("bench07", None, 20))
for i, (u, grp, cnt) in enumerate(jobs):
    write_submit(work, u, G, [dict(tag=u, cpus=1, memory=1024, disk=1000000 + 1000 * i,
                                   count=cnt, group=grp)])
write_users(work, [(u, "-", "-") for u, _, _ in jobs])
common = ["GROUP_NAMES = group_phys, group_phys.hep, group_phys.lep, group_chem, group_bio, "
          "group_bio.genome, group_bio.protein",
          "GROUP_QUOTA_group_phys = 50",
          "GROUP_QUOTA_group_phys.hep = 30",
          "GROUP_QUOTA_group_phys.lep = 15",
          "GROUP_QUOTA_DYNAMIC_group_chem = 0.2",
          "GROUP_QUOTA_DYNAMIC_group_bio = 0.3",
          "GROUP_QUOTA_DYNAMIC_group_bio.genome = 0.6",
          "GROUP_QUOTA_DYNAMIC_group_bio.protein = 0.3"]
if unweighted:
    write_config(work, common + ["NEGOTIATOR_USE_SLOT_WEIGHTS = False",
                                 "GROUP_ACCEPT_SURPLUS = True",
                                 "GROUP_ACCEPT_SURPLUS_group_phys = False",
                                 "GROUP_ACCEPT_SURPLUS_group_bio.genome = False"])
else:
    write_config(work, common + ["NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = False",
                                 "GROUP_ACCEPT_SURPLUS_group_phys.hep = True",
                                 "GROUP_ACCEPT_SURPLUS_group_phys.lep = True",
                                 "GROUP_ACCEPT_SURPLUS_group_chem = True",
                                 "GROUP_ACCEPT_SURPLUS_group_bio = True",
                                 "GROUP_ACCEPT_SURPLUS_group_bio.protein = True"])
