#!/usr/bin/env python3
"""Wall and CPU time of several runs, measured in shuffled interleaved rounds.

On a shared machine the load moves within minutes, and a run measured
after another one meets another load: each round runs every configuration
once, in a fresh random order, so that all of them see the same host. The
minimum, 25th percentile and median of each are printed, with ratios to
the first configuration (ratios of the same statistic, one set).

Usage:
    scripts/wall-sets.py ROUNDS 'LABEL|BINARY|ARGS' ['LABEL|BINARY|ARGS' ...]

Each configuration runs `BINARY run ARGS --quiet` from the repository root,
e.g. the 1 × 16 target of issue 38 against sequential:

    DF="network --codes-config ../shared/data/codes/synthetic-dragonfly-minimal.conf \\
        --interarrival 1000 --messages 600 --message-bytes 2048 --end 60000"
    scripts/wall-sets.py 20 "seq|target/release/timewarp|$DF --sync sequential" \\
        "1x16|target/release/timewarp|$DF --sync optimistic --threads 1 --pes 16"

Two binaries (before and after a change) compare the same way.
"""

import os
import random
import shlex
import statistics
import subprocess
import sys
import time


def quantile(sorted_values, f):
    return sorted_values[min(len(sorted_values) - 1, int(f * len(sorted_values)))]


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    configs = []
    for spec in sys.argv[2:]:
        parts = spec.split("|", 2)
        if len(parts) != 3:
            sys.exit(f"'{spec}': expected LABEL|BINARY|ARGS")
        label, binary, args = parts
        configs.append((label, os.path.abspath(binary), shlex.split(args)))
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    wall = {label: [] for label, _, _ in configs}
    cpu = {label: [] for label, _, _ in configs}
    for _ in range(rounds):
        order = list(configs)
        random.shuffle(order)
        for label, binary, args in order:
            start = time.perf_counter()
            p = subprocess.Popen([binary, "run", *args, "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, usage = os.wait4(p.pid, 0)
            elapsed = time.perf_counter() - start
            err = p.stderr.read().decode(errors="replace")
            if status != 0:
                sys.exit(f"{label}: exited with status {os.waitstatus_to_exitcode(status)}\n{err}")
            wall[label].append(elapsed)
            cpu[label].append(usage.ru_utime + usage.ru_stime)
    first = configs[0][0]
    base = {f: quantile(sorted(wall[first]), q) for f, q in (("min", 0), ("q25", 0.25))}
    base["med"] = statistics.median(wall[first])
    print(f"{'':12s} {'wall s: min':>11s} {'q25':>7s} {'median':>7s}   {'cpu s: min':>10s} {'median':>7s}   ratio: min q25 median")
    for label, _, _ in configs:
        w, c = sorted(wall[label]), sorted(cpu[label])
        stats = {"min": w[0], "q25": quantile(w, 0.25), "med": statistics.median(w)}
        ratios = " ".join(f"{stats[k] / base[k]:.3f}" for k in ("min", "q25", "med"))
        print(
            f"{label:12s} {stats['min']:11.3f} {stats['q25']:7.3f} {stats['med']:7.3f}   "
            f"{c[0]:10.3f} {statistics.median(c):7.3f}   {ratios}"
        )


if __name__ == "__main__":
    main()
