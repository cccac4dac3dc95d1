#!/bin/bash
# capture-groups-tree.sh -- snapshots of cycles on a two-level group tree (gen-groups-tree.py):
# snap-groups-tree (static and dynamic quotas, surplus on for some groups and off for others,
# no oversubscription, slot weights) and snap-groups-tree-unweighted (slot counts, remainders
# recovered round-robin, oversubscription as by default, surplus on by default).
# Run as root with ANCHOR_DIR (anchor scripts) and optionally ANCHOR_ROOT (chroot) set.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/capture-scenario.sh" "$HERE/gen-groups-tree.py" "$HERE/snap-groups-tree"
"$HERE/capture-scenario.sh" "$HERE/gen-groups-tree.py" "$HERE/snap-groups-tree-unweighted" unweighted
