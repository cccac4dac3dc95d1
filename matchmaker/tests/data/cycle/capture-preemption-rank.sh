#!/bin/bash
# capture-preemption-rank.sh -- snapshot of a cycle with startd-rank preemption by an over-limit submitter
# (pool made by gen-preemption-rank.py). Run as root with ANCHOR_DIR (anchor scripts) and
# optionally ANCHOR_ROOT (chroot) set; OUT selects the output directory.
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/capture-scenario.sh" "$HERE/gen-preemption-rank.py" "${OUT:-$HERE/snap-preemption-rank}"
