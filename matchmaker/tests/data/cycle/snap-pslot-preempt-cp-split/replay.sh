#!/bin/sh
# Replays this captured cycle with negotiator-sim: its summary.txt is what HTCondor decided.
# The priorities just before the cycle are userprio-before.ad (userprio.ad is after it).
# A real startd and schedd: matches were claimed, so matched jobs were not offered again.
# Usage: replay.sh [more `negotiator-sim cycle` options, e.g. --json]; NEGOTIATOR_SIM names the
# binary (default: negotiator-sim on the PATH).
here=$(dirname "$0")
exec "${NEGOTIATOR_SIM:-negotiator-sim}" cycle --slots "$here/slots.ad" \
    --jobs "$here/jobs.ad.gz" \
    --config "$here/config.dump" \
    --userprio "$here/userprio-before.ad" \
    --submitters "$here/submitters.ad" "$@"
