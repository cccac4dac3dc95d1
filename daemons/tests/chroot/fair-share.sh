#!/bin/bash
# fair-share.sh -- the same workload in two real HTCondor 23.9.6 pools at
# once, one negotiated by condor_negotiator and one by classad-negotiator,
# recorded for fair-share-compare.py.
#
# Each pool (real condor_master, collector, schedd and startd in the anchor
# chroot) has SLOTS (8) static one-cpu slots whose claims run one job each
# (CLAIM_WORKLIFE = 0), so every slot goes back to the negotiator after
# every job and the negotiator alone decides who runs next. Three users
# contend for them:
#   alice  submits ALICE_JOBS jobs of 30 s at the start;
#   bob    submits BOB_JOBS jobs of 60 s at the start;
#   carol  submits CAROL_JOBS jobs of 30 s CAROL_AT seconds later.
# PRIORITY_HALFLIFE is 300 s and the negotiators cycle every CYCLE (20) s:
# NEGOTIATOR_INTERVAL = CYCLE, and at every CYCLE seconds from the first
# submission the script asks for a cycle (condor_reschedule;
# NEGOTIATOR_MIN_INTERVAL = 1), so both negotiators cycle at the same
# moments of the workload whatever their start-up took. At each of those
# moments it records condor_userprio -l (each user's priority, accumulated
# usage and slots in use). At DURATION it removes the idle jobs and goes on
# until the running ones have finished and the negotiator has seen their
# slots free (so the last priorities hold no slot in use, only the usage
# that decays), records every job's start (the job logs' execute events),
# and stops both pools.
#
# The recording, one directory per negotiator under OUT:
#   userprio.csv  t,user,priority,usage,weighted_usage,in_use
#   starts.csv    t,user,job          (t in seconds from the submission)
#   userprio.txt  the last condor_userprio -all -allusers
#   condor_config the pool's configuration
#
# Usage (as root on the host, from the repository):
#   daemons/tests/chroot/fair-share.sh
#   daemons/tests/chroot/fair-share-compare.py OUT   (the comparison and its plot)
# Environment:
#   CHROOT=/work/chroot   the chroot with HTCondor 23.9.6 (setup-chroot.sh)
#   OUT=daemons/tests/data/fair-share   where the recordings go
#   DURATION=1800 CYCLE=20 SLOTS=8 CAROL_AT=600 ALICE_JOBS=400 BOB_JOBS=200 CAROL_JOBS=400
#   PORTS=19640           the collectors' ports: PORTS (condor_negotiator's
#                         pool) and PORTS + 10 (ours)
#   MODE=claimtobe        as in negotiator-pool.sh
#   ONLY=                 real | ours: run one pool only
#   KEEP=0                1 = leave the pools' run directories (their logs)
set -euo pipefail

CHROOT=${CHROOT:-/work/chroot}
MODE=${MODE:-claimtobe}
DURATION=${DURATION:-1800}
CYCLE=${CYCLE:-20}
SLOTS=${SLOTS:-8}
PORTS=${PORTS:-19640}
CAROL_AT=${CAROL_AT:-600}
ALICE_JOBS=${ALICE_JOBS:-400}
BOB_JOBS=${BOB_JOBS:-200}
CAROL_JOBS=${CAROL_JOBS:-400}
ONLY=${ONLY:-}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(realpath -m "${OUT:-$HERE/../data/fair-share}")

# One pool: fair-share.sh pool NEGOTIATOR PORT (what the top level runs twice).
if [ "${1:-}" = pool ]; then
	NEGOTIATOR=$2 PORT=$3 COLLECTOR=real KEEP=${KEEP:-0} USERS="alice bob carol"
	# shellcheck source=pool-lib.sh
	. "$HERE/pool-lib.sh"
	say() { echo "[fair-share $NEGOTIATOR] $*"; }
	pool_prepare
	pool_config <<CONF
NEGOTIATOR_INTERVAL = $CYCLE
NEGOTIATOR_MIN_INTERVAL = 1
# condor_negotiator without a UDP command socket: the schedd's RESCHEDULE
# then comes over TCP, as to ours (over UDP it fails in an AES pool:
# "AES not supported for UDP", and the ticks never reach it).
NEGOTIATOR.WANT_UDP_COMMAND_SOCKET = False
NEGOTIATOR_CYCLE_DELAY = 5
NEGOTIATOR_UPDATE_INTERVAL = 10
PRIORITY_HALFLIFE = 300
NEGOTIATOR_CONSIDER_PREEMPTION = False
PREEMPTION_REQUIREMENTS = False
SCHEDD_INTERVAL = 10
UPDATE_INTERVAL = 5
NUM_CPUS = $SLOTS
MEMORY = $((SLOTS * 1024))
NUM_SLOTS = $SLOTS
CLAIM_WORKLIFE = 0
START = True
SUSPEND = False
PREEMPT = False
KILL = False
CONF
	pool_start
	have=$(pool_wait_up)
	case "$have" in *Negotiator*) ;; *) die "the pool did not come up: [$have]" ;; esac
	say "pool up ($have)"

	submit() { # USER JOBS SECONDS
		mkdir -p "$HOSTRUN/$1"
		chroot "$CHROOT" chown "$1:$1" "$RUN/$1"
		cat > "$HOSTRUN/$1/job.sub" <<JOB
executable = /bin/sleep
arguments = $3
log = $RUN/$1/job.log
request_cpus = 1
request_memory = 256
should_transfer_files = NO
queue $2
JOB
		chmod 644 "$HOSTRUN/$1/job.sub"
		asuser "$1" sh -c "cd $RUN/$1 && condor_submit job.sub" > "$HOSTRUN/$1/submit.txt" 2>&1 ||
			die "$1: condor_submit: $(cat "$HOSTRUN/$1/submit.txt")"
	}
	sample() { # T: one row per user of condor_userprio -l
		inchroot condor_userprio -all -allusers -l 2> /dev/null | awk -v t="$1" '
			/^Name[0-9]+ = /        { n = substr($1, 5); name[n] = $3; gsub(/"/, "", name[n]) }
			/^Priority[0-9]+ = /    { prio[substr($1, 9)] = $3 }
			/^AccumulatedUsage[0-9]+ = / { use[substr($1, 17)] = $3 }
			/^WeightedAccumulatedUsage[0-9]+ = / { wuse[substr($1, 25)] = $3 }
			/^ResourcesUsed[0-9]+ = / { inuse[substr($1, 14)] = $3 }
			END { for (n in name) if (name[n] ~ /@/) printf "%s,%s,%s,%s,%s,%s\n", t, name[n], prio[n], use[n], wuse[n], inuse[n] + 0 }' |
			sort -t, -k2,2
	}
	rec=$OUT/$NEGOTIATOR
	rm -rf "$rec"
	mkdir -p "$rec"
	echo "t,user,priority,usage,weighted_usage,in_use" > "$rec/userprio.csv"
	t0=$(date +%s)
	submit alice "$ALICE_JOBS" 30
	submit bob "$BOB_JOBS" 60
	carol=0 drained=0
	while :; do
		t=$(($(date +%s) - t0))
		if [ $carol = 0 ] && [ "$t" -ge "$CAROL_AT" ]; then submit carol "$CAROL_JOBS" 30; carol=1; fi
		if [ "$t" -ge "$DURATION" ] && [ $drained = 0 ]; then
			inchroot condor_rm -all -constraint 'JobStatus == 1' > /dev/null 2>&1 || true
			drained=$t
		fi
		# The cycle of this moment, asked of the schedd (which asks the negotiator).
		inchroot condor_reschedule > /dev/null 2>&1 || true
		sample "$t" >> "$rec/userprio.csv"
		# Done when no slot has been in use for two cycles (or after 5 minutes).
		if [ $drained != 0 ]; then
			busy=$(tail -n +2 "$rec/userprio.csv" | awk -F, -v t="$t" -v c="$CYCLE" '$1 >= t - c && $6 > 0' | wc -l)
			[ "$busy" = 0 ] && [ "$t" -ge $((drained + 2 * CYCLE)) ] && break
			[ "$t" -ge $((drained + 300)) ] && break
		fi
		say "t=${t}s: $(tail -n +2 "$rec/userprio.csv" | awk -F, -v t="$t" '$1 == t { printf "%s %s slots, ", $2, $6 }')"
		next=$(((t / CYCLE + 1) * CYCLE))
		left=$((next - ($(date +%s) - t0)))
		[ "$left" -le 0 ] || sleep "$left"
	done
	inchroot condor_userprio -all -allusers > "$rec/userprio.txt" 2>&1 || true
	# Each job's start: the execute events (001) of the job logs, seconds from t0.
	echo "t,user,job" > "$rec/starts.csv"
	for u in $USERS; do
		[ -f "$HOSTRUN/$u/job.log" ] || continue
		awk -v u="$u" '$1 == "001" { gsub(/[()]/, "", $2); print $3 " " $4 "," u "," $2 }' "$HOSTRUN/$u/job.log"
	done | while IFS=, read -r when u job; do
		echo "$(($(date -u -d "$when" +%s) - t0)),$u,$job"
	done | sort -t, -k1,1n -k3,3 >> "$rec/starts.csv"
	sed "s|$RUN|\$(RUN_DIR)|g" "$HOSTRUN/condor_config" > "$rec/condor_config"
	say "$(($(wc -l < "$rec/starts.csv") - 1)) jobs started; recorded in $rec"
	exit 0
fi

# The top level: both pools at once, on their own ports.
[ "$(id -u)" = 0 ] || { echo "fair-share.sh: must run as root (chroot)" >&2; exit 1; }
export CHROOT MODE DURATION CYCLE SLOTS CAROL_AT ALICE_JOBS BOB_JOBS CAROL_JOBS OUT
(cd "$HERE/../../.." && cargo build -q --locked -p daemons --bin classad-negotiator --bin classad-collector)
pids=()
for n in real ours; do
	[ -z "$ONLY" ] || [ "$ONLY" = $n ] || continue
	port=$([ $n = real ] && echo "$PORTS" || echo $((PORTS + 10)))
	"$0" pool $n $port &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
[ $rc = 0 ] || { echo "fair-share.sh: a pool failed" >&2; exit 1; }
echo "fair-share.sh: recorded in $OUT; compare with $HERE/fair-share-compare.py $OUT"
