#!/usr/bin/env python3
"""handshake.py -- decode the security handshakes of the captured connections by hand.

    python3 handshake.py [DIR]          # DIR = this directory (plain variant) or family/

For every kept connection that starts with DC_AUTHENTICATE (60010) it decodes the client's
security ad, the server's response ad and the post-auth ad straight from the .bin files
(framing and primitives in cedarpeek.py), groups them by (client subsystem, opening), and prints
each attribute with its wire type (from the old-ClassAd expression text), in the order it
travelled.  Raw (negotiation NEVER) openings are shown as their first message.
HANDSHAKE.md is written from this output.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cedarpeek  # noqa: E402


def wire_type(expr):
    if expr is None:
        return '?'
    if re.fullmatch(r'"(?:[^"\\]|\\.)*"', expr):
        return 'string'
    if expr in ('true', 'false', 'TRUE', 'FALSE'):
        return 'bool'
    if re.fullmatch(r'-?\d+', expr):
        return 'int'
    if re.fullmatch(r'-?\d+\.\d*(?:[eE][-+]?\d+)?', expr):
        return 'real'
    if expr.startswith('{'):
        return 'list'
    if expr.startswith('['):
        return 'record'
    return 'expression'


def show(v, limit=100):
    return v if len(v) <= limit else v[:limit] + '...'


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    index = json.load(open(os.path.join(d, 'index.json')))
    seen = {}
    for c in index['connections']:
        c2s = open(os.path.join(d, 'conn', c['id'] + '.c2s.bin'), 'rb').read()
        s2c = open(os.path.join(d, 'conn', c['id'] + '.s2c.bin'), 'rb').read()
        cm, _ = cedarpeek.split_messages(c2s)
        sm, _ = cedarpeek.split_messages(s2c)
        if not cm:
            continue
        opening = c['opening']
        sub = c.get('client_subsystem') or c['client']
        key = (sub if opening != 'DC_AUTHENTICATE resume' else c['client'].split(':')[0], opening,
               c['command_name'])
        if key in seen:
            seen[key].append(c['id'])
            continue
        seen[key] = [c['id']]
        print(f"=== {c['id']}  ({opening}; client {c['client']}, server {c['server']}; "
              f"command {c['command']} {c['command_name']})")
        blocks = [('client first message', cm[0])]
        if opening.startswith('DC_AUTHENTICATE'):
            blocks += [(f'server message {i}', m) for i, m in enumerate(sm[:2])]
        for label, m in blocks:
            toks = cedarpeek.tokens(m.payload)
            print(f'  -- {label}: {m.packets} packet(s), payload {len(m.payload)} bytes, '
                  f'header {c2s[m.offset:m.offset + 5].hex() if label.startswith("client") else s2c[m.offset:m.offset + 5].hex()}')
            for t in toks:
                if t[0] == 'ad':
                    print(f'     ClassAd: {len(t[1])} attributes, trailing strings {t[2]!r}')
                    for a in t[1]:
                        name, expr = cedarpeek.parse_attr(a)
                        print(f'       {name:<22} {wire_type(expr):<10} {show(expr)}')
                elif t[0] == 'int':
                    print(f'     int {t[1]}')
                else:
                    print(f'     {t[0]} {show(repr(t[1]))}')
        print()
    print('=== same shape seen again in:')
    for key, ids in seen.items():
        if len(ids) > 1:
            print(f'  {key}: {len(ids) - 1} more ({", ".join(i[:3] for i in ids[1:])})')


if __name__ == '__main__':
    main()
