"""Writes rules/*.xform here: rules files composed at random (seeded)
from the transform language's statements (SET, DEFAULT, EVALSET,
EVALMACRO, COPY, RENAME, DELETE and their regex forms, REQUIREMENTS,
variables), its conditionals (if, elif, else, endif over defined,
version, booleans and variables) and its macro functions ($INT, $REAL,
$STRING, $EVAL, $CHOICE, $SUBSTR, $ENV, file-name parts, $(MY.Attr),
defaults), to be run on every ad of jobs.ad (ten jobs with edge values:
undefined and error attributes, lists, nested ads, quotes, backslashes,
UTF-8, int64 limits, huge and tiny reals). record.sh records
condor_transform_ads's answers for each.

    python3 gen-rules.py [FILES]
"""
import os
import random
import sys

ATTRS = ["Owner", "AcctGroup", "RequestMemory", "RequestCpus", "RequestGpus", "Cmd", "Note", "Tags",
         "Nested", "JobUniverse", "WantGPU", "FooBar", "FooBaz", "Rank", "Requirements", "NoSuch"]
NEW = ["Made", "Copy1", "Renamed", "Extra", "Flag", "Total", "Label", "Orig"]
# (`Queue` is a keyword in HTCondor: `Queue = 1` does not read there.)
VARS = ["A", "B", "Site", "Qv", "N"]
# The share of lines that do not read (reached or in a branch not taken).
BAD_LINES = 0.03


def value(rng):
    """An expression to SET, DEFAULT or EVALSET."""
    a = rng.choice(ATTRS)
    v = rng.choice(VARS)
    return rng.choice([
        "1", "-7", "2.5", "true", "undefined", "error", '"text"', '"with $(A) in it"',
        f"{a}", f"MY.{a}", f"{a} * 2", f"{a} + 1", f'strcat({a}, "-x")', f"ifThenElse({a} > 1000, 1, 0)",
        f"$({v})", f'"$({v})"', f"$(MY.{a})", f'"$(MY.{a})"', f"$(MY.{a}:none)", f'"$({v}:dflt)"',
        # (`%03d` of a negative number is `-03`, which HTCondor's old
        # syntax reads as -3 and ours refuses: docs/divergences.md.)
        f"$INT({v})", f"$INT(N, %3d)", f'"$REAL(N, %.2f)"', f'"$STRING({v}, <%s>)"',
        # (`$EVAL(f(x))`: HTCondor's $EVAL ends at the first `)`:
        # divergences.md, transform-eval-parentheses.)
        f"$EVAL({a} * 3)", f'"$CHOICE(1, x, y, z)"', f'"$SUBSTR({v}, 1)"',
        f'"$Fnx(MY.Cmd)"', f'"$Fp(MY.Note)"', f"size({a})", f"isUndefined({a})", f"{a} =?= undefined",
        # (A nested ad in a variable prints with a raw newline in a
        # string, which condor_transform_ads writes and no reader reads:
        # divergences.md, transform-evalmacro-ads.)
        f'"[$ENV(CLASSAD_RS_UNSET:e)]"', "{1, 2, 3}", f"{a} ?: 5", "real(\"INF\")",
    ])


def condition(rng):
    a = rng.choice(ATTRS)
    v = rng.choice(VARS)
    return rng.choice([
        f"defined MY.{a}", f"! defined MY.{a}", f"defined {v}", "version >= 23.0", "version < 9.0",
        "true", "false", "0", "1", "yes", "no", f"$({v})", f"$({v}:true)",
    ])


def value_without(rng, target):
    """A value that does not refer to `target` itself: HTCondor 23.9.6
    fails to evaluate a circular reference where ours gives ERROR for it
    (docs/divergences.md, circular-references)."""
    while True:
        v = value(rng)
        if target.lower() not in v.lower():
            return v


def statement(rng, depth=0):
    a = rng.choice(ATTRS)
    n = rng.choice(NEW)
    v = rng.choice(VARS)
    kind = rng.random()
    target = rng.choice([a, n])
    if rng.random() < BAD_LINES:
        # A line that does not read, reached or skipped.
        return [rng.choice(["BOGUS line here", "SET", "COPY /a(/ b", "EVALSET X", "RENAME OnlyOne", "if",
                            "DELETE", "SET 1bad 2", "COPY A 9b", "TRANSFORM x y z"])]
    if kind < 0.18:
        return [f"SET {target} {value_without(rng, target)}"]
    if kind < 0.26:
        return [f"DEFAULT {target} {value_without(rng, target)}"]
    if kind < 0.38:
        return [f"EVALSET {target} {value_without(rng, target)}"]
    if kind < 0.44:
        return [f"EVALMACRO {v} {value(rng)}", f'SET {n} "$({v})"']
    if kind < 0.58:
        return [f"{v} = {rng.choice(['1', '42', 'east', '$(A)x', '$(MY.Owner)', '$(B:b)', '-3', '2.5', 'a b c'])}"]
    if kind < 0.64:
        return [f"{rng.choice(['COPY', 'RENAME'])} {a} {n}"]
    if kind < 0.68:
        return [f"DELETE {a}"]
    if kind < 0.76:
        return [rng.choice([
            r"COPY /^Request(.*)/ Orig\1", r"RENAME /^Foo(.*)/ Bar\1", "DELETE /^Foo/", r"COPY /(.*)Group$/ \1Grp",
            "DELETE /^request/i", r"RENAME /^(Note)$/ \1Old", r"COPY /^(R)equest(?=Mem)/ \1M",
            r"DELETE /^(F)oo(B)a\2?/", r"COPY /^(?!Req)(.*)Group$/ G\1",
        ])]
    if kind < 0.80 and depth == 0:
        req = rng.choice(['Owner == "alice"', "RequestMemory > 1000", "JobUniverse == 5", "RequestCpus", "NoSuch", "true"])
        return [f"REQUIREMENTS {req}"]
    if depth < 2:
        lines = [f"if {condition(rng)}"]
        for _ in range(rng.randint(1, 2)):
            lines += ["  " + s for s in statement(rng, depth + 1)]
        if rng.random() < 0.4:
            lines.append(f"elif {condition(rng)}")
            lines += ["  " + s for s in statement(rng, depth + 1)]
        if rng.random() < 0.5:
            lines.append("else")
            lines += ["  " + s for s in statement(rng, depth + 1)]
        lines.append("endif")
        return lines
    return [f"SET {n} {value(rng)}"]


def main():
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rng = random.Random(20261206)
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "rules")
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        os.remove(os.path.join(out, name))
    for k in range(files):
        lines = [f"# generated case {k:03d} (gen-rules.py)"]
        for _ in range(rng.randint(3, 10)):
            lines += statement(rng)
        with open(os.path.join(out, f"g{k:03d}.xform"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{out}: {files} rules files")


main()
