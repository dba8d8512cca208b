#!/usr/bin/env bash
# Safe events (issue 38): what committing at once the events no other PE can
# reach any more changes, per workload and mode. One row per run: wall
# seconds, peak RSS, the share of committed events that were safe, events
# rolled back, throttled iterations per 1,000 committed events and as a
# share of all iterations, GVT rounds per 1,000 committed events, and the
# digest (the same on every row of a workload).
#   scripts/bench-safe-events.sh                 # every workload, 1 round
#   REPS=3 WORKLOADS="tlm hypercube" scripts/bench-safe-events.sh
# `--threads 1 --pes N` runs follow the same schedule every time (one worker):
# their counts and memory are exact; wall times on a shared machine are not
# (alternate the modes, as the rounds here do, and compare within a round).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/timewarp}
REPS=${REPS:-1}
WORKLOADS=${WORKLOADS:-"phold tlm hypercube dragonfly theta pcs"}
MODES=${MODES:-"sequential 1x16 1x16-speculative 2 2-speculative"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

workload() {
  case "$1" in
    phold) echo phold --end 10 ;;
    tlm) echo tlm --size 200x200 --sources 20 --end 20 ;;
    hypercube) echo network --topology hypercube --dims 10 --load 0.3 --end 20000 ;;
    dragonfly) echo network --codes-config ../shared/data/codes/synthetic-dragonfly-minimal.conf \
      --interarrival 1000 --message-bytes 2048 --messages 100 ;;
    theta) echo network --preset theta --routing ugal --interarrival 20 --traffic uniform --message-bytes 2048 \
      --packet-bytes 2048 --messages 40 --end 1e8 ;;
    pcs) echo pcs --end 200 ;;
    *) echo "unknown workload $1 (phold tlm hypercube dragonfly theta pcs)" >&2; exit 2 ;;
  esac
}

mode() {
  case "$1" in
    sequential) echo --sync sequential ;;
    1x16) echo --sync optimistic --threads 1 --pes 16 ;;
    1x16-speculative) echo --sync optimistic --threads 1 --pes 16 --no-safe-events ;;
    2) echo --sync optimistic --threads 2 ;;
    2-speculative) echo --sync optimistic --threads 2 --no-safe-events ;;
    *) echo "unknown mode $1" >&2; exit 2 ;;
  esac
}

printf '%-10s %-17s %7s %8s %6s %9s %9s %6s %7s  %s\n' workload mode seconds 'RSS MB' 'safe%' 'rolled' 'thr/1k' 'thr%' 'gvt/1k' digest
for w in $WORKLOADS; do
  for r in $(seq "$REPS"); do
    for m in $MODES; do
      # shellcheck disable=SC2046
      /usr/bin/time -f '%e %M' -o "$tmp/time" "$BIN" run $(workload "$w") $(mode "$m") --quiet --stats-json "$tmp/s.json" >/dev/null
      python3 - "$w" "$m" "$tmp/time" "$tmp/s.json" <<'PY'
import json, sys
w, m, tf, sf = sys.argv[1:]
t, kb = open(tf).read().split()[-2:]
s = json.load(open(sf))
c = max(s["committed_events"], 1)
# Binaries before issue 38's statistics counted throttling per PE only.
thr = s.get("throttled_iterations")
if thr is None:
    thr = sum(p.get("throttled", 0) + p.get("window_throttled", 0) for p in s.get("pes", []))
its = s.get("iterations") or sum(p.get("iterations", 0) for p in s.get("pes", []))
print(f"{w:10s} {m:17s} {float(t):7.2f} {int(kb) / 1024:8.1f} {100 * s.get('safe_events', 0) / c:6.1f} "
      f"{s['rolled_back_events']:9d} {1000 * thr / c:9.2f} {100 * thr / max(its, 1):6.1f} "
      f"{1000 * s['gvt_rounds'] / c:7.3f}  {s['digest']}")
PY
    done
  done
done
