#!/bin/bash
# capture-groups.sh -- record a real HTCondor accountant with accounting groups.
#
# Needs: root; HTCondor 23.9 (Debian trixie's `condor`/`minicondor` package) in a
# chroot made by the anchor's setup-chroot.sh, and the anchor's pool.sh (see lib.sh
# for ANCHOR_ROOT / POOL_SH). It WIPES that pool's state (job queue, accountant).
#
# Run:   sudo ./capture-groups.sh [OUTDIR]       (OUTDIR default: ./groups next to this script)
# Takes about 12 minutes.
#
# What it does: the pool of capture-usage.sh (4 static 1-cpu and 4 static 2-cpu slots,
# SLOT_WEIGHT = Cpus, PRIORITY_HALFLIFE = 300 s, NEGOTIATOR_INTERVAL = 20 s) with the
# accounting groups group_a (quota 4, GROUP_PRIO_FACTOR 500), group_b (dynamic quota 0.5)
# and group_b.sub (quota 2), surplus sharing on; jobs in group_a (bench01, bench02),
# group_b.sub (bench03), no group (bench04) and a nice_user job (bench04); after about
# 5 minutes three snapshots, each right after a negotiation cycle; when the queue is
# empty one more. Each snapshot is a directory (see README.md).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
OUT=${1:-$HERE/groups}
export SNAPSHOT_GROUP_TABLES=1
[ "$(id -u)" = 0 ] || die "must run as root"
mkdir -p "$OUT"

USERS=(bench01 bench02 bench03 bench04)
for u in "${USERS[@]}"; do ensure_user "$u"; done

say "wiping and starting the pool with a real startd"
"$POOL_SH" wipe >/dev/null
cat > "$ROOT$OVERRIDE" <<'CFG'
## written by capture-groups.sh (accountant oracle)
GROUP_NAMES = group_a, group_b, group_b.sub
GROUP_QUOTA_group_a = 4
GROUP_QUOTA_DYNAMIC_group_b = 0.5
GROUP_QUOTA_group_b.sub = 2
GROUP_PRIO_FACTOR_group_a = 500
GROUP_ACCEPT_SURPLUS = True
PRIORITY_HALFLIFE = 300
## log every accountant update (old/new priority, recent usage, uncharged time)
NEGOTIATOR_DEBUG = D_MATCH D_SUB_SECOND D_ACCOUNTANT
NEGOTIATOR_CONSIDER_PREEMPTION = False
NUM_CPUS = 12
MEMORY = 12288
NUM_SLOTS_TYPE_1 = 4
SLOT_TYPE_1 = cpus=1, memory=1024
NUM_SLOTS_TYPE_2 = 4
SLOT_TYPE_2 = cpus=2, memory=2048
START = TARGET.RequestCpus <= MY.Cpus
SUSPEND = False
PREEMPT = False
KILL = False
WANT_SUSPEND = False
WANT_VACATE = False
SLOT_WEIGHT = Cpus
## a chroot cannot unshare mount/pid namespaces: the starter must not try
MOUNT_UNDER_SCRATCH =
USE_PID_NAMESPACES = False
CFG
cp "$ROOT$OVERRIDE" "$OUT/override.config"
ANCHOR_STARTD=1 ANCHOR_NEGOTIATOR_INTERVAL=20 "$POOL_SH" start >/dev/null
for _ in $(seq 1 60); do
	[ "$(inchroot condor_status -af Name 2>/dev/null | wc -l)" -ge 8 ] && break; sleep 1
done
inchroot condor_status -af Name Cpus SlotWeight >&2

T0=$(date -u +%s)
echo "$T0" > "$OUT/t0"
ev() { echo "$(date -u +%s) $*" >> "$OUT/events.txt"; say "$*"; }
: > "$OUT/events.txt"

# submit USER N CPUS SECONDS [SUBMIT-LINE]
submit() {
	local u=$1 n=$2 c=$3 s=$4 extra=${5:-} f
	f=/tmp/acct-oracle-$u-$(date +%s%N).sub
	printf '%s\n' "executable = /bin/sleep" "arguments = $s" "request_cpus = $c" \
		"request_memory = 64" "should_transfer_files = NO" "output = /dev/null" \
		"error = /dev/null" "log = /dev/null" "$extra" "queue $n" > "$ROOT$f"
	chmod 644 "$ROOT$f"
	asuser "$u" condor_submit "$f" >/dev/null
	ev "submit $u $n jobs request_cpus=$c sleep $s $extra"
}
admin() { inchroot condor_userprio "$@" >/dev/null 2>&1; ev "condor_userprio $*"; }
at() { local t=$(( T0 + $1 - $(date -u +%s) )); [ $t -le 0 ] || sleep "$t"; }

submit bench01 4 1 240 "accounting_group = group_a"
submit bench02 2 2 200 "accounting_group = group_a"
submit bench03 4 1 150 "accounting_group = group_b.sub"
submit bench04 2 2 180
submit bench04 2 1 120 "nice_user = true"
at 120; submit bench03 2 2 120 "accounting_group = group_b.sub"

n=1
for t in 300 380 460; do
	at $t; wait_cycle; snapshot "$OUT/running-$n"; n=$((n + 1))
done

say "waiting for the queue to drain"
for _ in $(seq 1 180); do
	[ -z "$(inchroot condor_q -allusers -af ClusterId 2>/dev/null)" ] && break; sleep 10
done
left=$(inchroot condor_q -allusers -af ClusterId 2>/dev/null | wc -l)
[ "$left" = 0 ] || ev "WARNING: $left jobs still queued"
ev "queue empty"
# let the startd report the slots unclaimed, then one more cycle
sleep 25; wait_cycle; snapshot "$OUT/idle-1"
cp "$NEGLOG" "$OUT/NegotiatorLog"
rm -f "$ROOT"/tmp/acct-oracle-*.sub
say "done; pool left running (./pool.sh stop to stop it)"
