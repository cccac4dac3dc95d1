#!/bin/bash
# capture-pslot-preempt.sh -- two real HTCondor 23.9 negotiation cycles on a REAL startd whose
# partitionable slots are filled with running jobs: one with ALLOW_PSLOT_PREEMPTION = False,
# then the same pool with ALLOW_PSLOT_PREEMPTION = True, where a job fits only by preempting
# several dynamic slots of one p-slot at once.
#
# The pool: one condor_startd with two partitionable slots of 8 cpus / 8192 MB each
# (NUM_CPUS faked to 16). bench01 (priority factor 100000, so a high effective priority)
# runs 12 one-cpu `sleep` jobs and bench02 (factor 1000) 2, which the schedd places as 14
# dynamic slots (2 cpus stay free). Then bench02 submits 3 jobs of 6 cpus each: no single
# dynamic slot and no p-slot's leftover holds one. PREEMPTION_REQUIREMENTS = RemoteUserPrio >
# SubmitterUserPrio * 1.2, startd RANK 0 (every d-slot's CurrentRank equals the new job's rank,
# so d-slots are taken by priority preemption, each checked with PREEMPTION_REQUIREMENTS).
#
# Writes two scenario snapshots (files as in README.md): snap-pslot-preempt-off (knob False)
# and snap-pslot-preempt (knob True), each with slots.ad (condor_status -l of the slots just
# before its cycle: p-slots with their Child* lists and the dynamic slots), jobs.ad.gz,
# userprio-before.ad, userprio.ad, submitters.ad, config.dump, cycle.log, matches.tsv,
# summary.txt, negotiator-cycle0.ad, result.json; snap-pslot-preempt also gets after.txt (the
# queue and the slots 60 s after the cycle: what the schedd and startd made of the match).
#
# `./capture-pslot-preempt.sh rank` makes snap-pslot-preempt-rank instead (knob True only): the
# startd's RANK = (TARGET.Owner =?= "bench03") * 10 and MAXJOBRETIREMENTTIME = 600 for bench04's
# jobs. Running: bench01 10 one-cpu jobs, bench04 4 (both factor 100000). Idle: bench02 (factor
# 1000) one 5-cpu job, bench03 (factor 100000, so PREEMPTION_REQUIREMENTS is false for it) two
# 3-cpu jobs, which the p-slots' RANK prefers: rank preemption through a p-slot, retiring
# d-slots passed over.
#
# `./capture-pslot-preempt.sh handout` makes snap-pslot-preempt-handout (knob True only): bench01
# (factor 100000) runs 14 one-cpu jobs; idle: bench02 (factor 1000) one 4-cpu job, bench03
# (factor 1100, so it negotiates second) one 5-cpu job. bench02's candidates are both p-slots
# (the schedd placed seven jobs on each, one cpu free: each with three d-slots); it takes one,
# and the d-slots of the other candidate are handed out all the same, so bench03 gets the other
# p-slot with the four d-slots after them.
#
# Where the schedd places the running jobs is its choice: slots.ad and after.txt of each
# snapshot show the layout it chose.
#
# `./capture-pslot-preempt.sh cp` makes snap-pslot-preempt-cp: the first pool and jobs with
# CONSUMPTION_POLICY = True on the startd (knob True only). `./capture-pslot-preempt.sh cp-split`
# makes snap-pslot-preempt-cp-split: the consumption policy, bench01 running 8 jobs of 2 cpus
# (no cpu free), bench02 asking for 3 jobs of 1 cpu: what is left of an enlarged p-slot after
# the job's share is carved goes back into the match list.
#
# Run as root: ANCHOR_DIR=<anchor scripts dir> [ANCHOR_ROOT=<chroot>] ./capture-pslot-preempt.sh [rank|handout|cp|cp-split]
# It WIPES the pool's state (job queue, accountant) before and after, and runs a real startd
# (ANCHOR_STARTD=1).
set -eEuo pipefail
trap 'echo "capture-pslot-preempt.sh: failed at line $LINENO" >&2' ERR
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
ADIR=${ANCHOR_DIR:?set ANCHOR_DIR to the anchor scripts directory}
CASE=${1:-priority}
case "$CASE" in
	priority) ON=${OUT:-$HERE/snap-pslot-preempt} ;;
	rank) ON=${OUT:-$HERE/snap-pslot-preempt-rank} ;;
	handout) ON=${OUT:-$HERE/snap-pslot-preempt-handout} ;;
	cp) ON=${OUT:-$HERE/snap-pslot-preempt-cp} ;;
	cp-split) ON=${OUT:-$HERE/snap-pslot-preempt-cp-split} ;;
	*) echo "usage: $0 [rank|handout|cp|cp-split]" >&2; exit 2 ;;
esac
OFF=${OUT_OFF:-$HERE/snap-pslot-preempt-off}
NEGLOG=$ROOT/var/lib/condor-anchor/log/NegotiatorLog
OVERRIDE=$ROOT/etc/condor/anchor-override.config
WORK_IN=/tmp/anchor-capture/pslot-preempt
WORK=$ROOT$WORK_IN
UDOMAIN=anchor.local
log() { echo "[capture $(date -u +%T)] $*" >&2; }
C() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC "$@"; }
negattr() { C condor_status -negotiator -af "$1" 2>/dev/null | head -1 || true; }
count() { C condor_q -allusers -constraint "$1" -af ClusterId 2>/dev/null | wc -l; }

write_override() { # ALLOW_PSLOT_PREEMPTION value
	cat > "$OVERRIDE" <<EOF
## written by capture-pslot-preempt.sh; removed when it exits
NUM_CPUS = 16
MEMORY = 16384
SLOT_TYPE_1 = cpus=8, memory=8192, disk=50%
SLOT_TYPE_1_PARTITIONABLE = True
NUM_SLOTS_TYPE_1 = 2
## let the sleep jobs start inside a chroot (no private mount namespaces)
MOUNT_UNDER_SCRATCH =
MOUNT_PRIVATE_DEV_SHM = False
USE_PID_NAMESPACES = False
STARTD_DEBUG = D_SUB_SECOND
NEGOTIATOR_INTERVAL = 1000000
NEGOTIATOR_DEBUG = D_FULLDEBUG D_MATCH D_ACCOUNTANT D_SUB_SECOND
MAX_NEGOTIATOR_LOG = 2000000000
PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2
ALLOW_PSLOT_PREEMPTION = $1
EOF
	if [ "$CASE" = rank ]; then
		cat >> "$OVERRIDE" <<'EOF'
RANK = (TARGET.Owner =?= "bench03") * 10
MAXJOBRETIREMENTTIME = ifThenElse(TARGET.Owner =?= "bench04", 600, 0)
EOF
	fi
	case "$CASE" in cp*) echo "CONSUMPTION_POLICY = True" >> "$OVERRIDE";; esac
}

# one negotiation cycle, recorded into $1 with ALLOW_PSLOT_PREEMPTION = $2
capture_cycle() {
	local out=$1 knob=$2 before t0 cur off n_slots n_jobs i
	mkdir -p "$out"
	write_override "$knob"
	C condor_reconfig -negotiator >/dev/null
	sleep 3
	[ "$(C condor_config_val -negotiator ALLOW_PSLOT_PREEMPTION)" = "$knob" ] || { log "reconfig did not take"; exit 1; }
	off=$(stat -c %s "$NEGLOG")
	C condor_status -l > "$out/slots.ad"
	C condor_q -allusers -constraint 'AnchorBench =?= true' -l | gzip -9n > "$out/jobs.ad.gz"
	C condor_userprio -allusers -l > "$out/userprio-before.ad" 2>/dev/null || true
	before=$(negattr LastNegotiationCycleTime0)
	t0=$(date +%s)
	C condor_reschedule >/dev/null
	for i in $(seq 1 600); do
		cur=$(negattr LastNegotiationCycleTime0)
		[ -n "$cur" ] && [ "$cur" != "$before" ] && [ "$cur" -ge "$t0" ] && break
		sleep 0.5
	done
	log "cycle published (LastNegotiationCycleTime0 $cur)"
	tail -c +$((off + 1)) "$NEGLOG" | awk '/Started Negotiation Cycle/ {on = 1} on {print} on && /Finished Negotiation Cycle/ {exit}' > "$out/cycle.log"
	C condor_status -negotiator -l | grep '^LastNegotiationCycle.*0 = ' | sort > "$out/negotiator-cycle0.ad"
	C condor_userprio -allusers -l > "$out/userprio.ad"
	C condor_status -submitters -l > "$out/submitters.ad"
	C condor_config_val -negotiator -dump > "$out/config.dump"
	cp "$WORK"/*.sub "$out/"
	python3 "$HERE/extract.py" "$out"
	n_slots=$(grep -c '^MyType = "Machine"' "$out/slots.ad")
	n_jobs=$(count 'AnchorBench =?= true && JobStatus == 1')
	python3 "$HERE/cycle-json.py" "$out/negotiator-cycle0.ad" "$n_slots" "$n_jobs" > "$out/result.json"
	log "$(basename "$out"): $(head -1 "$out/summary.txt")"
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	"$ADIR/pool.sh" stop >/dev/null 2>&1 || true
	rm -f "$OVERRIDE"
	"$ADIR/pool.sh" wipe >/dev/null 2>&1 || true
	exit $rc
}

log "wiping the pool, starting it with a real startd"
"$ADIR/pool.sh" wipe >/dev/null 2>&1 || true
trap cleanup EXIT
trap 'exit 130' INT TERM
write_override False
ANCHOR_STARTD=1 ANCHOR_NEGOTIATOR_INTERVAL=1000000 "$ADIR/pool.sh" start >/dev/null
for i in $(seq 1 120); do
	n=$(C condor_status -const 'PartitionableSlot =?= true' -af Name 2>/dev/null | wc -l)
	[ "$n" -ge 2 ] && break; sleep 1
done
[ "$n" -ge 2 ] || { log "the startd's two p-slots never showed up"; exit 1; }

rm -rf "$WORK"; mkdir -p "$WORK"; chmod 755 "$ROOT/tmp/anchor-capture" "$WORK"
for u in bench01 bench02 bench03 bench04; do
	C id "$u" >/dev/null 2>&1 || C useradd -M -d /tmp -s /bin/sh "$u"
done
sub() { # file cpus memory count
	cat > "$WORK/$1" <<EOF
universe = vanilla
executable = /bin/sleep
arguments = 7200
transfer_executable = false
should_transfer_files = NO
initialdir = /tmp
request_cpus = $2
request_memory = $3
request_disk = 1024
+AnchorBench = true
queue $4
EOF
	chmod 644 "$WORK/$1"
}
if [ "$CASE" = rank ]; then
	sub bench01-running.sub 1 512 10
	sub bench04-running.sub 1 512 4
	sub bench02.sub 5 1024 1
	sub bench03.sub 3 1024 2
	RUNNING="bench01 bench04"; IDLE="bench02 bench03"; N_IDLE=3
	C condor_userprio -setfactor "bench03@$UDOMAIN" 100000 >/dev/null
	C condor_userprio -setfactor "bench04@$UDOMAIN" 100000 >/dev/null
elif [ "$CASE" = cp-split ]; then
	sub bench01-running.sub 2 512 8
	sub bench02.sub 1 512 3
	RUNNING="bench01"; IDLE="bench02"; N_IDLE=3
elif [ "$CASE" = handout ]; then
	sub bench01-running.sub 1 512 14
	sub bench02.sub 4 1024 1
	sub bench03.sub 5 1024 1
	RUNNING="bench01"; IDLE="bench02 bench03"; N_IDLE=2
	C condor_userprio -setfactor "bench03@$UDOMAIN" 1100 >/dev/null
else
	sub bench01-running.sub 1 512 12
	sub bench02-running.sub 1 512 2
	sub bench02.sub 6 1024 3
	RUNNING="bench01 bench02"; IDLE="bench02"; N_IDLE=3
fi
C condor_userprio -setfactor "bench01@$UDOMAIN" 100000 >/dev/null
C condor_userprio -setfactor "bench02@$UDOMAIN" 1000 >/dev/null
N_RUN=$(cat "$WORK"/*-running.sub | awk '/^queue/ {n += $2} END {print n}')
for u in $RUNNING; do C runuser -u "$u" -- condor_submit "$WORK_IN/$u-running.sub" >/dev/null; done
log "waiting for the $N_RUN running jobs"
for i in $(seq 1 90); do
	r=$(count 'JobStatus == 2')
	[ "$r" -ge "$N_RUN" ] && break
	C condor_reschedule >/dev/null; sleep 4
done
[ "$r" -ge "$N_RUN" ] || { log "only $r jobs run"; exit 1; }
# the collector must hold the 14 busy d-slots and p-slots whose Child* lists show them
for i in $(seq 1 60); do
	d=$(C condor_status -const 'DynamicSlot =?= true && State == "Claimed" && Activity == "Busy"' -af Name 2>/dev/null | wc -l)
	k=$(C condor_status -const 'PartitionableSlot =?= true' -af 'size(ChildState)' 2>/dev/null | awk '{n += $1} END {print n+0}')
	[ "$d" -ge "$N_RUN" ] && [ "$k" -ge "$N_RUN" ] && break; sleep 2
done
log "collector: $d busy dynamic slots, $k children in the p-slots' lists"
for u in $IDLE; do C runuser -u "$u" -- condor_submit "$WORK_IN/$u.sub" >/dev/null; done
for i in $(seq 1 60); do
	[ "$(count 'JobStatus == 1')" -ge "$N_IDLE" ] && break; sleep 1
done
sleep 6   # one more startd/schedd update round

[ "$CASE" != priority ] || capture_cycle "$OFF" False
capture_cycle "$ON" True
sleep 60
{ echo "## condor_q 60 s after the cycle"; C condor_q -allusers -af ClusterId ProcId Owner JobStatus RequestCpus RemoteHost
  echo "## slots"; C condor_status -af Name State Activity Cpus RemoteUser; } > "$ON/after.txt" 2>&1 || true
log "done"
