#!/bin/sh
# Fuzzes the cedar targets one after the other, one process at a time
# (nightly and cargo-fuzz needed: rustup toolchain install nightly
# --profile minimal; cargo install cargo-fuzz).
#   fuzz/run-cedar.sh SECONDS_PER_TARGET [TARGET...]
# One in-process libFuzzer each (no -jobs: with -jobs libFuzzer forks workers).
# Seeds come from seed-cedar.py; crashes land in fuzz/artifacts/<target>/.
set -eu
cd "$(dirname "$0")"
S=${1:-60}; shift || true
TARGETS=${*:-cedar_wire cedar_ad cedar_handshake cedar_token cedar_sinful}
python3 seed-cedar.py
for t in $TARGETS; do
  mkdir -p corpus/$t
  echo "== $t: $S s"
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- -max_total_time="$S" \
    -rss_limit_mb=2048 -max_len=65536 -timeout=10 -print_final_stats=1 || echo "== $t stopped: $?"
done
