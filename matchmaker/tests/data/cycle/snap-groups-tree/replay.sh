#!/bin/sh
# Replays this captured cycle with negotiator-sim: its summary.txt is what HTCondor decided.
# The priorities just before the cycle are userprio-before.ad (userprio.ad is after it).
# Its schedd declined every match (advertised test slots), so it offered matched jobs again.
# Usage: replay.sh [more `negotiator-sim cycle` options, e.g. --json or --summary]. NEGOTIATOR_SIM
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
exec $NEGOTIATOR_SIM cycle --slots "$here/slots.ad.gz" \
    --jobs "$here/jobs.ad.gz" \
    --config "$here/config.dump" \
    --userprio "$here/userprio-before.ad" \
    --submitters "$here/submitters.ad" \
    --resend-matched-jobs "$@"
