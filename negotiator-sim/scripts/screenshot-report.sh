#!/usr/bin/env bash
# Screenshots of a report as a browser draws it: the whole report.html
# page, and each chart's standalone SVG (charts/NAME.svg) at its own size,
# as PNG files, to look at the charts the way their readers will. Needs
# Chromium (Debian and Ubuntu: apt-get install chromium); not run by the
# tests.
#
# Usage: negotiator-sim/scripts/screenshot-report.sh REPORT [OUT_DIR]
#   REPORT   a report.html, or the directory holding it (what
#            `negotiator-sim report` wrote)
#   OUT_DIR  where the PNGs go (default: REPORT's directory/screenshots):
#            page.png (1400 pixels wide) and NAME.png per chart
# Environment: CHROMIUM (the browser to run, default: chromium, then
# chromium-browser, google-chrome), PAGE_SIZE (default 1400,3000).
set -euo pipefail

die() { printf 'screenshot-report: %s\n' "$*" >&2; exit 1; }

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: $0 REPORT [OUT_DIR]"
report=$1
[ -d "$report" ] && report=$report/report.html
[ -f "$report" ] || die "$report: no such report"
dir=$(cd "$(dirname "$report")" && pwd)
report=$dir/$(basename "$report")
out=${2:-$dir/screenshots}
mkdir -p "$out"
out=$(cd "$out" && pwd)

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
    for b in chromium chromium-browser google-chrome; do
        if command -v "$b" > /dev/null; then browser=$b; break; fi
    done
fi
[ -n "$browser" ] || die "no Chromium found: install it (apt-get install chromium) or set CHROMIUM"

# One screenshot: URL, PNG file, window size "W,H".
shot() {
    # --no-sandbox: Chromium refuses to run as root otherwise (containers).
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --screenshot="$2" --window-size="$3" "$1" > /dev/null 2>&1 ||
        die "$browser failed on $1"
    [ -s "$2" ] || die "$browser wrote no $2"
    printf '%s\n' "$2"
}

shot "file://$report" "$out/page.png" "${PAGE_SIZE:-1400,3000}"
if [ -d "$dir/charts" ]; then
    for svg in "$dir"/charts/*.svg; do
        [ -e "$svg" ] || continue
        # The charts are 760 by 400 pixels (see report/svg.rs).
        shot "file://$svg" "$out/$(basename "$svg" .svg).png" 760,400
    done
fi
