#!/bin/sh
# Misbehaving clients against HTCondor 23.9.6's condor_collector and ours
# (classad-collector, the daemon, release build) on the same machine, in
# the same run, with the same load generator (docs/benchmarks.md,
# "collector: misbehaving clients"). Each collector holds N slot ads
# (gen_slots.py, advertised with condor_advertise -multiple) and runs at
# its defaults, plaintext; against each, while a well-behaved client
# queries it every 100 ms (cedar-load, a raw QUERY_STARTD_ADS with the
# projection Name):
#   * stall: a client that connects and sends nothing (both collectors at
#     once: it takes minutes), then one that sends three bytes of a packet
#     header and stops;
#   * garbage: 10 MB of random bytes in well-formed 64 KiB packets, the
#     same after the command number of UPDATE_STARTD_AD (so the bytes reach
#     the ad's decoder), then a header announcing 2 GiB;
#   * flood: 1,000 connections opened at once and held 30 s, then a query
#     on each;
#   * flood again against a second instance of ours with
#     COLLECTOR_MAX_CONNECTIONS = 500 (the refusals and their log line).
# Then it greps each collector's log for the lines about the connections
# it closed.
#
#   collector/bench/faults.sh ROOT [N] [STALL_LIMIT]
# ROOT: a Debian root with the minicondor package (HTCondor 23.9.6); run as
# root. Defaults: N=1000 ads, STALL_LIMIT=200 s (how long the silent client
# waits to be closed: both close it at 120 s).
set -eu
ROOT=$1; N=${2:-1000}; STALL_LIMIT=${3:-200}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$REPO/target}
W=/tmp/collector-faults
THEIRS=29640; OURS=29641; BOUNDED=29642
echo "== building (release)"
(cd "$REPO" && cargo build --release --locked -q -p daemons --bin classad-collector \
  && cargo build --release --locked -q -p classad-benches --bin cedar-load)
OURBIN=$TARGET/release/classad-collector
LOAD=$TARGET/release/cedar-load
run() { chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config "$@"; }
rm -rf "$ROOT$W" "$W" && mkdir -p "$ROOT$W/log" "$ROOT$W/spool" "$ROOT$W/exec" "$ROOT$W/run" "$ROOT$W/lock"
sed -e "s|/tmp/wire-speed|$W|" -e "s|29620|$THEIRS|g" \
  "$REPO/cedar/tests/data/wire-speed/collector.config" > "$ROOT$W/collector.config"
python3 "$REPO/cedar/tests/data/wire-speed/gen_slots.py" "$N" "$ROOT$W/slots.ad"
run chown -R condor:condor $W
# Ours outside the chroot, with the same knobs, its own directories and
# its own port; the bounded one with COLLECTOR_MAX_CONNECTIONS = 500.
for who in ours bounded; do
  port=$OURS; [ $who = bounded ] && port=$BOUNDED
  mkdir -p "$W/$who/log" "$W/$who/spool" "$W/$who/run" "$W/$who/lock" "$W/$who/exec"
  sed -e "s|/tmp/wire-speed|$W/$who|" -e "s|29620|$port|g" \
    "$REPO/cedar/tests/data/wire-speed/collector.config" > "$W/$who/collector.config"
  [ $who = bounded ] && echo "COLLECTOR_MAX_CONNECTIONS = 500" >> "$W/$who/collector.config"
done
chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config \
  condor_collector -f -p $THEIRS > "$ROOT$W/stdout" 2>&1 &
theirs=$!
CONDOR_CONFIG=$W/ours/collector.config "$OURBIN" -f -p $OURS > "$W/ours/stdout" 2>&1 &
ours=$!
CONDOR_CONFIG=$W/bounded/collector.config "$OURBIN" -f -p $BOUNDED > "$W/bounded/stdout" 2>&1 &
bounded=$!
trap 'kill $theirs $ours $bounded 2>/dev/null || true' EXIT
sleep 4
THEIRS_LOG=$ROOT$W/log/CollectorLog
OURS_LOG=$W/ours/log/CollectorLog
BOUNDED_LOG=$W/bounded/log/CollectorLog
echo "== load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
for port in $THEIRS $OURS $BOUNDED; do
  run condor_advertise -pool 127.0.0.1:$port -multiple UPDATE_STARTD_AD $W/slots.ad > /dev/null
done
for port in $THEIRS $OURS $BOUNDED; do
  n=$(run condor_status -pool 127.0.0.1:$port -af Name 2>/dev/null | wc -l)
  echo "127.0.0.1:$port holds $n slot ads"
done
# The log lines each step added, of the closed connections.
mark() { wc -l < "$1"; }
since() { # log, line count before, what to look for
  tail -n +"$(($2 + 1))" "$1" | grep -E "$3" | head -5 | sed 's/^/    log: /'
  echo "    log: ($(tail -n +"$(($2 + 1))" "$1" | grep -cE "$3") such lines)"
}
THEIRS_RE='dropping|deadline|expired|timeout|Can.t receive|close|Clos|too big|improperly|[Ff]ailed|exceed|[Ee]rror|PERMISSION|unregistered|[Rr]efus'
OURS_RE='Closing|Refusing|PERMISSION'
step() { # label, cedar-load mode, its options (for each collector)
  label=$1; mode=$2; shift 2
  for who in theirs ours; do
    port=$THEIRS; log=$THEIRS_LOG; re=$THEIRS_RE
    [ $who = ours ] && port=$OURS && log=$OURS_LOG && re=$OURS_RE
    echo "== $who: $label"
    before=$(mark "$log")
    "$LOAD" "$mode" 127.0.0.1:$port "$@" 2>&1 | sed "s/^/$who: /" || true
    sleep 1
    since "$log" "$before" "$re"
  done
}
echo "== both: stall, a client that connects and sends nothing (up to $STALL_LIMIT s; both at once)"
tb=$(mark "$THEIRS_LOG"); ob=$(mark "$OURS_LOG")
"$LOAD" stall 127.0.0.1:$THEIRS --limit "$STALL_LIMIT" 2>&1 | sed "s/^/theirs: /" &
s1=$!
"$LOAD" stall 127.0.0.1:$OURS --limit "$STALL_LIMIT" 2>&1 | sed "s/^/ours: /" &
s2=$!
wait $s1 $s2 || true
sleep 1
echo "  theirs:"; since "$THEIRS_LOG" "$tb" "$THEIRS_RE"
echo "  ours:"; since "$OURS_LOG" "$ob" "$OURS_RE"
step "stall, three bytes of a packet header, then nothing" stall --partial 1 --limit 120
step "garbage, 10 MB of random bytes in 64 KiB packets" garbage --megabytes 10 --limit 120
step "garbage, UPDATE_STARTD_AD and 10 MB of random bytes" garbage --megabytes 10 --command 0 --limit 120
step "garbage, a header announcing 2 GiB" garbage --huge-header 1 --limit 120
step "flood, 1,000 connections held 30 s" flood --connections 1000 --hold 30
echo "== ours with COLLECTOR_MAX_CONNECTIONS = 500: flood, 1,000 connections held 10 s"
before=$(mark "$BOUNDED_LOG")
"$LOAD" flood 127.0.0.1:$BOUNDED --connections 1000 --hold 10 2>&1 | sed "s/^/bounded: /" || true
sleep 1
since "$BOUNDED_LOG" "$before" "$OURS_RE"
for who in theirs ours bounded; do
  pid=$theirs; [ $who = ours ] && pid=$ours; [ $who = bounded ] && pid=$bounded
  if kill -0 $pid 2>/dev/null; then echo "$who: still running"; else echo "$who: NOT RUNNING"; fi
done
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
