#!/usr/bin/env python3
"""Write functions_cases.txt, the inputs of the built-in function corpus.

Usage:
    python3 gen_cases.py [--out functions_cases.txt]

Each function group gets its ordinary arguments, edge cases (empty strings
and lists, negative and out-of-range offsets, Unicode) and hostile ones
(wrong arity, UNDEFINED and ERROR arguments, wrong types), combined as a
cross product. The file has the line format of
../conformance/core_cases.txt; everything is evaluated under old semantics
(HTCondor's layer of functions exists only there). Then run:

    python3 ../conformance/generate_core.py --python ORACLE_PYTHON \\
        --cases functions_cases.txt --out functions.jsonl

Standard library only; no oracle needed for this step.
"""

import argparse
import itertools
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# Arguments that every function gets tried with in some position.
HOSTILE = ["undefined", "error", "{ 1 }", "[ a = 1 ]"]


def call(name, args):
    return "%s(%s)" % (name, ", ".join(args))


def cross(name, *positions):
    return [call(name, list(args)) for args in itertools.product(*positions)]


def strings():
    cases = []
    texts = ['"abcdef"', '""', '"héllo wörld"', "123", "1.5", "true"] + HOSTILE
    offsets = ["0", "2", "-2", "6", "10", "-10", "1.9", '"1"', "undefined", "error"]
    lengths = ["0", "2", "-1", "-4", "10", "-10", "2.7", '"2"', "undefined", "error"]
    cases += cross("substr", texts, offsets)
    cases += cross("substr", ['"abcdef"', '"héllo"', "undefined"], offsets, lengths)
    cases += ["substr()", 'substr("abc")', 'substr("abc", 1, 1, 1)']

    compared = ['"abc"', '"ABC"', '"abd"', '"ab"', '""', "1", "1.5", "true"] + HOSTILE
    for name in ["strcmp", "stricmp"]:
        cases += cross(name, compared, compared)
        cases += [call(name, []), call(name, ['"a"']), call(name, ['"a"', '"a"', '"a"'])]

    cases += cross("strcat", compared, compared)
    cases += ["strcat()", 'strcat("a")', 'strcat("a", "b", "c", 1, 2.5)']
    for name in ["toUpper", "toLower", "size"]:
        cases += cross(name, texts + ['"MiXeD 123"', "{}", "[]", "{ 1, 2 }"])
        cases += [call(name, []), call(name, ['"a"', '"b"'])]
    return cases


def versions():
    cases = []
    versions = ['"1.2.3"', '"1.2.10"', '"1.10"', '"1.9"', '"01"', '"1"', '"001.2"',
                '"a"', '""', '"1.2.3a"', '"1.2.3b"', '"8.9.10"', '"10.0.0"', '"1.2.03"',
                '"1.2.3"', "1", "undefined", "error"]
    versions = list(dict.fromkeys(versions))
    cases += cross("versioncmp", versions, versions)
    cases += ["versioncmp()", 'versioncmp("1")', 'versioncmp("1", "2", "3")']
    fewer = ['"1.2.3"', '"1.2.10"', '"1.10"', '"01"', '"1"', '""', "1", "undefined", "error"]
    for name in ["versionGT", "versionGE", "versionLT", "versionLE", "versionEQ"]:
        cases += cross(name, fewer, fewer)
        cases += [call(name, ['"1"'])]
    bounds = ['"1.0"', '"1.2.3"', '"2.0"', '""', "undefined", "error", "1"]
    cases += cross("version_in_range", ['"1.2.3"', '"1.5"', '"2.0.1"', '"0.9"'], bounds, bounds)
    cases += cross("version_in_range", ["undefined", "error", "1", '""'], ['"1.0"'], ['"2.0"'])
    cases += ["version_in_range()", 'version_in_range("1", "1")', 'version_in_range("1", "1", "2", "3")']
    return cases


def string_lists():
    cases = []
    lists = ['"a,b,c"', '"a, b ,c"', '""', '" "', '"a"', '"A,B"', '",a,,b,"', '"1,2,3"',
             '"1, 2.5, 3"', '"x,1"', '"3, -4, 1e2"', '"a;b c"', "123", "undefined", "error", "{ \"a\" }"]
    delims = ['", "', '";"', '", ;"', '""', "undefined", "1"]
    for name in ["stringListSize", "stringListSum", "stringListAvg", "stringListMin", "stringListMax"]:
        cases += cross(name, lists)
        cases += cross(name, ['"a;b c"', '"1;2 3"', '"1,2"'], delims)
        cases += [call(name, []), call(name, ['"1"', '","', '"x"'])]
    members = ['"a"', '"A"', '"b"', '"d"', '""', "1", "2.5", "undefined", "error"]
    for name in ["stringListMember", "stringListIMember"]:
        cases += cross(name, members, lists)
        cases += cross(name, ['"b"', '"c"'], ['"a;b c"'], delims)
        cases += [call(name, []), call(name, ['"a"']), call(name, ['"a"', '"a"', '","', '"x"'])]
    subsets = ['"a,b"', '"b,A"', '""', '"a,d"', '"a"', "undefined", "error", "1"]
    supersets = ['"a,b,c"', '"A,B"', '""', '"a"', "undefined", "error", "1"]
    for name in ["stringListSubsetMatch", "stringListISubsetMatch", "stringListsIntersect"]:
        cases += cross(name, subsets, supersets)
        cases += cross(name, ['"a;b"'], ['"b c"'], delims)
        cases += [call(name, []), call(name, ['"a"'])]
    return cases


def lists():
    cases = []
    items = ["1", "1.0", '"a"', '"A"', "true", "undefined", "error", "{ 1 }", "[ a = 1 ]", "absTime(0)"]
    lists_ = ["{ 1, 2, 3 }", '{ "a", "b" }', "{ }", "{ undefined, 1 }", "{ error, 1 }", "{ 1.0, true }",
              "{ undefined }", "{ error }", "{ { 1 } }", "undefined", "error", "1", '"a"', "[ a = 1 ]"]
    for name in ["member", "identicalMember"]:
        cases += cross(name, items, lists_)
        cases += [call(name, []), call(name, ["1"]), call(name, ["1", "{ 1 }", "{ 1 }"])]
    numeric = ["{ 1, 2, 3 }", "{ 1, 2.5 }", "{ }", "{ undefined }", "{ 1, undefined, 3 }", "{ true }",
               "{ true, 2 }", "{ 1, \"a\" }", "{ 1, error }", "{ -4, 9, 0 }", "{ 2.5, 1 }",
               "{ 9223372036854775807, 1 }", "{ { 1 } }", "{ real(\"NaN\"), 1 }", "{ relTime(5), 1 }",
               "undefined", "error", "1", '"1,2"', "[ a = 1 ]"]
    for name in ["sum", "avg", "min", "max"]:
        cases += cross(name, numeric)
        cases += [call(name, []), call(name, ["{ 1 }", "{ 2 }"])]
    ops = ['"<"', '"<="', '"=="', '"!="', '">="', '">"', '"is"', '"isnt"', '"~"', '"LT"', "undefined", "error", "1"]
    compared = ["{ 1, 2, 3 }", '{ "a", "B" }', "{ }", "{ undefined, 1 }", "{ 1, undefined }", "{ error, 1 }",
                "{ 1, \"a\" }", "undefined", "error", "1"]
    for name in ["anyCompare", "allCompare"]:
        cases += cross(name, ops[:8], ["{ 1, 2, 3 }", "{ 1, undefined }", '{ "a", "B" }', "{ }"], ["2", '"b"', "undefined"])
        cases += cross(name, ['"<"', '"is"'] + ops[8:], compared, ["1", "error"])
        cases += [call(name, []), call(name, ['"<"', "{ 1 }"]), call(name, ['"<"', "{ 1 }", "1", "1"])]

    joined = ['","', '""', "undefined", "error", "1", '{ "a", "b" }', "{ }", '{ "a", undefined, 1, 2.5 }',
              '{ "", "a" }', "{ error }", '"a"', "[ a = 1 ]"]
    cases += cross("join", joined)
    cases += cross("join", joined, joined)
    cases += cross("join", ['", "', "undefined", "error"], ['"a"', '""', "undefined", "1"], ['"b"', "{ 1 }", "undefined", "error"])
    cases += ["join()"]
    texts = ['"a,b c"', '"a,,b  c ,d"', '", a ,, b,"', '""', '"   "', '"a;b;;c"', '"héllo wörld"', '"x"',
             "undefined", "error", "1", "{ \"a\" }"]
    cases += cross("split", texts)
    cases += cross("split", texts[:8], ['";"', '""', '" "', '",;"', "undefined", "error", "1"])
    cases += ["split()", 'split("a", ",", ",")']
    names = ['"alice@example.org"', '"slot1_2@node01@pool"', '"@x"', '"x@"', '"nobody"', '""', '"ü@ß"',
             "undefined", "error", "1", '{ "a@b" }']
    for name in ["splitUserName", "splitSlotName"]:
        cases += cross(name, names)
        cases += [call(name, []), call(name, ['"a@b"', '"c"'])]
    return cases


def list_contexts():
    """evalInEachContext and countMatches, in ads holding the nested ads."""
    ad = ('[ GPUs = { [ Capability = 7.5; Name = "A" ], [ Capability = 8.6; Name = "B" ], [ Capability = 6.1 ] }; '
          'RequireGPUs = Capability >= 7.0; Cap = Capability; Mixed = { [ x = 1 ], undefined, 3, [ x = 2 ] }; '
          'Nothing = undefined; Empty = { }; x = 100 ]')
    exprs = ["RequireGPUs", "Capability > 8", "Name", "Cap", "x", "MY.RequireGPUs", "Missing", "1 + 1",
             "Capability", "undefined", "error"]
    lists_ = ["GPUs", "Mixed", "Nothing", "Empty", "{ [ Capability = 9 ], [ Capability = 1 ] }", "undefined",
              "error", "5", '"GPUs"', "Missing"]
    cases = []
    for name in ["evalInEachContext", "countMatches"]:
        for expr in exprs:
            for list_ in lists_:
                cases.append("ad\t%s\t%s" % (ad, call(name, [expr, list_])))
        cases += ["ad\t%s\t%s" % (ad, call(name, [])), "ad\t%s\t%s" % (ad, call(name, ["x"])),
                  "ad\t%s\t%s" % (ad, call(name, ["x", "GPUs", "GPUs"]))]
    cases.append("ad\t%s\t%s" % (ad, "sum(evalInEachContext(RequireGPUs, GPUs))"))
    cases.append("ad\t%s\t%s" % (ad, "max(evalInEachContext(Capability, GPUs))"))
    return cases


def math():
    cases = []
    numbers = ["2", "-2", "0", "3", "-1", "10", "62", "63", "64", "2.5", "-0.5", "0.5", '"2"', '"x"', "true",
               "undefined", "error", "{ 2 }", "absTime(10)", "relTime(3)"]
    cases += cross("pow", numbers, numbers)
    cases += ["pow()", "pow(2)", "pow(2, 2, 2)", "pow(-8, 0.333)", "pow(0, -1)", "pow(10, 18)", "pow(10, 19)",
              "pow(3, 40)", "pow(-3, 39)", "pow(1.0e308, 2)"]
    values = ["7", "-7", "0", "8", "7.5", "-7.5", "1500", '"7"', '"x"', "true", "undefined", "error", "{ 1 }",
              "9223372036854775807"]
    steps = ["3", "-3", "0", "2.5", "-2.5", "0.0", "1e-9", "1024", '"3"', "true", "undefined", "error",
             "{ 2, 4, 8 }", "{ 2, 4.0 }", "{ }", "{ 10, 5 }", "{ 2, \"x\" }", "{ 2, undefined }", "{ 1.5, 3 }"]
    cases += cross("quantize", values, steps)
    cases += ["quantize()", "quantize(1)", "quantize(1, 2, 3)"]
    # random's values cannot be recorded; its rejected arguments can.
    cases += ["random(-1)", "random(-1.5)", "random(0.0)", 'random("a")', "random(undefined)", "random(error)",
              "random(true)", "random({ 1 })", "random(1, 2)", "random(1)", "random(1) == 0"]
    return cases


UNRESOLVED_AD = ('[ a = 1; r = x + a + TARGET.y + MY.z + MY.a + other.w + foo.bar + f(q) + size(a) + b.c; '
                 'b = [ c = d; e = .a; g = parent.a ]; s = "x"; l = { n1, TARGET.n2, N1 }; self_r = r; lit = 5; '
                 'cyc = cyc + 1; half = cyc + zz; u = undefined; nest = [ k = j; j2 = k ].j2; up = parent.a; '
                 'rec = [ p = q1; o = a ]; idx = l[k2]; cond = a ? m1 : m2; root = .a + .missing; '
                 'mixed = Zeta + alpha + ALPHA + target.Beta + TARGET.gamma; sel = b.e + b.g + b.missing ]')


def unresolved():
    refs = ["r", "a", "lit", "l", "cyc", "half", "missing", "nest", "up", "self_r", "MY.r", "b.c", "b.e", "b.g",
            "rec", "idx", "cond", "root", "mixed", "sel", "u", ".r", "b", "s"]
    cases = ["ad\t%s\tunresolved(%s)" % (UNRESOLVED_AD, ref) for ref in refs]
    for arg in ['"r"', "1", "undefined", "error", "r + 1", "f(r)", "{ r }"]:
        cases.append("ad\t%s\tunresolved(%s)" % (UNRESOLVED_AD, arg))
    cases += ["ad\t%s\tunresolved()" % UNRESOLVED_AD, 'ad\t%s\tunresolved(r, "x", 1)' % UNRESOLVED_AD]
    return cases


def condor():
    cases = []
    # V1 environments: separators picked by the first character, blanks,
    # duplicates, items without "=", bare $$() names, quotes to escape.
    v1 = ['"a=1;b=2"', '"b=2;a=1"', '""', '";a=1"', '"|a=1|b=x y"', '"a=1 ; b = 2"', '"a"',
          '"$$(X)"', '";$$(X)"', '"=1"', '"a=1\\nb=2"', '"a=\'q\'"', '"a=1;a=2"',
          '"B=1;a=2;_=3;Z=4"', '";;a=1;;"', '" a=1"', '"a=b=c"', '",a=1,b=2"', '"#a=1#b"',
          '"a=1;"', '"é=ü;x=y z"', '"a==;b="', '"!a=1!b=2"', '"a=\\t1"',
          '"PATH=/bin:/usr/bin;HOME=/home/a b"', '"a=1;b"', '"a=1;=2"']
    for text in v1 + HOSTILE + ["1", "1.5", "true", '{ "a=1" }']:
        cases.append(call("envV1ToV2", [text]))
    cases += ["envV1ToV2()", 'envV1ToV2("a=1", "b=2")']
    cases += ['mergeEnvironment(envV1ToV2(%s), "FOO=BAR")' % t for t in ['"a=1;b=2"', "undefined", '"x"']]

    v2 = ['"a=1 b=2"', '"a=3"', '""', '"a=\'x y\' b=\'\'"', '"\'\'"', '"a"', '"\'a"', '"a=\\"x\\""',
          '"\\"a=1 b=2\\""', '"$$(FOO)"', '"x=a\'b\'c"', '"  a=1\\t\\tb=2  "', '"a=\'it\'\'s\'"',
          '"=x"', '"é=ü"', '"a=1\\nb=2\\rc=3"', '"z=1 a=2"', '"a=1 b"']
    for text in v2 + HOSTILE + ["1", "1.5"]:
        cases.append(call("mergeEnvironment", [text]))
    pairs = ['"a=1 b=2"', '"a=3"', '""', "undefined", "error", '"\'a"', "1"]
    cases += cross("mergeEnvironment", pairs, pairs)
    cases += ["mergeEnvironment()", 'mergeEnvironment("a=1", "b=2", "c=3", "a=4")',
              "mergeEnvironment(undefined, undefined)", 'mergeEnvironment("a=1", undefined, "b=2")']

    args = ['"a b  \'c d\' e\'\'f \'\'"', '"a b"', '"a \'b"', '""', '"   "', '"\'\'"', '"a\\tb\\nc\\rd"',
            '"\'it\'\'s\'"', '"x\'\'\'\'"', '"\\"q\\" r"', '"é ü"', '"\'a\'\'\'b\'"', '"-n 3 --name=\'x y\'"']
    versions = [None, "1", "2", "3", "0", "true", "2.0", '"2"', "undefined", "error"]
    for version in versions:
        for text in args + ["undefined", "error", "1", '{ "a" }']:
            cases.append(call("argsToList", [text] + ([version] if version else [])))
    cases += ["argsToList()", 'argsToList("a", 2, 2)']

    lists = ['{"a", "b c", "", "d\'e", "f\' \'g"}', '{"a", "b"}', '{"", "a", "", "b"}', "{}", '{"a", 1}',
             '{"a", undefined}', '{"a", error}', '"a"', "undefined", "error", '{"it\'s"}', '{"a  b"}',
             '{" "}', '{"\'"}', '{"\'\'"}', '{"a\\tb"}', '{"a\\nb"}', '{""}', '{"", ""}', '{"é", "ü x"}',
             '{{"a"}}', "{[a = 1]}", "[a = 1]", '{"a" + "b"}', '{strcat("a", " ", "b")}']
    for version in [None, "1", "2", "3", "undefined", "error"]:
        for lst in lists:
            cases.append(call("listToArgs", [lst] + ([version] if version else [])))
    cases += ["listToArgs()", 'listToArgs({"a"}, 2, 2)',
              'argsToList(listToArgs({"a b", "", "c\'d", "e"}))',
              'listToArgs(argsToList("a \'b c\' \'\' d\'\'\'\'e"))']

    # userMap with no map registered (the oracle process has none): only
    # the argument handling shows here; usermap_cases.py covers real maps.
    names = ['"nosuchmap"', '""', '"a.b"', "undefined", "error", "1"]
    inputs = ['"alice"', '""', "undefined", "error", "1"]
    cases += cross("userMap", names, inputs)
    fewer_names = ['"nosuchmap"', "undefined", "error", "1"]
    fewer_inputs = ['"alice"', "undefined", "error", "1"]
    cases += cross("userMap", fewer_names, fewer_inputs, ['"g"', "undefined", "error"])
    cases += cross("userMap", fewer_names, fewer_inputs, ['"g"', "error"],
                   ['"default"', "undefined", "error", "1", "{ 1 }", "[ a = 1 ]", '""'])
    cases += ["userMap()", 'userMap("m")', 'userMap("m", "a", "b", "c", "d")']

    # userHome: only users that exist on no system (the passwd database is
    # the host's), and the argument handling.
    users = ['"nosuchuser_classad_rs"', '""', '"NO_SUCH_USER_X"', '"a:b"', '"héllo"', "undefined", "error",
             "1", '{ "x" }', "[ a = 1 ]"]
    defaults = ['"/home/default"', '""', "undefined", "error", "1", '{ "/x" }']
    for user in users:
        cases.append(call("userHome", [user]))
        cases += cross("userHome", [user], defaults)
    cases += ["userHome()", 'userHome("a", "b", "c")']
    return cases

GROUPS = [
    ("strings: substr, strcmp, stricmp, strcat, toUpper, toLower, size", strings),
    ("versions: the versioncmp family", versions),
    ("string lists: the stringList* functions", string_lists),
    ("lists: member, identicalMember, sum, avg, min, max, anyCompare, allCompare, join, split*", lists),
    ("lists of ads: evalInEachContext, countMatches", list_contexts),
    ("math: pow, quantize, random", math),
    ("unresolved: external references", unresolved),
    ("HTCondor: envV1ToV2, mergeEnvironment, argsToList, listToArgs, userMap, userHome", condor),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "functions_cases.txt"))
    args = ap.parse_args()
    lines = [
        "# Built-in function conformance cases; written by gen_cases.py (edit that, not this).",
        "# Line format: see ../conformance/README.md. Expected values: functions.jsonl.",
        "# semantics: old",
    ]
    seen = set()
    for title, group in GROUPS:
        lines.append("")
        lines.append("# " + title)
        for case in group():
            if case not in seen:
                seen.add(case)
                lines.append(case)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("%s: %d cases" % (args.out, len(seen)))


if __name__ == "__main__":
    main()
