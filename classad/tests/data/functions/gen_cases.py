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


def string_list_regexps():
    cases = []
    patterns = ['"^a"', '"B"', '"^slot[0-9]+$"', '""', '"("', '"(a)\\1"', "undefined", "error", "1"]
    lists_ = ['"a, b"', '"x,slot2"', '""', '" , "', '"A;b"', "undefined", "error", "{ \"a\" }"]
    cases += cross("stringList_regexpMember", patterns, lists_)
    cases += cross("stringList_regexpMember", ['"^b"', '"B"'], ['"a;b c"'], ['";"', '" "', '""', "undefined", "1"])
    cases += cross("stringList_regexpMember", ['"^b"', '"B$"'], ['"a, b"', '"a, B"'], ['", "'],
                   ['"i"', '"I"', '""', '"m"', '"xyz"', "undefined", "1"])
    cases += ["stringList_regexpMember()", 'stringList_regexpMember("a")',
              'stringList_regexpMember("a", "a", ",", "i", 1)']
    return cases


def unresolved():
    refs = ["r", "a", "lit", "l", "cyc", "half", "missing", "nest", "up", "self_r", "MY.r", "b.c", "b.e", "b.g",
            "rec", "idx", "cond", "root", "mixed", "sel", "u", ".r", "b", "s"]
    cases = ["ad\t%s\tunresolved(%s)" % (UNRESOLVED_AD, ref) for ref in refs]
    for arg in ['"r"', "1", "undefined", "error", "r + 1", "f(r)", "{ r }"]:
        cases.append("ad\t%s\tunresolved(%s)" % (UNRESOLVED_AD, arg))
    cases += ["ad\t%s\tunresolved()" % UNRESOLVED_AD, 'ad\t%s\tunresolved(r, "x", 1)' % UNRESOLVED_AD]
    for ref in ["r", "l", "cyc", "missing", "a", "mixed"]:
        for pattern in ['"^y$"', '"Y"', '"zz"', '"foo\\."', '"^$"', '"a*"', '"("', '""']:
            cases.append("ad\t%s\tunresolved(%s, %s)" % (UNRESOLVED_AD, ref, pattern))
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

def times():
    """Time functions. Never the current time itself: calls that read the
    clock appear only where the result does not depend on when (arity
    errors, types, ranges; the oracle runs with TZ=UTC)."""
    cases = []
    # Instants: epoch, leap day, ISO-week edges, 32-bit edges, years 0/1/9999
    # and before year 0 (libclassad's weekday formula goes negative there).
    epochs = ["0", "1", "-1", "86399", "951825600", "1609459200", "1546214400",
              "1700000000", "1234567890", "2147483647", "-2147483648",
              "4102444800", "253402300799", "-62135596800", "-62135596801",
              "-62167219200", "-70000000000"]
    reals = ["1.5", "-0.5", "1700000000.9", "-1.7", "1e9"]
    abstimes = ['absTime("2020-02-29T13:14:15+05:30")', 'absTime("2023-12-31T23:59:59-08:00")',
                'absTime("1999-12-31T23:59:59Z")', 'absTime("2021-01-03T00:00:00+14:00")',
                'absTime("2020-06-15T12:00:00-12:00")', 'absTime("1969-12-31T12:00:00+00:30")',
                "absTime(1700000000, 3600)", "absTime(0, -18000)"]
    reltimes = ["relTime(0)", "relTime(59)", "relTime(90061)", "relTime(-90061.5)", "relTime(1.5)",
                "relTime(-61)", "relTime(-5.5)", 'relTime("1+02:03:04")', "relTime(34560000)",
                "relTime(-3600)", "relTime(0.25)"]
    hostile = ["undefined", "error", '"2020"', '""', "true", "{ 1 }", "{}", "[ a = 1 ]"]
    values = epochs + reals + abstimes + reltimes + hostile

    # splitTime
    cases += cross("splitTime", values)
    cases += ["splitTime()", "splitTime(0, 1)", "splitTime(100000000000000)", "splitTime(67768036191676799)",
              "splitTime(-100000000000000)",
              "splitTime(0).Year", 'splitTime(relTime(90061)).Seconds', "splitTime(relTime(-3e6))"]

    # formatTime: default format, a full format, and each conversion
    full = '"%Y-%m-%d %H:%M:%S"'
    cases += cross("formatTime", values)
    cases += cross("formatTime", values, [full])
    conversions = "aAbBcCdDeFgGhHIjklmMnpPrRsStTuUVwWxXyYzZ%"
    dates = ["1700000000", "1609459200", "1546214400", "951825600", "-62167219200",
             'absTime("2020-02-29T13:14:15+05:30")', "43200"]
    for conv in conversions:
        cases += cross("formatTime", dates, ['"%' + conv + '"'])
    # Modifiers E and O on every letter, flags and widths, bad conversions.
    letters = "aAbBcCdDeFgGhHIjklmMnpPrRsStTuUVwWxXyYzZ%q"
    cases += [call("formatTime", ["1700000000", '"' + "|".join("%E" + c for c in letters) + '"'])]
    cases += [call("formatTime", ["1700000000", '"' + "|".join("%O" + c for c in letters) + '"'])]
    flagged = ["%_H", "%-H", "%0e", "%05e", "%-e", "%_3S", "%^a", "%#a", "%#b", "%^B", "%#Z",
               "%#p", "%^p", "%#P", "%^P", "%10Y", "%-10Y", "%_10Y", "%010Y", "%_010Y", "%0_10Y",
               "%^10a", "%10a", "%010a", "%3Y", "%1d", "%#c", "%^c", "%30c", "%030c", "%^30c",
               "%-30c", "%_5m", "%-j", "%_j", "%5z", "%_z", "%-z", "%06z", "%_6z", "%1z",
               "%10%", "%-%", "%5n", "%5t", "%10Z", "%_Z", "%12s", "%_12s", "%-s", "%012G",
               "%^#A", "%#^A", "%10q", "%q", "%", "%5", "%_", "%^10", "%E", "%O", "%EO", "%OE",
               "%Ea", "%E%", "%O%", "%+Y", "%:z", "%::z", "%^é", "x%1019Y", "%1020Y", "%^1020a",
               "%-1020e"]
    for f in flagged:
        cases += cross("formatTime", ["1700000000", "-62167219200"], ['"[' + f + ']"'])
    cases += [call("formatTime", ["1700000000", '"plain text, no conversions"']),
              call("formatTime", ["1700000000", '"héllo %Y wörld %B"']),
              call("formatTime", ["1700000000", '""']),
              call("formatTime", ["1700000000", '"%a%A%b%B%c%C%d%D%e%F%g%G%h%H%I%j%k%l%m%M%p%P%r%R%s%S%T%u%U%V%w%W%x%X%y%Y%z%Z%%"']),
              call("formatTime", ["1700000000", '"' + "%c" * 40 + '"'])]
    # An ad of fields: missing fields are 0 (year 1900, January), others
    # taken as given (out of range too); only integers count.
    ads = ["[ Year = 2020; Month = 3; Day = 4; Hours = 5; Minutes = 6; Seconds = 7 ]",
           "[]", "[ Year = 2020.5; Month = true; Day = \"4\" ]",
           "[ Year = 2020; Month = 14; Day = 40; Hours = 30; Minutes = 99; Seconds = 99 ]",
           "[ Year = -5; Month = 0; Day = -3 ]",
           "[ Year = 2020; Month = 2; Day = 1; Hours = 13 ]",
           "[ Year = 2020; Month = 2; Day = 1; Hours = -13 ]",
           "[ Year = 2020; Month = 2; Day = 1; Hours = 100 ]",
           "[ Year = x; x = 2001; Month = undefined; Day = error ]",
           "[ Year = 2020; Month = 3; Day = 4; Type = \"RelativeTime\" ]",
           "[ Year = 2020; Month = 3; Day = 4; Offset = 3600 ]",
           "[ Year = 2020; Month = 12; Day = 31; Hours = 23; Minutes = 59; Seconds = 60 ]"]
    ad_formats = [None, '"%c|%j|%u|%w|%U|%W|%V|%G|%g|%C|%y|%I|%p|%Z|%z|%s"', '"%a %b %e"']
    for ad in ads:
        for fmt in ad_formats:
            cases += [call("formatTime", [ad] + ([fmt] if fmt else []))]
    cases += ['[ Year = 1999; t = formatTime([ Month = 2 ], "%Y") ].t',
              '[ y = 1999; t = formatTime([ Year = y ], "%Y") ].t',
              "formatTime(splitTime(1700000000))", "formatTime(splitTime(relTime(90061)))"]
    fmt_args = ['"%Y"', "undefined", "error", "5", "{}", "[ a = 1 ]", "relTime(1)"]
    cases += cross("formatTime", ["0", "undefined", "error", "relTime(1)", '"%Y"'], fmt_args)
    cases += ['formatTime(0, "%Y", 1)', 'formatTime(0, "%Y", "%Y")', "size(formatTime())",
              "isString(formatTime())", "formatTime(1, 2, 3, 4)"]

    # interval
    secs = ["0", "59", "60", "67", "3599", "3600", "3661", "86400", "90061", "1472523",
            "-1", "-59", "-61", "-3600", "-3601", "-86400", "-86401", "-90061", "-1800",
            "1.9", "-1.9", "-0.5", "2147483647", "-2147483647", '"90"', '"1e3"', '"abc"',
            '"12abc"', '""', '" 90"', '"0x10"', '"1.9"', '"-0"', "true", "false",
            "relTime(90)", "relTime(-90061.9)", "absTime(90)", 'absTime("2020-01-01T00:00:00Z")',
            "undefined", "error", "{ 1 }", "[ a = 1 ]"]
    cases += cross("interval", secs)
    cases += ["interval()", "interval(1, 2)"]

    # getYear and friends
    getters = ["getYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDayOfWeek",
               "getHours", "getMinutes", "getSeconds", "getDays"]
    got = ['absTime("2023-12-31T23:59:58+05:00")', 'absTime("2020-02-29T13:14:15+05:30")',
           "absTime(1609459200)", "absTime(-1)", "absTime(-62167219200, 0)",
           "relTime(-90061.7)", "relTime(100000)", "relTime(59.9)", "relTime(0)",
           "1700000000", "1.5", '"x"', "undefined", "error", "true", "{}", "[ a = 1 ]"]
    for name in getters:
        cases += cross(name, got)
        cases += [call(name, []), call(name, ["absTime(0)", "1"])]

    # The clock-reading functions: only what does not depend on when.
    cases += ["timeZoneOffset()", "timeZoneOffset(1)", "isReltime(timeZoneOffset())",
              "dayTime(1)", "isReltime(dayTime())", "dayTime() >= relTime(0) && dayTime() < relTime(86400)",
              "time(1)", "isInteger(time())", "time() > 1700000000",
              "currentTime(1)", "isAbstime(currentTime())", "currentTime() > absTime(1700000000)",
              "isAbstime(absTime())"]

    # absTime and relTime conversions
    conv_values = epochs[:8] + reals + ["9223372036854775807", "-9223372036854775808", "1e18",
                                        'real("NaN")', 'real("INF")'] + \
        ['"2020-02-29T13:14:15+05:30"', '"2020-02-29"', '"2020-02-29T13:14:15"', '"20200229T131415Z"',
         '"1+02:03:04"', '"90"', '"-1:30"', '"x"', '"2020-13-45T25:61:61Z"'] + \
        abstimes[:3] + reltimes[:6] + hostile
    conv_values = list(dict.fromkeys(conv_values))
    cases += cross("absTime", conv_values)
    cases += cross("relTime", conv_values)
    offsets = ["0", "3600", "-18000", "1.5", "relTime(60)", '"x"', "undefined", "error", "true",
               'absTime("2020-01-01T00:00:00Z")']
    cases += cross("absTime", ["1700000000", "1.5", 'absTime("2020-02-29T13:14:15+05:30")',
                               '"2020-02-29T13:14:15"', "relTime(60)", "undefined", "error"], offsets)
    cases += ["relTime()", "relTime(1, 2)", "absTime(1, 2, 3)"]
    # Beyond 32 bits (libclassad truncates; see time-range in docs/divergences.md).
    cases += ["splitTime(5e9)", "splitTime(relTime(3e9))", "splitTime(relTime(-3e9))",
              'formatTime(1e10, "%c %s")', 'formatTime(5000000000, "%c %s")', "getDays(relTime(3e9))",
              "getHours(relTime(-3e9))", "interval(2147483648)", "interval(-2147483649)", "interval(1e10)",
              'interval(real("NaN"))', 'interval(real("INF"))', 'interval("9999999999")',
              'formatTime([ Year = 3000000000 ], "%Y")', 'formatTime([ Year = 2020; Month = 4294967298 ], "%m")']
    # Text that is not a literal argument (computed, or with an offset).
    cases += ['absTime(strcat("2020-01-01T00:00:00Z"))', 'relTime(strcat("1:30"))',
              'absTime(strcat("garbage"))', 'relTime(strcat("garbage"))',
              '[ s = "2020-01-01T00:00:00Z"; t = absTime(s) ].t', '[ s = "1:30"; t = relTime(s) ].t']
    return cases


def regex():
    cases = []
    # Patterns are ClassAd string literals: "\\d" is the two characters \d.
    patterns = ['"abc"', '"^a"', '"c$"', '"^$"', '""', '"a.c"', '"[0-9]+"', '"\\\\d+"',
                '"\\\\w+@\\\\w+"', '"^(a|b)*$"', '"x{2,3}"', '"é"', '"^.$"', '"^..$"',
                '"[[:alpha:]]+"', '"\\\\bc"', '"a{,3}"', '"(?i)ABC"', '"a\\\\.c"', '"[^a-c]"']
    targets = ['"abc"', '""', '"ABC"', '"a\\nc"', '"é"', '"xx123"', '"user@host"', '"c\\n"']
    cases += cross("regexp", patterns, targets)

    # Option letters (unknown ones and upper case are ignored).
    optioned = [('"^abc$"', ['"ABC"', '"abc"']), ('"a.c"', ['"a\\nc"', '"A\\nC"']),
                ('"^c$"', ['"a\\nc"', '"c\\nd"']), ('"a b c"', ['"abc"', '"a b c"']),
                ('"A # comment\\nB"', ['"ab"', '"A # comment\\nB"'])]
    for pattern, texts in optioned:
        cases += cross("regexp", [pattern], texts,
                       ['"i"', '"m"', '"s"', '"x"', '"I"', '""', '"imsx"', '"q"', '"fg"'])

    # PCRE syntax: escapes, classes, groups, quantifiers, anchors.
    syntax = [
        ('"\\\\x41\\\\x{42}\\\\103"', '"ABC"'), ('"\\\\x4"', '"\\004"'), ('"\\\\cA"', '"\\001"'),
        ('"\\\\e"', '"\\033"'), ('"\\\\12"', '"\\n"'), ('"\\\\o{101}"', '"A"'), ('"\\\\x{100}"', '"A"'),
        ('"\\\\400"', '"A"'), ('"\\\\y"', '"y"'), ('"\\\\8"', '"8"'), ('"\\\\<"', '"<"'),
        ('"\\\\Qa.b\\\\E"', '"a.b"'), ('"\\\\Qa.b\\\\E"', '"axb"'), ('"a\\\\Q\\\\E*"', '"aaa"'),
        ('"(?#comment)a"', '"a"'), ('"a(?#c)*"', '"aaa"'), ('"\\\\h"', '" "'), ('"\\\\v"', '"\\n"'),
        ('"\\\\s"', '"\\013"'), ('"\\\\N"', '"\\n"'), ('"\\\\R"', '"\\r\\n"'), ('"\\\\C"', '"a"'),
        ('"[a[b]"', '"["'), ('"[a&&b]"', '"&"'), ('"[a--b]"', '"-"'), ('"[a~~b]"', '"~"'),
        ('"[]a]"', '"]"'), ('"[^]a]"', '"b"'), ('"[]"', '"]"'), ('"[a-c-e]"', '"d"'), ('"[a-c-e]"', '"-"'),
        ('"[%--]"', '"+"'), ('"[\\\\d-z]"', '"-"'), ('"[\\\\w-]"', '"-"'), ('"[z-a]"', '"a"'),
        ('"[\\\\Qa-c\\\\E]"', '"b"'), ('"[\\\\E]]"', '"]"'), ('"[\\\\b]"', '"\\010"'), ('"[\\\\8]"', '"8"'),
        ('"[[:alpha:]-z]"', '"-"'), ('"[[:foo:]]"', '"a"'), ('"[:alpha:]"', '"a"'), ('"[[:^digit:]]"', '"1"'),
        ('"[[:upper:]]"', '"a"'), ('"[[:<:]]ab"', '"x ab"'), ('"[[:<:]]ab"', '"xab"'), ('"a[[:>:]]"', '"ab"'),
        ('"a{2,1}"', '"aa"'), ('"a**"', '"a"'), ('"*"', '"a"'), ('"a|*"', '"a"'), ('"^*a"', '"a"'),
        ('"x{1}{2}"', '"xx"'), ('"a{65536}"', '"a"'), ('"a{1,3"', '"a{1,3"'), ('"{"', '"{"'),
        ('"a{1, 3}"', '"a"'), ('"(?i)A(?-i)B"', '"ab"'), ('"(?i)A(?-i)B"', '"aB"'), ('"(?i:A)B"', '"aB"'),
        ('"(?s).(?-s)."', '"\\n\\n"'), ('"(?m)^b"', '"a\\nb"'), ('"(?x) a b "', '"ab"'),
        ('"(?xx)[ a]"', '" "'), ('"(?x)[ a]"', '" "'), ('"(?^)a"', '"a"'), ('"(?^-i)a"', '"a"'),
        ('"(?n)(a)"', '"a"'), ('"(?u)a"', '"a"'), ('"(?U)a+"', '"aa"'), ('"(?P<n>a)"', '"a"'),
        ('"(?<n>a)(?\'m\'b)"', '"ab"'), ('"(?<n>a)(?<n>b)"', '"ab"'), ('"(?<1a>x)"', '"x"'),
        ('"("', '"a"'), ('"a)"', '"a)"'), ('"(?"', '"a"'), ('"\\\\"', '"\\\\"'), ('"[a"', '"[a"'),
        ('"a\\\\Z"', '"a\\n"'), ('"a\\\\z"', '"a\\n"'), ('"a$"', '"a\\n"'), ('"a$"', '"a\\r"'),
        ('"^$"', '"\\n"'), ('"\\\\Aa"', '"ba"'), ('"x|"', '""'), ('"()"', '""'),
        ('"Å"', '"\\303"'), ('"(?i)é"', '"É"'), ('"\\\\w"', '"é"'), ('"[é]"', '"\\251"'),
    ]
    for pattern, text in syntax:
        cases.append(call("regexp", [pattern, text]))
    cases += cross("regexp", ['"a b"', '"a#b\\nc"', '"à"', '"Å"'], ['"ab"', '"ac"', '"\\303"'], ['"x"'])

    # Features that need backtracking (libclassad's PCRE has them).
    for pattern, text in [('"(a)\\\\1"', '"aa"'), ('"(a)\\\\g{1}"', '"aa"'), ('"(?<n>a)\\\\k<n>"', '"aa"'),
                          ('"(?=a)a"', '"a"'), ('"a(?!b)"', '"ab"'), ('"(?<=a)b"', '"ab"'),
                          ('"(?<!a)b"', '"ab"'), ('"(?>a*)a"', '"aa"'), ('"a*+a"', '"aa"'), ('"a++"', '"a"'),
                          ('"(?|(a)|(b))"', '"b"'), ('"(a|b(?1))"', '"ba"'), ('"(?(1)a|b)"', '"b"'),
                          ('"\\\\Ga"', '"a"'), ('"a\\\\Kb"', '"ab"'), ('"\\\\X"', '"a"'), ('"\\\\p{L}"', '"a"'),
                          ('"(*FAIL)|a"', '"a"'), ('"(*UTF)a"', '"a"'), ('"(?J)(?<n>a)(?<n>b)"', '"ab"')]:
        cases.append(call("regexp", [pattern, text]))

    # A pattern that makes a backtracking engine give up.
    cases.append(call("regexp", ['"(x+x+)+y"', '"' + "x" * 40 + ' y"']))
    cases.append(call("regexp", ['"(a*)*b"', '"' + "a" * 40 + '"']))

    # UNDEFINED, ERROR and wrong types; arity.
    values = ['"a"', "undefined", "error", "1", '{ "a" }', "[ a = 1 ]"]
    cases += cross("regexp", values, values)
    cases += cross("regexp", ['"a"', "undefined", "1"], ['"a"', "undefined", "1"], ['"i"', "undefined", "error", "1"])
    cases += ["regexp()", 'regexp("a")', 'regexp("a", "a", "i", "x")']

    # regexpMember
    members = ['"^b"', '"("', '""', '"B"', "undefined", "error", "1"]
    lists = ['{}', '{ "a" }', '{ "a", "bc" }', '{ "bc", 1 }', '{ 1, "bc" }', '{ undefined, "a" }',
             '{ undefined, "bc" }', '{ "a", error }', '{ "bc", error }', '{ error, "bc" }', '{ "B" }',
             '{ { "bc" } }', '"abc"', "undefined", "error"]
    cases += cross("regexpMember", members, lists)
    cases += cross("regexpMember", ['"^b"', '"("', "1"], ['{ "B" }', '{ "a", "b" }', '"b"', "undefined"],
                   ['"i"', '""', "undefined", "error", "1"])
    cases += ["regexpMember()", 'regexpMember("a")', 'regexpMember("a", { "a" }, "i", "x")']

    # regexps: the substitution alone, with f (in place) and g (global).
    subst_patterns = ['"b"', '"(a)(b)?"', '"x*"', '"^"', '"$"', '"(a)|(b)"', '"é"', '"."', '"[bc]+"',
                      '"(b)(c)?"']
    subst_targets = ['"abcb"', '""', '"éa"']
    substitutes = ['"<\\\\0>"', '"[\\\\1]"', '"[\\\\2]"', '"\\\\9"', '"a\\\\\\\\b"', '"x\\\\"', '"\\\\x"', '""']
    for options in [None, '"f"', '"g"', '"fg"']:
        for pattern in subst_patterns:
            for target in subst_targets:
                for substitute in substitutes[:2] if options else substitutes:
                    args = [pattern, target, substitute] + ([options] if options else [])
                    cases.append(call("regexps", args))
    cases += cross("regexps", ['"B"'], ['"abcb"'], ['"x"'], ['"i"', '"ig"', '"if"', '"G"', '"fgi"'])

    # replace and replaceAll: the target with the first / every match replaced.
    for name in ["replace", "replaceAll"]:
        cases += cross(name, ['"b"', '"(b)(c)?"', '"x*"', '"^"', '"$"', '"\\\\b"', '"b*"', '"[aeiou]"',
                              '"^a*?"', '"(a|)"', '"é"', '"(?m)^"', '"(?m)$"', '"a|"'],
                       ['"abcb"', '""', '"aaa"', '"héllo wörld"', '"a\\nb\\n"'], ['"<\\\\0>"', '"[\\\\1]"'])
        cases += cross(name, ['"B"', '"^B"', '"b$"'], ['"abcb"', '"b\\nb"'], ['"x"'], ['"i"', '"g"', '"m"', '"f"', '""'])
        cases += cross(name, values[:4], values[:4], ['"x"', "undefined", "error", "1"])
        cases += cross(name, ['"a"'], ['"a"'], ['"x"'], ['"i"', "undefined", "error", "1"])
        cases += [call(name, []), call(name, ['"a"', '"a"']), call(name, ['"a"', '"a"', '"b"', '"i"', '"x"'])]
    cases += cross("regexps", values[:4], values[:4], ['"x"', "undefined", "error", "1"])
    cases += cross("regexps", ['"a"', "1"], ['"a"', "undefined"], ['"x"', "1"], ['"i"', "undefined", "error", "1"])
    cases += ["regexps()", 'regexps("a", "a")', 'regexps("a", "a", "b", "i", "x")']
    return cases


GROUPS = [
    ("strings: substr, strcmp, stricmp, strcat, toUpper, toLower, size", strings),
    ("versions: the versioncmp family", versions),
    ("string lists: the stringList* functions", string_lists),
    ("string lists: stringList_regexpMember", string_list_regexps),
    ("lists: member, identicalMember, sum, avg, min, max, anyCompare, allCompare, join, split*", lists),
    ("lists of ads: evalInEachContext, countMatches", list_contexts),
    ("math: pow, quantize, random", math),
    ("unresolved: external references", unresolved),
    ("HTCondor: envV1ToV2, mergeEnvironment, argsToList, listToArgs, userMap, userHome", condor),
    ("times: splitTime, formatTime, interval, get*, timeZoneOffset, dayTime, absTime, relTime", times),
    ("regular expressions: regexp, regexpMember, regexps, replace, replaceAll", regex),
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
