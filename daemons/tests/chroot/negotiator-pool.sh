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
#   * KILLS SIGKILLs later the accountant is intact and jobs still run;
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
RUN=/tmp/negotiator-pool-$$        # path inside the chroot
HOSTRUN=$CHROOT$RUN
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
USERS="alice bob carol"

die() { echo "negotiator-pool.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root (chroot)"
[ -x "$CHROOT/usr/sbin/condor_master" ] || die "no condor_master in $CHROOT"
mountpoint -q "$CHROOT/proc" || mount -t proc proc "$CHROOT/proc"
mountpoint -q "$CHROOT/dev" || mount --bind /dev "$CHROOT/dev"
h=$(hostname)
grep -Eq "^[0-9.]+[[:space:]].*\b$h\b" "$CHROOT/etc/hosts" || echo "127.0.0.1	$h" >> "$CHROOT/etc/hosts"
for u in $USERS; do chroot "$CHROOT" id "$u" > /dev/null 2>&1 || chroot "$CHROOT" useradd -m "$u"; done
chmod 1777 "$CHROOT/tmp"

(cd "$ROOT" && cargo build -q --locked -p daemons --bin classad-negotiator --bin classad-collector)
mkdir -p "$HOSTRUN"/{log,spool,lock,run,execute,tokens.d,passwords.d}
cp "$ROOT/target/debug/classad-negotiator" "$ROOT/target/debug/classad-collector" "$HOSTRUN/"
chmod 755 "$HOSTRUN"
chroot "$CHROOT" chown -R condor:condor "$RUN/log" "$RUN/spool" "$RUN/lock" "$RUN/run" "$RUN/execute"
chmod 700 "$HOSTRUN"/{tokens.d,passwords.d}

case $MODE in
claimtobe) SECURITY="
SEC_DEFAULT_AUTHENTICATION = REQUIRED
SEC_DEFAULT_AUTHENTICATION_METHODS = FS, CLAIMTOBE
SEC_CLIENT_AUTHENTICATION_METHODS = FS, CLAIMTOBE
SEC_DEFAULT_ENCRYPTION = OPTIONAL
SEC_DEFAULT_INTEGRITY = OPTIONAL
SEC_DEFAULT_CRYPTO_METHODS = AES" ;;
plaintext) SECURITY="
SEC_DEFAULT_AUTHENTICATION_METHODS = FS, CLAIMTOBE
SEC_CLIENT_AUTHENTICATION_METHODS = FS, CLAIMTOBE
SEC_DEFAULT_CRYPTO_METHODS = AES
NEGOTIATOR.SEC_DEFAULT_AUTHENTICATION = NEVER
NEGOTIATOR.SEC_DEFAULT_ENCRYPTION = NEVER
NEGOTIATOR.SEC_DEFAULT_INTEGRITY = NEVER
NEGOTIATOR.SEC_CLIENT_AUTHENTICATION = NEVER
NEGOTIATOR.SEC_CLIENT_ENCRYPTION = NEVER
NEGOTIATOR.SEC_CLIENT_INTEGRITY = NEVER
NEGOTIATOR.SEC_READ_AUTHENTICATION = NEVER" ;;
idtokens) SECURITY="
SEC_DEFAULT_AUTHENTICATION = REQUIRED
SEC_DEFAULT_AUTHENTICATION_METHODS = FS, IDTOKENS, CLAIMTOBE
SEC_CLIENT_AUTHENTICATION_METHODS = FS, IDTOKENS, CLAIMTOBE
NEGOTIATOR.SEC_CLIENT_AUTHENTICATION_METHODS = IDTOKENS
SEC_DEFAULT_ENCRYPTION = REQUIRED
SEC_DEFAULT_CRYPTO_METHODS = AES" ;;
*) die "MODE must be claimtobe, plaintext or idtokens" ;;
esac

case $COLLECTOR in
real) COLLECTOR_LINE="COLLECTOR = \$(SBIN)/condor_collector" ;;
ours) COLLECTOR_LINE="COLLECTOR = $RUN/classad-collector" ;;
*) die "COLLECTOR must be real or ours" ;;
esac
case $NEGOTIATOR in
real) NEGOTIATOR_LINE="NEGOTIATOR = \$(SBIN)/condor_negotiator" ;;
ours) NEGOTIATOR_LINE="NEGOTIATOR = $RUN/classad-negotiator" ;;
*) die "NEGOTIATOR must be ours or real" ;;
esac

cat > "$HOSTRUN/condor_config" <<CONF
## Written by daemons/tests/chroot/negotiator-pool.sh (MODE=$MODE COLLECTOR=$COLLECTOR NEGOTIATOR=$NEGOTIATOR)
RELEASE_DIR = /usr
LOCAL_DIR = $RUN
LOG = \$(LOCAL_DIR)/log
SPOOL = \$(LOCAL_DIR)/spool
LOCK = \$(LOCAL_DIR)/lock
RUN = \$(LOCAL_DIR)/run
EXECUTE = \$(LOCAL_DIR)/execute
BIN = /usr/bin
SBIN = /usr/sbin
LIB = /usr/lib/condor
LIBEXEC = /usr/libexec/condor
MASTER = \$(SBIN)/condor_master
SCHEDD = \$(SBIN)/condor_schedd
STARTD = \$(SBIN)/condor_startd
STARTER = \$(SBIN)/condor_starter
SHADOW = \$(SBIN)/condor_shadow
PROCD = \$(SBIN)/condor_procd
$COLLECTOR_LINE
$NEGOTIATOR_LINE
NEGOTIATOR_DEBUG = D_FULLDEBUG

CONDOR_HOST = 127.0.0.1
COLLECTOR_HOST = 127.0.0.1:$PORT
NETWORK_INTERFACE = 127.0.0.1
BIND_ALL_INTERFACES = False
USE_SHARED_PORT = False
ENABLE_IPV6 = False
UID_DOMAIN = anchor.local
FILESYSTEM_DOMAIN = anchor.local
TRUST_DOMAIN = anchor.local
CONDOR_ADMIN =
MAIL = /bin/true

DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD
$SECURITY
SEC_TOKEN_POOL_SIGNING_KEY_FILE = $RUN/passwords.d/POOL
SEC_PASSWORD_DIRECTORY = $RUN/passwords.d
SEC_TOKEN_SYSTEM_DIRECTORY = $RUN/tokens.d
SEC_TOKEN_DIRECTORY = $RUN/tokens.d
ALLOW_READ = *
ALLOW_WRITE = *
ALLOW_DAEMON = *
ALLOW_NEGOTIATOR = *
ALLOW_ADMINISTRATOR = *
ALLOW_CONFIG = *
ALLOW_ADVERTISE_STARTD = *
ALLOW_ADVERTISE_SCHEDD = *
ALLOW_ADVERTISE_MASTER = *
QUEUE_SUPER_USERS = root, condor

NEGOTIATOR_INTERVAL = 10
NEGOTIATOR_MIN_INTERVAL = 1
NEGOTIATOR_CYCLE_DELAY = 3
NEGOTIATOR_UPDATE_INTERVAL = 5
SCHEDD_INTERVAL = 5
UPDATE_INTERVAL = 5
MASTER_UPDATE_INTERVAL = 5
MASTER_BACKOFF_CONSTANT = 1
MASTER_BACKOFF_FACTOR = 1.0
MASTER_RECOVER_FACTOR = 5
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
RUNBENCHMARKS = 0
MOUNT_UNDER_SCRATCH =
CONF

inchroot() {
	chroot "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC \
		CONDOR_CONFIG="$RUN/condor_config" "$@"
}
asuser() { # USER CMD...
	local u=$1
	shift
	chroot --userspec="$u:$u" "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="/home/$u" \
		LANG=C.UTF-8 TZ=UTC CONDOR_CONFIG="$RUN/condor_config" "$@"
}

if [ "$MODE" = idtokens ]; then
	head -c 64 /dev/urandom | base64 -w0 > "$HOSTRUN/passwords.d/POOL.raw"
	inchroot sh -c "condor_store_cred add -c -f $RUN/passwords.d/POOL < $RUN/passwords.d/POOL.raw" > /dev/null
	rm -f "$HOSTRUN/passwords.d/POOL.raw"
	inchroot condor_token_create -identity condor@anchor.local > "$HOSTRUN/tokens.d/condor"
	chmod 600 "$HOSTRUN/passwords.d/POOL" "$HOSTRUN/tokens.d/condor"
fi

cleanup() {
	if [ -n "${MASTER_PID:-}" ] && kill -0 "$MASTER_PID" 2> /dev/null; then
		kill -TERM "$MASTER_PID" 2> /dev/null || true
		for _ in $(seq 1 40); do kill -0 "$MASTER_PID" 2> /dev/null || break; sleep 0.5; done
		kill -QUIT "$MASTER_PID" 2> /dev/null || true
		for _ in $(seq 1 20); do kill -0 "$MASTER_PID" 2> /dev/null || break; sleep 0.5; done
	fi
	[ "$KEEP" = 1 ] || rm -rf "$HOSTRUN"
}
trap cleanup EXIT

# Not through inchroot: a function in the background is a subshell, and
# $! would be the subshell's pid, not the master's.
chroot "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC \
	CONDOR_CONFIG="$RUN/condor_config" /usr/sbin/condor_master -f > "$HOSTRUN/master.out" 2>&1 &
MASTER_PID=$!
echo "MODE=$MODE COLLECTOR=$COLLECTOR NEGOTIATOR=$NEGOTIATOR: condor_master pid $MASTER_PID, run directory $HOSTRUN"

fail=0
ok() { echo "ok:   $*"; }
bad() { echo "FAIL: $*"; fail=1; }

for _ in $(seq 1 60); do
	have=$(inchroot condor_status -any -af MyType 2> /dev/null | sort -u | tr '\n' ' ' || true)
	case "$have" in *Negotiator*Scheduler*) [ -n "$(inchroot condor_status -af Name 2> /dev/null)" ] && break ;; esac
	sleep 1
done
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
