#!/usr/bin/env python3
"""pcap2corpus.py -- turn capture.sh's scratch directory into the wire corpus.

    python3 pcap2corpus.py --work /tmp/cedar-capture.XXXX --out <this directory>

Input (in --work): lo.pcap (tcpdump on lo), steps.jsonl, phases.json, expected/, tool-debug/,
logs/ (the daemons' logs).  Output (in --out):
  conn/<id>.c2s.bin, conn/<id>.s2c.bin   the two byte streams of one TCP connection, exactly
                                         as they crossed the wire (reassembled by sequence number)
  index.json                             one entry per kept connection (see README.md)
  expected/, tool-debug/, logs/*.gz, steps.json, phases.json
Python standard library only.
"""
import argparse
import datetime
import glob
import gzip
import json
import os
import re
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cedarpeek  # noqa: E402

SERVER_PORTS = {9618: 'collector', 9631: 'schedd', 9632: 'startd', 9633: 'negotiator',
                9634: 'stranger-collector'}
NOISE_PREFIXES = ('DRAIN_', 'DC_FETCH_LOG_', 'CA_', 'CREDD_', 'GET_JOB_CONNECT_INFO')


# ---------------------------------------------------------------- pcap reading
def read_pcap(path):
    """Yield (ts, ip_src, sport, ip_dst, dport, proto, flags, seq, payload)."""
    with open(path, 'rb') as f:
        gh = f.read(24)
        magic = struct.unpack('<I', gh[:4])[0]
        if magic in (0xa1b2c3d4, 0xa1b23c4d):
            endian = '<'
        else:
            endian = '>'
            magic = struct.unpack('>I', gh[:4])[0]
        nano = magic == 0xa1b23c4d
        linktype = struct.unpack(endian + 'I', gh[20:24])[0]
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                break
            sec, frac, incl, _orig = struct.unpack(endian + 'IIII', rh)
            pkt = f.read(incl)
            ts = sec + frac / (1e9 if nano else 1e6)
            if linktype == 1:            # Ethernet (what tcpdump -i lo gives)
                if struct.unpack('>H', pkt[12:14])[0] != 0x0800:
                    continue
                ip = pkt[14:]
            elif linktype == 113:        # Linux cooked
                ip = pkt[16:]
            elif linktype in (0, 101):   # raw / null
                ip = pkt[4:] if linktype == 0 else pkt
            else:
                raise SystemExit(f'unsupported pcap linktype {linktype}')
            if ip[0] >> 4 != 4:
                continue
            ihl = (ip[0] & 15) * 4
            total = struct.unpack('>H', ip[2:4])[0]
            proto = ip[9]
            src = '.'.join(map(str, ip[12:16]))
            dst = '.'.join(map(str, ip[16:20]))
            l4 = ip[ihl:total]
            if proto == 6:
                sport, dport, seq, _ack = struct.unpack('>HHII', l4[:12])
                off = (l4[12] >> 4) * 4
                flags = l4[13]
                yield ts, src, sport, dst, dport, 'tcp', flags, seq, bytes(l4[off:])
            elif proto == 17:
                sport, dport = struct.unpack('>HH', l4[:4])
                yield ts, src, sport, dst, dport, 'udp', 0, 0, bytes(l4[8:])


class Direction:
    def __init__(self):
        self.isn = None
        self.chunks = {}     # offset -> bytes
        self.segs = []       # (ts, offset, len) of first transmissions

    def add(self, ts, seq, payload):
        if self.isn is None or not payload:
            return
        off = (seq - self.isn - 1) & 0xffffffff
        if off in self.chunks and len(self.chunks[off]) >= len(payload):
            return           # retransmission
        self.chunks[off] = payload
        self.segs.append((ts, off, len(payload)))

    def assemble(self):
        out, gaps = bytearray(), 0
        for off in sorted(self.chunks):
            data = self.chunks[off]
            if off > len(out):
                gaps += off - len(out)
                out += b'\0' * (off - len(out))
            if off + len(data) > len(out):
                out += data[len(out) - off:]
        return bytes(out), gaps


class Conn:
    def __init__(self, ts, cip, cport, sip, sport):
        self.t_syn = ts
        self.t_end = None
        self.client = (cip, cport)
        self.server = (sip, sport)
        self.c2s = Direction()
        self.s2c = Direction()
        self.closed_by = None


def split_connections(pcap):
    conns, live, udp = [], {}, []
    for ts, src, sport, dst, dport, proto, flags, seq, payload in read_pcap(pcap):
        if proto == 'udp':
            udp.append({'t': ts, 'src': f'{src}:{sport}', 'dst': f'{dst}:{dport}', 'len': len(payload),
                        'hex_head': payload[:64].hex()})
            continue
        syn, ack, fin, rst = flags & 2, flags & 16, flags & 1, flags & 4
        key = (src, sport, dst, dport)
        rkey = (dst, dport, src, sport)
        if syn and not ack:
            c = Conn(ts, src, sport, dst, dport)
            c.c2s.isn = seq
            live[key] = c
            conns.append(c)
            continue
        if key in live:
            c, d = live[key], live[key].c2s
        elif rkey in live:
            c, d = live[rkey], live[rkey].s2c
            if syn and ack:
                d.isn = seq
                continue
        else:
            continue         # connection begun before the capture
        d.add(ts, seq, payload)
        if fin or rst:
            c.t_end = ts
            if c.closed_by is None:
                c.closed_by = 'client' if d is c.c2s else 'server'
    return conns, udp


# ---------------------------------------------------------------- who is the client?
TS_RE = re.compile(r'^(\d\d)/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))? ')
BOUND_RE = re.compile(r'CONNECT bound to <127\.0\.0\.1:(\d+)[^>]*> fd=\d+ peer=<127\.0\.0\.1:(\d+)')


def log_time(line):
    m = TS_RE.match(line)
    if not m:
        return None
    mo, d, y, h, mi, s, frac = m.groups()
    t = datetime.datetime(2000 + int(y), int(mo), int(d), int(h), int(mi), int(s),
                          tzinfo=datetime.timezone.utc).timestamp()
    return t + (int(frac) / 10 ** len(frac) if frac else 0)


def log_owner(path):
    base = os.path.basename(path)
    for prefix, who in (('CollectorLog', 'collector'), ('StrangerCollectorLog', 'stranger-collector'), ('NegotiatorLog', 'negotiator'),
                        ('SchedLog', 'schedd'), ('StartLog', 'startd'), ('MasterLog', 'master'),
                        ('ShadowLog', 'shadow'), ('StarterLog', 'starter'), ('MatchLog', None)):
        if base.startswith(prefix):
            return who
    return None


def bound_ports(work, steps):
    """(local_port, peer_port) -> [(time, owner)] from every 'CONNECT bound to' log line."""
    out = {}
    files = [(p, log_owner(p)) for p in glob.glob(os.path.join(work, 'logs', '*'))]
    files += [(os.path.join(work, 'tool-debug', s['step'] + '.stderr'), 'tool:' + s['step']) for s in steps]
    for path, owner in files:
        if owner is None or not os.path.exists(path):
            continue
        with open(path, errors='replace') as f:
            for line in f:
                m = BOUND_RE.search(line)
                if m:
                    t = log_time(line)
                    out.setdefault((int(m.group(1)), int(m.group(2))), []).append((t, owner))
    return out


# ---------------------------------------------------------------- labelling
def command_name(names, num):
    cands = names.get(str(num), [])
    good = [n for n in cands if not n.startswith(NOISE_PREFIXES)]
    return (good or cands or [str(num)])[0]


def describe(c2s, s2c, names):
    """What the first messages say: command, handshake kind, the client's security ad."""
    info = {'command': None, 'command_name': None, 'opening': None}
    cm, crest = cedarpeek.split_messages(c2s)
    sm, srest = cedarpeek.split_messages(s2c)
    if not cm:
        info['opening'] = 'empty'
        return info, cm, sm, crest, srest
    r = cedarpeek.Reader(cm[0].payload)
    try:
        first = r.int()
    except ValueError:
        info['opening'] = 'unparsed'
        return info, cm, sm, crest, srest
    if first == 60010:
        ad = cedarpeek.looks_like_ad(cm[0].payload, 8)
        sec = cedarpeek.ad_dict(ad[0]) if ad else {}
        cmd = int(sec.get('Command', '60010'))
        info.update(command=cmd, command_name=command_name(names, cmd),
                    opening='DC_AUTHENTICATE resume' if sec.get('UseSession') == '"YES"'
                    else 'DC_AUTHENTICATE new session',
                    client_subsystem=(sec.get('Subsystem') or '').strip('"') or None)
        if 'AuthCommand' in sec:
            info['auth_command'] = int(sec['AuthCommand'])
            info['auth_command_name'] = command_name(names, int(sec['AuthCommand']))
        if sm:
            resp = cedarpeek.looks_like_ad(sm[0].payload, 0)
            if resp:
                d = cedarpeek.ad_dict(resp[0])
                info['server_says'] = {k: d[k] for k in ('Authentication', 'Encryption', 'Integrity',
                                                         'ReturnCode', 'Enact') if k in d}
    else:
        info.update(command=first, command_name=command_name(names, first), opening='raw')
    return info, cm, sm, crest, srest


def looks_plaintext(msgs):
    """Heuristic: are the messages after the first one readable CEDAR (text, NUL and 0x00/0xff
    integer padding) rather than AES-GCM ciphertext (uniformly random bytes)?"""
    body = b''.join(m.payload for m in msgs[1:])
    if not body:
        return None
    ok = sum(1 for b in body if 32 <= b < 127 or b in (0, 9, 10, 255))
    return ok / len(body) > 0.75


def shape(m):
    """A short description of one plaintext message, e.g. '0+ad(Machine,170)+ad(Machine,8)'."""
    parts = []
    for t in cedarpeek.tokens(m.payload):
        if t[0] == 'int':
            parts.append(str(t[1]))
        elif t[0] == 'ad':
            my = (cedarpeek.ad_dict(t[1]).get('MyType') or '-').strip('"')
            parts.append(f'ad({my},{len(t[1])})')
        elif t[0] == 'str':
            parts.append('str')
        else:
            parts.append(f'bytes({len(t[1])})')
    return '+'.join(parts)


def msg_list(msgs, direction, segs, plaintext):
    out = []
    for i, m in enumerate(msgs):
        last = m.offset + 5 * m.packets + len(m.payload) - 1
        t = next((ts for ts, off, ln in sorted(segs) if off <= last < off + ln), None)
        first = struct.unpack('>q', m.payload[:8])[0] if len(m.payload) >= 8 else None
        e = {'dir': direction, 'offset': m.offset, 'packets': m.packets,
             'payload_len': len(m.payload), 'first_int': first, 't': t}
        if plaintext or i == 0:
            e['shape'] = shape(m)
        out.append(e)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--work', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--keep-per-group', type=int, default=2,
                    help='daemon connections kept per (client, server, command, opening) group, plus the last')
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    names = json.load(open(os.path.join(here, 'command-names.json')))
    steps = [json.loads(l) for l in open(os.path.join(a.work, 'steps.jsonl')) if l.strip()]
    phases = json.load(open(os.path.join(a.work, 'phases.json')))
    t0 = phases['pool_start']
    bound = bound_ports(a.work, steps)
    conns, udp = split_connections(os.path.join(a.work, 'lo.pcap'))

    entries = []
    for c in conns:
        c2s, g1 = c.c2s.assemble()
        s2c, g2 = c.s2c.assemble()
        info, cm, sm, crest, srest = describe(c2s, s2c, names)
        cands = bound.get((c.client[1], c.server[1]), [])
        owner = None
        if cands:
            owner = min(cands, key=lambda tw: abs((tw[0] or 0) - c.t_syn))
            owner = owner[1] if abs((owner[0] or 0) - c.t_syn) < 3 else None
        if owner is None:
            step = next((s for s in steps if s['t_start'] - 0.05 <= c.t_syn <= s['t_end'] + 0.05), None)
            if step and info.get('client_subsystem') == 'TOOL':
                owner = 'tool:' + step['step']
            elif info.get('client_subsystem') == 'TOOL':
                owner = 'tool:unlabelled'
            elif info.get('client_subsystem'):
                owner = info['client_subsystem'].lower()
            elif info.get('command_name') == 'DC_INVALIDATE_KEY':
                owner = 'family-escape'      # family-escape.py's raw DC_INVALIDATE_KEY (escape variant)
            else:
                owner = 'unknown'
        server = SERVER_PORTS.get(c.server[1], f'port{c.server[1]}')
        entries.append({'conn': c, 'c2s': c2s, 's2c': s2c, 'gaps': g1 + g2, 'info': info, 'client': owner,
                        'server': server, 'cm': cm, 'sm': sm, 'crest': crest, 'srest': srest})

    # selection: every tool step; per daemon group the first N and the last
    groups, kept, dropped = {}, [], {}
    empty = [e for e in entries if e['info']['opening'] == 'empty']
    for e in entries:
        if e['info']['opening'] == 'empty':
            continue     # connected, nothing sent either way (seen at shutdown)
        if e['client'].startswith('tool:') and e['client'] != 'tool:unlabelled':
            kept.append(e)
            continue
        key = (e['client'], e['server'], e['info']['command_name'], e['info']['opening'])
        groups.setdefault(key, []).append(e)
    for key, es in groups.items():
        limit = a.keep_per_group + (2 if key[2] in ('NEGOTIATE', 'REQUEST_CLAIM') else 0)
        pick = es[:limit] + ([es[-1]] if len(es) > limit else [])
        if key[0] == 'tool:unlabelled':
            pick = es[:1]
        kept.extend(pick)
        if len(es) > len(pick):
            dropped['/'.join(str(k) for k in key)] = len(es) - len(pick)
    kept.sort(key=lambda e: e['conn'].t_syn)

    conn_dir = os.path.join(a.out, 'conn')
    shutil.rmtree(conn_dir, ignore_errors=True)
    os.makedirs(conn_dir)
    index, per_label = [], {}
    for e in kept:
        c, info = e['conn'], e['info']
        who = e['client'].split(':', 1)[-1]
        base = f"{who}__{info['command_name'] or 'none'}__{e['server']}"
        per_label[base] = per_label.get(base, 0) + 1
        cid = f"{len(index):03d}_{base}_{per_label[base]}".replace('/', '_')
        with open(os.path.join(conn_dir, cid + '.c2s.bin'), 'wb') as f:
            f.write(e['c2s'])
        with open(os.path.join(conn_dir, cid + '.s2c.bin'), 'wb') as f:
            f.write(e['s2c'])
        msgs = (msg_list(e['cm'], 'c2s', c.c2s.segs, looks_plaintext(e['cm']) is not False) +
                msg_list(e['sm'], 's2c', c.s2c.segs, looks_plaintext(e['sm']) is not False))
        msgs.sort(key=lambda m: (m['t'] if m['t'] is not None else 1e18))
        index.append({
            'id': cid, 'client': e['client'], 'server': e['server'],
            'client_port': c.client[1], 'server_port': c.server[1],
            't_syn': round(c.t_syn, 6), 't_rel': round(c.t_syn - t0, 3),
            't_end': round(c.t_end, 6) if c.t_end else None, 'closed_by': c.closed_by,
            **info,
            'c2s_bytes': len(e['c2s']), 's2c_bytes': len(e['s2c']),
            'c2s_messages': len(e['cm']), 's2c_messages': len(e['sm']),
            'c2s_incomplete_tail': len(e['crest']), 's2c_incomplete_tail': len(e['srest']),
            'reassembly_gap_bytes': e['gaps'],
            'c2s_plaintext_after_first_message': looks_plaintext(e['cm']),
            's2c_plaintext_after_first_message': looks_plaintext(e['sm']),
            'messages': msgs,
        })
    out = {
        'generator': 'capture.sh + pcap2corpus.py',
        'htcondor': '23.9.6 (Debian trixie package, anchor chroot)',
        'phases': phases,
        'server_ports': {str(k): v for k, v in SERVER_PORTS.items()},
        'connections_seen': len(entries), 'connections_kept': len(kept),
        'dropped_repeats': dropped, 'udp_datagrams': udp,
        'empty_connections': [{'client_port': e['conn'].client[1], 'server': e['server'],
                               't_rel': round(e['conn'].t_syn - t0, 3)} for e in empty],
        'connections': index,
    }
    with open(os.path.join(a.out, 'index.json'), 'w') as f:
        json.dump(out, f, indent=1)
        f.write('\n')

    # the rest of the evidence
    dst = os.path.join(a.out, 'expected')
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(os.path.join(a.work, 'expected'), dst)
    dst = os.path.join(a.out, 'tool-debug')
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for p in sorted(glob.glob(os.path.join(a.work, 'tool-debug', '*'))):
        with open(p, 'rb') as src, gzip.open(os.path.join(dst, os.path.basename(p) + '.gz'), 'wb', 9) as out:
            shutil.copyfileobj(src, out)
    logs = os.path.join(a.out, 'logs')
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)
    for p in sorted(glob.glob(os.path.join(a.work, 'logs', '*'))):
        with open(p, 'rb') as src, gzip.open(os.path.join(logs, os.path.basename(p) + '.gz'), 'wb', 9) as dst:
            shutil.copyfileobj(src, dst)
    with open(os.path.join(a.out, 'steps.json'), 'w') as f:
        json.dump(steps, f, indent=1)
        f.write('\n')
    print(f'{len(entries)} connections seen, {len(kept)} kept, {len(udp)} UDP datagrams; '
          f'dropped repeats: {sum(dropped.values())}')


if __name__ == '__main__':
    main()
