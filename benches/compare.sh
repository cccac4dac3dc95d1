#!/usr/bin/env bash
# compare.sh -- libclassad (HTCondor 23.9.6) and classad-rs, side by side, on the same
# synthetic ads and the same pool sample: runs the anchor benchmarks
# (../shared/anchor/classad-bench.sh, anchor/parse-pool.sh and anchor/batch-match.sh, which
# need root and the HTCondor chroot; skipped with a message if either is missing), then our
# criterion benchmarks, and prints markdown tables of ns/op, of milliseconds per pool
# sample and of ns per (job, machine) pair in batch matching.
#
# Usage (from anywhere; as root to get the libclassad column):
#   benches/compare.sh [N_PARSE=20000] [M_MACHINES=20000] [REPS=7] [SLOTS=100000]
# Environment:
#   ANCHOR_BENCH     the anchor script     (default ../shared/anchor/classad-bench.sh next to the repository)
#   ANCHOR_ROOT      the chroot it uses    (default /tmp/anchor/trixie)
#   CRITERION_ARGS   extra criterion flags (e.g. "--measurement-time 10")
#   OUT_DIR          where the raw outputs go (default target/bench-compare)
#
# libclassad's figure is the best of REPS runs of one pass over the ads; ours is criterion's
# mean (point estimate) per iteration, one iteration being one ad parsed or one machine
# evaluated against. The two benchmarks are never run at the same time.
set -euo pipefail

N_PARSE=${1:-20000}
M_MACHINES=${2:-20000}
REPS=${3:-7}
SLOTS=${4:-100000}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
ANCHOR_BENCH=${ANCHOR_BENCH:-$ROOT/../shared/anchor/classad-bench.sh}
ANCHOR_ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
OUT_DIR=${OUT_DIR:-$TARGET/bench-compare}
mkdir -p "$OUT_DIR"

# ---- libclassad
: >"$OUT_DIR/libclassad.txt"
if [ "$(id -u)" != 0 ]; then
	echo "compare.sh: not root, skipping the libclassad benchmark (it runs in a chroot)" >&2
elif [ ! -x "$ANCHOR_ROOT/usr/bin/g++" ] || [ ! -f "$ANCHOR_BENCH" ]; then
	echo "compare.sh: no anchor chroot at $ANCHOR_ROOT or no $ANCHOR_BENCH, skipping libclassad" >&2
else
	echo "== libclassad: $ANCHOR_BENCH $N_PARSE $M_MACHINES $REPS" >&2
	ANCHOR_ROOT=$ANCHOR_ROOT bash "$ANCHOR_BENCH" "$N_PARSE" "$M_MACHINES" "$REPS" |
		tee "$OUT_DIR/libclassad.txt" >&2
	echo "== libclassad: $HERE/anchor/parse-pool.sh $REPS" >&2
	ANCHOR_ROOT=$ANCHOR_ROOT bash "$HERE/anchor/parse-pool.sh" "$REPS" |
		tee -a "$OUT_DIR/libclassad.txt" >&2
	echo "== libclassad: $HERE/anchor/batch-match.sh $M_MACHINES $SLOTS $REPS" >&2
	ANCHOR_ROOT=$ANCHOR_ROOT bash "$HERE/anchor/batch-match.sh" "$M_MACHINES" "$SLOTS" "$REPS" |
		tee -a "$OUT_DIR/libclassad.txt" >&2
fi

# ---- classad-rs
echo "== classad-rs: cargo bench -p classad-benches (CLASSAD_BENCH_MACHINES=$M_MACHINES)" >&2
# Drop our previous results so that a benchmark that no longer runs cannot leave a stale figure.
rm -rf "$TARGET/criterion/parse" "$TARGET/criterion/eval" "$TARGET/criterion/stream" "$TARGET/criterion/batch"
# shellcheck disable=SC2086 # CRITERION_ARGS is a list of flags
(cd "$ROOT" && CLASSAD_BENCH_MACHINES=$M_MACHINES CLASSAD_BENCH_SLOTS=$SLOTS \
	cargo bench -p classad-benches --bench classad --bench matching -- ${CRITERION_ARGS:-}) 2>&1 |
	tee "$OUT_DIR/classad-rs.txt" >&2

# ---- the table
python3 - "$OUT_DIR/libclassad.txt" "$TARGET/criterion" <<'EOF'
import glob, json, os, sys

anchor_out, criterion_dir = sys.argv[1], sys.argv[2]

# The anchor's last JSON line: {"parse_machine_new_syntax_ns": 28894.6, ...},
# parse-pool.sh's: {"bench": "libclassad-pool", "parse_long_format_ms": 113.2, ...}
# and batch-match.sh's, one per input: {"bench": "libclassad-batch", "label": ..., ...}
anchor, pool, batch = {}, {}, {}
with open(anchor_out) as f:
    for line in f:
        if line.startswith("{") and '"bench":"libclassad"' in line:
            anchor = json.loads(line)
        if line.startswith("{") and '"bench": "libclassad-pool"' in line:
            pool = json.loads(line)
        if line.startswith("{") and '"bench": "libclassad-batch"' in line:
            record = json.loads(line)
            batch[record["label"]] = record

# Criterion: <dir>/<group>/<function>/new/{benchmark,estimates}.json, mean in ns/iteration;
# `per_element` divides it by the benchmark's throughput (pairs per pass in batch matching).
ours, per_element = {}, {}
for bench in glob.glob(os.path.join(criterion_dir, "*", "*", "new", "benchmark.json")):
    with open(bench) as f:
        meta = json.load(f)
    name = meta["function_id"]
    with open(os.path.join(os.path.dirname(bench), "estimates.json")) as f:
        ours[name] = json.load(f)["mean"]["point_estimate"]
    elements = (meta.get("throughput") or {}).get("Elements")
    if elements:
        per_element[name] = ours[name] / elements

# (our benchmark, the anchor's measurement it corresponds to or None)
ROWS = [
    ("parse_machine_new_syntax", "parse_machine_new_syntax"),
    ("parse_job_new_syntax", "parse_job_new_syntax"),
    # libclassad's fastest way to the same ads: `Name = value` lines through its expression
    # cache (its new-syntax parser does not use the cache)
    ("parse_machine_new_syntax", "parse_machine_lines_cache"),
    ("parse_job_new_syntax", "parse_job_lines_cache"),
    ("parse_pool_slot_ad", None),
    ("eval_job_requirements", "eval_job_requirements"),
    ("symmetric_match", "symmetric_match_unoptimized"),
    ("eval_machine_start", None),
    ("eval_job_requirements_fixed_pair", "eval_job_requirements_fixed_pair"),
    ("eval_pre_job_rank", "eval_pre_job_rank"),
    ("eval_job_requirements_prepared", "eval_job_requirements"),
    ("eval_job_requirements_prepared_fixed_pair", "eval_job_requirements_fixed_pair"),
]

def fmt(x):
    return "n/a" if x is None else f"{x:,.1f}"

print("| measurement | libclassad ns/op | classad-rs ns/op | speed-up (x) |")
print("|---|---:|---:|---:|")
for name, theirs_name in ROWS:
    mine = ours.get(name)
    theirs = anchor.get(f"{theirs_name}_ns") if theirs_name else None
    label = name if theirs_name in (None, name) else f"{name} (libclassad: {theirs_name})"
    speedup = f"{theirs / mine:,.1f}" if mine and theirs else "n/a"
    print(f"| {label} | {fmt(theirs)} | {fmt(mine)} | {speedup} |")
if not anchor:
    print("\n(no libclassad figures: the anchor benchmark was skipped)")

# The pool sample, read whole: milliseconds per pass.
print()
print("| pool sample (4.4 MB, old format) | libclassad ms | classad-rs ms | speed-up (x) |")
print("|---|---:|---:|---:|")
mine = ours.get("stream_pool_old")
mine_ms = mine / 1e6 if mine else None
for label, key in [("Python `classad.parseAds` (old)", "python_parse_ads_ms"),
                   ("C++ line-by-line parse (parse-long-format.cpp)", "parse_long_format_ms"),
                   ("C++ line-by-line parse, expression cache on", "parse_long_format_cache_ms")]:
    theirs = pool.get(key)
    speedup = f"{theirs / mine_ms:,.1f}" if mine_ms and theirs else "n/a"
    print(f"| stream_pool_old vs {label} | {fmt(theirs)} | {fmt(mine_ms)} | {speedup} |")
for name in ["stream_pool_new", "stream_pool_json", "stream_pool_xml"]:
    ns = ours.get(name)
    print(f"| {name} | n/a | {fmt(ns / 1e6 if ns else None)} | n/a |")

# Batch matching: ns per (job, machine) pair.
print()
print("| batch matching, ns per pair | libclassad per pair | libclassad optimized | classad-rs 1 thread "
      "| classad-rs all cores | classad-rs cold | speed-up 1 thread (x) | speed-up all cores (x) | libclassad matches |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
labels = sorted({n[len("batch_"):-len("_parallel")] for n in per_element if n.startswith("batch_") and n.endswith("_parallel")})
for label in labels:
    theirs = batch.get(label, {})
    base = theirs.get("symmetric_match_ranked_ns")
    one, many = per_element.get(f"batch_{label}"), per_element.get(f"batch_{label}_parallel")
    up = lambda mine: f"{base / mine:,.1f}" if base and mine else "n/a"
    cold = per_element.get(f"batch_{label}_cold")
    print(f"| {label} | {fmt(base)} | {fmt(theirs.get('symmetric_match_optimized_ranked_ns'))} | {fmt(one)} "
          f"| {fmt(many)} | {fmt(cold)} | {up(one)} | {up(many)} | {theirs.get('matches', 'n/a')} |")
EOF
