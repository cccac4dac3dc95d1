#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets of the matchmaker and
negotiator-sim readers (fuzz/corpus/<target>/) from the repository's own
inputs: accountant logs, `condor_userprio -l` and pool snapshots captured
from HTCondor, configurations (the config tests' corpus), transform rules, scenarios, machine
descriptions, policy traces and `condor_history -json` traces. SWF lines
are written here (the repository has no SWF file). The report's tables
come from a short `negotiator-sim simulate` run when a negotiator-sim
binary is given (or found under target/), else from a small CSV table.

Usage (from the repository root):
    python3 fuzz/seed-surfaces.py [--negotiator-sim BIN]
Seeds longer than 64 KiB are cut to their first 64 KiB (at a line end).
"""

import glob
import gzip
import hashlib
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
MAX_SEED = 64 * 1024


def cut(data):
    if len(data) <= MAX_SEED:
        return data
    end = data.rfind(b"\n", 0, MAX_SEED)
    return data[: end + 1 if end > 0 else MAX_SEED]


def write(target, data):
    data = cut(data)
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def files(*patterns):
    out = []
    for pattern in patterns:
        out.extend(sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)))
    return out


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def first_ads(data, n):
    """The first n ads of an old-format (long) file."""
    ads = [ad.strip() for ad in data.decode("utf-8", "replace").split("\n\n") if ad.strip()]
    return "\n\n".join(ads[:n]).encode() + b"\n", min(n, len(ads))


def find_negotiator_sim():
    args = sys.argv[1:]
    if "--negotiator-sim" in args:
        return args[args.index("--negotiator-sim") + 1]
    for candidate in ("target/release/negotiator-sim", "target/debug/negotiator-sim"):
        path = os.path.join(ROOT, candidate)
        if os.path.exists(path):
            return path
    return None


def main():
    counts = {}

    def seed(target, data):
        write(target, data)
        counts[target] = counts.get(target, 0) + 1

    # The accountant's log, and `condor_userprio -allusers -long`.
    for path in files("matchmaker/tests/data/accountant/**/Accountantnew.log", "matchmaker/tests/data/accountant/**/*.log",
                      "matchmaker/tests/data/accountant/**/log-appended", "negotiator-sim/tests/data/*/Accountantnew.log"):
        seed("accountant_log", read(path))
    for path in files("matchmaker/tests/data/accountant/**/userprio-allusers-l.txt",
                      "matchmaker/tests/data/accountant/**/userprio-l-modular.txt",
                      "matchmaker/tests/data/cycle/snap-*/userprio*.ad"):
        seed("userprio", read(path))

    # Snapshots: the first byte is how many of the ads are slots.
    for folder in files("matchmaker/tests/data/cycle/snap-*/"):
        slots, jobs = os.path.join(folder, "slots.ad"), os.path.join(folder, "jobs.ad.gz")
        if os.path.exists(slots) and os.path.exists(jobs):
            s, n = first_ads(read(slots), 12)
            j, _ = first_ads(read(jobs), 12)
            seed("snapshot", bytes([n]) + s + b"\n" + j)
    for folder in files("matchmaker/tests/data/slots/*/"):
        slots, jobs = os.path.join(folder, "slots.ads"), os.path.join(folder, "job.ads")
        if os.path.exists(slots) and os.path.exists(jobs):
            s, n = first_ads(read(slots), 12)
            seed("snapshot", bytes([n]) + s + b"\n" + read(jobs))
    for path in files("negotiator-sim/tests/data/*/slots.ads", "cli/tests/data/query/jobs.ads",
                      "classad/tests/data/matching/jobs.ads"):
        s, n = first_ads(read(path), 20)
        seed("snapshot", bytes([n // 2]) + s)
    examples = read(os.path.join(ROOT, "examples/machine.ad")) + b"\n" + read(os.path.join(ROOT, "examples/job.ad"))
    seed("snapshot", b"\x01" + examples)
    for path in files("negotiator-sim/tests/data/*/history.json"):
        seed("snapshot", b"\x00" + read(path))

    # Configurations: the first byte the subsystem (and a local name), then
    # the file; the capture corpus and the random configurations of the
    # config tests.
    for k, path in enumerate(files("matchmaker/tests/data/config/corpus/*/condor_config",
                                   "matchmaker/tests/data/config/corpus/**/*.conf",
                                   "matchmaker/tests/data/config/random/*.conf",
                                   "matchmaker/tests/data/transforms/configs/*.conf")):
        seed("config", bytes([k % 64]) + read(path))
    seed("config", b"\x01A = $(B)\nB = $(C)\nC = $(A)\nD = $(A:x) $ENV(HOME) $INT(E) $REAL(E)\nE = 2 * 3\n"
                   b"if version >= 23.0\nF = yes\nelse\nF = no\nendif\nuse POLICY : UWCS_DESKTOP\n")

    # Transforms: the first byte 0 rules, 1 ClassAd form, 2 a configuration;
    # then optionally a line `----` and the job.
    jobs = [read(p) for p in files("matchmaker/tests/data/transforms/jobs/*.ad")]
    for path in files("matchmaker/tests/data/transforms/rules/*.xform", "matchmaker/tests/data/transforms/*.xform"):
        for job in jobs[:2]:
            seed("transform", b"\x00" + read(path) + b"\n----\n" + job)
    for path in files("matchmaker/tests/data/transforms/configs/*.conf"):
        for job in jobs[:2]:
            seed("transform", b"\x02" + read(path) + b"\n----\n" + job)
    seed("transform", b'\x01[ Requirements = TARGET.Owner == "alice"; set_Queue = "short"; '
                      b'copy_Owner = "OrigOwner"; delete_AcctGroup = true; eval_set_Mem = RequestMemory * 2 ]')
    seed("transform", b"\x02SUBMIT_REQUIREMENT_NAMES = Mem\nSUBMIT_REQUIREMENT_Mem = RequestMemory < 4096\n"
                      b'SUBMIT_REQUIREMENT_Mem_REASON = "too much memory"\n----\n' + (jobs[0] if jobs else b""))

    # Scenarios, machines, policy traces.
    for path in files("negotiator-sim/examples/*.toml", "negotiator-sim/tests/data/*/scenario.toml", "examples/*.toml"):
        seed("scenario", read(path))
    for path in files("negotiator-sim/tests/data/slots/*.toml", "matchmaker/tests/data/slots/**/*.toml"):
        seed("machine", read(path))
    seed("machine", b'name = "n1"\ncpus = 4\nmemory = 8192\n[resources]\nGPUs = ["GPU-0", "GPU-1"]\n'
                    b'[attributes]\nArch = "X86_64"\nHasDocker = true\n')
    for path in files("negotiator-sim/tests/data/policy/*.trace"):
        seed("policy_trace", read(path))
    seed("policy_trace", b"0 tick\n10 match\n10 claim\n11 start job.ad\n600 set KeyboardIdle=0 LoadAvg=1.0 + 0.5\n"
                         b"600 run 1800\n900 setjob ImageSize=100\n1000 suspend\n1100 continue\n1200 vacate fast\n"
                         b"1300 drain quick resume\n1400 cancel-drain\n1800 exit\n1900 release\n")

    # Traces: the first byte 0 SWF, 1 history, 2 history with requirements.
    for path in files("negotiator-sim/tests/data/*/history.json"):
        seed("trace", b"\x01" + read(path))
        seed("trace", b"\x02" + read(path))
    for path in files("matchmaker/tests/data/transforms/jobs/*.ad"):
        seed("trace", b"\x01" + read(path))
    swf = (b"; Version: 2.2\n; Computer: example\n; MaxJobs: 3\n"
           b"1 0 10 3600 4 -1 1024 4 7200 2048 1 7 1 -1 1 -1 -1 -1\n"
           b"2 60 -1 -1 8 -1 -1 8 3600 -1 0 8 2 -1 1 -1 -1 -1\n"
           b"3 120 5 600 -1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1 ; a comment\n")
    seed("trace", b"\x00" + swf)

    # The report's tables: the first byte is (table << 1) | parquet, the
    # tables being cycles, jobs, users, slots, groups, other.
    names = ["cycles", "jobs", "users", "slots", "groups", "other"]
    binary = find_negotiator_sim()
    if binary:
        with tempfile.TemporaryDirectory() as out:
            scenario = os.path.join(ROOT, "negotiator-sim/examples/two-users.toml")
            subprocess.run([binary, "simulate", scenario, "--until", "3h", "--out", out, "--format", "csv,parquet", "-q"],
                           check=True)
            for path in sorted(glob.glob(os.path.join(out, "*"))):
                name, ext = os.path.splitext(os.path.basename(path))
                if name in names:
                    seed("report", bytes([names.index(name) << 1 | (ext == ".parquet")]) + read(path))
    seed("report", b"\x00time,matches,busy_slots,total_slots\n0,0,0.0,4.0\n60,2,2.0,4.0\n")
    for target, n in sorted(counts.items()):
        print(f"{target}: {n} seeds")
    print(f"corpora written under {CORPUS}" + ("" if binary else " (no negotiator-sim binary: no Parquet seeds)"))


if __name__ == "__main__":
    main()
