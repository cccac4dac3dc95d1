#!/usr/bin/env python3
"""Differential testing against libclassad: a grammar-directed generator of
expressions and ads.

Writes cases (in the format of ../conformance/core_cases.txt, one `json`
line each, both semantics) from a fixed seed: expressions with values of
every type (integers, reals, strings, booleans, UNDEFINED, ERROR, absolute
and relative times), lists, nested ads, references (unscoped, MY., TARGET.,
parent., into nested ads, through subscripts), operators and built-in
functions, evaluated alone, in a MY ad, or in a match of MY and TARGET.
Run the oracle over them with ../conformance/generate_core.py; the test
`differential_corpus_matches_libclassad` (tests/conformance.rs) compares
ours with what libclassad gave.

    python3 gen_cases.py [--seed 1] [--count 10000] [--out /tmp/cases.txt]
    python3 ../conformance/generate_core.py --python /tmp/oracle/bin/python \\
        --cases /tmp/cases.txt --out differential.jsonl

A long run (any seed and count, compared live) is `run_long.py` next to
this file. Only deterministic functions are generated: no random(), time(),
CurrentTime, or formatTime() of the current time.
"""

import argparse
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

NAMES = ["a", "b", "c", "x", "Memory", "Cpus", "Name", "Requirements", "Rank"]
SCOPES = ["MY.", "TARGET.", "parent.", "."]
UNARY = ["-", "+", "!", "~"]
BINARY = ["||", "&&", "|", "^", "&", "==", "!=", "=?=", "=!=", "is", "isnt", "<", "<=", ">", ">=",
          "<<", ">>", ">>>", "+", "-", "*", "/", "%"]
# Function name -> how many arguments to give (a choice among these).
FUNCTIONS = {
    "strcat": [0, 1, 2, 3], "substr": [2, 3], "size": [1], "member": [2], "identicalMember": [2],
    "regexp": [2, 3], "regexps": [3, 4], "ifThenElse": [3], "isUndefined": [1], "isError": [1],
    "isString": [1], "isInteger": [1], "isReal": [1], "isList": [1], "isClassAd": [1], "isBoolean": [1],
    "isAbstime": [1], "isReltime": [1], "int": [1], "real": [1], "string": [1], "bool": [1],
    "floor": [1], "ceiling": [1], "round": [1], "pow": [2], "quantize": [2], "sum": [1], "avg": [1],
    "min": [1], "max": [1], "join": [1, 2], "split": [1, 2], "toUpper": [1], "toLower": [1],
    "strcmp": [2], "stricmp": [2], "versioncmp": [2], "version_gt": [2], "version_in_range": [3],
    "stringListMember": [2, 3], "stringListSize": [1, 2], "stringListSum": [1, 2], "stringListIMember": [2, 3],
    "stringListsIntersect": [2, 3], "stringListSubsetMatch": [2, 3], "stringListRegexpMember": [2, 3],
    "anyCompare": [3], "allCompare": [3], "absTime": [1], "relTime": [1], "formatTime": [2],
    "splitUserName": [1], "splitSlotName": [1], "unparse": [1], "eval": [1], "sprintf": [1, 2, 3],
    "replace": [3], "replaceAll": [3], "countMatches": [2], "envV1ToV2": [1], "mergeEnvironment": [2],
    "lengthof": [1], "unknownFunction": [1],
}
STRING_CHARS = "ab AB.*^$[](){}|,:;-_/0123456789%sd\\\"\n\t"
FORMATS = ['"%d"', '"%s"', '"%5.2f"', '"%x"', '"%Y-%m-%d"', '"%H:%M"', '"%c"']


class Gen:
    def __init__(self, rng):
        self.rng = rng

    def choice(self, items):
        return self.rng.choice(items)

    def literal(self):
        r = self.rng.random()
        if r < 0.25:
            return str(self.choice([0, 1, 2, -1, 3, 7, 10, 100, 1024, 2**31, 2**62, -2**63 + 1]))
        if r < 0.40:
            return self.choice(["0.0", "1.5", "-2.25", "1e10", "3.0", "0.1", "1e300", "-0.0"])
        if r < 0.60:
            n = self.rng.randrange(0, 6)
            body = "".join(self.choice(STRING_CHARS) for _ in range(n))
            return '"' + body.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'
        if r < 0.70:
            return self.choice(["true", "false"])
        if r < 0.78:
            return self.choice(["undefined", "error"])
        if r < 0.84:
            return self.choice(['absTime("2020-01-02T03:04:05Z")', "absTime(0)", 'relTime("1:30")', "relTime(90)",
                                'absTime("2021-06-01T00:00:00+02:00")'])
        if r < 0.92:
            return '"' + self.choice(["a,b,c", "1, 2, 3", "x y", "8.0.1", "slot1@host", "user@domain", ""]) + '"'
        return self.choice(FORMATS)

    def reference(self):
        r = self.rng.random()
        name = self.choice(NAMES)
        if r < 0.55:
            return name
        if r < 0.85:
            return self.choice(SCOPES[:2]) + name
        return self.choice(SCOPES) + name

    def expr(self, depth):
        if depth <= 0:
            return self.literal() if self.rng.random() < 0.6 else self.reference()
        r = self.rng.random()
        sub = lambda: self.expr(depth - 1)
        if r < 0.15:
            return self.literal()
        if r < 0.27:
            return self.reference()
        if r < 0.34:
            return self.choice(UNARY) + self.group(sub())
        if r < 0.55:
            return self.group(sub()) + " " + self.choice(BINARY) + " " + self.group(sub())
        if r < 0.60:
            return self.group(sub()) + " ? " + self.group(sub()) + " : " + self.group(sub())
        if r < 0.62:
            return self.group(sub()) + " ?: " + self.group(sub())
        if r < 0.80:
            name = self.choice(sorted(FUNCTIONS))
            n = self.choice(FUNCTIONS[name])
            return name + "(" + ", ".join(sub() for _ in range(n)) + ")"
        if r < 0.87:
            return "{" + ", ".join(sub() for _ in range(self.rng.randrange(0, 4))) + "}"
        if r < 0.92:
            return self.ad(depth - 1)
        if r < 0.96:
            return self.group(sub()) + "." + self.choice(NAMES)
        return self.group(sub()) + "[" + self.expr(0) + "]"

    def group(self, text):
        return "(" + text + ")"

    def ad(self, depth):
        names = self.rng.sample(NAMES, self.rng.randrange(0, 4))
        return "[" + "; ".join(n + " = " + self.expr(max(depth, 0)) for n in names) + "]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--out", default="/tmp/cases.txt")
    args = ap.parse_args()
    gen = Gen(random.Random(args.seed))
    with open(args.out, "w", encoding="utf-8") as out:
        out.write(f"# generated by gen_cases.py --seed {args.seed} --count {args.count}\n# semantics: both\n")
        for _ in range(args.count):
            expr = gen.expr(gen.rng.randrange(1, 5))
            r = gen.rng.random()
            case = {"expr": expr, "my": None, "target": None}
            if r < 0.75:
                case["my"] = gen.ad(2)
            if r < 0.45:
                case["target"] = gen.ad(2)
            out.write("json\t" + json.dumps(case, ensure_ascii=False) + "\n")
    print(f"wrote {args.count} cases to {args.out}")


if __name__ == "__main__":
    main()
