#!/usr/bin/env bash
# Screenshots of a report as a browser draws it: the whole report.html
# page, and each chart's standalone SVG (charts/NAME.svg) at its own size,
# as PNG files, to look at the charts the way their readers will; then
# measures every text of every chart of the page as Chromium lays it out
# (its own fonts) and fails if two texts overlap (the y axis title and the
# tick labels, a legend name and the next) or a text leaves its chart.
# Needs Chromium (Debian and Ubuntu: apt-get install chromium); not run by
# the tests (negotiator-sim/tests/svg_layout.rs checks the same layout
# with estimated text widths).
#
# Usage: negotiator-sim/scripts/screenshot-report.sh REPORT [OUT_DIR]
#   REPORT   a report.html, or the directory holding it (what
#            `negotiator-sim report` wrote)
#   OUT_DIR  where the PNGs go (default: REPORT's directory/screenshots):
#            page.png (1400 pixels wide) and NAME.png per chart
# Exit status: 0 when the texts of every chart keep clear of each other,
# 1 when some overlap (each printed), 2 when Chromium fails.
# Environment: CHROMIUM (the browser to run, default: chromium, then
# chromium-browser, google-chrome), PAGE_SIZE (default 1400,3000).
set -euo pipefail

die() { printf 'screenshot-report: %s\n' "$*" >&2; exit 2; }

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

# The geometry, measured: a copy of the page with a script at its end that
# compares the boxes Chromium gives each chart's texts and writes what it
# finds into the page, which --dump-dom prints.
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
cp "$report" "$check/page.html"
cat >> "$check/page.html" << 'EOF'
<script>
(() => {
  const found = [];
  const charts = document.querySelectorAll("svg");
  // A text's own words (a legend name's hover title left out).
  const words = (t) => JSON.stringify([...t.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join(""));
  charts.forEach((svg, i) => {
    const name = (svg.closest("figure") || {}).id || `chart ${i + 1}`;
    const edge = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll("text")].map((t) => [t, t.getBoundingClientRect()]);
    for (const [t, r] of texts) {
      if (r.left < edge.left - 0.5 || r.right > edge.right + 0.5 || r.top < edge.top - 0.5 || r.bottom > edge.bottom + 0.5) {
        found.push(`${name}: ${words(t)} leaves the chart`);
      }
    }
    for (let a = 0; a < texts.length; a++) {
      for (let b = a + 1; b < texts.length; b++) {
        const [p, q] = [texts[a][1], texts[b][1]];
        if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom) {
          found.push(`${name}: ${words(texts[a][0])} overlaps ${words(texts[b][0])}`);
        }
      }
    }
  });
  const out = document.createElement("pre");
  out.id = "layout-check";
  out.textContent = found.length ? found.join("\n") : `ok: the texts of ${charts.length} charts keep clear of each other`;
  document.body.appendChild(out);
})();
</script>
EOF
dom=$("$browser" --headless --no-sandbox --disable-gpu --window-size="${PAGE_SIZE:-1400,3000}" \
    --dump-dom "file://$check/page.html" 2> /dev/null) || die "$browser failed on the layout check"
result=$(sed -n '/<pre id="layout-check">/,/<\/pre>/p' <<< "$dom" | sed 's/<[^>]*>//g; s/&quot;/"/g; s/&amp;/\&/g')
[ -n "$result" ] || die "$browser ran no layout check"
printf '%s\n' "$result"
case $result in ok:*) ;; *) exit 1 ;; esac
