#!/bin/sh
# Replays this captured cycle with negotiator-sim: its summary.txt is what HTCondor decided.
# Only HTCondor's results were kept, not the slots and jobs: `negotiator-sim bench` builds the
# same pool in memory (the bench's generator: 50,000 lean slot ads, 50,000 jobs of 20 users in
# 200 autoclusters, priority factors 1000.001, 1000.002, ..., fresh priorities) and, as the
# bench's schedd declined every match, offers matched jobs again. It prints the matches per
# submitter (`matches_by_submitter`) and how many requests were rejected (`Rejections`).
# Usage: replay.sh [more `negotiator-sim bench` options, e.g. --json or --repeat 1]. NEGOTIATOR_SIM
# is the command to run; by default negotiator-sim from the PATH, or else built and run from
# this clone with cargo (the quick build: no debug information, no Parquet or PNG output).
here=$(dirname "$0")
if [ -z "${NEGOTIATOR_SIM:-}" ]; then
    if command -v negotiator-sim > /dev/null; then
        NEGOTIATOR_SIM=negotiator-sim
    else
        NEGOTIATOR_SIM="cargo run -q --locked --manifest-path $here/../../../../../Cargo.toml --profile quick -p negotiator-sim --no-default-features --"
    fi
fi
# shellcheck disable=SC2086 # NEGOTIATOR_SIM may be a command with arguments
exec $NEGOTIATOR_SIM bench --slots 50000 --jobs 50000 --users 20 --autoclusters 200 --lean \
    --config "$here/config.dump" "$@"
