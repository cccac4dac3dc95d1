#!/bin/bash
# capture-roundup.sh -- snapshot of submitter limits below the slot weight (round-up)
# (pool made by gen-roundup.py). Run as root with ANCHOR_DIR (anchor scripts) and
# optionally ANCHOR_ROOT (chroot) set; OUT selects the output directory.
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/capture-scenario.sh" "$HERE/gen-roundup.py" "${OUT:-$HERE/snap-roundup}"
