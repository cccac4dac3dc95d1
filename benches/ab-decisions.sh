#!/usr/bin/env bash
# A/B check of the negotiator's decisions: runs two `negotiator-sim` binaries
# on the same pools and compares their whole outcome (every match and every
# rejection, in order, with the per-submitter and group figures), leaving out
# only the phase timings.
#
# Usage: benches/ab-decisions.sh OLD_BINARY NEW_BINARY [WORKDIR]
#
# Pools: every captured snapshot under matchmaker/tests/data/cycle (each with
# its configuration, priorities and submitter ads where it has them, once as
# captured and once with --resend-matched-jobs), and generated pools of 20k,
# 50k and 100k slots, the 50k one also in 50 and in 7 accounting groups.
# Then the example scenarios are simulated (pool-10k for 2 days, desktops and
# two-users for 1 day each, the same seed) and every table must be
# byte-identical.
# Set AB_QUICK=1 to skip the generated pools of 50k slots and more and to
# simulate 6 hours only.
#
# Build the two binaries first, e.g. with a git worktree of the old commit:
#   git worktree add ../old <commit> && (cd ../old && cargo build --release -p negotiator-sim)
#   cargo build --release -p negotiator-sim
#   benches/ab-decisions.sh ../old/target/release/negotiator-sim target/release/negotiator-sim
# Exit status 0 when every outcome is identical, 1 otherwise.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,20p' "$0"; exit 2; }
old=$(realpath "$1")
new=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
snapshots=$repo/matchmaker/tests/data/cycle
failed=0
cases=0

# The outcome without the timings, one line per match or rejection.
normalise() {
    python3 -c '
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if not k.endswith("Seconds")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
d = strip(json.load(sys.stdin))
for key in sorted(d):
    if isinstance(d[key], list):
        for item in d[key]:
            print(key, json.dumps(item, sort_keys=True))
    else:
        print(key, json.dumps(d[key], sort_keys=True))
'
}

# compare NAME ARGS...: runs both binaries' `cycle --json` with ARGS.
compare() {
    local name=$1
    shift
    cases=$((cases + 1))
    "$old" cycle -q --json "$@" | normalise > "$work/$name.old"
    "$new" cycle -q --json "$@" | normalise > "$work/$name.new"
    if cmp -s "$work/$name.old" "$work/$name.new"; then
        printf '  same       %-45s %6s matches %6s rejections\n' "$name" \
            "$(grep -c '^matches ' "$work/$name.new" || true)" "$(grep -c '^rejections ' "$work/$name.new" || true)"
    else
        printf '  DIFFERENT  %s (diff %s/%s.old %s/%s.new)\n' "$name" "$work" "$name" "$work" "$name"
        failed=1
    fi
}

first() { for f in "$@"; do if [ -e "$f" ]; then echo "$f"; return 0; fi; done; return 0; }

echo "==> captured snapshots"
for dir in "$snapshots"/snap-*/; do
    dir=${dir%/}
    snap=$(basename "$dir")
    slots=$(first "$dir/slots.ad.gz" "$dir/slots.ad")
    jobs=$(first "$dir/jobs.ad.gz" "$dir/jobs.ad")
    [ -n "$slots" ] && [ -n "$jobs" ] || continue
    args=(--slots "$slots" --jobs "$jobs")
    config=$(first "$dir/config-negotiator.dump" "$dir/config.dump" "$dir/negotiator.config")
    [ -n "$config" ] && args+=(--config "$config")
    prio=$(first "$dir/userprio-before.ad")
    [ -n "$prio" ] && args+=(--userprio "$prio")
    [ -e "$dir/submitters.ad" ] && args+=(--submitters "$dir/submitters.ad")
    compare "$snap" "${args[@]}"
    compare "$snap+resend" "${args[@]}" --resend-matched-jobs
done

# generated SLOTS JOBS USERS AUTOCLUSTERS [GROUPS]
generated() {
    local slots=$1 jobs=$2 users=$3 acs=$4 groups=${5:-0}
    local name="gen-$slots-$jobs-$users-$acs"
    local dir="$work/$name"
    if [ ! -e "$dir/jobs.ad" ]; then
        "$new" generate --slots "$slots" --jobs "$jobs" --users "$users" --autoclusters "$acs" \
            --base-time 1700000000 --out "$dir" > /dev/null
    fi
    local args=(--slots "$dir/slots.ad" --jobs "$dir/jobs.ad" --userprio "$dir/userprio.ad")
    if [ "$groups" -gt 0 ]; then
        # user k in group_(k mod GROUPS), each group a dynamic quota of 1/GROUPS
        # accepting surplus: what `negotiator-sim bench --groups` runs.
        local gdir="$dir-groups$groups"
        mkdir -p "$gdir"
        python3 - "$dir/jobs.ad" "$gdir" "$groups" <<'EOF'
import re, sys
jobs, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = [f"group_{k}" for k in range(n)]
with open(f"{out}/negotiator.config", "w") as f:
    f.write(f"GROUP_NAMES = {', '.join(names)}\nGROUP_ACCEPT_SURPLUS = True\n")
    for name in names:
        f.write(f"GROUP_QUOTA_DYNAMIC_{name} = {1.0 / n!r}\n")
with open(jobs) as src, open(f"{out}/jobs.ad", "w") as dst:
    for line in src:
        dst.write(line)
        m = re.match(r'User = "([^"@]*?)(\d*)@', line)
        if m:
            k = int(m.group(2) or 0)
            dst.write(f'AccountingGroup = "{names[k % n]}.{m.group(1)}{m.group(2)}"\n')
EOF
        args=(--slots "$dir/slots.ad" --jobs "$gdir/jobs.ad" --userprio "$dir/userprio.ad" --config "$gdir/negotiator.config")
        name="$name-groups$groups"
    fi
    compare "$name" "${args[@]}"
}

echo "==> generated pools"
generated 20000 20000 10 50
if [ -z "${AB_QUICK:-}" ]; then
    generated 50000 50000 20 200
    generated 50000 50000 20 200 50
    generated 50000 50000 20 200 7
    generated 100000 100000 20 200
fi

echo "==> simulations (byte-identical tables)"
for scenario in pool-10k:2d desktops:1d two-users:1d; do
    name=${scenario%%:*}
    until=${scenario#*:}
    [ -n "${AB_QUICK:-}" ] && until=6h
    cases=$((cases + 1))
    rm -rf "$work/sim-$name.old" "$work/sim-$name.new"
    "$old" simulate -q --until "$until" --out "$work/sim-$name.old" "$repo/negotiator-sim/examples/$name.toml"
    "$new" simulate -q --until "$until" --out "$work/sim-$name.new" "$repo/negotiator-sim/examples/$name.toml"
    if diff -r -q "$work/sim-$name.old" "$work/sim-$name.new" > /dev/null; then
        printf '  same       %-45s %s\n' "$name ($until)" "$(ls "$work/sim-$name.new" | tr '\n' ' ')"
    else
        printf '  DIFFERENT  %s (diff -r %s/sim-%s.old %s/sim-%s.new)\n' "$name" "$work" "$name" "$work" "$name"
        failed=1
    fi
done

if [ "$failed" = 0 ]; then
    echo "all $cases outcomes identical"
else
    echo "some outcomes differ (of $cases)"
fi
exit "$failed"
