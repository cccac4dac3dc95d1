#!/bin/bash
# check_load.sh -- does the real HTCondor negotiator load this accountant log?
#
# Stops the anchor pool, puts LOGFILE in place of the negotiator's
# $(SPOOL)/Accountantnew.log (the pool's own log is saved next to it as
# Accountantnew.log.before-check and restored at the end), starts the pool (no startd, NEGOTIATOR_INTERVAL =
# 1000000, so only the one cycle the negotiator runs at start-up), and prints what
# the negotiator reports: `condor_userprio -allusers -l`, then `condor_userprio -allusers`.
# Exit status 1 when the negotiator does not come up or complains about the log.
#
# Needs: root; HTCondor 23.9 (Debian trixie's `condor`/`minicondor` package) in a
# chroot made by the anchor's setup-chroot.sh, and the anchor's pool.sh (see lib.sh
# for ANCHOR_ROOT / POOL_SH).
#
# Run:   sudo ./check_load.sh LOGFILE [OUTDIR]
# Environment:
#   CHECK_HALFLIFE=S  set PRIORITY_HALFLIFE = S for the check (e.g. 1e12 to make the
#                     decay between the log's LastUpdateTime and now negligible)
#   CHECK_KEEP=1      leave the pool running on LOGFILE afterwards (default: stop it and
#                     put the pool's own log back)
# OUTDIR (optional) receives: userprio-allusers-l.txt, userprio-allusers.txt,
# loaded.log (the log as the negotiator rewrote it when loading), negotiator-log.txt.
#
# What happens to the values on load: the negotiator ages every priority from the
# log's Accountant.LastUpdateTime to now (PRIORITY_HALFLIFE), and its first cycle
# drops Resource records for slots the collector does not know (none run here) and
# charges their usage up to now. Compare against values computed for the `LastUpdate`
# the output shows.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
[ $# -ge 1 ] || { sed -n '2,30p' "$0"; exit 2; }
SRC=$1; OUTD=${2:-}
[ -f "$SRC" ] || die "no such file: $SRC"
[ "$(id -u)" = 0 ] || die "must run as root"
[ -z "$OUTD" ] || mkdir -p "$OUTD"

"$POOL_SH" stop >/dev/null
LOG=$(acct_log)
[ ! -f "$LOG" ] || cp -p "$LOG" "$LOG.before-check"
install -m 600 "$SRC" "$LOG"
chroot "$ROOT" chown condor:condor "${LOG#"$ROOT"}"

restore_override=
if [ -n "${CHECK_HALFLIFE:-}" ]; then
	cp -p "$ROOT$OVERRIDE" "$ROOT$OVERRIDE.before-check" 2>/dev/null || : > "$ROOT$OVERRIDE.before-check"
	restore_override=1
	{ grep -v '^PRIORITY_HALFLIFE' "$ROOT$OVERRIDE.before-check" || true; echo "PRIORITY_HALFLIFE = $CHECK_HALFLIFE"; } > "$ROOT$OVERRIDE"
fi

nsz=$(stat -c %s "$NEGLOG" 2>/dev/null || echo 0)
nb=$(n_cycles)
status=0
if ! ANCHOR_STARTD=0 ANCHOR_NEGOTIATOR_INTERVAL=1000000 "$POOL_SH" start >/dev/null 2>&1; then
	echo "check_load: the pool did not come up" >&2; status=1
fi
# let the start-up cycle finish
for _ in $(seq 1 150); do [ "$(n_cycles)" -gt "$nb" ] && break; sleep 0.2; done
[ "$(n_cycles)" -gt "$nb" ] || { echo "check_load: the negotiator ran no cycle" >&2; status=1; }

neglog=$(tail -c +$((nsz + 1)) "$NEGLOG" 2>/dev/null || true)
issues=$(printf '%s\n' "$neglog" |
	grep -E 'ClassAdLog .*issues|Accountant log|corrupt|EXCEPT|ERROR in|questionable user|FIXING' |
	grep -v 'questionable user <none>$' || true)
if [ -n "$issues" ]; then
	echo "check_load: the negotiator reported:" >&2
	printf '%s\n' "$issues" | head -n 12 >&2
	n=$(printf '%s\n' "$issues" | wc -l)
	[ "$n" -le 12 ] || echo "[... $((n - 12)) more lines like these]" >&2
	status=1
fi
echo "=== condor_userprio -allusers -l"
inchroot condor_userprio -allusers -l | tee ${OUTD:+"$OUTD/userprio-allusers-l.txt"} || status=1
echo "=== condor_userprio -allusers"
inchroot condor_userprio -allusers | tee ${OUTD:+"$OUTD/userprio-allusers.txt"} || status=1
if [ -n "$OUTD" ]; then
	cp "$LOG" "$OUTD/loaded.log"
	printf '%s\n' "$neglog" > "$OUTD/negotiator-log.txt"
fi

if [ "${CHECK_KEEP:-0}" != 1 ]; then
	"$POOL_SH" stop >/dev/null
	# give the pool its own log back
	if [ -f "$LOG.before-check" ]; then mv "$LOG.before-check" "$LOG"; else rm -f "$LOG"; fi
fi
if [ -n "$restore_override" ]; then mv "$ROOT$OVERRIDE.before-check" "$ROOT$OVERRIDE"; fi
exit $status
