#!/bin/bash
# capture.sh -- capture one HTCondor negotiation-cycle snapshot as oracle data.
# Needs: HTCondor 23.9 (Debian's `condor`/`minicondor` package) in a Debian trixie chroot
# made by the anchor's setup-chroot.sh, its pool started with pool.sh, and the anchor's
# negotiation-bench.sh.  Run as root.
# Usage: capture.sh N_SLOTS N_JOBS N_USERS N_AUTOCLUSTERS
# Settable: ANCHOR_ROOT (chroot), ANCHOR_DIR (directory holding negotiation-bench.sh),
#           OUT (output directory, default: snap-SLOTS-JOBS-USERS-ACS next to this script),
#           CAPTURE_DEBUG (NEGOTIATOR_DEBUG during the cycle, default
#             "D_FULLDEBUG D_MATCH D_SUB_SECOND"; "pool" keeps the pool's own D_MATCH D_SUB_SECOND,
#             which is how snap-200-200-3-6 and snap-1000-1000-4-8 were taken),
#           CAPTURE_LITE=1 (keep only result.json, matches.tsv.gz, summary.txt, config.dump and
#             the submit files: for pools whose ads and log are too big for the repository),
#           CAPTURE_NO_CLEAN=1 (leave the slots, jobs and accountant records in the pool).
set -eu
S=$1 J=$2 U=$3 A=$4
ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
ADIR=${ANCHOR_DIR:?set ANCHOR_DIR to the anchor scripts directory}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/snap-$S-$J-$U-$A}
DEBUG=${CAPTURE_DEBUG:-D_FULLDEBUG D_MATCH D_SUB_SECOND}
LOCALCONF=$ROOT/etc/condor/condor_config.local
mkdir -p "$OUT"
C() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC "$@"; }

# The bench writes its own override file (NEGOTIATOR_INTERVAL) and restarts the negotiator;
# the debug level goes into the pool's local config (rewritten by pool.sh at every start),
# after everything else, so the bench's restart picks it up.  Removed again at the end.
undebug() { sed -i '/^## capture.sh begin/,/^## capture.sh end/d' "$LOCALCONF"; }
undebug
if [ "$DEBUG" != pool ]; then
	printf '## capture.sh begin\nNEGOTIATOR_DEBUG = %s\nMAX_NEGOTIATOR_LOG = 2000000000\n## capture.sh end\n' \
		"$DEBUG" >> "$LOCALCONF"
fi
ANCHOR_ROOT=$ROOT ANCHOR_KEEP=1 ANCHOR_NO_CLEAN=1 ANCHOR_SLOT_ATTRS=lean \
  "$ADIR/negotiation-bench.sh" "$S" "$J" "$U" "$A" > "$OUT/bench.out"
tail -1 "$OUT/bench.out" > "$OUT/result.json"; rm "$OUT/bench.out"
RUN=$(ls -td "$ROOT"/tmp/anchor-bench/run-$S-$J-$U-$A-lean* | head -1)
# the bench's excerpt runs from before the slot injection to when it read the log; keep it
# up to the end of the measured cycle
awk '{print} /Finished Negotiation Cycle/ {exit}' "$RUN/cycle.log" > "$OUT/cycle.log"
for f in "$RUN"/*.sub; do [ -e "$f" ] && cp "$f" "$OUT/"; done
if [ -z "${CAPTURE_LITE:-}" ]; then
	cp "$RUN/slots.ad" "$OUT/slots.ad"
	[ "$(stat -c %s "$OUT/slots.ad")" -gt 1000000 ] && gzip -f9n "$OUT/slots.ad"
	C condor_q -allusers -constraint 'AnchorBench =?= true' -l | gzip -9n > "$OUT/jobs.ad.gz"
fi
# the bench restarts the negotiator on exit: wait until it answers again
for i in $(seq 1 60); do C condor_userprio -allusers -l > "$OUT/userprio.ad" 2>/dev/null && [ -s "$OUT/userprio.ad" ] && break; sleep 1; done
C condor_config_val -dump > "$OUT/config.dump"
C condor_config_val -negotiator -dump > "$OUT/config-negotiator.dump" 2>&1 || true
cmp -s "$OUT/config.dump" "$OUT/config-negotiator.dump" && rm "$OUT/config-negotiator.dump"
C condor_status -submitters -l > "$OUT/submitters.ad"
python3 "$HERE/extract.py" "$OUT"
[ "$(stat -c %s "$OUT/cycle.log")" -gt 100000 ] && gzip -f9n "$OUT/cycle.log"
[ "$(stat -c %s "$OUT/matches.tsv")" -gt 100000 ] && gzip -f9n "$OUT/matches.tsv"
if [ -n "${CAPTURE_LITE:-}" ]; then
	rm -f "$OUT"/cycle.log* "$OUT/userprio.ad" "$OUT/submitters.ad" "$OUT/config-negotiator.dump" "$OUT/preemptions.tsv"
	[ -f "$OUT/matches.tsv" ] && gzip -f9n "$OUT/matches.tsv"
fi
undebug
if [ -z "${CAPTURE_NO_CLEAN:-}" ]; then
	printf 'MyType = "Query"\nTargetType = "Machine"\nRequirements = AnchorSynthetic =?= true\n' > "$RUN/invalidate.ad"
	C condor_advertise INVALIDATE_STARTD_ADS "${RUN#"$ROOT"}/invalidate.ad" >/dev/null 2>&1 || true
	C condor_rm -constraint 'AnchorBench =?= true' >/dev/null 2>&1 || true
	for i in $(seq 1 300); do
		[ "$(C condor_q -allusers -constraint 'AnchorBench =?= true' -af ClusterId 2>/dev/null | wc -l)" = 0 ] && break; sleep 1
	done
fi
C condor_restart -negotiator >/dev/null 2>&1 || true
if [ -z "${CAPTURE_NO_CLEAN:-}" ]; then
	# delete the bench users' accountant records once the restarted negotiator has run its
	# first cycle (that cycle drops the match records and would re-create them)
	sleep 5
	for u in $(C condor_userprio -allusers -l 2>/dev/null | sed -n 's/^Name[0-9]* = "\(bench[0-9]*@[^"]*\)"$/\1/p'); do
		C condor_userprio -delete "$u" >/dev/null 2>&1 || true
	done
fi
