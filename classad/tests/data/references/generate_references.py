#!/usr/bin/env python3
"""Write references.jsonl.gz: libclassad's external and internal references
(HTCondor's Python bindings `externalRefs`/`internalRefs`, full names) and
flattened forms (`flatten`) of expressions in the context of ads.

Usage:
    python3 generate_references.py --python ORACLE_PYTHON

ORACLE_PYTHON can `import htcondor2, classad2` (see
../conformance/README.md). Each case runs under new semantics (classad2
alone) and old semantics (`import htcondor2` first), each in its own
process. Cases:
  * every distinct expression (not a literal) among the attributes of the
    pool sample's Machine ads, in the context of the first ad that has it;
  * Requirements and Rank of the test jobs (../matching/jobs.ads);
  * the hand-written edge cases below (cycles, nested ads, lists, scopes,
    functions, selections from non-ads).
The first line is {"ads": [TEXT, ...]}, the context ads in new syntax; then
one JSON line per case and semantics:
{"semantics": "new"|"old", "ad": INDEX, "expr": TEXT,
 "external": [names] | null, "internal": [names] | null,
 "flatten": "value TEXT" | "expr TEXT" | "error" | null}
where null references mean libclassad could not determine them
(ValueError); "error" means flatten raised, and null means the expression
calls a function of the clock or chance (flattening calls it) and is not
recorded. TEXT is the canonical one-line form (repr).
"""

import argparse
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
POOL = os.path.normpath(os.path.join(HERE, "../pool_sample.ads.gz"))
JOBS = os.path.normpath(os.path.join(HERE, "../matching/jobs.ads"))

EDGE_AD = ("[ A = B + 1; B = C * 2; C = X; Cycle1 = Cycle2; Cycle2 = Cycle1; Me = self.A; "
           "Nested = [ a = A; b = Z ]; L = { A, Y, [ q = B ] }; T = TARGET.Memory; M = MY.A; O = other.Disk; "
           "Root = .A; Str = \"x\"; Sel = Str.y; Sub = L[0]; Deep = Nested.a; DeepMissing = Nested.zz; "
           "Fn = strcat(A, W, TARGET.Name); Cond = A > 1 ? B : Q; Elvis = R ?: A; Time = CurrentTime - A; "
           "Up = parent.A; Lower = a + b + c ]")
EDGE_EXPRS = [
    "A", "B", "C", "Cycle1", "Me", "Nested", "Nested.a", "Nested.b", "L", "T", "M", "O", "Root", "Sel",
    "Sub", "Deep", "DeepMissing", "Fn", "Cond", "Elvis", "Time", "Up", "Lower", "A + B + NotThere",
    "TARGET.Memory >= A && TARGET.Arch == \"X86_64\"", "other.x + MY.B", "[ p = A; q = Unknown ].p",
    "{ A, B }[1]", "strcat(\"a\", \"b\")", "1 + 2", "X.Y.Z", "TARGET.Foo.Bar", "size(L) > N",
    "ifThenElse(A > 0, TARGET.Memory, Missing)", "Str.y", "isUndefined(Gone) || Gone", "self", "parent",
    "MY", "TARGET", ".Lower", "root.A", "toplevel.B", "Nested[\"a\"]", "eval(\"A\")",
    # Flattening: associative chains, logical shortcuts, conditionals, lists, records, calls.
    "x + 1 + 2", "1 + x + 2 + y", "x && false", "(x + 1) + 2", "x * 2 + 3", "x - 1 - 2", "a && b && true",
    "false || x || true", "{1, x, A}", "[a = A; b = x]", "x ? 1 : 2", "true ? x : y", "undefined ? 1 : 2",
    "size(x)", "size(\"ab\")", "x ?: 3", "undefined ?: x", "-x", "!(1 > 2)", "Nope(1)", "1 + 2 * x + 3",
    "A + x + B", "x + A * 2", "(A > 1) && x", "x || (A < 0)", "A && x", "x & 3 & A", "x | 1 | 2", "x ^ 5 ^ 5",
    "2 * x * 3 * y * 4", "x + y + 1", "1 + (x + 2)", "(1 + x) + (2 + y)", "x * (1 + 2) + A", "true && x && true",
    "x && true && y", "undefined && x", "x || undefined", "error && x", "x && error", "\"s\" + x + 1",
    "strcat(A, x)", "strcat(A, \"b\")", "{1, 2}[0] + x", "{x, 2}[1]", "T + 1", "M * 2", "Cond", "Elvis", "Fn",
    "A > 1 ? x + 1 + 2 : y", "x ? A : B", "(x)", "((1 + 2))", "-(1 + x)", "x == A", "A == x + 1",
    "x =?= undefined", "A is 3", "1.5 + x + 2.5", "x + 1.5 + 2", "member(A, {1, 2, 3})", "ifThenElse(x, A, B)",
]

WORKER = r'''
import json, sys
semantics = sys.argv[1]
if semantics == "old":
    import htcondor2
import classad2
ads = json.loads(sys.stdin.readline())["ads"]
parsed = [classad2.ClassAd(text) for text in ads]
for line in sys.stdin:
    case = json.loads(line)
    ad = parsed[case["ad"]]
    expr = classad2.ExprTree(case["expr"])
    out = {"semantics": semantics, "ad": case["ad"], "expr": case["expr"]}
    low = case["expr"].lower()
    if "time" in low or "random" in low:
        out["flatten"] = None
    else:
        try:
            flat = ad.flatten(expr)
            if isinstance(flat, classad2.ExprTree):
                out["flatten"] = "expr " + repr(flat)
            else:
                holder = classad2.ClassAd()
                holder["v"] = flat
                out["flatten"] = "value " + repr(holder.lookup("v"))
        except Exception:
            out["flatten"] = "error"
    for key, method in (("external", ad.externalRefs), ("internal", ad.internalRefs)):
        try:
            # The bindings join the names with commas and split them
            # again, so no names comes back as [""].
            out[key] = [name for name in method(expr) if name]
        except ValueError:
            out[key] = None
    print(json.dumps(out))
'''


def cases():
    out = [(EDGE_AD, e) for e in EDGE_EXPRS]
    # The oracle parses the pool sample; its ads in new syntax are the
    # context (written by the oracle itself, below).
    return out


def pool_cases(python, env):
    script = r'''
import gzip, json, sys
import classad2
seen = set()
for ad in classad2.parseAds(gzip.open(sys.argv[1], "rt").read(), classad2.ParserType.Old):
    if ad.get("MyType") != "Machine":
        continue
    text = repr(ad)
    for name in ad.keys():
        expr = ad.lookup(name)
        if not isinstance(expr, classad2.ExprTree):
            continue
        src = str(expr)
        literal = (src.startswith('"') or src in ("true", "false", "undefined", "error")
                   or src.replace(".", "").replace("-", "").replace("E+", "").isdigit())
        if src in seen or literal:
            continue
        seen.add(src)
        print(json.dumps({"ad": text, "expr": src}))
for ad in classad2.parseAds(open(sys.argv[2]).read()):
    for name in ("Requirements", "Rank"):
        if name in ad:
            print(json.dumps({"ad": repr(ad), "expr": str(ad.lookup(name))}))
'''
    out = subprocess.run([python, "-c", script, POOL, JOBS], env=env, check=True, capture_output=True,
                         text=True).stdout
    return [(c["ad"], c["expr"]) for c in map(json.loads, out.splitlines())]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=os.environ.get("ORACLE_PYTHON", "python3"))
    ap.add_argument("--out", default=os.path.join(HERE, "references.jsonl.gz"))
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("_CONDOR_")}
    env.update({"TZ": "UTC", "CONDOR_CONFIG": "ONLY_ENV"})
    all_cases = cases() + pool_cases(args.python, env)
    ads = []
    for ad, _ in all_cases:
        if ad not in ads:
            ads.append(ad)
    header = json.dumps({"ads": ads})
    stdin = header + "\n" + "".join(json.dumps({"ad": ads.index(ad), "expr": expr}) + "\n"
                                    for ad, expr in all_cases)
    lines = [header]
    for semantics in ("new", "old"):
        out = subprocess.run([args.python, "-c", WORKER, semantics], input=stdin, env=env, check=True,
                             capture_output=True, text=True).stdout
        lines.extend(out.splitlines())
    with gzip.open(args.out, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("%s: %d cases" % (args.out, len(lines)), file=sys.stderr)


if __name__ == "__main__":
    main()
