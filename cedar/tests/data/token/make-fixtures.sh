#!/bin/sh
# Regenerates the IDTOKENS fixtures in this directory with the real HTCondor
# 23.9.6 in the Debian chroot (condor_token_create, condor_token_list).
#
# Run as root on the host:  sh cedar/tests/data/token/make-fixtures.sh
# (CHROOT defaults to /work/chroot). The keys are test-only secrets.
#
# What it makes:
#   keys/POOL          64 random bytes, mode 0600, as the collector creates a
#                      missing POOL key (it writes random bytes scrambled,
#                      which is random bytes again)
#   keys/other         a non-POOL key file holding "other secret\n\0\0" as is
#                      (HTCondor unscrambles it into the key): checks that
#                      nothing trims newlines or NULs
#   keys/awkward-pool  a POOL key file holding "awkward pool key\n\0", used as
#                      SEC_TOKEN_POOL_SIGNING_KEY_FILE for one token
#   condor.jwt         -identity condor@anchor.local (no lifetime, no exp)
#   authz.jwt          ... -authz READ -authz ADVERTISE_STARTD -lifetime 315360000
#   short.jwt          ... -lifetime 1 (expired by the time tests run)
#   other.jwt          ... -key other
#   awkward.jwt        -identity alice@anchor.local with keys/awkward-pool
#   token_list.txt     condor_token_list -dir over the tokens above
#   config             the scratch CONDOR_CONFIG used (for the record)
set -eu

CHROOT=${CHROOT:-/work/chroot}
HERE=$(cd "$(dirname "$0")" && pwd)
SCRATCH_IN=/tmp/classad-rs-token-fixtures     # path as seen inside the chroot
SCRATCH="$CHROOT$SCRATCH_IN"

rm -rf "$SCRATCH"
mkdir -p "$SCRATCH/passwords.d" "$SCRATCH/tokens" "$SCRATCH/log"
chmod 700 "$SCRATCH/passwords.d"

cat > "$SCRATCH/condor_config" <<CONF
TRUST_DOMAIN = anchor.local
SEC_PASSWORD_DIRECTORY = $SCRATCH_IN/passwords.d
SEC_TOKEN_POOL_SIGNING_KEY_FILE = $SCRATCH_IN/passwords.d/POOL
LOCAL_DIR = $SCRATCH_IN
LOG = $SCRATCH_IN/log
CONF

# The POOL key as the collector makes it: 64 random bytes, mode 0600.
head -c 64 /dev/urandom > "$SCRATCH/passwords.d/POOL"
# A named key with a trailing newline and NULs.
printf 'other secret\n\000\000' > "$SCRATCH/passwords.d/other"
# A second POOL key file with trailing newline and NUL.
printf 'awkward pool key\n\000' > "$SCRATCH/passwords.d/awkward-pool"
chmod 600 "$SCRATCH/passwords.d/"*

run() {
    chroot "$CHROOT" env CONDOR_CONFIG="$SCRATCH_IN/condor_config" "$@"
}

run condor_token_create -identity condor@anchor.local -key POOL > "$SCRATCH/tokens/condor.jwt"
run condor_token_create -identity condor@anchor.local -authz READ -authz ADVERTISE_STARTD \
    -lifetime 315360000 > "$SCRATCH/tokens/authz.jwt"
run condor_token_create -identity condor@anchor.local -lifetime 1 > "$SCRATCH/tokens/short.jwt"
run condor_token_create -identity condor@anchor.local -key other > "$SCRATCH/tokens/other.jwt"
chroot "$CHROOT" env CONDOR_CONFIG="$SCRATCH_IN/condor_config" \
    _CONDOR_SEC_TOKEN_POOL_SIGNING_KEY_FILE="$SCRATCH_IN/passwords.d/awkward-pool" \
    condor_token_create -identity alice@anchor.local > "$SCRATCH/tokens/awkward.jwt"
run condor_token_list -dir "$SCRATCH_IN/tokens" > "$SCRATCH/token_list.txt" 2>&1 || true

mkdir -p "$HERE/keys"
cp "$SCRATCH/passwords.d/POOL" "$SCRATCH/passwords.d/other" "$SCRATCH/passwords.d/awkward-pool" "$HERE/keys/"
chmod 600 "$HERE/keys/"*
for t in condor authz short other awkward; do
    cp "$SCRATCH/tokens/$t.jwt" "$HERE/$t.jwt"
done
sed "s#$SCRATCH_IN/tokens/##" "$SCRATCH/token_list.txt" > "$HERE/token_list.txt"
sed "s#$SCRATCH_IN#<scratch>#" "$SCRATCH/condor_config" > "$HERE/config"
run condor_version | head -1 > "$HERE/condor_version.txt"
rm -rf "$SCRATCH"
echo "fixtures written to $HERE"
