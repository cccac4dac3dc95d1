#!/bin/bash
# capture.sh -- regenerate defrag.log: what a real condor_defrag (HTCondor
# 23.9.6) decides on the synthetic pool in pool.ads with defrag.conf.
#
# It starts a personal pool with a condor_defrag daemon, advertises the
# slot ads of pool.ads (their addresses lead nowhere, so every drain and
# cancel request fails and the daemon goes on down its list of candidates),
# waits for a poll that saw them, and keeps that poll's lines of DefragLog.
#
# Needs a personal HTCondor pool driven by a `pool` command with
# start/stop/run sub-commands that reads extra configuration from $OVERRIDE
# (in the pool's file system); the project used a Debian chroot with the
# `minicondor` package and a helper script around it.  Usage:
#   POOL=/path/to/pool.sh ROOT=/path/to/chroot ./capture.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
POOL=${POOL:?set POOL to the pool control script}
ROOT=${ROOT:?set ROOT to the pool file system root}
OVERRIDE=${OVERRIDE:-/etc/condor/anchor-override.config}
LOGDIR=${LOGDIR:-/var/lib/condor-anchor/log}

"$POOL" stop >/dev/null 2>&1 || true
{ echo "## written by defrag capture.sh"
  echo 'DAEMON_LIST = $(DAEMON_LIST), DEFRAG'
  echo "DEFRAG_NAME = defrag"
  cat "$here/defrag.conf"
} > "$ROOT$OVERRIDE"
[ -f "$ROOT$LOGDIR/DefragLog" ] && : > "$ROOT$LOGDIR/DefragLog"
"$POOL" start >/dev/null
cp "$here/pool.ads" "$ROOT/tmp/defrag-pool.ads"
"$POOL" run condor_advertise -multiple UPDATE_STARTD_AD /tmp/defrag-pool.ads >/dev/null
polls_before=$(grep -c "There are currently" "$ROOT$LOGDIR/DefragLog" 2>/dev/null || echo 0)
for _ in $(seq 1 60); do
	n=$(grep -c "There are currently" "$ROOT$LOGDIR/DefragLog" 2>/dev/null || echo 0)
	[ "$n" -gt "$polls_before" ] && break
	sleep 2
done
sleep 5
# the last complete poll: from its "There are currently" line to "Drained ..."
awk '/There are currently/{buf=""; on=1} on{buf=buf $0 "\n"} /Drained [0-9]+ machines|Doing nothing/{if(on){last=buf; on=0}} END{printf "%s", last}' \
	"$ROOT$LOGDIR/DefragLog" | sed -E 's/^[0-9/]+ [0-9:.]+ //' > "$here/defrag.log"
printf 'MyType = "Query"\nTargetType = "Machine"\nRequirements = AnchorSynthetic =?= true\n' > "$ROOT/tmp/defrag-invalidate.ad"
"$POOL" run condor_advertise INVALIDATE_STARTD_ADS /tmp/defrag-invalidate.ad >/dev/null 2>&1 || true
rm -f "$ROOT$OVERRIDE"
"$POOL" stop >/dev/null 2>&1 || true
wc -l "$here/defrag.log"
