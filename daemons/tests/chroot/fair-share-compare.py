#!/usr/bin/env python3
"""Compares the two recordings of fair-share.sh: condor_negotiator's and ours.

    fair-share-compare.py DIR [--check[=usage,priority,first,starts]] [--plot FILE.png]

DIR holds real/ and ours/, each with userprio.csv and starts.csv. Prints,
per user, the accumulated usage and priority of both negotiators at the
last moment both recorded (one pool may take longer to drain),
and how the users' job starts were ordered. With --check, exits 1 unless

  * each user's final accumulated usage and final real priority are within
    5% of condor_negotiator's (TOLERANCE);
  * the users got their first jobs in the same order;
  * at the end of every WINDOW seconds, each user's jobs started so far
    under ours are within max(3, 10%) of the number under
    condor_negotiator (the order of starts, at the granularity of the
    negotiators' decisions: within one cycle the schedd starts the jobs
    it was given in an order of its own).

--check=usage,first (say) enforces only the criteria named: usage,
priority, first (the order of first starts), starts.

--plot draws, for both negotiators, each user's priority and cumulative
job starts over time (needs matplotlib: pip install matplotlib).
Standard library only otherwise.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

TOLERANCE = 0.05
WINDOW = 300


def read_prio(path: Path) -> dict[str, list[tuple[int, float, float, int]]]:
    """user -> [(t, priority, usage, in_use)] in time order."""
    rows: dict[str, list[tuple[int, float, float, int]]] = defaultdict(list)
    with path.open() as f:
        for r in csv.DictReader(f):
            rows[r["user"]].append((int(r["t"]), float(r["priority"]), float(r["usage"]), int(float(r["in_use"]))))
    for v in rows.values():
        v.sort()
    return dict(rows)


def read_starts(path: Path) -> list[tuple[int, str]]:
    """[(t, user)] in start order."""
    with path.open() as f:
        return sorted((int(r["t"]), r["user"]) for r in csv.DictReader(f))


def at(rows: list[tuple[int, float, float, int]], t: int) -> tuple[int, float, float, int]:
    """The last row at or before `t`."""
    before = [r for r in rows if r[0] <= t]
    return before[-1] if before else rows[0]


def first_order(starts: list[tuple[int, str]]) -> list[str]:
    seen: list[str] = []
    for _, u in starts:
        if u not in seen:
            seen.append(u)
    return seen


def windows(starts: list[tuple[int, str]], users: list[str], end: int) -> list[dict[str, int]]:
    out = [dict.fromkeys(users, 0) for _ in range(end // WINDOW + 1)]
    for t, u in starts:
        if 0 <= t <= end:
            out[t // WINDOW][u] = out[t // WINDOW].get(u, 0) + 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument(
        "--check",
        nargs="?",
        const="usage,priority,first,starts",
        help="exit 1 unless the two agree on these criteria (all by default; see the module doc)",
    )
    ap.add_argument("--plot", type=Path, help="write a PNG of priorities and starts over time")
    args = ap.parse_args()

    prio = {n: read_prio(args.dir / n / "userprio.csv") for n in ("real", "ours")}
    starts = {n: read_starts(args.dir / n / "starts.csv") for n in ("real", "ours")}
    users = sorted(set(prio["real"]) | set(prio["ours"]))
    end = min(max(r[-1][0] for r in prio[n].values()) for n in prio)
    failures: list[tuple[str, str]] = []

    print(f"{'user':22} {'usage real':>11} {'usage ours':>11} {'diff':>7}  {'prio real':>10} {'prio ours':>10} {'diff':>7}"
          f"  {'jobs real':>9} {'jobs ours':>9}")
    for u in users:
        r, o = prio["real"].get(u), prio["ours"].get(u)
        if not r or not o:
            failures.append(("usage", f"{u}: only in {'ours' if o else 'real'}"))
            continue
        # Both at the last moment both recorded (one pool may drain longer).
        (_, rp, ru, _), (_, op, ou, _) = at(r, end), at(o, end)
        du = (ou - ru) / ru if ru else float("inf") if ou else 0.0
        dp = (op - rp) / rp if rp else 0.0
        name = u.split("@")[0]
        nr = sum(1 for _, x in starts["real"] if x == name)
        no = sum(1 for _, x in starts["ours"] if x == name)
        print(f"{u:22} {ru:11.0f} {ou:11.0f} {du:+7.1%}  {rp:10.2f} {op:10.2f} {dp:+7.1%}  {nr:9} {no:9}")
        if abs(du) > TOLERANCE:
            failures.append(("usage", f"{u}: accumulated usage {ou:.0f} s against {ru:.0f} s ({du:+.1%})"))
        if abs(dp) > TOLERANCE:
            failures.append(("priority", f"{u}: priority {op:.2f} against {rp:.2f} ({dp:+.1%})"))

    fo = {n: first_order(starts[n]) for n in starts}
    print(f"\nfirst job started, in order: real {' '.join(fo['real'])}; ours {' '.join(fo['ours'])}")
    if fo["real"] != fo["ours"]:
        failures.append(("first", f"first starts in another order: {fo['ours']} against {fo['real']}"))

    names = sorted({u for _, u in starts["real"]} | {u for _, u in starts["ours"]})
    wr, wo = windows(starts["real"], names, end), windows(starts["ours"], names, end)
    print(f"\njobs started per {WINDOW} s (real / ours), and so far:")
    print("  from    " + "".join(f"{n:>12}" for n in names) + "   " + "".join(f"{n:>12}" for n in names))
    cum_r, cum_o = dict.fromkeys(names, 0), dict.fromkeys(names, 0)
    for i, (a, b) in enumerate(zip(wr, wo)):
        off = []
        for n in names:
            cum_r[n] += a[n]
            cum_o[n] += b[n]
            if abs(cum_o[n] - cum_r[n]) > max(3, 0.1 * cum_r[n]):
                off.append(n)
        cells = "".join(f"{f'{a[n]}/{b[n]}':>12}" for n in names)
        sofar = "".join(f"{f'{cum_r[n]}/{cum_o[n]}':>12}" for n in names)
        print(f"  {i * WINDOW:5} s {cells}   {sofar}{'   apart: ' + ' '.join(off) if off else ''}")
        for n in off:
            failures.append(("starts", f"by {(i + 1) * WINDOW} s {n} started {cum_o[n]} jobs against {cum_r[n]}"))

    if args.plot:
        plot(args.plot, prio, starts, names)
    enforced = set(args.check.split(",")) if args.check else set()
    unknown = enforced - {"usage", "priority", "first", "starts"}
    if unknown:
        sys.exit(f"--check: no criterion {', '.join(sorted(unknown))} (usage, priority, first, starts)")
    if failures:
        print("\n" + "\n".join(("FAIL: " if kind in enforced else "differs: ") + f for kind, f in failures))
    else:
        print(f"\nthe two agree: usage and priorities within {TOLERANCE:.0%}, the same order of starts")
    return 1 if any(kind in enforced for kind, _ in failures) else 0


def plot(path: Path, prio: dict, starts: dict, names: list[str]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("--plot needs matplotlib: pip install matplotlib")
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(10, 8), sharex=True)
    colors = dict(zip(names, ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]))
    for n, style in (("real", "-"), ("ours", "--")):
        label = "condor_negotiator" if n == "real" else "classad-negotiator"
        for u, rows in sorted(prio[n].items()):
            name = u.split("@")[0]
            ax1.plot([r[0] / 60 for r in rows], [r[1] for r in rows], style, color=colors.get(name), label=f"{name}, {label}")
        for name in names:
            ts = [t / 60 for t, x in starts[n] if x == name]
            ax2.step(ts, range(1, len(ts) + 1), style, where="post", color=colors.get(name), label=f"{name}, {label}")
    ax1.set_ylabel("real priority")
    ax1.set_yscale("log")
    ax1.legend(fontsize=8, ncol=2)
    ax2.set_ylabel("jobs started")
    ax2.set_xlabel("minutes from the first submission")
    ax2.legend(fontsize=8, ncol=2)
    fig.suptitle("Fair share: the same workload under condor_negotiator (solid) and classad-negotiator (dashed)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"plot: {path}")


if __name__ == "__main__":
    sys.exit(main())
