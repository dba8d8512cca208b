#!/usr/bin/env bash
# Issue 60's table: marginal instructions per committed event of the
# sequential network model (and PHOLD beside it) on the configurations the
# issue measured, for each binary given, one row per configuration.
#   scripts/network-cost-table.sh BIN [BIN...]
# Compare a build of aa12e0e (or 3aa2241, the same network model) with
# target/release/timewarp; docs/performance.md has the result.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 BIN [BIN...]" >&2; exit 2; }
C=../shared/data/codes
[ -d "$C" ] || C=crates/timewarp-cli/tests/data/codes
rows=(
  "theta|messages 10 20 network --preset theta --routing ugal --interarrival 20 --traffic uniform --message-bytes 2048 --packet-bytes 2048 --end 1e8 --sync sequential"
  "summit|messages 10 20 network --preset summit --load 0.9 --end 1e8 --sync sequential"
  "hypercube|end 50000 100000 network --topology hypercube --dims 8 --load 0.3 --sync sequential"
  "phold|end 5 10 phold --sync sequential"
  "dragonfly 1,056|messages 5 10 network --codes-config $C/synthetic-dragonfly-minimal-c512.conf --interarrival 1000 --message-bytes 2048 --end 1e9 --sync sequential"
  "fat-tree|end 15000 30000 network --topology fattree --load 0.5 --sync sequential"
  "torus 16x16|end 8000 16000 network --topology torus --dims 16,16 --load 0.5 --sync sequential"
)
for row in "${rows[@]}"; do
  label=${row%%|*}
  read -r -a args <<<"${row#*|}"
  line="$label"
  for bin in "$@"; do
    line+=" | $(scripts/marginal-cost.sh "$bin" "${args[@]}")"
  done
  echo "$line"
done
