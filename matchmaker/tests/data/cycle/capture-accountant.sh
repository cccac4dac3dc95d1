#!/bin/bash
# capture-accountant.sh -- the accountant over several negotiation cycles: claimed slots give
# users usage, PRIORITY_HALFLIFE = 60 s and NEGOTIATOR_INTERVAL = 10 s make the priorities
# move visibly; `condor_userprio -allusers -l` is stored after every cycle.
# Pool (gen-accountant.py): 16 static 1-cpu slots + 2 static 4-cpu slots; bench03 runs on 12
# 1-cpu slots (weighted 12), bench04 (priority factor 2000) on the two 4-cpu slots
# (weighted 8), 4 slots unclaimed; no idle jobs.  After cycle 4 bench04's slots are
# invalidated (its jobs "ended"), so its priority decays from cycle 5 on.
# Run as root with ANCHOR_DIR (anchor scripts) and optionally ANCHOR_ROOT (chroot) set;
# OUT selects the output directory (default snap-accountant next to this script).
set -eEuo pipefail
trap 'echo "capture-accountant.sh: failed at line $LINENO" >&2' ERR
ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
ADIR=${ANCHOR_DIR:?set ANCHOR_DIR to the anchor scripts directory}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/snap-accountant}
NCYCLES=${CAPTURE_CYCLES:-8}
WORK_IN=/tmp/anchor-capture/accountant
WORK=$ROOT$WORK_IN
NEGLOG=$ROOT/var/lib/condor-anchor/log/NegotiatorLog
OVERRIDE=$ROOT/etc/condor/anchor-override.config
C() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC "$@"; }
negattr() { C condor_status -negotiator -af "$1" 2>/dev/null | head -1 || true; }
log() { echo "[capture $(date +%T)] $*" >&2; }
names() { C condor_userprio -allusers -l 2>/dev/null | sed -n 's/^Name[0-9]* = "\(\(group_[^"]*\)\{0,1\}bench[0-9]*@[^"]*\|group_[^"@]*\)"$/\1/p' || true; }
invalidate() { # constraint
	printf 'MyType = "Query"\nTargetType = "Machine"\nRequirements = %s\n' "$1" > "$WORK/invalidate.ad"
	C condor_advertise INVALIDATE_STARTD_ADS "$WORK_IN/invalidate.ad" >/dev/null 2>&1 || true
}
restart_negotiator() {
	local old st end i
	old=$(negattr DaemonStartTime)
	C condor_restart -negotiator >/dev/null
	for i in $(seq 1 120); do
		st=$(negattr DaemonStartTime); end=$(negattr LastNegotiationCycleEnd0)
		if [ -n "$st" ] && [ "$st" != "$old" ] && [ -n "$end" ] && [ "$end" -ge "$st" ]; then return 0; fi
		sleep 0.5
	done
}
wait_cycle() { # wait until LastNegotiationCycleTime0 differs from $1
	local i cur
	for i in $(seq 1 240); do
		cur=$(negattr LastNegotiationCycleTime0)
		[ -n "$cur" ] && [ "$cur" != "$1" ] && { echo "$cur"; return 0; }
		sleep 0.25
	done
	return 1
}
cleanup() {
	invalidate 'AnchorSynthetic =?= true'
	local u; for u in $(names); do C condor_userprio -delete "$u" >/dev/null 2>&1 || true; done
}
restore() {
	local rc=$?
	trap - EXIT INT TERM
	cleanup
	rm -f "$OVERRIDE"
	restart_negotiator
	local u; for u in $(names); do C condor_userprio -delete "$u" >/dev/null 2>&1 || true; done
	exit $rc
}

"$ADIR/pool.sh" status 2>/dev/null | grep -q "condor_master pid .* running" || "$ADIR/pool.sh" start >&2
rm -rf "$WORK"; mkdir -p "$WORK" "$OUT"; chmod 755 "$ROOT/tmp/anchor-capture" "$WORK"
python3 "$HERE/gen-accountant.py" "$WORK"
chmod -R a+rX "$WORK"
log "cleaning leftovers"
cleanup
trap restore EXIT
trap 'exit 130' INT TERM
# quiesce first, so the claimed slots appear to the accountant in a cycle we log
printf '## written by capture-accountant.sh; removed when it exits\nNEGOTIATOR_INTERVAL = 1000000\n' > "$OVERRIDE"
restart_negotiator
for u in $(names); do C condor_userprio -delete "$u" >/dev/null 2>&1 || true; done
C condor_advertise -multiple UPDATE_STARTD_AD "$WORK_IN/slots.ad" >&2
n_slots=$(grep -c '^MyType = "Machine"' "$WORK/slots.ad")
for i in $(seq 1 120); do
	[ "$(C condor_status -const 'AnchorSynthetic =?= true' -af Name 2>/dev/null | wc -l)" -ge "$n_slots" ] && break; sleep 0.5
done
C condor_userprio -setfactor bench04@anchor.local 2000 >/dev/null
{
	echo "## written by capture-accountant.sh; removed when it exits"
	echo "NEGOTIATOR_INTERVAL = 10"
	echo "NEGOTIATOR_CYCLE_DELAY = 1"
	echo "NEGOTIATOR_DEBUG = D_FULLDEBUG D_MATCH D_ACCOUNTANT D_SUB_SECOND"
	echo "MAX_NEGOTIATOR_LOG = 2000000000"
	cat "$WORK/negotiator.config"
} > "$OVERRIDE"
cp "$WORK/negotiator.config" "$WORK/slots.ad" "$OUT/"
LOGOFF0=$(stat -c %s "$NEGLOG")
log "restarting the negotiator with a 10 s interval, half-life 60 s"
C condor_restart -negotiator >/dev/null
prev=$(negattr LastNegotiationCycleTime0)
: > "$WORK/cycle-times"
for c in $(seq 1 "$NCYCLES"); do
	prev=$(wait_cycle "$prev")
	C condor_userprio -allusers -l > "$OUT/userprio-cycle$c.ad"
	echo "$prev" >> "$WORK/cycle-times"
	log "cycle $c at $prev"
	if [ "$c" = 4 ]; then
		invalidate 'AnchorSynthetic =?= true && RemoteUser =?= "bench04@anchor.local"'
		log "invalidated bench04's slots"
	fi
done
tail -c +$((LOGOFF0 + 1)) "$NEGLOG" > "$WORK/neglog.tail"
# up to the last finished cycle (the next one is still ~10 s away)
last=$(grep -n 'Finished Negotiation Cycle' "$WORK/neglog.tail" | tail -1 | cut -d: -f1)
head -n "$last" "$WORK/neglog.tail" > "$OUT/cycles.log"
python3 - "$OUT" "$NCYCLES" "$WORK/cycle-times" <<'PYEOF'
import sys
out, n = sys.argv[1], int(sys.argv[2])
times = open(sys.argv[3]).read().split()
cols = ["Priority", "PriorityFactor", "ResourcesUsed", "WeightedResourcesUsed",
        "AccumulatedUsage", "WeightedAccumulatedUsage", "BeginUsageTime", "LastUsageTime"]
with open(f"{out}/timeline.tsv", "w") as f:
    f.write("cycle\tLastNegotiationCycleTime0\tLastUpdate\tName\t" + "\t".join(cols) + "\n")
    for c in range(1, n + 1):
        ad = {}
        for line in open(f"{out}/userprio-cycle{c}.ad"):
            k, _, v = line.strip().partition(" = ")
            ad[k] = v.strip('"')
        i = 1
        while f"Name{i}" in ad:
            if ad[f"Name{i}"].startswith("bench"):
                f.write(f"{c}\t{times[c - 1]}\t{ad.get('LastUpdate')}\t{ad[f'Name{i}']}\t" +
                        "\t".join(ad.get(f"{k}{i}", "") for k in cols) + "\n")
            i += 1
PYEOF
[ "$(stat -c %s "$OUT/cycles.log")" -gt 100000 ] && gzip -f9n "$OUT/cycles.log"
log "done"
