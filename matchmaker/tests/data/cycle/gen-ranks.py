#!/usr/bin/env python3
"""gen-ranks.py WORKDIR -- how the negotiator orders candidate slots: four independent
cases in one cycle. Each case has its own slots (START = TARGET.AnchorCase =?= "X") and its
own user, whose jobs carry +AnchorCase = "X" and rank = TARGET.JRank.
Negotiator: NEGOTIATOR_PRE_JOB_RANK = MY.PreRank, NEGOTIATOR_POST_JOB_RANK = MY.PostRank.

  A (bench01, 3 jobs): the manual's example (Tables 3.1/3.2 of "User Priorities and
    Negotiation"): slot1..slot5 @ranks-a with (PreRank, JRank, PostRank) = (100,1,10),
    (100,2,20), (100,2,30), (0,1,40), (200,1,50); the manual says slot5, slot3, slot2.
  B (bench02, 2 jobs): PRE_JOB_RANK values that differ below float precision:
    slot1 (100000001, post 3), slot2 (100000003, post 2), slot3 (100000005, post 1),
    slot4 (100000000, post 4); compared as doubles: slot3, slot2; as floats: 100000005 ->
    100000008, the others -> 100000000, so slot3 then slot4 (highest post).
  C (bench03, 2 jobs): slot1 without PreRank (undefined), slot2 PreRank -5, slot3 PreRank 0.
  D (bench04, 2 jobs): equal PreRank/PostRank; slot1 without JRank (job rank undefined),
    slot2 JRank -1, slot3 JRank 0.5.
Priority factors 1000.001 .. 1000.004."""
import sys
from scenario_common import base_slot, set_attrs, write_slots, write_submit, write_users, write_config

work = sys.argv[1]
CASES = {
    "A": [(100, 1, 10), (100, 2, 20), (100, 2, 30), (0, 1, 40), (200, 1, 50)],
    "B": [(100000001, 0, 3), (100000003, 0, 2), (100000005, 0, 1), (100000000, 0, 4)],
    "C": [(None, 0, 0), (-5, 0, 0), (0, 0, 0)],
    "D": [(0, None, 0), (0, -1, 0), (0, 0.5, 0)],
}
ads = []
for h, (case, slots) in enumerate(sorted(CASES.items())):
    host = "ranks-%s" % case.lower()
    for s, (pre, jrank, post) in enumerate(slots, 1):
        ad = base_slot(h, "slot%d@%s" % (s, host), s, 1, 4096, 20000000, len(slots),
                       4096 * len(slots), 20000000 * len(slots), len(slots),
                       start='TARGET.AnchorCase =?= "%s"' % case)
        set_attrs(ad, Machine='"%s"' % host, PostRank=repr(post))
        if pre is not None:
            set_attrs(ad, PreRank=repr(pre))
        if jrank is not None:
            set_attrs(ad, JRank=repr(jrank))
        ads.append(ad)
write_slots(work, ads)
G = "gen-ranks.py"
for i, (case, n) in enumerate((("A", 3), ("B", 2), ("C", 2), ("D", 2))):
    user = "bench0%d" % (i + 1)
    write_submit(work, user, G, [dict(tag=case, cpus=1, memory=1024, disk=1000000 + 1000 * i,
                                      count=n, rank="TARGET.JRank")])
    # +AnchorCase goes after the class lines (write_submit writes +AnchorClass)
    with open("%s/%s.sub" % (work, user)) as f:
        text = f.read()
    text = text.replace("queue %d" % n, '+AnchorCase    = "%s"\nqueue %d' % (case, n))
    with open("%s/%s.sub" % (work, user), "w") as f:
        f.write(text)
write_users(work, [("bench0%d" % i, "1000.00%d" % i, "-") for i in range(1, 5)])
write_config(work, ["NEGOTIATOR_PRE_JOB_RANK = MY.PreRank",
                    "NEGOTIATOR_POST_JOB_RANK = MY.PostRank"])
