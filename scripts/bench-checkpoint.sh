#!/usr/bin/env bash
# What checkpoints cost: PHOLD with LPS LPs (2^20) and 10 events each, END
# (10) virtual time, in each mode of MODES (mode:threads). Per mode, runs
# alternately REPS times without checkpoints and with one every 10% of the
# virtual time (9 checkpoints), and prints: the time to write one checkpoint,
# its file size against the live state it holds (LP records plus pending
# events, in memory), and the slowdown of the run that checkpoints (wall
# time of the whole process, medians; the two runs' digests must agree).
#   LPS=1048576 END=10 REPS=3 MODES="sequential optimistic:2" scripts/bench-checkpoint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p timewarp-cli
bin=${CARGO_TARGET_DIR:-target}/release/timewarp
LPS=${LPS:-1048576}
END=${END:-10}
REPS=${REPS:-3}
MODES=${MODES:-"sequential conservative:2 optimistic:2"}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tw-bench-ckpt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
every=$(python3 -c "print($END / 10)")
echo "phold --lps $LPS --end $END, checkpoint every $every, $REPS rounds, $(nproc) CPUs"
for r in $(seq "$REPS"); do
  for m in $MODES; do
    IFS=: read -r sync threads <<<"$m"
    for kind in plain ckpt; do
      extra=()
      if [ "$kind" = ckpt ]; then
        rm -rf "$tmp/ck"
        extra=(--checkpoint-dir "$tmp/ck" --checkpoint-every "$every" --checkpoint-keep 1)
      fi
      t0=$(date +%s.%N)
      $bin run phold --lps "$LPS" --end "$END" --sync "$sync" --threads "${threads:-1}" "${extra[@]}" \
        -q --stats-json "$tmp/$m.$kind.$r.json"
      t1=$(date +%s.%N)
      echo "$t0 $t1" >"$tmp/$m.$kind.$r.time"
      if [ "$kind" = ckpt ]; then
        stat -c %s "$tmp"/ck/ckpt-*.twc >"$tmp/$m.$r.size"
        python3 -c "import json,sys; h=open(sys.argv[1],'rb').read(4096); i=h.index(b'{'); \
          d=json.JSONDecoder().raw_decode(h[i:].decode('utf8','replace'))[0]; print(d['lps'], d['events'])" \
          "$(ls "$tmp"/ck/ckpt-*.twc)" >"$tmp/$m.$r.counts"
      fi
    done
  done
done
python3 - "$tmp" "$REPS" "$LPS" $MODES <<'PY'
import json, sys, statistics
d, reps, lps, modes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
# In memory: an LP record of PHOLD is 88 bytes (stream counters, digest,
# counters, state); a pending event is `event_bytes` (from the statistics).
LP_RECORD = 88
print(f"{'mode':<16} {'plain s':>8} {'ckpt s':>8} {'slowdown':>8} {'write s':>8} {'file MB':>8} {'live MB':>8} {'file/live':>9}")
for m in modes:
    wall = {}
    for kind in ("plain", "ckpt"):
        ts = []
        for r in range(1, reps + 1):
            t0, t1 = map(float, open(f"{d}/{m}.{kind}.{r}.time").read().split())
            ts.append(t1 - t0)
        wall[kind] = statistics.median(ts)
    runs = [json.load(open(f"{d}/{m}.ckpt.{r}.json")) for r in range(1, reps + 1)]
    plain = json.load(open(f"{d}/{m}.plain.1.json"))
    assert all(x["digest"] == plain["digest"] for x in runs), "checkpointing changed the digest"
    assert all(x["checkpoints"] == 9 for x in runs), [x["checkpoints"] for x in runs]
    write = statistics.median(x["checkpoint_seconds"] / x["checkpoints"] for x in runs)
    size = statistics.median(int(open(f"{d}/{m}.{r}.size").read()) for r in range(1, reps + 1))
    n_lps, events = map(int, open(f"{d}/{m}.1.counts").read().split())
    live = n_lps * LP_RECORD + events * plain["event_bytes"]
    print(f"{m:<16} {wall['plain']:8.2f} {wall['ckpt']:8.2f} {wall['ckpt'] / wall['plain']:8.3f} "
          f"{write:8.3f} {size / 1e6:8.1f} {live / 1e6:8.1f} {size / live:9.2f}")
PY
