#!/usr/bin/env bash
# The Python package (python/, docs/python.md): builds it and runs its tests
# (.ci/run calls it after scripts/test.sh):
#   1. a virtual environment in target/pyenv with the test extras of
#      python/pyproject.toml (maturin, pytest, pandas, pinned there);
#   2. the package built and installed as users install it
#      (`pip install ./python`, an abi3 wheel by maturin), with the
#      wheel-check profile rather than release (quicker to build);
#   3. pytest (python/tests: every run's digest and statistics against the
#      `timewarp` binary of this tree, errors, Ctrl-C, sweeps, curves,
#      the docstrings' examples);
#   4. the example examples/python/theta_study.py, with its checks.
# TIMEWARP_BIN names the binary to compare with (default: target/debug/timewarp,
# built here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/pyenv

echo "== python: virtual environment $venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
export VIRTUAL_ENV="$PWD/$venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
# The pins of the `test` extras (maturin, pytest, pandas), read from pyproject.toml.
mapfile -t pins < <(python - <<'PY'
import re
text = open("python/pyproject.toml", encoding="utf-8").read()
block = re.search(r"^test\s*=\s*\[(.*?)\]", text, re.S | re.M).group(1)
print("\n".join(re.findall(r'"([^"]+)"', block)))
PY
)
pip install -q --disable-pip-version-check "${pins[@]}"

# The wheel is built with the wheel-check profile (Cargo.toml: release's
# optimisation without LTO, 16 codegen units): cold, 237 CPU-seconds
# against a release wheel's 295, and its last crates compile on both cores
# instead of one. MATURIN_PEP517_ARGS="" builds the release one.
export MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS---profile wheel-check}"
echo "== python: pip install ./python (maturin ${MATURIN_PEP517_ARGS:-release})"
# No build isolation: the pinned maturin above builds it, and the build
# shares target/ with cargo's.
pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./python

echo "== python: pytest"
if [ -z "${TIMEWARP_BIN:-}" ]; then
  cargo build -q -p timewarp-cli --bin timewarp
  export TIMEWARP_BIN="$PWD/target/debug/timewarp"
fi
# Every comparison with the binary must run, not skip.
TIMEWARP_REQUIRE_CLI=1 python -m pytest -q python/tests

echo "== python: examples/python/theta_study.py"
python examples/python/theta_study.py --check
