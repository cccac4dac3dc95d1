#!/bin/bash
# collector-pool.sh -- a real HTCondor 23.9.6 pool whose collector is ours.
#
# In the anchor chroot, condor_master starts COLLECTOR = classad-collector
# (ours, on port $PORT) and, as a second collector of the same pool, the
# real condor_collector (REALCOLL, on $PORT+1); the real schedd, startd and
# negotiator report to both (COLLECTOR_HOST lists both) and the negotiator
# negotiates with ours. The script then
#   * runs condor_status (default, -l, -af, -constraint, -limit, -schedd,
#     -submitters, -negotiator, -master, -collector, -any, -total),
#     condor_advertise (single, -multiple, with ack, invalidations) and
#     condor_ping (READ, ADVERTISE_STARTD, NEGOTIATOR) against both
#     collectors and compares what they give (timestamps, addresses,
#     update counters and the collectors' own ads aside);
#   * submits a job as a normal user and checks it runs to completion.
#
# Usage (as root on the host, from the repository):
#   daemons/tests/chroot/collector-pool.sh
# Environment:
#   CHROOT=/work/chroot   the chroot with HTCondor 23.9.6 (setup-chroot.sh)
#   PORT=19620            our collector's port (the real one takes PORT+1)
#   MODE=plaintext        plaintext | claimtobe (AES + CLAIMTOBE) | idtokens
#   KEEP=0                1 = leave the run directory for inspection
#   EXTRA=                more configuration for the whole pool, e.g.
#                         EXTRA='COLLECTOR_REQUIREMENTS = true' (both
#                         collectors then check every ad's addresses)
set -euo pipefail

CHROOT=${CHROOT:-/work/chroot}
PORT=${PORT:-19620}
REAL=$((PORT + 1))
MODE=${MODE:-plaintext}
KEEP=${KEEP:-0}
EXTRA=${EXTRA:-}
RUN=/tmp/collector-pool-$$        # path inside the chroot
HOSTRUN=$CHROOT$RUN
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)

die() { echo "collector-pool.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root (chroot)"
[ -x "$CHROOT/usr/sbin/condor_master" ] || die "no condor_master in $CHROOT"
mountpoint -q "$CHROOT/proc" || mount -t proc proc "$CHROOT/proc"
mountpoint -q "$CHROOT/dev" || mount --bind /dev "$CHROOT/dev"
h=$(hostname)
grep -Eq "^[0-9.]+[[:space:]].*\b$h\b" "$CHROOT/etc/hosts" || echo "127.0.0.1	$h" >> "$CHROOT/etc/hosts"
chroot "$CHROOT" id alice > /dev/null 2>&1 || chroot "$CHROOT" useradd -m alice
chmod 1777 "$CHROOT/tmp"

(cd "$ROOT" && cargo build -q --locked -p daemons --bin classad-collector)
mkdir -p "$HOSTRUN"/{log,spool,lock,run,execute,tokens.d,passwords.d}
cp "${CARGO_TARGET_DIR:-$ROOT/target}/debug/classad-collector" "$HOSTRUN/classad-collector"
chmod 755 "$HOSTRUN"
chown -R condor:condor "$HOSTRUN"/{log,spool,lock,run,execute} 2> /dev/null ||
	chroot "$CHROOT" chown -R condor:condor "$RUN/log" "$RUN/spool" "$RUN/lock" "$RUN/run" "$RUN/execute"
chmod 700 "$HOSTRUN"/{tokens.d,passwords.d}

case $MODE in
plaintext) SECURITY="
COLLECTOR.SEC_DEFAULT_AUTHENTICATION = NEVER
COLLECTOR.SEC_READ_AUTHENTICATION = NEVER
COLLECTOR.SEC_DEFAULT_ENCRYPTION = NEVER
COLLECTOR.SEC_DEFAULT_INTEGRITY = NEVER" ;;
claimtobe) SECURITY="
COLLECTOR.SEC_DEFAULT_AUTHENTICATION = REQUIRED
COLLECTOR.SEC_DEFAULT_AUTHENTICATION_METHODS = CLAIMTOBE
COLLECTOR.SEC_DEFAULT_ENCRYPTION = REQUIRED
COLLECTOR.SEC_DEFAULT_INTEGRITY = OPTIONAL
COLLECTOR.SEC_DEFAULT_CRYPTO_METHODS = AES" ;;
idtokens) SECURITY="
COLLECTOR.SEC_DEFAULT_AUTHENTICATION = REQUIRED
COLLECTOR.SEC_DEFAULT_AUTHENTICATION_METHODS = IDTOKENS
COLLECTOR.SEC_DEFAULT_ENCRYPTION = REQUIRED
COLLECTOR.SEC_DEFAULT_CRYPTO_METHODS = AES
SEC_CLIENT_AUTHENTICATION_METHODS = FS, IDTOKENS, CLAIMTOBE
SEC_DEFAULT_AUTHENTICATION_METHODS = FS, IDTOKENS, CLAIMTOBE" ;;
*) die "MODE must be plaintext, claimtobe or idtokens" ;;
esac

cat > "$HOSTRUN/condor_config" <<CONF
## Written by daemons/tests/chroot/collector-pool.sh (MODE=$MODE)
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
NEGOTIATOR = \$(SBIN)/condor_negotiator
STARTER = \$(SBIN)/condor_starter
SHADOW = \$(SBIN)/condor_shadow
PROCD = \$(SBIN)/condor_procd

CONDOR_HOST = 127.0.0.1
COLLECTOR_HOST = 127.0.0.1:$PORT, 127.0.0.1:$REAL
NETWORK_INTERFACE = 127.0.0.1
BIND_ALL_INTERFACES = False
USE_SHARED_PORT = False
ENABLE_IPV6 = False
UID_DOMAIN = anchor.local
FILESYSTEM_DOMAIN = anchor.local
TRUST_DOMAIN = anchor.local
CONDOR_ADMIN =
MAIL = /bin/true

DAEMON_LIST = MASTER, COLLECTOR, REALCOLL, NEGOTIATOR, SCHEDD, STARTD
COLLECTOR = $RUN/classad-collector
COLLECTOR_ARGS = -p $PORT
COLLECTOR_DEBUG = D_FULLDEBUG D_COMMAND
REALCOLL = \$(SBIN)/condor_collector
REALCOLL_ARGS = -p $REAL
REALCOLL_LOG = \$(LOG)/RealCollectorLog
DC_DAEMON_LIST = +REALCOLL
CLASSAD_LIFETIME = 900

SEC_DEFAULT_AUTHENTICATION = REQUIRED
SEC_DEFAULT_AUTHENTICATION_METHODS = FS, CLAIMTOBE
SEC_CLIENT_AUTHENTICATION_METHODS = FS, CLAIMTOBE
SEC_DEFAULT_ENCRYPTION = OPTIONAL
SEC_DEFAULT_INTEGRITY = OPTIONAL
# Tools and daemons authenticate where the server asks (our collector
# in plaintext mode never does).
SEC_CLIENT_AUTHENTICATION = PREFERRED
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
SEC_TOKEN_POOL_SIGNING_KEY_FILE = $RUN/passwords.d/POOL
SEC_PASSWORD_DIRECTORY = $RUN/passwords.d
SEC_TOKEN_SYSTEM_DIRECTORY = $RUN/tokens.d
SEC_TOKEN_DIRECTORY = $RUN/tokens.d
$SECURITY
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

NEGOTIATOR_INTERVAL = 5
NEGOTIATOR_MIN_INTERVAL = 1
SCHEDD_INTERVAL = 5
UPDATE_INTERVAL = 5
MASTER_UPDATE_INTERVAL = 5
NEGOTIATOR_UPDATE_INTERVAL = 5
NUM_CPUS = 2
START = True
SUSPEND = False
PREEMPT = False
KILL = False
RUNBENCHMARKS = 0
# The chroot has no mount namespaces for the starter to make.
MOUNT_UNDER_SCRATCH =
$EXTRA
CONF

inchroot() {
	chroot "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC \
		CONDOR_CONFIG="$RUN/condor_config" "$@"
}
asalice() {
	chroot --userspec=alice:alice "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/home/alice \
		LANG=C.UTF-8 TZ=UTC CONDOR_CONFIG="$RUN/condor_config" "$@"
}

if [ "$MODE" = idtokens ]; then
	# The pool's signing key and a token for the daemons and tools, made
	# with HTCondor's own tools.
	head -c 64 /dev/urandom | base64 -w0 > "$HOSTRUN/passwords.d/POOL.raw"
	inchroot condor_store_cred add -c -f "$RUN/passwords.d/POOL" -i "$RUN/passwords.d/POOL.raw" > /dev/null 2>&1 ||
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
	fi
	[ "$KEEP" = 1 ] || rm -rf "$HOSTRUN"
}
trap cleanup EXIT

chroot "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC \
	CONDOR_CONFIG="$RUN/condor_config" /usr/sbin/condor_master -f > "$HOSTRUN/master.out" 2>&1 &
MASTER_PID=$!
echo "MODE=$MODE: condor_master pid $MASTER_PID, run directory $HOSTRUN"

fail=0
ok() { echo "ok:   $*"; }
bad() { echo "FAIL: $*"; fail=1; }
OURS="-pool 127.0.0.1:$PORT"
THEIRS="-pool 127.0.0.1:$REAL"

# Both collectors hear from every daemon.
want="DaemonMaster Negotiator Scheduler StartD"
for i in $(seq 1 90); do
	have=$(inchroot condor_status $OURS -any -af MyType 2> /dev/null | sort -u | tr '\n' ' ' || true)
	theirs=$(inchroot condor_status $THEIRS -any -af MyType 2> /dev/null | sort -u | tr '\n' ' ' || true)
	n=0
	for t in $want; do
		case " $have" in *" $t "*) ;; *) n=1 ;; esac
		case " $theirs" in *" $t "*) ;; *) n=1 ;; esac
	done
	[ $n = 0 ] && [ -n "$(inchroot condor_status $OURS -af Name 2> /dev/null || true)" ] && break
	sleep 1
done
[ $n = 0 ] && ok "every daemon advertises to both collectors ($have)" || bad "ads seen: ours [$have], theirs [$theirs]"

# What may differ: times, addresses, update counters, the collectors'
# own ads and the attributes only one daemon core publishes about itself.
normalize() {
	sed -E -e '/^(LastHeardFrom|MyCurrentTime|DaemonStartTime|DaemonLastReconfigTime|UpdatesHistory|UpdatesTotal|UpdatesSequenced|UpdatesLost|MonitorSelfAge|MonitorSelfCPUUsage|MonitorSelfImageSize|MonitorSelfResidentSetSize|MonitorSelfTime|RecentDaemonCoreDutyCycle|DaemonCoreDutyCycle|LastBenchmark|MyAddress|AddressV1|CollectorHost|LastUpdate|TimeToLive|LastNegotiationCycle.*|UpdateSequenceNumber|AuthenticatedIdentity|AuthenticationMethod) = /d' \
		-e 's/<127\.0\.0\.1:[0-9]+[^>]*>/<ADDR>/g' -e 's/[0-9]+\+[0-9][0-9]:[0-9][0-9]:[0-9][0-9]/D+HH:MM:SS/g'
}
compare() { # LABEL ARGS...
	local label=$1; shift
	inchroot condor_status $OURS "$@" > "$HOSTRUN/ours.txt" 2>&1 || true
	inchroot condor_status $THEIRS "$@" > "$HOSTRUN/theirs.txt" 2>&1 || true
	if diff <(normalize < "$HOSTRUN/theirs.txt") <(normalize < "$HOSTRUN/ours.txt") > "$HOSTRUN/diff.txt"; then
		ok "condor_status $label: same as the real collector ($(wc -l < "$HOSTRUN/ours.txt") lines)"
	else
		bad "condor_status $label differs:"; head -20 "$HOSTRUN/diff.txt"
	fi
}
# The ads change every few seconds; compare the slowly changing views.
compare "(default)" -af Name State Activity Cpus Memory
compare "-total" -total
compare "-af Name State -constraint" -af Name State -constraint 'Cpus >= 1'
compare "-limit 1" -limit 1 -af Name
compare "-schedd" -schedd -af Name TotalIdleJobs
compare "-submitters" -submitters -af Name
compare "-negotiator" -negotiator -af Name
compare "-master" -master -af Name
compare "-any" -any -af MyType Name
compare "-l (startd)" -l -constraint 'SlotID == 1'
n=$(inchroot condor_status $OURS -collector -af MyType 2> /dev/null | grep -c Collector || true)
[ "$n" -ge 1 ] && ok "condor_status -collector lists our collector ad" || bad "condor_status -collector: no ad"

# condor_advertise: single, -multiple, with ack, invalidate by name and by constraint.
cat > "$HOSTRUN/one.ad" <<AD
MyType = "Machine"
Name = "fake1@adv.test"
Machine = "adv.test"
MyAddress = "<127.0.0.1:5999?noUDP>"
State = "Unclaimed"
Activity = "Idle"
Cpus = 1
AD
printf 'MyType = "Machine"\nName = "fake2@adv.test"\nMachine = "adv.test"\nMyAddress = "<127.0.0.1:5998?noUDP>"\nCpus = 2\n\nMyType = "Machine"\nName = "fake3@adv.test"\nMachine = "adv.test"\nMyAddress = "<127.0.0.1:5997?noUDP>"\nCpus = 3\n' > "$HOSTRUN/two.ad"
advertise() { # ARGS...: condor_advertise, its debug output kept on failure
	inchroot condor_advertise -debug "$@" > "$HOSTRUN/advertise.txt" 2>&1 ||
		{ bad "condor_advertise $*:"; tail -15 "$HOSTRUN/advertise.txt"; }
}
for pool in "$OURS" "$THEIRS"; do
	advertise $pool UPDATE_STARTD_AD "$RUN/one.ad"
	advertise $pool -multiple UPDATE_STARTD_AD "$RUN/two.ad"
done
sleep 1
compare "after condor_advertise" -af Name Cpus -constraint 'Machine == "adv.test"'
if inchroot condor_advertise $OURS UPDATE_STARTD_AD_WITH_ACK "$RUN/one.ad" > "$HOSTRUN/ack.txt" 2>&1; then
	ok "condor_advertise UPDATE_STARTD_AD_WITH_ACK is acknowledged"
else
	bad "UPDATE_STARTD_AD_WITH_ACK: $(cat "$HOSTRUN/ack.txt")"
fi
printf 'MyType = "Query"\nTargetType = "Machine"\nName = "fake1@adv.test"\nMyAddress = "<127.0.0.1:5999?noUDP>"\n' > "$HOSTRUN/inv-name.ad"
printf 'MyType = "Query"\nTargetType = "Machine"\nRequirements = Cpus == 2\n' > "$HOSTRUN/inv-req.ad"
for pool in "$OURS" "$THEIRS"; do
	advertise $pool INVALIDATE_STARTD_ADS "$RUN/inv-name.ad"
	advertise $pool INVALIDATE_STARTD_ADS "$RUN/inv-req.ad"
done
sleep 1
compare "after invalidations" -af Name Cpus -constraint 'Machine == "adv.test"'
left=$(inchroot condor_status $OURS -af Name -constraint 'Machine == "adv.test"' || true)
[ "$left" = "fake3@adv.test" ] && ok "invalidation by name and by constraint" || bad "left after invalidations: [$left]"

# condor_ping at three levels.
for level in READ ADVERTISE_STARTD NEGOTIATOR; do
	a=$(inchroot condor_ping $OURS -type collector -table "$level" 2>&1 | awk 'NR == 2 { print $2 "/" $3 "/" $NF }' || true)
	b=$(inchroot condor_ping $THEIRS -type collector -table "$level" 2>&1 | awk 'NR == 2 { print $2 "/" $3 "/" $NF }' || true)
	[ -n "$a" ] && [ "$a" = "$b" ] && ok "condor_ping $level: $a (as the real collector)" || bad "condor_ping $level: ours [$a], theirs [$b]"
done

# A real job of a normal user, matched by the negotiator from our ads.
cat > "$HOSTRUN/job.sub" <<JOB
executable = /bin/echo
arguments = hello from a pool with our collector
output = $RUN/job.out
error = $RUN/job.err
log = $RUN/job.log
should_transfer_files = NO
queue
JOB
chmod 644 "$HOSTRUN/job.sub"
touch "$HOSTRUN/job.out" "$HOSTRUN/job.err" "$HOSTRUN/job.log"
chroot "$CHROOT" chown alice "$RUN/job.out" "$RUN/job.err" "$RUN/job.log"
if asalice condor_submit "$RUN/job.sub" > "$HOSTRUN/submit.txt" 2>&1; then
	ok "alice submits a job"
	for _ in $(seq 1 120); do
		grep -q "Job terminated" "$HOSTRUN/job.log" 2> /dev/null && break
		sleep 1
	done
	if grep -q "hello from a pool with our collector" "$HOSTRUN/job.out" 2> /dev/null; then
		ok "the job ran to completion: $(cat "$HOSTRUN/job.out")"
	else
		bad "the job did not complete; job log:"; tail -20 "$HOSTRUN/job.log"
	fi
else
	bad "condor_submit: $(cat "$HOSTRUN/submit.txt")"
fi
grep -q "STARTING UP" "$HOSTRUN/log/CollectorLog" && ok "our collector logs to CollectorLog" || bad "no CollectorLog"

# kill -9: the master starts it again, and the daemons' next updates
# (UPDATE_INTERVAL = 5 s) make the table whole again: soft state.
# The daemons that advertise every UPDATE_INTERVAL: masters, schedds,
# startds. (Ads condor_advertise sent are not sent again, nor a finished
# submitter's: they stay gone, as with a restarted C++ collector.)
before=$(inchroot condor_status $OURS -any -af MyType Name 2> /dev/null | grep -E '^(DaemonMaster|Machine|Scheduler|StartD) ' | grep -v 'adv.test' | sort || true)
pid=$(awk '/condor_collector \(COLLECTOR\) STARTING UP/ { n++ } /PID = / { p = $NF } END { print p }' "$HOSTRUN/log/CollectorLog")
if [ -n "$pid" ] && kill -9 "$pid" 2> /dev/null; then
	killed=$(date +%s)
	whole=
	for _ in $(seq 1 90); do
		now=$(inchroot condor_status $OURS -any -af MyType Name 2> /dev/null | grep -E '^(DaemonMaster|Machine|Scheduler|StartD) ' | grep -v 'adv.test' | sort || true)
		[ -n "$now" ] && [ "$now" = "$before" ] && whole=1 && break
		sleep 1
	done
	if [ -n "$whole" ]; then
		ok "after kill -9 the table is whole again $(($(date +%s) - killed)) s later (master restart + one update interval)"
	else
		bad "after kill -9 the table did not come back: before [$(echo $before)], now [$(echo $now)]"
	fi
else
	bad "no collector pid to kill"
fi

echo
[ $fail = 0 ] && echo "collector-pool.sh MODE=$MODE: all checks passed" || echo "collector-pool.sh MODE=$MODE: some checks FAILED (logs: KEEP=1)"
exit $fail
