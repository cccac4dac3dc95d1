#!/usr/bin/env python3
"""A long differential run: N generated cases (any seed) evaluated live by
libclassad and by classad-rs, every disagreement classified by the rules
of ../conformance/classify_divergences.py.

    python3 run_long.py --seed 7 --count 100000 --oracle /tmp/oracle/bin/python \\
        --ours target/pyvenv/bin/python

ORACLE is an interpreter with `classad2` (pip install htcondor==25.14.1),
OURS one with `classad_rs` (./run-tests builds it into target/pyvenv).
Prints the counts per reason; the disagreements no rule explains are
written to --unexplained (default /tmp/differential-unexplained.jsonl) and
make the exit status 1: each is a bug to fix or a difference to document.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))
sys.path.insert(0, HERE)

import classify_divergences  # noqa: E402
import gen_cases  # noqa: E402
from generate_core import Worker  # noqa: E402

# Our side: the same cases through classad_rs, one JSON line in, one out.
OURS = r'''
import json, sys
import classad_rs
for line in sys.stdin:
    case = json.loads(line)
    try:
        my = classad_rs.ClassAd(case["my"]) if case["my"] else classad_rs.ClassAd()
        target = classad_rs.ClassAd(case["target"]) if case["target"] else None
        tree = classad_rs.ExprTree(case["expr"])
        value = repr(tree.simplify(my, target, semantics=case["semantics"]))
    except classad_rs.ClassAdException:
        value = "PARSE_ERROR"
    print(json.dumps({"ours": value}), flush=True)
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=random.randrange(1 << 30))
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--oracle", default=os.environ.get("ORACLE_PYTHON", "/tmp/oracle/bin/python"))
    ap.add_argument("--ours", default=os.path.join(HERE, "..", "..", "..", "..", "target", "pyvenv", "bin", "python"))
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--unexplained", default="/tmp/differential-unexplained.jsonl")
    args = ap.parse_args()

    cases_path = os.path.join(tempfile.mkdtemp(), "cases.txt")
    sys.argv = ["gen_cases.py", "--seed", str(args.seed), "--count", str(args.count), "--out", cases_path]
    gen_cases.main()
    import generate_core

    workers = {s: Worker(args.oracle, s, args.timeout) for s in ("new", "old")}
    for w in workers.values():
        w.start()
    ours = subprocess.Popen([args.ours, "-u", "-c", OURS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    counts, unexplained, total = {}, [], 0
    for semantics_list, kind, my, target, expr, _ in generate_core.read_cases(cases_path):
        for sem in semantics_list:
            case = {"kind": kind, "my": my, "target": target, "expr": expr}
            expected = workers[sem].evaluate(case)
            ours.stdin.write(json.dumps(dict(case, semantics=sem)) + "\n")
            ours.stdin.flush()
            value = json.loads(ours.stdout.readline())["ours"]
            total += 1
            if value == expected:
                continue
            record = dict(case, semantics=sem, expected=expected, ours=value)
            reasons = [reason for reason, test in classify_divergences.RULES if test(record)]
            if reasons:
                counts[reasons[0]] = counts.get(reasons[0], 0) + 1
            else:
                unexplained.append(record)
    for w in workers.values():
        w.stop()
    ours.stdin.close()
    ours.wait()
    print(f"seed {args.seed}: {total} evaluations, {sum(counts.values()) + len(unexplained)} disagreements")
    for reason, n in sorted(counts.items()):
        print(f"{n:7d}  {reason}")
    with open(args.unexplained, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in unexplained)
    print(f"{len(unexplained):7d}  unexplained (written to {args.unexplained})")
    sys.exit(1 if unexplained else 0)


if __name__ == "__main__":
    main()
