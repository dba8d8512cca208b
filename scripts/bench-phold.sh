#!/usr/bin/env bash
# PHOLD benchmark: wall-clock event rates of several configurations measured
# alternately in one run (A B C A B C ...), medians and ratios to the first;
# optionally callgrind instructions per committed event (marginal cost between
# two end times, start-up excluded).
#
#   scripts/bench-phold.sh                 # reference PHOLD: sequential vs optimistic 1/2 threads
#   REPS=9 scripts/bench-phold.sh --remote 1.0
#   CALLGRIND=1 scripts/bench-phold.sh     # also instructions/event (sequential)
#   CONFIGS="--sync sequential;--sync optimistic --threads 2" scripts/bench-phold.sh --lps 1048576
#
# Extra arguments go to every run (model flags such as --lps, --remote, --end).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-7}
CONFIGS=${CONFIGS:-"--sync sequential;--sync optimistic --threads 1;--sync optimistic --threads 2"}
cargo build --release -q -p timewarp-cli
BIN="${CARGO_TARGET_DIR:-target}/release/timewarp"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

IFS=';' read -r -a cfgs <<<"$CONFIGS"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "model flags: phold $*   reps: $REPS (alternating)"
for r in $(seq 1 "$REPS"); do
  for i in "${!cfgs[@]}"; do
    # shellcheck disable=SC2086
    "$BIN" run phold "$@" ${cfgs[$i]} --quiet --stats-json "$tmp/$i-$r.json"
  done
done
python3 - "$tmp" "$REPS" "${cfgs[@]}" <<'PY'
import json, statistics, sys
tmp, reps, cfgs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = []
for i, c in enumerate(cfgs):
    runs = [json.load(open(f"{tmp}/{i}-{r}.json")) for r in range(1, reps + 1)]
    rate = statistics.median(x["event_rate"] for x in runs)
    d = runs[0]
    rows.append((c, rate, min(x["event_rate"] for x in runs), max(x["event_rate"] for x in runs), d))
    assert len({x["digest"] for x in runs}) == 1
base = rows[0][1]
print(f"| configuration | committed ev/s (median) | range | ratio | efficiency | peak RSS MiB | digest |")
print(f"|---|---|---|---|---|---|---|")
for c, rate, lo, hi, d in rows:
    eff = d.get("efficiency", 1.0) or 1.0
    print(f"| `{c}` | {rate:,.0f} | {lo:,.0f}–{hi:,.0f} | {rate / base:.2f} | {100 * eff:.1f}% | {d['peak_rss_bytes'] / 2**20:.0f} | {d['digest']} |")
print(f"committed events: {rows[0][4]['committed_events']:,}")
PY

if [ "${CALLGRIND:-0}" = 1 ]; then
  for e in 5 10; do
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$e" "$BIN" run phold "$@" --end $e --quiet --stats-json "$tmp/cg$e.json" 2>/dev/null
  done
  python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
def total(f):
    for line in open(f):
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
ev = {e: json.load(open(f"{tmp}/cg{e}.json"))["committed_events"] for e in (5, 10)}
print(f"instructions per committed event (sequential, marginal end 5 -> 10): {(total(f'{tmp}/cg.10') - total(f'{tmp}/cg.5')) / (ev[10] - ev[5]):.0f}")
PY
fi
