#!/usr/bin/env bash
# The Blue Gene paper's TLM workload: a SIZE grid (1000x1000x2) with SOURCES
# radios (100) emitting a Gaussian pulse, END steps, in every mode of MODES
# (mode:threads[:extra engine options, comma-separated]). Runs the modes
# alternately REPS times and prints the median committed event rate of each,
# events per cell-step, and each rate relative to the first mode, all from
# this one run. SWEEP=1 adds the paper's tuning sweep for optimistic runs:
# GVT interval and KPs per PE.
#   SIZE=1000x1000x2 SOURCES=100 END=60 REPS=3 scripts/bench-tlm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
bin=${CARGO_TARGET_DIR:-target}/release/timewarp
SIZE=${SIZE:-1000x1000x2}
SOURCES=${SOURCES:-100}
END=${END:-60}
REPS=${REPS:-3}
MODES=${MODES:-"sequential conservative:2 optimistic:2"}
if [ "${SWEEP:-0}" = 1 ]; then
  for g in 4 16 64 256; do MODES="$MODES optimistic:2:--gvt-interval,$g"; done
  for k in 1 64 1024; do MODES="$MODES optimistic:2:--kps-per-pe,$k"; done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "tlm $SIZE, $SOURCES radios (gaussian), end $END steps, $REPS rounds, $(nproc) CPUs"
for r in $(seq "$REPS"); do
  for m in $MODES; do
    IFS=: read -r sync threads extra <<<"$m"
    # shellcheck disable=SC2086
    $bin run tlm --size "$SIZE" --sources "$SOURCES" --end "$END" --sync "$sync" --threads "${threads:-1}" \
      ${extra//,/ } -q --stats-json "$tmp/$m.$r.json"
  done
done
python3 - "$tmp" "$REPS" $MODES <<'PY'
import json, sys, statistics
d, reps, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rate = {}
for m in modes:
    runs = [json.load(open(f"{d}/{m}.{r}.json")) for r in range(1, reps + 1)]
    assert len({x["digest"] for x in runs}) == 1
    rates = sorted(x["committed_events"] / x["wall_seconds"] for x in runs)
    rate[m] = statistics.median(rates)
    x = runs[0]
    mr = x["model_results"]
    print(f"{m:34} {rate[m]/1e6:6.2f} M ev/s (range {rates[0]/1e6:.2f}-{rates[-1]/1e6:.2f})  "
          f"ev/cell-step {mr['events_per_cell_step']:.2f}  committed {x['committed_events']:,}  "
          f"efficiency {x.get('efficiency', 1):.3f}  GVT rounds {x.get('gvt_rounds', 0):,}  "
          f"peak {x['peak_rss_bytes']/2**20:,.0f} MiB  vs {modes[0]} {rate[m]/rate[modes[0]]:.2f}")
digests = {json.load(open(f"{d}/{m}.1.json"))["digest"] for m in modes}
print("digests equal" if len(digests) == 1 else f"DIGESTS DIFFER: {digests}")
PY
