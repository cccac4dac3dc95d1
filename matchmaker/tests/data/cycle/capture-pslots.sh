#!/bin/bash
# capture-pslots.sh -- snapshots of cycles on partitionable slots: snap-pslot-cp (default
# consumption policy: one p-slot takes several jobs per cycle) and snap-pslot-nocp (no
# consumption policy: each p-slot is matched whole, once). Pools made by gen-pslots.py.
# Run as root with ANCHOR_DIR (anchor scripts) and optionally ANCHOR_ROOT (chroot) set.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/capture-scenario.sh" "$HERE/gen-pslots.py" "$HERE/snap-pslot-cp" cp
"$HERE/capture-scenario.sh" "$HERE/gen-pslots.py" "$HERE/snap-pslot-nocp" nocp
