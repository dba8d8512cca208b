#!/usr/bin/env bash
# Consolidation across processes: events per MPI message, why messages
# left, efficiency, rolled-back events per committed event and rate, for
# optimistic PHOLD (remote 0.1 and 1.0) and the Theta preset, on the 2-core
# proxies of issue 58 (`mpirun -n 4 --threads 1`, oversubscribed, and
# `-n 2 --threads 2 --pes 8`), alternating the binaries given, ROUNDS times.
#
#   BINS="old/timewarp new/timewarp" ROUNDS=2 scripts/bench-consolidation.sh
#   LATENCIES="0 2 10" BANDWIDTH=12.5 scripts/bench-consolidation.sh
#
# LATENCIES: emulated one-way latencies between processes in microseconds
# (--emulate-latency; 0: the machine's own), each with BANDWIDTH GB/s per
# process (--emulate-bandwidth) when set; a column of the table.
#
# Each binary must be an MPI build (cargo build --release --features
# timewarp-cli/mpi --target-dir target/mpi). Every run's digest is checked
# against the first run of its row.
set -euo pipefail
cd "$(dirname "$0")/.."
BINS=${BINS:-target/mpi/release/timewarp}
ROUNDS=${ROUNDS:-2}
LATENCIES=${LATENCIES:-0}
BANDWIDTH=${BANDWIDTH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

models=(
  "phold --lps 65536 --end 20 --remote 0.1"
  "phold --lps 65536 --end 20 --remote 1.0"
  "network --preset theta --routing ugal --interarrival 20 --traffic uniform --message-bytes 2048 --packet-bytes 2048 --end 1e8 --messages 20"
)
layouts=("4 --threads 1" "2 --threads 2 --pes 8")

printf '%-10s %-28s %5s %-26s %8s %6s %9s %7s  %s\n' model layout µs binary ev/msg eff rb/commit "M ev/s" "sent for"
for m in "${models[@]}"; do
  for l in "${layouts[@]}"; do
    np=${l%% *}
    rest=${l#* }
    digest=""
    for lat in $LATENCIES; do
    link=()
    if [ "$lat" != 0 ]; then link+=(--emulate-latency "$lat"); fi
    if [ -n "$BANDWIDTH" ]; then link+=(--emulate-bandwidth "$BANDWIDTH"); fi
    for round in $(seq "$ROUNDS"); do
      for bin in $BINS; do
        # shellcheck disable=SC2086
        mpirun --oversubscribe -n "$np" "$bin" run $m --sync optimistic $rest "${link[@]}" -q --stats-json "$out/s.json"
        python3 - "$out/s.json" "$m" "-n $np $rest" "$bin" "$digest" "$lat" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
words = sys.argv[2].split()
model = words[0] + (f" r{words[words.index('--remote') + 1]}" if "--remote" in words else "")
layout, binary, want, lat = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
if want and s["digest"] != want:
    sys.exit(f"digest {s['digest']} != {want}: {model} {layout} {binary}")
rb = s["rolled_back_events"] / max(1, s["committed_events"])
rate = s["committed_events"] / s["wall_seconds"] / 1e6
why = ", ".join(f"{k} {v}" for k, v in s.get("mpi_flushes", {}).items() if v) or "-"
print(f"{model:<10} {layout:<28} {lat:>5} {binary[-26:]:<26} {s['mpi_events_per_message']:8.1f} {s['efficiency']:6.3f} "
      f"{rb:9.4f} {rate:7.2f}  {why}")
EOF
        digest=${digest:-$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digest"])' "$out/s.json")}
      done
    done
    done
  done
done
