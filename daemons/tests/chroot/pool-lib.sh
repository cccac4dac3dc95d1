# pool-lib.sh -- what negotiator-pool.sh and fair-share.sh share: a real
# HTCondor 23.9.6 pool in the anchor chroot, run by the real condor_master
# from a run directory of its own, whose collector and negotiator are
# HTCondor's or ours.
#
# Source it with these set:
#   CHROOT      the chroot with HTCondor 23.9.6 (setup-chroot.sh)
#   PORT        the collector's port
#   MODE        claimtobe | plaintext | idtokens (see pool_security)
#   COLLECTOR   real | ours
#   NEGOTIATOR  real | ours
#   USERS       the submitting users (made in the chroot if missing)
#   KEEP        1 = leave the run directory when the script exits
# It sets RUN (the run directory inside the chroot), HOSTRUN (the same seen
# from the host) and ROOT (the repository), and defines the functions below.
# shellcheck shell=bash

RUN=/tmp/$(basename "$0" .sh)-$$
HOSTRUN=$CHROOT$RUN
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# The chroot ready for a pool: /proc and /dev, this host's name, the users.
pool_prepare() {
	[ "$(id -u)" = 0 ] || die "must run as root (chroot)"
	[ -x "$CHROOT/usr/sbin/condor_master" ] || die "no condor_master in $CHROOT"
	mountpoint -q "$CHROOT/proc" || mount -t proc proc "$CHROOT/proc"
	mountpoint -q "$CHROOT/dev" || mount --bind /dev "$CHROOT/dev"
	local h
	h=$(hostname)
	grep -Eq "^[0-9.]+[[:space:]].*\b$h\b" "$CHROOT/etc/hosts" || echo "127.0.0.1	$h" >> "$CHROOT/etc/hosts"
	for u in $USERS; do chroot "$CHROOT" id "$u" > /dev/null 2>&1 || chroot "$CHROOT" useradd -m "$u"; done
	chmod 1777 "$CHROOT/tmp"

	(cd "$ROOT" && cargo build -q --locked -p daemons --bin classad-negotiator --bin classad-collector)
	mkdir -p "$HOSTRUN"/{log,spool,lock,run,execute,tokens.d,passwords.d}
	cp "${CARGO_TARGET_DIR:-$ROOT/target}/debug/classad-negotiator" "${CARGO_TARGET_DIR:-$ROOT/target}/debug/classad-collector" "$HOSTRUN/"
	chmod 755 "$HOSTRUN"
	chroot "$CHROOT" chown -R condor:condor "$RUN/log" "$RUN/spool" "$RUN/lock" "$RUN/run" "$RUN/execute"
	chmod 700 "$HOSTRUN"/{tokens.d,passwords.d}
}

# The SEC_* lines of MODE.
pool_security() {
	case $MODE in
	claimtobe) echo "
SEC_DEFAULT_AUTHENTICATION = REQUIRED
SEC_DEFAULT_AUTHENTICATION_METHODS = FS, CLAIMTOBE
SEC_CLIENT_AUTHENTICATION_METHODS = FS, CLAIMTOBE
SEC_DEFAULT_ENCRYPTION = OPTIONAL
SEC_DEFAULT_INTEGRITY = OPTIONAL
SEC_DEFAULT_CRYPTO_METHODS = AES" ;;
	plaintext) echo "
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
	idtokens) echo "
SEC_DEFAULT_AUTHENTICATION = REQUIRED
SEC_DEFAULT_AUTHENTICATION_METHODS = FS, IDTOKENS, CLAIMTOBE
SEC_CLIENT_AUTHENTICATION_METHODS = FS, IDTOKENS, CLAIMTOBE
NEGOTIATOR.SEC_CLIENT_AUTHENTICATION_METHODS = IDTOKENS
SEC_DEFAULT_ENCRYPTION = REQUIRED
SEC_DEFAULT_CRYPTO_METHODS = AES" ;;
	*) die "MODE must be claimtobe, plaintext or idtokens" ;;
	esac
}

# $RUN/condor_config: the pool's daemons, addresses, security and
# authorization, followed by the lines on standard input (the script's own
# intervals and slots).
pool_config() {
	local collector_line negotiator_line
	case $COLLECTOR in
	real) collector_line="COLLECTOR = \$(SBIN)/condor_collector" ;;
	ours) collector_line="COLLECTOR = $RUN/classad-collector" ;;
	*) die "COLLECTOR must be real or ours" ;;
	esac
	case $NEGOTIATOR in
	real) negotiator_line="NEGOTIATOR = \$(SBIN)/condor_negotiator" ;;
	ours) negotiator_line="NEGOTIATOR = $RUN/classad-negotiator" ;;
	*) die "NEGOTIATOR must be ours or real" ;;
	esac
	{
		cat <<CONF
## Written by daemons/tests/chroot/$(basename "$0") (MODE=$MODE COLLECTOR=$COLLECTOR NEGOTIATOR=$NEGOTIATOR)
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
$collector_line
$negotiator_line
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
$(pool_security)
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

MASTER_UPDATE_INTERVAL = 5
MASTER_BACKOFF_CONSTANT = 1
MASTER_BACKOFF_FACTOR = 1.0
MASTER_RECOVER_FACTOR = 5
RUNBENCHMARKS = 0
MOUNT_UNDER_SCRATCH =
CONF
		cat
	} > "$HOSTRUN/condor_config"
	if [ "$MODE" = idtokens ]; then
		head -c 64 /dev/urandom | base64 -w0 > "$HOSTRUN/passwords.d/POOL.raw"
		inchroot sh -c "condor_store_cred add -c -f $RUN/passwords.d/POOL < $RUN/passwords.d/POOL.raw" > /dev/null
		rm -f "$HOSTRUN/passwords.d/POOL.raw"
		inchroot condor_token_create -identity condor@anchor.local > "$HOSTRUN/tokens.d/condor"
		chmod 600 "$HOSTRUN/passwords.d/POOL" "$HOSTRUN/tokens.d/condor"
	fi
}

# A command in the chroot as root, with the pool's configuration.
inchroot() {
	chroot "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC \
		CONDOR_CONFIG="$RUN/condor_config" "$@"
}
# A command in the chroot as USER: asuser USER CMD...
asuser() {
	local u=$1
	shift
	chroot --userspec="$u:$u" "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="/home/$u" \
		LANG=C.UTF-8 TZ=UTC CONDOR_CONFIG="$RUN/condor_config" "$@"
}

# condor_master in the background (MASTER_PID), stopped when the script exits.
pool_start() {
	trap pool_stop EXIT
	# Not through inchroot: a function in the background is a subshell, and
	# $! would be the subshell's pid, not the master's.
	chroot "$CHROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC \
		CONDOR_CONFIG="$RUN/condor_config" /usr/sbin/condor_master -f > "$HOSTRUN/master.out" 2>&1 &
	MASTER_PID=$!
	echo "MODE=$MODE COLLECTOR=$COLLECTOR NEGOTIATOR=$NEGOTIATOR: condor_master pid $MASTER_PID, run directory $HOSTRUN"
}
pool_stop() {
	if [ -n "${MASTER_PID:-}" ] && kill -0 "$MASTER_PID" 2> /dev/null; then
		kill -TERM "$MASTER_PID" 2> /dev/null || true
		for _ in $(seq 1 40); do kill -0 "$MASTER_PID" 2> /dev/null || break; sleep 0.5; done
		kill -QUIT "$MASTER_PID" 2> /dev/null || true
		for _ in $(seq 1 20); do kill -0 "$MASTER_PID" 2> /dev/null || break; sleep 0.5; done
	fi
	[ "$KEEP" = 1 ] || rm -rf "$HOSTRUN"
}

# Waits (up to 60 s) until the collector holds the negotiator's, the
# schedd's and the startd's ads; prints the ad types seen.
pool_wait_up() {
	local have=""
	for _ in $(seq 1 60); do
		have=$(inchroot condor_status -any -af MyType 2> /dev/null | sort -u | tr '\n' ' ' || true)
		case "$have" in *Negotiator*Scheduler*) [ -n "$(inchroot condor_status -af Name 2> /dev/null)" ] && break ;; esac
		sleep 1
	done
	echo "$have"
}
