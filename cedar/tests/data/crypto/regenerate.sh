#!/bin/sh
# Regenerates htcondor_vectors.txt by calling HTCondor 23.9.6's own crypto
# code (libcondor_utils) inside the anchor chroot. Run as root from
# anywhere: sh cedar/tests/data/crypto/regenerate.sh [/work/chroot]
# The ECDH key pairs are random, so those lines change on every run; the
# HKDF and AES-GCM lines are deterministic. It also runs htcondor_stream.cpp
# (two real ReliSocks through a recording relay) into htcondor_stream.txt;
# its IVs are random, so the bytes change on every run.
set -eu
ROOT=${1:-/work/chroot}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$ROOT/tmp/cedar-crypto"
cp "$HERE/htcondor_vectors.cpp" "$ROOT/tmp/cedar-crypto/"
chroot "$ROOT" sh -c 'cd /tmp/cedar-crypto && g++ -O0 -o vectors htcondor_vectors.cpp \
    /usr/lib/libcondor_utils_23_9_6.so /usr/lib/x86_64-linux-gnu/libcrypto.so.3 && ./vectors' \
    > "$HERE/htcondor_vectors.txt"
cp "$HERE/htcondor_stream.cpp" "$ROOT/tmp/cedar-crypto/"
chroot "$ROOT" sh -c 'cd /tmp/cedar-crypto && g++ -std=c++17 -O0 -o stream htcondor_stream.cpp \
    /usr/lib/libcondor_utils_23_9_6.so && CONDOR_CONFIG=ONLY_ENV ./stream' > "$HERE/htcondor_stream.txt"
# More than 1 MiB of plaintext before AES-GCM (htcondor_stream_cap.cpp).
cp "$HERE/htcondor_stream_cap.cpp" "$ROOT/tmp/cedar-crypto/"
chroot "$ROOT" sh -c 'cd /tmp/cedar-crypto && g++ -std=c++17 -O0 -o cap htcondor_stream_cap.cpp \
    /usr/lib/libcondor_utils_23_9_6.so && for t in 100000 1000000 1040000 1048576 1100000 3000000; do
    CONDOR_CONFIG=ONLY_ENV timeout 60 ./cap $t; done' | sort > "$HERE/htcondor_stream_cap.txt"
rm -rf "$ROOT/tmp/cedar-crypto"
cat "$HERE/htcondor_vectors.txt"
