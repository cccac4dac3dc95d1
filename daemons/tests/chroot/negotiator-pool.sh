#!/bin/bash
# negotiator-pool.sh -- a real HTCondor 23.9.6 pool whose negotiator is ours.
#
# In the anchor chroot, condor_master starts the real collector, schedd and
# startd (one partitionable slot of 4 cpus) and NEGOTIATOR =
# classad-negotiator (ours); with COLLECTOR=ours, our classad-collector
# replaces the real collector too. Three users (alice, bob, carol) each
# submit short jobs; the script checks that
#   * every job runs to completion (matched by our negotiator, claimed by
#     the real schedd from the real startd);
#   * condor_status -negotiator -l shows our ad with the
#     LastNegotiationCycle* figures;
#   * the MatchLog names the matches (as condor_negotiator's does);
#   * condor_userprio -all lists the three users with their usage (asked
#     of our negotiator), and -setfactor / -setceiling change them;
#   * our HTTP API (NEGOTIATOR_HTTP_ADDRESS, the collector's port + 1)
#     answers /v1/cycle and /metrics with the users' priorities;
#   * KILLS SIGKILLs later the accountant is intact, jobs still run, and
#     the startd refused no claim (none was matched twice);
#   * with TAKEOVER, condor_negotiator starts from our Accountantnew.log.
#
# Usage (as root on the host, from the repository):
#   daemons/tests/chroot/negotiator-pool.sh
# Environment:
#   CHROOT=/work/chroot   the chroot with HTCondor 23.9.6 (setup-chroot.sh)
#   PORT=19630            the collector's port
#   MODE=claimtobe        claimtobe (FS/CLAIMTOBE, AES) | plaintext (our negotiator
#                         authenticates and encrypts nothing; the rest of the pool
#                         as claimtobe) | idtokens (our negotiator authenticates with
#                         a token, AES required)
#   COLLECTOR=real        real | ours
#   NEGOTIATOR=ours       ours | real (condor_negotiator: the same run for comparison)
#   JOBS=4                jobs per user
#   KILLS=3               times the negotiator is killed with SIGKILL after the
#                         jobs ran (the master restarts it; the accountant must
#                         survive, and one more job per user must run)
#   TAKEOVER=1            then condor_negotiator takes over: it must start from
#                         the priorities ours kept (alice's factor of 5)
#   KEEP=0                1 = leave the run directory for inspection
set -euo pipefail

CHROOT=${CHROOT:-/work/chroot}
PORT=${PORT:-19630}
MODE=${MODE:-claimtobe}
COLLECTOR=${COLLECTOR:-real}
NEGOTIATOR=${NEGOTIATOR:-ours}
JOBS=${JOBS:-4}
KILLS=${KILLS:-3}
TAKEOVER=${TAKEOVER:-1}
KEEP=${KEEP:-0}
USERS="alice bob carol"
# shellcheck source=pool-lib.sh
. "$(dirname "$0")/pool-lib.sh"
pool_prepare
pool_config <<CONF
NEGOTIATOR_INTERVAL = 10
NEGOTIATOR_MIN_INTERVAL = 1
NEGOTIATOR_CYCLE_DELAY = 3
NEGOTIATOR_UPDATE_INTERVAL = 5
SCHEDD_INTERVAL = 5
UPDATE_INTERVAL = 5
PRIORITY_HALFLIFE = 600
NUM_CPUS = 4
MEMORY = 4096
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_1 = 100%
SLOT_TYPE_1_PARTITIONABLE = True
START = True
SUSPEND = False
PREEMPT = False
KILL = False
NEGOTIATOR_HTTP_ADDRESS = 127.0.0.1:$((PORT + 1))
CONF
pool_start

fail=0
ok() { echo "ok:   $*"; }
bad() { echo "FAIL: $*"; fail=1; }

have=$(pool_wait_up)
case "$have" in
*Negotiator*) ok "the pool is up, our negotiator advertises itself ($have)" ;;
*) bad "ads seen: [$have]"; tail -30 "$HOSTRUN/log/NegotiatorLog" 2> /dev/null || true ;;
esac

# Each user's jobs: short sleeps, one cpu each.
start=$(date +%s)
for u in $USERS; do
	mkdir -p "$HOSTRUN/$u"
	chroot "$CHROOT" chown "$u:$u" "$RUN/$u"
	cat > "$HOSTRUN/$u/job.sub" <<JOB
executable = /bin/sh
arguments = "-c 'sleep 2; echo done by $u'"
output = $RUN/$u/out.\$(Process)
error = $RUN/$u/err.\$(Process)
log = $RUN/$u/job.log
request_cpus = 1
request_memory = 256
should_transfer_files = NO
queue $JOBS
JOB
	chmod 644 "$HOSTRUN/$u/job.sub"
	if asuser "$u" sh -c "cd $RUN/$u && condor_submit job.sub" > "$HOSTRUN/$u/submit.txt" 2>&1; then
		ok "$u submits $JOBS jobs"
	else
		bad "$u: condor_submit: $(cat "$HOSTRUN/$u/submit.txt")"
	fi
done

# All of them run to completion.
total=$((JOBS * 3))
for _ in $(seq 1 240); do
	done_n=0
	for u in $USERS; do
		n=$(grep -c "^005 " "$HOSTRUN/$u/job.log" 2> /dev/null || true)
		done_n=$((done_n + ${n:-0}))
	done
	[ "$done_n" -ge "$total" ] && break
	sleep 1
done
if [ "$done_n" -ge "$total" ]; then
	ok "all $total jobs ran to completion in $(($(date +%s) - start)) s"
else
	bad "$done_n of $total jobs completed; the queue:"
	inchroot condor_q -all -nobatch 2>&1 | tail -20
	echo "--- NegotiatorLog (tail)"; tail -40 "$HOSTRUN/log/NegotiatorLog" 2> /dev/null || true
	echo "--- SchedLog (tail)"; tail -40 "$HOSTRUN/log/SchedLog" 2> /dev/null || true
fi
for u in $USERS; do
	n=$(cat "$HOSTRUN/$u"/out.* 2> /dev/null | grep -c "done by $u" || true)
	[ "${n:-0}" = "$JOBS" ] && ok "$u's $JOBS jobs wrote their output" || bad "$u: ${n:-0} of $JOBS outputs"
done

# What the tools show.
neg=$(inchroot condor_status -negotiator -l 2> /dev/null || true)
for a in LastNegotiationCycleMatches0 LastNegotiationCycleTime0 LastNegotiationCycleDuration0 CondorVersion; do
	grep -q "^$a = " <<< "$neg" && ok "condor_status -negotiator -l shows $a ($(grep "^$a = " <<< "$neg" | head -1 | cut -d' ' -f3-))" ||
		bad "condor_status -negotiator -l: no $a"
done
grep -q "Matched " "$HOSTRUN/log/MatchLog" && ok "MatchLog names the matches ($(grep -c 'Matched ' "$HOSTRUN/log/MatchLog"))" ||
	bad "MatchLog has no Matched lines"
# Our HTTP API and metrics (NEGOTIATOR_HTTP_ADDRESS; condor_negotiator ignores the knob).
if [ "$NEGOTIATOR" = ours ]; then
	api=http://127.0.0.1:$((PORT + 1))
	cycle=$(curl -sf "$api/v1/cycle" || true)
	if python3 -c 'import json,sys; v=json.load(sys.stdin); sys.exit(not (v["cycles"] >= 1 and v["last"] is not None))' <<< "$cycle" 2> /dev/null; then
		ok "GET /v1/cycle: $(python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["cycles"], "cycles; the last:", v["last"]["slots"], "slots,", v["last"]["matches_sent"], "matches sent")' <<< "$cycle")"
	else
		bad "GET /v1/cycle: [$cycle]"
	fi
	metrics=$(curl -sf "$api/metrics" || true)
	for u in $USERS; do
		m="htcondor_negotiator_submitter_priority{submitter=\"$u@anchor.local\"} "
		grep -q "^$m" <<< "$metrics" && ok "GET /metrics: $(grep "^$m" <<< "$metrics")" || bad "GET /metrics: no priority of $u"
	done
fi
sleep 6
prio=$(inchroot condor_userprio -all -allusers 2>&1 || true)
echo "$prio" | sed 's/^/    /'
for u in $USERS; do
	grep -q "^$u@anchor.local" <<< "$prio" && ok "condor_userprio lists $u" || bad "condor_userprio does not list $u"
done

# condor_userprio's edits, as an administrator (root, ALLOW_ADMINISTRATOR = *).
out=$(inchroot condor_userprio -setfactor alice@anchor.local 5 2>&1) || bad "condor_userprio -setfactor failed: $out"
out=$(inchroot condor_userprio -setceiling bob@anchor.local 7 2>&1) || bad "condor_userprio -setceiling failed: $out"
prio=$(inchroot condor_userprio -all -allusers 2>&1 || true)
grep -Eq "^alice@anchor.local +[0-9.]+ +[0-9.]+ +5\.00 " <<< "$prio" && ok "condor_userprio -setfactor: alice's factor is 5.00" ||
	bad "condor_userprio -setfactor: alice's factor is not 5.00:
$prio"
grep -Eq "^bob@anchor.local .* 7(\.00)? *$" <<< "$prio" && ok "condor_userprio -setceiling: bob's ceiling is 7" ||
	bad "condor_userprio -setceiling: bob's ceiling is not 7"

# SIGKILL, KILLS times, at any point of a cycle: the master restarts the
# negotiator, which starts again from Accountantnew.log.
negpid() { pgrep -f "(^|/)classad-negotiator( |$)" | head -1 || true; }
records_before=$(grep -o "accountant: [0-9]* records" "$HOSTRUN/log/NegotiatorLog" | tail -1 || true)
if [ "$NEGOTIATOR" = ours ] && [ "$KILLS" -gt 0 ]; then
	for k in $(seq 1 "$KILLS"); do
		old=$(negpid)
		[ -n "$old" ] || { bad "kill $k: no negotiator process"; break; }
		sleep "0.$((RANDOM % 10))"
		kill -9 "$old"
		new=""
		for _ in $(seq 1 60); do
			new=$(negpid)
			[ -n "$new" ] && [ "$new" != "$old" ] && break
			sleep 0.5
		done
		[ -n "$new" ] && [ "$new" != "$old" ] || { bad "kill $k: the master did not restart the negotiator"; break; }
		sleep 4
	done
	loads=$(grep -o "accountant: [0-9]* records" "$HOSTRUN/log/NegotiatorLog" | tail -"$KILLS" | sort -u | tr '\n' ' ')
	warnings=$(grep -c "accountant log:" "$HOSTRUN/log/NegotiatorLog" || true)
	case "$loads" in
	*"accountant: 0 records"*) bad "after a SIGKILL the accountant started empty ($loads)" ;;
	"") bad "no accountant load after the SIGKILLs" ;;
	*) ok "$KILLS SIGKILLs: each restart loaded the accountant ($loads; before: $records_before; ${warnings:-0} log warnings)" ;;
	esac
	for u in $USERS; do
		sed -i "s/^queue .*/queue 1/; s/out\.\\\$(Process)/after.\\\$(Process)/" "$HOSTRUN/$u/job.sub"
		asuser "$u" sh -c "cd $RUN/$u && condor_submit job.sub" > /dev/null 2>&1 || bad "$u: condor_submit after the kills"
	done
	for _ in $(seq 1 120); do
		n=$(cat "$HOSTRUN"/*/after.* 2> /dev/null | grep -c "done by" || true)
		[ "${n:-0}" -ge 3 ] && break
		sleep 1
	done
	[ "${n:-0}" -ge 3 ] && ok "after the SIGKILLs one more job per user ran" || bad "after the SIGKILLs ${n:-0} of 3 jobs ran"
	prio=$(inchroot condor_userprio -all -allusers 2>&1 || true)
	for u in $USERS; do
		grep -q "^$u@anchor.local" <<< "$prio" && ok "after the SIGKILLs condor_userprio still lists $u" ||
			bad "after the SIGKILLs condor_userprio does not list $u"
	done
	if [ "$NEGOTIATOR" = ours ]; then
		grep -Eq "^alice@anchor.local +[0-9.]+ +[0-9.]+ +5\.00 " <<< "$prio" && ok "after the SIGKILLs alice's factor is still 5.00" ||
			bad "after the SIGKILLs alice's factor is not 5.00"
	fi
	# A claim sent twice (before and after a kill) would reach the startd
	# twice: the second request finds no such claim, or a claimed slot,
	# and the claiming fails.
	refusals="can't find resource with ClaimId|Refusing claim of pslot that's already claimed|Refusing request from schedd|claiming protocol failed"
	refused=$(grep -cE "$refusals" "$HOSTRUN/log/StartLog" || true)
	[ "${refused:-0}" = 0 ] && ok "the startd refused no claim request (no claim was matched twice across the SIGKILLs)" ||
		bad "the startd refused $refused claim requests: $(grep -E "$refusals" "$HOSTRUN/log/StartLog" | tail -3)"
fi

# condor_negotiator takes over from ours, from the same Accountantnew.log.
if [ "$NEGOTIATOR" = ours ] && [ "$TAKEOVER" = 1 ]; then
	sed -i "s|^NEGOTIATOR = .*|NEGOTIATOR = /usr/sbin/condor_negotiator|" "$HOSTRUN/condor_config"
	inchroot condor_reconfig > /dev/null 2>&1 || true
	sleep 1
	inchroot condor_restart -negotiator > /dev/null 2>&1 || true
	for _ in $(seq 1 200); do
		inchroot condor_status -negotiator -af CondorVersion 2> /dev/null | grep -q "PackageID: 23" && break
		sleep 1
	done
	prio=$(inchroot condor_userprio -all -allusers 2>&1 || true)
	if grep -Eq "^alice@anchor.local +[0-9.]+ +[0-9.]+ +5\.00 " <<< "$prio"; then
		ok "condor_negotiator took over from our Accountantnew.log (alice's factor 5.00)"
	else
		bad "condor_negotiator after ours: alice's factor is not 5.00:
$prio
$(tail -5 "$HOSTRUN/log/NegotiatorLog")"
	fi
fi

echo
[ $fail = 0 ] && echo "negotiator-pool.sh MODE=$MODE COLLECTOR=$COLLECTOR NEGOTIATOR=$NEGOTIATOR: all checks passed" ||
	echo "negotiator-pool.sh MODE=$MODE COLLECTOR=$COLLECTOR NEGOTIATOR=$NEGOTIATOR: some checks FAILED (logs: KEEP=1)"
exit $fail
