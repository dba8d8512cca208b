#!/usr/bin/env bash
# The two CODES network configurations of the SHMEM-ROSS paper
# (../shared/papers/ross-shared-memory-network-sims.txt, section 4.2):
#   theta:  the Theta-like dragonfly (864 routers, 3,456 nodes), uniform
#           random traffic, adaptive routing (UGAL), 2,048-byte messages of
#           one packet, 20 ns inter-arrival, 200 messages per node;
#   summit: the Summit-like pruned fat-tree (504 switches, 3,564 nodes),
#           uniform random, 2,048-byte messages, injection at 90 % of the
#           terminal link's bandwidth, 200 messages per node.
# Each run ends when every message is delivered. Runs the modes alternately
# REPS times and prints the median committed event rate of each, events per
# packet hop, peak memory and the rate relative to the first mode.
#   CONFIGS="theta summit" MODES="sequential conservative:2 optimistic:2" REPS=3 scripts/bench-papers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
bin="${CARGO_TARGET_DIR:-target}/release/timewarp"
REPS=${REPS:-3}
MESSAGES=${MESSAGES:-200}
CONFIGS=${CONFIGS:-"theta summit"}
MODES=${MODES:-"sequential conservative:2 optimistic:2"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args() {
  local common=(--traffic uniform --message-bytes 2048 --packet-bytes 2048 --messages "$MESSAGES" --end 1e8)
  case "$1" in
    theta) echo --preset theta --routing ugal --interarrival 20 "${common[@]}" ;;
    summit) echo --preset summit --load 0.9 "${common[@]}" ;;
    *) echo "unknown configuration $1 (theta, summit)" >&2; exit 2 ;;
  esac
}
for c in $CONFIGS; do
  echo "$c: $(args "$c"), $REPS rounds"
  for r in $(seq "$REPS"); do
    for m in $MODES; do
      IFS=: read -r sync threads <<<"$m"
      # shellcheck disable=SC2046
      $bin run network $(args "$c") --sync "$sync" --threads "${threads:-1}" -q --stats-json "$tmp/$c.$m.$r.json"
    done
  done
  python3 - "$tmp" "$c" "$REPS" $MODES <<'PY'
import json, sys, statistics
d, c, reps, modes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
rate = {}
for m in modes:
    runs = [json.load(open(f"{d}/{c}.{m}.{r}.json")) for r in range(1, reps + 1)]
    assert len({x["digest"] for x in runs}) == 1
    rates = sorted(x["committed_events"] / x["wall_seconds"] for x in runs)
    rate[m] = statistics.median(rates)
    x = runs[0]
    mr = x["model_results"]
    rss = max(x["peak_rss_bytes"] for x in runs) / 2**20
    print(f"  {m:16} {rate[m]/1e6:6.2f} M events/s ({rates[0]/1e6:.2f}-{rates[-1]/1e6:.2f})  events/hop {mr['events_per_hop']:.2f}  "
          f"hops {mr['hops_mean']:.2f}  committed {x['committed_events']:,}  LPs {x['lps']}  peak {rss:.0f} MiB  "
          f"efficiency {x.get('efficiency', 1):.3f}  vs {modes[0]} {rate[m]/rate[modes[0]]:.2f}  "
          f"delivered {mr['delivered_packets']:,}  latency max {mr['latency_max']:.0f} ns")
digests = {json.load(open(f"{d}/{c}.{m}.1.json"))["digest"] for m in modes}
print("  digests equal" if len(digests) == 1 else f"  DIGESTS DIFFER: {digests}")
PY
done
