#!/usr/bin/env bash
# Latency-load curves of the network model on a dragonfly for minimal,
# Valiant and UGAL-L routing under uniform random and group-shift
# (adversarial) traffic. Prints one markdown table per traffic pattern
# (docs/history/network-measurements.md, "Dragonfly latency–load curves"). SHAPE holds the topology options.
#   LOADS="0.1 0.3 ..." END=30000 WARMUP=10000 SHAPE="..." scripts/dragonfly-curves.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p timewarp-cli
bin="${CARGO_TARGET_DIR:-target}/release/timewarp"
LOADS=${LOADS:-"0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9"}
END=${END:-30000}
WARMUP=${WARMUP:-10000}
SHAPE=${SHAPE:-"--routers-per-group 8 --terminals-per-router 4 --global-links 4 --global-link-latency 32 --buffer-packets 8"}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for traffic in uniform group-shift; do
  echo
  echo "### $traffic traffic"
  echo
  echo "| offered load | minimal: accepted | latency (ns) | hops | valiant: accepted | latency (ns) | hops | ugal: accepted | latency (ns) | hops |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for load in $LOADS; do
    row="| $load |"
    for routing in minimal valiant ugal; do
      # shellcheck disable=SC2086 # SHAPE is a list of options
      $bin run network --topology dragonfly $SHAPE --routing "$routing" --traffic "$traffic" --load "$load" \
        --end "$END" --warmup "$WARMUP" -q --stats-json "$tmp"
      row+=$(python3 scripts/network-row.py "$tmp")
    done
    echo "$row"
  done
done
