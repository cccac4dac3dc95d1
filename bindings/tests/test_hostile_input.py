"""Input meant to break the module: registered functions that recurse
through evaluation, streams that never end. Each must end in a Python
exception, never a crash, a hang or unbounded memory; the crashes are
looked for in a subprocess, so that one fails its test instead of killing
pytest."""

import os
import subprocess
import sys
import textwrap

import pytest

if os.environ.get("CLASSAD_RS_TEST_MODULE") == "classad2":
    import classad2
else:
    import classad_rs as classad2

MODULE = classad2.__name__

# A registered function that evaluates an expression calling itself, with
# Python's recursion limit raised far past what the stack holds; run on the
# main thread, or on a thread of the given stack size.
RECURSION = """
import sys, threading
import {module} as classad2

sys.setrecursionlimit(1_000_000)
levels = 0

def down(n):
    global levels
    levels += 1
    return classad2.ExprTree(f"down({{n - 1}})").eval() if n > 0 else 0

classad2.register(down)

def run():
    try:
        classad2.ExprTree("down(100000)").eval()
    except RecursionError as e:
        print(levels, e)

stack = {stack}
if stack is None:
    run()
else:
    if stack:
        threading.stack_size(stack)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
"""


def recurse(stack):
    """What the recursion script prints, run with a thread of ``stack``
    bytes (0: Python's default; None: on the main thread)."""
    script = textwrap.dedent(RECURSION.format(module=MODULE, stack=stack))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"exit status {done.returncode}: {done.stderr[-2000:]}"
    levels, message = done.stdout.split(" ", 1)
    return int(levels), message.strip()


def test_extension_recursion_through_registered_functions_stops_at_the_limit():
    levels, message = recurse(None)
    assert levels == 256
    assert "registered functions nested more than 256 levels deep" in message
    levels, message = recurse(0)  # threading's default stack
    assert levels == 256 and "more than 256 levels" in message


@pytest.mark.parametrize("stack", [256 << 10, 512 << 10, 1 << 20])
def test_extension_recursion_through_registered_functions_stops_before_a_small_stack_ends(stack):
    levels, message = recurse(stack)
    assert 0 < levels <= 256
    if levels < 256:
        assert "of this thread's stack left, a call needs 128 KiB" in message


class EndlessAds:
    """A file object giving old-format ads without end (``A = 0``, ``A = 1``,
    ...) that refuses to be read whole and counts what it gave; text, or
    bytes when ``binary``. ``fail_after`` bytes given, it raises OSError."""

    def __init__(self, binary=False, fail_after=None):
        self.binary = binary
        self.fail_after = fail_after
        self.given = 0
        self.pending = ""
        self.next_ad = 0

    def read(self, size=-1):
        if size is None or size < 0:
            raise AssertionError("an endless stream read whole")
        if self.fail_after is not None and self.given >= self.fail_after:
            raise OSError("the disk went away")
        while len(self.pending) < size:
            self.pending += f"A = {self.next_ad}\nB = \"{'x' * 100}\"\n\n"
            self.next_ad += 1
        chunk, self.pending = self.pending[:size], self.pending[size:]
        self.given += len(chunk)
        return chunk.encode() if self.binary else chunk


@pytest.mark.parametrize("binary", [False, True])
def test_extension_parse_ads_of_a_file_object_reads_as_it_yields(binary):
    stream = EndlessAds(binary)
    ads = classad2.parseAds(stream)
    assert next(ads)["A"] == 0
    assert stream.given <= 1 << 16  # one chunk
    assert [next(ads)["A"] for _ in range(1000)] == list(range(1, 1001))
    assert stream.given <= 3 << 16


def test_extension_parse_ads_raises_what_the_file_object_raises():
    stream = EndlessAds(fail_after=1 << 16)
    ads = classad2.parseAds(stream)
    assert next(ads)["A"] == 0
    with pytest.raises(OSError, match="the disk went away"):
        list(ads)


class OversizedAd:
    """A binary file object: an ad of 20 MiB (one long line), then 20 MiB
    of small ads, made as they are read."""

    SIZE = 20 << 20

    def __init__(self):
        self.given = 0

    def read(self, size=-1):
        assert size is not None and size > 0
        if self.given < self.SIZE:
            chunk = b"A = 1\nB = \"" if self.given == 0 else b"x" * min(size, self.SIZE - self.given)
            if self.given + len(chunk) >= self.SIZE:
                chunk += b"\"\n\n"
        elif self.given < 2 * self.SIZE:
            chunk = b"A = 2\n\n" * (size // 7)
        else:
            chunk = b""
        self.given += len(chunk)
        return chunk


def test_extension_parse_ads_of_a_file_object_refuses_an_ad_past_the_limit():
    stream = OversizedAd()
    with pytest.raises(classad2.ClassAdException, match="ad larger than the limit of 16777216 bytes") as caught:
        list(classad2.parseAds(stream))
    assert caught.value.line == 2
    # The reading stopped at the bad ad, without reading the rest.
    assert OversizedAd.SIZE <= stream.given < OversizedAd.SIZE + (1 << 20)


@pytest.mark.parametrize("mode", ["r", "rb"])
def test_extension_parse_ads_of_a_pipe_yields_each_ad_as_it_comes(mode):
    import threading

    read_end, write_end = os.pipe()
    first_seen, gave_up = threading.Event(), threading.Event()

    def write():
        with os.fdopen(write_end, "wb") as w:
            w.write(b"A = 1\nB = 2\n\n")
            w.flush()
            if not first_seen.wait(timeout=5):
                gave_up.set()
            w.write(b"A = 3\n")

    writer = threading.Thread(target=write)
    writer.start()
    try:
        with os.fdopen(read_end, mode) as r:
            ads = classad2.parseAds(r)
            assert dict(next(ads).items()) == {"A": 1, "B": 2}
            # Had parseAds waited for the end of the pipe, the writer would
            # have given up waiting first.
            assert not gave_up.is_set()
            first_seen.set()
            assert [ad["A"] for ad in ads] == [3]
    finally:
        first_seen.set()
        writer.join()


def test_extension_parse_ads_of_a_file_object_read_by_two_threads_at_once():
    import threading

    reading, go_on = threading.Event(), threading.Event()

    class SlowFile:
        """Its first ad at once (read at the call), the next one slowly."""

        reads = 0

        def read(self, size=-1):
            self.reads += 1
            if self.reads == 1:
                return "A = 1\n\n"
            if self.reads == 2:
                reading.set()
                go_on.wait(timeout=20)
                return "A = 2\n\n"
            return ""

    ads = classad2.parseAds(SlowFile())
    got = []
    reader = threading.Thread(target=lambda: got.extend(ads))
    reader.start()
    try:
        assert reading.wait(timeout=20)
        # The other thread holds the stream while its file reads: this one
        # is refused rather than left waiting (or racing it).
        with pytest.raises(RuntimeError, match="being read by another thread"):
            next(ads)
    finally:
        go_on.set()
        reader.join()
    assert [ad["A"] for ad in got] == [1, 2]


class OneLongLine:
    """A text file object holding one ad whose second line is 20 MiB long,
    served by `readline(size)` only, as much as each call asks for."""

    SIZE = 20 << 20

    def __init__(self):
        self.given = 0
        self.asked = []

    def readline(self, size=-1):
        self.asked.append(size)
        if self.given == 0:
            line = 'A = 1\n'
        elif self.given < self.SIZE:
            n = size if size is not None and size >= 0 else self.SIZE
            line = "B" * min(n, self.SIZE - self.given)
        else:
            line = ""
        self.given += len(line)
        return line


def test_extension_parse_next_of_a_file_object_never_holds_a_long_line_whole():
    stream = OneLongLine()
    with pytest.raises(classad2.ClassAdException):
        classad2.parseNext(stream)
    # Every call asked for a bounded piece (the reader skips the rest of an
    # oversized line piece by piece, holding none of it whole).
    assert stream.asked and all(0 < size <= 64 * 1024 for size in stream.asked)
    assert stream.given <= OneLongLine.SIZE
