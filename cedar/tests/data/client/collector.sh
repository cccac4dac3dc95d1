#!/bin/sh
# Starts or stops ONE real HTCondor 23.9.6 condor_collector in the chroot on
# 127.0.0.1:29619, for tests/client_chroot.rs:
#
#   collector.sh start MODE [ROOT]   # MODE: m0 (plaintext), m1 (CLAIMTOBE+AES), m2 (IDTOKENS+AES),
#                                    # sp (m0 behind condor_shared_port, sock=collector):
#                                    # base.config + MODE.config, then MODE.setup if any
#   collector.sh stop [ROOT]         # kills the collector this script started
#
# The collector's log is left in ROOT/tmp/cedar-client-live/log.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
W=/tmp/cedar-client-live
case "$1" in
start)
  MODE=$2
  ROOT=${3:-/work/chroot}
  rm -rf "$ROOT$W"
  mkdir -p "$ROOT$W/log" "$ROOT$W/spool" "$ROOT$W/exec" "$ROOT$W/run" "$ROOT$W/lock" "$ROOT$W/tokens"
  cat "$HERE/base.config" "$HERE/$MODE.config" > "$ROOT$W/collector.config"
  chroot "$ROOT" chown -R condor:condor $W
  # After the chown: a key the collector reads as root must be root's.
  if [ -f "$HERE/$MODE.setup" ]; then . "$HERE/$MODE.setup"; fi
  # chroot and env exec, so $! is the daemon itself.
  if [ "$MODE" = sp ]; then
    # The shared port daemon takes the port; the collector its named socket.
    chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config \
      /usr/libexec/condor/condor_shared_port -f -p 29619 > "$ROOT$W/shared_port.stdout" 2>&1 &
    echo $! > "$ROOT$W/shared_port.pid"
    i=0
    while [ ! -s "$ROOT$W/lock/shared_port_ad" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
    chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config \
      condor_collector -f -sock collector > "$ROOT$W/stdout" 2>&1 &
  else
    chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin CONDOR_CONFIG=$W/collector.config \
      condor_collector -f -p 29619 > "$ROOT$W/stdout" 2>&1 &
  fi
  echo $! > "$ROOT$W/pid"
  ;;
stop)
  ROOT=${2:-/work/chroot}
  if [ -f "$ROOT$W/pid" ]; then
    pid=$(cat "$ROOT$W/pid")
    kill "$pid" 2>/dev/null || true
    rm -f "$ROOT$W/pid"
  fi
  if [ -f "$ROOT$W/shared_port.pid" ]; then
    kill "$(cat "$ROOT$W/shared_port.pid")" 2>/dev/null || true
    rm -f "$ROOT$W/shared_port.pid"
  fi
  ;;
*)
  echo "usage: $0 start MODE [ROOT] | stop [ROOT]" >&2
  exit 2
  ;;
esac
