#!/bin/sh
# Records what HTCondor's condor_transform_ads (23.9.6) makes of every
# generated rules file (rules/, from gen-rules.py) on the ten jobs of
# jobs.ad: expected/<case>.out (standard output, an empty file where it
# failed before printing) and expected/<case>.err (standard error, kept
# for reference). Run as root with HTCondor in a chroot, or with
# condor_transform_ads on the PATH:
#
#   CHROOT=/path/to/root ./record.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${CHROOT:-}
work=/tmp/transforms-generated.$$
mkdir -p "$root$work"
trap 'rm -rf "$root$work"' EXIT
cp -r "$here/rules" "$here/jobs.ad" "$root$work/"
: > "$root$work/empty.conf"
rm -rf "$here/expected"
mkdir -p "$here/expected"
n=0
for rules in "$here"/rules/*.xform; do
    case=$(basename "$rules" .xform)
    if [ -n "$root" ]; then
        chroot "$root" env CONDOR_CONFIG="$work/empty.conf" sh -c 'cd "$0" && exec condor_transform_ads -rules "rules/$1.xform" jobs.ad' "$work" "$case"
    else
        (cd "$work" && CONDOR_CONFIG="$work/empty.conf" condor_transform_ads -rules "rules/$case.xform" jobs.ad)
    fi > "$here/expected/$case.out" 2> "$here/expected/$case.err" || true
    n=$((n + 1))
done
echo "expected/: $n cases"
