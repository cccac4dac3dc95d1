#!/usr/bin/env python3
"""verify.py -- check the corpus against HTCondor's own account of it.

    python3 verify.py [DIR]      # DIR = this directory (default) or family/

1. Framing: every plaintext connection splits into whole CEDAR messages (no bytes left over).
2. Queries: for each `condor_status ... -l` step, the ads decoded from the collector's reply
   (int 1 + ad ... int 0) are exactly the ads the tool printed (expected/<step>.out), attribute
   by attribute (name and expression text; the wire order differs from the printed order).
3. Advertising: for each condor_advertise step, the ads decoded from the client's bytes are
   exactly the ad file that was sent (ads/*.ad, parsed as "Name = expr" lines).
Exit status 1 if any check fails.  Python standard library only.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cedarpeek  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def printed_ads(text):
    """condor_status -l / ad-file text -> list of {name: expr} (blank lines separate ads)."""
    ads, cur = [], {}
    for line in text.splitlines():
        if not line.strip():
            if cur:
                ads.append(cur)
                cur = {}
            continue
        name, expr = cedarpeek.parse_attr(line)
        cur[name] = expr
    if cur:
        ads.append(cur)
    return ads


def wire_ads(msgs, skip_ints=True):
    out = []
    for m in msgs:
        for t in cedarpeek.tokens(m.payload):
            if t[0] == 'ad':
                out.append(cedarpeek.ad_dict(t[1]))
    return out


def payload_msgs(conn, msgs_c, msgs_s):
    """The messages after the handshake, per direction."""
    if conn['opening'] == 'raw':
        return msgs_c, msgs_s
    n_s = 2 if conn['opening'] == 'DC_AUTHENTICATE new session' else 1
    return msgs_c[1:], msgs_s[n_s:]


def diff(a, b):
    keys = sorted(set(a) | set(b))
    return [(k, a.get(k), b.get(k)) for k in keys if a.get(k) != b.get(k)]


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else HERE
    index = json.load(open(os.path.join(d, 'index.json')))
    steps = {s['step']: s for s in json.load(open(os.path.join(d, 'steps.json')))}
    fails, checks = 0, 0
    for c in index['connections']:
        c2s = open(os.path.join(d, 'conn', c['id'] + '.c2s.bin'), 'rb').read()
        s2c = open(os.path.join(d, 'conn', c['id'] + '.s2c.bin'), 'rb').read()
        mc, rc = cedarpeek.split_messages(c2s)
        ms, rs = cedarpeek.split_messages(s2c)
        plain = c['c2s_plaintext_after_first_message'] is not False and \
            c['s2c_plaintext_after_first_message'] is not False
        if plain:
            checks += 1
            if rc or rs:
                print(f'FAIL framing {c["id"]}: {len(rc)}/{len(rs)} bytes left over')
                fails += 1
        if not c['client'].startswith('tool:'):
            continue
        step = steps.get(c['client'][5:])
        if not step:
            continue
        argv = step['argv']
        pc, ps = payload_msgs(c, mc, ms)
        if argv and '-l' in argv and any(a.endswith('condor_status') for a in argv):
            if c['command_name'] and c['command_name'].startswith('QUERY_'):
                checks += 1
                want = printed_ads(open(os.path.join(d, 'expected', step['step'] + '.out')).read())
                got = wire_ads(ps)
                if len(want) != len(got):
                    print(f'FAIL query {c["id"]}: tool printed {len(want)} ads, wire has {len(got)}')
                    fails += 1
                    continue
                # the tool may sort the ads (-any): pair them by identity, not by position
                def ident(a):
                    return (a.get('MyType'), a.get('Name'), a.get('MyAddress'))
                byid = {}
                for g in got:
                    byid.setdefault(ident(g), []).append(g)
                pairs = [(w, byid[ident(w)].pop(0) if byid.get(ident(w)) else {}) for w in want]
                bad = [(i, diff(w, g)) for i, (w, g) in enumerate(pairs) if diff(w, g)]
                if bad:
                    fails += 1
                    print(f'FAIL query {c["id"]}: {len(bad)} ads differ, first: {bad[0][1][:5]}')
                else:
                    print(f'ok   query {c["id"]}: {len(got)} ads, '
                          f'{sum(len(a) for a in got)} attributes equal to the tool\'s output')
        if 'condor_advertise' in argv and argv[-1].endswith('.ad') and c['command_name'].startswith(('UPDATE', 'INVALIDATE')):
            checks += 1
            sent = printed_ads(open(os.path.join(HERE, 'ads', os.path.basename(argv[-1]))).read())
            got = wire_ads(pc)
            # condor_advertise adds MyAddress = "<127.0.0.1:0>" to an invalidation query without one
            extra = [dict(g) for g in got]
            for s, g in zip(sent, extra):
                if 'MyAddress' not in s and g.get('MyAddress') == '"<127.0.0.1:0>"':
                    del g['MyAddress']
            if len(sent) != len(got) or any(diff(s, g) for s, g in zip(sent, extra)):
                fails += 1
                print(f'FAIL advertise {c["id"]}: sent {len(sent)} ads, wire {len(got)}: '
                      f'{[diff(s, g)[:3] for s, g in zip(sent, extra)]}')
            else:
                print(f'ok   advertise {c["id"]}: {len(got)} ads equal to {os.path.basename(argv[-1])}')
    print(f'{checks} checks, {fails} failed')
    sys.exit(1 if fails else 0)


if __name__ == '__main__':
    main()
