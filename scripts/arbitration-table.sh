#!/usr/bin/env bash
# Past saturation under each switch arbitration (docs/history/network-measurements.md,
# "Arbitration, measured"; the choices: docs/network.md, "Arbitration"): for each pattern, accepted throughput against offered
# load, the peak over the loads, what is kept at offered 1.0, and the
# least busy link on the bottleneck path against the busiest at 1.0 (the
# bottleneck path: the links of the highest channel load, counted exactly
# by a low-load run with periodic arrivals, where every node sends the
# same number of packets along its one route).
#   PATTERNS="torus:shift" ARBITRATIONS="age round-robin" scripts/arbitration-table.sh
# A pattern is topology:traffic (8x8, 4 virtual channels, 8-packet buffers,
# dimension-order routing; shift is by 3). Extra arguments go to every run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p timewarp-cli
bin="${CARGO_TARGET_DIR:-target}/release/timewarp"
LOADS=${LOADS:-"0.1 0.2 0.3 0.4 0.5 0.6 0.8 1.0"}
PATTERNS=${PATTERNS:-"torus:shift torus:bit-complement mesh:bit-complement"}
ARBITRATIONS=${ARBITRATIONS:-"age round-robin transit-first"}
END=${END:-40000}
WARMUP=${WARMUP:-10000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| pattern | arbitration | accepted at offered $LOADS | peak | at 1.0 / peak | bottleneck links at 1.0: least / most busy | nodes at 1.0: least accepted, fairness | latency at 1.0 (ns) |"
echo "|---|---|---|---|---|---|---|---|"
for pat in $PATTERNS; do
  IFS=: read -r topo traffic <<<"$pat"
  $bin run network --topology "$topo" --dims 8,8 --traffic "$traffic" --shift 3 --arrivals periodic \
    --load 0.02 --end 100000 -q --stats-json "$tmp/path.json" --link-stats "$tmp/path.csv"
  for arb in $ARBITRATIONS; do
    for load in $LOADS; do
      # shellcheck disable=SC2068
      $bin run network --topology "$topo" --dims 8,8 --vcs 4 --buffer-packets 8 --traffic "$traffic" --shift 3 \
        --load "$load" --warmup "$WARMUP" --end "$END" --arbitration "$arb" $@ -q \
        --stats-json "$tmp/$load.json" --link-stats "$tmp/$load.csv"
    done
    python3 - "$tmp" "$pat" "$arb" $LOADS <<'PY'
import csv, json, sys
d, pat, arb, loads = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
acc = [json.load(open(f"{d}/{l}.json"))["model_results"]["accepted_throughput"] for l in loads]
busy = lambda l: {r["link"]: float(r["busy_fraction"]) for r in csv.DictReader(open(f"{d}/{l}.csv"))}
high = busy(loads[-1])
load = {r["link"]: int(r["packets"]) for r in csv.DictReader(open(f"{d}/path.csv"))}
top = max(load.values())
path = [k for k, c in load.items() if c >= 0.97 * top]
least, most = min(high[k] for k in path), max(high.values())
peak = max(acc)
last = json.load(open(f"{d}/{loads[-1]}.json"))["model_results"]
lat = last["latency_mean"]
print(f"| {pat} | {arb} | {' '.join(f'{a:.3f}' for a in acc)} | {peak:.3f} | {acc[-1] / peak:.2f} | "
      f"{least:.2f} / {most:.2f} ({len(path)} links) | {last['node_accepted_min']:.3f}, {last['fairness']:.3f} | {lat:,.0f} |")
PY
  done
done
