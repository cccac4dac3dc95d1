#!/usr/bin/env python3
"""cycle-json.py NEGOTIATOR_CYCLE0_AD N_SLOTS N_JOBS -- one JSON line with the
LastNegotiationCycle*0 statistics the negotiator published for the captured cycle."""
import json, sys
out = {"bench": "htcondor-negotiation-cycle", "condor_version": "23.9.6",
       "n_slots": int(sys.argv[2]), "n_jobs": int(sys.argv[3])}
for line in open(sys.argv[1]):
    k, _, v = line.strip().partition(" = ")
    if v.startswith('"'):
        v = v[1:-1]
    else:
        for conv in (int, float):
            try:
                v = conv(v)
                break
            except ValueError:
                pass
    out[k] = v
print(json.dumps(out))
