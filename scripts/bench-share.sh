#!/usr/bin/env bash
# Interference against the fair share (issue 39): each configuration with
# no other program and with HOGS busy loops (`while :; do :; done`, started
# and stopped here), for one or more binaries, in alternating rounds; prints
# medians, the slowdown against the configuration's own unloaded time and
# against the fair share S = (threads + hogs) / cores, and the workers'
# own account (seconds waiting, descheduled, on a core; summed).
#
#   BINS="/tmp/before target/release/timewarp" scripts/bench-share.sh
#
# Environment: BINS (binaries; default: this build), HOGS (1), REPS (5),
# LPS (262144), END (5), REMOTE (0.2), THREADS (2), CONFIGS (a ;-separated
# list of extra options, one configuration each; default: fixed, dynamic /
# adaptive / ladm with 4 PEs per thread, conservative).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BINS:-}" ]; then
  cargo build --release -q -p timewarp-cli
  BINS="${CARGO_TARGET_DIR:-target}/release/timewarp"
fi
THREADS=${THREADS:-2}
P=$((4 * THREADS))
CONFIGS=${CONFIGS:-"--sync optimistic;--sync optimistic --pes $P --scheduling dynamic;--sync optimistic --pes $P --scheduling adaptive;--sync optimistic --pes $P --scheduling ladm;--sync conservative"}
echo "machine: $(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
python3 - "$BINS" "$CONFIGS" "${HOGS:-1}" "${REPS:-5}" "${LPS:-262144}" "${END:-5}" "${REMOTE:-0.2}" "$THREADS" <<'PY'
import json, os, signal, statistics, subprocess, sys, tempfile
bins, configs, hogs, reps, lps, end, remote, threads = sys.argv[1:]
bins, configs, hogs, reps, threads = bins.split(), configs.split(";"), int(hogs), int(reps), int(threads)
cores = os.cpu_count()
share = max(1.0, (threads + hogs) / cores)
out = os.path.join(tempfile.mkdtemp(), "s.json")
t, wk, dig = {}, {}, {}
for r in range(reps):
    for c in configs:
        for b in bins:
            for h in (0, hogs):
                hp = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(h)]
                try:
                    args = [b, "run", "phold", "--lps", lps, "--remote", remote, "--end", end, "--threads", str(threads),
                            *c.split(), "--quiet", "--stats-json", out]
                    subprocess.run(args, check=True)
                finally:
                    for p in hp:
                        p.send_signal(signal.SIGKILL); p.wait()
                s = json.load(open(out))
                t.setdefault((c, b, h), []).append(s["init_seconds"] + s["wall_seconds"])
                dig.setdefault(c, set()).add(s["digest"])
                w = s.get("workers", [])
                wk.setdefault((c, b, h), []).append([sum(x.get(k) or 0 for x in w) for k in
                                                     ("wait_seconds", "descheduled_seconds", "cpu_seconds", "parks")])
print(f"{hogs} hog(s), {threads} threads, {cores} cores: fair share S = {share:.2f}; {reps} rounds; medians")
print("| configuration | binary | no hog s | hog s | hog / no hog | / S | / S vs first row's no hog | wait / desched / cpu s (hog) | parks (hog) |")
print("|---|---|---|---|---|---|---|---|---|")
base = {b: statistics.median(t[(configs[0], b, 0)]) for b in bins}
for c in configs:
    for b in bins:
        m0, m1 = statistics.median(t[(c, b, 0)]), statistics.median(t[(c, b, hogs)])
        w = [statistics.median(x[i] for x in wk[(c, b, hogs)]) for i in range(4)]
        print(f"| `{c}` | {os.path.basename(b)} | {m0:.3f} | {m1:.3f} | {m1/m0:.2f} | {m1/m0/share:.2f} | "
              f"{m1/base[b]/share:.2f} | {w[0]:.2f} / {w[1]:.2f} / {w[2]:.2f} | {w[3]:.0f} |")
bad = {c: d for c, d in dig.items() if len(d) != 1}
print("digests: " + ("equal per configuration" if not bad else f"DIFFER: {bad}"))
PY
