#!/usr/bin/env bash
# KPs per PE (issue 38): the default (a KP serves at least 16 LPs, at most
# 16 a PE) against KP counts asked for with --kps-per-pe, per workload, on
# one optimistic layout; rounds alternate the counts, so compare within a
# round on a shared machine. One row per run: wall seconds, peak RSS, KPs a
# PE used, events rolled back, and the digest (the same on every row of a
# workload). SEQ=1 adds a sequential run to each round (the 1 x 16 target is
# a time per event against it).
#   scripts/bench-kps.sh                                      # 2 workers x 16 PEs, 1 round
#   REPS=10 SEQ=1 LAYOUT="--threads 1 --pes 16" WORKLOADS=dragonfly scripts/bench-kps.sh
#   KPS="16 4 1 default" REPS=3 scripts/bench-kps.sh
# Summary per (workload, KPs): min and median seconds, rolled back low-high.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/timewarp}
REPS=${REPS:-1}
SEQ=${SEQ:-0}
LAYOUT=${LAYOUT:-"--threads 2 --pes 16"}
KPS=${KPS:-"16 default"}
WORKLOADS=${WORKLOADS:-"dragonfly hypercube theta summit phold256 phold1k pcs"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

workload() {
  case "$1" in
    dragonfly) echo network --codes-config ../shared/data/codes/synthetic-dragonfly-minimal.conf \
      --interarrival 1000 --messages 600 --message-bytes 2048 --end 60000 ;;
    hypercube) echo network --topology hypercube --nodes 1024 --load 0.3 --end 100000 ;;
    theta) echo network --preset theta --routing ugal --messages 100 ;;
    summit) echo network --preset summit --load 0.9 --messages 100 ;;
    phold256) echo phold --lps 256 --remote 0.5 --end 2000 ;;
    phold1k) echo phold --lps 1024 --remote 0.5 --end 500 ;;
    pcs) echo pcs --end 200 ;;
    *) echo "unknown workload $1 (dragonfly hypercube theta summit phold256 phold1k pcs)" >&2; exit 2 ;;
  esac
}

printf '%-10s %-10s %7s %8s %4s %9s  %s\n' workload kps seconds 'RSS MB' KPs rolled digest | tee "$tmp/rows"
for w in $WORKLOADS; do
  for r in $(seq "$REPS"); do
    runs=$KPS
    [ "$SEQ" = 1 ] && runs="sequential $runs"
    for k in $runs; do
      case $k in
        sequential) args="--sync sequential" ;;
        default) args="--sync optimistic $LAYOUT" ;;
        *) args="--sync optimistic $LAYOUT --kps-per-pe $k" ;;
      esac
      # shellcheck disable=SC2046,SC2086
      /usr/bin/time -f '%e %M' -o "$tmp/time" "$BIN" run $(workload "$w") $args --quiet --stats-json "$tmp/s.json" >/dev/null
      python3 - "$w" "$k" "$tmp/time" "$tmp/s.json" <<'PY' | tee -a "$tmp/rows"
import json, sys
w, k, tf, sf = sys.argv[1:]
t, kb = open(tf).read().split()[-2:]
s = json.load(open(sf))
print(f"{w:10s} {k:10s} {float(t):7.3f} {int(kb) / 1024:8.1f} {s['kps_per_pe']:4d} {s['rolled_back_events']:9d}  {s['digest']}")
PY
    done
  done
done
python3 - "$tmp/rows" <<'PY'
import collections, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]).read().splitlines()[1:]:
    w, k, t, _, kps, rb, _ = line.split()
    runs[(w, k)].append((float(t), int(rb), kps))
print("\nworkload   kps        min s   median s  KPs  rolled back")
for (w, k), v in runs.items():
    ts = sorted(x[0] for x in v)
    rbs = sorted(x[1] for x in v)
    print(f"{w:10s} {k:10s} {ts[0]:6.3f} {ts[len(ts) // 2]:9.3f} {v[0][2]:>4s}  {rbs[0]}-{rbs[-1]}")
PY
