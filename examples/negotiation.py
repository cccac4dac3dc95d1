"""One negotiation cycle on a pool snapshot, from Python.

A notebook in script form: each step is a cell. It loads a snapshot of a
pool (``condor_status -long`` and ``condor_q -allusers -long`` output, the
configuration and the priorities), runs one cycle as HTCondor's negotiator
would, prints what each user got, and plots the shares with matplotlib
when it is installed.

Run it from the repository (with the ``classad_rs`` module installed)::

    python examples/negotiation.py [SNAPSHOT_DIR] [--plot FILE.png]

SNAPSHOT_DIR holds ``slots.ad[.gz]``, ``jobs.ad[.gz]``, optionally
``config.dump`` (``condor_config_val -dump``) and ``userprio.ad``
(``condor_userprio -allusers -long``); the default is a 1000-slot snapshot
of a real HTCondor pool kept with the repository's tests.
"""

from __future__ import annotations

import argparse
import importlib
import os
import time
from typing import Optional

import classad_rs

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "matchmaker", "tests", "data", "cycle", "snap-1000-1000-4-8")


def find(directory: str, name: str) -> Optional[str]:
    """``name`` or ``name.gz`` in ``directory``, if either exists."""
    for candidate in (name, name + ".gz"):
        path = os.path.join(directory, candidate)
        if os.path.exists(path):
            return path
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshot", nargs="?", default=DEFAULT)
    parser.add_argument("--plot", metavar="FILE", help="where to save the plot (default: shares.png)")
    args = parser.parse_args()
    directory: str = args.snapshot

    # %% Load the snapshot: the slots and jobs once, as ClassAds.
    slots_file, jobs_file = find(directory, "slots.ad"), find(directory, "jobs.ad")
    if slots_file is None or jobs_file is None:
        raise SystemExit(f"{directory}: no slots.ad or jobs.ad")
    with open(slots_file, "rb") as f:
        slots = list(classad_rs.parseAds(f))
    with open(jobs_file, "rb") as f:
        jobs = list(classad_rs.parseAds(f))
    config_file = find(directory, "config.dump")
    config = classad_rs.Config(file=config_file, subsystem="NEGOTIATOR") if config_file else classad_rs.Config()
    print(f"{len(slots)} slots, {len(jobs)} jobs, half-life {config.get_int('PRIORITY_HALFLIFE')} s")

    # %% The priorities: condor_userprio's figures, or everyone equal.
    userprio = find(directory, "userprio.ad")
    accountant = classad_rs.Accountant.from_userprio(userprio, config) if userprio else classad_rs.Accountant(config)
    for row in accountant.rows():
        if not row.is_group:
            print(f"  {row.name:<28} priority {row.effective_priority:10.2f}  factor {row.priority_factor:9.3f}")

    # %% One cycle (the GIL is released while it runs).
    negotiator = classad_rs.Negotiator(config, resend_matched_jobs=True)
    started = time.perf_counter()
    outcome = negotiator.cycle(slots, jobs, accountant)
    elapsed = time.perf_counter() - started
    stats = outcome.stats
    print(f"{stats.matches} matches, {stats.rejections} rejections in {elapsed:.3f} s ({stats.pie_spins} pie spins)")

    # %% What each user got: its share of the pool and its matches.
    print(f"{'user':<28} {'share':>7} {'limit':>9} {'matched':>8} {'used':>8}  stopped")
    for s in outcome.submitters:
        print(f"{s.name:<28} {s.share:7.2%} {s.limit:9.1f} {s.matches:8d} {s.usage_after:8.1f}  {s.stopped}")
    for r in outcome.rejections[:5]:
        print(f"rejected: job {r.job} of {r.submitter}: {r.reason}")

    # %% Plot the shares (only with matplotlib installed).
    try:
        matplotlib = importlib.import_module("matplotlib")
        matplotlib.use("Agg")  # draw to a file, no window
        plt = importlib.import_module("matplotlib.pyplot")
    except ImportError:
        print("matplotlib is not installed: no plot")
        return
    names = [s.name.split("@")[0] for s in outcome.submitters]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.bar(names, [s.limit for s in outcome.submitters], label="fair share (slot weight)", alpha=0.4)
    ax.bar(names, [s.usage_after - s.usage_before for s in outcome.submitters], label="matched this cycle", alpha=0.8)
    ax.set_ylabel("weighted slots")
    ax.legend()
    out = args.plot or "shares.png"
    fig.savefig(out)
    print(f"plot saved to {out}")


if __name__ == "__main__":
    main()
