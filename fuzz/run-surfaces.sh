#!/bin/sh
# Fuzzes the targets of the matchmaker and negotiator-sim readers one
# after the other, one process at a time (nightly and cargo-fuzz needed:
# rustup toolchain install nightly --profile minimal; cargo install cargo-fuzz).
#   fuzz/run-surfaces.sh SECONDS_PER_TARGET [TARGET...]
# Seeds come from seed-surfaces.py; crashes land in fuzz/artifacts/<target>/;
# each target's output (its final `stat::number_of_executed_units`) in
# fuzz/logs/<target>-<time>.log.
set -eu
cd "$(dirname "$0")"
S=${1:-600}; shift || true
TARGETS=${*:-report trace policy_trace machine scenario transform accountant_log userprio snapshot config}
python3 seed-surfaces.py
mkdir -p logs
for t in $TARGETS; do
  mkdir -p corpus/$t
  echo "== $t: $S s"
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- -max_total_time="$S" \
    -rss_limit_mb=4096 -timeout=10 -print_final_stats=1 >"logs/$t-$(date +%s).log" 2>&1 || echo "== $t stopped: $?"
  grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec)|^SUMMARY|^#[0-9]+ *DONE" logs/$t-*.log | tail -3
done
