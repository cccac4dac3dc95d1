#!/bin/bash
# capture-floor.sh -- snapshot of a cycle with a submitter floor and a ceiling (pool made by
# gen-floor.py). Run as root with ANCHOR_DIR (anchor scripts) and optionally ANCHOR_ROOT
# (chroot) set; OUT selects the output directory.
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/capture-scenario.sh" "$HERE/gen-floor.py" "${OUT:-$HERE/snap-floor}"
