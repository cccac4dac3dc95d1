#!/bin/bash
# negotiator-speed.sh -- one negotiation cycle on the same synthetic pool by
# HTCondor's condor_negotiator and then by classad-negotiator, in the same
# HTCondor 23.9.6 pool (real collector, real schedd, the same slot ads and
# jobs), and the ratio of their cycle times.
#
# The pool and the measurement are the project's anchor scripts' (pool.sh
# and negotiation-bench.sh, which capture.sh in matchmaker/tests/data/cycle
# uses too): fake static slots advertised with condor_advertise
# (WantClaiming = false, so matches go to the schedd with the claim id
# "null" and nothing runs), idle jobs of N_USERS users submitted with
# condor_submit, priority factors that fix the submitters' order, and one
# cycle started with condor_reschedule. The cycle's length is the bench's
# anchor_log_cycle_s: from "Started Negotiation Cycle" to "Finished
# Negotiation Cycle" in each negotiator's own log (D_SUB_SECOND time
# stamps); for both it includes fetching the ads from the collector and
# talking to the schedd.
#
# Usage (as root on the host, from the repository):
#   ANCHOR_DIR=/path/to/anchor daemons/tests/chroot/negotiator-speed.sh N_SLOTS N_JOBS N_USERS N_AUTOCLUSTERS
# Environment:
#   ANCHOR_DIR              the directory of pool.sh and negotiation-bench.sh
#   ANCHOR_ROOT=/work/chroot  the chroot with HTCondor 23.9.6
#   OUT=target/negotiator-speed  where the two JSON lines and the logs go
set -euo pipefail
[ $# = 4 ] || { echo "usage: $0 N_SLOTS N_JOBS N_USERS N_AUTOCLUSTERS" >&2; exit 2; }
S=$1 J=$2 U=$3 A=$4
ADIR=${ANCHOR_DIR:?set ANCHOR_DIR to the directory of the anchor scripts}
ROOT=${ANCHOR_ROOT:-/work/chroot}
export ANCHOR_ROOT=$ROOT
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${OUT:-$REPO/target/negotiator-speed}
LOCALCONF=$ROOT/etc/condor/condor_config.local
NEGLOG=$ROOT/var/lib/condor-anchor/log/NegotiatorLog
MATCHLOG=$ROOT/var/lib/condor-anchor/log/MatchLog
mkdir -p "$OUT"
[ "$(id -u)" = 0 ] || { echo "must run as root (chroot)" >&2; exit 1; }
inchroot() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC "$@"; }
say() { echo "[negotiator-speed] $*" >&2; }

say "building classad-negotiator (release)"
(cd "$REPO" && cargo build -q --release --locked -p daemons --bin classad-negotiator)
install -m 755 "${CARGO_TARGET_DIR:-$REPO/target}/release/classad-negotiator" "$ROOT/usr/local/bin/classad-negotiator"

unours() { sed -i '/^## negotiator-speed.sh begin/,/^## negotiator-speed.sh end/d' "$LOCALCONF"; }
# While the script runs, the MatchLog is not rotated (a 50,000-slot cycle
# writes more than its 10 MB): each run's lines are what it appended.
keeplog() { printf '## negotiator-speed.sh matchlog begin\nMAX_NEGOTIATOR_MATCH_LOG = 2000000000\n## negotiator-speed.sh matchlog end\n' >> "$LOCALCONF"; }
unkeeplog() { sed -i '/^## negotiator-speed.sh matchlog begin/,/^## negotiator-speed.sh matchlog end/d' "$LOCALCONF"; }
# A reconfig alone leaves the running negotiator's binary: restart it too.
reconfig() {
	inchroot condor_reconfig > /dev/null 2>&1 || true
	sleep 2
	inchroot condor_restart -negotiator > /dev/null 2>&1 || true
	sleep 2
}
cleanup() { unours; unkeeplog; reconfig; }
trap cleanup EXIT

# (pool.sh status exits non-zero when the pool is down.)
case $("$ADIR/pool.sh" status 2>&1 || true) in *"master not running"*) "$ADIR/pool.sh" start >&2 ;; esac
unours
unkeeplog
keeplog
reconfig

run() { # NAME
	say "$1: negotiation-bench.sh $S $S $U $A"
	local before
	before=$(stat -c %s "$MATCHLOG" 2> /dev/null || echo 0)
	"$ADIR/negotiation-bench.sh" "$S" "$J" "$U" "$A" | tail -1 > "$OUT/$1.json"
	cp "$NEGLOG" "$OUT/$1.NegotiatorLog"
	# The cycle's Matched and Rejected lines (the bench ran one cycle with jobs).
	tail -c +"$((before + 1))" "$MATCHLOG" > "$OUT/$1.MatchLog"
}

# Per submitter: matches and rejections in a MatchLog's lines.
per_submitter() { # FILE
	awk '$3 == "Matched" { m[$5]++ } $3 == "Rejected" { r[$5]++ }
		END { for (u in m) s[u] = 1; for (u in r) s[u] = 1; for (u in s) printf "%s %d %d\n", u, m[u], r[u] }' "$1" | sort
}

# After a change of NEGOTIATOR the master brings the other binary up after
# its restart back-off (up to two minutes); the bench wants a running
# negotiator to restart.
wait_for() { # PATTERN (of CondorVersion: classad-rs, or PackageID for HTCondor's own)
	say "waiting for the negotiator ($1) to advertise itself"
	for _ in $(seq 1 240); do
		inchroot condor_status -negotiator -af CondorVersion 2> /dev/null | grep -q "$1" && return 0
		sleep 1
	done
	say "no negotiator matching $1 came up"; exit 1
}

wait_for "PackageID: 23"
run condor_negotiator

printf '## negotiator-speed.sh begin\nNEGOTIATOR = /usr/local/bin/classad-negotiator\n## negotiator-speed.sh end\n' >> "$LOCALCONF"
reconfig
wait_for classad-rs
run classad-negotiator

field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2"; }
real_m=$(field "$OUT/condor_negotiator.json" LastNegotiationCycleMatches0)
ours_m=$(field "$OUT/classad-negotiator.json" LastNegotiationCycleMatches0)
real_s=$(field "$OUT/condor_negotiator.json" anchor_log_cycle_s)
ours_s=$(field "$OUT/classad-negotiator.json" anchor_log_cycle_s)
ours_phases=$(grep "Finished Negotiation Cycle ---------- $ours_m matches" "$OUT/classad-negotiator.NegotiatorLog" | tail -1 | sed 's/.*schedds; //')
echo "slots/jobs/users/autoclusters: $S/$J/$U/$A"
echo "condor_negotiator:   $real_m matches, cycle $real_s s"
echo "classad-negotiator:  $ours_m matches, cycle $ours_s s ($ours_phases)"
if [ -n "$real_s" ] && [ -n "$ours_s" ]; then
	python3 -c "import sys; r, o = float(sys.argv[1]), float(sys.argv[2]); print('ratio: %.1fx' % (r / o) if o > 0 else 'ratio: -')" "$real_s" "$ours_s"
fi
echo "per submitter (matches, rejections): condor_negotiator | classad-negotiator"
join -a1 -a2 -e0 -o 0,1.2,1.3,2.2,2.3 <(per_submitter "$OUT/condor_negotiator.MatchLog") \
	<(per_submitter "$OUT/classad-negotiator.MatchLog") | awk '{ printf "  %-28s %6d %6d | %6d %6d%s\n", $1, $2, $3, $4, $5, ($2 == $4 && $3 == $5) ? "" : "   differs" }'
[ "$real_m" = "$ours_m" ] || { echo "the match counts differ"; exit 1; }
