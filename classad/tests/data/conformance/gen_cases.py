#!/usr/bin/env python3
"""Write the generated (combinatorial) part of core_cases.txt.

Usage:
    python3 gen_cases.py [--cases core_cases.txt] [--matrix-semantics new|old|both]

Everything in core_cases.txt from the line GENERATED_MARKER (below) to the
end of the file is replaced; everything above it is hand-written and kept.
Standard library only; no oracle needed.  Run generate_core.py afterwards.

The binary-operator matrix and the precedence matrix are emitted under
"# semantics: new" by default: on libclassad 25.14.1 their results were
checked to be identical under old semantics (none of them looks up an
attribute), so recording them twice would only double the file.
"""

import argparse
import os

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATED_MARKER = "# ==== BEGIN GENERATED PART (gen_cases.py): do not edit below this line ===="

BINARY_OPS = ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=",
              "=?=", "=!=", "is", "isnt", "&&", "||", "&", "|", "^", "<<",
              ">>", ">>>"]

# One value of every type, with the interesting variants: the operand set
# of the binary-operator matrix.
MATRIX_VALUES = [
    "undefined", "error", "true", "false",
    "0", "1", "-7", "9223372036854775807",
    "0.0", "-0.0", "2.5", 'real("INF")', 'real("NaN")',
    '""', '"abc"', '"ABC"',
    "{1, 2}", "[a = 1]",
    'absTime("2020-01-01T00:00:00Z")', "relTime(60)",
]

# A larger set for unary operators, conditions, predicates and conversions.
ALL_VALUES = MATRIX_VALUES + [
    "-1", "2", "-9223372036854775808",
    "-2.5", "1e308", "5e-324", 'real("-INF")',
    '"10"', '"1.5"', '"true"', '"a b"',
    "{}", "{undefined}", "[]",
    'absTime("2020-01-01T00:00:00+01:00")', "relTime(-30.5)",
    'relTime("01:00")', "x",
]

TRUTH_VALUES = ["true", "false", "undefined", "error", "0", "1", "2.5", '"s"']

PREDICATES = ["isUndefined", "isError", "isString", "isInteger", "isReal",
              "isList", "isClassAd", "isBoolean", "isAbstime", "isReltime"]

CONVERSIONS = ["int", "real", "string", "bool", "floor", "ceiling", "round",
               "size"]


def section(title, semantics):
    return ["", "# " + "-" * 75, "# " + title, "# " + "-" * 75,
            "# semantics: " + semantics]


def generate(matrix_semantics):
    out = [GENERATED_MARKER]

    for op in BINARY_OPS:
        out += section("Binary operator %s x every pair of value types" % op,
                       matrix_semantics)
        for left in MATRIX_VALUES:
            for right in MATRIX_VALUES:
                out.append("%s %s %s" % (left, op, right))

    out += section("Unary operators on every type (operator applied to a "
                   "literal and to a parenthesized operand)", "both")
    for op in ["-", "+", "!", "~"]:
        for v in ALL_VALUES:
            out.append("%s%s" % (op, v))
            out.append("%s(%s)" % (op, v))

    out += section("Truth tables of && || ! (short-circuit and squashing)", "both")
    for op in ["&&", "||"]:
        for a in TRUTH_VALUES:
            for b in TRUTH_VALUES:
                out.append("%s %s %s" % (a, op, b))
    for a in TRUTH_VALUES:
        out.append("!%s" % a)

    out += section("Ternary, Elvis and ifThenElse with every condition type", "both")
    for v in ALL_VALUES:
        out.append('%s ? "T" : "F"' % v)
        out.append('%s ?: "E"' % v)
        out.append('ifThenElse(%s, "T", "F")' % v)

    out += section("Type predicates on every type", "both")
    for f in PREDICATES:
        for v in ALL_VALUES:
            out.append("%s(%s)" % (f, v))

    out += section("Conversion functions and size on every type", "both")
    for f in CONVERSIONS:
        for v in ALL_VALUES:
            out.append("%s(%s)" % (f, v))

    out += section("strcat, member, identity on every type", "both")
    for v in ALL_VALUES:
        out.append('strcat("<", %s, ">")' % v)
        out.append('member(%s, {0, 1, 2.5, "abc", true, undefined})' % v)
        out.append("%s == %s" % (v, v))
        out.append("%s is %s" % (v, v))
        out.append("{%s}[0]" % v)
        out.append("[v = %s].v" % v)

    out += section("Precedence and associativity of every pair of binary "
                   "operators: 6 op1 3 op2 2", matrix_semantics)
    for op1 in BINARY_OPS:
        for op2 in BINARY_OPS:
            out.append("6 %s 3 %s 2" % (op1, op2))

    out += section("Nesting limits of libclassad 25.14 (parser nesting about 165 "
                   "parentheses/lists/records/calls; evaluation depth about 400). "
                   "An implementation may choose other limits: see README.md",
                   "new")
    for n in [10, 100, 165, 166, 200]:
        out.append("(" * n + "1" + ")" * n)
        out.append("{" * n + "1" + "}" * n)
        out.append("[a = " * n + "1" + "]" * n)
        out.append("f(" * n + "1" + ")" * n)
    for n in [10, 100, 400, 401, 402, 500]:
        out.append("- " * n + "1")
        out.append("!" * n + "1")
        out.append(" + ".join(["1"] * n))
        out.append(" && ".join(["true"] * n))
        out.append("true ? " * n + "1" + " : 0" * n)
        out.append("x" + "[0]" * n)
        out.append("x" + ".b" * n)
        out.append(" ?: ".join(["x"] * n) + " ?: 1")
    for n in [497, 498]:
        out.append("1" + " ? 1 : 1" * n)

    out += section("Printing: every binary operator in several shapes", "both")
    for op in BINARY_OPS:
        tight = "" if op[0].isalpha() else op
        out.append("print\ta %s b" % op)
        if tight:
            out.append("print\ta%sb" % tight)
        out.append("print\t(a %s b) %s c" % (op, op))
        out.append("print\ta %s (b %s c)" % (op, op))
        out.append("print\ta %s b %s c" % (op, op))
        out.append("print\t-a %s !b" % op)
        out.append("print\t1 %s 2.5" % op)
        out.append('print\t"s" %s {1}' % op)
        out.append("print\tf(a %s b, c)" % op)
        out.append("print\t[x = a %s b]" % op)

    out += section("Printing: every value literal and unary form", "both")
    for v in ALL_VALUES:
        out.append("print\t%s" % v)
        out.append("print\t-%s" % v)
        out.append("print\t!(%s)" % v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=os.path.join(HERE, "core_cases.txt"))
    ap.add_argument("--matrix-semantics", default="new",
                    choices=["new", "old", "both"])
    args = ap.parse_args()

    with open(args.cases, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if GENERATED_MARKER in lines:
        lines = lines[:lines.index(GENERATED_MARKER)]
    while lines and lines[-1] == "":
        lines.pop()
    generated = generate(args.matrix_semantics)
    with open(args.cases, "w", encoding="utf-8") as f:
        f.write("\n".join(lines + [""] + generated) + "\n")
    print("wrote %d generated lines to %s" % (len(generated), args.cases))


if __name__ == "__main__":
    main()
