#!/bin/sh
# Replays this captured cycle with negotiator-sim: its summary.txt is what HTCondor decided.
# The bench made its users afresh just before the cycle (priority 0.5), so the cycle starts
# from fresh priorities: userprio.ad was written after later cycles and is not its input.
# Its schedd declined every match (advertised test slots), so it offered matched jobs again.
# Usage: replay.sh [more `negotiator-sim cycle` options, e.g. --json]; NEGOTIATOR_SIM names the
# binary (default: negotiator-sim on the PATH).
here=$(dirname "$0")
exec "${NEGOTIATOR_SIM:-negotiator-sim}" cycle --slots "$here/slots.ad.gz" \
    --jobs "$here/jobs.ad.gz" \
    --config "$here/config-negotiator.dump" \
    --submitters "$here/submitters.ad" \
    --resend-matched-jobs "$@"
