#!/bin/bash
# capture-ranks.sh -- snapshot of how the negotiator orders candidate slots (pre/job/post ranks)
# (pool made by gen-ranks.py). Run as root with ANCHOR_DIR (anchor scripts) and
# optionally ANCHOR_ROOT (chroot) set; OUT selects the output directory.
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/capture-scenario.sh" "$HERE/gen-ranks.py" "${OUT:-$HERE/snap-ranks}"
