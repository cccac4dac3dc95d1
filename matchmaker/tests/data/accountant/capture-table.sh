#!/bin/bash
# capture-table.sh -- the `condor_userprio` table corpus: the real tool's output for
# fixed inputs, so a table printer can be compared without running a pool.
#
# `condor_userprio -inputfile FILE` prints the table from a saved userprio ad (the
# format `condor_userprio -allusers -l` prints). For every table/inputs/*.ad and every
# flag set below this writes table/out/<input>/<flags>.txt (stdout then stderr) and
# <flags>.rc. Only thresholds that do not depend on the clock are used (-allusers and
# -activefrom 11 24 2026), so the outputs are fixed; the tool runs with TZ=UTC.
#
# Needs: root; HTCondor 23.9 (Debian trixie's `condor`/`minicondor` package) in a chroot
# made by the anchor's setup-chroot.sh, and a running anchor pool (`pool.sh start`;
# condor_userprio locates the negotiator before it reads the file). See lib.sh for
# ANCHOR_ROOT / POOL_SH. The inputs: make_table_inputs.py writes the synthetic ones;
# the real-*.ad ones are `-allusers -l` outputs copied from usage/, admin/ and groups/.
#
# Run:   sudo ./capture-table.sh [TABLEDIR]     (TABLEDIR default: ./table next to this script)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
T=${1:-$HERE/table}
[ "$(id -u)" = 0 ] || die "must run as root"
inchroot condor_status -negotiator -af Name >/dev/null 2>&1 || die "the pool is not running"

FLAGSETS=(
	"-allusers"
	"-allusers -all"
	"-allusers -usage"
	"-allusers -priority"
	"-allusers -most"
	"-allusers -quotas"
	"-allusers -flat"
	"-allusers -hierarchical"
	"-allusers -grouporder"
	"-allusers -all -flat"
	"-activefrom 11 24 2026"
	"-activefrom 11 24 2026 -all"
	"-allusers -l"
	"-allusers -l -modular"
)
work=/tmp/acct-oracle-table      # inside the chroot
mkdir -p "$ROOT$work"
rm -rf "$T/out"
for f in "$T"/inputs/*.ad; do
	name=$(basename "$f" .ad)
	mkdir -p "$T/out/$name"
	cp "$f" "$ROOT$work/in.ad"; chmod 644 "$ROOT$work/in.ad"
	for flags in "${FLAGSETS[@]}"; do
		fname=$(echo "$flags" | sed 's/^-//; s/ -/_/g; s/ /_/g')
		rc=0
		# shellcheck disable=SC2086
		inchroot condor_userprio -inputfile "$work/in.ad" $flags > "$T/out/$name/$fname.txt" 2>&1 || rc=$?
		echo "$rc" > "$T/out/$name/$fname.rc"
	done
	say "$name done"
done
rm -rf "${ROOT:?}$work"
