#!/bin/bash
# capture-preemption.sh -- snapshots of a cycle with priority and startd-rank preemption
# (snap-preemption) and of the same pool with NEGOTIATOR_CONSIDER_PREEMPTION = False
# (snap-nopreempt); pools made by gen-preemption.py. Run as root with ANCHOR_DIR (anchor
# scripts) and optionally ANCHOR_ROOT (chroot) set.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/capture-scenario.sh" "$HERE/gen-preemption.py" "$HERE/snap-preemption"
"$HERE/capture-scenario.sh" "$HERE/gen-preemption.py" "$HERE/snap-nopreempt" nopreempt
