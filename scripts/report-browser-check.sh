#!/usr/bin/env bash
# Renders a `timewarp report` page in headless Chromium: checks that it
# loads without console messages or network errors, that its four plots are
# in the rendered DOM, and writes a screenshot to look at.
#
#   scripts/report-browser-check.sh [REPORT.html [SCREENSHOT.png]]
#
# Without REPORT.html it builds timewarp (release), runs the default PHOLD
# model optimistically on 2 threads and reports that run. Needs Chromium
# (Debian: apt-get install chromium). The test suite runs this check on a
# report (crates/timewarp-cli/tests/browser.rs); CI installs Chromium for it.
set -euo pipefail
cd "$(dirname "$0")/.."

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser="$b"; break; fi
done
if [ -z "$browser" ]; then
  echo "error: no Chromium found; install it (Debian: sudo apt-get install chromium) and run again" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
report="${1:-}"
shot="${2:-target/report-screenshot.png}"
if [ -z "$report" ]; then
  cargo build --release -q -p timewarp-cli
  target/release/timewarp run phold --sync optimistic --threads 2 --quiet --stats-json "$work/run.json"
  report="$work/report.html"
  target/release/timewarp report "$work/run.json" -o "$report"
fi
[ -f "$report" ] || { echo "error: no report at $report" >&2; exit 2; }
url="file://$(realpath "$report")"
mkdir -p "$(dirname "$shot")"

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
  --disable-component-update --disable-sync --enable-logging=stderr --v=0)

# The rendered DOM (after parsing and layout), and the log of loading it.
"$browser" "${flags[@]}" --user-data-dir="$work/profile-dom" --dump-dom "$url" >"$work/dom.html" 2>"$work/dom.log"
"$browser" "${flags[@]}" --user-data-dir="$work/profile-shot" --window-size=1280,2400 \
  --screenshot="$(realpath -m "$shot")" "$url" >/dev/null 2>"$work/shot.log"

failed=0
# Console output of the page (errors, warnings, blocked or failed loads).
if grep -h -E 'CONSOLE|Uncaught|net::ERR_|Failed to load resource|Refused to' "$work/dom.log" "$work/shot.log"; then
  echo "error: the page wrote to the console or failed to load something (above)" >&2
  failed=1
fi
if grep -o -E '(src|href)="(https?:)?//[^"]*' "$work/dom.html"; then
  echo "error: the page refers to something outside itself (above)" >&2
  failed=1
fi
svgs=$(grep -o '<svg' "$work/dom.html" | wc -l)
if [ "$svgs" -lt 4 ]; then
  echo "error: the rendered page has $svgs inline SVG plots, expected 4 (and a network's link picture)" >&2
  failed=1
fi
for id in summary-table configuration-table pes-table ranks-table model-results; do
  grep -q "id=\"$id\"" "$work/dom.html" || { echo "error: the rendered page lacks #$id" >&2; failed=1; }
done
if ! head -c 8 "$shot" 2>/dev/null | grep -q PNG; then
  echo "error: no screenshot written to $shot" >&2
  failed=1
fi
[ "$failed" = 0 ] || exit 1
echo "report renders in $browser without console errors: $svgs plots, all tables; screenshot $shot"
