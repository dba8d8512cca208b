#!/usr/bin/env bash
# Partitioning on measured behaviour (issue 15, multicore report 4.4):
# profile each model once (sequential, --profile-out), partition it with
# every scheme, run with each mapping, and print per scheme the predicted
# and measured remote fractions, the event rate, the efficiency and the
# rate relative to random — for
#   1x2   one process × 2 threads (optimistic), 2 parts
#   2x1   mpirun -n 2 × 1 thread (optimistic), --hierarchy 2,1   (MPI=1)
#   2x2   mpirun -n 2 × 2 threads: latency-sensitive vs flat      (MPI=1)
# REPS alternating rounds (every scheme once per round), medians; every
# run's digest must equal the sequential one. Also the cost of profiling:
# sequential with and without --profile-out, alternating.
#
#   scripts/bench-partition.sh                 # REPS=3, MPI=1 (needs OpenMPI; see README)
#   MPI=0 REPS=1 scripts/bench-partition.sh    # threads only
#   MODELS=hier scripts/bench-partition.sh     # one model (hier, pcs)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
MPI=${MPI:-1}
MODELS=${MODELS:-"hier pcs"}
T="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p timewarp-cli
BIN="$T/release/timewarp"
if [ "$MPI" = 1 ]; then
  cargo build --release -q -p timewarp-cli --features mpi --target-dir "$T/mpi"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
  MPIRUN=(mpirun -n 2 --oversubscribe --bind-to none "$T/mpi/release/timewarp")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The report's hierarchical PHOLD (α = −5: mostly the nearest cluster) with
# skewed per-object compute; ids interleaved so that id blocks carry no
# structure (as in a model whose ids do not follow its topology).
declare -A ARGS
ARGS[hier]="phold --hierarchy 7,64,4 --remote 1 --alpha -5 --compute 100 --skewed-compute --interleave --population 4 --end 200"
# PCS with mobility (handoffs between neighbouring cells carry the traffic).
ARGS[pcs]="pcs --cells-x 32 --cells-y 32 --move-rate 0.5 --end 300"
SCHEMES="random block static object-only activity object-activity"

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load: $(cut -d' ' -f1-3 /proc/loadavg); median of $REPS alternating rounds"
for model in $MODELS; do
  # shellcheck disable=SC2086
  set -- ${ARGS[$model]}
  prof="$tmp/$model.graph"
  "$BIN" run "$@" --quiet --profile-out "$prof" --stats-json "$tmp/$model-seq.json"
  # Mappings: 2 parts (1x2 and 2x1), 2x2 latency-sensitive and flat.
  for s in $SCHEMES; do
    "$BIN" partition "$prof" --scheme "$s" --parts 2 -q -o "$tmp/$model-$s-2.map"
  done
  for s in activity object-activity; do
    "$BIN" partition "$prof" --scheme "$s" --hierarchy 2,2 -q -o "$tmp/$model-$s-2x2-hier.map"
    "$BIN" partition "$prof" --scheme "$s" --hierarchy 2,2 --flat -q -o "$tmp/$model-$s-2x2-flat.map"
  done
  for r in $(seq "$REPS"); do
    "$BIN" run "$@" --quiet --stats-json "$tmp/$model-plain-$r.json"
    "$BIN" run "$@" --quiet --profile-out "$tmp/$model-again.graph" --stats-json "$tmp/$model-profiled-$r.json"
    for s in $SCHEMES; do
      "$BIN" run "$@" --quiet --sync optimistic --threads 2 --mapping "$tmp/$model-$s-2.map" \
        --stats-json "$tmp/$model-1x2-$s-$r.json"
      if [ "$MPI" = 1 ]; then
        "${MPIRUN[@]}" run "$@" --quiet --sync optimistic --threads 1 --mapping "$tmp/$model-$s-2.map" \
          --stats-json "$tmp/$model-2x1-$s-$r.json"
      fi
    done
    if [ "$MPI" = 1 ]; then
      for s in activity object-activity; do
        for kind in hier flat; do
          "${MPIRUN[@]}" run "$@" --quiet --sync optimistic --threads 2 --mapping "$tmp/$model-$s-2x2-$kind.map" \
            --stats-json "$tmp/$model-2x2-$s-$kind-$r.json"
        done
      done
    fi
  done
  python3 - "$tmp" "$model" "$REPS" "$MPI" "$SCHEMES" "${ARGS[$model]}" <<'PY'
import json, os, statistics, sys
tmp, model, reps, mpi, schemes, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5].split(), sys.argv[6]
load = lambda name: json.load(open(f"{tmp}/{name}.json"))
seq = load(f"{model}-seq")
def runs(prefix):
    out = [load(f"{prefix}-{r}") for r in range(1, reps + 1)]
    for d in out:
        assert d["digest"] == seq["digest"], f"{prefix}: digest {d['digest']} != sequential {seq['digest']}"
    return out
med = lambda rs, k: statistics.median(d[k] for d in rs)
plain, profiled = runs(f"{model}-plain"), runs(f"{model}-profiled")
print(f"\n### {args}\n")
print(f"{seq['committed_events']:,} committed events, {seq['lps']:,} LPs; sequential {med(plain, 'event_rate'):,.0f} ev/s, "
      f"with --profile-out {med(profiled, 'event_rate'):,.0f} ev/s (profiling costs {1 - med(profiled, 'event_rate') / med(plain, 'event_rate'):.0%})\n")
def predicted(path):
    for line in open(path):
        if line.startswith("# predicted:"):
            return float(line.split("remote fraction ")[1].split(",")[0])
layouts = [("1x2", "1 process × 2 threads")] + ([("2x1", "2 processes × 1 thread")] if mpi else [])
for lay, what in layouts:
    print(f"{what}:\n")
    print("| scheme | predicted remote | remote fraction | remote-process fraction | event rate | efficiency | rate / random |")
    print("|---|---|---|---|---|---|---|")
    base = med(runs(f"{model}-{lay}-random"), "event_rate")
    for s in schemes:
        rs = runs(f"{model}-{lay}-{s}")
        print(f"| {s} | {predicted(f'{tmp}/{model}-{s}-2.map'):.4f} | {med(rs, 'remote_fraction'):.4f} | "
              f"{med(rs, 'remote_process_fraction'):.4f} | {med(rs, 'event_rate'):,.0f} | {med(rs, 'efficiency'):.1%} | "
              f"{med(rs, 'event_rate') / base:.2f} |")
    print()
if mpi:
    print("2 processes × 2 threads, latency-sensitive (processes first) vs flat:\n")
    print("| scheme | partition | remote fraction | remote-process fraction | event rate | efficiency |")
    print("|---|---|---|---|---|---|")
    for s in ["activity", "object-activity"]:
        for kind in ["hier", "flat"]:
            rs = runs(f"{model}-2x2-{s}-{kind}")
            print(f"| {s} | {'latency-sensitive' if kind == 'hier' else 'flat'} | {med(rs, 'remote_fraction'):.4f} | "
                  f"{med(rs, 'remote_process_fraction'):.4f} | {med(rs, 'event_rate'):,.0f} | {med(rs, 'efficiency'):.1%} |")
PY
done
