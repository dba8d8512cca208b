#!/usr/bin/env bash
# Which mode to choose: sequential vs optimistic vs conservative event rates
# for PHOLD at lookahead 0.1 / 1 / 5 and remote 10% / 100%, measured
# alternately in one run (REPS rounds), medians. Extra arguments go to every run.
#
#   scripts/bench-modes.sh                  # 2 threads, reference PHOLD
#   THREADS=4 REPS=5 scripts/bench-modes.sh --lps 65536
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
THREADS=${THREADS:-2}
cargo build --release -q -p timewarp-cli
BIN="${CARGO_TARGET_DIR:-target}/release/timewarp"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
modes=("--sync sequential" "--sync optimistic --threads $THREADS" "--sync conservative --threads $THREADS")
echo "machine: $(nproc) CPUs; phold $*; $THREADS threads; median of $REPS alternating rounds"
echo "| lookahead | remote | sequential ev/s | optimistic ev/s (eff.) | conservative ev/s (windows) | opt/seq | cons/seq |"
echo "|---|---|---|---|---|---|---|"
for la in 0.1 1 5; do
  for rem in 0.1 1.0; do
    for r in $(seq 1 "$REPS"); do
      for i in 0 1 2; do
        # shellcheck disable=SC2086
        "$BIN" run phold --lookahead $la --remote $rem "$@" ${modes[$i]} --quiet --stats-json "$tmp/$i-$r.json"
      done
    done
    python3 - "$tmp" "$REPS" "$la" "$rem" <<'PY'
import json, statistics, sys
tmp, reps, la, rem = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
runs = [[json.load(open(f"{tmp}/{i}-{r}.json")) for r in range(1, reps + 1)] for i in range(3)]
digests = {d["digest"] for mode in runs for d in mode}
assert len(digests) == 1, f"modes disagree: {digests}"
med = [statistics.median(d["event_rate"] for d in mode) for mode in runs]
eff = runs[1][0]["efficiency"]
win = runs[2][0]["gvt_rounds"]
print(f"| {la} | {float(rem):.0%} | {med[0]:,.0f} | {med[1]:,.0f} ({eff:.1%}) | {med[2]:,.0f} ({win}) | {med[1]/med[0]:.2f} | {med[2]/med[0]:.2f} |")
PY
  done
done
