#!/bin/sh
# Regenerates htcondor_vectors.txt by calling HTCondor 23.9.6's own crypto
# code (libcondor_utils) inside the anchor chroot. Run as root from
# anywhere: sh cedar/tests/data/crypto/regenerate.sh [/work/chroot]
# The ECDH key pairs are random, so those lines change on every run; the
# HKDF and AES-GCM lines are deterministic.
set -eu
ROOT=${1:-/work/chroot}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$ROOT/tmp/cedar-crypto"
cp "$HERE/htcondor_vectors.cpp" "$ROOT/tmp/cedar-crypto/"
chroot "$ROOT" sh -c 'cd /tmp/cedar-crypto && g++ -O0 -o vectors htcondor_vectors.cpp \
    /usr/lib/libcondor_utils_23_9_6.so /usr/lib/x86_64-linux-gnu/libcrypto.so.3 && ./vectors' \
    > "$HERE/htcondor_vectors.txt"
rm -rf "$ROOT/tmp/cedar-crypto"
cat "$HERE/htcondor_vectors.txt"
