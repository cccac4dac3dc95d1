#!/bin/sh
# Regenerates expected/ by running HTCondor's condor_transform_ads on every
# rules file and configuration here, for every job file.
#
#   ./regenerate.sh            # condor_transform_ads from PATH
#   CHROOT=/path/to/root ./regenerate.sh   # HTCondor installed in a chroot
#
# Rules files run as:   condor_transform_ads -rules rules/X.xform ITEMS=<items dir> SITE=east JOBS
#   with an empty configuration (HTCondor's defaults only);
# configurations as:    CONDOR_CONFIG=configs/X.conf condor_transform_ads -jobtransforms "NAMES" ITEMS=... SITE=east JOBS
#   where NAMES is the "# jobtransforms:" line of the file.
# Expected outputs: expected/<case>__<jobs>.out (stdout) and .err (stderr);
# for rules files also .json (the same run with -out:json -).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/transforms-corpus.$$
if [ -n "${CHROOT:-}" ]; then
    root=$CHROOT
else
    root=
fi
mkdir -p "$root$work"
trap 'rm -rf "$root$work"' EXIT
cp -r "$here/jobs" "$here/rules" "$here/configs" "$here/items" "$root$work/"
: > "$root$work/empty.conf"

run() { # env-config, args...
    cfg=$1
    shift
    if [ -n "$root" ]; then
        chroot "$root" env CONDOR_CONFIG="$cfg" sh -c 'cd "$0" && exec condor_transform_ads "$@"' "$work" "$@"
    else
        (cd "$work" && CONDOR_CONFIG="$cfg" condor_transform_ads "$@")
    fi
}

rm -rf "$here/expected"
mkdir -p "$here/expected"
for jobs in "$here"/jobs/*.ad; do
    j=$(basename "$jobs" .ad)
    for rules in "$here"/rules/*.xform; do
        r=$(basename "$rules" .xform)
        run "$work/empty.conf" -rules "rules/$r.xform" ITEMS="$work/items" SITE=east "jobs/$j.ad" \
            > "$here/expected/${r}__$j.out" 2> "$here/expected/${r}__$j.err" || true
        run "$work/empty.conf" -out:json - -rules "rules/$r.xform" ITEMS="$work/items" SITE=east "jobs/$j.ad" \
            > "$here/expected/${r}__$j.json" 2> /dev/null || true
    done
    for conf in "$here"/configs/*.conf; do
        c=$(basename "$conf" .conf)
        names=$(sed -n 's/^# jobtransforms: *//p' "$conf")
        run "$work/configs/$c.conf" -jobtransforms "$names" ITEMS="$work/items" SITE=east "jobs/$j.ad" \
            > "$here/expected/${c}__$j.out" 2> "$here/expected/${c}__$j.err" || true
    done
done
echo "expected/: $(ls "$here/expected" | grep -c '\.out$') outputs"
