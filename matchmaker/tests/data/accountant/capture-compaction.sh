#!/bin/bash
# capture-compaction.sh -- record how a real HTCondor negotiator rewrites (compacts)
# its accountant log: once when it loads a log that holds transactions, and again
# whenever the log grows past MAX_ACCOUNTANT_DATABASE_SIZE (set to 2000 bytes here).
#
# Needs: root; HTCondor 23.9 (Debian trixie's `condor`/`minicondor` package) in a
# chroot made by the anchor's setup-chroot.sh, and the anchor's pool.sh (see lib.sh
# for ANCHOR_ROOT / POOL_SH). Run it after capture-usage.sh / capture-admin.sh: it
# uses the accountant log the pool already has (keeps the pool's state).
#
# Run:   sudo ./capture-compaction.sh [OUTDIR]   (OUTDIR default: ./compaction next to this script)
#
# A hard link to the log keeps the old file (inode) when the negotiator renames the
# rewritten log over it, so "before" files are the exact bytes the negotiator had
# written when it compacted, and "after" files are the new log right after.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
OUT=${1:-$HERE/compaction}
[ "$(id -u)" = 0 ] || die "must run as root"
rm -rf "$OUT"; mkdir -p "$OUT"

"$POOL_SH" stop >/dev/null
LOG=$(acct_log)
LINK=$(dirname "$LOG")/.acct-oracle-link
ino() { stat -c %i "$LOG" 2>/dev/null || echo 0; }

# wait_rewrite INODE TIMEOUT: wait until the log is a new file; copy old and new
wait_rewrite() {
	local old=$1 lim=$2 t=0
	while [ "$(ino)" = "$old" ]; do
		sleep 0.05; t=$((t + 1)); [ $t -lt $((lim * 20)) ] || die "log not rewritten within $lim s"
	done
	cp "$LOG" "$3.after"
	cp "$LINK" "$3.before"
}

# --- 1. compaction at load (the log holds transactions, so it is not "clean") ---
grep -v '^MAX_ACCOUNTANT_DATABASE_SIZE' "$ROOT$OVERRIDE" > "$ROOT$OVERRIDE.tmp" || true
mv "$ROOT$OVERRIDE.tmp" "$ROOT$OVERRIDE"
rm -f "$LINK"; ln "$LOG" "$LINK"; i0=$(ino)
ANCHOR_STARTD=0 ANCHOR_NEGOTIATOR_INTERVAL=1000000 "$POOL_SH" start >/dev/null &
wait_rewrite "$i0" 60 "$OUT/load"
wait
mv "$OUT/load.before" "$OUT/load-before.log"; mv "$OUT/load.after" "$OUT/load-after.log"
sleep 3; cp "$LOG" "$OUT/load-after-first-cycle.log"
say "load compaction: $(stat -c %s "$OUT/load-before.log") -> $(stat -c %s "$OUT/load-after.log") bytes"
"$POOL_SH" stop >/dev/null

# --- 2. compaction by size: MAX_ACCOUNTANT_DATABASE_SIZE = 2000, a cycle every 5 s ---
echo 'MAX_ACCOUNTANT_DATABASE_SIZE = 2000' >> "$ROOT$OVERRIDE"
dump_knobs > "$OUT/knobs.txt" || true
rm -f "$LINK"; ln "$LOG" "$LINK"; i0=$(ino)
nb=$(grep -c 'truncating database' "$NEGLOG" || true)
ANCHOR_STARTD=0 ANCHOR_NEGOTIATOR_INTERVAL=5 "$POOL_SH" start >/dev/null &
# at start-up: the load rewrite, then (size > 2000) a second rewrite in the first update
wait_rewrite "$i0" 60 "$OUT/start"
wait
sleep 3
cp "$LOG" "$OUT/start-settled.log"
n=1
while [ $n -le 2 ]; do
	rm -f "$LINK"; ln "$LOG" "$LINK"; i0=$(ino)
	wait_rewrite "$i0" 300 "$OUT/size-$n"
	mv "$OUT/size-$n.before" "$OUT/size-$n-before.log"; mv "$OUT/size-$n.after" "$OUT/size-$n-after.log"
	say "size compaction $n: $(stat -c %s "$OUT/size-$n-before.log") -> $(stat -c %s "$OUT/size-$n-after.log") bytes"
	n=$((n + 1))
done
rm -f "$LINK" "$OUT/start.before" "$OUT/start.after"
grep -E 'truncating database|Database has grown|MAX_ACCOUNTANT_DATABASE_SIZE|ClassAdLog .* issues' "$NEGLOG" | tail -n +$((nb + 1)) > "$OUT/negotiator-log.txt" || true
"$POOL_SH" stop >/dev/null
# back to the default size
grep -v '^MAX_ACCOUNTANT_DATABASE_SIZE' "$ROOT$OVERRIDE" > "$ROOT$OVERRIDE.tmp" || true
mv "$ROOT$OVERRIDE.tmp" "$ROOT$OVERRIDE"
say "done; pool stopped"
