#!/bin/sh
# Regenerates htcondor_policy.txt and htcondor_defaults.txt from HTCondor
# 23.9.6 inside the anchor chroot. Run as root:
#   sh cedar/tests/data/policy/regenerate.sh [/work/chroot]
# Needs the HTCondor git mirror for the v23.9.6 classad headers.
set -eu
ROOT=${1:-/work/chroot}
REPO=${HTCONDOR_REPO:-/work/.mirror/htcondor+htcondor/repo}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK="$ROOT/tmp/cedar-policy"
mkdir -p "$WORK/classad"
for f in $(git -C "$REPO" ls-tree --name-only v23.9.6 src/classad/classad/); do
    git -C "$REPO" show "v23.9.6:$f" > "$WORK/classad/$(basename "$f")"
done
cp "$HERE/htcondor_policy.cpp" "$WORK/"
chroot "$ROOT" sh -c 'cd /tmp/cedar-policy && g++ -std=c++17 -I. -o policy htcondor_policy.cpp \
    /usr/lib/libcondor_utils_23_9_6.so /usr/lib/libclassad.so && CONDOR_CONFIG=ONLY_ENV ./policy' \
    > "$HERE/htcondor_policy.txt"
# The built-in defaults of the knobs the policy reads, with no config file.
for knob in SEC_DEFAULT_AUTHENTICATION_METHODS SEC_DEFAULT_CRYPTO_METHODS SEC_DEFAULT_AUTHENTICATION \
    SEC_DEFAULT_ENCRYPTION SEC_DEFAULT_INTEGRITY SEC_DEFAULT_NEGOTIATION SEC_DEFAULT_SESSION_DURATION \
    SEC_DEFAULT_SESSION_LEASE SEC_CLIENT_AUTHENTICATION_METHODS SEC_READ_AUTHENTICATION_METHODS \
    LEGACY_ALLOW_SEMANTICS; do
    value=$(chroot "$ROOT" env CONDOR_CONFIG=ONLY_ENV condor_config_val "$knob" 2>/dev/null || echo "<undefined>")
    printf '%s\t%s\n' "$knob" "$value"
done > "$HERE/htcondor_defaults.txt"
wc -l "$HERE/htcondor_policy.txt"
cat "$HERE/htcondor_defaults.txt"

# SecMan::FillInSecurityPolicyAd for each case of config_cases.txt.
mkdir -p "$WORK/classad" "$WORK/cases"
for f in $(git -C "$REPO" ls-tree --name-only v23.9.6 src/classad/classad/); do
    git -C "$REPO" show "v23.9.6:$f" > "$WORK/classad/$(basename "$f")"
done
cp "$HERE/htcondor_config_policy.cpp" "$WORK/"
chroot "$ROOT" sh -c 'cd /tmp/cedar-policy && g++ -std=c++17 -I. -o config_policy htcondor_config_policy.cpp \
    /usr/lib/libcondor_utils_23_9_6.so /usr/lib/libclassad.so'
: > "$HERE/htcondor_config_policy.txt"
grep -v '^#' "$HERE/config_cases.txt" | while IFS= read -r line; do
    case "$line" in
    case\ *)
        set -- $line
        name=$2; subsys=$3; perm=$4; force=$5
        : > "$WORK/cases/$name.config"
        ;;
    end)
        out=$(chroot "$ROOT" env CONDOR_CONFIG="/tmp/cedar-policy/cases/$name.config" \
            /tmp/cedar-policy/config_policy "$name" "$subsys" "$perm" "$force" 2>&1) || true
        case "$out" in
        result*) printf '%s\n' "$out" ;;
        *) printf 'result\tname=%s\tok=EXCEPT\tmessage=%s\n' "$name" "$(printf '%s' "$out" | grep -o 'SECMAN:[^"]*' | head -1)" ;;
        esac >> "$HERE/htcondor_config_policy.txt"
        ;;
    *) printf '%s\n' "$line" >> "$WORK/cases/$name.config" ;;
    esac
done
rm -rf "$WORK"
cat "$HERE/htcondor_config_policy.txt"
