#!/usr/bin/env bash
# Resilience to interference (issue 16): each scheduling policy with and
# without CPU hogs (busy-loop processes of their own, started and stopped
# here), in alternating rounds; prints the slowdown (median time with hogs /
# median time without) beside the proportional slowdown of the multicore
# report, S = (workers + hogs) / cores (equations 1-2), and each policy's
# time without hogs against fixed's, and deactivations per run (without /
# with hogs).
#
#   scripts/bench-interference.sh                 # 2 workers, 1 hog, PHOLD remote 0.2 and 1.0, 2 and 8 PEs
#   THREADS=16 HOGS="1 8" scripts/bench-interference.sh   # on a 16-core machine
#
# Environment: THREADS (workers, default: cores), HOGS (hog counts, "1"),
# PES (PEs per run, as multiples of THREADS: "1 4"), REMOTES ("0.2 1.0"),
# POLICIES ("fixed dynamic adaptive ladm"), LPS (65536), END (20),
# REPS (rounds, 3), PCS=1 adds PCS with mobility, BIN (the binary; built
# here when unset), SYNC (optimistic; conservative runs one PE per worker).
set -euo pipefail
cd "$(dirname "$0")/.."
CORES=$(nproc)
THREADS=${THREADS:-$CORES}
HOGS=${HOGS:-1}
PES=${PES:-"1 4"}
REMOTES=${REMOTES:-"0.2 1.0"}
POLICIES=${POLICIES:-"fixed dynamic adaptive ladm"}
LPS=${LPS:-65536}
END=${END:-20}
REPS=${REPS:-3}
PCS=${PCS:-0}
SYNC=${SYNC:-optimistic}
if [ -z "${BIN:-}" ]; then
  cargo build --release -q -p timewarp-cli
  BIN="${CARGO_TARGET_DIR:-target}/release/timewarp"
fi
echo "machine: $CORES CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "binary: $BIN; $THREADS workers, hogs: $HOGS, $REPS alternating rounds"
python3 - "$BIN" "$CORES" "$THREADS" "$HOGS" "$PES" "$REMOTES" "$POLICIES" "$LPS" "$END" "$REPS" "$PCS" "$SYNC" <<'PY'
import json, os, signal, statistics, subprocess, sys, tempfile

binary, cores, threads, hogs, pes, remotes, policies, lps, end, reps, pcs, sync = sys.argv[1:]
cores, threads, reps = int(cores), int(threads), int(reps)
hogs = [int(h) for h in hogs.split()]
policies = policies.split() if sync == "optimistic" else ["fixed"]
pes = [int(p) for p in pes.split()] if sync == "optimistic" else [1]
tmp = tempfile.mkdtemp()

models = [(f"phold remote {r}", ["phold", "--lps", lps, "--remote", r, "--end", end]) for r in remotes.split()]
if pcs == "1":
    models.append(("pcs mobility", ["pcs", "--cells-x", "64", "--cells-y", "64", "--end", "100"]))

def start_hogs(n):
    # A busy loop of its own: no timewarp code, no shared memory.
    return [subprocess.Popen(["python3", "-c", "while True: pass"]) for _ in range(n)]

def stop(procs):
    for p in procs:
        p.send_signal(signal.SIGKILL)
        p.wait()

def run(args, out):
    subprocess.run([binary, "run", *args, "--quiet", "--stats-json", out], check=True)
    s = json.load(open(out))
    return s["init_seconds"] + s["wall_seconds"], s["digest"], s

times = {}   # (model, pes, policy, hogs) -> [seconds]
digests = {}
extra = {}
for rnd in range(reps):
    for name, margs in models:
        for k in pes:
            for policy in policies:
                for h in [0] + hogs:
                    args = margs + ["--sync", sync, "--threads", str(threads)]
                    if sync == "optimistic":
                        args += ["--pes", str(k * threads), "--scheduling", policy]
                    hp = start_hogs(h)
                    try:
                        t, d, s = run(args, os.path.join(tmp, "s.json"))
                    finally:
                        stop(hp)
                    key = (name, k, policy, h)
                    times.setdefault(key, []).append(t)
                    digests.setdefault(name, set()).add(d)
                    w = s.get("workers", [])
                    e = extra.setdefault(key, [0, 0, 0.0, 0])
                    e[0] += sum(x["deactivations"] for x in w)
                    e[1] += sum(x["help_iterations"] for x in w)
                    e[2] += s["efficiency"]
                    e[3] += 1

print(f"{'model':<18} {'PEs':>4} {'policy':<9} {'hogs':>4} {'no hog s':>9} {'hog s':>8} {'slowdown':>8} {'ideal S':>7} {'/S':>5} {'vs fixed':>8} {'deact/run':>11} {'eff':>5}")
for name, _ in models:
    for k in pes:
        for h in hogs:
            base = statistics.median(times[(name, k, "fixed", 0)]) if "fixed" in policies else None
            for policy in policies:
                t0 = times[(name, k, policy, 0)]
                t1 = times[(name, k, policy, h)]
                m0, m1 = statistics.median(t0), statistics.median(t1)
                s = (threads + h) / cores if threads + h > cores else 1.0
                e = extra[(name, k, policy, h)]
                e0 = extra[(name, k, policy, 0)]
                deact = f"{e0[0] / e0[3]:.1f}/{e[0] / e[3]:.1f}"
                vs = f"{m0 / base:.3f}" if base else "-"
                print(f"{name:<18} {k * threads:>4} {policy:<9} {h:>4} {m0:>9.3f} {m1:>8.3f} {m1 / m0:>8.2f} {s:>7.2f} "
                      f"{m1 / m0 / s:>5.2f} {vs:>8} {deact:>11} {e[2] / e[3]:>5.3f}")
            ranges = {p: (min(times[(name, k, p, h)]), max(times[(name, k, p, h)])) for p in policies}
            print("    with hogs, min..max s: " + ", ".join(f"{p} {a:.2f}..{b:.2f}" for p, (a, b) in ranges.items()))
bad = {n: d for n, d in digests.items() if len(d) != 1}
print("digests: " + ("all equal per model" if not bad else f"DIFFER: {bad}"))
sys.exit(1 if bad else 0)
PY
