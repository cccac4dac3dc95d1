#!/usr/bin/env bash
# generate.sh -- what HTCondor's condor_status (23.9.6, in the anchor chroot) prints for
# the pool sample (classad/tests/data/pool_sample.ads.gz) with -af and -constraint, the
# expectations of cli/tests/query.rs. condor_status sorts its output its own way, so the
# lines of af.txt and constraint.txt are stored sorted and the test compares them sorted;
# sort-N.txt, the output of condor_status with the arguments of sort-N.args (one per line,
# with -sort), keep condor_status's order. spell-N.txt is the output of condor_status with
# the arguments of spell-N.args (HTCondor's spellings: -af:FLAGS, -format, -limit, ...), and
# jobs-N.txt that of `condor_q -jobads jobs.ads` with the arguments of jobs-N.args
# (condor_q sorts by job ID; the test sorts by ClusterId).
#
# Usage (as root on the host):  cli/tests/data/query/generate.sh
# Environment: ANCHOR_ROOT, the chroot made by ../shared/anchor/setup-chroot.sh
# (default /tmp/anchor/trixie).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../../.." && pwd)
ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
gzip -dc "$REPO/classad/tests/data/pool_sample.ads.gz" >"$ROOT/tmp/pool_sample.ads"
status() {
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin CONDOR_CONFIG=/etc/condor/condor_config TZ=UTC \
		condor_status -ads /tmp/pool_sample.ads "$@"
}
# The attributes and expressions of af.txt; one per line in af.args.
mapfile -t ARGS <"$HERE/af.args"
status -af "${ARGS[@]}" | LC_ALL=C sort >"$HERE/af.txt"
status -constraint 'Memory > 50000 || (Cpus >= 8 && State == "Unclaimed")' -af Name Memory Cpus |
	LC_ALL=C sort >"$HERE/constraint.txt"
for args in "$HERE"/sort-*.args; do
	mapfile -t ARGS <"$args"
	status "${ARGS[@]}" >"${args%.args}.txt"
done
for args in "$HERE"/spell-*.args; do
	mapfile -t ARGS <"$args"
	status "${ARGS[@]}" >"${args%.args}.txt"
done
cp "$HERE/jobs.ads" "$ROOT/tmp/query-jobs.ads"
for args in "$HERE"/jobs-*.args; do
	mapfile -t ARGS <"$args"
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin CONDOR_CONFIG=/etc/condor/condor_config TZ=UTC \
		condor_q -jobads /tmp/query-jobs.ads "${ARGS[@]}" >"${args%.args}.txt"
done
rm -f "$ROOT/tmp/pool_sample.ads" "$ROOT/tmp/query-jobs.ads"
echo "af.txt: $(wc -l <"$HERE/af.txt") lines, constraint.txt: $(wc -l <"$HERE/constraint.txt") lines" >&2
