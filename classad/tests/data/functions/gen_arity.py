#!/usr/bin/env python3
"""Write arity.jsonl: which argument counts (0 to 7) libclassad accepts for
each built-in function, the oracle for `functions::arity`.

Usage (with the oracle's Python, which has the `htcondor` wheel):
    ORACLE_PYTHON gen_arity.py [--out arity.jsonl]

libclassad checks a call's argument count before anything else and gives
ERROR for a wrong one, while a right count with arguments of the wrong
type usually gives ERROR too. So a count counts as accepted when some
call with that many arguments is not ERROR: every function is called with
0 to 7 arguments drawn from ARGS (all the same, the first one different,
the first two different, the first three any), in the ad AD so that
`unparse(a)` has an attribute to show, under old semantics (`htcondor2`
imported first: HTCondor's layer of functions exists only there). Each
line: {"name", "accepts": [counts], "witnesses": {count: a call that is
not ERROR}}. The names are the signatures of
classad/src/functions/reference.md.
"""

import argparse
import itertools
import json
import os
import re
import sys

import htcondor2  # noqa: F401  (old semantics, HTCondor's functions)
import classad2

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "..", "..", "src", "functions", "reference.md")
AD = "[ a = b + 1; b = 2 ]"
ARGS = ["undefined", "1", '"a"', '"1"', '{ "a" }', "1.5", "true", '"a,b"', "[ a = 1 ]",
        "absTime(0)", "relTime(1)", "a"]
MAX = 7


def names():
    found = set()
    with open(REFERENCE, encoding="utf-8") as f:
        for line in f:
            if line.startswith("| `"):
                cell = line.split(" | ")[0]
                found.update(re.findall(r"`([A-Za-z_0-9]+)\(", cell))
    return sorted(found, key=str.lower)


def patterns(n):
    if n == 0:
        yield ()
        return
    for v in ARGS:
        yield (v,) * n
    for a, b in itertools.product(ARGS, repeat=2):
        yield (a,) + (b,) * (n - 1)
        if n >= 2:
            yield (a, b) + (b,) * (n - 2)
    if n >= 3:
        for a, b, c in itertools.product(ARGS, repeat=3):
            yield (a, b, c) + (c,) * (n - 3)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(HERE, "arity.jsonl"))
    out = parser.parse_args().out
    ad = classad2.ClassAd(AD)
    with open(out, "w", encoding="utf-8") as f:
        for name in names():
            witnesses = {}
            for n in range(MAX + 1):
                for args in patterns(n):
                    call = f"{name}({', '.join(args)})"
                    try:
                        value = classad2.ExprTree(call).eval(ad)
                    except classad2.ClassAdException as e:
                        # The binding cannot hand back some values
                        # (evaluation itself failing is what it says).
                        print(f"{call}: {e}", file=sys.stderr)
                        continue
                    if not (isinstance(value, classad2.Value) and value == classad2.Value.Error):
                        witnesses[n] = call
                        break
            f.write(json.dumps({"name": name, "accepts": sorted(witnesses), "witnesses": witnesses}) + "\n")


if __name__ == "__main__":
    main()
