#!/usr/bin/env python3
"""Turn the conformance mismatches into divergences.jsonl, one documented reason each.

Usage (from the repository root):

    CLASSAD_CONFORMANCE_REPORT=/tmp/mismatch.jsonl cargo test -p classad --test conformance
    python3 classad/tests/data/conformance/classify_divergences.py /tmp/mismatch.jsonl [OUT]

OUT defaults to the divergences.jsonl next to this script; the differential
corpus passes its own (see ../differential/README.md).

Every mismatch between our result and libclassad's must match exactly one rule
below; each rule names a section of docs/divergences.md. A mismatch that no
rule covers is printed and the script exits 1: it is a bug to fix (or a new
deliberate difference, which then needs a rule and a paragraph in
docs/divergences.md). The rules look at the inputs only, never at our output,
so a regression in our output still fails the conformance test.
"""
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Inputs whose evaluation follows a circular reference (checked by hand).
# libclassad 25 gives UNDEFINED for the inner reference; we give ERROR.
CYCLIC = {
    # (MY ad, TARGET ad, expression); None = any expression in that context
    ("[a = a]", None, None), ("[a = b; b = a]", None, None), ("[a = b; b = c; c = a]", None, None),
    ("[a = a + 1]", None, None), ("[a = b + 1; b = a + 1]", None, None), ("[a = !a]", None, None),
    ("[a = -a]", None, None), ("[a = a ?: 5]", None, None), ("[a = isUndefined(a)]", None, None),
    ("[a = isError(a)]", None, None), ("[a = a =?= undefined]", None, None),
    ("[a = a is undefined ? 1 : 2]", None, None), ("[a = ifThenElse(isUndefined(a), 1, 2)]", None, None),
    ("[a = a || true]", None, None), ("[a = a && false]", None, None), ("[a = [b = parent.a.b]]", None, None),
    ("[a = [b = c; c = b]]", None, None), ("[x = [y = x.y]]", None, None), ("[a = self.a]", None, None),
    ("[a = MY.a]", None, None), ("[a = .a]", None, None), ("[a = root.a]", None, None),
    ("[a = eval(\"a\")]", None, None), ("[a = strcat(\"x\", a)]", None, None), ("[a = size(a)]", None, None),
    ("[a = 1; b = a + b]", None, None), ("[A0 = 0 ? e : A0]", None, None), ("[A0 = A0 ? e : A0]", None, None),
    ("[A0 = 1 ? A0 : e]", None, None), ("[A0 = false ? 1 : A0]", None, None),
    ("[A0 = ifThenElse(false, 1, A0)]", None, None), ("[a = b ?: a; b = undefined]", None, None),
    ("[a = b; b = a; c = a + 1]", None, None),
    ("[x = TARGET.y]", "[y = x]", None), ("[x = y]", "[y = x]", None), ("[a = TARGET.b]", "[b = TARGET.a]", None),
    ("[a = b]", "[b = a]", None), ("[a = TARGET.a]", "[a = TARGET.a]", None),
    ("[a = TARGET.b + 1]", "[b = TARGET.a + 1]", None),
    (None, None, "[a = a].a"), (None, None, "[a = b; b = a].a"), (None, None, "[A0 = 0 ? e : A0].A0"),
    (None, None, "[x = [y = x.y]].x.y"), (None, None, "[a = self.a].a"),
}


def cyclic(c):
    for my, target, expr in CYCLIC:
        if my == c["my"] and target == c["target"] and (expr is None or expr == c["expr"]):
            return True
    return False


# HTCondor's own functions (docs/divergences.md, htcondor-layer).
LAYER = r"\b(stringList\w*|split\w*|userMap|userHome|envV1ToV2|mergeEnvironment|argsToList|listToArgs|evalInEachContext|countMatches)\s*\("


def definitions_of(ad):
    """The `name = body` definitions of an ad's text and of the ads nested
    in it, split at the semicolons outside brackets and strings."""
    found = []
    text = ad.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return found
    depth, quote, start, parts = 0, None, 1, []
    for i, ch in enumerate(text[1:-1], 1):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ";" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:-1])
    for part in parts:
        name, eq, body = part.partition("=")
        name = name.strip()
        if eq and re.fullmatch(r"[A-Za-z_]\w*", name):
            found.append((name.lower(), body))
            for nested in re.findall(r"\[[^\[\]]*\]", body):
                found.extend(definitions_of(nested))
    return found


def refers_in_a_cycle(c):
    """Whether an attribute of the case's ads refers to itself, directly or
    through others (found from the text: every `name = ...` definition, its
    references by name, and a cycle among them). Coarse, for generated
    cases; `cyclic` lists the hand-written ones exactly."""
    definitions = {}
    for ad in (c["my"], c["target"], c["expr"]):
        for name, body in definitions_of(ad or ""):
            definitions.setdefault(name, []).append(body)
    edges = {name: {ref.lower() for body in bodies for ref in re.findall(r"[A-Za-z_]\w*", body)} & definitions.keys()
             for name, bodies in definitions.items()}

    def reaches(start, goal, seen):
        for nxt in edges.get(start, ()):
            if nxt == goal or nxt not in seen and (seen.add(nxt) or reaches(nxt, goal, seen)):
                return True
        return False

    return any(reaches(name, name, set()) for name in edges)


def uses(c, pattern):
    text = " ".join(t for t in (c["my"], c["target"], c["expr"]) if t)
    return re.search(pattern, text) is not None


BIG_INT = r"(?<![\d.eE])(-\s*)?(922337203685477580[89]|92233720368547758[1-9]\d|9223372036854775[89]\d\d|\d{20,})(?![\d.eE])"

# (reason = section of docs/divergences.md, predicate on the case)
RULES = [
    ("circular-references", cyclic),
    ("integer-literals", lambda c: c["expected"] in ("0", "true") and uses(c, r"0[xX][0-9a-fA-F]")
        or uses(c, BIG_INT) and c["ours"] == "PARSE_ERROR"),
    ("old-semantics-parsing", lambda c: c["semantics"] == "old" and c["expected"] in ("PARSE_ERROR", "error")
        and uses(c, r"(?<![\d.])0\d")),
    ("utf8-strings", lambda c: c["ours"] == "PARSE_ERROR" and uses(c, r"\\[23][0-7][0-7]")),
    ("reltime-literals", lambda c: uses(c, r"relTime\(\s*\\?\"") and not uses(c, r"relTime\(\s*\"(9223372036854775807|99999999999999999999)\"")),
    ("time-range", lambda c: uses(c, r"(absTime|relTime)\((-?\d{10,}|1e1\d|1e15|real\(\"-?(INF|NaN)\"\)|-?9223372036854775807|-9223372036854775808|\"(9223372036854775807|99999999999999999999)\")\)")
        or uses(c, r"relTime\(60\) / 0") or uses(c, r"\[-9223372036854775808\]")
        or "-24855+-3:-14:-8" in c["expected"]),
    ("abstime-literals", lambda c: uses(c, r"absTime\(\"(\d{4}|\d{4}-\d\d|1969-12-31T23:59:59Z)\"\)")),
    ("record-order", lambda c: re.sub(r"\s", "", c["expected"]) != re.sub(r"\s", "", c["ours"])
        and sorted(re.sub(r"[\s\[\];]", "", c["expected"])) == sorted(re.sub(r"[\s\[\];]", "", c["ours"]))
        and "=" in c["expected"]),
    ("quoted-selection", lambda c: uses(c, r"\.'[^']*'") and c["expected"].replace("'", "") == c["ours"].replace("'", "")
        or uses(c, r"unparse\(y\)") and c["my"] and ".'a b'" in c["my"]),
    ("match-scope", lambda c: c["target"] is not None
        and re.fullmatch(r"root\.x|\.x|parent|toplevel|toplevel\.LEFT|parent\.ad", c["expr"]) is not None),
    ("out-of-range-conversions", lambda c: c["expected"] == "-9223372036854775808"
        and uses(c, r"^(int|floor|ceiling|round)\(")),
    ("subscript-scope", lambda c: uses(c, r"\[a = \[b = 2\]\]\[\"a\"\]\)?\.b")),
    ("double-dot", lambda c: uses(c, r"\.\.")),
    ("nesting-limits", lambda c: len(c["expr"]) > 300 and (c["expected"] == "PARSE_ERROR" or c["expected"].startswith("EXCEPTION")
        or c["expected"] == "error" and c["ours"] == "undefined")),
    ("eval-recursion", lambda c: c["expected"].startswith("EXCEPTION") and uses(c, r"eval\(a\)")),
    ("abstime-years", lambda c: re.sub(r"absTime\(\"0+(\d)", r'absTime("\1', c["ours"]) == c["expected"]),
    # Rules for the generated (differential) corpus, after the exact ones.
    ("htcondor-layer", lambda c: c["semantics"] == "new" and uses(c, LAYER)),
    # A cycle's inner reference is UNDEFINED there and ERROR here, which the
    # rest of the expression may turn into anything; ours then has an ERROR
    # in it, or `is`/`isnt`/`=?=`/`=!=` made booleans of it.
    ("circular-references", lambda c: refers_in_a_cycle(c)
        and ("error" in c["ours"] or c["expected"] == "undefined"
             or uses(c, r"=\?=|=!=|\bisn?t?\b|\bis(Error|Undefined)\("))),
    ("libclassad-crashes", lambda c: c["expected"].startswith("CRASH")),
    ("time-range", lambda c: uses(c, r"\b(absTime|relTime)\(\s*-?1e\d{2,3}\)")),
    ("out-of-range-conversions", lambda c: "-9223372036854775808" in c["expected"]
        and uses(c, r"\b(int|floor|ceiling|round)\(") and uses(c, r"\b1e\d{2,3}\b")
        or uses(c, r"\[\s*-?\d{10,}\s*\]")
        or uses(c, r"\)\[\s*[A-Za-z_]\w*\s*\]") and uses(c, r"(?<![\d.])\d{10,}(?![\d.])")),
    # Functions that compare the text of an ad see its attributes in
    # libclassad's order.
    ("record-order", lambda c: uses(c, r"\b(versioncmp|version_\w+|strcmp|stricmp)\(\s*\[")),
    ("match-scope", lambda c: c["target"] is not None and uses(c, r"(^|[\s(\[{,!~+*/%<>=&|^?:-])\.[A-Za-z_]|\broot\.")),
    ("time-strings", lambda c: uses(c, r"\b(absTime|relTime)\((?!\s*\"|\s*-?\d|\s*\))")),
    ("abstime-literals", lambda c: uses(c, r"absTime\(\"(?!\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)")),
    ("projection-scope", lambda c: uses(c, r"\)\.[A-Za-z_]") and "undefined" in c["expected"]),
]


def main():
    report = Path(sys.argv[1])
    # The corpus's folder: this one, or another corpus's (the differential one).
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "divergences.jsonl"
    divergences, unexplained = [], []
    for line in report.read_text().splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        reasons = [reason for reason, test in RULES if test(case)]
        if not reasons:
            unexplained.append(case)
            continue
        record = {k: case[k] for k in ("semantics", "kind", "my", "target", "expr")}
        record["libclassad"] = case["expected"]
        record["ours"] = case["ours"]
        record["reason"] = reasons[0]
        divergences.append(record)
    out.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in divergences))
    counts = {}
    for d in divergences:
        counts[d["reason"]] = counts.get(d["reason"], 0) + 1
    for reason, n in sorted(counts.items()):
        print(f"{n:5d}  {reason}")
    print(f"{len(divergences)} divergences written to {out}")
    if unexplained:
        print(f"\n{len(unexplained)} mismatches no rule explains:")
        for c in unexplained:
            print(json.dumps(c, ensure_ascii=False)[:400])
        sys.exit(1)


if __name__ == "__main__":
    main()
