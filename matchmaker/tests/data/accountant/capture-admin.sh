#!/bin/bash
# capture-admin.sh -- record what each `condor_userprio` admin operation does to a
# real HTCondor accountant: the exact records appended to Accountantnew.log, the
# NegotiatorLog lines, the command's stdout/stderr/exit code; for valid and invalid input.
#
# Needs: root; HTCondor 23.9 (Debian trixie's `condor`/`minicondor` package) in a
# chroot made by the anchor's setup-chroot.sh, and the anchor's pool.sh (see lib.sh
# for ANCHOR_ROOT / POOL_SH). Best run right after capture-usage.sh (it reuses that
# the log usage/idle-2/Accountantnew.log made by capture-usage.sh, so bench01..bench04
# have usage); it replaces the pool's accountant log with INITIAL_LOG and restarts the
# pool without a startd and with NEGOTIATOR_INTERVAL = 1000000, so no negotiation cycle
# writes to the log between operations.
#
# Run:   sudo ./capture-admin.sh [OUTDIR]        (OUTDIR default: ./admin next to this script)
#        INITIAL_LOG=FILE picks another starting log (default: ./usage/idle-2/Accountantnew.log)
#
# Output: OUTDIR/NN-name/{cmd,epoch,stdout,stderr,rc,log-appended,negotiator-log,
# userprio-allusers-l.txt,query-log-appended}; OUTDIR/initial.log (the log when the
# operations start: INITIAL_LOG as the negotiator rewrote it at start-up plus its first
# cycle) and OUTDIR/final.log.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
OUT=${1:-$HERE/admin}
[ "$(id -u)" = 0 ] || die "must run as root"
rm -rf "$OUT"; mkdir -p "$OUT"

say "restarting the pool without cycles (NEGOTIATOR_INTERVAL = 1000000)"
INITIAL_LOG=${INITIAL_LOG:-$HERE/usage/idle-2/Accountantnew.log}
[ -f "$INITIAL_LOG" ] || die "no initial log $INITIAL_LOG"
"$POOL_SH" stop >/dev/null
install -m 600 "$INITIAL_LOG" "$(acct_log)"
chroot "$ROOT" chown condor:condor "$(inchroot condor_config_val SPOOL)/Accountantnew.log"
[ -f "$ROOT$OVERRIDE" ] && grep -v '^NEGOTIATOR_INTERVAL' "$ROOT$OVERRIDE" > "$ROOT$OVERRIDE.tmp" && mv "$ROOT$OVERRIDE.tmp" "$ROOT$OVERRIDE"
nb=$(n_cycles)
ANCHOR_STARTD=0 ANCHOR_NEGOTIATOR_INTERVAL=1000000 "$POOL_SH" start >/dev/null
# the negotiator runs one cycle right after it starts; wait for it to finish
for _ in $(seq 1 150); do [ "$(n_cycles)" -gt "$nb" ] && break; sleep 0.2; done
n0=$(n_cycles); sleep 3; [ "$(n_cycles)" = "$n0" ] || die "negotiation cycles keep running"
LOG=$(acct_log)
cp "$LOG" "$OUT/initial.log"
inchroot condor_userprio -allusers -l > "$OUT/initial-userprio-allusers-l.txt" 2>&1 || true

i=0
# op NAME ARGS... : run condor_userprio ARGS, record everything it changed
op() {
	local name=$1; shift
	i=$((i + 1))
	local d; d=$OUT/$(printf '%02d' $i)-$name
	mkdir -p "$d"
	local lsz nsz rc=0
	lsz=$(stat -c %s "$LOG"); nsz=$(stat -c %s "$NEGLOG")
	printf '%q ' condor_userprio "$@" | sed 's/ $//' > "$d/cmd"; echo >> "$d/cmd"
	date -u +%s > "$d/epoch"
	inchroot condor_userprio "$@" > "$d/stdout" 2> "$d/stderr" || rc=$?
	echo "$rc" > "$d/rc"
	sleep 1
	tail -c +$((lsz + 1)) "$LOG" > "$d/log-appended"
	tail -c +$((nsz + 1)) "$NEGLOG" > "$d/negotiator-log"
	# the query itself may write (default priority factors, priorities raised to 0.5)
	lsz=$(stat -c %s "$LOG")
	inchroot condor_userprio -allusers -l > "$d/userprio-allusers-l.txt" 2>&1 || true
	sleep 0.5
	tail -c +$((lsz + 1)) "$LOG" > "$d/query-log-appended"
	say "$name: rc=$rc, $(wc -l < "$d/log-appended") log lines"
}

U=bench01@anchor.local
# --- valid operations ---
op setprio             -setprio $U 123.5
op setprio-below-min   -setprio bench02@anchor.local 0.1
op setprio-exp         -setprio bench02@anchor.local 1e2
op setfactor           -setfactor $U 1500
op setfactor-one       -setfactor bench02@anchor.local 1
op setfloor            -setfloor $U 3
op setfloor-zero       -setfloor bench04@anchor.local 0
op setceiling          -setceiling $U 5
op setceiling-minus1   -setceiling bench03@anchor.local -1
op setceiling-real     -setceiling bench03@anchor.local 2.7
op setaccum            -setaccum $U 7200
op setbegin            -setbegin $U 1700000000
op setlast             -setlast $U 1700003600
op resetusage          -resetusage $U
op setprio-newuser     -setprio newuser@anchor.local 10
op setfactor-newuser   -setfactor newuser2@anchor.local 2000
op setceiling-newuser  -setceiling newuser3@anchor.local 4
op setfloor-newuser    -setfloor newuser4@anchor.local 2
op resetusage-newuser  -resetusage newuser5@anchor.local
op setaccum-newuser    -setaccum newuser6@anchor.local 3600
op delete              -delete bench02@anchor.local
op delete-unknown      -delete nobody@anchor.local
op resetall            -resetall
# --- invalid input ---
op setfactor-half      -setfactor $U 0.5
op setfactor-zero      -setfactor $U 0
op setfactor-negative  -setfactor $U -5
op setfactor-text      -setfactor $U abc
op setfactor-trailing  -setfactor $U 12abc
op setprio-negative    -setprio $U -5
op setprio-text        -setprio $U abc
op setprio-no-at       -setprio bench01 5
op setprio-missing     -setprio $U
op setprio-unknown     -setprio unknown@anchor.local 5
op setfloor-negative   -setfloor $U -1
op setceiling-minus2   -setceiling $U -2
op setceiling-text     -setceiling $U abc
op setaccum-negative   -setaccum $U -1
op setbegin-negative   -setbegin $U -1
op setlast-negative    -setlast $U -1
op resetusage-missing  -resetusage
op resetusage-no-at    -resetusage bench01
op delete-no-at        -delete bench01
op delete-missing      -delete
op unknown-flag        -frobnicate
# --- display of a user filter / unknown user ---
op show-user           $U
op show-short-user     bench01
op show-unknown-user   -allusers nobody@anchor.local

cp "$LOG" "$OUT/final.log"
say "done; pool left running"
