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
    functions, selections from non-ads, an ad defining the names with a
    meaning of their own), many of them quirks of libclassad
    found by the random cases;
  * RANDOM_CASES random expressions (seeded, so the same ones every run)
    over the three ads of RANDOM_ADS: every operator, literals of each
    kind, scoped and root names, ads and lists written in the expression,
    selections from them, calls of pure built-ins (HTCondor's own
    functions left out: libclassad lacks them under new semantics, see
    htcondor-layer in docs/divergences.md); the ones libclassad cannot
    parse are left out.
The first line is {"ads": [TEXT, ...]}, the context ads in new syntax; then
one JSON line per case and semantics:
{"semantics": "new"|"old", "ad": INDEX, "expr": TEXT,
 "external": [names] | null, "internal": [names] | null,
 "flatten": "value TEXT" | "expr TEXT" | "error" | null}
where null references mean libclassad could not determine them
(ValueError); "error" means flatten raised, and null means the expression
calls a function of the clock or chance (flattening calls it) and is not
recorded. TEXT is the canonical one-line form (repr).

It also writes divergences.jsonl: the cases where classad-rs decides
otherwise (DIVERGENCES below), one JSON line each:
{"tag": SECTION, "semantics": ..., "ad": TEXT, "expr": TEXT,
 "libclassad": {"external", "internal", "flatten"}, "ours": {same}}
where SECTION names the section of docs/divergences.md that explains it;
the test checks that classad-rs gives "ours" and that it differs from
"libclassad".
"""

import argparse
import gzip
import json
import os
import random
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

# Quirks of libclassad, each checked: logical operators turn numbers into
# booleans when flattening and are strict about both sides; functions are
# called on their arguments as written (`unparse`); a selection from a list
# flattens the selected values and is kept; an ad written in the expression
# has no enclosing scope but `.x` and `root` still name the ad; a lookup
# that finds nothing leaves the internal search in the scope it ended in;
# a reference to an ad leaves flattening in the scope it was found in.
QUIRK_AD = ("[ A = 1; B = 2; Cy = Cy; K = 1000000; I = 7; L6 = { [ q = 1 ] }; N1 = [ d = Cy ]; "
            "N2 = [ d = .Cy ]; N4 = [ d = { [ a = A ] } ]; Nested = [ b = Z + c; c = A ]; "
            "N3 = [ b = c + Z; c = A ]; Li = { A, B }; R = [ x = 1; y = Q ]; Q = I * 2; Fl = 0.1 ]")
QUIRK_EXPRS = [
    "0.0 || x", "0 || x", "x || 0", "x && -3", "x && 5", "-3 && x", "x && \"s\"", "x && K", "2.5 && x",
    "x || 2.5", "x && undefined", "x || error", "x && {}", "{} && x", "false && \"abc\"", "true || \"abc\"",
    "(false && \"abc\") >= y", "undefined || error", "unparse(I)", "unparse(Q)", "unparse(Fl)",
    "unparse(I) isnt error", "Li.x", "(Li.x)[1] >= y", "L6.q", "L6.N1", "L6.N2", "L6.N4", "{ [ a = A ] }.a",
    "{ [ a = A ] }.z", "[ x = 5; z = A ].B", "[ x = 5; z = A ].z", "[ p = .A; q = B ].p", "[ p = root.B ].p",
    "[ p = toplevel.Q ].p", "[ p = self ].p", "[ p = self; q = A ].p", "[ x = 1 ].y + A", "A + [ x = 1 ].y",
    "[ x = 1 ].y + B.C", "[ p = [ x = 5 ].Err + q; q = p + 1 ]", "[ p = [ x = 5 ].Err + q; q = 1 ]",
    "Nested.b", "N3.b", "N3.b + A", "[ x = 5 ].self ? x : B", "[ x = 5 ].self - A", "[ p = .A; q = p + 1 ]",
    "[ p = 1 << error | .B; q = p + 1 ]", "R.y", "R", "[ a = 1 ].root", "[ a = 1 ].Root + A",
    "TARGET.parent", "parent.parent + MY.root", "Und.self",
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
    try:
        expr = classad2.ExprTree(case["expr"])
    except Exception:
        # libclassad cannot parse it (`a ?: -b`): not a case.
        continue
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


RANDOM_SEED = 5
RANDOM_CASES = 1200
RANDOM_ADS = [
    EDGE_AD,
    "[ Memory = 2048; Disk = 10000; Arch = \"X86_64\"; OpSys = \"LINUX\"; "
    "Requirements = TARGET.RequestMemory <= Memory && TARGET.Arch == Arch; Rank = TARGET.Prio * 2 + KFlops / 1000; "
    "KFlops = 1000000; Start = Requirements && LoadAvg < 0.5; LoadAvg = 0.1; Name = \"slot1@x\"; Und = undefined; "
    "Err = error; I = 7; F = 2.5; S = \"abc\"; Bo = true; Li = {1, 2, 3}; Rec = [ x = 1; y = I ]; U = Und + 1 ]",
    "[ N = [ a = 1; b = a + X; c = parent.Q; d = [ e = b; f = root.Q; g = .LA ] ]; Q = 10; "
    "LA = { [ m = 1 ], [ m = Q ], [ m = Z ] }; R1 = [ x = Q ].x; R2 = [ x = W ].x; R3 = LA.m; R4 = N.d.e; "
    "U1 = unparse(Q); E1 = eval(\"Q + 1\"); IT = ifThenElse(Q > 5, TARGET.A, MY.B); MB = MY.Q + other.Q; "
    "ST = strcat(\"a\", Q); SZ = size(LA); LQ = LA[1].m; S2 = N.self.a; P2 = N.parent.Q; "
    "RL = [ u = Q; v = u + 1; w = parent.Q; y = z ]; Chain = N.d; RS = RL.v; Tern = Q > 5 ? X : 1; "
    "Lg = X && Q; Lg2 = Q || X; Cyc = Cyc2 + 1; Cyc2 = Cyc ]",
]
RANDOM_NAMES = [
    "A", "B", "C", "X", "Y", "Z", "Cycle1", "Me", "Nested", "L", "T", "M", "O", "Root", "Str", "Sel", "Sub",
    "Deep", "Lower", "Fn", "Cond", "Elvis", "Up", "Memory", "Disk", "Arch", "Requirements", "Rank", "KFlops",
    "Start", "LoadAvg", "Name", "Und", "Err", "I", "F", "S", "Bo", "Li", "Rec", "U", "N", "Q", "LA", "R1", "R2",
    "R3", "R4", "U1", "E1", "IT", "MB", "ST", "SZ", "LQ", "S2", "P2", "RL", "Chain", "RS", "Tern", "Lg", "Lg2",
    "Cyc", "m", "u", "v", "x", "y", "q", "a", "b",
]
RANDOM_SCOPES = ["MY", "TARGET", "other", "self", "parent", "root", "toplevel", "my", "target", "Nested", "Rec",
                 "N", "N.d", "RL", "LA", "Chain", "L", "Str", "Und", "[ x = 5; z = A ]"]
RANDOM_FUNCTIONS = [
    ("strcat", 2), ("size", 1), ("member", 2), ("ifThenElse", 3), ("isUndefined", 1), ("isError", 1), ("int", 1),
    ("real", 1), ("string", 1), ("toUpper", 1), ("toLower", 1), ("substr", 2), ("floor", 1), ("ceiling", 1),
    ("min", 2), ("max", 2), ("sum", 1), ("avg", 1), ("regexp", 2), ("strcmp", 2), ("eval", 1), ("unparse", 1),
    ("isString", 1), ("isInteger", 1), ("isList", 1), ("isClassAd", 1), ("pow", 2), ("length", 1), ("join", 2),
    ("quantize", 2), ("NoSuchFn", 1),
]
RANDOM_BINARY = ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "=?=", "=!=", "is", "isnt", "&&", "||",
                 "&", "|", "^", "<<", ">>", ">>>"]
RANDOM_LITERALS = ["1", "2", "0", "-3", "2.5", "0.0", "\"abc\"", "\"X86_64\"", "true", "false", "undefined",
                   "error", "{}", "{1, 2}", "[ ]"]


def random_cases():
    """(ad, expression) pairs, the same every run."""
    rng = random.Random(RANDOM_SEED)

    def reference():
        r = rng.random()
        if r < 0.55:
            return rng.choice(RANDOM_NAMES)
        if r < 0.9:
            return rng.choice(RANDOM_SCOPES) + "." + rng.choice(RANDOM_NAMES)
        return "." + rng.choice(RANDOM_NAMES)

    def expression(depth):
        if depth <= 0:
            return reference() if rng.random() < 0.6 else rng.choice(RANDOM_LITERALS)
        r = rng.random()
        sub = lambda: expression(depth - 1)
        if r < 0.15:
            return reference()
        if r < 0.22:
            return rng.choice(RANDOM_LITERALS)
        if r < 0.60:
            text = sub() + " " + rng.choice(RANDOM_BINARY) + " " + sub()
            return "(" + text + ")" if rng.random() < 0.5 else text
        if r < 0.67:
            return rng.choice(["-", "!", "~", "+"]) + "(" + sub() + ")"
        if r < 0.74:
            return sub() + " ? " + sub() + " : " + sub()
        if r < 0.78:
            return "(" + sub() + " ?: " + sub() + ")"
        if r < 0.88:
            name, arity = rng.choice(RANDOM_FUNCTIONS)
            return name + "(" + ", ".join(sub() for _ in range(arity)) + ")"
        if r < 0.92:
            return "{" + ", ".join(sub() for _ in range(rng.randint(0, 3))) + "}"
        if r < 0.95:
            return "[ p = " + sub() + "; q = " + sub() + " ].p"
        if r < 0.98:
            return "(" + sub() + ")[" + rng.choice(["0", "1", "\"x\"", sub()]) + "]"
        return "[ p = " + sub() + "; q = p + 1 ]"

    out, seen = [], set()
    while len(out) < RANDOM_CASES:
        text = expression(rng.randint(1, 5))
        if text not in seen:
            seen.add(text)
            out.append((rng.choice(RANDOM_ADS), text))
    return out


def cases():
    out = [(EDGE_AD, e) for e in EDGE_EXPRS] + [(QUIRK_AD, e) for e in QUIRK_EXPRS]
    out += [(RESERVED_AD, e) for e in RESERVED_EXPRS] + random_cases()
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


DEPTH_AD = "[ D0 = TARGET.Memory + X; " + "; ".join("D%d = D%d + D%d" % (i, i - 1, i - 1)
                                                   for i in range(1, 22)) + " ]"
RESERVED_AD = ("[ TARGET = [ Memory = 5; q = MY.x ]; MY = [ x = 1; y = TARGET.Memory ]; other = 3; "
               "parent = [ p = 1 ]; root = [ r = 2 ]; toplevel = Q2; Q2 = 7; CurrentTime = 100; self = [ s = 1 ]; "
               "ad = 4; Memory = 10; x = Memory + 1; my2 = my.x ]")
# An ad that defines the names with a meaning of their own.
RESERVED_EXPRS = [
    "TARGET.Memory", "TARGET.q", "MY.x", "MY.y", "my.x", "other + 1", "parent.p", "root.r", "toplevel", "toplevel + 1",
    "CurrentTime", "self.s", "ad", "x", "my2", "[ a = 1 ].parent", "[ a = 1 ].root.r", "[ a = .toplevel ].a",
    "TARGET.Memory + MY.x + other", "Und.parent", "MY.parent",
]
# (tag, semantics, ad, expression, what classad-rs gives).
DIVERGENCES = [
    # A cycle is ERROR here, UNDEFINED in libclassad: `self` (the attribute
    # Self, which names itself) is no ad to select from.
    ("circular-references", "new", "[ Self = self; A = 1 ]", "self.A",
     {"external": None, "internal": None, "flatten": "value error"}),
    # The whole ad (`toplevel`, as no scope below it defines the name)
    # searched in insertion order: `MY` (in TARGET's `MY.x`) is met before
    # `my` (in my2's `my.x`); libclassad's hash order meets `my` first.
    ("record-order", "new", RESERVED_AD, "self.toplevel",
     {"external": [], "internal": ["Memory", "MY", "Q2", "self", "TARGET"], "flatten": "expr self.toplevel"}),
    # 2^21 steps: past the step limit here; libclassad takes a second.
    ("reference-depth", "new", DEPTH_AD, "D21", {"external": None, "internal": None, "flatten": "error"}),
    # HTCondor's functions exist under new semantics too.
    ("htcondor-layer", "new", "[ L = \"a,b\" ]", "stringListMember(\"a\", L)",
     {"external": [], "internal": ["L"], "flatten": "value true"}),
]


def divergences(python, env):
    """The DIVERGENCES lines, with libclassad's answers."""
    lines = []
    for tag, semantics, ad, expr, ours in DIVERGENCES:
        stdin = json.dumps({"ads": [ad]}) + "\n" + json.dumps({"ad": 0, "expr": expr}) + "\n"
        out = subprocess.run([python, "-c", WORKER, semantics], input=stdin, env=env, check=True,
                             capture_output=True, text=True).stdout
        theirs = json.loads(out)
        lines.append(json.dumps({"tag": tag, "semantics": semantics, "ad": ad, "expr": expr,
                                 "libclassad": {k: theirs[k] for k in ("external", "internal", "flatten")},
                                 "ours": ours}))
    return lines


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
    # No timestamp in the gzip header: the same cases give the same file.
    with open(args.out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))
    print("%s: %d cases" % (args.out, len(lines)), file=sys.stderr)
    with open(os.path.join(os.path.dirname(args.out), "divergences.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(divergences(args.python, env)) + "\n")


if __name__ == "__main__":
    main()
