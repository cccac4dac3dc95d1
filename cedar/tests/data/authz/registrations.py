#!/usr/bin/env python3
"""Extracts the collector's and negotiator's command registrations from the
HTCondor v23.9.6 sources (collector.cpp 289-425, matchmaker.cpp 543-625)
with their numbers from condor_commands.h, one per line:
    <daemon> <number> <NAME> <PERM> [<ALT_PERM>...]
Usage: registrations.py [git-dir] > registrations.txt
"""
import re, subprocess, sys

GIT = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/htcondor+htcondor/repo"
TAG = "v23.9.6"

def show(path):
    return subprocess.run(["git", "-C", GIT, "show", f"{TAG}:{path}"], check=True,
                          capture_output=True, text=True).stdout

defs = {}
for m in re.finditer(r"^\s*#define\s+(\w+)\s+(.+?)\s*(?://.*)?$", show("src/condor_includes/condor_commands.h"), re.M):
    defs[m.group(1)] = m.group(2)

def number(name, depth=0):
    expr = defs[name].strip("() ")
    total = 0
    for term in expr.split("+"):
        term = term.strip().strip("()")
        total += int(term) if term.isdigit() else number(term, depth + 1)
    return total

PERM = {"READ": "READ", "WRITE": "WRITE", "NEGOTIATOR": "NEGOTIATOR", "ADMINISTRATOR": "ADMINISTRATOR",
        "DAEMON": "DAEMON", "ALLOW": "ALLOW", "ADVERTISE_STARTD_PERM": "ADVERTISE_STARTD",
        "ADVERTISE_SCHEDD_PERM": "ADVERTISE_SCHEDD", "ADVERTISE_MASTER_PERM": "ADVERTISE_MASTER"}

def extract(daemon, path, first, last):
    text = "\n".join(show(path).splitlines()[first - 1:last])
    vectors = {m.group(1): [PERM[p.strip()] for p in m.group(2).split(",")]
               for m in re.finditer(r"std::vector<DCpermission>\s+(\w+)\s*\{([^}]*)\}", text)}
    for m in re.finditer(r"Register_Command(?:WithPayload)?\s*\((.*?)\);", text, re.S):
        args = [a.strip() for a in m.group(1).split(",")]
        name = args[0]
        perms = [PERM[a] for a in args[1:] if a in PERM]
        alts = []
        for a in args:
            if a.startswith("&") and a[1:] in vectors:
                alts = vectors[a[1:]]
        print(daemon, number(name), name, perms[0], *alts)

extract("collector", "src/condor_collector.V6/collector.cpp", 289, 425)
extract("negotiator", "src/condor_negotiator.V6/matchmaker.cpp", 543, 625)
