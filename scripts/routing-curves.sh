#!/usr/bin/env bash
# Latency-load curves of the routings added for issue 32, small networks:
# ROMM against dimension order and Valiant on an 8 x 8 mesh and torus under
# transpose (adversarial for dimension order) and uniform traffic; PAR and
# UGAL-L with and without a threshold and UGAL-G against minimal routing on the
# 72-node dragonfly (a = 4, p = 2, h = 2) under uniform and group-shift
# traffic. One markdown table per case (docs/history/network-measurements.md,
# "Routing latency–load curves"; the routings: docs/network.md, "Routing").
#   LOADS="0.1 0.3 ..." END=20000 WARMUP=5000 scripts/routing-curves.sh [cubes|dragonfly]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p timewarp-cli
bin="${CARGO_TARGET_DIR:-target}/release/timewarp"
LOADS=${LOADS:-"0.1 0.2 0.3 0.4 0.5 0.7 0.9"}
END=${END:-20000}
WARMUP=${WARMUP:-5000}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

table() { # title, common options, then "label|options" per column
  local title=$1 common=$2; shift 2
  echo
  echo "#### $title"
  echo
  local head="| offered load |" rule="|---|"
  for col in "$@"; do head+=" ${col%%|*}: accepted | latency (ns) | hops |"; rule+="---|---|---|"; done
  echo "$head"
  echo "$rule"
  for load in $LOADS; do
    local row="| $load |"
    for col in "$@"; do
      # shellcheck disable=SC2086 # option lists
      $bin run network $common ${col#*|} --load "$load" --end "$END" --warmup "$WARMUP" -q --stats-json "$tmp"
      row+=$(python3 scripts/network-row.py "$tmp")
    done
    echo "$row"
  done
}

if [ "${1:-cubes}" = cubes ] || [ "${1:-}" = all ]; then
  for traffic in transpose uniform; do
    table "mesh 8 × 8, $traffic" "--topology mesh --dims 8,8 --buffer-packets 8 --traffic $traffic" \
      "dimension-order|--vcs 2" "romm|--routing romm --vcs 2" "valiant|--routing valiant --vcs 2"
    table "torus 8 × 8, $traffic" "--topology torus --dims 8,8 --buffer-packets 8 --traffic $traffic" \
      "dimension-order|--vcs 4" "romm|--routing romm --vcs 4" "valiant|--routing valiant --vcs 4"
  done
fi
if [ "${1:-}" = dragonfly ] || [ "${1:-}" = all ]; then
  for traffic in uniform group-shift; do
    table "dragonfly a = 4, p = 2, h = 2, $traffic" \
      "--topology dragonfly --link-latency 3 --global-link-latency 11 --router-delay 5 --buffer-packets 8 --vcs 6 --traffic $traffic" \
      "minimal|--routing minimal" "ugal|--routing ugal" "ugal T=4|--routing ugal --ugal-threshold 4" "par|--routing par" \
      "ugal-g|--routing ugal-g"
  done
fi
