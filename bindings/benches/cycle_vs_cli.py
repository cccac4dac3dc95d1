"""A negotiation cycle from Python next to `negotiator-sim cycle`, on the
same snapshot files (both built in release mode).

Usage, from the repository, with classad_rs installed in release mode
(`maturin develop --release -m bindings/Cargo.toml`) and negotiator-sim
built (`cargo build --release -p negotiator-sim`):

    python bindings/benches/cycle_vs_cli.py [SNAPSHOT_DIR] [--cli PATH] [--reps N]

Default snapshot: matchmaker/tests/data/cycle/snap-10000-10000-10-10
(10,000 slots, 10,000 jobs, 10 users). Both sides read the same files
(config.dump, userprio.ad, submitters.ad) and offer matched jobs again
(--resend-matched-jobs). The runs take turns; times are the best of N
runs each (default 5):

* cli cycle: the cycle as negotiator-sim times it ("... in X s": the
  cycle alone, after reading and grouping the jobs);
* cli process: the whole negotiator-sim command (read, group, cycle,
  print);
* py cycle (queues): Negotiator.cycle on slot ClassAds read once into
  Python and the jobs grouped once (Negotiator.queues): the same work as
  the CLI's timed cycle (copy the slots, run the cycle), with the GIL
  released;
* py cycle (lists): Negotiator.cycle on slot and job ClassAds: the call
  also groups the jobs into autoclusters (outside the CLI's timing);
* py cycle (files): Negotiator.cycle given the file paths (reads them in
  Rust, as the CLI does).

The outcomes are checked equal (matches per submitter and in total).
"""

import argparse
import json
import os
import re
import subprocess
import time

import classad_rs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
DEFAULT = os.path.join(ROOT, "matchmaker", "tests", "data", "cycle", "snap-10000-10000-10-10")


def find(d, name):
    for n in (name, name + ".gz"):
        if os.path.exists(os.path.join(d, n)):
            return os.path.join(d, n)
    raise SystemExit(f"{d}: no {name}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("snapshot", nargs="?", default=DEFAULT)
    p.add_argument("--cli", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "negotiator-sim"))
    p.add_argument("--reps", type=int, default=5)
    a = p.parse_args()
    d = a.snapshot
    slots_f, jobs_f = find(d, "slots.ad"), find(d, "jobs.ad")
    config_f, userprio_f, subs_f = find(d, "config.dump"), find(d, "userprio.ad"), find(d, "submitters.ad")

    cli = [a.cli, "cycle", "--slots", slots_f, "--jobs", jobs_f, "--config", config_f, "--userprio", userprio_f,
           "--submitters", subs_f, "--resend-matched-jobs", "--json"]
    config = classad_rs.Config(file=config_f, subsystem="NEGOTIATOR")
    negotiator = classad_rs.Negotiator(config, resend_matched_jobs=True)
    with open(slots_f, "rb") as f:
        slots = list(classad_rs.parseAds(f))
    with open(jobs_f, "rb") as f:
        jobs = list(classad_rs.parseAds(f))
    with open(subs_f, "rb") as f:
        submitters = list(classad_rs.parseAds(f))
    queues = negotiator.queues(slots, jobs, submitters=submitters)

    # The runs take turns, so that a busy moment of the machine falls on both.
    cli_cycle, cli_process, py_lists, py_files, py_queues = [], [], [], [], []
    for _ in range(a.reps):
        t = time.perf_counter()
        run = subprocess.run(cli, capture_output=True, text=True, check=True)
        cli_process.append(time.perf_counter() - t)
        m = re.search(r"matches, \d+ rejections in ([0-9.]+) s", run.stderr)
        cli_cycle.append(float(m.group(1)))
        cli_out = json.loads(run.stdout)

        acct = classad_rs.Accountant.from_userprio(userprio_f, config)
        t = time.perf_counter()
        grouped = negotiator.cycle(slots, queues, acct)
        py_queues.append(time.perf_counter() - t)
        acct = classad_rs.Accountant.from_userprio(userprio_f, config)
        t = time.perf_counter()
        outcome = negotiator.cycle(slots, jobs, acct, submitters=submitters)
        py_lists.append(time.perf_counter() - t)
        acct = classad_rs.Accountant.from_userprio(userprio_f, config)
        t = time.perf_counter()
        from_files = negotiator.cycle(slots_f, jobs_f, acct, submitters=subs_f)
        py_files.append(time.perf_counter() - t)

    ours = {s.name: s.matches for s in outcome.submitters}
    theirs = {s["name"]: s["matches"] for s in cli_out["submitters"]}
    assert ours == theirs == {s.name: s.matches for s in from_files.submitters}, (ours, theirs)
    assert ours == {s.name: s.matches for s in grouped.submitters}
    assert [(m.job, m.slot) for m in outcome.matches] == [(m["job"], m["slot"]) for m in cli_out["matches"]]
    print(f"{d}: {len(slots)} slots, {len(jobs)} jobs, {outcome.stats.matches} matches (same as the CLI's)")
    best = min
    print(f"cli cycle            {best(cli_cycle):8.3f} s")
    print(f"py cycle (queues)    {best(py_queues):8.3f} s   ratio to cli cycle   {best(py_queues) / best(cli_cycle):.3f}")
    print(f"py cycle (lists)     {best(py_lists):8.3f} s")
    print(f"cli process          {best(cli_process):8.3f} s")
    print(f"py cycle (files)     {best(py_files):8.3f} s   ratio to cli process {best(py_files) / best(cli_process):.3f}")


if __name__ == "__main__":
    main()
