#!/usr/bin/env python3
"""extract.py SNAPDIR -- derive matches.tsv and summary.txt from SNAPDIR/cycle.log (or
cycle.log.gz), a NegotiatorLog excerpt of one HTCondor 23.9 negotiation cycle.
summary.txt also counts the matches per pie spin ("Phase 4.N" starts spin N) and, with
group quotas, per allocation round, group negotiation ("Group G - BEGIN NEGOTIATION"),
spin and submitter (matches_by_group).
When the cycle preempted claimed slots, also writes preemptions.tsv (one row per
"Preempting" line) and counts the preemptions by kind in summary.txt: rank when the
slot's Rank of the new job is above the running job's startd rank, else priority."""
import collections, gzip, os, re, sys
d = sys.argv[1]
# "preempting N dslots" when ALLOW_PSLOT_PREEMPTION took several dynamic slots of a p-slot
m_re = re.compile(r"Matched (\S+) (\S+) <[^>]*> preempting (\d+ dslots|\S+)(?: \([^)]*\))? <[^>]*> (\S+)")
r_re = re.compile(r"Rejected (\S+) (\S+) <[^>]*>: (.*)$")
p_re = re.compile(r"Preempting (\S+) \(user prio=(\S+), startd rank=(\S+)\) on (\S+) "
                  r"for (\S+) \(user prio=(\S+), startd rank=(\S+)\)")
matches, rej = [], []
spins = []
preempts = []
spin_re = re.compile(r"Phase 4\.(\d+):")
round_re = re.compile(r"group quotas: allocation round (\d+)")
group_re = re.compile(r"Group (\S+) - BEGIN NEGOTIATION")
spin = 0
by_spin = collections.Counter()
hgq_round, hgq_group = 0, None
by_group = collections.Counter()
path = f"{d}/cycle.log"
log = open(path, errors="replace") if os.path.exists(path) else gzip.open(path + ".gz", "rt", errors="replace")
for line in log:
    if (m := spin_re.search(line)):
        spin = int(m.group(1))
    elif (m := round_re.search(line)):
        hgq_round = int(m.group(1))
    elif (m := group_re.search(line)):
        hgq_group = m.group(1)
    elif (m := m_re.search(line)):
        matches.append(m.groups())
        by_spin[(spin, m.group(2))] += 1
        if hgq_group is not None:
            by_group[(hgq_round, hgq_group, spin, m.group(2))] += 1
    elif (m := r_re.search(line)):
        rej.append(m.groups())
    elif (m := p_re.search(line)):
        preempts.append(m.groups())
    elif "pie spin" in line.lower() or "Pie Spin" in line:
        spins.append(line.split(" ", 2)[-1].strip())
with open(f"{d}/matches.tsv", "w") as f:
    f.write("job\tsubmitter\tslot\tpreempting\n")
    for job, sub, pre, slot in matches:
        f.write(f"{job}\t{sub}\t{slot}\t{pre}\n")
kinds = []
if preempts:
    # a "Preempting" line is printed just before its "Matched" line: pair them in order
    pre_matches = [m for m in matches if m[2] != "none"]
    with open(f"{d}/preemptions.tsv", "w") as f:
        f.write("job\tsubmitter\tslot\tvictim\tvictim_prio\tvictim_rank\tsubmitter_prio\tnew_rank\tkind\n")
        for (victim, vprio, vrank, slot, sub, sprio, nrank), m in zip(preempts, pre_matches):
            kind = "rank" if float(nrank) > float(vrank) else "priority"
            kinds.append((sub, kind))
            f.write(f"{m[0]}\t{sub}\t{slot}\t{victim}\t{vprio}\t{vrank}\t{sprio}\t{nrank}\t{kind}\n")
with open(f"{d}/summary.txt", "w") as f:
    f.write(f"matches {len(matches)}\n")
    for s, n in sorted(collections.Counter(x[1] for x in matches).items()):
        f.write(f"matches_by_submitter\t{s}\t{n}\n")
    for (sp, s), n in sorted(by_spin.items()):
        f.write(f"matches_by_spin\t{sp}\t{s}\t{n}\n")
    for (r, g, sp, s), n in sorted(by_group.items()):
        f.write(f"matches_by_group\t{r}\t{g}\t{sp}\t{s}\t{n}\n")
    if kinds:
        for (s, k), n in sorted(collections.Counter(kinds).items()):
            f.write(f"preemptions\t{s}\t{k}\t{n}\n")
    for job, sub, why in rej:
        f.write(f"rejected\t{job}\t{sub}\t{why}\n")
    for s in spins:
        f.write(f"log\t{s}\n")
