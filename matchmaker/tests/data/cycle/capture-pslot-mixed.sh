#!/bin/bash
# capture-pslot-mixed.sh -- snapshot of partitionable slots with claimed dynamic slots and priority preemption
# (pool made by gen-pslot-mixed.py). Run as root with ANCHOR_DIR (anchor scripts) and
# optionally ANCHOR_ROOT (chroot) set; OUT selects the output directory.
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/capture-scenario.sh" "$HERE/gen-pslot-mixed.py" "${OUT:-$HERE/snap-pslot-mixed}"
