#!/bin/bash
# capture.sh -- regenerate the slot ads in this directory from a real
# condor_startd (HTCondor 23.9.6).
#
# For each layout directory (default, static_shares, ...) it configures a
# personal HTCondor pool's startd with <layout>/startd.conf, restarts the
# pool, and stores:
#   <layout>/slots.ads    `condor_status -l` of the machine's slots
#   <layout>/base.conf    the effective values of the policy knobs the
#                         startd used (START, RANK, ...), from condor_config_val
#   <layout>/claimed.ads  if <layout>/job.sub exists: the slot ads once that
#                         job runs (a dynamic slot carved from a
#                         partitionable slot)
#   <layout>/job.ads      that job's ad (`condor_q -l`) while it runs
#   <layout>/released.ads `condor_status -l` after the job is removed and
#                         its dynamic slot is gone
#   <layout>/startd.log   if <layout>/expect-failure exists: the startd's
#                         error lines (it refuses the layout and exits)
#
# Needs a personal pool driven by a `pool` command with start/stop/run
# sub-commands that reads extra configuration from $OVERRIDE (in the pool's
# file system) -- the project used a Debian chroot with the `minicondor`
# package (HTCondor 23.9.6) and a helper script around it.  Usage:
#   POOL=/path/to/pool.sh ROOT=/path/to/chroot ./capture.sh [layout...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
POOL=${POOL:?set POOL to the pool control script}
ROOT=${ROOT:?set ROOT to the pool file system root}
OVERRIDE=${OVERRIDE:-/etc/condor/anchor-override.config}
LOGDIR=${LOGDIR:-/var/lib/condor-anchor/log}   # the pool's LOG directory
KNOBS="START RANK SUSPEND CONTINUE PREEMPT KILL WANT_SUSPEND WANT_VACATE IS_OWNER STARTD_ATTRS SLOT_WEIGHT"
layouts=("$@")
[ ${#layouts[@]} -gt 0 ] || layouts=(default static_shares pslot mixed gpus gpu_pslot consumption policy_attrs two_pslots fractional overcommit bad_description
	cpus_share_over_100 cpus_shares_sum_over_100 cpus_amount_over_machine cpus_share_over_100_pslot cpus_amount_refused fractional_overcommit
	memory_share_over_100 memory_shares_sum_over_100 memory_amount_over_machine disk_share_over_100
	swap_share_over_100 custom_share_over_100 bare_share_over_100)

run() { "$POOL" run "$@"; }

wait_slots() {  # until the set of slot ads is stable for 3 polls
	local prev="" cur n=0
	for _ in $(seq 1 90); do
		cur=$(run condor_status -startd -af Name Cpus Memory Disk 2>/dev/null | sort || true)
		if [ -n "$cur" ] && [ "$cur" = "$prev" ]; then n=$((n + 1)); [ $n -ge 3 ] && return 0; else n=0; fi
		prev=$cur; sleep 2
	done
	echo "capture.sh: slots never settled" >&2; return 1
}

for layout in "${layouts[@]}"; do
	d=$here/$layout
	echo "== $layout"
	"$POOL" stop >/dev/null 2>&1 || true
	{ echo "## written by capture.sh for layout $layout"
	  cat "$d/startd.conf"
	  echo "SUBMIT_SEND_RESCHEDULE = True"
	  # let the sleep job start inside a chroot (no private mount namespaces)
	  echo "MOUNT_UNDER_SCRATCH ="
	  echo "MOUNT_PRIVATE_DEV_SHM = False"
	  echo "USE_PID_NAMESPACES = False"
	} > "$ROOT$OVERRIDE"
	[ -f "$ROOT$LOGDIR/StartLog" ] && : > "$ROOT$LOGDIR/StartLog"
	ANCHOR_STARTD=1 "$POOL" start >/dev/null
	if [ -f "$d/expect-failure" ]; then
		sleep 20
		grep -E "ERROR|Can't|Ran out|Requesting|Available|You must|description" "$ROOT$LOGDIR/StartLog" \
			| sed -E 's/^[0-9/]+ [0-9:.]+ //' | awk '!seen[$0]++' > "$d/startd.log" || true
		echo "   $(wc -l < "$d/startd.log") error lines"
		continue
	fi
	wait_slots
	run condor_status -l > "$d/slots.ads"
	: > "$d/base.conf"
	for k in $KNOBS; do
		v=$(run condor_config_val -startd "$k" 2>/dev/null || true)
		case "$v" in ""|"Not defined"*) ;; *) echo "$k = $v" >> "$d/base.conf";; esac
	done
	if [ -f "$d/job.sub" ]; then
		cp "$d/job.sub" "$ROOT/tmp/capture-job.sub"; chmod 644 "$ROOT/tmp/capture-job.sub"
		run runuser -u bench01 -- sh -c 'cd /tmp && condor_submit capture-job.sub' >/dev/null
		run condor_reschedule >/dev/null 2>&1 || true
		ok=0
		for _ in $(seq 1 60); do
			if run condor_status -af DynamicSlot State 2>/dev/null | grep -q '^true Claimed'; then ok=1; break; fi
			sleep 2
		done
		[ $ok = 1 ] || { echo "capture.sh: $layout: no dynamic slot was claimed" >&2; }
		sleep 6   # let the p-slot's update follow the claim
		run condor_status -l > "$d/claimed.ads"
		run condor_q -all -l > "$d/job.ads"
		run condor_rm -all >/dev/null 2>&1 || true
		# once the claim is gone the dynamic slot goes and its resources return
		for _ in $(seq 1 60); do
			run condor_status -af DynamicSlot 2>/dev/null | grep -q true || break
			sleep 2
		done
		sleep 6
		run condor_status -l > "$d/released.ads"
	fi
	echo "   $(grep -c '^Name = ' "$d/slots.ads") slots"
done
rm -f "$ROOT$OVERRIDE"
"$POOL" stop >/dev/null 2>&1 || true
