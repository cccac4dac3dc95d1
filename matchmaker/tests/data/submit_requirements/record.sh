#!/bin/sh
# Records what a real HTCondor 23.9.6 schedd does with the submit files of
# submits/ (from gen-submits.py) under schedd.conf's submit requirements
# and job transforms. It runs a personal pool (condor_master, collector,
# schedd; loopback only) inside a Debian root that has HTCondor's
# `minicondor` package, as root:
#
#   CHROOT=/path/to/root ./record.sh
#
# For each case: ads/<case>.ad, the job ad condor_submit makes
# (`-dump`) with the Owner and User the schedd gives it; expected/<case>.submit,
# what condor_submit printed when submitting it for real; for an
# accepted job, expected/<case>.q, its ad in the queue (`condor_q -l`),
# after the schedd's transforms. And schedd.ad, the schedd's own ad.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${CHROOT:?set CHROOT to a Debian root with HTCondor (minicondor) installed}
pool=/tmp/submit-requirements-pool
in_root() { chroot "$root" env CONDOR_CONFIG="$pool/condor_config" "$@"; }
rm -rf "$root$pool"
mkdir -p "$root$pool/log" "$root$pool/spool" "$root$pool/execute" "$root$pool/lock" "$root$pool/run" "$root$pool/work"
cat > "$root$pool/condor_config" <<CONF
LOCAL_DIR = $pool
LOG = $pool/log
SPOOL = $pool/spool
EXECUTE = $pool/execute
LOCK = $pool/lock
RUN = $pool/run
DAEMON_LIST = MASTER, COLLECTOR, SCHEDD
CONDOR_HOST = 127.0.0.1
COLLECTOR_HOST = 127.0.0.1:29718
NETWORK_INTERFACE = 127.0.0.1
USE_SHARED_PORT = False
UID_DOMAIN = anchor.local
FILESYSTEM_DOMAIN = anchor.local
SEC_DEFAULT_AUTHENTICATION_METHODS = FS
ALLOW_WRITE = 127.0.0.1
ALLOW_ADMINISTRATOR = 127.0.0.1
ALLOW_DAEMON = 127.0.0.1
QUEUE_SUPER_USERS = root, condor
SUBMIT_SEND_RESCHEDULE = False
include : $pool/schedd.conf
CONF
cp "$here/schedd.conf" "$root$pool/schedd.conf"
in_root chown -R condor:condor "$pool"
chmod 755 "$root$pool"
chmod 1777 "$root$pool/work"
for u in alice bob; do
    in_root id "$u" > /dev/null 2>&1 || in_root useradd -M -d /tmp -s /bin/sh "$u"
done
in_root condor_master -f > /dev/null 2>&1 &
master=$!
trap 'kill $master 2> /dev/null || true; sleep 1; rm -rf "$root$pool"' EXIT
for _ in $(seq 60); do
    in_root condor_q > /dev/null 2>&1 && break
    sleep 1
done
in_root condor_status -schedd -l > "$here/schedd.ad"
rm -rf "$here/ads" "$here/expected"
mkdir -p "$here/ads" "$here/expected"
n=0
for sub in "$here"/submits/*.sub; do
    case=$(basename "$sub" .sub)
    user=$(cat "$here/submits/$case.user")
    cp "$sub" "$root$pool/work/$case.sub"
    chmod 644 "$root$pool/work/$case.sub"
    in_root su "$user" -s /bin/sh -c "cd $pool/work && condor_submit -dump $pool/work/$case.dump $case.sub" > "$root$pool/work/$case.dump-log" 2>&1 || { cat "$root$pool/work/$case.dump-log" >&2; exit 1; }
    { cat "$root$pool/work/$case.dump"; printf 'Owner="%s"\nUser="%s@anchor.local"\n' "$user" "$user"; } > "$here/ads/$case.ad"
    in_root su "$user" -s /bin/sh -c "cd $pool/work && condor_submit $case.sub" > "$here/expected/$case.submit" 2>&1 || true
    cluster=$(sed -n 's/.*submitted to cluster \([0-9]*\)\..*/\1/p' "$here/expected/$case.submit")
    if [ -n "$cluster" ]; then
        in_root condor_q -l "$cluster.0" > "$here/expected/$case.q"
        in_root condor_rm "$cluster" > /dev/null 2>&1 || true
    fi
    n=$((n + 1))
done
echo "expected/: $n cases"
