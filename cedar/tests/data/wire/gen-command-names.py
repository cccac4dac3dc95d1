#!/usr/bin/env python3
"""gen-command-names.py -- number -> name table of HTCondor's command ints.

Reads condor_commands.h (HTCondor 23.9.6) on stdin and writes command-names.json:
    git -C <htcondor.git> show v23.9.6:src/condor_includes/condor_commands.h \
        | python3 gen-command-names.py > command-names.json
Only `#define NAME <integer expression of numbers, names, + - ( )>` lines are used.
"""
import json, re, sys

defs = {}
for line in sys.stdin:
    m = re.match(r'\s*#\s*define\s+([A-Z_][A-Z0-9_]*)\s+(.+?)\s*(?://.*|/\*.*)?$', line)
    if m:
        defs[m.group(1)] = m.group(2)

values = {}
changed = True
while changed:
    changed = False
    for name, expr in defs.items():
        if name in values:
            continue
        toks = re.findall(r'[A-Za-z_][A-Za-z0-9_]*|\d+|[-+()]|\S', expr)
        if any(t not in '+-()' and not t.isdigit() and t not in values for t in toks):
            continue
        src = ''.join(str(values[t]) if t in values else t for t in toks)
        if not re.fullmatch(r'[\d+\-() ]+', src):
            continue
        values[name] = int(eval(src))  # digits and + - ( ) only, checked above
        changed = True

by_num = {}
for name, v in sorted(values.items()):
    if name.endswith('_BASE') or name.startswith('CONDOR_') and v < 0:
        continue
    by_num.setdefault(str(v), []).append(name)
json.dump(dict(sorted(by_num.items(), key=lambda kv: int(kv[0]))), sys.stdout, indent=0, sort_keys=False)
print()
