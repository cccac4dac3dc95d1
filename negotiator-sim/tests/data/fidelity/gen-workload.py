#!/usr/bin/env python3
"""gen-workload.py -- write workload.tsv, the scripted submissions of the fidelity run.

Deterministic: the sleep times come from a seeded generator, so running this again
gives the same file.  Columns: batch name, submitting user, submission offset in
seconds after the run's start, and the batch's sleep times (seconds, comma-separated).
"""
import random

SEED = 20261128
# (batch, user, offset_s, jobs)
BATCHES = [
    ("alice-1", "alice", 0, 24),
    ("bob-1", "bob", 0, 16),
    ("dave-1", "dave", 240, 24),   # dave's priority factor is 2000 (twice the default)
    ("carol-1", "carol", 720, 20), # carol arrives 12 minutes in
    ("bob-2", "bob", 900, 10),     # bob comes back 15 minutes in
]

rng = random.Random(SEED)
with open("workload.tsv", "w") as out:
    out.write("# batch\tuser\toffset_s\tsleep_s (written by gen-workload.py, seed %d)\n" % SEED)
    for batch, user, offset, jobs in BATCHES:
        durs = [rng.randrange(60, 241, 10) for _ in range(jobs)]
        out.write("%s\t%s\t%d\t%s\n" % (batch, user, offset, ",".join(map(str, durs))))
