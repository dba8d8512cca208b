#!/usr/bin/env bash
# Optimistic runs of the models whose state is large (the network) or small
# (PCS): each mode, and each way of undoing an event (--rollback), measured
# alternately in REPS rounds; medians of the committed event rate, the rate
# against the first mode, efficiency, journal entries per processed event,
# GVT rounds and peak memory. Every run of a configuration must commit the
# same digest (checked).
#
#   scripts/bench-rollback.sh                       # every configuration, 3 rounds
#   CONFIGS="hypercube torus-saturated" REPS=5 scripts/bench-rollback.sh
#
# A mode is SYNC[:THREADS[:ROLLBACK]]; MODES replaces every configuration's list.
# Configurations:
#   hypercube        1,024 nodes, load 0.3, end 50,000 ns (issue 29's reference)
#   theta, summit    the SHMEM-ROSS networks (scripts/bench-papers.sh) with
#                    MESSAGES (default 50) messages per node
#   torus-saturated  16x16 torus past saturation (3-byte messages), end 4,000
#   pcs              PCS 64x64 cells, end 20 (lookahead 0: no conservative)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p timewarp-cli
bin="${CARGO_TARGET_DIR:-target}/release/timewarp"
REPS=${REPS:-3}
MESSAGES=${MESSAGES:-50}
CONFIGS=${CONFIGS:-"hypercube theta summit torus-saturated pcs"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
net_modes="sequential optimistic:1 optimistic:2 conservative:2 optimistic:1:state-saving"
args() {
  local papers=(--traffic uniform --message-bytes 2048 --packet-bytes 2048 --messages "$MESSAGES" --end 1e8)
  case "$1" in
    hypercube) echo network --topology hypercube --dims 10 --load 0.3 --end 50000 ;;
    theta) echo network --preset theta --routing ugal --interarrival 20 "${papers[@]}" ;;
    summit) echo network --preset summit --load 0.9 "${papers[@]}" ;;
    torus-saturated) echo network --message-bytes 3 --end 4000 ;;
    pcs) echo pcs --cells-x 64 --cells-y 64 --end 20 ;;
    *) echo "unknown configuration $1 (hypercube theta summit torus-saturated pcs)" >&2; exit 2 ;;
  esac
}
modes_of() {
  if [ -n "${MODES:-}" ]; then echo "$MODES"; return; fi
  case "$1" in
    pcs) echo "sequential optimistic:1 optimistic:2 optimistic:1:state-saving optimistic:1:incremental optimistic:2:state-saving optimistic:2:incremental" ;;
    *) echo "$net_modes" ;;
  esac
}
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $REPS alternating rounds, medians"
for c in $CONFIGS; do
  modes=$(modes_of "$c")
  echo "$c: $(args "$c")"
  for r in $(seq "$REPS"); do
    for m in $modes; do
      IFS=: read -r sync threads rollback <<<"$m"
      extra=()
      [ -n "${rollback:-}" ] && extra=(--rollback "$rollback")
      # shellcheck disable=SC2046
      $bin run $(args "$c") --sync "$sync" --threads "${threads:-1}" "${extra[@]}" -q --stats-json "$tmp/$c.$m.$r.json"
    done
  done
  # shellcheck disable=SC2086
  python3 - "$tmp" "$c" "$REPS" $modes <<'PY'
import json, sys, statistics
d, c, reps, modes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
rate, digests = {}, set()
print(f"  | mode | committed ev/s (range) | vs {modes[0]} | efficiency | saved entries/event | GVT rounds | peak RSS |")
print("  |---|---|---|---|---|---|---|")
for m in modes:
    runs = [json.load(open(f"{d}/{c}.{m}.{r}.json")) for r in range(1, reps + 1)]
    digests |= {x["digest"] for x in runs}
    rates = sorted(x["committed_events"] / x["wall_seconds"] for x in runs)
    rate[m] = statistics.median(rates)
    x = runs[0]
    processed = x.get("processed_events") or x["committed_events"]
    saved = x.get("saved_entries", 0) / processed
    rss = max(x["peak_rss_bytes"] for x in runs) / 2**20
    print(f"  | {m} | {rate[m]/1e6:.2f} M ({rates[0]/1e6:.2f}-{rates[-1]/1e6:.2f}) | {rate[m]/rate[modes[0]]:.2f} | "
          f"{x.get('efficiency', 1):.3f} | {saved:.2f} | {x.get('gvt_rounds', 0):,} | {rss:.0f} MiB |")
print(f"  committed {x['committed_events']:,} events; " +
      ("digests equal" if len(digests) == 1 else f"DIGESTS DIFFER: {digests}"))
if len(digests) != 1:
    sys.exit(1)
PY
done
