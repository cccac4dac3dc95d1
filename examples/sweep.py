"""Sweeps a negotiator policy over a simulated pool: the same two users and
pool (examples/sweep.toml) under several values of PRIORITY_HALFLIFE, run
side by side, and each user's share of the pool's usage under each. Run
it with classad_rs installed (see docs/python.md):

    python examples/sweep.py                     # the scenario's 12 hours
    python examples/sweep.py --until 8h --plot usage.png
    python examples/sweep.py --dask              # on a local Dask cluster

With --plot (and matplotlib installed), it draws each user's usage over
time under each half-life. --dask needs dask and its distributed
scheduler (pip install "dask[distributed]").
"""

import argparse
import importlib
import os
import sys

import classad_rs

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "sweep.toml")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def seconds(text: str) -> int:
    """`90`, `90s`, `30m`, `12h`, `2d` in seconds (the half-lives, which
    go into the configuration as seconds)."""
    if text[-1:] in UNITS:
        return round(float(text[:-1]) * UNITS[text[-1]])
    return round(float(text))


def human(s: int) -> str:
    for unit in "dhm":
        if s % UNITS[unit] == 0:
            return f"{s // UNITS[unit]}{unit}"
    return f"{s}s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default=SCENARIO, help="the scenario (TOML)")
    parser.add_argument("--halflives", default="10m,1h,1d", help="PRIORITY_HALFLIFE values, comma-separated")
    parser.add_argument("--until", help="simulate this long (12h, 1.5d, 3600) instead of the scenario's duration")
    parser.add_argument("--dask", action="store_true", help="run on a local Dask cluster of two worker processes")
    parser.add_argument("--plot", metavar="PNG", help="draw each user's usage over time (needs matplotlib)")
    args = parser.parse_args()

    distributed = None
    if args.dask:
        # Checked before anything runs: without it there is nothing to do.
        try:
            distributed = importlib.import_module("distributed")
        except ImportError:
            print('dask is not installed: --dask needs it (pip install "dask[distributed]")', file=sys.stderr)
            return 1

    halflives = [seconds(h) for h in args.halflives.split(",")]
    # A duration text is read by classad_rs as negotiator-sim reads one.
    until = args.until
    base = classad_rs.Scenario.read(args.scenario)
    scenarios = [base.with_config(f"PRIORITY_HALFLIFE = {h}") for h in halflives]

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            end = "" if done < total else "\n"
            print(f"\r{done} of {total} simulations done", end=end, file=sys.stderr, flush=True)

    try:
        if distributed is not None:
            with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
                with distributed.Client(cluster) as client:
                    runs = classad_rs.sweep(scenarios, client, until=until, progress=progress)
        else:
            runs = classad_rs.sweep(scenarios, until=until, progress=progress)
    except ValueError as e:  # an --until that is not a duration
        print(f"sweep.py: --until: {e}", file=sys.stderr)
        return 2

    for halflife, results in zip(halflives, runs):
        users = results.columns("users")
        jobs = results.columns("jobs")
        # The last row of each user: its accumulated usage (CPU-seconds).
        usage: dict[str, float] = {}
        for user, accumulated in zip(users["user"], users["accumulated_usage"]):
            usage[user] = accumulated
        total = sum(usage.values()) or 1.0
        print(f"PRIORITY_HALFLIFE = {human(halflife)}")
        print(f"  {'user':<12} {'CPU-hours':>10} {'share':>7} {'finished':>9} {'mean wait':>10}")
        for user in sorted(usage):
            waits = [w for w, u, s in zip(jobs["wait"], jobs["user"], jobs["start"]) if u == user and s >= 0]
            finished = sum(1 for u, e in zip(jobs["user"], jobs["end"]) if u == user and e >= 0)
            wait = f"{sum(waits) / len(waits) / 60:.1f} min" if waits else "-"
            share = 100 * usage[user] / total
            print(f"  {user:<12} {usage[user] / 3600:>10.1f} {share:>6.1f}% {finished:>9} {wait:>10}")

    if args.plot:
        try:
            matplotlib = importlib.import_module("matplotlib")
            matplotlib.use("Agg")  # draw to a file, no window
            plt = importlib.import_module("matplotlib.pyplot")
        except ImportError:
            print("matplotlib is not installed: no plot (pip install matplotlib)")
            return 0
        fig, axes = plt.subplots(1, len(runs), figsize=(5 * len(runs), 4), sharey=True, squeeze=False)
        for ax, halflife, results in zip(axes[0], halflives, runs):
            users = results.columns("users")
            for user in sorted(set(users["user"])):
                rows = [(t / 3600, u) for t, u, n in zip(users["time"], users["usage"], users["user"]) if n == user]
                ax.step([r[0] for r in rows], [r[1] for r in rows], where="post", label=user)
            ax.set_title(f"PRIORITY_HALFLIFE = {human(halflife)}")
            ax.set_xlabel("hours")
        axes[0][0].set_ylabel("CPUs in use")
        axes[0][0].legend()
        fig.tight_layout()
        fig.savefig(args.plot)
        print(f"plot written to {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
