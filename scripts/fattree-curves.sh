#!/usr/bin/env bash
# Accepted-offered and latency-load curves of the network model on a
# fat-tree under uniform random traffic, updown and updown-adaptive
# routing, on a full-bisection tree and on a pruned one. Prints one
# markdown table per shape (docs/history/network-measurements.md, "Fat-tree
# accepted–offered and latency–load curves").
#   LOADS="0.1 0.3 ..." END=30000 WARMUP=10000 scripts/fattree-curves.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p timewarp-cli
bin="${CARGO_TARGET_DIR:-target}/release/timewarp"
LOADS=${LOADS:-"0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0"}
END=${END:-30000}
WARMUP=${WARMUP:-10000}
FULL=${FULL:-"--radix 16 --levels 3 --nodes 1024"}
PRUNED=${PRUNED:-"--radix 16 --levels 3 --nodes 1024 --top-uplinks 4"}
COMMON=${COMMON:-"--buffer-packets 8"}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for shape in "$FULL" "$PRUNED"; do
  echo
  echo "### $shape"
  echo
  echo "| offered load | updown: accepted | latency (ns) | hops | updown-adaptive: accepted | latency (ns) | hops |"
  echo "|---|---|---|---|---|---|---|"
  for load in $LOADS; do
    row="| $load |"
    for routing in updown updown-adaptive; do
      # shellcheck disable=SC2086 # shape and COMMON are lists of options
      $bin run network --topology fattree $shape $COMMON --routing "$routing" --load "$load" \
        --end "$END" --warmup "$WARMUP" -q --stats-json "$tmp"
      row+=$(python3 scripts/network-row.py "$tmp")
    done
    echo "$row"
  done
done
