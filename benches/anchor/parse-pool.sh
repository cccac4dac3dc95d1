#!/usr/bin/env bash
# parse-pool.sh -- libclassad (HTCondor 23.9.6, in the anchor chroot) reading the pool sample
# (classad/tests/data/pool_sample.ads.gz, decompressed: 4.4 MB of `condor_status -l` output):
#   * parse-long-format.cpp: C++ against libclassad, line by line as HTCondor's tools read
#     long-format files (the value of each `Name = value` parsed in old syntax, then inserted),
#     and again with libclassad's expression cache on (InsertViaCache, as the daemons insert);
#   * parse-pool.py: the Python bindings' `classad.parseAds(text, classad.Parser.Old)`.
# Both print the best of REPS passes; the last output line is one JSON object with both figures.
#
# Usage (as root on the host):  benches/anchor/parse-pool.sh [REPS=7]
# Environment: ANCHOR_ROOT, the chroot made by ../shared/anchor/setup-chroot.sh
# (default /tmp/anchor/trixie).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
REPS=${1:-7}
[ "$(id -u)" = 0 ] || { echo "parse-pool.sh: must run as root (chroot)" >&2; exit 1; }
inchroot() {
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 "$@"
}
BUILD=$ROOT/opt/anchor/build
mkdir -p "$BUILD"
gzip -dc "$REPO/classad/tests/data/pool_sample.ads.gz" >"$BUILD/pool_sample.ads"
cp "$HERE/parse-pool.py" "$BUILD/parse-pool.py"
if ! cmp -s "$HERE/parse-long-format.cpp" "$BUILD/parse-long-format.cpp" ||
	[ ! -x "$ROOT/usr/local/bin/anchor-parse-long-format" ]; then
	cp "$HERE/parse-long-format.cpp" "$BUILD/parse-long-format.cpp"
	inchroot g++ -O2 -std=c++17 -o /usr/local/bin/anchor-parse-long-format \
		/opt/anchor/build/parse-long-format.cpp -lclassad
fi
cpp=$(inchroot /usr/local/bin/anchor-parse-long-format /opt/anchor/build/pool_sample.ads "$REPS")
py=$(inchroot python3 /opt/anchor/build/parse-pool.py /opt/anchor/build/pool_sample.ads "$REPS")
echo "$cpp" >&2
echo "$py" >&2
python3 -c 'import json, sys
cpp, py = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(json.dumps({"bench": "libclassad-pool", "parse_long_format_ms": cpp["parse_long_format_ms"],
                  "parse_long_format_cache_ms": cpp["parse_long_format_cache_ms"],
                  "python_parse_ads_ms": py["python_parse_ads_ms"], "bytes": cpp["bytes"],
                  "ads": cpp["ads"], "attributes": cpp["attributes"]}))' "$cpp" "$py"
