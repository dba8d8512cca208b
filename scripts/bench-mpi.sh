#!/usr/bin/env bash
# Distributed runs against one process: PHOLD (the Core issue's reference:
# 16,384 LPs, 10 events/LP, delay 1 + Exp(1), end 20) at remote 0.1 and 1.0,
# and 2^20 LPs at remote 0.1. Per configuration, REPS alternating rounds of
#   seq   one process, --sync sequential
#   thr2  one process, --sync optimistic --threads 2
#   mpi2  mpirun -n 2, --sync optimistic --threads 1
#   con2  mpirun -n 2, --sync conservative --threads 1
# and medians, with mpi2's consolidation factor (events per MPI message),
# share of time in MPI calls and poll success rate. Every run's digest must
# agree. Builds the MPI binary into target/mpi (needs OpenMPI, see README).
#
# With ROSS_PHOLD set, each round of the reference configurations (no --lps)
# also runs ROSS: `$ROSS_PHOLD 1 REMOTE` (sequential) and `$ROSS_PHOLD 2
# REMOTE` (2 MPI ranks, optimistic), a command that runs ROSS's PHOLD on the
# same configuration and prints `ev_per_s=E` (committed events per second),
# such as scripts/ross-phold.sh; the table then compares with those measured
# rates instead of the 480k reference figure. docs/history/performance-2026-11.md
# ("Across processes (MPI)") says how ROSS was built here.
#
#   scripts/bench-mpi.sh                 # REPS=5
#   REPS=3 LARGE=0 scripts/bench-mpi.sh  # skip the 2^20-LP configuration
#   CONFIGS="--remote 0.1 --lps 1048576" REPS=3 scripts/bench-mpi.sh  # chosen configurations (';' between)
#   ROSS_BIN=/path/to/ross/phold ROSS_PHOLD=scripts/ross-phold.sh LARGE=0 scripts/bench-mpi.sh  # ROSS side by side
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
LARGE=${LARGE:-1}
cargo build --release -q -p timewarp-cli --features mpi --target-dir "${CARGO_TARGET_DIR:-target}/mpi"
BIN="${CARGO_TARGET_DIR:-target}/mpi/release/timewarp"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MPI=(mpirun -n 2 --oversubscribe --bind-to none "$BIN")
configs=("--remote 0.1" "--remote 1.0")
[ "$LARGE" = 1 ] && configs+=("--remote 0.1 --lps 1048576")
if [ -n "${CONFIGS:-}" ]; then IFS=';' read -r -a configs <<<"$CONFIGS"; fi
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); median of $REPS alternating rounds"
ross_rate() { # NP REMOTE -> committed ev/s of ROSS's PHOLD
  "$ROSS_PHOLD" "$1" "$2" | sed -n 's/.*ev_per_s=\([0-9.]*\).*/\1/p'
}
if [ -n "${ROSS_PHOLD:-}" ]; then
  echo "| phold | seq ev/s | ROSS seq ev/s | 1 proc × 2 thr ev/s | 2 proc × 1 thr ev/s (eff.) | ROSS 2 ranks ev/s | conservative 2 proc ev/s | mpi2 / thr2 | seq / ROSS seq | mpi2 / ROSS 2 ranks | events/message | time in MPI | polls found |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
else
  echo "| phold | seq ev/s | 1 proc × 2 thr ev/s | 2 proc × 1 thr ev/s (eff.) | conservative 2 proc ev/s | mpi2 / thr2 | mpi2 / ROSS 2 ranks (480k) | events/message | time in MPI | polls found |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
fi
for c in "${configs[@]}"; do
  remote=$(sed -n 's/.*--remote \([0-9.]*\).*/\1/p' <<<"$c")
  ross=0
  [ -n "${ROSS_PHOLD:-}" ] && [ -n "$remote" ] && [[ "$c" != *--lps* ]] && ross=1
  for r in $(seq 1 "$REPS"); do
    if [ "$ross" = 1 ]; then
      ross_rate 1 "$remote" >"$tmp/ross1-$r"
    fi
    # shellcheck disable=SC2086
    "$BIN" run phold $c --sync sequential --quiet --stats-json "$tmp/seq-$r.json"
    if [ "$ross" = 1 ]; then
      ross_rate 2 "$remote" >"$tmp/ross2-$r"
    fi
    # shellcheck disable=SC2086
    "$BIN" run phold $c --sync optimistic --threads 2 --quiet --stats-json "$tmp/thr2-$r.json"
    # shellcheck disable=SC2086
    "${MPI[@]}" run phold $c --sync optimistic --threads 1 --quiet --stats-json "$tmp/mpi2-$r.json"
    # shellcheck disable=SC2086
    "${MPI[@]}" run phold $c --sync conservative --threads 1 --quiet --stats-json "$tmp/con2-$r.json"
  done
  python3 - "$tmp" "$REPS" "$c" "$ross" <<'PY'
import json, statistics, sys
tmp, reps, c, ross = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
kinds = ["seq", "thr2", "mpi2", "con2"]
runs = {k: [json.load(open(f"{tmp}/{k}-{r}.json")) for r in range(1, reps + 1)] for k in kinds}
digests = {d["digest"] for k in kinds for d in runs[k]}
assert len(digests) == 1, f"runs disagree: {digests}"
med = {k: statistics.median(d["event_rate"] for d in runs[k]) for k in kinds}
m = runs["mpi2"]
eff = statistics.median(d["efficiency"] for d in m)
epm = statistics.median(d["mpi_events_per_message"] for d in m)
share = statistics.median(d["mpi_seconds"] / (d["ranks"] * d["wall_seconds"]) for d in m)
found = statistics.median(d["successful_polls"] / max(d["polls"], 1) for d in m)
if ross:
    r1, r2 = (statistics.median(float(open(f"{tmp}/ross{n}-{r}").read()) for r in range(1, reps + 1)) for n in (1, 2))
    print(f"| {c} | {med['seq']:,.0f} | {r1:,.0f} | {med['thr2']:,.0f} | {med['mpi2']:,.0f} ({eff:.1%}) | {r2:,.0f} | "
          f"{med['con2']:,.0f} | {med['mpi2']/med['thr2']:.2f} | {med['seq']/r1:.1f}× | {med['mpi2']/r2:.1f}× | "
          f"{epm:.1f} | {share:.1%} | {found:.0%} |")
else:
    print(f"| {c} | {med['seq']:,.0f} | {med['thr2']:,.0f} | {med['mpi2']:,.0f} ({eff:.1%}) | {med['con2']:,.0f} | "
          f"{med['mpi2']/med['thr2']:.2f} | {med['mpi2']/480e3:.1f}× | {epm:.1f} | {share:.1%} | {found:.0%} |")
PY
done
