#!/bin/bash
# Regenerates the oracle data of negotiator-sim/tests/synthetic.rs from the
# anchor's benchmark script and HTCondor 23.9.6's condor_submit.
#
# Usage (as root): ANCHOR_DIR=<dir holding negotiation-bench.sh> \
#                  ANCHOR_ROOT=<Debian chroot with HTCondor 23.9.6> ./regen.sh
#
# * full-1000-2.ad.gz: the slot ads the script's generator (gen.py, taken from
#   negotiation-bench.sh) writes for 1000 slots, 2 users, full attributes, with
#   the clock fixed so that its base time is 1795592353.
# * dryrun-60-3-40.ad: `condor_submit -dry-run` of the submit files the
#   generator writes for 60 jobs, 3 users, 40 job classes (run as each user,
#   in the chroot); the dry-run's lines are turned into old-format ads (one
#   cluster ad per user, then one small ad per further proc).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${ANCHOR_DIR:?set ANCHOR_DIR to the directory of negotiation-bench.sh}"
ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
BASE=1795592353
WORK=$(mktemp -d "$ROOT/tmp/synthetic-regen.XXXXXX")
WORK_IN=${WORK#"$ROOT"}
trap 'rm -rf "$WORK"' EXIT
# the first embedded Python program of the script (the generator)
awk '/<<.PYEOF.$/ && !n { on = 1; n = 1; next } /^PYEOF$/ { on = 0 } on' \
	"$ANCHOR_DIR/negotiation-bench.sh" > "$WORK/gen.py"
run_gen() { # SLOTS JOBS USERS ACS MODE OUTDIR
	python3 -c "import sys, time; time.time = lambda: $BASE + 3600; sys.argv = ['gen.py'] + sys.argv[1:]; exec(open('$WORK/gen.py').read())" \
		"$@" anchor.local > /dev/null
}
mkdir -p "$WORK/full" "$WORK/sub"
run_gen 1000 1 2 2 full "$WORK/full"
gzip -9n < "$WORK/full/slots.ad" > "$HERE/full-1000-2.ad.gz"

run_gen 8 60 3 40 lean "$WORK/sub"
chmod -R a+rX "$WORK"
: > "$HERE/dryrun-60-3-40.ad"
for u in bench01 bench02 bench03; do
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC \
		runuser -u "$u" -- condor_submit -dry-run - "$WORK_IN/sub/$u.sub" |
		awk -v u="$u" '
			/^Dry-Run/ || /job\(s\) dry-run/ { next }
			/^\.$/ { print ""; next }
			{ i = index($0, "="); print substr($0, 1, i - 1) " = " substr($0, i + 1) }
			/^ClusterId=/ { print "AnchorUser = \"" u "\"" }' >> "$HERE/dryrun-60-3-40.ad"
done
echo "wrote $HERE/full-1000-2.ad.gz and $HERE/dryrun-60-3-40.ad"
