#!/usr/bin/env bash
# Runs the README's commands as a reader copies them, and checks what they
# print: run by ./run-tests (so by CI) after the test suites.
#
#   1. The first block has two commands, the main job and ./run-tests.
#   2. The first command (a captured negotiation cycle replayed), verbatim:
#      HTCondor's 944 matches, 250/250/269/175 per submitter; and the quick
#      build it makes leaves out the dependencies it does not need.
#   3. The `classad eval` example right below it, verbatim.
#   4. The `classad lint` example (the `classad` command run from this
#      clone): it finds the misspelt Memroy and the `== UNDEFINED`, and
#      nothing of the job's own attributes.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { printf '\nreadme-commands: %s\n' "$*" >&2; exit 1; }

# The lines of the N-th ```sh block of README.md.
block() {
    awk -v want="$1" '/^```sh$/ { n++; inside = (n == want); next } /^```/ { inside = 0 } inside' README.md
}

mapfile -t first < <(block 1)
[ "${#first[@]}" -eq 2 ] || die "the README's first block has ${#first[@]} lines, not the two commands: ${first[*]}"
[ "${first[1]}" = ./run-tests ] || die "the README's second command is '${first[1]}', not ./run-tests"
main_job=${first[0]}
case $main_job in
    matchmaker/tests/data/cycle/*/replay.sh*) ;;
    *) die "the README's first command is no longer a replayed cycle: update this check ($main_job)" ;;
esac

printf '$ %s\n' "$main_job"
# As a reader runs it: no NEGOTIATOR_SIM, so negotiator-sim from the PATH
# or else the clone's quick build. Progress lines go to stderr.
out=$(env -u NEGOTIATOR_SIM bash -c "$main_job" 2> /dev/null) || die "the first command failed: $main_job"
printf '%s\n' "$out"
for want in "944 matches, 6 rejections" \
    "^bench01@anchor.local .* 250 .*all 250 idle jobs matched" \
    "^bench02@anchor.local .* 250 .*all 250 idle jobs matched" \
    "^bench03@anchor.local .* 269 " "^bench04@anchor.local .* 175 "; do
    grep -q -- "$want" <<< "$out" || die "the first command: no '$want' in its output"
done
# The quick build (replay.sh's cargo fallback) compiles no Parquet, PNG
# or allocator crates: about half the compiling of the full command.
quick=$(cargo tree --locked -p negotiator-sim --no-default-features -e normal,build --prefix none)
for heavy in parquet plotters png dejavu mimalloc; do
    if grep -q "^$heavy v" <<< "$quick"; then
        die "the first command's quick build (negotiator-sim --no-default-features) compiles $heavy"
    fi
done
grep -q -- "--profile quick -p negotiator-sim --no-default-features" "${main_job%% *}" ||
    die "${main_job%% *} no longer builds negotiator-sim quick"

mapfile -t eval_block < <(block 2)
[ "${#eval_block[@]}" -eq 1 ] || die "the README's second block is not the one classad eval command"
case ${eval_block[0]} in
    "cargo run -q --bin classad -- eval "*) ;;
    *) die "the README's second block is not the classad eval example: ${eval_block[0]}" ;;
esac
printf '$ %s\n' "${eval_block[0]}"
values=$(bash -c "${eval_block[0]}") || die "the classad eval example failed"
printf '%s\n' "$values"
[ "$values" = "$(printf 'true\n1750')" ] || die "the classad eval example printed '$values', not true and 1750"

lint=$(grep -m1 '^classad lint --my examples/job.ad ' README.md) || die "no classad lint example in the README"
printf '$ %s\n' "$lint"
found=$(bash -c "classad() { cargo run -q --locked --bin classad -- \"\$@\"; }; $lint") && die "the lint example found nothing"
printf '%s\n' "$found"
grep -q "no reference ad defines Memroy (did you mean Memory?)" <<< "$found" || die "the lint example: Memroy not found"
grep -q "error undefined-comparison" <<< "$found" || die "the lint example: the == UNDEFINED not found"
[ "$(grep -c ': warning \|: error ' <<< "$found")" -eq 2 ] || die "the lint example: more than its two findings"
