#!/usr/bin/env bash
# Latency-load and accepted-offered curves of the network model on a 16-ary
# 2-cube torus (dimension-order routing, uniform random traffic), for input-
# and output-buffered switches, 2 and 4 virtual channels, buffers of 2 and 8
# packets, and adaptive routing with 4 virtual channels. Prints one markdown
# table per configuration (docs/history/network-measurements.md; the summary
# in docs/network.md). CONFIGS entries are
# switch:vcs:buffer-packets[:routing].
#   LOADS="0.1 0.2 ..." END=40000 WARMUP=10000 scripts/network-curves.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
bin="${CARGO_TARGET_DIR:-target}/release/timewarp"
LOADS=${LOADS:-"0.1 0.2 0.3 0.35 0.4 0.45 0.5 0.6 0.8 1.0"}
END=${END:-40000}
WARMUP=${WARMUP:-10000}
CONFIGS=${CONFIGS:-"input-buffered:2:2 input-buffered:2:8 input-buffered:4:8 output-buffered:2:2 output-buffered:2:8 output-buffered:4:8 input-buffered:4:8:adaptive output-buffered:4:8:adaptive"}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for c in $CONFIGS; do
  IFS=: read -r sw vcs buf routing <<<"$c"
  routing=${routing:-dimension-order}
  echo
  echo "### $sw, $vcs virtual channels, $buf-packet buffers, $routing routing"
  echo
  echo "| offered load | measured offered | accepted | latency mean (ns) | p50 | p99 | max link busy |"
  echo "|---|---|---|---|---|---|---|"
  for load in $LOADS; do
    $bin run network --topology torus --dims 16,16 --traffic uniform --load "$load" --switch "$sw" \
      --routing "$routing" --vcs "$vcs" --buffer-packets "$buf" --end "$END" --warmup "$WARMUP" -q --stats-json "$tmp"
    python3 - "$tmp" "$load" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["model_results"]
print(f"| {sys.argv[2]} | {r['measured_offered_load']:.3f} | {r['accepted_throughput']:.3f} | "
      f"{r['latency_mean']:.0f} | {r['latency_p50']:.0f} | {r['latency_p99']:.0f} | {r['max_link_utilisation']:.2f} |")
PY
  done
done
