#!/usr/bin/env bash
# Builds the C ABI's examples as a user builds them (capi/install.sh into a
# scratch prefix, pkg-config) and checks what they print against the Rust
# command-line tools' answers on a captured pool (200 slots, 200 jobs,
# three submitters): the C one under valgrind (every leak kind and every
# invalid access an error; valgrind.supp lists the process-wide tables
# that are not leaks), the Go one through cgo. Run by ./run-tests.
# Needs cc, valgrind, go and pkg-config (Debian: build-essential valgrind
# golang-go pkg-config).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
snap=$repo/matchmaker/tests/data/cycle/snap-200-200-3-6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target=${CARGO_TARGET_DIR:-$repo/target}

CLASSAD_CAPI_PROFILE=dev "$here/../install.sh" "$work/prefix" 2> /dev/null
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig

# The job: the first ad of the snapshot's jobs.
python3 - "$snap/jobs.ad.gz" > "$work/job.ad" << 'PY'
import gzip, sys
print(gzip.open(sys.argv[1], "rt").read().split("\n\n")[0])
PY
args=("$snap/slots.ad" "$work/job.ad" "$snap/config-negotiator.dump" "$snap/jobs.ad.gz" "$snap/submitters.ad")

# What the Rust tools say.
(cd "$repo" && cargo build --locked --quiet -p classad-cli -p negotiator-sim)
"$target/debug/classad" analyze --json --job "$work/job.ad" --machines "$snap/slots.ad" > "$work/analyze.json"
"$target/debug/negotiator-sim" cycle -q --json --slots "$snap/slots.ad" --jobs "$snap/jobs.ad.gz" \
    --config "$snap/config-negotiator.dump" --submitters "$snap/submitters.ad" --resend-matched-jobs \
    > "$work/cycle.json"
python3 "$here/expected.py" "$work/analyze.json" "$work/cycle.json" > "$work/expected"
compared='^(matching|pair by pair|match|submitter|from the files)'

compare() { # NAME OUTPUT
    if ! grep -E "$compared" "$2" | diff -u "$work/expected" - > "$work/$1.diff"; then
        head -40 "$work/$1.diff" >&2
        echo "capi examples: the $1 example's output differs from the Rust tools' (above)" >&2
        exit 1
    fi
    echo "capi examples: $1: $(grep -c '^match ' "$2") matches, as the Rust tools say"
}

echo "capi examples: C (static library, valgrind)"
cc -std=c11 -Wall -Wextra -Werror -g $(pkg-config --cflags classad-capi) "$here/c/pool_and_cycle.c" \
    "$work/prefix/lib/libclassad_capi.a" -lpthread -ldl -lm \
    -o "$work/pool_and_cycle"
valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
    --suppressions="$here/valgrind.supp" "$work/pool_and_cycle" "${args[@]}" > "$work/c.out" 2> "$work/c.valgrind" || {
    status=$?
    tail -60 "$work/c.valgrind" >&2
    echo "capi examples: the C example under valgrind exited $status (99: valgrind found an error, above)" >&2
    exit 1
}
compare C "$work/c.out"

echo "capi examples: Go (cgo, shared library)"
# Go's caches under the target directory when the environment names none
# (CI's may have no HOME).
export GOCACHE=${GOCACHE:-$target/go/cache} GOPATH=${GOPATH:-$target/go/path}
(cd "$here/go" && go build -o "$work/pool_and_cycle_go" .)
LD_LIBRARY_PATH=$work/prefix/lib "$work/pool_and_cycle_go" "${args[@]}" > "$work/go.out"
compare Go "$work/go.out"
