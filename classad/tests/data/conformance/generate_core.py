#!/usr/bin/env python3
"""Generate core.jsonl, the ClassAd language-core conformance corpus.

Expected values come from the real HTCondor libclassad, through the Python
module ``classad2`` of the ``htcondor`` wheel from PyPI.

Usage:
    python3 generate_core.py [--python ORACLE_PYTHON] [--cases core_cases.txt]
                             [--out core.jsonl] [--timeout SECONDS]

    ORACLE_PYTHON is a Python interpreter that can ``import classad2``
    (default: $ORACLE_PYTHON, else ``python3``).  For example:

        python3 -m venv /tmp/oracle
        /tmp/oracle/bin/pip install htcondor==25.14.1
        python3 generate_core.py --python /tmp/oracle/bin/python

This driver uses the standard library only.  It starts one oracle worker
process per semantics, because libclassad's old/new semantics switch is
process-global:

  * "new": a process that only imports ``classad2``;
  * "old": a process that imports ``htcondor2`` first (which turns on old
    ClassAd semantics: unscoped names fall back to the TARGET ad,
    ``CurrentTime`` exists, ``017``/``0x10`` are parse errors, and the
    HTCondor-layer functions appear).  It runs with CONDOR_CONFIG=ONLY_ENV
    so that no local HTCondor configuration leaks in.

Workers run with TZ=UTC.  Every case is evaluated with a per-case timeout; a
worker that hangs is killed and restarted, and the case is recorded as
"TIMEOUT".

How a case is evaluated (inside the worker):
  * The expression must parse completely as one expression: this is checked
    with libclassad's own ClassAdParser::ParseExpression(text, full=true),
    called through ctypes, because classad2.ExprTree(text) parses the text
    wrapped as ``[expression = TEXT]`` and so silently accepts trailing junk
    such as ``1 ]`` and rejects a trailing ``// comment``.  Ads are checked
    the same way (the whole text must be one record expression).
  * The ExprTree is then obtained from ``[expression = TEXT<newline>]`` and
    evaluated with ``tree.simplify(MY, TARGET)``: MY is the case's ad (an
    empty ClassAd when the case gives none), TARGET is None unless the case
    is a ``match`` case.  With a target, classad2 evaluates the expression
    with MY as its scope inside a MatchClassAd(MY, TARGET), so ``MY.x``,
    ``TARGET.x`` and ``other.x`` resolve as in matchmaking.
  * ``expected`` is repr() of the simplified value (libclassad's canonical
    new-syntax unparse), or "PARSE_ERROR", "TIMEOUT", "EXCEPTION: <message>"
    (classad2 raised while evaluating), or "CRASH: <how>" (the oracle process
    died on this case).

Input format (core_cases.txt): see README.md.  Output: core.jsonl, first a
header line {"oracle": "classad2", "version": ..., "generated_by": ...}, then
one line per case and semantics, in input order (for a case run under both
semantics: "new" first, then "old").
"""

import argparse
import json
import os
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# The worker: runs under the oracle interpreter.  Reads one JSON request per
# line on stdin, writes one JSON answer per line on stdout.
# ---------------------------------------------------------------------------
WORKER = r'''
import ctypes, glob, json, os, sys

semantics = sys.argv[1]
if semantics == "old":
    import htcondor2  # noqa: F401  (switches libclassad to old semantics)
import classad2

libdir = os.path.join(os.path.dirname(os.path.abspath(classad2.__file__)),
                      "..", "htcondor.libs")
candidates = sorted(glob.glob(os.path.join(libdir, "libclassad*.so*")))
if not candidates:
    raise SystemExit("cannot find libclassad next to classad2")
lib = ctypes.CDLL(candidates[0])
# classad::ClassAdParser::ClassAdParser()
_ctor = lib._ZN7classad13ClassAdParserC1Ev
_ctor.argtypes = [ctypes.c_void_p]
_ctor.restype = None
# ExprTree *classad::ClassAdParser::ParseExpression(const char *, bool full)
_parse = lib._ZN7classad13ClassAdParser15ParseExpressionEPKcb
_parse.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_bool]
_parse.restype = ctypes.c_void_p


def parses_fully(text):
    if "\0" in text:
        return False  # cannot be passed to the C parser; cases avoid it
    # A fresh parser each time; the object and the tree are leaked on
    # purpose (a few bytes per case, in a short-lived process).
    parser = ctypes.create_string_buffer(1 << 16)
    _ctor(parser)
    return bool(_parse(parser, text.encode("utf-8"), True))


class ParseError(Exception):
    pass


def expr_tree(text):
    if not parses_fully(text):
        raise ParseError()
    try:
        holder = classad2.ClassAd("[expression = " + text + "\n]")
    except classad2.ClassAdException:
        raise ParseError()
    tree = holder.lookup("expression")
    return holder, tree


def class_ad(text):
    if text is None:
        return None
    if not parses_fully(text) or not text.lstrip().startswith("["):
        raise ParseError()
    try:
        return classad2.ClassAd(text)
    except classad2.ClassAdException:
        raise ParseError()


def run(case):
    try:
        my = class_ad(case["my"])
        target = class_ad(case["target"])
        holder, tree = expr_tree(case["expr"])
    except ParseError:
        return "PARSE_ERROR"
    if case["kind"] == "print":
        return repr(tree)
    if my is None:
        my = classad2.ClassAd()
    try:
        return repr(tree.simplify(my, target))
    except Exception as exc:  # classad2 raises RuntimeError on failure
        return "EXCEPTION: " + str(exc)


print(json.dumps({"ready": True, "version": classad2.version(),
                  "semantics": semantics}), flush=True)
for line in sys.stdin:
    case = json.loads(line)
    print(json.dumps({"expected": run(case)}), flush=True)
'''


class Worker:
    """One oracle process for one semantics, restarted after a hang/crash."""

    def __init__(self, python, semantics, timeout):
        self.python = python
        self.semantics = semantics
        self.timeout = timeout
        self.proc = None
        self.version = None
        self.buf = b""

    def start(self):
        env = {k: v for k, v in os.environ.items()
               if not k.upper().startswith(("_CONDOR_", "CONDOR_"))}
        env["TZ"] = "UTC"
        env["LC_ALL"] = "C"
        env["PYTHONIOENCODING"] = "utf-8"
        if self.semantics == "old":
            env["CONDOR_CONFIG"] = "ONLY_ENV"
        self.proc = subprocess.Popen(
            [self.python, "-u", "-c", WORKER, self.semantics],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.buf = b""
        hello = self._readline(120)
        if hello is None:
            raise SystemExit("oracle worker (%s) did not start" % self.semantics)
        info = json.loads(hello)
        if self.version is not None and info["version"] != self.version:
            raise SystemExit("oracle version changed between restarts")
        self.version = info["version"]

    def stop(self):
        if self.proc is not None:
            try:
                self.proc.kill()
            except ProcessLookupError:
                pass
            self.proc.wait()
            self.proc = None

    def _readline(self, timeout):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return ""  # EOF: the worker died
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8")

    def evaluate(self, case):
        if self.proc is None:
            self.start()
        request = json.dumps(case) + "\n"
        try:
            self.proc.stdin.write(request.encode("utf-8"))
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = self._readline(self.timeout)
        if line is None:
            self.stop()
            return "TIMEOUT"
        if line == "":
            code = self.proc.wait()
            self.proc = None
            how = ("signal %d" % -code) if code < 0 else ("exit %d" % code)
            return "CRASH: " + how
        return json.loads(line)["expected"]


# ---------------------------------------------------------------------------
# Reading core_cases.txt
# ---------------------------------------------------------------------------
def read_cases(path):
    """Yield (semantics_list, kind, my, target, expr, lineno)."""
    semantics = ["new", "old"]
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                words = line[1:].split()
                if len(words) == 2 and words[0] == "semantics:":
                    semantics = {"new": ["new"], "old": ["old"],
                                 "both": ["new", "old"]}[words[1]]
                continue
            fields = line.split("\t")
            head = fields[0]
            if head == "ad" and len(fields) == 3:
                yield semantics, "eval", fields[1], None, fields[2], lineno
            elif head == "match" and len(fields) == 4:
                yield semantics, "eval", fields[1], fields[2], fields[3], lineno
            elif head == "print" and len(fields) == 2:
                yield semantics, "print", None, None, fields[1], lineno
            elif head == "json" and len(fields) == 2:
                obj = json.loads(fields[1])
                kind = obj.get("kind", "eval")
                if kind not in ("eval", "print"):
                    raise SystemExit("%s:%d: bad kind %r" % (path, lineno, kind))
                yield (semantics, kind, obj.get("my"), obj.get("target"),
                       obj["expr"], lineno)
            elif len(fields) == 1:
                yield semantics, "eval", None, None, fields[0], lineno
            else:
                raise SystemExit("%s:%d: bad case line: %r" % (path, lineno, line))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=os.environ.get("ORACLE_PYTHON", "python3"),
                    help="interpreter with classad2 (default $ORACLE_PYTHON or python3)")
    ap.add_argument("--cases", default=os.path.join(HERE, "core_cases.txt"))
    ap.add_argument("--out", default=os.path.join(HERE, "core.jsonl"))
    ap.add_argument("--timeout", type=float, default=10.0,
                    help="seconds allowed per case (default 10)")
    args = ap.parse_args()

    cases = list(read_cases(args.cases))
    workers = {s: Worker(args.python, s, args.timeout) for s in ("new", "old")}
    for w in workers.values():
        w.start()
    versions = {w.version for w in workers.values()}
    if len(versions) != 1:
        raise SystemExit("workers report different versions: %r" % versions)
    version = versions.pop()

    counts = {}
    records = []
    for semantics_list, kind, my, target, expr, lineno in cases:
        for sem in semantics_list:
            case = {"kind": kind, "my": my, "target": target, "expr": expr}
            expected = workers[sem].evaluate(case)
            if expected == "TIMEOUT" or expected.startswith("CRASH"):
                print("line %d (%s): %s: %s" % (lineno, sem, expected, expr),
                      file=sys.stderr)
            records.append({"semantics": sem, "kind": kind, "my": my,
                            "target": target, "expr": expr,
                            "expected": expected})
            counts[(sem, kind)] = counts.get((sem, kind), 0) + 1
    for w in workers.values():
        w.stop()

    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write(json.dumps({"oracle": "classad2", "version": version,
                              "generated_by": "generate_core.py"}) + "\n")
        for r in records:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(tmp, args.out)
    summary = ", ".join("%s/%s: %d" % (s, k, n) for (s, k), n in sorted(counts.items()))
    print("wrote %d records to %s (%s)" % (len(records), args.out, summary))


if __name__ == "__main__":
    main()
