"""cedarpeek.py -- a tiny, independent reader of plaintext CEDAR bytes (Python standard library).

It exists to label and document the capture, not as a reference implementation: it knows the
TCP framing (5-byte packet header: 1 byte end flag, 4-byte big-endian payload length), 8-byte
big-endian integers, NUL-terminated strings (plaintext streams only) and the ClassAd layout
(int count, count "Name = expr" strings, two trailing strings).

    python3 cedarpeek.py conn/<id>.c2s.bin          # list the messages of one direction
"""
import struct
import sys

MAX_PACKET = 1 << 20


class Msg:
    """One CEDAR message: the joined payload of packets up to the first with end flag != 0."""

    def __init__(self, offset, payload, packets, end_flag):
        self.offset = offset          # byte offset of the message's first header in the stream
        self.payload = payload
        self.packets = packets
        self.end_flag = end_flag

    def __repr__(self):
        return f"Msg(offset={self.offset}, len={len(self.payload)}, packets={self.packets})"


def split_messages(data):
    """Split one direction's bytes into messages; returns (messages, trailing_bytes)."""
    msgs, pos = [], 0
    while pos < len(data):
        start, payload, packets = pos, bytearray(), 0
        while True:
            if pos + 5 > len(data):
                return msgs, data[start:]
            end, length = data[pos], struct.unpack('>I', data[pos + 1:pos + 5])[0]
            if length > MAX_PACKET or pos + 5 + length > len(data):
                return msgs, data[start:]
            payload += data[pos + 5:pos + 5 + length]
            pos += 5 + length
            packets += 1
            if end != 0:
                msgs.append(Msg(start, bytes(payload), packets, end))
                break
    return msgs, b''


class Reader:
    """Primitive reader over one message's payload (plaintext encoding)."""

    def __init__(self, payload):
        self.b = payload
        self.pos = 0

    def left(self):
        return len(self.b) - self.pos

    def int(self):
        if self.left() < 8:
            raise ValueError('short int')
        v = struct.unpack('>q', self.b[self.pos:self.pos + 8])[0]
        self.pos += 8
        return v

    def string(self):
        if self.left() >= 1 and self.b[self.pos] == 0xFF:
            self.pos += 1
            return None
        end = self.b.find(b'\0', self.pos)
        if end < 0:
            raise ValueError('unterminated string')
        s = self.b[self.pos:end].decode('utf-8', 'replace')
        self.pos = end + 1
        return s

    def classad(self, trailing=True):
        n = self.int()
        if not 0 <= n <= 100000:
            raise ValueError(f'bad attribute count {n}')
        attrs = [self.string() for _ in range(n)]
        tail = [self.string(), self.string()] if trailing else []
        return attrs, tail


def parse_attr(line):
    """'Name = expr' -> (Name, expr)."""
    if line is None or ' = ' not in line:
        return line, None
    name, expr = line.split(' = ', 1)
    return name, expr


def ad_dict(attrs):
    return dict(parse_attr(a) for a in attrs)


def looks_like_ad(payload, at=0):
    """Can a ClassAd be read from payload at byte `at`? Returns (attrs, tail, end) or None."""
    try:
        r = Reader(payload)
        r.pos = at
        attrs, tail = r.classad()
        if all(a is not None and ' = ' in a for a in attrs):
            return attrs, tail, r.pos
    except (ValueError, UnicodeDecodeError):
        pass
    return None


def tokens(payload):
    """Best-effort reading of one message as a sequence of ClassAds (count >= 1), 8-byte ints
    and, as a last resort, strings. Returns a list of ('ad', attrs, tail) / ('int', v) / ('str', s)
    / ('bytes', b)."""
    out, pos = [], 0
    while pos < len(payload):
        got = looks_like_ad(payload, pos)
        if got and got[0]:
            out.append(('ad', got[0], got[1]))
            pos = got[2]
            continue
        if len(payload) - pos >= 8:
            v = struct.unpack('>q', payload[pos:pos + 8])[0]
            if -(1 << 31) <= v < (1 << 32):
                out.append(('int', v))
                pos += 8
                continue
        end = payload.find(b'\0', pos)
        if end >= 0 and all(32 <= b < 127 or b in (9, 10) for b in payload[pos:end]):
            out.append(('str', payload[pos:end].decode()))
            pos = end + 1
            continue
        if len(payload) - pos >= 8:
            out.append(('int', struct.unpack('>q', payload[pos:pos + 8])[0]))
            pos += 8
            continue
        out.append(('bytes', payload[pos:]))
        break
    return out


def main(path):
    data = open(path, 'rb').read()
    msgs, rest = split_messages(data)
    for i, m in enumerate(msgs):
        print(f'#{i} offset={m.offset} packets={m.packets} len={len(m.payload)}')
        for t in tokens(m.payload):
            if t[0] == 'ad':
                print(f'   ClassAd: {len(t[1])} attrs, trailing {t[2]!r}')
                for a in t[1]:
                    print('     ', a[:160])
            elif t[0] == 'int':
                print(f'   int {t[1]}')
            else:
                print(f'   {t[0]} {t[1][:160]!r}')
    if rest:
        print(f'trailing incomplete bytes: {len(rest)}')


if __name__ == '__main__':
    main(sys.argv[1])
