#!/usr/bin/env python3
"""gen-accountant.py WORKDIR -- slots for capture-accountant.sh: host 0 and host 1 with 8
static 1-cpu slots each, host 2 with 2 static 4-cpu slots. bench03 runs on slots 1-6 of
hosts 0 and 1 (12 slots, weighted 12), bench04 on both 4-cpu slots (weighted 8); slots 7-8
of hosts 0 and 1 are unclaimed. Negotiator config: PRIORITY_HALFLIFE = 60."""
import sys
from scenario_common import base_slot, claim, write_slots, write_config

work = sys.argv[1]
ads = []
for h in range(3):
    cpus, n = (1, 8) if h < 2 else (4, 2)
    for s in range(1, n + 1):
        ad = base_slot(h, "slot%d@wn%05d.anchor.invalid" % (s, h), s, cpus, 4096 * cpus,
                       20000000 * cpus, cpus * n, 4096 * cpus * n, 20000000 * cpus * n, n)
        if h < 2 and s <= 6:
            claim(ad, h, s, "bench03", "%d.%d" % (400 + h, s - 1), 1200)
        elif h == 2:
            claim(ad, h, s, "bench04", "%d.%d" % (400 + h, s - 1), 1200)
        ads.append(ad)
write_slots(work, ads)
write_config(work, ["PRIORITY_HALFLIFE = 60"])
