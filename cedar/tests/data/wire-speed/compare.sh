#!/bin/sh
# HTCondor 23.9.6's side of the wire-speed comparison (docs/benchmarks.md,
# "cedar: ClassAds on the wire"): a lone condor_collector on 127.0.0.1:29620
# (plaintext, no pool), the N slot ads of gen_slots.py advertised with
# condor_advertise -multiple, then timed queries:
#   condor_status -l        (fetch, parse, and print every attribute)
#   condor_status -af Name  (a projection: the collector sends one attribute)
#   htcondor2.Collector.query (the wheel's C++ client, full ads, no printing)
#
#   compare.sh ROOT [N] [PYTHON]
# ROOT: a Debian root with the minicondor package (23.9.6); run as root.
# PYTHON: a python with the htcondor wheel (optional).
set -eu
ROOT=$1; N=${2:-50000}; PY=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
W=/tmp/wire-speed
run() { chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config "$@"; }
rm -rf "$ROOT$W" && mkdir -p "$ROOT$W/log" "$ROOT$W/spool" "$ROOT$W/exec" "$ROOT$W/run" "$ROOT$W/lock"
cp "$HERE/collector.config" "$ROOT$W/collector.config"
python3 "$HERE/gen_slots.py" "$N" "$ROOT$W/slots.ad"
run chown -R condor:condor $W
chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config \
  condor_collector -f -p 29620 > "$ROOT$W/stdout" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 4
t0=$(date +%s.%N)
run condor_advertise -pool 127.0.0.1:29620 -multiple UPDATE_STARTD_AD $W/slots.ad > /dev/null
while :; do
  n=$(run condor_status -pool 127.0.0.1:29620 -af Name 2>/dev/null | wc -l)
  [ "$n" -ge "$N" ] && break
  sleep 1
done
t1=$(date +%s.%N)
echo "advertised $n ads in $(echo "$t1 - $t0" | bc) s"
t() { # label, command...
  label=$1; shift
  for i in 1 2 3; do
    s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N)
    echo "$label run $i: $(echo "$e - $s" | bc) s"
  done
}
t "condor_status -l" run condor_status -pool 127.0.0.1:29620 -l
t "condor_status -af Name" run condor_status -pool 127.0.0.1:29620 -af Name
t "condor_status -l (bytes)" sh -c "chroot $ROOT env -i PATH=/usr/bin:/bin CONDOR_CONFIG=$W/collector.config condor_status -pool 127.0.0.1:29620 -l | wc -c >&2"
# The client's own CPU time (user + sys of condor_status alone; the wall
# time above also holds the collector building its reply).
for a in "-l" "-af Name"; do
  run bash -c "time condor_status -pool 127.0.0.1:29620 $a > /dev/null" 2>&1 | tr '\n' ' '
  echo "(condor_status $a)"
done
if [ -n "$PY" ]; then
  for i in 1 2 3; do
    "$PY" - <<'PYEOF'
import time, htcondor2
c = htcondor2.Collector("127.0.0.1:29620")
s = time.perf_counter()
ads = c.query(htcondor2.AdTypes.Startd)
e = time.perf_counter()
print("htcondor2.Collector.query: %d ads in %.3f s" % (len(ads), e - s))
PYEOF
  done
fi
