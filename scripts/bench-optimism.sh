#!/usr/bin/env bash
# Optimism control and speculative memory (issue 11): this build against a
# base binary, measured in one run.
#   1. reference PHOLD on 2 threads (remote 0.1 and 1.0): alternating runs,
#      median committed events/s and the ratio to the base;
#   2. tiny rollback-prone PHOLD (4 LPs): efficiency and processed events
#      over REPS runs (run-to-run spread);
#   3. the configurations that once ran away: wall time, peak RSS,
#      efficiency, digest against sequential (base runs are cut at LIMIT s).
#
#   BASE=/path/to/old/timewarp scripts/bench-optimism.sh
#   (build a base: git worktree add /tmp/base c8f917c && cargo build --release
#    --manifest-path /tmp/base/Cargo.toml --target-dir /tmp/base/target)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-7}
LIMIT=${LIMIT:-30}
cargo build --release -q -p timewarp-cli
NEW="${CARGO_TARGET_DIR:-target}/release/timewarp"
BASE=${BASE:?set BASE to the binary to compare with}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(*(d[k] if not isinstance(d[k], float) else round(d[k], 4) for k in sys.argv[2:]))" "$@"; }

echo "== 1. reference PHOLD, --sync optimistic --threads 2 (median of $REPS alternating runs)"
for remote in 0.1 1.0; do
  for r in $(seq 1 "$REPS"); do
    for b in base new; do
      bin=$BASE; [ $b = new ] && bin=$NEW
      "$bin" run phold --sync optimistic --threads 2 --remote $remote --quiet --stats-json "$tmp/ref-$remote-$b-$r.json"
    done
  done
  python3 - "$tmp" "$remote" "$REPS" <<'PY'
import json, statistics, sys
tmp, remote, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
rate = {b: statistics.median(json.load(open(f"{tmp}/ref-{remote}-{b}-{r}.json"))["event_rate"] for r in range(1, reps + 1)) for b in ("base", "new")}
print(f"remote {remote}: base {rate['base']/1e6:.2f} M ev/s, new {rate['new']/1e6:.2f} M ev/s, new/base {rate['new']/rate['base']:.3f}")
PY
done

echo "== 2. tiny PHOLD: --lps 4 --population 1 --remote 1.0 --threads 2 --end 20000 ($REPS runs each)"
for b in base new; do
  bin=$BASE; [ $b = new ] && bin=$NEW
  for r in $(seq 1 "$REPS"); do
    timeout "$LIMIT" "$bin" run phold --lps 4 --population 1 --remote 1.0 --sync optimistic --threads 2 --end 20000 \
      --quiet --stats-json "$tmp/tiny-$b-$r.json" || true
  done
  python3 - "$tmp" "$b" "$REPS" <<'PY'
import json, os, statistics, sys
tmp, b, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = [json.load(open(p)) for p in (f"{tmp}/tiny-{b}-{r}.json" for r in range(1, reps + 1)) if os.path.exists(p)]
p = [x["processed_events"] for x in runs]
print(f"{b}: efficiency median {statistics.median(x['efficiency'] for x in runs):.3f}, processed {min(p):,}..{max(p):,} (max/min {max(p)/min(p):.2f}), committed {runs[0]['committed_events']:,}")
PY
done

echo "== 3. configurations that ran away (LIMIT $LIMIT s for each run)"
while IFS= read -r cfg; do
  [ -z "$cfg" ] && continue
  # shellcheck disable=SC2086
  "$NEW" run phold $(echo "$cfg" | sed -E 's/--(threads|kps-per-pe|batch|gvt-interval|event-memory) [0-9]+//g') \
    --quiet --stats-json "$tmp/seq.json"
  echo "phold $cfg"
  echo "  sequential: $(json "$tmp/seq.json" wall_seconds peak_rss_bytes digest) (s, bytes, digest)"
  for b in base new; do
    bin=$BASE; [ $b = new ] && bin=$NEW
    for r in 1 2 3; do
      rm -f "$tmp/rw.json"
      # shellcheck disable=SC2086
      if timeout "$LIMIT" "$bin" run phold $cfg --sync optimistic --quiet --stats-json "$tmp/rw.json"; then
        echo "  $b: $(json "$tmp/rw.json" wall_seconds peak_rss_bytes efficiency digest) (s, bytes, efficiency, digest)"
      else
        echo "  $b: did not finish within $LIMIT s"
      fi
    done
  done
done <<'CFGS'
--lps 4096 --population 1 --mean 0.1 --lookahead 0 --remote 0.5 --end 24.606 --seed 5224897146897887738 --threads 5 --kps-per-pe 4 --batch 64 --gvt-interval 64 --event-memory 100000
--lps 1024 --remote 1 --lookahead 0 --end 20 --threads 8 --kps-per-pe 1
--lps 64 --population 4 --end 1e-4 --mean 1e-9 --lookahead 0 --remote 0.5 --threads 8
CFGS
