#!/usr/bin/env bash
# Latency-load and accepted-offered curves of the traffic patterns and
# arrival processes added for issue 32 (docs/history/network-measurements.md,
# "Curves of the patterns and arrival processes"): 8x8 torus or mesh, 4 virtual channels,
# 8-packet buffers, dimension-order routing, round-robin arbitration.
# Each table gives, per offered load: the accepted throughput (with its
# batch-means 95% half-width), the packet latency (mean, p50, p99) split
# into source queueing and network latency (means), and Jain's fairness
# over the nodes; its title gives the pattern's channel-load bound,
# counted from a low-load run with periodic arrivals (every node sends the
# same number of packets along its one route: the busiest link's count
# over one node's is the channel load, and 1 / channel load the bound;
# uniform traffic's is the closed form). The bound holds for equal rates at
# every node: past it, nodes whose flows avoid the busiest links may take
# more, so the mean accepted can pass it.
#   CURVES="torus:tornado:poisson mesh:shuffle:bursty" scripts/traffic-curves.sh
# A curve is topology:traffic:arrivals. Extra arguments go to every run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p timewarp-cli
bin="${CARGO_TARGET_DIR:-target}/release/timewarp"
LOADS=${LOADS:-"0.1 0.2 0.3 0.4 0.5 0.6 0.8 1.0"}
CURVES=${CURVES:-"torus:tornado:poisson mesh:tornado:poisson torus:permutation:poisson mesh:permutation:poisson torus:shuffle:poisson mesh:shuffle:poisson torus:uniform:poisson torus:uniform:periodic torus:uniform:bernoulli torus:uniform:bursty torus:tornado:bursty"}
END=${END:-40000}
WARMUP=${WARMUP:-10000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in $CURVES; do
  IFS=: read -r topo traffic arrivals <<<"$c"
  if [ "$traffic" = uniform ]; then
    # A random destination per message: a sampled count is noise; the exact
    # dimension-order channel load is k/8 on a k-ary torus, k/4 on a mesh.
    if [ "$topo" = torus ]; then bound="1.000: k/8 = 1 flow per link"; else bound="0.500: k/4 = 2 flows on the centre links"; fi
  else
  $bin run network --topology "$topo" --dims 8,8 --traffic "$traffic" --arrivals periodic \
    --load 0.02 --end 100000 -q --stats-json "$tmp/path.json" --link-stats "$tmp/path.csv"
  bound=$(python3 - "$tmp" <<'PY'
import csv, json, sys
d = sys.argv[1]
r = json.load(open(f"{d}/path.json"))["model_results"]
top = max(int(x["packets"]) for x in csv.DictReader(open(f"{d}/path.csv")))
per_node = r["injected_packets"] / r["nodes"]
flows = top / per_node
# A pattern with one destination per node puts a whole number of flows on a
# link (periodic phases only blur the count); uniform traffic need not.
if abs(flows - round(flows)) < 0.1:
    flows = round(flows)
    print(f"{1 / flows:.3f}: {flows} flows on the busiest link")
else:
    print(f"{1 / flows:.3f}: {flows:.2f} flows on the busiest link")
PY
)
  fi
  echo
  echo "#### $topo, $traffic traffic, $arrivals arrivals (channel-load bound $bound)"
  echo
  echo "| offered | accepted (± 95%) | latency mean (± 95%) | p50 | p99 | source queueing | network latency | fairness |"
  echo "|---|---|---|---|---|---|---|---|"
  for load in $LOADS; do
    # shellcheck disable=SC2068
    $bin run network --topology "$topo" --dims 8,8 --vcs 4 --buffer-packets 8 --traffic "$traffic" \
      --arrivals "$arrivals" --load "$load" --warmup "$WARMUP" --end "$END" $@ -q --stats-json "$tmp/run.json"
    python3 - "$tmp/run.json" "$load" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["model_results"]
ci = lambda k: r.get(k) if r.get(k) is not None else float("nan")
print(f"| {sys.argv[2]} | {r['accepted_throughput']:.3f} ± {ci('accepted_throughput_ci95'):.3f} | "
      f"{r['latency_mean']:,.0f} ± {ci('latency_mean_ci95'):,.0f} | {r['latency_p50']:,.0f} | {r['latency_p99']:,.0f} | "
      f"{r['source_queueing_mean']:,.0f} | {r['network_latency_mean']:,.0f} | {r['fairness']:.3f} |")
PY
  done
done
