#!/usr/bin/env bash
# Cost baseline (issue 60; .ci/run runs it): builds the release binary
# (unless BIN names one), measures instructions per committed event of every
# configuration in perf/cost-baseline.tsv under callgrind, prints the table
# and fails when any figure is more than 3 % above the recorded one.
#   scripts/cost-baseline.sh
# The measured figures stay in target/cost-baseline.measured.tsv; a commit
# that lowers a figure records it with
#   scripts/cost-baseline.py lower perf/cost-baseline.tsv target/cost-baseline.measured.tsv
# (the file's header has the rule). Needs valgrind and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "error: valgrind is not installed (Debian: apt-get install valgrind)" >&2; exit 2; }
if [ -z "${BIN:-}" ]; then
  cargo build --release -p timewarp-cli --bin timewarp
fi
measured=${CARGO_TARGET_DIR:-target}/cost-baseline.measured.tsv
mkdir -p "$(dirname "$measured")"
start=$SECONDS
python3 scripts/cost-baseline.py measure perf/cost-baseline.tsv "$measured"
echo "measured in $((SECONDS - start)) s; instructions per committed event (callgrind):"
python3 scripts/cost-baseline.py compare perf/cost-baseline.tsv "$measured"
