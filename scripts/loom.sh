#!/usr/bin/env bash
# Model-checked concurrency (issue 63): runs the loom tests, which explore
# every interleaving (and every outcome the memory orderings allow) of the
# rings and doorbells between PEs (transport/ring.rs) and of the GVT
# round's phases (gvt/), on the very code the kernels run: built with
# `--cfg loom`, `crate::sync` hands out loom's atomics and a loom model of
# rtrb's ring. Its own target directory (target/loom) keeps the normal
# build's cache; the first build takes a few minutes, the tests under a
# minute on 2 cores.
#
# LOOM_MAX_PREEMPTIONS bounds the forced thread switches per interleaving
# (default 3; 4 takes far longer). Extra arguments go to the test harness
# (a name filter, --nocapture); LOOM_LOG=info prints how many
# interleavings each test ran.
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}"
export LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}"
exec cargo test -p timewarp --lib --profile loom --target-dir target/loom -- loom_tests "$@"
