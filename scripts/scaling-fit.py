#!/usr/bin/env python3
"""The α–β model of docs/scaling.md, fitted to this machine's runs.

Runs optimistic PHOLD (remote 0.1, 0.5, 1.0) and the Theta preset under
`mpirun -n 2` and `-n 4` (one worker each), at emulated latencies of 0, 2
and 10 µs, and fits, over every rank of every run, the courier's time
(`mpi_seconds`: sends, polls, deliveries, collectives) as

    mpi_seconds = a · messages + e · wall_seconds

by least squares: a per message sent and received, e the share of a
process' time its courier spends on everything else (visits, polls, GVT
rounds, which come at a steady pace). Bytes cost nothing measurable over
shared memory; a cluster's link bandwidth enters the projection instead.
PHOLD sends few messages a second and the Theta preset many, which tells
the two apart over the runs with no more processes than cores. Prints the fitted costs, each run's measured and
modelled courier time, and events per message, efficiency and rate per
emulated latency; then the model's projection for P machines of 16 cores
(docs/scaling.md explains it).

    BIN=target/mpi/release/timewarp scripts/scaling-fit.py

BIN must be an MPI build (cargo build --release --features timewarp-cli/mpi
--target-dir target/mpi).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

BIN = os.environ.get("BIN", "target/mpi/release/timewarp")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_btl="self,vader")
THETA = ("network --preset theta --routing ugal --interarrival 20 --traffic uniform --message-bytes 2048 "
         "--packet-bytes 2048 --end 1e8 --messages 20")
MODELS = {
    "phold r0.1": "phold --lps 65536 --end 20 --remote 0.1",
    "phold r0.5": "phold --lps 65536 --end 20 --remote 0.5",
    "phold r1.0": "phold --lps 65536 --end 20 --remote 1.0",
    "phold r1.0 g4": "phold --lps 65536 --end 20 --remote 1.0 --gvt-interval 4",
    "theta": THETA,
    "theta g64": THETA + " --gvt-interval 64",
}
# Runs with more processes than cores are shown but not fitted: a process
# descheduled inside the courier counts the wait as courier time.
CORES = os.cpu_count() or 1
LATENCIES = [float(x) for x in os.environ.get("LATENCIES", "0 2 10").split()]
NPS = [int(x) for x in os.environ.get("NPS", "2 4").split()]


def run(np, model, latency):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        link = ["--emulate-latency", str(latency)] if latency else []
        cmd = (["mpirun", "--oversubscribe", "-n", str(np), BIN, "run"] + model.split()
               + ["--sync", "optimistic", "--threads", "1", "-q", "--stats-json", f.name] + link)
        subprocess.run(cmd, check=True, env=ENV)
        return json.load(open(f.name))


def solve(rows, ys):
    """Least squares by the normal equations (four unknowns)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    b = [sum(r[i] * y for r, y in zip(rows, ys)) for i in range(n)]
    for i in range(n):  # Gauss-Jordan with partial pivoting
        p = max(range(i, n), key=lambda k: abs(a[k][i]))
        a[i], a[p], b[i], b[p] = a[p], a[i], b[p], b[i]
        for k in range(n):
            if k != i and a[i][i]:
                f = a[k][i] / a[i][i]
                a[k] = [x - f * y for x, y in zip(a[k], a[i])]
                b[k] -= f * b[i]
    return [b[i] / a[i][i] if a[i][i] else 0.0 for i in range(n)]


def main():
    rows, ys, runs, names = [], [], [], []
    print(f"{'model':<11} {'-n':>3} {'µs':>4} {'ev/msg':>7} {'B/ev':>5} {'remote%':>7} {'eff':>6} {'M ev/s':>7} "
          f"{'rounds/s':>9} {'courier %':>9}")
    for name, model in MODELS.items():
        for np in NPS:
            for lat in LATENCIES:
                s = run(np, model, lat)
                wall = s["wall_seconds"]
                for r in s["rank_stats"] if np <= CORES else []:
                    rows.append([r["mpi_messages"], wall])
                    ys.append(r["mpi_seconds"])
                share = sum(r["mpi_seconds"] for r in s["rank_stats"]) / (wall * np)
                runs.append((name, np, lat, s))
                if np <= CORES:
                    names.extend([name] * np)
                per = s["mpi_bytes"] / max(1, sum(r["mpi_events"] for r in s["rank_stats"]))
                print(f"{name:<11} {np:>3} {lat:>4g} {s['mpi_events_per_message']:7.1f} {per:5.1f} "
                      f"{100 * s['remote_process_fraction']:6.1f}% {s['efficiency']:6.3f} "
                      f"{s['committed_events'] / wall / 1e6:7.2f} {s['gvt_rounds'] / wall:9.0f} {100 * share:8.1f}%",
                      flush=True)
    a, e = solve(rows, ys)
    pred = [sum(x * k for x, k in zip(r, (a, e))) for r in rows]
    mean = sum(ys) / len(ys)
    r2 = 1 - sum((y - p) ** 2 for y, p in zip(ys, pred)) / max(1e-30, sum((y - mean) ** 2 for y in ys))
    print(f"\nfit over {len(ys)} ranks: a = {a * 1e6:.2f} µs/message, e = {100 * e:.1f} % of the time; "
          f"R² = {r2:.3f}")
    print("check, per rank: measured → modelled courier seconds")
    for name, y, p in zip(names, ys, pred):
        print(f"  {name:<14} {y:7.4f} → {p:7.4f}")
    project(a, e)


# The projection (docs/scaling.md): one process of 16 workers per machine.
# R16: committed events a second of one 16-core machine (issue 58's 1 × 16
# table); f: share of events that cross machines at P machines; B: bytes a
# record; age: how long a message waits (PHOLD: FLUSH_AGE_MAX; Theta: what
# its 35 events a message at -n 2 imply).
WORKLOADS = {
    "phold r0.1": dict(R16=35.9e6, f=lambda p: 0.1 * (p - 1) / p, B=39.6, age=4e-3),
    "phold r1.0": dict(R16=25.9e6, f=lambda p: 0.9 * (p - 1) / p, B=25.9, age=4e-3),
    "theta":      dict(R16=17.9e6, f=lambda p: 0.33 * (p - 1) / p, B=44.9, age=92e-6),
}
ALPHA_NET = float(os.environ.get("ALPHA_US", "2")) * 1e-6
# A cluster NIC's CPU overhead per small message (LogP's o; 1-2 µs on
# InfiniBand-class networks): shared memory here costs less.
O_NET = float(os.environ.get("O_US", "1.5")) * 1e-6
BETA_NET = float(os.environ.get("BETA_GBS", "12.5")) * 1e9


def project(a, e):
    """Each machine's rate: its 16 workers' R16, less what its courier
    takes (per message the larger of `a` and a NIC's overhead O_US; `e` of
    the time besides); one courier works at a time, so past one core's worth
    the courier sets the pace."""
    o = max(a, O_NET)
    print(f"\nprojection: 16 workers a machine, {o * 1e6:.2f} µs a message, link {ALPHA_NET * 1e6:g} µs, "
          f"{BETA_NET / 1e9:g} GB/s")
    print(f"{'workload':<11} {'P':>3} {'ev/msg':>7} {'msg/s':>9} {'courier':>8} {'link':>6} {'GVT µs':>7} "
          f"{'M ev/s':>8} {'/ P·R16':>7}")
    for name, w in WORKLOADS.items():
        for p in (2, 4, 8, 16, 32, 64):
            x = w["R16"] * w["f"](p)                      # events a second leaving a machine
            n = max(1.0, min(x / (p - 1) * w["age"], 65536 / w["B"]))
            m = x / n                                       # messages a second
            courier = m * o + e                             # courier seconds a second
            link = x * w["B"] / BETA_NET                    # share of the link
            gvt = 2 * math.ceil(math.log2(p)) * ALPHA_NET * 1e6
            rate = p * w["R16"] * (1 - min(courier, 1) / 16) / max(1.0, courier)
            print(f"{name:<11} {p:>3} {n:7.0f} {m:9.0f} {100 * courier:7.1f}% {100 * link:5.1f}% {gvt:7.0f} "
                  f"{rate / 1e6:8.0f} {rate / (p * w['R16']):7.2f}")


if __name__ == "__main__":
    sys.exit(main())
