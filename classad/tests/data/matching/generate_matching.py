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
jobs_text, pool = sys.argv[1], sys.argv[2]
jobs = list(classad2.parseAds(open(jobs_text).read()))
machines = [ad for ad in classad2.parseAds(gzip.open(pool, "rt").read(), classad2.ParserType.Old)
            if ad.get("MyType") == "Machine"]
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
    ap.add_argument("--out", default=os.path.join(HERE, "pool_matches.jsonl"))
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("_CONDOR_")}
    env.update({"TZ": "UTC", "CONDOR_CONFIG": "ONLY_ENV"})
    out = subprocess.run([args.python, "-c", WORKER, os.path.join(HERE, "jobs.ads"), POOL],
                         env=env, check=True, capture_output=True, text=True).stdout
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(out)
    print("%s: %d pairs" % (args.out, out.count("\n")), file=sys.stderr)


if __name__ == "__main__":
    main()
