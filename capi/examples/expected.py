"""The lines the examples must print, from the Rust command-line tools'
answers on the same files: `classad analyze --json` (how many slots match
the job) and `negotiator-sim cycle --json` (the cycle's matches and
submitters). Usage: expected.py ANALYZE.json CYCLE.json"""
import json
import sys

analyze = json.load(open(sys.argv[1]))
cycle = json.load(open(sys.argv[2]))
print(f"matching: {analyze['matching']} of {analyze['machines']} slots")
print("pair by pair: the same")
for m in cycle["matches"]:
    print(f"match {m['job']} {m['slot']} {m['submitter']}")
for s in cycle["submitters"]:
    print(
        f"submitter {s['name']} matches={s['matches']} rejections={s['rejections']} "
        f"idle={s['idle_jobs']} stopped={s['stopped']}"
    )
print("from the files: the same matches")
