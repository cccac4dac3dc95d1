#!/bin/bash
# capture-groups.sh -- snapshots of cycles with hierarchical group quotas: snap-groups
# (static/dynamic quotas, a subgroup, surplus) and snap-groups-autoregroup (GROUP_AUTOREGROUP,
# no surplus, unweighted slots, custom GROUP_SORT_EXPR). Pools made by gen-groups.py.
# Run as root with ANCHOR_DIR (anchor scripts) and optionally ANCHOR_ROOT (chroot) set.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/capture-scenario.sh" "$HERE/gen-groups.py" "$HERE/snap-groups"
"$HERE/capture-scenario.sh" "$HERE/gen-groups.py" "$HERE/snap-groups-autoregroup" autoregroup
