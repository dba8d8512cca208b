#!/usr/bin/env bash
# The whole test suite (the README's test command; .ci/run calls it):
#   1. every crate's unit, integration and doc tests (`cargo test --workspace
#      --no-fail-fast`: a failing test binary never hides the ones after it);
#   2. where MPI is installed, the MPI build's tests: end-to-end runs under
#      `mpirun -n 2` and `-n 3` (crates/timewarp-cli/tests/mpi.rs).
# Without `mpirun` part 2 is skipped, unless TIMEWARP_REQUIRE_MPI=1 (CI),
# where that is a failure. The MPI build uses its own target directory so it
# never overwrites the default binary.
#
# A test that cannot run here (no Chromium, no tmpfs mount, ...) prints
# `SKIPPED: <test>: <why>` (crates/timewarp/tests/support/skip.rs) and
# passes for libtest; the summary counts it as skipped, not passed, and
# lists it. CI makes such a skip a failure with TIMEWARP_REQUIRE_BROWSER=1,
# TIMEWARP_REQUIRE_MPI=1 or TIMEWARP_REQUIRE_MOUNT=1.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
skips=$(mktemp) # skips of this script's own (not of a test binary)
trap 'rm -f "$log" "$skips"' EXIT
status=0

echo "== cargo test --workspace --no-fail-fast"
cargo test --workspace --no-fail-fast 2>&1 | tee -a "$log" || status=1

# The mpi crate generates its bindings with bindgen, which needs libclang:
# look for it before a build that would fail deep inside a dependency.
have_libclang() {
  [ -n "${LIBCLANG_PATH:-}" ] && return 0
  ldconfig -p 2>/dev/null | grep -q 'libclang[-.0-9]*\.so' && return 0
  compgen -G "/usr/lib/llvm-*/lib/libclang*.so*" >/dev/null && return 0
  compgen -G "/usr/lib*/libclang*.so*" >/dev/null && return 0
  compgen -G "/usr/lib/*/libclang*.so*" >/dev/null && return 0
  return 1
}

if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 && ! have_libclang; then
  msg="MPI is installed but libclang is not (the mpi crate's bindings need it: apt-get install libclang-dev, or set LIBCLANG_PATH)"
  if [ "${TIMEWARP_REQUIRE_MPI:-0}" = 1 ]; then
    echo "error: TIMEWARP_REQUIRE_MPI=1 but $msg" | tee -a "$log"
    status=1
  else
    echo "SKIPPED: mpi (the MPI tests, crates/timewarp-cli/tests/mpi.rs): $msg" | tee -a "$skips"
  fi
elif command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1; then
  echo "== MPI tests (cargo feature mpi, mpirun -n 2 and -n 3)"
  cargo test -p timewarp --features mpi --target-dir "${CARGO_TARGET_DIR:-target}/mpi" --no-fail-fast --doc 2>&1 | tee -a "$log" || status=1
  for t in mpi mpi_networks mpi_connections mpi_hybrid mpi_emulated_link; do
    cargo test -p timewarp-cli --features mpi --target-dir "${CARGO_TARGET_DIR:-target}/mpi" --no-fail-fast --test "$t" 2>&1 | tee -a "$log" || status=1
  done
elif [ "${TIMEWARP_REQUIRE_MPI:-0}" = 1 ]; then
  echo "error: TIMEWARP_REQUIRE_MPI=1 but mpirun/mpicc are not installed (see README: MPI)" | tee -a "$log"
  status=1
else
  echo "SKIPPED: mpi (the MPI tests, crates/timewarp-cli/tests/mpi.rs): mpirun not found (one-line set-up in README: MPI)" | tee -a "$skips"
fi

# A test's SKIPPED line may follow libtest's "test NAME ... " on its line.
tested=$(grep -o 'SKIPPED: .*' "$log" | sort -u)
skipped=$(printf '%s\n%s' "$tested" "$(cat "$skips")" | grep -c '^SKIPPED: ')
if [ "$skipped" -gt 0 ]; then
  echo "skipped tests (not run here):"
  printf '%s\n%s\n' "$tested" "$(cat "$skips")" | grep '^SKIPPED: ' | sed 's/^SKIPPED: /  /'
fi
# cargo's last block is often a crate with no doc-tests ("0 passed"): close
# with the totals of every test binary instead. libtest counts a skipped
# test as passed: it is counted as skipped only.
awk -v skipped="$skipped" -v tested="$(printf '%s' "$tested" | grep -c '^SKIPPED: ')" \
  '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed, %d skipped\n", p - tested, f, skipped }' "$log"
# A test binary that crashed, or a build that failed, counts no failed test.
if [ "$status" != 0 ] && ! grep -q '^test result: FAILED' "$log"; then
  echo "error: a build or a test binary failed outside the counts above (see the output)"
fi
exit "$status"
