#!/bin/bash
# capture.sh -- capture one HTCondor negotiation-cycle snapshot as oracle data.
# Needs: HTCondor 23.9 (Debian's `condor`/`minicondor` package) in a Debian trixie chroot
# made by the anchor's setup-chroot.sh, its pool started with pool.sh, and the anchor's
# negotiation-bench.sh.  Run as root.
# Usage: capture.sh N_SLOTS N_JOBS N_USERS N_AUTOCLUSTERS
# Settable: ANCHOR_ROOT (chroot), ANCHOR_DIR (directory holding negotiation-bench.sh),
#           OUT (output directory, default: snap-SLOTS-JOBS-USERS-ACS next to this script).
set -eu
S=$1 J=$2 U=$3 A=$4
ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
ADIR=${ANCHOR_DIR:?set ANCHOR_DIR to the anchor scripts directory}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/snap-$S-$J-$U-$A}
mkdir -p "$OUT"
C() { chroot "$ROOT" "$@"; }
ANCHOR_ROOT=$ROOT ANCHOR_KEEP=1 ANCHOR_NO_CLEAN=1 ANCHOR_SLOT_ATTRS=lean \
  "$ADIR/negotiation-bench.sh" "$S" "$J" "$U" "$A" > "$OUT/bench.out"
tail -1 "$OUT/bench.out" > "$OUT/result.json"; rm "$OUT/bench.out"
RUN=$(ls -td "$ROOT"/tmp/anchor-bench/run-$S-$J-$U-$A-lean* | head -1)
cp "$RUN/slots.ad" "$OUT/slots.ad"
[ "$(stat -c %s "$OUT/slots.ad")" -gt 1000000 ] && gzip -f9n "$OUT/slots.ad"
cp "$RUN"/cycle.log "$OUT/cycle.log" 2>/dev/null || true
for f in "$RUN"/*.sub; do [ -e "$f" ] && cp "$f" "$OUT/"; done
C condor_q -allusers -constraint 'AnchorBench =?= true' -l | gzip -9n > "$OUT/jobs.ad.gz"
# the bench restarts the negotiator on exit: wait until it answers again
for i in $(seq 1 60); do C condor_userprio -allusers -l > "$OUT/userprio.ad" 2>/dev/null && [ -s "$OUT/userprio.ad" ] && break; sleep 1; done
C condor_config_val -dump > "$OUT/config.dump"
C condor_config_val -negotiator -dump > "$OUT/config-negotiator.dump" 2>&1 || true
cmp -s "$OUT/config.dump" "$OUT/config-negotiator.dump" && rm "$OUT/config-negotiator.dump"
C condor_status -submitters -l > "$OUT/submitters.ad"
python3 "$HERE/extract.py" "$OUT"
