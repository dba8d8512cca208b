#!/usr/bin/env bash
# Side by side with CODES itself: runs CODES a5958cf's synthetic workload
# programs and `timewarp run network --codes-config` on the same
# configurations and loads, and prints CODES's average chunk latency against
# our network latency (`network_latency_mean`, docs/codes.md "Our figures in
# CODES's terms"), CODES's average hops against ours + 1 (CODES counts the
# routers a chunk passes, we count the links between them), and packets
# generated/finished against injected/delivered.
#
#   scripts/codes-compare.sh [--codes-build DIR] [--build DIR] [--record DIR] [--np N] [ROW...]
#
#   --codes-build DIR  an existing build: DIR/codes/build/src holds the
#                      model-net-synthetic* programs (default /work/codes-build)
#   --build DIR        build ROSS (the commit CODES's CI pins) and CODES a5958cf
#                      into DIR first, from the snapshots in /work/.mirror or,
#                      when those are absent, from GitHub (git clone)
#   --record DIR       also write CODES's stdout per row and the figures
#                      (codes.tsv) into DIR (crates/timewarp-cli/tests/data/codes-reference)
#   --np N             CODES's MPI ranks (default 1, sequential --sync=1;
#                      N > 1 runs --sync=3, optimistic)
#   ROW                only these rows (ids below); default all
#
# Each row is small enough for seconds on two cores. Needs mpirun, python3.
# TIMEWARP=PATH runs that binary instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
CODES_COMMIT=a5958cfa
ROSS_COMMIT=9b6ccb18f9b9db438bf41b5b221d0ef16a4dac48 # ROSS_REF in CODES's .github/workflows/build.yml
cb=/work/codes-build
build=""
record=""
np=1
rows=()
while [ $# -gt 0 ]; do
  case "$1" in
    --codes-build) cb=$2; shift 2 ;;
    --build) build=$2; cb=$2; shift 2 ;;
    --record) record=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    -h|--help) sed -n 2,24p "$0"; exit 0 ;;
    -*) echo "codes-compare.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) rows+=("$1"); shift ;;
  esac
done

unpack() { # unpack NAME MIRROR URL COMMIT DEST
  if [ -d "/work/.mirror/$2/repo" ]; then
    git -C "/work/.mirror/$2/repo" archive "$4" | tar -x -C "$5"
  else
    git clone -q "$3" "$5" && git -C "$5" checkout -q "$4"
  fi
}
if [ -n "$build" ]; then
  mkdir -p "$build/ross" "$build/codes"
  unpack ROSS ROSS-org+ROSS https://github.com/ROSS-org/ROSS "$ROSS_COMMIT" "$build/ross"
  unpack CODES codes-org+codes https://github.com/codes-org/codes "$CODES_COMMIT" "$build/codes"
  cmake -S "$build/ross" -B "$build/ross/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$build/ross-install" -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx >/dev/null
  cmake --build "$build/ross/build" --target install -j2 >/dev/null
  ROSS_ROOT="$build/ross-install" cmake -S "$build/codes" -B "$build/codes/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_TESTING=OFF -DCODES_USE_TORCH=OFF -DCODES_USE_ZEROMQ=OFF \
    -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx >/dev/null
  cmake --build "$build/codes/build" -j2 --target model-net-synthetic-dragonfly-all \
    model-net-synthetic model-net-synthetic-fattree model-net-synthetic-slimfly >/dev/null
fi
bin_dir="$(cd "$cb" 2>/dev/null && pwd)/codes/build/src"
[ -x "$bin_dir/model-net-synthetic-dragonfly-all" ] || {
  echo "codes-compare.sh: no CODES build in $cb (give --build DIR to build one, or --codes-build DIR)" >&2
  exit 2
}
# TIMEWARP=path uses that binary instead of building the release one.
tw=${TIMEWARP:-}
if [ -z "$tw" ]; then
  cargo build --release -q -p timewarp-cli
  tw="${CARGO_TARGET_DIR:-target}/release/timewarp"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader

D=crates/timewarp-cli/tests/data/codes
# id | CODES program | configuration | routing ("-": the file's) | payload bytes |
# messages per node ("end:NS": until NS, the fat-tree program has no count) |
# arrivals (CODES's: periodic in phase for -dragonfly-all, Poisson for the
# others) | CODES --arrival_time values (ns), lowest load first
ROWS="
theta-adaptive|model-net-synthetic-dragonfly-all|modelnet-test-dragonfly-theta.conf|-|2048|20|in-phase|8000 4000 2000
theta-prog-adaptive|model-net-synthetic-dragonfly-all|modelnet-test-dragonfly-theta.conf|prog-adaptive|2048|20|in-phase|8000 4000 2000
df1056-minimal|model-net-synthetic|synthetic-dragonfly-minimal-c512.conf|-|2048|10|poisson|4000 2000 1000
df1056-adaptive|model-net-synthetic|synthetic-dragonfly-minimal-c512.conf|adaptive|2048|10|poisson|4000 2000 1000
dally72-minimal|model-net-synthetic-dragonfly-all|dfdally_72.conf|-|4096|20|in-phase|16000 8000 4000
dfplus-prog-adaptive|model-net-synthetic-dragonfly-all|dfp-test.conf|-|2048|20|in-phase|8000 4000 2000
fattree128-adaptive|model-net-synthetic-fattree|synthetic-fattree-stock.conf|-|2048|end:20000|poisson|2000 1000 500
slimfly3042-adaptive|model-net-synthetic-slimfly|sfly_3k.conf|-|4096|5|poisson|4000 2000 1000
"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$record" ] && mkdir -p "$record"
tsv=${record:+$record/codes.tsv}
header="row	conf	routing	payload	count	arrivals	arrival_ns	codes_chunk_latency_ns	tw_network_latency_ns	latency_diff_pct	codes_hops	tw_hops_plus_1	hops_diff_pct	codes_generated	codes_finished	tw_injected	tw_delivered	codes_s	tw_s	tw_latency_mean_ns"
[ -n "$tsv" ] && echo "$header" >"$tsv"
echo "| row | arrival (ns) | CODES chunk latency (ns) | ours: network latency (ns) | Δ | CODES hops | ours + 1 | Δ | CODES packets gen. / fin. | ours injected / delivered | CODES s | ours s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
while IFS='|' read -r id prog conf routing payload count arrivals gaps; do
  [ -z "$id" ] && continue
  if [ ${#rows[@]} -gt 0 ] && [[ ! " ${rows[*]} " == *" $id "* ]]; then continue; fi
  # CODES opens connection files as the file names them (from its working
  # directory): point them at our copies; apply the row's routing.
  sed -E -e "s#(intra|inter)-group-connections=\"[^\"]*/([^\"/]+)\"#\1-group-connections=\"$repo/$D/\2\"#" \
    "$D/$conf" >"$tmp/$id.conf"
  [ "$routing" != "-" ] && sed -i -E "s#^(\s*)routing=\"[^\"]*\"#\1routing=\"$routing\"#" "$tmp/$id.conf"
  for gap in $gaps; do
    codes_args=(--arrival_time="$gap")
    tw_args=(--interarrival "$gap" --arrivals "$arrivals" --message-bytes "$payload")
    case "$prog" in
      model-net-synthetic-dragonfly-all) codes_args+=(--payload_sz="$payload") ;;
      *) codes_args+=(--payload_size="$payload") ;;
    esac
    case "$count" in
      end:*) codes_args+=(--end="${count#end:}"); tw_args+=(--end "${count#end:}") ;;
      *) codes_args+=(--num_messages="$count"); tw_args+=(--messages "$count" --end 1e12) ;;
    esac
    if [ "$np" -gt 1 ]; then sync=3; else sync=1; fi
    out="$tmp/$id-$gap.codes.txt"
    t0=$(date +%s.%N)
    # In $tmp: CODES writes its sampling and LP-stats files where it runs.
    (cd "$tmp" && mpirun -np "$np" --oversubscribe "$bin_dir/$prog" --sync=$sync "${codes_args[@]}" -- "$tmp/$id.conf") \
      </dev/null >"$out" 2>&1 || {
      echo "codes-compare.sh: CODES failed on $id at $gap ns (its output: $out)" >&2; tail -5 "$out" >&2; exit 1; }
    t1=$(date +%s.%N)
    "$tw" run network --codes-config "$tmp/$id.conf" "${tw_args[@]}" -q \
      --stats-json "$tmp/$id-$gap.json" </dev/null
    t2=$(date +%s.%N)
    line=$(python3 - "$out" "$tmp/$id-$gap.json" "$id|$conf|$routing|$payload|$count|$arrivals" "$gap" "$t0" "$t1" "$t2" <<'PY'
import json, re, sys
out, js, row, gap, t0, t1, t2 = sys.argv[1:]
row = "\t".join(row.split("|"))
text = open(out).read()
# The Dragonfly+ program punctuates its summary differently ("router hops", colons).
m = re.search(r"Average number of (?:router )?hops traversed:? ([0-9.]+);? average chunk latency:? ([0-9.]+) us", text)
g = re.search(r"Total packets generated:? (\d+);? finished:? (\d+)", text)
r = json.load(open(js))["model_results"]
cl, ch = float(m.group(2)) * 1000.0, float(m.group(1))
tl, th = r["network_latency_mean"], r["hops_mean"] + 1.0
pct = lambda a, b: 100.0 * (a - b) / b
print("\t".join([row, gap, f"{cl:.1f}", f"{tl:.1f}", f"{pct(tl, cl):+.1f}", f"{ch:.4f}", f"{th:.4f}",
                 f"{pct(th, ch):+.1f}", g.group(1), g.group(2), str(r["injected_packets"]),
                 str(r["delivered_packets"]), f"{float(t1) - float(t0):.2f}", f"{float(t2) - float(t1):.2f}",
                 f"{r['latency_mean']:.1f}"]))
PY
)
    # CODES's summary as it printed it, less a line per node ("server N recvd ...").
    [ -n "$tsv" ] && { echo "$line" >>"$tsv"; grep -v '^server [0-9]* recvd' "$out" >"$record/$id-$gap.codes.txt"; }
    IFS=$'\t' read -r -a f <<<"$line"
    echo "| ${f[0]} | ${f[6]} | ${f[7]} | ${f[8]} | ${f[9]} % | ${f[10]} | ${f[11]} | ${f[12]} % | ${f[13]} / ${f[14]} | ${f[15]} / ${f[16]} | ${f[17]} | ${f[18]} |"
  done
done <<<"$ROWS"
