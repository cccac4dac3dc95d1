#!/bin/bash
# capture.sh -- record how a real condor_startd (HTCondor 23.9.6) moves one slot
# through its states and activities under a policy, running one job.
#
# For each policy directory (always_run, preempt_retire, ...) it configures a
# personal pool's startd with one static slot and <policy>/policy.conf, submits
# <policy>/job.sub (a sleep job) as an ordinary user, waits until the job has
# finished, or was evicted and not matched again, and stores:
#   <policy>/job.ad      the job's ad right after submission (`condor_q -l`)
#   <policy>/startlog.txt  the slot's StartLog lines that change its state or
#                        activity ("Changing state ...", "Changing activity ...")
#                        and the events behind them (claim, activation, the
#                        starter's exit, the claim's release)
#   <policy>/config.txt  the policy knobs as the startd saw them (condor_config_val)
# `matchmaker/tests/startd_startlog.rs` replays these events through
# `matchmaker::startd::step` and compares the states.
#
# Needs a personal pool driven by a `pool` command with start/stop/wipe/run
# sub-commands that reads extra configuration from $OVERRIDE (in the pool's file
# system) and runs a real startd when ANCHOR_STARTD=1 -- the project used a Debian
# trixie chroot with the `minicondor` package (HTCondor 23.9.6) and a control
# script around it.  Runs as root; wipes the pool's state.  Usage:
#   POOL=/path/to/pool.sh ROOT=/path/to/chroot ./capture.sh [policy...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
POOL=${POOL:?set POOL to the pool control script}
ROOT=${ROOT:?set ROOT to the pool file system root}
OVERRIDE=${OVERRIDE:-/etc/condor/anchor-override.config}
LOGDIR=${LOGDIR:-/var/lib/condor-anchor/log}   # the pool's LOG directory
KNOBS="RunBenchmarks START IS_OWNER SUSPEND CONTINUE PREEMPT KILL WANT_SUSPEND WANT_VACATE MaxJobRetirementTime MachineMaxVacateTime CLAIM_WORKLIFE POLLING_INTERVAL UPDATE_INTERVAL"
USER_NAME=alice
policies=("$@")
[ ${#policies[@]} -gt 0 ] || policies=(always_run preempt_retire suspend_continue kill_no_vacate)

run() { "$POOL" run "$@"; }
say() { echo "[startlog $(date -u +%T)] $*"; }

"$POOL" wipe >/dev/null 2>&1 || true
run id "$USER_NAME" >/dev/null 2>&1 || run useradd -m -s /bin/sh "$USER_NAME"

for p in "${policies[@]}"; do
	d=$here/$p
	say "== $p"
	"$POOL" stop >/dev/null 2>&1 || true
	{ echo "## written by startlog/capture.sh for policy $p"
	  echo "NUM_CPUS = 1"
	  echo "MEMORY = 1024"
	  echo "DISK = 1000000"
	  echo "SLOT_TYPE_1 = 100%"
	  echo "SLOT_TYPE_1_PARTITIONABLE = False"
	  echo "NUM_SLOTS_TYPE_1 = 1"
	  echo "SUBMIT_SEND_RESCHEDULE = True"
	  echo "STARTD_DEBUG = D_FULLDEBUG D_SUB_SECOND"
	  # let the sleep job start inside a chroot (no private mount namespaces)
	  echo "MOUNT_UNDER_SCRATCH ="
	  echo "MOUNT_PRIVATE_DEV_SHM = False"
	  echo "USE_PID_NAMESPACES = False"
	  cat "$d/policy.conf"
	} > "$ROOT$OVERRIDE"
	[ -f "$ROOT$LOGDIR/StartLog" ] && : > "$ROOT$LOGDIR/StartLog"
	ANCHOR_STARTD=1 ANCHOR_NEGOTIATOR_INTERVAL=5 "$POOL" start >/dev/null
	for _ in $(seq 1 60); do
		run condor_status -af State 2>/dev/null | grep -q Unclaimed && break
		sleep 1
	done
	: > "$d/config.txt"
	for k in $KNOBS; do
		v=$(run condor_config_val -startd "$k" 2>/dev/null || true)
		case "$v" in ""|"Not defined"*) ;; *) echo "$k = $v" >> "$d/config.txt";; esac
	done
	cp "$d/job.sub" "$ROOT/home/$USER_NAME/startlog-job.sub"; chmod 644 "$ROOT/home/$USER_NAME/startlog-job.sub"
	cluster=$(run runuser -u "$USER_NAME" -- sh -c 'cd && condor_submit -terse startlog-job.sub' | cut -d. -f1)
	run condor_q -l "$cluster.0" > "$d/job.ad"
	say "submitted job $cluster.0"
	# done when the job left the queue, or ran once, is idle again and the slot is free
	for i in $(seq 1 400); do
		st=$(run condor_q "$cluster.0" -af JobStatus NumJobStarts 2>/dev/null || true)
		slot=$(run condor_status -af State Activity 2>/dev/null || true)
		if [ -z "$st" ]; then break; fi
		case "$st" in "1 "[1-9]*) [ "$slot" = "Unclaimed Idle" ] && break;; esac
		[ $((i % 15)) = 0 ] && say "job: $st; slot: $slot"
		sleep 1
	done
	sleep 3
	grep -E 'slot1: (Changing (state|activity)|State change|Got activate_claim|Called deactivate_claim|Got (RELEASE|DEACTIVATE|VACATE|SUSPEND|CONTINUE)|Remote (owner|job))|Starter pid [0-9]+ exited|(claim|Claim).*(release|relinquish)' \
		"$ROOT$LOGDIR/StartLog" | sed -E 's/^[0-9]+\/[0-9]+\/[0-9]+ //' > "$d/startlog.txt" || true
	run condor_rm "$cluster" >/dev/null 2>&1 || true
	say "$(grep -c 'Changing' "$d/startlog.txt") state/activity changes"
done
"$POOL" stop >/dev/null 2>&1 || true
rm -f "$ROOT$OVERRIDE"
