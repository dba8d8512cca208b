#!/usr/bin/env bash
# Refactoring guard (issue 30): results and cost unchanged by a change that
# should change neither.
#   scripts/house-check.sh digests > now.txt     # digest of every configuration in the table
#   scripts/house-check.sh callgrind             # instructions per committed event
# Compare `digests` output before and after with diff (it must be empty);
# compare `callgrind` figures (a rise of more than 1% is a regression).
# Uses the release binary at ${BIN:-target/release/timewarp}; build it first
# (cargo build --release -p timewarp-cli).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/timewarp}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

digest() { "$BIN" run "$@" --quiet --stats-json "$tmp/s.json" >/dev/null 2>&1 || { echo "FAILED: $*"; return; }
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digest"])' "$tmp/s.json"; }

case "${1:-}" in
digests)
  # Every mode, several PE/thread counts, mappings, queues, rollback kinds and models.
  while IFS= read -r cfg; do
    [ -z "$cfg" ] && continue
    cfg=${cfg//\$tmp/$tmp}
    # shellcheck disable=SC2086
    printf '%s  %s\n' "$(digest $cfg)" "${cfg//$tmp/TMP}"
  done <<'TABLE'
phold --end 20 --sync sequential
phold --end 20 --sync optimistic --threads 1
phold --end 20 --sync optimistic --threads 2
phold --end 20 --sync optimistic --threads 1 --pes 4
phold --end 20 --sync optimistic --threads 2 --pes 6 --mapping random
phold --end 20 --sync optimistic --threads 2 --scheduling dynamic --pes 4
phold --end 20 --sync conservative --threads 1
phold --end 20 --sync conservative --threads 2
phold --end 20 --sync check
phold --end 20 --remote 1.0 --sync optimistic --threads 2 --queue heap
phold --end 20 --lps 4096 --sync optimistic --threads 2 --event-memory 64
pcs --end 200 --sync sequential
pcs --end 200 --sync optimistic --threads 2 --pes 4
pcs --end 200 --sync optimistic --threads 1 --pes 4 --rollback incremental
pcs --end 200 --sync check
tlm --end 20 --sync sequential
tlm --end 20 --sync optimistic --threads 2
tlm --end 20 --sync conservative --threads 2
network --topology hypercube --dims 6 --load 0.5 --end 2000 --sync sequential
network --topology hypercube --dims 6 --load 0.5 --end 2000 --sync optimistic --threads 1 --pes 4
network --topology hypercube --dims 6 --load 0.5 --end 2000 --sync optimistic --threads 2
network --topology hypercube --dims 6 --load 0.5 --end 2000 --sync conservative --threads 2
network --topology torus --dims 8,8 --vcs 4 --buffer-packets 8 --traffic shift --shift 3 --load 1.0 --end 3000 --sync optimistic --threads 2 --pes 4
network --topology dragonfly --routing ugal --load 0.4 --end 2000 --sync optimistic --threads 2 --pes 4
network --topology dragonfly --routing ugal --load 0.4 --end 2000 --sync sequential
phold --end 20 --sync optimistic --threads 2 --checkpoint-dir $tmp/ck1 --checkpoint-every 5
phold --end 20 --sync conservative --threads 2 --checkpoint-dir $tmp/ck2 --checkpoint-every 5
phold --end 20 --sync sequential --checkpoint-dir $tmp/ck3 --checkpoint-every 5
network --topology hypercube --dims 6 --load 0.5 --end 2000 --sync optimistic --threads 2 --checkpoint-dir $tmp/ck4 --checkpoint-every 500
phold --end 20 --sync optimistic --threads 2 --pes 4 --no-safe-events
tlm --end 20 --sync optimistic --threads 1 --pes 4
TABLE
  ;;
callgrind)
  # Marginal instructions per committed event between two end times
  # (start-up excluded): reference PHOLD in three kernels, the 1,024-node hypercube,
  # TLM 2-D and PCS (issue 38's ratio targets: optimistic over sequential).
  per_event() { # label, end1, end2, args...
    local label=$1 e1=$2 e2=$3; shift 3
    local t=() n=()
    for e in "$e1" "$e2"; do
      valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$e" "$BIN" run "$@" --end "$e" --quiet --stats-json "$tmp/cg$e.json" >/dev/null 2>&1
      t+=("$(awk '/^(summary|totals):/ {print $2; exit}' "$tmp/cg.$e")")
      n+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["committed_events"])' "$tmp/cg$e.json")")
    done
    python3 -c 'import sys; t1,t2,n1,n2=map(int,sys.argv[2:]); print(f"{(t2-t1)/(n2-n1):8.1f}  {sys.argv[1]}")' "$label" "${t[0]}" "${t[1]}" "${n[0]}" "${n[1]}"
  }
  per_event "phold sequential" 5 10 phold --sync sequential
  per_event "phold optimistic 1 thread" 5 10 phold --sync optimistic --threads 1
  per_event "phold optimistic 1 thread, every event speculative" 5 10 phold --sync optimistic --threads 1 --no-safe-events
  per_event "phold conservative 1 thread" 5 10 phold --sync conservative --threads 1
  per_event "hypercube 1024 sequential" 5000 10000 network --topology hypercube --dims 10 --load 0.3 --sync sequential
  per_event "hypercube 1024 optimistic 1 thread" 5000 10000 network --topology hypercube --dims 10 --load 0.3 --sync optimistic --threads 1
  per_event "hypercube 1024 optimistic 1 thread, every event speculative" 5000 10000 network --topology hypercube --dims 10 --load 0.3 --sync optimistic --threads 1 --no-safe-events
  per_event "tlm 2-D sequential" 10 20 tlm --size 200x200 --sources 20 --sync sequential
  per_event "tlm 2-D optimistic 1 thread" 10 20 tlm --size 200x200 --sources 20 --sync optimistic --threads 1
  per_event "tlm 2-D optimistic 1 thread, every event speculative" 10 20 tlm --size 200x200 --sources 20 --sync optimistic --threads 1 --no-safe-events
  per_event "pcs sequential" 100 200 pcs --sync sequential
  per_event "pcs optimistic 1 thread" 100 200 pcs --sync optimistic --threads 1
  per_event "pcs optimistic 1 thread, every event speculative" 100 200 pcs --sync optimistic --threads 1 --no-safe-events
  ;;
*) sed -n 2,10p "$0"; exit 2 ;;
esac
