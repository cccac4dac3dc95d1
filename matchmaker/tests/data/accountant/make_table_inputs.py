#!/usr/bin/env python3
"""make_table_inputs.py -- write the synthetic inputs of the `condor_userprio` table corpus.

Each input is a "legacy" userprio ad, the format `condor_userprio -allusers -l` prints
(NumSubmittors, LastUpdate, and NameN / PriorityN / ... per record), which
`condor_userprio -inputfile FILE` turns into the table. capture-table.sh runs the real
tool on them. Run: ./make_table_inputs.py [DIR]  (default: ./table/inputs next to this file)
"""
import os
import sys

LAST_UPDATE = 1795588709  # 2026-11-25 06:38:29 UTC


def rec(i, name, prio, factor, res=0, wres=0.0, accum=0.0, wacc=0.0, begin=0, last=0,
        ceiling=-1, floor=0, group="<none>", is_group=False, extra=None):
    a = {
        f"Name{i}": f'"{name}"',
        f"Priority{i}": repr(float(prio)),
        f"PriorityFactor{i}": repr(float(factor)),
        f"ResourcesUsed{i}": str(res),
        f"WeightedResourcesUsed{i}": repr(float(wres)),
        f"AccumulatedUsage{i}": repr(float(accum)),
        f"WeightedAccumulatedUsage{i}": repr(float(wacc)),
        f"BeginUsageTime{i}": str(begin),
        f"LastUsageTime{i}": str(last),
        f"AccountingGroup{i}": f'"{group}"',
        f"IsAccountingGroup{i}": "true" if is_group else "false",
    }
    if not is_group:
        a[f"Ceiling{i}"] = str(ceiling)
        a[f"Floor{i}"] = str(floor)
    a.update(extra or {})
    return a


def none_group(i=1, **kw):
    return rec(i, "<none>", kw.pop("prio", 500.0), 0.0, is_group=True, group="<none>", extra={
        f"ConfigQuota{i}": "0.0", f"EffectiveQuota{i}": "0.0", f"SubtreeQuota{i}": "0.0",
        f"GroupSortKey{i}": "0.0", f"SurplusPolicy{i}": '"byquota"', f"Requested{i}": "0.0",
        f"HierWeightedResourcesUsed{i}": "0.0"}, **kw)


def write(d, name, records, last_update=LAST_UPDATE):
    attrs = {"LastUpdate": str(last_update), "NumSubmittors": str(len(records))}
    for r in records:
        attrs.update(r)
    with open(os.path.join(d, name + ".ad"), "w") as f:
        for k in sorted(attrs):
            f.write(f"{k} = {attrs[k]}\n")


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "table", "inputs")
    os.makedirs(d, exist_ok=True)
    T = LAST_UPDATE
    # 1. one plain user
    write(d, "one-user", [none_group(), rec(2, "alice@example.org", 1500.0, 1000.0, 2, 2.0, 7200, 7200, T - 7200, T)])
    # 2. names: 10, 30, 99, 100 and 120 characters; the name column is capped at 99
    names = ["a@b.cd.efg", "u" * 20 + "@example.", "n" * 90 + "@example.", "m" * 91 + "@example.", "l" * 111 + "@example."]
    write(d, "long-names", [none_group()] + [rec(i + 2, n, 500.0 + i, 1000.0, last=T) for i, n in enumerate(names)])
    # 3. numbers too wide for their columns (printf %.{w-6}g fallback)
    write(d, "wide-numbers", [none_group(),
        rec(2, "huge@x", 1.23456789e13, 1e10, 123456, 1234567.0, 1e12, 9.87e11, T - 86400 * 400, T, ceiling=123456789),
        rec(3, "nice-user.bob@x", 5e9, 1e10, 1, 1.0, 3600, 3600, T - 3600, T - 60),
        rec(4, "small@x", 0.5, 1.0, 0, 0.0, 0.0, 0.0, 0, 0),
        rec(5, "frac@x", 1234.5678, 1.5, 3, 2.75, 5000.5, 4999.4, T - 100, T - 30)])
    # 4. edge values: factor 0, ceiling 0 / -1 / 5, negative priority, last usage after
    #    LastUpdate, never used (LastUsageTime 0), used 25 h and 400 days ago
    write(d, "edge-values", [none_group(),
        rec(2, "factor0@x", 700.0, 0.0, last=T),
        rec(3, "ceil0@x", 600.0, 1000.0, ceiling=0, last=T - 30),
        rec(4, "ceil5@x", 650.0, 1000.0, ceiling=5, floor=2, last=T - 3599),
        rec(5, "negprio@x", -5000.0, 1000.0, last=T - 61),
        rec(6, "future@x", 800.0, 1000.0, last=T + 500),
        rec(7, "never@x", 500.0, 1000.0),
        rec(8, "day-old@x", 900.0, 1000.0, 0, 0.0, 3600, 3600, T - 90000, T - 90000),
        rec(9, "ancient@x", 1000.0, 1000.0, 0, 0.0, 3600, 3600, T - 86400 * 400, T - 86400 * 400)])
    # 5. ties: equal effective priorities, 5 users and 20 users (sort order of ties)
    write(d, "ties-5", [none_group()] + [rec(i + 2, f"tie{i:02d}@x", 1000.0, 1000.0, last=T) for i in range(5)])
    write(d, "ties-20", [none_group()] + [rec(i + 2, f"tie{i:02d}@x", 1000.0 if i % 3 else 2000.0, 1000.0, last=T) for i in range(20)])
    # 6. many users, distinct priorities in a scrambled order, mixed usage
    write(d, "many-25", [none_group()] + [rec(i + 2, f"user{i:02d}@pool.example", 500.0 + ((i * 7919) % 25) * 37.5, 1000.0 if i % 4 else 2000.0,
        i % 3, float(i % 3) * 1.5, 3600.0 * i, 3000.0 * i, T - 3600 * (i + 1), T - 600 * (i % 5)) for i in range(25)])
    # 7. no records at all
    write(d, "empty", [])
    # 8. only the <none> group
    write(d, "only-none-group", [none_group()])
    # 9. NaN values (C's printf writes `nan` and `-nan`)
    write(d, "nan-values", [none_group(), rec(2, "nan@example.org", 0.0, 1000.0, 2, 2.0, 7200, 0.0, T - 7200, T, extra={
        "Priority2": '-real("NaN")', "WeightedAccumulatedUsage2": 'real("NaN")'})])


if __name__ == "__main__":
    main()
