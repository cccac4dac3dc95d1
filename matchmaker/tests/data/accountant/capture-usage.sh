#!/bin/bash
# capture-usage.sh -- record a real HTCondor accountant with real usage.
#
# Needs: root; HTCondor 23.9 (Debian trixie's `condor`/`minicondor` package) in a
# chroot made by the anchor's setup-chroot.sh, and the anchor's pool.sh (see lib.sh
# for ANCHOR_ROOT / POOL_SH). It WIPES that pool's state (job queue, accountant).
#
# Run:   sudo ./capture-usage.sh [OUTDIR]        (OUTDIR default: ./usage next to this script)
# Takes about 15-20 minutes.
#
# What it does: a pool with a real startd (4 static 1-cpu slots and 4 static 2-cpu
# slots, SLOT_WEIGHT = Cpus), PRIORITY_HALFLIFE = 300 s, NEGOTIATOR_INTERVAL = 20 s;
# four chroot users bench01..bench04 submit /bin/sleep jobs at different times
# (bench02 has priority factor 2000, bench03 a ceiling of 2, bench04 a floor of 4);
# after about 8 minutes three snapshots, each right after a negotiation cycle; when
# the queue is empty two more snapshots 60+ s apart (decay without usage).
# Each snapshot is a directory (see README.md).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
OUT=${1:-$HERE/usage}
[ "$(id -u)" = 0 ] || die "must run as root"
mkdir -p "$OUT"

dump_default_knobs > "$OUT/knobs-defaults.txt"

USERS=(bench01 bench02 bench03 bench04)
for u in "${USERS[@]}"; do ensure_user "$u"; done

say "wiping and starting the pool with a real startd"
"$POOL_SH" wipe >/dev/null
cat > "$ROOT$OVERRIDE" <<'CFG'
## written by capture-usage.sh (accountant oracle)
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

# submit USER N CPUS SECONDS
submit() {
	local u=$1 n=$2 c=$3 s=$4 f
	f=/tmp/acct-oracle-$u-$(date +%s).sub
	printf '%s\n' "executable = /bin/sleep" "arguments = $s" "request_cpus = $c" \
		"request_memory = 64" "should_transfer_files = NO" "output = /dev/null" \
		"error = /dev/null" "log = /dev/null" "queue $n" > "$ROOT$f"
	chmod 644 "$ROOT$f"
	asuser "$u" condor_submit "$f" >/dev/null
	ev "submit $u $n jobs request_cpus=$c sleep $s"
}
admin() { inchroot condor_userprio "$@" >/dev/null 2>&1; ev "condor_userprio $*"; }
at() { local t=$(( T0 + $1 - $(date -u +%s) )); [ $t -le 0 ] || sleep "$t"; }

admin -setfactor bench02@anchor.local 2000
admin -setceiling bench03@anchor.local 2
admin -setfloor bench04@anchor.local 4
submit bench01 6 1 300
submit bench02 3 2 200
at 90;  submit bench03 6 1 120
at 180; submit bench04 3 2 240
at 420; submit bench01 2 1 90

n=1
for t in 480 560 640; do
	at $t; wait_cycle; snapshot "$OUT/running-$n"; n=$((n + 1))
done

say "waiting for the queue to drain"
for _ in $(seq 1 180); do
	[ -z "$(inchroot condor_q -allusers -af ClusterId 2>/dev/null)" ] && break; sleep 10
done
left=$(inchroot condor_q -allusers -af ClusterId 2>/dev/null | wc -l)
[ "$left" = 0 ] || ev "WARNING: $left jobs still queued"
ev "queue empty"
# let the startd report the slots unclaimed, then two cycles 60+ s apart
sleep 25; wait_cycle; snapshot "$OUT/idle-1"
sleep 60; wait_cycle; snapshot "$OUT/idle-2"
cp "$NEGLOG" "$OUT/NegotiatorLog"
rm -f "$ROOT"/tmp/acct-oracle-*.sub
say "done; pool left running (./pool.sh stop to stop it)"
