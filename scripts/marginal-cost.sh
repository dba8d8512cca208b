#!/usr/bin/env bash
# Marginal instructions per committed event of one configuration under
# callgrind: runs it to two points and prints
# (instructions at B - at A) / (committed events at B - at A), so start-up,
# the initial events and the report cancel out (the cost baseline's method,
# scripts/cost-baseline.py, for runs it cannot express: a count of
# messages instead of an end time).
#   scripts/marginal-cost.sh BIN end A B RUN_ARGS...       # --end A, --end B
#   scripts/marginal-cost.sh BIN messages A B RUN_ARGS...  # --messages A, --messages B
# Prints "FIGURE  digest=DIGEST" (the digest of the run to B). Needs
# valgrind and python3.
set -euo pipefail
[ $# -ge 5 ] || { echo "usage: $0 BIN end|messages A B RUN_ARGS..." >&2; exit 2; }
bin=$1 what=$2 a=$3 b=$4
shift 4
case $what in end | messages) ;; *) echo "error: say end or messages, not '$what'" >&2; exit 2 ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tw-marginal.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for x in "$a" "$b"; do
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$x" "$bin" run "$@" "--$what" "$x" \
    --quiet --stats-json "$tmp/s.$x.json" >/dev/null 2>"$tmp/err.$x" || true
  [ -s "$tmp/s.$x.json" ] || { echo "error: the run to --$what $x wrote no statistics:" >&2; cat "$tmp/err.$x" >&2; exit 1; }
done
python3 - "$tmp" "$a" "$b" <<'PY'
import json, re, sys
tmp, a, b = sys.argv[1:]
def ir(x):
    for line in open(f"{tmp}/cg.{x}"):
        m = re.match(r"(?:summary|totals):\s+(\d+)", line)
        if m:
            return int(m.group(1))
    raise SystemExit(f"error: no instruction total in callgrind's output for {x}")
sa, sb = (json.load(open(f"{tmp}/s.{x}.json")) for x in (a, b))
n = sb["committed_events"] - sa["committed_events"]
if n <= 0:
    raise SystemExit("error: no more events committed at B than at A; widen the gap")
print(f"{(ir(b) - ir(a)) / n:8.1f}  digest={sb.get('digest')}")
PY
