#!/usr/bin/env python3
"""verify_updates.py -- check the priority-update rule against a real accountant log.

Replays an HTCondor Accountantnew.log (records 101/102/103/105/106/107) and, for every
priority update the negotiator wrote (a `103 Accountant. LastUpdateTime T` record
followed by one transaction), recomputes each customer's new real priority from the
state before the update and compares it with the value the negotiator logged:

    dt   = T - previous LastUpdateTime
    a    = 0.5 ** (dt / PRIORITY_HALFLIFE)
    wrec = WeightedResourcesUsed + WeightedUnchargedTime / dt
           (HierWeightedResourcesUsed instead, when that is > 0)
    new  = max(0.5, max(0.5, Priority) * a + wrec * (1 - a)), then printed with %f

Needs only Python 3. Run:  ./verify_updates.py LOG [PRIORITY_HALFLIFE]   (default 300,
the half-life capture-usage.sh uses). Prints the number of checked updates and every
mismatch; exit status 1 when there is a mismatch.
"""
import sys


def main():
    path = sys.argv[1]
    halflife = float(sys.argv[2]) if len(sys.argv) > 2 else 300.0
    table = {}
    tx = None
    last_update = None
    pending = None  # (T, dt) of an update whose transaction comes next
    checked = mismatches = 0

    def apply(op, rest):
        if op == 101:
            table.setdefault(rest.split(" ")[0], {})
        elif op == 102:
            table.pop(rest.strip(), None)
        elif op == 103:
            key, name, value = rest.split(" ", 2)
            table.setdefault(key, {})[name] = value
        elif op == 104:
            key, name = rest.split(" ", 1)
            table.get(key, {}).pop(name.strip(), None)

    with open(path, encoding="utf-8") as f:
        text = f.read()
    for line in text.split("\n")[:-1]:  # a torn last line (no newline) is ignored
        op_text, _, rest = line.partition(" ")
        op = int(op_text)
        if op == 107:
            continue
        if op == 105:
            tx = []
            continue
        if op == 106:
            if pending is not None:
                t, dt = pending
                a = 0.5 ** (dt / halflife)
                logged = {}
                for o, r in tx:
                    if o == 103:
                        key, name, value = r.split(" ", 2)
                        if name == "Priority":
                            logged[key] = float(value)
                for key, ad in table.items():
                    if not key.startswith("Customer."):
                        continue
                    old = max(0.5, float(ad.get("Priority", 0)))
                    wrec = float(ad.get("WeightedResourcesUsed", 0)) + float(
                        ad.get("WeightedUnchargedTime", 0)
                    ) / dt
                    hier = float(ad.get("HierWeightedResourcesUsed", 0))
                    if hier > 0:
                        wrec = hier
                    expected = float("%f" % max(0.5, old * a + wrec * (1 - a)))
                    got = logged.get(key, float(ad.get("Priority", 0.5)))
                    checked += 1
                    if abs(expected - got) > 1.5e-6:
                        mismatches += 1
                        print(f"mismatch at T={t}: {key} old={old} wrec={wrec} expected={expected} logged={got}")
                pending = None
            for o, r in tx:
                apply(o, r)
            tx = None
            continue
        if tx is not None:
            tx.append((op, rest))
            continue
        apply(op, rest)
        if op == 103 and rest.startswith("Accountant. LastUpdateTime "):
            t = int(rest.split()[-1])
            if last_update is not None and t > last_update:
                pending = (t, t - last_update)
            last_update = t
    print(f"checked {checked} customer updates, {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
