#!/usr/bin/env python3
"""Write pool_matches.jsonl: how libclassad matches jobs against every
machine ad of the pool sample.

Usage:
    python3 generate_matching.py --python ORACLE_PYTHON

ORACLE_PYTHON can `import htcondor2, classad2` (see
../conformance/README.md). Old semantics, TZ=UTC, CONDOR_CONFIG=ONLY_ENV.
For each job of jobs.ads and each ad of ../../../../../shared/data's pool
sample with MyType "Machine" (in file order, numbered from 0), one line:
{"job": J, "machine": M, "symmetric": bool, "job_accepts": bool,
 "machine_accepts": bool, "job_rank": text, "machine_rank": text}
where the ranks are libclassad's values (canonical text) of each ad's own
Rank evaluated in the match, or null when the ad has none.

The machines' START expressions compare CurrentTime with their glideins'
retirement times, long past, so no machine of the sample accepts a job.
pool_matches_refreshed.jsonl repeats the run on the machines "refreshed":
every machine ad that has GLIDEIN_ToRetire or GLIDEIN_ToDie gets
GLIDEIN_ToRetire = 4102444800 (2100-01-01) and GLIDEIN_ToDie =
4102531200 (a day later), the same rule tests/matching.rs applies.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
POOL = os.path.normpath(os.path.join(HERE, "../../../../../shared/data/pool_sample.ads.gz"))

WORKER = r'''
import gzip, json, sys
import htcondor2, classad2
jobs_text, pool, refresh = sys.argv[1], sys.argv[2], sys.argv[3] == "refresh"
jobs = list(classad2.parseAds(open(jobs_text).read()))
machines = [ad for ad in classad2.parseAds(gzip.open(pool, "rt").read(), classad2.ParserType.Old)
            if ad.get("MyType") == "Machine"]
if refresh:
    for ad in machines:
        if "GLIDEIN_ToRetire" in ad or "GLIDEIN_ToDie" in ad:
            ad["GLIDEIN_ToRetire"] = 4102444800
            ad["GLIDEIN_ToDie"] = 4102531200
def rank(ad, other):
    if "Rank" not in ad:
        return None
    return repr(ad.lookup("Rank").simplify(ad, other))
for j, job in enumerate(jobs):
    for m, machine in enumerate(machines):
        print(json.dumps({
            "job": j, "machine": m,
            "symmetric": bool(job.symmetricMatch(machine)),
            # a.matches(b): b's Requirements hold in a's context.
            "job_accepts": bool(machine.matches(job)),
            "machine_accepts": bool(job.matches(machine)),
            "job_rank": rank(job, machine),
            "machine_rank": rank(machine, job),
        }))
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=os.environ.get("ORACLE_PYTHON", "python3"))
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("_CONDOR_")}
    env.update({"TZ": "UTC", "CONDOR_CONFIG": "ONLY_ENV"})
    for name, mode in [("pool_matches.jsonl", "asis"), ("pool_matches_refreshed.jsonl", "refresh")]:
        out = subprocess.run([args.python, "-c", WORKER, os.path.join(HERE, "jobs.ads"), POOL, mode],
                             env=env, check=True, capture_output=True, text=True).stdout
        path = os.path.join(HERE, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(out)
        print("%s: %d pairs, %d symmetric matches" % (path, out.count("\n"), out.count('"symmetric": true')),
              file=sys.stderr)


if __name__ == "__main__":
    main()
