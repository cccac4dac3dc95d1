#!/bin/bash
# capture-groups.sh -- snapshot of a cycle with hierarchical group quotas
# (pool made by gen-groups.py). Run as root with ANCHOR_DIR (anchor scripts) and
# optionally ANCHOR_ROOT (chroot) set; OUT selects the output directory.
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/capture-scenario.sh" "$HERE/gen-groups.py" "${OUT:-$HERE/snap-groups}"
