#!/usr/bin/env python3
"""family-escape.py -- an experiment: can a server outside the master's family make the
master's children stop trying their family session on it, by answering SID_NOT_FOUND *and*
sending DC_INVALIDATE_KEY back (what a 23.9 server does only for pre-9.9 clients)?

    python3 family-escape.py --port 9634 --seconds 40 --log escape-log.json

It listens on 127.0.0.1:PORT and, for every connection, reads the client's first CEDAR message:
* a resume of a "family:" session -> replies {ReturnCode = "SID_NOT_FOUND"}, closes, then (unless
  --no-invalidate) connects to the client's ServerCommandSock and sends the raw command
  DC_INVALIDATE_KEY (60014) with the string "<sid>\\n[ConnectSinful = \\"<ConnectSinful>\\"]"
  (daemon_core_main.cpp 2740-2775 at v23.9.6 puts that sinful into the client's
  m_not_my_family set);
* anything else (a new session) -> records the ad and closes without answering.
Every event goes to the JSON log. Python standard library only; plaintext CEDAR only.
"""
import argparse
import json
import os
import re
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cedarpeek  # noqa: E402

DC_INVALIDATE_KEY = 60014


def read_message(sock, limit=1 << 20):
    payload = bytearray()
    while True:
        head = recv_exact(sock, 5)
        end, length = head[0], struct.unpack('>I', head[1:])[0]
        if length > limit:
            raise ValueError('packet too large')
        payload += recv_exact(sock, length)
        if end != 0:
            return bytes(payload)


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return bytes(buf)


def put_int(v):
    return struct.pack('>q', v)


def put_string(s):
    return s.encode() + b'\0'


def put_ad(attrs):
    out = put_int(len(attrs))
    for a in attrs:
        out += put_string(a)
    return out + put_string('') + put_string('')


def send_message(sock, payload):
    sock.sendall(bytes([1]) + struct.pack('>I', len(payload)) + payload)


def sinful_hostport(sinful):
    m = re.match(r'<([0-9.]+):(\d+)', sinful)
    return (m.group(1), int(m.group(2))) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--port', type=int, default=9634)
    ap.add_argument('--seconds', type=float, default=40)
    ap.add_argument('--log', required=True)
    ap.add_argument('--no-invalidate', action='store_true')
    a = ap.parse_args()
    events, lock = [], threading.Lock()

    def record(**kw):
        kw['t'] = time.time()
        with lock:
            events.append(kw)

    def invalidate(sid, connect_sinful, return_addr):
        hp = sinful_hostport(return_addr)
        if not hp:
            record(event='invalidate_skipped', reason='no ServerCommandSock')
            return
        msg = sid + '\n' + '[ConnectSinful = "%s"]' % connect_sinful
        try:
            with socket.create_connection(hp, timeout=5) as s:
                send_message(s, put_int(DC_INVALIDATE_KEY) + put_string(msg))
                s.shutdown(socket.SHUT_WR)
                s.settimeout(2)
                try:
                    rest = s.recv(100)
                except socket.timeout:
                    rest = b''
            record(event='invalidate_sent', to=return_addr, string=msg, reply_bytes=len(rest))
        except OSError as e:
            record(event='invalidate_failed', to=return_addr, error=str(e))

    def handle(conn, peer):
        with conn:
            conn.settimeout(10)
            try:
                first = read_message(conn)
            except (EOFError, ValueError, OSError) as e:
                record(event='no_message', peer=peer, error=str(e))
                return
            toks = cedarpeek.tokens(first)
            cmd = toks[0][1] if toks and toks[0][0] == 'int' else None
            ad = cedarpeek.ad_dict(toks[1][1]) if len(toks) > 1 and toks[1][0] == 'ad' else {}
            sid = (ad.get('Sid') or '').strip('"')
            kind = 'resume' if ad.get('UseSession') == '"YES"' else ('new session' if cmd == 60010 else 'raw')
            record(event='connection', peer=peer, first_int=cmd, kind=kind, command=ad.get('Command'),
                   sid=sid or None, subsystem=ad.get('Subsystem'), attrs=sorted(ad))
            if kind == 'resume' and sid.startswith('family:'):
                send_message(conn, put_ad(['ReturnCode = "SID_NOT_FOUND"']))
                conn.close()
                if not a.no_invalidate:
                    invalidate(sid, (ad.get('ConnectSinful') or '').strip('"'),
                               (ad.get('ServerCommandSock') or '').strip('"'))

    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(('127.0.0.1', a.port))
    srv.listen(64)
    srv.settimeout(0.5)
    end = time.time() + a.seconds
    threads = []
    while time.time() < end:
        try:
            conn, peer = srv.accept()
        except socket.timeout:
            continue
        t = threading.Thread(target=handle, args=(conn, '%s:%d' % peer), daemon=True)
        t.start()
        threads.append(t)
    srv.close()
    for t in threads:
        t.join(5)
    with open(a.log, 'w') as f:
        json.dump(events, f, indent=1)
        f.write('\n')
    kinds = {}
    for e in events:
        if e['event'] == 'connection':
            kinds[e['kind']] = kinds.get(e['kind'], 0) + 1
    print(f"{len(events)} events; connections by kind: {kinds}; "
          f"invalidations sent: {sum(1 for e in events if e['event'] == 'invalidate_sent')}")


if __name__ == '__main__':
    main()
