#!/bin/bash
# capture-scenario.sh -- run ONE real HTCondor 23.9 negotiation cycle on a hand-made pool
# (made by a scenario generator) and store it as oracle data, the way capture.sh does for
# the anchor's negotiation-bench.sh pools.
#
# Usage (as root): capture-scenario.sh GENERATOR.py OUTDIR [generator args...]
# The generator is run as `python3 GENERATOR.py WORKDIR [args...]` and writes into WORKDIR:
#   slots.ad         machine ads for `condor_advertise -multiple UPDATE_STARTD_AD` (each must
#                    carry AnchorSynthetic = true and WantClaiming = false)
#   users.tsv        one line per user: NAME  PRIO_FACTOR  PRIO (RUP)  [CEILING  [FLOOR]]
#                    (- leaves a value alone)
#   NAME.sub         submit file of user NAME (optional; jobs must carry +AnchorBench = true)
#   negotiator.config  extra configuration for the negotiator, in force during the cycle
#   accounting.tsv   (optional) like users.tsv for other accounting names (NAME@DOMAIN)
# Needs: HTCondor 23.9 (Debian's `condor`/`minicondor` package) in a Debian trixie chroot made
# by the anchor's setup-chroot.sh, and its pool.sh.  Settable: ANCHOR_ROOT (chroot, default
# /tmp/anchor/trixie), ANCHOR_DIR (directory holding pool.sh), CAPTURE_NO_CLEAN=1 (leave the
# ads, jobs and accountant records in the pool), CAPTURE_DEBUG (NEGOTIATOR_DEBUG for the cycle).
#
# Steps: clean leftovers; write /etc/condor/anchor-override.config (NEGOTIATOR_INTERVAL =
# 1000000 so no periodic cycle runs, NEGOTIATOR_DEBUG, the scenario's negotiator.config) and
# restart the negotiator; advertise the slots; set priority factors and priorities; submit;
# condor_reschedule; wait for the cycle; store its NegotiatorLog lines and the pool state
# (files above 100 kB gzipped); remove the override, clean the pool, restart the negotiator.
set -eEuo pipefail
trap 'echo "capture-scenario.sh: failed at line $LINENO" >&2' ERR
GEN=$(readlink -f "$1"); OUT=$2; shift 2
ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
ADIR=${ANCHOR_DIR:?set ANCHOR_DIR to the anchor scripts directory}
HERE=$(cd "$(dirname "$0")" && pwd)
DEBUG=${CAPTURE_DEBUG:-D_FULLDEBUG D_MATCH D_ACCOUNTANT D_SUB_SECOND}
WORK_IN=/tmp/anchor-capture/$(basename "$OUT")
WORK=$ROOT$WORK_IN
NEGLOG=$ROOT/var/lib/condor-anchor/log/NegotiatorLog
OVERRIDE=$ROOT/etc/condor/anchor-override.config
UDOMAIN=anchor.local
log() { echo "[capture $(date +%T)] $*" >&2; }
C() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TZ=UTC "$@"; }
negattr() { C condor_status -negotiator -af "$1" 2>/dev/null | head -1 || true; }

"$ADIR/pool.sh" status 2>/dev/null | grep -q "condor_master pid .* running" || "$ADIR/pool.sh" start >&2
rm -rf "$WORK"; mkdir -p "$WORK" "$OUT"; chmod 755 "$ROOT/tmp/anchor-capture" "$WORK"
python3 "$GEN" "$WORK" "$@"
chmod -R a+rX "$WORK"
mapfile -t USERS < <(awk '!/^#/ && NF {print $1}' "$WORK/users.tsv")

cleanup() {
	printf 'MyType = "Query"\nTargetType = "Machine"\nRequirements = AnchorSynthetic =?= true\n' > "$WORK/invalidate.ad"
	C condor_advertise INVALIDATE_STARTD_ADS "$WORK_IN/invalidate.ad" >/dev/null 2>&1 || true
	C condor_rm -constraint 'AnchorBench =?= true' >/dev/null 2>&1 || true
	local i
	for i in $(seq 1 120); do
		[ "$(C condor_q -allusers -constraint 'AnchorBench =?= true' -af ClusterId 2>/dev/null | wc -l)" = 0 ] && break; sleep 1
	done
	# every bench user's accountant record (also those of earlier scenarios)
	local names
	names=$({ printf '%s\n' "${USERS[@]/%/@$UDOMAIN}"
		C condor_userprio -allusers -l 2>/dev/null | sed -n 's/^Name[0-9]* = "\(\(group_[^"]*\)\{0,1\}bench[0-9]*@[^"]*\|group_[^"@]*\)"$/\1/p' || true; } | sort -u)
	for u in $names; do C condor_userprio -delete "$u" >/dev/null 2>&1 || true; done
}
# the first cycle after a cleanup drops the accountant's match records of the removed slots,
# which re-creates the customers just deleted: delete them again after that cycle
delete_users() {
	local u
	for u in $(C condor_userprio -allusers -l 2>/dev/null | sed -n 's/^Name[0-9]* = "\(\(group_[^"]*\)\{0,1\}bench[0-9]*@[^"]*\|group_[^"@]*\)"$/\1/p'); do
		C condor_userprio -delete "$u" >/dev/null 2>&1 || true
	done
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
	log "warning: restarted negotiator did not publish a cycle in time"
}
restore() {
	local rc=$?
	trap - EXIT INT TERM
	[ -n "${CAPTURE_NO_CLEAN:-}" ] || cleanup
	rm -f "$OVERRIDE"
	restart_negotiator
	[ -n "${CAPTURE_NO_CLEAN:-}" ] || delete_users
	exit $rc
}

log "cleaning leftovers, quiescing the negotiator"
cleanup
trap restore EXIT
trap 'exit 130' INT TERM
{
	echo "## written by capture-scenario.sh; removed when it exits"
	echo "NEGOTIATOR_INTERVAL = 1000000"
	echo "NEGOTIATOR_DEBUG = $DEBUG"
	echo "MAX_NEGOTIATOR_LOG = 2000000000"
	[ -f "$WORK/negotiator.config" ] && cat "$WORK/negotiator.config"
} > "$OVERRIDE"
restart_negotiator
delete_users
LOGOFF0=$(stat -c %s "$NEGLOG")

n_slots=$(grep -c '^MyType = "Machine"' "$WORK/slots.ad")
C condor_advertise -multiple UPDATE_STARTD_AD "$WORK_IN/slots.ad" >&2
for i in $(seq 1 600); do
	n=$(C condor_status -const 'AnchorSynthetic =?= true' -af Name 2>/dev/null | wc -l)
	[ "$n" -ge "$n_slots" ] && break; sleep 0.5
done
log "collector holds $n of $n_slots slots"
[ "$n" -ge "$n_slots" ] || exit 1

# accounting.tsv (optional): like users.tsv for accounting names (NAME@DOMAIN or a group)
# that are not plain users, e.g. group_a.bench01@anchor.local; applied after users.tsv
set_prios() { # NAME factor prio ceiling floor
	local n=$1
	[ "${2:--}" = - ] || C condor_userprio -setfactor "$n" "$2" >/dev/null
	[ "${3:--}" = - ] || C condor_userprio -setprio "$n" "$3" >/dev/null
	[ "${4:--}" = - ] || C condor_userprio -setceiling "$n" "$4" >/dev/null
	[ "${5:--}" = - ] || C condor_userprio -setfloor "$n" "$5" >/dev/null
}
while read -r u factor prio ceiling floor; do
	case "$u" in ''|'#'*) continue;; esac
	C id "$u" >/dev/null 2>&1 || C useradd -M -d /tmp -s /usr/sbin/nologin "$u"
	set_prios "$u@$UDOMAIN" "$factor" "$prio" "${ceiling:--}" "${floor:--}"
done < "$WORK/users.tsv"
if [ -f "$WORK/accounting.tsv" ]; then
	while read -r n factor prio ceiling floor; do
		case "$n" in ''|'#'*) continue;; esac
		set_prios "$n" "$factor" "$prio" "${ceiling:--}" "${floor:--}"
	done < "$WORK/accounting.tsv"
fi

n_jobs=0
for u in "${USERS[@]}"; do
	[ -f "$WORK/$u.sub" ] || continue
	k=$(C runuser -u "$u" -- condor_submit -terse "$WORK_IN/$u.sub" 2>/dev/null | awk -F'[ .-]+' '{n += $NF - $2 + 1} END {print n+0}')
	n_jobs=$((n_jobs + k))
done
for i in $(seq 1 600); do
	idle=$(C condor_q -allusers -constraint 'AnchorBench =?= true && JobStatus == 1' -af ClusterId 2>/dev/null | wc -l)
	[ "$idle" -ge "$n_jobs" ] && break; sleep 0.5
done
log "schedd holds $idle idle jobs (submitted $n_jobs)"
C condor_q -allusers -constraint 'AnchorBench =?= true' -l | gzip -9n > "$OUT/jobs.ad.gz"
C condor_userprio -allusers -l > "$OUT/userprio-before.ad" 2>/dev/null || true

before=$(negattr LastNegotiationCycleTime0)
t0=$(date +%s)
C condor_reschedule >/dev/null
for i in $(seq 1 7200); do
	cur=$(negattr LastNegotiationCycleTime0)
	[ -n "$cur" ] && [ "$cur" != "$before" ] && [ "$cur" -ge "$t0" ] && break
	sleep 0.5
done
log "cycle published (LastNegotiationCycleTime0 $cur)"
tail -c +$((LOGOFF0 + 1)) "$NEGLOG" > "$WORK/neglog.tail"
awk '{print} /Finished Negotiation Cycle/ {exit}' "$WORK/neglog.tail" > "$OUT/cycle.log"
C condor_status -negotiator -l > "$WORK/negotiator.ad"
grep '^LastNegotiationCycle.*0 = ' "$WORK/negotiator.ad" | sort > "$OUT/negotiator-cycle0.ad"
C condor_userprio -allusers -l > "$OUT/userprio.ad"
C condor_status -submitters -l > "$OUT/submitters.ad"
C condor_config_val -negotiator -dump > "$OUT/config.dump"
cp "$WORK/slots.ad" "$OUT/slots.ad"
cp "$WORK/users.tsv" "$OUT/"
[ -f "$WORK/accounting.tsv" ] && cp "$WORK/accounting.tsv" "$OUT/"
for f in "$WORK"/*.sub "$WORK/negotiator.config"; do [ -e "$f" ] && cp "$f" "$OUT/"; done
python3 "$HERE/extract.py" "$OUT"
# keep the repository lean: gzip every file above 100 kB
for f in slots.ad cycle.log matches.tsv; do
	[ "$(stat -c %s "$OUT/$f")" -gt 100000 ] && gzip -f9n "$OUT/$f"
done
python3 "$HERE/cycle-json.py" "$OUT/negotiator-cycle0.ad" "$n_slots" "$n_jobs" > "$OUT/result.json"
log "done: $(head -1 "$OUT/summary.txt")"
