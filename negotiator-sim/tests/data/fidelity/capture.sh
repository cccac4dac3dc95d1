#!/bin/bash
# capture.sh -- record a small real HTCondor 23.9.6 pool running short sleep jobs of
# four users for ~40 minutes: the reference run for the simulator's fidelity check.
#
# The pool: one condor_startd with 8 static one-CPU slots (NUM_CPUS faked),
# PRIORITY_HALFLIFE = 300, NEGOTIATOR_INTERVAL = 20, claims reused as HTCondor does by
# default (CLAIM_WORKLIFE 1200 s), no preemption (PREEMPTION_REQUIREMENTS = False,
# the default).  Four unix users (alice, bob, carol, dave) submit `sleep` jobs at the
# times and with the run times listed in workload.tsv (made by gen-workload.py);
# dave's priority factor is 2000, twice the default.
#
# Writes into this directory (small, trimmed files):
#   history.json         condor_history -json of all jobs (selected attributes)
#   queue-end.json       condor_q -json of jobs still queued at the end (if any)
#   userprio.txt         condor_userprio -allusers -l every minute, each block headed
#                        by "## time=<epoch> t=<seconds since start>"
#   userprio-final.txt   condor_userprio -allusers -l at the end
#   userprio-final-table.txt  condor_userprio -allusers (the table) at the end
#   Accountantnew.log    the accountant's state log at the end
#   config.txt           condor_config_val -dump, the knobs that matter here
#   slots.ads            condor_status -l of the slots before any job ran
#   negotiator.log       the NegotiatorLog's cycle / submitter / match lines
#   schedd.log           the SchedLog's claim, shadow and reuse lines
#   startd.log           the StartLog's state changes
#   run.txt              start time, submission times, end time
#
# Needs a personal pool driven by a `pool` command with start/stop/wipe/run
# sub-commands that reads extra configuration from $OVERRIDE (in the pool's file
# system) and runs a real startd when ANCHOR_STARTD=1 -- the project used a Debian
# trixie chroot with the `minicondor` package (HTCondor 23.9.6) and a control script
# around it.  Runs as root; WIPES the pool's state (job queue, accountant).  Usage:
#   POOL=/path/to/pool.sh ROOT=/path/to/chroot ./capture.sh
# DURATION (seconds, default 2400) is the length of the run after the first submission;
# WORKLOAD (default workload.tsv) the submissions; OUT (default here) the output directory;
# EXTRA_CONFIG, configuration lines added to the pool's (e.g. CLAIM_WORKLIFE = 300).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
POOL=${POOL:?set POOL to the pool control script}
ROOT=${ROOT:?set ROOT to the pool file system root}
OVERRIDE=${OVERRIDE:-/etc/condor/anchor-override.config}
LOGDIR=${LOGDIR:-/var/lib/condor-anchor/log}     # the pool's LOG directory
SPOOLDIR=${SPOOLDIR:-/var/lib/condor-anchor/spool} # the pool's SPOOL directory
DURATION=${DURATION:-2400}
WORKLOAD=${WORKLOAD:-$here/workload.tsv}
OUT=${OUT:-$here}   # where the recording goes
USERS="alice bob carol dave"
DOMAIN=anchor.local

run() { "$POOL" run "$@"; }
say() { echo "[capture $(date -u +%T)] $*"; }

mkdir -p "$OUT"
say "wiping the pool"
"$POOL" wipe >/dev/null 2>&1 || true

cat > "$ROOT$OVERRIDE" <<'EOF'
## written by fidelity/capture.sh
## one startd, 8 static one-CPU slots
NUM_CPUS = 8
MEMORY = 8192
DISK = 8000000
SLOT_TYPE_1 = cpus=1, memory=1024, disk=1/8
SLOT_TYPE_1_PARTITIONABLE = False
NUM_SLOTS_TYPE_1 = 8
## fair share decays quickly
PRIORITY_HALFLIFE = 300
## cycles only on the 20 s timer (no reschedule on submit), so runs repeat
SUBMIT_SEND_RESCHEDULE = False
NEGOTIATOR_MIN_INTERVAL = 5
## let the sleep jobs start inside a chroot (no private mount namespaces)
MOUNT_UNDER_SCRATCH =
MOUNT_PRIVATE_DEV_SHM = False
USE_PID_NAMESPACES = False
SCHEDD_DEBUG = D_SUB_SECOND
STARTD_DEBUG = D_SUB_SECOND
EOF
[ -z "${EXTRA_CONFIG:-}" ] || printf '## EXTRA_CONFIG\n%s\n' "$EXTRA_CONFIG" >> "$ROOT$OVERRIDE"

for u in $USERS; do
	run id "$u" >/dev/null 2>&1 || run useradd -m -s /bin/sh "$u"
done

# submit files, one per batch of workload.tsv
declare -a B_NAME B_USER B_OFF
while IFS=$'\t' read -r batch user off durs; do
	case "$batch" in '#'*|'') continue;; esac
	B_NAME+=("$batch"); B_USER+=("$user"); B_OFF+=("$off")
	f=$ROOT/home/$user/$batch.sub
	{ echo "universe = vanilla"
	  echo "executable = /bin/sleep"
	  echo "transfer_executable = false"
	  echo "should_transfer_files = NO"
	  echo "arguments = \$(dur)"
	  echo "request_cpus = 1"
	  echo "request_memory = 128"
	  echo "log = /home/$user/$batch.log"
	  echo "+FidelityBatch = \"$batch\""
	  echo "queue dur from ("
	  tr ',' '\n' <<< "$durs"
	  echo ")"
	} > "$f"
	chmod 644 "$f"
	rm -f "$ROOT/home/$user/$batch.log"
done < "$WORKLOAD"

say "starting the pool (startd, NEGOTIATOR_INTERVAL = 20)"
ANCHOR_STARTD=1 ANCHOR_NEGOTIATOR_INTERVAL=20 "$POOL" start >/dev/null
for _ in $(seq 1 90); do
	n=$(run condor_status -af Name 2>/dev/null | wc -l || true)
	[ "$n" -ge 8 ] && break
	sleep 2
done
[ "$n" -ge 8 ] || { echo "capture.sh: the startd's 8 slots never showed up" >&2; exit 1; }
run condor_status -l > "$OUT/slots.ads"
run condor_userprio -setfactor "dave@$DOMAIN" 2000 >/dev/null

t0=$(date +%s)
out_prio=$OUT/userprio.txt
: > "$out_prio"
{ echo "start=$t0"; } > "$OUT/run.txt"
declare -A done_batch
next_snap=$t0
say "run starts (t0=$t0), $DURATION s"
while :; do
	now=$(date +%s); t=$((now - t0))
	for i in "${!B_NAME[@]}"; do
		[ -n "${done_batch[$i]:-}" ] && continue
		[ "$t" -ge "${B_OFF[$i]}" ] || continue
		u=${B_USER[$i]}
		run runuser -u "$u" -- sh -c "cd /home/$u && condor_submit ${B_NAME[$i]}.sub" >/dev/null
		echo "submit ${B_NAME[$i]} $u $(date +%s)" >> "$OUT/run.txt"
		say "submitted ${B_NAME[$i]} ($u) at t=$t"
		done_batch[$i]=1
	done
	if [ "$now" -ge "$next_snap" ]; then
		echo "## time=$now t=$t" >> "$out_prio"
		run condor_userprio -allusers -l >> "$out_prio" 2>&1 || true
		next_snap=$((next_snap + 60))
		q=$(run condor_q -allusers -af JobStatus 2>/dev/null | sort | uniq -c | tr '\n' ' ' || true)
		say "t=$t queue (count status): $q"
	fi
	[ "$t" -ge "$DURATION" ] && break
	sleep 1
done

tend=$(date +%s)
echo "end=$tend" >> "$OUT/run.txt"
say "recording the end state"
run condor_userprio -allusers -l > "$OUT/userprio-final.txt" 2>&1 || true
run condor_userprio -allusers > "$OUT/userprio-final-table.txt" 2>&1 || true
cp "$ROOT$SPOOLDIR/Accountantnew.log" "$OUT/Accountantnew.log"
ATTRS=ClusterId,ProcId,Owner,User,AccountingGroup,FidelityBatch,Args,Arguments,QDate,JobStartDate,JobCurrentStartDate,JobCurrentStartExecutingDate,CompletionDate,EnteredCurrentStatus,JobStatus,ExitCode,RemoteWallClockTime,CumulativeSlotTime,CommittedTime,NumJobStarts,NumShadowStarts,NumJobMatches,LastMatchTime,RemoteHost,LastRemoteHost,RequestCpus,RequestMemory,RequestDisk,JobPrio,JobUniverse,Cmd,MachineAttrSlotWeight0
run condor_q -allusers -json -attributes "$ATTRS" > "$OUT/queue-end.json" 2>/dev/null || true
[ -s "$OUT/queue-end.json" ] || rm -f "$OUT/queue-end.json"
run condor_history -json -attributes "$ATTRS" > "$OUT/history.json"
run condor_config_val -dump > "$OUT/config.full.tmp"
grep -E '^(NEGOTIATOR_|PRIORITY_HALFLIFE|DEFAULT_PRIO_FACTOR|NICE_USER|REMOTE_PRIO|ACCOUNTANT_|CLAIM_WORKLIFE|PREEMPT|RANK|START |SUSPEND|CONTINUE|KILL|WANT_|MAXJOBRETIREMENTTIME|MAX_CLAIM|SLOT_WEIGHT|SLOT_TYPE|NUM_SLOTS|NUM_CPUS|MEMORY|DISK |UPDATE_INTERVAL|SCHEDD_INTERVAL|SCHEDD_MIN_INTERVAL|SUBMIT_SEND_RESCHEDULE|UID_DOMAIN|GROUP_|CONSUMPTION|ALIVE_INTERVAL|STARTER_UPDATE|SHADOW_|JOB_START|USE_|MAX_JOBS_RUNNING|DAEMON_LIST|CONDOR_VERSION)' \
	"$OUT/config.full.tmp" > "$OUT/config.txt" || true
rm -f "$OUT/config.full.tmp"
L=$ROOT$LOGDIR
grep -E 'Started Negotiation Cycle|Finished Negotiation Cycle|Negotiating with|Matched |Submitter |matched|Got NO_MORE|Rejected|prio|Prio' "$L/NegotiatorLog" \
	| sed -E 's/ ?<[0-9.]+:[0-9]+\?[^>]*>//g' > "$OUT/negotiator.log" || true
grep -E 'Starting add_shadow|[Ss]hadow .*(pid|exited)|Match record|claim|Claim|[Rr]euse|[Rr]elinquish|Sent ad|[Nn]o more jobs' "$L/SchedLog" \
	| grep -v -E 'Authentication|DaemonCore' > "$OUT/schedd.log" || true
grep -E 'Changing state|Changing activity|match|Got activate_claim|Got request|[Cc]laim' "$L/StartLog" > "$OUT/startd.log" || true
say "stopping the pool"
"$POOL" stop >/dev/null 2>&1 || true
rm -f "$ROOT$OVERRIDE"
ls -la "$OUT"
say "done"
