#!/bin/bash
# Issue 38 on a 16-core machine: the workloads of its table, two binaries alternated.
# Prepare (see ../shared/notes/bare-machine-benchmarks.md): .bench/tw-base (the binary before), .bench/tw-new
# (after), .bench/dfly.conf (CODES synthetic-dragonfly-minimal.conf), this script as .bench/b38.sh; carry .bench.
# Run there: bash .bench/b38.sh   (about 100 s on 16 cores). One line per run: rate, events, efficiency, wall,
# RSS, GVT rounds, throttled/all iterations, seconds throttled and waiting for GVT, largest event budget, digest.
B=$(cd "$(dirname "$0")" && pwd); O=${OUT:-/tmp/out}; mkdir -p $O; LOG=$O/log.txt
say() { echo "$*" | tee -a $LOG; }
say "nproc $(nproc) $(lscpu | grep 'Model name' | cut -c1-60)"
r() { local n=$1 bin=$2; shift 2
  timeout 150 $B/$bin run "$@" --quiet --stats-json $O/j.json >$O/o 2>&1 || { say "$n $bin FAILED $(tail -2 $O/o | tr '\n' ' ')"; return; }
  python3 -c "
import json; d=json.load(open('$O/j.json'))
g=lambda k: d.get(k,'-')
print('$n $bin', 'rate=%.2fM'%(d['event_rate']/1e6), 'ev=%d'%d['committed_events'], 'eff=%.3f'%d['efficiency'], 'wall=%.2f'%d['wall_seconds'], 'rssMB=%d'%(d['peak_rss_bytes']>>20), 'gvt=%s'%g('gvt_rounds'), 'thr_it=%s/%s'%(g('throttled_iterations'),g('iterations')), 'thr_s=%s'%g('throttled_seconds'), 'wait_s=%s'%g('gvt_wait_seconds'), 'budget=%s'%g('event_memory_peak'), 'dig=%s'%d['digest'][:12])" | tee -a $LOG; }
T="tlm --size 1000x1000x2 --sources 100 --end 60"
PH="phold --lps 262144 --end 20 --remote 0.1"
D="network --codes-config $B/dfly.conf --interarrival 1000 --messages 200 --message-bytes 2048 --end 1e12"
H="network --topology hypercube --dims 10 --load 0.3 --end 400000"
say "== tlm $(date +%T)"
r t-seq tw-new $T; r t-con16 tw-new $T --sync conservative --threads 16
for i in 1 2; do r t-opt16 tw-base $T --sync optimistic --threads 16; r t-opt16 tw-new $T --sync optimistic --threads 16; done
say "== dfly $(date +%T)"
r d-seq tw-new $D; r d-con16 tw-new $D --sync conservative --threads 16
for i in 1 2; do r d-opt16 tw-base $D --sync optimistic --threads 16; r d-opt16 tw-new $D --sync optimistic --threads 16; done
# KPs: the default gives this 16.5-LP PE one KP; 16 as before (false rollbacks against list count).
for i in 1 2; do r d-opt16-16kp tw-new $D --sync optimistic --threads 16 --kps-per-pe 16; r d-opt16 tw-new $D --sync optimistic --threads 16; done
r d-1x16 tw-base $D --sync optimistic --threads 1 --pes 16; r d-1x16 tw-new $D --sync optimistic --threads 1 --pes 16
say "== phold $(date +%T)"
r p-seq tw-new $PH; r p-con16 tw-new $PH --sync conservative --threads 16
for i in 1 2; do r p-opt16 tw-base $PH --sync optimistic --threads 16; r p-opt16 tw-new $PH --sync optimistic --threads 16; done
say "== hypercube $(date +%T)"
r h-seq tw-new $H; r h-con16 tw-new $H --sync conservative --threads 16
r h-opt16 tw-base $H --sync optimistic --threads 16; r h-opt16 tw-new $H --sync optimistic --threads 16
r h-opt16-16kp tw-new $H --sync optimistic --threads 16 --kps-per-pe 16  # the default: 4 KPs of 16 LPs
say "== done $(date +%T)"
