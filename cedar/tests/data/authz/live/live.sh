#!/bin/sh
# Runtime evidence from a real HTCondor 23.9.6 collector in the chroot: a
# lone condor_collector on 127.0.0.1:29618 (not a pool; port 9618 is left
# alone), CLAIMTOBE authentication, and condor_ping at every level. The
# collector's PERMISSION log lines and condor_ping's table are stored here
# and checked by tests/authz_live.rs.
#
#   cedar/tests/data/authz/live/live.sh [/work/chroot]
#
# run1: default SEC_CLAIMTOBE_INCLUDE_DOMAIN (false); run2: true.
set -eu
ROOT=${1:-/work/chroot}
HERE=$(cd "$(dirname "$0")" && pwd)
W=/tmp/authz-live
run() { chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin "$@"; }
for r in run1 run2; do
  rm -rf "$ROOT$W" && mkdir -p "$ROOT$W/log" "$ROOT$W/spool" "$ROOT$W/exec" "$ROOT$W/run" "$ROOT$W/lock"
  cp "$HERE/run1.config" "$ROOT$W/collector.config"
  [ "$r" = run2 ] && cat "$HERE/run2.extra" >> "$ROOT$W/collector.config"
  run chown -R condor:condor $W
  # chroot and env exec, so $! is the collector itself.
  chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config \
    condor_collector -f -p 29618 > "$ROOT$W/stdout" 2>&1 &
  pid=$!
  sleep 5
  run CONDOR_CONFIG=$W/collector.config condor_ping -addr '<127.0.0.1:29618>' -table \
    READ WRITE NEGOTIATOR ADMINISTRATOR CONFIG DAEMON ADVERTISE_STARTD > "$HERE/$r.ping" 2>&1 || true
  sleep 1
  kill "$pid"
  wait "$pid" || true
  grep 'PERMISSION' "$ROOT$W/log/CollectorLog" | cut -d' ' -f3- > "$HERE/$r.log"
done

# run3 (run3.config, run3.mapfile): IDTOKENS, a token scoped to ADVERTISE_STARTD, a map file.
rm -rf "$ROOT$W" && mkdir -p "$ROOT$W/log" "$ROOT$W/spool" "$ROOT$W/exec" "$ROOT$W/run" "$ROOT$W/lock" "$ROOT$W/tokens"
cp "$HERE/run3.config" "$ROOT$W/collector.config"
cp "$HERE/run3.mapfile" "$ROOT$W/mapfile"
run chown -R condor:condor $W
chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config \
  condor_collector -f -p 29618 > "$ROOT$W/stdout" 2>&1 &
pid=$!
sleep 5
run CONDOR_CONFIG=$W/collector.config condor_token_create -identity Alice@Authz.Test -key POOL \
  -authz ADVERTISE_STARTD > "$ROOT$W/tokens/alice"
chmod 600 "$ROOT$W/tokens/alice"
run CONDOR_CONFIG=$W/collector.config condor_ping -addr '<127.0.0.1:29618>' -table \
  READ WRITE NEGOTIATOR ADMINISTRATOR CONFIG DAEMON ADVERTISE_STARTD > "$HERE/run3.ping" 2>&1 || true
sleep 1
kill "$pid"
wait "$pid" || true
grep -E 'PERMISSION|limited authorization' "$ROOT$W/log/CollectorLog" | cut -d' ' -f3- > "$HERE/run3.log"

# run4 (FS) and run5 (CLAIMTOBE): run4.config, run4.mapfile; run5 adds run5.extra.
for r in run4 run5; do
  rm -rf "$ROOT$W" && mkdir -p "$ROOT$W/log" "$ROOT$W/spool" "$ROOT$W/exec" "$ROOT$W/run" "$ROOT$W/lock" "$ROOT$W/tokens"
  cp "$HERE/run4.config" "$ROOT$W/collector.config"
  [ "$r" = run5 ] && cat "$HERE/run5.extra" >> "$ROOT$W/collector.config"
  cp "$HERE/run4.mapfile" "$ROOT$W/mapfile"
  run chown -R condor:condor $W
  chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config \
    condor_collector -f -p 29618 > "$ROOT$W/stdout" 2>&1 &
  pid=$!
  sleep 5
  run CONDOR_CONFIG=$W/collector.config condor_ping -addr '<127.0.0.1:29618>' -table \
    READ WRITE DAEMON > "$HERE/$r.ping" 2>&1 || true
  sleep 1
  kill "$pid"
  wait "$pid" || true
  grep -E 'PERMISSION|limited authorization' "$ROOT$W/log/CollectorLog" | cut -d' ' -f3- > "$HERE/$r.log"
done
