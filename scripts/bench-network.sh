#!/usr/bin/env bash
# BigNetSim's headline configuration: an 8,192-node hypercube, uniform random
# traffic, Poisson arrivals, PACKETS packets per node (BigNetSim: 1,000, i.e.
# 61.5 M packet hops), in every mode. Runs the modes alternately REPS times
# and prints the median committed event rate of each, events per packet hop,
# and each mode's rate relative to sequential, all from this one run.
#   PACKETS=1000 REPS=3 LOAD=0.3 scripts/bench-network.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
bin="${CARGO_TARGET_DIR:-target}/release/timewarp"
PACKETS=${PACKETS:-100}
REPS=${REPS:-3}
LOAD=${LOAD:-0.3}
NODES=${NODES:-8192}
# Messages of one 256-byte packet at LOAD of 4 bytes/ns: PACKETS per node by END.
END=$(python3 -c "print($PACKETS * 256 / ($LOAD * 4))")
MODES=${MODES:-"sequential conservative:2 optimistic:2"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "hypercube $NODES nodes, uniform, poisson, load $LOAD, $PACKETS packets/node (end $END ns), $REPS rounds"
for r in $(seq "$REPS"); do
  for m in $MODES; do
    IFS=: read -r sync threads <<<"$m"
    $bin run network --topology hypercube --nodes "$NODES" --traffic uniform --arrivals poisson --load "$LOAD" \
      --end "$END" --sync "$sync" --threads "${threads:-1}" -q --stats-json "$tmp/$m.$r.json"
  done
done
python3 - "$tmp" "$REPS" $MODES <<'PY'
import json, sys, statistics
d, reps, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rate = {}
for m in modes:
    runs = [json.load(open(f"{d}/{m}.{r}.json")) for r in range(1, reps + 1)]
    assert len({x["digest"] for x in runs}) == 1
    rate[m] = statistics.median(x["committed_events"] / x["wall_seconds"] for x in runs)
    x = runs[0]
    mr = x["model_results"]
    print(f"{m:16} {rate[m]/1e6:6.2f} M events/s  events/hop {mr['events_per_hop']:.2f}  "
          f"hops {mr['hops_mean']:.2f}  committed {x['committed_events']:,}  efficiency {x.get('efficiency', 1):.3f}  "
          f"vs sequential {rate[m]/rate[modes[0]]:.2f}")
digests = {json.load(open(f"{d}/{m}.1.json"))["digest"] for m in modes}
print("digests equal" if len(digests) == 1 else f"DIGESTS DIFFER: {digests}")
PY
