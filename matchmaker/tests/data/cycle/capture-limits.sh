#!/bin/bash
# capture-limits.sh -- snapshot of a cycle with concurrency limits (pool made by
# gen-limits.py). Run as root with ANCHOR_DIR (anchor scripts) and optionally ANCHOR_ROOT
# (chroot) set; OUT selects the output directory.
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/capture-scenario.sh" "$HERE/gen-limits.py" "${OUT:-$HERE/snap-limits}"
