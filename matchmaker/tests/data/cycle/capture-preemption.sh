#!/bin/bash
# capture-preemption.sh -- snapshot of a cycle with priority and startd-rank preemption
# (pool made by gen-preemption.py). Run as root with ANCHOR_DIR (anchor scripts) and
# optionally ANCHOR_ROOT (chroot) set; OUT selects the output directory.
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/capture-scenario.sh" "$HERE/gen-preemption.py" "${OUT:-$HERE/snap-preemption}"
