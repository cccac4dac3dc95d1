#!/bin/bash
# run-master.sh -- run the noop daemon under the real HTCondor 23.9.6
# condor_master inside the anchor chroot, and check what the shell promises:
# the master starts it (with -local-name NOOP and CONDOR_INHERIT), it adopts
# the command socket the master bound, writes its address file, sends
# DC_CHILDALIVE on the session the master gave it, reconfigures on
# condor_reconfig (the master's SIGHUP), and stops cleanly when the master
# stops (its SIGTERM).
#
# Usage (as root on the host, from the repository):
#   daemons/tests/chroot/run-master.sh
# Environment:
#   CHROOT=/work/chroot      the chroot with HTCondor 23.9.6
#   PORT=19618               COLLECTOR_HOST's port (no collector runs: the
#                            master's updates fail, which does not matter here)
#   KEEP=0                   1 = leave the run directory for inspection
#
# The configuration is this script's own (written to the run directory), not
# pool.sh's: only MASTER and NOOP run, on loopback, without shared port.
set -euo pipefail

CHROOT=${CHROOT:-/work/chroot}
PORT=${PORT:-19618}
KEEP=${KEEP:-0}
RUN=/tmp/dcore-master-$$          # path inside the chroot
HOSTRUN=$CHROOT$RUN
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)

die() { echo "run-master.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root (chroot)"
[ -x "$CHROOT/usr/sbin/condor_master" ] || die "no condor_master in $CHROOT"
mountpoint -q "$CHROOT/proc" || mount -t proc proc "$CHROOT/proc"
mountpoint -q "$CHROOT/dev" || mount --bind /dev "$CHROOT/dev"

(cd "$ROOT" && cargo build -q -p daemons --bin noop-daemon)
mkdir -p "$HOSTRUN"/{log,spool,lock,run,execute}
cp "${CARGO_TARGET_DIR:-$ROOT/target}/debug/noop-daemon" "$HOSTRUN/noop-daemon"
# The master (root) writes its files as the condor user of the chroot.
CONDOR_IDS=$(awk -F: '$1 == "condor" { print $3 ":" $4 }' "$CHROOT/etc/passwd")
[ -n "$CONDOR_IDS" ] && chown -R "$CONDOR_IDS" "$HOSTRUN"/{log,spool,lock,run,execute}

cat > "$HOSTRUN/condor_config" <<CONF
## Written by daemons/tests/chroot/run-master.sh
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

CONDOR_HOST = 127.0.0.1
COLLECTOR_HOST = 127.0.0.1:$PORT
NETWORK_INTERFACE = 127.0.0.1
BIND_ALL_INTERFACES = False
USE_SHARED_PORT = False
ENABLE_IPV6 = False
UID_DOMAIN = anchor.local
FILESYSTEM_DOMAIN = anchor.local
ALLOW_READ = *
ALLOW_WRITE = *
ALLOW_ADMINISTRATOR = *
ALLOW_DAEMON = *
SEC_DEFAULT_AUTHENTICATION_METHODS = FS, CLAIMTOBE
SEC_CLIENT_AUTHENTICATION_METHODS = FS, CLAIMTOBE

DAEMON_LIST = MASTER, NOOP
# No space after '+': the master takes the rest of the value as the name.
DC_DAEMON_LIST = +NOOP
NOOP = $RUN/noop-daemon
NOOP_LOG = \$(LOG)/NoopLog
NOOP_DEBUG = D_FULLDEBUG D_COMMAND
NOOP.NOOP_ADDRESS_FILE = \$(LOG)/.noop_address
MASTER_DEBUG = D_FULLDEBUG D_DAEMONCORE D_COMMAND
# A keep-alive every 120/3 - 30 = 10 s (give or take the fuzz).
NOT_RESPONDING_TIMEOUT = 120
MASTER_UPDATE_INTERVAL = 3600
CONF

inchroot() {
	chroot "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC \
		CONDOR_CONFIG="$RUN/condor_config" "$@"
}

cleanup() {
	if [ -n "${MASTER_PID:-}" ] && kill -0 "$MASTER_PID" 2>/dev/null; then
		kill -QUIT "$MASTER_PID" 2>/dev/null || true
		sleep 2
	fi
	[ "$KEEP" = 1 ] || rm -rf "$HOSTRUN"
}
trap cleanup EXIT

# Not through inchroot (a function would run in a subshell, and $! would be
# the subshell's pid): chroot and env exec, so $! is condor_master's pid.
chroot "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC \
	CONDOR_CONFIG="$RUN/condor_config" /usr/sbin/condor_master -f > "$HOSTRUN/master.out" 2>&1 &
MASTER_PID=$!
echo "condor_master pid $MASTER_PID, run directory $HOSTRUN"

wait_for() { # FILE PATTERN SECONDS
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "--- no '$2' in $1 after $3 s" >&2
	return 1
}

fail=0
check() { # DESCRIPTION FILE PATTERN SECONDS
	if wait_for "$2" "$3" "$4"; then echo "ok:   $1"; else echo "FAIL: $1"; fail=1; fi
}

LOGS=$HOSTRUN/log
check "the master starts the noop daemon" "$LOGS/NoopLog" "STARTING UP" 60
check "it is started with -local-name NOOP" "$LOGS/NoopLog" "local:NOOP" 5
check "it adopts the command socket the master bound" "$LOGS/NoopLog" "Inheriting command socket" 5
check "it writes its address file" "$LOGS/.noop_address" "noUDP" 10
check "the first keep-alive succeeds" "$LOGS/NoopLog" "SendAliveToParent() - success" 20
check "the master receives it" "$LOGS/MasterLog" "received childalive" 20
# With D_DAEMONCORE the master logs, before running each command, whether
# its handshake made a new session: keep-alives must resume ours.
if awk '/ExecCommand\(m_req == 60008/ { if (prev !~ /NOT m_new_session/) bad = 1; n++ } { prev = $0 } END { exit !(n > 0 && !bad) }' "$LOGS/MasterLog"; then
	echo "ok:   keep-alives resume the session the master gave (SessionKey)"
else
	echo "FAIL: a keep-alive did not resume the inherited session"; fail=1
fi
check "a second keep-alive comes within the period" "$LOGS/MasterLog" "received childalive.*" 25
sleep 12
n=$(grep -c "received childalive" "$LOGS/MasterLog" 2>/dev/null || echo 0)
if [ "$n" -ge 2 ]; then echo "ok:   $n keep-alives received"; else echo "FAIL: only $n keep-alive(s)"; fail=1; fi

MASTER_ADDR=$(head -1 "$LOGS/.master_address" 2>/dev/null || true)
if [ -n "$MASTER_ADDR" ]; then
	inchroot condor_reconfig -addr "$MASTER_ADDR" > "$HOSTRUN/reconfig.out" 2>&1 || true
	check "condor_reconfig reaches it (SIGHUP from the master)" "$LOGS/NoopLog" "control event: Reconfig" 20
else
	echo "FAIL: no master address file"; fail=1
fi

kill -TERM "$MASTER_PID"
check "the master's stop is a graceful stop" "$LOGS/NoopLog" "control event: Stop(Graceful)" 30
check "it exits cleanly" "$LOGS/NoopLog" "EXITING WITH STATUS 0" 30
wait "$MASTER_PID" 2>/dev/null || true
[ -e "$LOGS/.noop_address" ] && { echo "FAIL: the address file is left"; fail=1; } || echo "ok:   the address file is removed"

if [ "$fail" != 0 ]; then
	echo "--- NoopLog"; tail -40 "$LOGS/NoopLog" || true
	echo "--- MasterLog"; grep -i "noop\|childalive\|error" "$LOGS/MasterLog" | tail -40 || true
	exit 1
fi
echo "all checks passed"
