#!/bin/sh
# Replays this captured cycle with negotiator-sim: its summary.txt is what HTCondor decided.
# The priorities just before the cycle are userprio-before.ad (userprio.ad is after it).
# Its schedd declined every match (advertised test slots), so it offered matched jobs again.
# Usage: replay.sh [more `negotiator-sim cycle` options, e.g. --json or --summary]. NEGOTIATOR_SIM
# is the command to run (default: negotiator-sim on the PATH), e.g. from a clone's top directory:
#   NEGOTIATOR_SIM="cargo run -q -p negotiator-sim --" path/to/replay.sh --summary
here=$(dirname "$0")
# shellcheck disable=SC2086 # NEGOTIATOR_SIM may be a command with arguments
exec ${NEGOTIATOR_SIM:-negotiator-sim} cycle --slots "$here/slots.ad.gz" \
    --jobs "$here/jobs.ad.gz" \
    --config "$here/config.dump" \
    --userprio "$here/userprio-before.ad" \
    --submitters "$here/submitters.ad" \
    --resend-matched-jobs "$@"
