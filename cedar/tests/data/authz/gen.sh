#!/bin/sh
# Regenerates the authorization oracle data from HTCondor 23.9.6 in the
# project's chroot (run as root on the host; needs g++ in the chroot).
#
#   cedar/tests/data/authz/gen.sh [/work/chroot]
#
# Outputs, next to this script:
#   permheir.txt, permheir-legacy.txt  condor_ping -help permheir (levels,
#                                      implications, config fallbacks)
#   levels.txt                         condor_ping -help levels
#   defaults.txt                       condor_config_val -dump ALLOW / DENY
#                                      with no configuration at all
#   secconfig-*.txt                    condor_ping -help config: which knob
#                                      supplies each level's list
#   scenarios/*.out                    SecMan::Verify for every level and
#                                      peer (oracle.cpp), per scenario config
#   match.out                          the wildcard and netmask matchers
#   mapfile.out                        MapFile canonicalizations
set -eu
ROOT=${1:-/work/chroot}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=/tmp/authz-oracle
mkdir -p "$ROOT$WORK"
cp "$HERE/oracle.cpp" "$ROOT$WORK/"
chroot "$ROOT" g++ -O0 -o $WORK/oracle $WORK/oracle.cpp /usr/lib/libcondor_utils_23_9_6.so

run() { chroot "$ROOT" env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin "$@"; }

run CONDOR_CONFIG=/dev/null condor_ping -help permheir > "$HERE/permheir.txt" 2>&1 || true
sed -i '/^Usage:/,$d' "$HERE/permheir.txt"
run CONDOR_CONFIG=/dev/null _CONDOR_LEGACY_ALLOW_SEMANTICS=true condor_ping -help permheir > "$HERE/permheir-legacy.txt" 2>&1 || true
sed -i '/^Usage:/,$d' "$HERE/permheir-legacy.txt"
run CONDOR_CONFIG=/dev/null condor_ping -help levels 2>&1 | sed -n '/^Where <authorization-level>/,$p' > "$HERE/levels.txt"
{
  run CONDOR_CONFIG=/dev/null condor_config_val -dump ALLOW_ 2>&1 | grep -E '^(ALLOW|DENY)_' || true
  run CONDOR_CONFIG=/dev/null condor_config_val -dump DENY_ 2>&1 | grep -E '^(ALLOW|DENY)_' || true
  echo "USE_POOL_USERNAME_EQUIVALENT: $(run CONDOR_CONFIG=/dev/null condor_config_val USE_POOL_USERNAME_EQUIVALENT 2>&1)"
  echo "LEGACY_ALLOW_SEMANTICS: $(run CONDOR_CONFIG=/dev/null condor_config_val LEGACY_ALLOW_SEMANTICS 2>&1)"
  echo "CERTIFICATE_MAPFILE: $(run CONDOR_CONFIG=/dev/null condor_config_val CERTIFICATE_MAPFILE 2>&1)"
  echo "SEC_CLAIMTOBE_INCLUDE_DOMAIN: $(run CONDOR_CONFIG=/dev/null condor_config_val SEC_CLAIMTOBE_INCLUDE_DOMAIN 2>&1)"
} > "$HERE/defaults.txt"

# The chroot's own minicondor policy, macros expanded, as a scenario.
{
  echo "# ALLOW_*/DENY_* of the chroot's /etc/condor/condor_config, expanded by condor_config_val"
  for k in UID_DOMAIN ALLOW_READ ALLOW_WRITE ALLOW_DAEMON ALLOW_NEGOTIATOR ALLOW_ADMINISTRATOR ALLOW_CONFIG \
           ALLOW_ADVERTISE_STARTD ALLOW_ADVERTISE_SCHEDD ALLOW_ADVERTISE_MASTER ALLOW_DEFAULT \
           DENY_READ DENY_WRITE DENY_DAEMON DENY_NEGOTIATOR DENY_ADMINISTRATOR DENY_DEFAULT; do
    v=$(run CONDOR_CONFIG=/etc/condor/condor_config condor_config_val "$k" 2>/dev/null) && echo "$k = $v"
  done
} > "$HERE/scenarios/minicondor.config"

# Which knob each level's list comes from (subsystem and fallback order).
for s in fallback legacy; do
  for sub in COLLECTOR NEGOTIATOR; do
    cp "$HERE/scenarios/$s.config" "$ROOT$WORK/$s.config"
    run CONDOR_CONFIG=$WORK/$s.config condor_ping -help config -type "$sub" 2>&1 \
      | sed -n '/^Effective security config:/,$p' | sed -n '/#--- ALLOW ---#/,$p' > "$HERE/secconfig-$s-$sub.txt"
  done
done

PERMS="ALLOW READ WRITE NEGOTIATOR ADMINISTRATOR CONFIG DAEMON SOAP DEFAULT CLIENT ADVERTISE_STARTD ADVERTISE_SCHEDD ADVERTISE_MASTER"
PEERS="127.0.0.1,unauthenticated@unmapped 127.0.0.1,condor@example.org 127.0.0.1,condor_pool@example.org
127.0.0.70,bob@example.org 127.0.0.9,bob@example.org 10.1.2.3,alice@example.org 10.1.2.3,x@trusted.example
10.1.2.3,x@startd.example.org 10.6.6.7,condor@example.org 10.6.6.7,condor_pool@example.org
192.168.1.5,unauthenticated@unmapped 192.168.66.1,unauthenticated@unmapped 192.168.1.1,schedd@pool.example
10.9.1.1,condor@pool.example 172.16.5.5,someone@x 8.8.8.8,root@example.org 10.2.2.2,AdminJoe@EXAMPLE.org
10.2.2.2,condor@pool.example 10.2.2.2,condor_pool@pool.example 10.2.2.2,condor_pool@other.example
10.2.2.2,condor@other.example 10.2.2.2,mallory@evil.example 10.3.3.3,bad@example.org
1.2.3.4,x@master.example 1.2.3.4,condor@vm 1.2.3.4,root@vm 1.2.3.4,unauthenticated@unmapped
::1,unauthenticated@unmapped fe80:1:2:3::5,u@x 2001:db8:5::1,u@x 2001:db8:6::1,u@x 2001:db9::1,u@x
10.1.2.4,x@example.org.evil 10.1.9.9,u@x 10.1.2.3,u@example.org"
for cfg in "$HERE"/scenarios/*.config; do
  name=$(basename "$cfg" .config)
  for sub in COLLECTOR NEGOTIATOR; do
    [ "$sub" = NEGOTIATOR ] && [ "$name" != fallback ] && continue
    q="$ROOT$WORK/$name.q"
    : > "$q"
    for p in $PERMS; do
      for peer in $PEERS; do
        printf 'VERIFY\t%s\t%s\t%s\n' "$p" "${peer%%,*}" "${peer#*,}" >> "$q"
      done
    done
    cp "$cfg" "$ROOT$WORK/$name.config"
    run CONDOR_CONFIG=$WORK/$name.config $WORK/oracle "$sub" < "$q" > "$HERE/scenarios/$name-$sub.out"
  done
done

# The matchers on their own.
cat "$HERE/match.queries" > "$ROOT$WORK/match.q"
run CONDOR_CONFIG=/dev/null $WORK/oracle COLLECTOR < "$ROOT$WORK/match.q" > "$HERE/match.out"

# The map file.
cp "$HERE/test.mapfile" "$HERE/included.mapfile" "$ROOT$WORK/"
cp "$HERE/mapfile.queries" "$ROOT$WORK/mapfile.q"
run CONDOR_CONFIG=/dev/null $WORK/oracle COLLECTOR $WORK/test.mapfile < "$ROOT$WORK/mapfile.q" \
  | sed "s|$WORK/||" > "$HERE/mapfile.out"
cp "$HERE/test-hash.mapfile" "$ROOT$WORK/"
cp "$HERE/mapfile-hash.queries" "$ROOT$WORK/mapfile-hash.q"
run CONDOR_CONFIG=/dev/null $WORK/oracle COLLECTOR $WORK/test-hash.mapfile hash < "$ROOT$WORK/mapfile-hash.q" \
  | sed "s|$WORK/||" > "$HERE/mapfile-hash.out"
echo "done: $(cat "$HERE"/scenarios/*.out | wc -l) verify answers"
# Command registrations, read from the sources (not the chroot).
python3 "$HERE/registrations.py" > "$HERE/registrations.txt"
