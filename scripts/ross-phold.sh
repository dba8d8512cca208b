#!/usr/bin/env bash
# Runs ROSS's PHOLD on the reference configuration, for bench-mpi.sh's
# ROSS_PHOLD (ROSS itself is not part of this project: build it yourself and
# point ROSS_BIN at its phold binary).
#   ROSS_BIN=/path/to/ross/build/models/phold/phold scripts/ross-phold.sh NP REMOTE
# Reference configuration: 16,384 LPs in all (--nlp is per rank), 10 initial
# events per LP, delay 1.0 + Exp(1.0) (ROSS's PHOLD subtracts the lookahead
# from --mean), end 20; --synch=1 (sequential) for NP=1, --synch=3 (optimistic)
# otherwise. Prints `ross np=NP remote=R net_events=N seconds=S ev_per_s=E`:
# N is "Net Events Processed" (committed), S "Running Time" (start-up excluded).
set -euo pipefail
NP=${1:?usage: ROSS_BIN=... $0 NP REMOTE}
REMOTE=${2:?usage: ROSS_BIN=... $0 NP REMOTE}
BIN=$(readlink -f "${ROSS_BIN:?set ROSS_BIN to the phold binary of a ROSS build}")
LPS=16384
if (( LPS % NP != 0 )); then echo "error: NP must divide $LPS" >&2; exit 2; fi
SYNCH=3; [ "$NP" = 1 ] && SYNCH=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
work=$(mktemp -d) # ROSS appends to ./ross.csv
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! mpirun -n "$NP" --oversubscribe "$BIN" --synch="$SYNCH" --nlp=$((LPS / NP)) --start-events=10 \
  --mean=2.0 --lookahead=1.0 --remote="$REMOTE" --end=20 >out.txt 2>&1; then
  echo "error: ROSS's phold failed:" >&2; tail -20 out.txt >&2; exit 1
fi
awk -v np="$NP" -v r="$REMOTE" '
  /Net Events Processed/ { n = $NF }
  /: Running Time =/ { split($0, a, "="); split(a[2], b, " "); s = b[1] }
  END { if (n == "" || s <= 0) { print "error: no event count or running time in ROSS output" > "/dev/stderr"; exit 1 }
        printf "ross np=%s remote=%s net_events=%s seconds=%s ev_per_s=%.1f\n", np, r, n, s, n / s }' out.txt
