#!/bin/sh
# What HTCondor 23.9.6's collector records in an ad about its daemon's
# updates (UpdatesTotal, UpdatesSequenced, UpdatesLost, UpdatesHistory),
# for a sequence of updates with chosen UpdateSequenceNumber and
# DaemonStartTime values. Writes sequence.txt: one line per update,
#   SEQ START TOTAL SEQUENCED LOST HISTORY
#
#   capture.sh ROOT [PORT]
# ROOT: a Debian root with the minicondor package; run as root. A lone
# plaintext condor_collector is started on PORT (default 29630).
set -eu
ROOT=$1; PORT=${2:-29630}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../../.." && pwd)
W=/tmp/update-stats
rm -rf "$ROOT$W" && mkdir -p "$ROOT$W/log" "$ROOT$W/spool" "$ROOT$W/run" "$ROOT$W/lock" "$ROOT$W/exec"
sed -e "s|/tmp/wire-speed|$W|" "$REPO/cedar/tests/data/wire-speed/collector.config" > "$ROOT$W/collector.config"
chroot "$ROOT" chown -R condor:condor $W
run() { chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config "$@"; }
run condor_collector -f -p "$PORT" > /dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 3
out="$HERE/sequence.txt"
echo "# SEQ START TOTAL SEQUENCED LOST HISTORY (HTCondor 23.9.6, capture.sh)" > "$out"
# In order, a gap of 3, a repeat, an older number, a restart, a gap of
# 200 (more than the 128-update history), then steady updates.
for pair in 1:100 2:100 6:100 6:100 4:100 1:300 2:300 203:300 204:300 205:300 206:300; do
  seq=${pair%%:*}; start=${pair##*:}
  printf 'MyType = "Machine"\nName = "slot1@seq.test"\nMachine = "seq.test"\nMyAddress = "<10.1.2.3:9618?noUDP>"\nUpdateSequenceNumber = %s\nDaemonStartTime = %s\n' \
    "$seq" "$start" > "$ROOT$W/ad"
  run condor_advertise -pool 127.0.0.1:$PORT UPDATE_STARTD_AD $W/ad > /dev/null
  sleep 0.3
  line=$(run condor_status -pool 127.0.0.1:$PORT -af UpdatesTotal UpdatesSequenced UpdatesLost UpdatesHistory)
  echo "$seq $start $line" >> "$out"
done
cat "$out"
