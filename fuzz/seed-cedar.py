#!/usr/bin/env python3
"""Writes seed corpora of the cedar fuzz targets (fuzz/corpus/cedar_*/) from
the crate's test data: captured handshake ads, real tokens, sinful and
version strings. Usage (from the repository root): python3 fuzz/seed-cedar.py
"""
import hashlib
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
DATA = os.path.join(ROOT, "cedar", "tests", "data")


def write(target, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def i64(v):
    return struct.pack(">q", v)


def s(b):
    return b + b"\0"


def wire_ad(lines):
    out = i64(len(lines))
    for l in lines:
        out += s(l)
    return out + s(b"") + s(b"")


def frame(payload, size=1 << 20):
    out = b""
    for i in range(0, len(payload), size):
        part = payload[i:i + size]
        end = 1 if i + size >= len(payload) else 0
        out += bytes([end]) + struct.pack(">I", len(part)) + part
    return out


def chunk(b):
    return struct.pack("<H", len(b)) + b


def main():
    ads = {}
    for name in sorted(os.listdir(os.path.join(DATA, "handshake"))):
        if name.endswith(".ad"):
            with open(os.path.join(DATA, "handshake", name), "rb") as f:
                ads[name] = [l for l in f.read().split(b"\n") if l.strip()]
    for name, lines in ads.items():
        payload = i64(60010) + wire_ad(lines)
        write("cedar_wire", b"\x00" + frame(payload))
        write("cedar_wire", b"\x01" + payload)
        write("cedar_ad", b"\x00" + wire_ad(lines))
        write("cedar_ad", b"\x02" + b"\n".join(lines))
        write("cedar_handshake", b"\x00" + chunk(payload))
        write("cedar_handshake", b"\x01\x00" + chunk(b"\n".join(lines[:4])))
        write("cedar_handshake", b"\x01\x01" + chunk(b"\n".join(lines)))
    reply = i64(1) + wire_ad(ads["client_resume.ad"]) + i64(1) + wire_ad(ads["server_post_auth.ad"]) + i64(0)
    write("cedar_wire", b"\x00" + frame(reply, 100))
    write("cedar_handshake", b"\x02\x00" + chunk(b'Nonce = "x"\nRemoteVersion = "$CondorVersion: 23.9.6 2024-01-01 $"'))
    write("cedar_handshake", b"\x02\x01" + chunk(b'Sid = "fuzz-host:1:2:3"'))
    write("cedar_handshake", b"\x03" + chunk(i64(5) + i64(0)) + chunk(i64(60010) + wire_ad(ads["client_resume.ad"])))
    write("cedar_handshake", b"\x03" + chunk(i64(1)))
    for name in sorted(os.listdir(os.path.join(DATA, "token"))):
        if name.endswith(".jwt"):
            with open(os.path.join(DATA, "token", name), "rb") as f:
                tok = f.read().strip()
            write("cedar_token", b"\x00" + tok)
            sig_input = tok.rsplit(b".", 1)[0]
            hello = i64(0) + i64(5) + s(b"alice@pool") + s(sig_input) + i64(256) + b"\x07" * 256
            confirm = i64(0) + i64(5) + s(b"alice@pool") + i64(256) + b"\x07" * 256 + i64(20) + b"\x01" * 20
            write("cedar_token", b"\x01" + hello + confirm)
    write("cedar_token", b"\x02" + chunk(b"alice@pool.example") + chunk(b"pool.example") + b"\x40" + chunk(b"condor:/READ,condor:/WRITE") + chunk(b"r" * 256) + b"\x05\x09")
    write("cedar_token", b"\x02" + chunk(b"bob") + chunk(b"x") + b"\x00" + chunk(b"") + chunk(b"") + b"\x00\x00\x01")
    write("cedar_token", b'\x00SEC_TOKEN_REVOCATION_EXPR = jti == "abc" || sub =?= "x"')
    for text in [b"<127.0.0.1:9618>", b"<127.0.0.1:9618?addrs=127.0.0.1-9618&alias=wn.example&noUDP&sock=collector>",
                 b"<[::1]:9618?addrs=[::1]-9618+127.0.0.1-9618>", b"<10.0.0.1:0?CCBID=10.0.0.2:9618%3fsock%3dc#17&PrivNet=x>",
                 b"$CondorVersion: 23.9.6 2024-07-12 BuildID: Debian-23.9.6+dfsg-2.1 PackageID: 23.9.6+dfsg-2.1+b10 $",
                 b"$CondorVersion: 23.10.29 2025-09-23 BuildID: UW_Python_Wheel_Build $", b"$CondorVersion: 8.9.13 $"]:
        write("cedar_sinful", text)


if __name__ == "__main__":
    main()
