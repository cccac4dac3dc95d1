#!/usr/bin/env bash
# batch-match.sh -- libclassad (HTCondor 23.9.6, in the anchor chroot) matching jobs
# against machines pair by pair (batch-match.cpp), on exactly the ads of classad-rs's
# batch benchmarks (benches/benches/matching.rs), written by the `bench-ads` binary:
#   pool_sample     the four test jobs x the pool sample's 143 Machine ads (refreshed)
#   anchor_M        the anchor's job 0 x its synthetic machines 0..M
#   anchor_SLOTS    the same with SLOTS machines
# One JSON line per input on standard output (ns per pair, matches, rank sum).
#
# Usage (as root on the host):  benches/anchor/batch-match.sh [M=20000] [SLOTS=100000] [REPS=7]
# Environment: ANCHOR_ROOT, the chroot made by ../shared/anchor/setup-chroot.sh
# (default /tmp/anchor/trixie).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
M=${1:-20000}
SLOTS=${2:-100000}
REPS=${3:-7}
[ "$(id -u)" = 0 ] || { echo "batch-match.sh: must run as root (chroot)" >&2; exit 1; }
inchroot() {
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 "$@"
}
BUILD=$ROOT/opt/anchor/build
mkdir -p "$BUILD"
if ! cmp -s "$HERE/batch-match.cpp" "$BUILD/batch-match.cpp" ||
	[ ! -x "$ROOT/usr/local/bin/anchor-batch-match" ]; then
	cp "$HERE/batch-match.cpp" "$BUILD/batch-match.cpp"
	inchroot g++ -O2 -std=c++17 -o /usr/local/bin/anchor-batch-match /opt/anchor/build/batch-match.cpp -lclassad
fi
(cd "$REPO" && cargo build --quiet --release --locked -p classad-benches --bin bench-ads)
ADS=${CARGO_TARGET_DIR:-$REPO/target}/release/bench-ads
"$ADS" pool-jobs >"$BUILD/pool-jobs.ad"
"$ADS" pool-machines >"$BUILD/pool-machines.ad"
"$ADS" anchor-job >"$BUILD/anchor-job.ad"
"$ADS" anchor-machines "$M" >"$BUILD/anchor-machines-$M.ad"
"$ADS" anchor-machines "$SLOTS" >"$BUILD/anchor-machines-$SLOTS.ad"
inchroot anchor-batch-match pool_sample /opt/anchor/build/pool-jobs.ad /opt/anchor/build/pool-machines.ad "$REPS"
inchroot anchor-batch-match "anchor_$M" /opt/anchor/build/anchor-job.ad "/opt/anchor/build/anchor-machines-$M.ad" "$REPS"
inchroot anchor-batch-match "anchor_$SLOTS" /opt/anchor/build/anchor-job.ad \
	"/opt/anchor/build/anchor-machines-$SLOTS.ad" "$REPS"
