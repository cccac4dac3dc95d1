#!/usr/bin/env python3
"""extract.py SNAPDIR -- derive matches.tsv and summary.txt from SNAPDIR/cycle.log
(a NegotiatorLog excerpt of one HTCondor 23.9 negotiation cycle)."""
import collections, re, sys
d = sys.argv[1]
m_re = re.compile(r"Matched (\S+) (\S+) <[^>]*> preempting (\S+) <[^>]*> (\S+)")
r_re = re.compile(r"Rejected (\S+) (\S+) <[^>]*>: (.*)$")
matches, rej = [], []
spins = []
for line in open(f"{d}/cycle.log", errors="replace"):
    if (m := m_re.search(line)):
        matches.append(m.groups())
    elif (m := r_re.search(line)):
        rej.append(m.groups())
    elif "pie spin" in line.lower() or "Pie Spin" in line:
        spins.append(line.split(" ", 2)[-1].strip())
with open(f"{d}/matches.tsv", "w") as f:
    f.write("job\tsubmitter\tslot\tpreempting\n")
    for job, sub, pre, slot in matches:
        f.write(f"{job}\t{sub}\t{slot}\t{pre}\n")
with open(f"{d}/summary.txt", "w") as f:
    f.write(f"matches {len(matches)}\n")
    for s, n in sorted(collections.Counter(x[1] for x in matches).items()):
        f.write(f"matches_by_submitter\t{s}\t{n}\n")
    for job, sub, why in rej:
        f.write(f"rejected\t{job}\t{sub}\t{why}\n")
    for s in spins:
        f.write(f"log\t{s}\n")
