#!/bin/bash
# capture.sh -- record real CEDAR traffic of a real HTCondor 23.9.6 pool (the anchor chroot)
# and turn it into the corpus in this directory.
#
# Usage (as root on the host):   ./capture.sh [plain|family|stranger|escape ...]   (default: all four)
#   plain   -> ./        every connection negotiates a fresh, unauthenticated, unencrypted
#                        session (capture-overlay.config + capture-overlay-plain.config)
#   family  -> ./family/ the same pool with HTCondor's default session sharing (family session
#                        among the master's children, match-password claim sessions): shows what
#                        is resumed and what is AES-encrypted even with OPTIONAL everywhere
#   stranger -> ./stranger/ the family pool plus a second condor_collector (127.0.0.1:9634)
#                        started outside the master: what a daemon that is not in the master's
#                        family gets from the master's children
#   escape  -> ./escape/  the same with family-escape.py on 9634 instead: SID_NOT_FOUND plus a
#                        DC_INVALIDATE_KEY back, after which the children negotiate with it
# Environment:
#   ANCHOR_ROOT=/work/chroot           the anchor chroot (setup-chroot.sh)
#   ANCHOR_DIR=/work/shared/anchor     where pool.sh lives
#   CAPTURE_OUT=<this directory>       where the corpus goes
#   CAPTURE_KEEP_WORK=1                keep the scratch directories (pcap, full logs)
#
# Per variant (idempotent: every run wipes the pool's state and rewrites that variant's corpus):
#   1. stops the anchor pool if it runs, wipes its state, installs the overlay as
#      /etc/condor/anchor-override.config in the chroot (pool.sh includes it last), creates
#      the chroot user "capuser";
#   2. starts tcpdump on lo (TCP+UDP, port 9618 and 9630-9639), then the pool (ANCHOR_STARTD=1);
#   3. runs the tool steps (condor_status ..., condor_advertise ..., condor_ping ...), each
#      with -debug; stdout -> expected/<step>.out, the tool's own debug log -> tool-debug/;
#   4. submits two jobs as capuser (sleep 5, which runs on the real startd; one that never
#      matches, so a submitter ad and NEGOTIATE rejections stay), waits for "Job terminated",
#      then lists what the collector and negotiator hold;
#   5. stops the pool (the shutdown invalidations are captured too), stops tcpdump, removes
#      the overlay, and runs pcap2corpus.py: one c2s/s2c file pair per kept TCP connection,
#      labelled from the CEDAR bytes themselves and from the daemons' and tools' debug logs.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${ANCHOR_ROOT:-/work/chroot}
ANCHOR=${ANCHOR_DIR:-/work/shared/anchor}
OUT_BASE=${CAPTURE_OUT:-$HERE}
POOL="$ANCHOR/pool.sh"
LOCAL=/var/lib/condor-anchor                      # pool state inside the chroot (pool.sh)
OVERRIDE=/etc/condor/anchor-override.config        # included last by pool.sh's local config
CUSER=capuser
JOBDIR=/home/$CUSER/job                            # inside the chroot
A=/tmp/capture-ads                                 # the ad files, inside the chroot
export ANCHOR_ROOT=$ROOT ANCHOR_STARTD=1 ANCHOR_NEGOTIATOR_INTERVAL=5

log() { echo "[capture] $(date -u +%T) $*"; }
die() { echo "[capture] ERROR: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root"
[ -x "$POOL" ] || die "no pool.sh at $POOL"
[ -x "$ROOT/usr/sbin/condor_master" ] || die "no HTCondor in $ROOT"
command -v tcpdump >/dev/null || die "tcpdump missing (apt-get install -y tcpdump)"
command -v python3 >/dev/null || die "python3 missing"

WORK=
TCPDUMP_PID=
cleanup() {
	set +e
	if [ -n "$TCPDUMP_PID" ] && kill -0 "$TCPDUMP_PID" 2>/dev/null; then kill -TERM "$TCPDUMP_PID"; wait "$TCPDUMP_PID"; fi
	stop_stranger
	"$POOL" stop >/dev/null 2>&1
	rm -f "$ROOT$OVERRIDE"
	if [ -n "$WORK" ]; then
		if [ "${CAPTURE_KEEP_WORK:-}" = 1 ]; then echo "[capture] scratch kept in $WORK"; else rm -rf "$WORK"; fi
	fi
}
trap cleanup EXIT

inchroot() { "$POOL" run "$@"; }
now() { date +%s.%N; }

# step NAME CMD ARGS...  -- run one tool in the chroot; its stdout is HTCondor's own answer.
step() {
	local name=$1; shift
	local t0 t1 rc=0
	t0=$(now)
	inchroot "$@" > "$WORK/expected/$name.out" 2> "$WORK/tool-debug/$name.stderr" || rc=$?
	t1=$(now)
	python3 - "$name" "$t0" "$t1" "$rc" "$@" >> "$WORK/steps.jsonl" <<'PY'
import json, sys
name, t0, t1, rc, *argv = sys.argv[1:]
print(json.dumps({"step": name, "t_start": float(t0), "t_end": float(t1), "rc": int(rc), "argv": argv}))
PY
	[ "$rc" = 0 ] || log "step $name exited $rc (kept; see tool-debug/$name.stderr)"
	sleep 0.3                          # keep the steps' time windows apart
}

wait_for() {                           # wait_for SECONDS CMD... (until CMD's stdout is non-empty)
	local n=$1; shift
	local i
	for i in $(seq 1 $((n * 2))); do
		[ -n "$(inchroot "$@" 2>/dev/null)" ] && return 0
		sleep 0.5
	done
	return 1
}

status_steps() {
	step status_default         condor_status -debug
	step status_l               condor_status -debug -l
	step status_af              condor_status -debug -af Name State
	step status_constraint      condor_status -debug -constraint 'SlotType =!= "Dynamic" && Cpus >= 1' -af Name Cpus Memory
	step status_limit1          condor_status -debug -limit 1 -l
	step status_total           condor_status -debug -total
	step schedd_l               condor_status -debug -schedd -l
	step master_l               condor_status -debug -master -l
	step negotiator_l           condor_status -debug -negotiator -l
	step collector_l            condor_status -debug -collector -l
	step startd_l               condor_status -debug -startd -l
	step any_l                  condor_status -debug -any -l
	step direct_startd_l        condor_status -debug -direct '<127.0.0.1:9632>' -l
}

advertise_steps() {
	step adv_update             condor_advertise -debug UPDATE_STARTD_AD $A/update.ad
	step adv_update_stored      condor_status -l -constraint 'Name == "fake1@one.capture.invalid"'
	step adv_update_ack         condor_advertise -debug UPDATE_STARTD_AD_WITH_ACK $A/update-with-ack.ad
	step adv_update_ack_stored  condor_status -l -constraint 'Name == "fake2@two.capture.invalid"'
	step adv_multiple           condor_advertise -debug -multiple UPDATE_STARTD_AD $A/multiple.ad
	step adv_multiple_stored    condor_status -l -constraint 'regexp("^fakem", Name)'
	step adv_invalidate_key     condor_advertise -debug INVALIDATE_STARTD_ADS $A/invalidate-by-key.ad
	step adv_invalidate_key_stored condor_status -af Name -constraint 'AnchorCapture =?= true'
	step adv_invalidate_req     condor_advertise -debug INVALIDATE_STARTD_ADS $A/invalidate-by-requirements.ad
	step adv_invalidate_req_stored condor_status -af Name -constraint 'AnchorCapture =?= true'
	step adv_license            condor_advertise -debug UPDATE_LICENSE_AD $A/update.ad
}

ping_steps() {
	step ping_read              condor_ping -debug -pool 127.0.0.1:9618 -type collector READ
	step ping_many              condor_ping -debug -pool 127.0.0.1:9618 -type collector READ ADVERTISE_STARTD NEGOTIATOR DAEMON
	step ping_verbose           condor_ping -debug -verbose -pool 127.0.0.1:9618 -type collector WRITE
	step ping_unknown_command   condor_ping -debug -verbose -pool 127.0.0.1:9618 -type collector NEGOTIATE
}

raw_steps() {                          # SEC_CLIENT_NEGOTIATION = NEVER for the tool only
	local RAW="env _CONDOR_SEC_CLIENT_NEGOTIATION=NEVER"
	step raw_status_l           $RAW condor_status -debug -l
	step raw_schedd_l           $RAW condor_status -debug -schedd -l
	step raw_status_af          $RAW condor_status -debug -af Name State
	step raw_adv_update         $RAW condor_advertise -debug UPDATE_STARTD_AD $A/raw-update.ad
	step raw_adv_update_stored  condor_status -l -constraint 'Name == "fakeraw@raw.capture.invalid"'
	step raw_adv_invalidate     $RAW condor_advertise -debug INVALIDATE_STARTD_ADS $A/invalidate-by-requirements.ad
}

never_steps() {                        # negotiated, but the tool's own policy is NEVER, not OPTIONAL
	local NEVER="env _CONDOR_SEC_CLIENT_AUTHENTICATION=NEVER _CONDOR_SEC_CLIENT_ENCRYPTION=NEVER _CONDOR_SEC_CLIENT_INTEGRITY=NEVER"
	step never_status_l         $NEVER condor_status -debug -l
	step never_ping             $NEVER condor_ping -debug -pool 127.0.0.1:9618 -type collector READ
}

job_steps() {
	log "submitting as $CUSER: sleep 5 (runs) and one job that never matches"
	T_SUBMIT=$(now)
	inchroot runuser -u "$CUSER" -- sh -c "cd $JOBDIR && condor_submit idle.sub && condor_submit sleep.sub" \
		> "$WORK/expected/submit.out" 2>&1
	local ok=0
	for _ in $(seq 1 240); do
		grep -q 'Job terminated' "$ROOT$JOBDIR/sleep.log" 2>/dev/null && { ok=1; break; }
		sleep 0.5
	done
	[ "$ok" = 1 ] || log "WARNING: the sleep job did not terminate within 120 s"
	T_JOB_DONE=$(now)
	cp "$ROOT$JOBDIR/sleep.log" "$WORK/expected/job-sleep.userlog" 2>/dev/null || true
	sleep 12                           # two more cycles: rejections of the idle job, submitter updates
}

after_steps() {
	step after_status_l         condor_status -debug -l
	step after_startd_l         condor_status -debug -startd -l
	step after_schedd_l         condor_status -debug -schedd -l
	step after_submitters_l     condor_status -debug -submitters -l
	step after_negotiator_l     condor_status -debug -negotiator -l
	step after_master_l         condor_status -debug -master -l
	step after_any_l            condor_status -debug -any -l
	step after_userprio_l       condor_userprio -debug -allusers -l
	step after_q_l              condor_q -debug -allusers -l
}

STRANGER_PIDFILE=$LOCAL/run/stranger_collector.pid     # inside the chroot
stranger_pid() {
	local f="$ROOT$STRANGER_PIDFILE" pid
	[ -s "$f" ] || return 1
	pid=$(cat "$f")
	kill -0 "$pid" 2>/dev/null && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = condor_collecto ] || return 1
	echo "$pid"
}
stop_stranger() {
	local pid
	pid=$(stranger_pid) || return 0
	kill -TERM "$pid"
	for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
	kill -KILL "$pid" 2>/dev/null || true
}

# the "stranger" variant: a second condor_collector on 9634, started outside the master
stranger_steps() {
	log "[stranger] starting a standalone condor_collector on 127.0.0.1:9634 (not a master child)"
	inchroot env _CONDOR_COLLECTOR_LOG=$LOCAL/log/StrangerCollectorLog \
		_CONDOR_COLLECTOR_NAME=stranger _CONDOR_COLLECTOR_ADDRESS_FILE=$LOCAL/log/.stranger_address \
		condor_collector -p 9634 -pidfile "$STRANGER_PIDFILE" </dev/null >/dev/null 2>&1 &
	for _ in $(seq 1 50); do stranger_pid >/dev/null && break; sleep 0.2; done
	stranger_pid >/dev/null || die "stranger collector did not start"
	sleep 20                           # four UPDATE_INTERVALs of the daemons
	step stranger_any_l         condor_status -debug -pool 127.0.0.1:9634 -any -l
	step stranger_ping          condor_ping -debug -verbose -pool 127.0.0.1:9634 -type collector ADVERTISE_STARTD
	step main_any_l             condor_status -debug -pool 127.0.0.1:9618 -any -l
	sleep 12
	step stranger_any_l_later   condor_status -debug -pool 127.0.0.1:9634 -any -l
	stop_stranger
}

# the "escape" variant: family-escape.py (host) on 9634 answers SID_NOT_FOUND and sends
# DC_INVALIDATE_KEY back; do the master's children then negotiate a fresh session with it?
escape_steps() {
	log "[escape] family-escape.py on 127.0.0.1:9634 for 45 s"
	python3 "$HERE/family-escape.py" --port 9634 --seconds 45 --log "$WORK/expected/escape-log.json" \
		> "$WORK/expected/escape-summary.out" 2>&1 &
	local epid=$!
	sleep 10
	step main_any_l             condor_status -debug -pool 127.0.0.1:9618 -any -l
	wait "$epid" || log "family-escape.py exited $?"
	cat "$WORK/expected/escape-summary.out"
}

# run_variant NAME OUTDIR OVERLAY-FILES...
run_variant() {
	local variant=$1 out=$2; shift 2
	WORK=$(mktemp -d /tmp/cedar-capture-$variant.XXXXXX)
	mkdir -p "$WORK"/{expected,tool-debug,logs} "$out"
	: > "$WORK/steps.jsonl"

	# 1. a clean pool
	log "[$variant] stopping and wiping the anchor pool in $ROOT"
	"$POOL" wipe >/dev/null
	cat "$@" > "$ROOT$OVERRIDE"
	cat "$@" > "$WORK/overlay.config"
	inchroot sh -c "id $CUSER >/dev/null 2>&1 || useradd -m -s /bin/sh $CUSER"
	rm -rf "$ROOT$JOBDIR"; mkdir -p "$ROOT$JOBDIR"
	cp "$HERE/ads/sleep.sub" "$HERE/ads/idle.sub" "$ROOT$JOBDIR/"
	inchroot chown -R "$CUSER" "$JOBDIR"
	rm -rf "$ROOT$A"; mkdir -p "$ROOT$A"
	cp "$HERE"/ads/*.ad "$ROOT$A/"

	# 2. tcpdump, then the pool
	log "[$variant] starting tcpdump on lo"
	tcpdump -i lo -n -s 0 -U -B 16384 -w "$WORK/lo.pcap" \
		'(tcp or udp) and (port 9618 or portrange 9630-9639)' 2> "$WORK/tcpdump.stderr" &
	TCPDUMP_PID=$!
	for _ in $(seq 1 50); do grep -q listening "$WORK/tcpdump.stderr" 2>/dev/null && break; sleep 0.1; done
	T_POOL_START=$(now)
	log "[$variant] starting the pool (ANCHOR_STARTD=1)"
	"$POOL" start > "$WORK/pool-start.out"
	wait_for 60 condor_status -startd -af Name || die "no StartD daemon ad after 60 s"
	wait_for 60 condor_status -master -af Name || die "no master ad after 60 s"
	wait_for 60 condor_status -af Name || die "no slot ad after 60 s"
	sleep 6                            # one more round of periodic updates (resumed sessions)
	T_POOL_READY=$(now)

	# 3.-4. tools, a job, what the pool holds afterwards
	T_SUBMIT=0; T_JOB_DONE=0
	case "$variant" in
	plain)
		log "[$variant] tool steps"
		status_steps; advertise_steps; ping_steps; raw_steps; never_steps
		job_steps
		log "[$variant] what the collector and negotiator hold afterwards"
		after_steps ;;
	family)
		step status_l               condor_status -debug -l
		step ping_read              condor_ping -debug -pool 127.0.0.1:9618 -type collector READ
		job_steps
		log "[$variant] what the collector and negotiator hold afterwards"
		after_steps ;;
	stranger)
		stranger_steps ;;
	escape)
		escape_steps ;;
	esac
	T_STOP=$(now)

	# 5. stop, split, write
	log "[$variant] stopping the pool"
	"$POOL" stop > "$WORK/pool-stop.out" 2>&1 || true
	sleep 1
	kill -TERM "$TCPDUMP_PID"; wait "$TCPDUMP_PID" || true; TCPDUMP_PID=
	rm -f "$ROOT$OVERRIDE"
	cp "$ROOT$LOCAL"/log/*Log* "$WORK/logs/" 2>/dev/null || true
	cat > "$WORK/phases.json" <<EOF
{"variant": "$variant", "pool_start": $T_POOL_START, "pool_ready": $T_POOL_READY, "submit": $T_SUBMIT,
 "job_done": $T_JOB_DONE, "stop": $T_STOP}
EOF
	log "[$variant] pcap: $(stat -c %s "$WORK/lo.pcap") bytes; splitting into connections"
	python3 "$HERE/pcap2corpus.py" --work "$WORK" --out "$out"
	cp "$WORK/overlay.config" "$out/overlay-used.config"
	cp "$WORK/tcpdump.stderr" "$out/tcpdump.txt"
	log "[$variant] corpus written to $out ($(du -sh "$out" | cut -f1))"
	if [ "${CAPTURE_KEEP_WORK:-}" = 1 ]; then echo "[capture] scratch kept in $WORK"; else rm -rf "$WORK"; fi
	WORK=
}

variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(plain family stranger escape)
for v in "${variants[@]}"; do
	case "$v" in
		plain)  run_variant plain "$OUT_BASE" "$HERE/capture-overlay.config" "$HERE/capture-overlay-plain.config" ;;
		family) run_variant family "$OUT_BASE/family" "$HERE/capture-overlay.config" ;;
		stranger) run_variant stranger "$OUT_BASE/stranger" "$HERE/capture-overlay.config" "$HERE/capture-overlay-stranger.config" ;;
		escape) run_variant escape "$OUT_BASE/escape" "$HERE/capture-overlay.config" "$HERE/capture-overlay-stranger.config" ;;
		*) die "unknown variant $v (plain|family|stranger|escape)" ;;
	esac
done
python3 "$HERE/connections-table.py" "$OUT_BASE"
log "done: $OUT_BASE (check with: for v in . family stranger escape; do python3 verify.py \$v; done)"
