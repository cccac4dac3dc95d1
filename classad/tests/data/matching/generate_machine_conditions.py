#!/usr/bin/env python3
"""Write machine_conditions_refreshed.jsonl: for each test job, the
conditions of the machines' Requirements that reject it, by libclassad.

Usage:
    python3 generate_machine_conditions.py --python ORACLE_PYTHON [--pool POOL]

ORACLE_PYTHON can `import classad2` (the `htcondor` wheel from PyPI).
POOL is the pool sample (default: ../pool_sample.ads.gz). TZ=UTC,
CONDOR_CONFIG=ONLY_ENV. The machines are the ads with MyType "Machine",
"refreshed" as in pool_matches_refreshed.jsonl (GLIDEIN_ToRetire =
4102444800, GLIDEIN_ToDie = 4102531200 where either is set), so that their
START does not reject everything for being past retirement.

For each job of jobs.ads (numbered from 0) one line:
{"job": J, "rejected_by_machine": N, "conditions": [[TEXT, COUNT], ...]}
where N counts the machines the job accepts (its Requirements true with
the machine as TARGET) that reject it (their Requirements not true with the
job as TARGET), and for those machines each condition of their
Requirements (libclassad's text) with the number of them on which it is
not true. A machine's conditions are the operands of the top-level `&&` of
its Requirements, outer parentheses removed, where an operand that names
one of the machine's attributes (`START`, `MY.WithinResourceLimits`) whose
value is an expression (not a literal) is replaced by that expression's
conditions, recursively (as `classad analyze` and `condor_q
-better-analyze:reverse` unfold them). The splitting works on libclassad's
own text of each expression; whether a condition holds is libclassad's
answer, with the condition put in place of the machine's Requirements.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
POOL = os.path.normpath(os.path.join(HERE, "../pool_sample.ads.gz"))

WORKER = r'''
import copy, gzip, json, re, sys
import classad2
jobs_text, pool = sys.argv[1], sys.argv[2]
jobs = list(classad2.parseAds(open(jobs_text).read()))
machines = [ad for ad in classad2.parseAds(gzip.open(pool, "rt").read(), classad2.ParserType.Old)
            if ad.get("MyType") == "Machine"]
for ad in machines:
    if "GLIDEIN_ToRetire" in ad or "GLIDEIN_ToDie" in ad:
        ad["GLIDEIN_ToRetire"] = 4102444800
        ad["GLIDEIN_ToDie"] = 4102531200

def split_and(text):
    """The operands of the top-level && of an expression's text."""
    parts, depth, start, i, quote = [], 0, 0, 0, None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith("&&", i):
            parts.append(text[start:i])
            start = i + 2
            i += 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]

def strip_parens(text):
    """text without parentheses around all of it."""
    while text.startswith("(") and text.endswith(")"):
        depth, quote, whole = 0, None, True
        i = 0
        while i < len(text):
            c = text[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0 and i != len(text) - 1:
                    whole = False
                    break
            i += 1
        if not whole:
            break
        text = text[1:-1].strip()
    return text

NAME = re.compile(r"^(?:MY\.)?([A-Za-z_][A-Za-z0-9_]*)$", re.IGNORECASE)

def conditions(machine, text, path=()):
    out = []
    for part in split_and(strip_parens(text)):
        inner = strip_parens(part)
        if len(split_and(inner)) > 1:
            out.extend(conditions(machine, inner, path))
            continue
        m = NAME.match(inner)
        name = m.group(1) if m else None
        if (name and name in machine and isinstance(machine[name], classad2.ExprTree)
                and name.lower() not in path and len(path) < 64):
            out.extend(conditions(machine, str(machine.lookup(name)), path + (name.lower(),)))
        else:
            out.append(part)
    return out

for j, job in enumerate(jobs):
    rejecting, counts = 0, {}
    for machine in machines:
        # a.matches(b): b's Requirements hold with b as MY and a as TARGET.
        if not machine.matches(job) or job.matches(machine):
            continue
        rejecting += 1
        seen = set()
        for text in conditions(machine, str(machine.lookup("Requirements"))):
            if text in seen:
                continue
            seen.add(text)
            probe = copy.deepcopy(machine)
            probe["Requirements"] = classad2.ExprTree(text)
            if not job.matches(probe):
                counts[text] = counts.get(text, 0) + 1
    print(json.dumps({"job": j, "rejected_by_machine": rejecting,
                      "conditions": sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))}))
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=os.environ.get("ORACLE_PYTHON", "python3"))
    ap.add_argument("--pool", default=POOL)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("_CONDOR_")}
    env.update({"TZ": "UTC", "CONDOR_CONFIG": "ONLY_ENV"})
    out = subprocess.run([args.python, "-c", WORKER, os.path.join(HERE, "jobs.ads"), args.pool],
                         env=env, check=True, capture_output=True, text=True).stdout
    path = os.path.join(HERE, "machine_conditions_refreshed.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(out)
    print("%s: %d jobs" % (path, out.count("\n")), file=sys.stderr)


if __name__ == "__main__":
    main()
