#!/bin/sh
# Our collector next to HTCondor 23.9.6's condor_collector on the same
# machine, in the same run, with the same clients (docs/benchmarks.md,
# "collector: ours and HTCondor's"):
#   * N slot ads (gen_slots.py, 158 attributes) advertised to each with
#     condor_advertise -multiple;
#   * condor_status -l and condor_status -af Name State of all of them
#     (HTCondor's own tool, wall time), and a raw query timed to the reply's
#     last byte without decoding (cedar-load query);
#   * sustained updates from C persistent connections for S seconds
#     (cedar-load updates: updates per second, the collector's memory, and
#     a check that no update was lost).
#
#   collector/bench/compare.sh ROOT [N] [C] [S]
# ROOT: a Debian root with the minicondor package (HTCondor 23.9.6), e.g.
# `debootstrap trixie ROOT && chroot ROOT apt-get install minicondor`;
# run as root. Defaults: N=100000, C=200, S=60.
set -eu
ROOT=$1; N=${2:-100000}; C=${3:-200}; S=${4:-60}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
W=/tmp/collector-compare
THEIRS=29620; OURS=29621
echo "== building (release)"
(cd "$REPO" && cargo build --release --locked -q -p collector --features tokio --example serve \
  && cargo build --release --locked -q -p classad-benches --bin cedar-load)
SERVE=$REPO/target/release/examples/serve
LOAD=$REPO/target/release/cedar-load
run() { chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config "$@"; }
rm -rf "$ROOT$W" && mkdir -p "$ROOT$W/log" "$ROOT$W/spool" "$ROOT$W/exec" "$ROOT$W/run" "$ROOT$W/lock"
sed -e "s|/tmp/wire-speed|$W|" "$REPO/cedar/tests/data/wire-speed/collector.config" > "$ROOT$W/collector.config"
echo "MAX_COLLECTOR_LOG = 100000000" >> "$ROOT$W/collector.config"
python3 "$REPO/cedar/tests/data/wire-speed/gen_slots.py" "$N" "$ROOT$W/slots.ad"
run chown -R condor:condor $W
chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config \
  condor_collector -f -p $THEIRS > "$ROOT$W/stdout" 2>&1 &
theirs=$!
"$SERVE" --port $OURS CLASSAD_LIFETIME=86400 COLLECTOR_UPDATE_INTERVAL=3600 > "$ROOT$W/ours.out" 2>&1 &
ours=$!
trap 'kill $theirs $ours 2>/dev/null || true' EXIT
sleep 4
echo "== load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
for who in theirs ours; do
  port=$THEIRS; [ $who = ours ] && port=$OURS
  t0=$(date +%s.%N)
  run condor_advertise -pool 127.0.0.1:$port -multiple UPDATE_STARTD_AD $W/slots.ad > /dev/null
  while :; do
    n=$(run condor_status -pool 127.0.0.1:$port -af Name 2>/dev/null | wc -l)
    [ "$n" -ge "$N" ] && break
    sleep 1
  done
  t1=$(date +%s.%N)
  echo "$who: advertised $n ads in $(echo "$t1 - $t0" | bc) s"
done
t() { # label, command...
  label=$1; shift
  for i in 1 2 3; do
    s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N)
    echo "$label run $i: $(echo "$e - $s" | bc) s"
  done
}
for who in theirs ours; do
  port=$THEIRS; [ $who = ours ] && port=$OURS
  echo "== $who (127.0.0.1:$port)"
  t "$who condor_status -l" run condor_status -pool 127.0.0.1:$port -l
  t "$who condor_status -af Name State" run condor_status -pool 127.0.0.1:$port -af Name State
  "$LOAD" query 127.0.0.1:$port --runs 3 | sed "s/^/$who raw query: /"
  "$LOAD" query 127.0.0.1:$port --runs 3 --projection "Name State" | sed "s/^/$who raw query -af Name State: /"
done
for who in theirs ours; do
  port=$THEIRS; pid=$theirs; [ $who = ours ] && port=$OURS && pid=$ours
  echo "== $who: updates from $C connections for $S s"
  "$LOAD" updates 127.0.0.1:$port --connections "$C" --seconds "$S" --pid "$pid" 2>&1 | sed "s/^/$who: /"
done
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
