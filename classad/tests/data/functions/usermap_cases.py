#!/usr/bin/env python3
"""Write usermap.jsonl: libclassad's userMap() results over registered maps.

Usage:
    python3 usermap_cases.py --python ORACLE_PYTHON [--out usermap.jsonl]

The function corpus (gen_cases.py) runs its oracle without any HTCondor
configuration, so no map exists there. Here the oracle process gets maps
the way an HTCondor tool does, from configuration given in the
environment: TOOL_CLASSAD_USER_MAP_NAMES lists them, and each is
CLASSAD_USER_MAPFILE_<name> (a file under usermap/),
CLASSAD_USER_MAPDATA_<name> (the map text itself) and optionally
CLASSAD_USER_MAP_PREFIX_<name>. usermap.jsonl starts with a header naming
the same maps; classad/tests/usermap.rs registers them with
classad::usermap and requires the same value for every case, except those
listed in usermap_divergences.jsonl.

Standard library only; the oracle interpreter needs the htcondor wheel.
"""

import argparse
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
MAPDIR = os.path.join(HERE, "usermap")

# name, source kind, source, prefix keys
MAPS = [
    ("groups", "file", "groups.map", False),
    ("prefix", "file", "prefix.map", True),
    ("incl", "file", "include.map", False),
    ("Data", "text", "* crlf val\r\n* x y\n* \"two words\" one,two\n* /^re(.)$/ \\1\n", False),
    # PCRE2 without UTF mode: bytes, ASCII classes, $ before a final newline.
    ("bytes", "text", "* /^(.)x$/ [\\1]\n* /^y$/ dollar\n* /^\\w+$/ word\n* /^(.)(.)$/i \\2\\1\n", False),
]

WORKER = r'''
import json, sys
import htcondor2  # noqa: F401  (reads the configuration, loads the maps)
import classad2

print(json.dumps({"version": classad2.version()}), flush=True)
for line in sys.stdin:
    expr = json.loads(line)
    try:
        value = repr(classad2.ExprTree(expr).simplify())
    except Exception as exc:
        value = "EXCEPTION: " + str(exc)
    print(json.dumps(value), flush=True)
'''


def s(text):
    """A ClassAd string literal."""
    return json.dumps(text, ensure_ascii=False)


def cases():
    out = []

    def um(*args):
        out.append("userMap(%s)" % ", ".join(args))

    group_inputs = [
        "alice", "Alice", "ALICE", "bob", "carol", "dave", "quoted key", 'q"k', "e1", "e3", 'unq"x',
        'unq"x y"z', "sp1", "tabbed", "#*", "hashed", "novalue", "a(", "/a(/", "uq", "dup", "lit",
        "carl", "c", "dxy", "DY", "Dy", "zzdy", "uvwx", "u", "me@cs.wisc.edu", "@cs.wisc.edu",
        "me@cs.wisc.edu.evil", "x/y", "b\\s", "azzb", "after-regex", "helloworld", "", "é", " alice",
        "alice ", "k1", "krb",
    ]
    for name in ["groups", "GROUPS", "groups.*"]:
        for user in group_inputs:
            um(s(name), s(user))
    for user in ["alice", "bob", "carol", "dave", "e1", "e3", "nobody", "dxy", "helloworld"]:
        for pref in ["cms", "CMS", "b", "B", "c", "x", "", " b ", "1", "undefined", "error"]:
            pref_arg = pref if pref in ("undefined", "error", "1") else s(pref)
            um(s("groups"), s(user), pref_arg)
            um(s("groups"), s(user), pref_arg, s("dflt"))
        um(s("groups"), s(user), s("x"), "undefined")
        um(s("groups"), s(user), s("x"), "error")
        um(s("groups"), s(user), s("x"), "42")
    for method in ["groups.krb", "groups.KRB", "groups.Krb", "groups.", "groups.nomethod", "groups.krb.x",
                   "groups..krb"]:
        for user in ["k1", "k2", "k42", "k", "alice", "K1"]:
            um(s(method), s(user))
        um(s(method), s("k1"), s("KVAL"))
    for user in ["/data/cms/x", "/data/cms", "/data/cmsx", "/data/atlas", "/data", "/dat", "/data/cms/special/1",
                 "/data/cms/special", "/home/u", "/home", "/x/", "/x/y", "/x", "", "cms", "x/data"]:
        um(s("prefix"), s(user))
        um(s("PREFIX"), s(user), s("cms"))
    for user in ["top", "inc1", "nested", "dira", "dirb", "hidden", "tilde", "script", "after", "incdir"]:
        um(s("incl"), s(user))
    for user in ["abx", "abcd", "ab", "ax", "a", "b"]:
        um(s("prefix"), s(user))
    for user in ["ax", "éx", "y", "y\n", "hello", "héllo", "ab", "é", "éé"]:
        um(s("bytes"), s(user))
    for user in ["crlf", "x", "two words", "two", "rea", "re", "reab"]:
        um(s("data"), s(user))
        um(s("DATA"), s(user), s("TWO"), s("d"))
    # Map names that are not registered, and hostile arguments with a map.
    for name in ['"nosuch"', '"nosuch.krb"', '""', '"."', '".groups"', '"groups "', '" groups"']:
        um(name, s("alice"))
        um(name, s("alice"), s("cms"), s("d"))
    for user in ["undefined", "error", "1", "{ \"alice\" }", "[ a = 1 ]"]:
        um(s("groups"), user)
        um(s("groups"), user, s("cms"))
        um(s("groups"), user, s("cms"), s("d"))
    um(s("groups"), 'strcat("al", "ice")', 'toUpper("cms")')
    out.append('size(userMap("data", "crlf"))')
    out.append('size(userMap("groups", "uq"))')
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=os.environ.get("ORACLE_PYTHON", "python3"))
    ap.add_argument("--out", default=os.path.join(HERE, "usermap.jsonl"))
    args = ap.parse_args()

    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("_CONDOR_", "CONDOR_"))}
    env.update({"CONDOR_CONFIG": "ONLY_ENV", "TZ": "UTC", "LC_ALL": "C", "PYTHONIOENCODING": "utf-8"})
    env["_CONDOR_TOOL_CLASSAD_USER_MAP_NAMES"] = " ".join(name for name, _, _, _ in MAPS)
    header_maps = []
    for name, kind, source, prefix in MAPS:
        if kind == "file":
            env["_CONDOR_CLASSAD_USER_MAPFILE_" + name] = os.path.join(MAPDIR, source)
            header_maps.append({"name": name, "file": "usermap/" + source, "prefix": prefix})
        else:
            env["_CONDOR_CLASSAD_USER_MAPDATA_" + name] = source
            header_maps.append({"name": name, "text": source, "prefix": prefix})
        if prefix:
            env["_CONDOR_CLASSAD_USER_MAP_PREFIX_" + name] = "true"

    all_cases = list(dict.fromkeys(cases()))
    proc = subprocess.run([args.python, "-c", WORKER], input="".join(json.dumps(c) + "\n" for c in all_cases),
                          capture_output=True, text=True, env=env, cwd=MAPDIR, check=True)
    lines = proc.stdout.splitlines()
    version = json.loads(lines[0])["version"]
    results = [json.loads(line) for line in lines[1:]]
    if len(results) != len(all_cases):
        raise SystemExit("oracle answered %d of %d cases" % (len(results), len(all_cases)))
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(json.dumps({"oracle": "classad2", "version": version, "generated_by": "usermap_cases.py",
                            "maps": header_maps}, ensure_ascii=False) + "\n")
        for expr, expected in zip(all_cases, results):
            f.write(json.dumps({"expr": expr, "expected": expected}, ensure_ascii=False) + "\n")
    print("%s: %d cases" % (args.out, len(all_cases)))


if __name__ == "__main__":
    main()
