#!/usr/bin/env python3
"""Random-configuration soak of the timewarp binary: each round draws a
model configuration and checks what must hold whatever the configuration.

Classes of finding it looks for (each once a real bug; see CHANGELOG):
  digest     every mode, thread count and PE count commits the sequential
             digest (and results);
  verify     `verify` of the same options commits the events `run` commits
             (verify once checked the default torus beside --codes-config);
  replay     `run --config STATS.json` commits the run's digest and writes
             none of its outputs (a derived latency read back one bit off;
             --samples-csv overwritten);
  fraction   every link utilisation of the time series is in [0, 1];
  panic      no input, however malformed (empty YAML values), panics: a
             failure is exit 1 or 2 with one `error` line;
  slow       no parallel run takes more than SLOW x its sequential run's
             time plus a second (a 2.04 ns --optimism window once cost
             10,000 x; an error sequential found at once cost minutes);
  error      a run that fails, fails with sequential's error in every mode.

Usage: scripts/soak.py [--runs N] [--seed S] [--bin PATH] [--mpi-bin PATH]
It exits 1 if it found anything, printing each finding with the command
that reproduces it. Runs take 0.05-5 s each on 2 cores.
"""

import argparse
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CODES = os.path.join(ROOT, "crates/timewarp-cli/tests/data/codes")
SLOW = 30.0


def configs():
    out = []
    for dirpath, dirs, files in os.walk(CODES):
        dirs[:] = [d for d in dirs if d not in ("bad", "connections")]
        out += [os.path.join(dirpath, f) for f in files if f.endswith((".conf", ".yaml"))]
    return sorted(out)


def model(rng):
    """A model's options (after `run`), small enough for 2 cores."""
    kind = rng.choice(["phold", "pcs", "tlm", "torus", "dragonfly", "codes", "codes", "jobs"])
    if kind == "phold":
        return ["phold", "--lps", str(rng.choice([16, 64, 256])), "--end", str(rng.choice([5, 20])),
                "--remote", str(rng.choice([0.1, 0.5, 1.0]))]
    if kind == "pcs":
        return ["pcs", "--end", str(rng.choice([20, 60]))]
    if kind == "tlm":
        return ["tlm", "--end", str(rng.choice([10, 30]))]
    net = ["network"]
    if kind == "torus":
        net += ["--dims", rng.choice(["4,4", "8,8", "4,4,2"])]
    elif kind == "dragonfly":
        net += ["--topology", "dragonfly", "--routing", rng.choice(["minimal", "ugal", "valiant"])]
    elif kind == "codes":
        net += ["--codes-config", rng.choice(configs())]
    else:
        net += ["--dims", "4,4", "--job", "halo3d:ranks=8@random-nodes",
                "--job", "synthetic:load=0.2@random-nodes"]
    net += ["--end", str(rng.choice([1000, 3000, 8000]))]
    if kind != "jobs":  # the jobs carry their loads
        net += ["--load", str(rng.choice([0.05, 0.3, 0.7]))]
    if rng.random() < 0.4:
        net += ["--sample-every", str(rng.choice([1, 10, 37.5, 300]))]
    return net


def parallel(rng):
    sync = rng.choice(["optimistic", "optimistic", "conservative", "check"])
    threads = 1 if sync == "check" else rng.choice([1, 2])
    opts = ["--sync", sync, "--threads", str(threads)]
    if sync == "optimistic" and rng.random() < 0.4:
        opts += ["--pes", str(rng.randint(threads, 8))]
    if sync != "conservative" and rng.random() < 0.3:
        opts += ["--optimism", rng.choice(["unbounded", "0.5", "2.04", "50"])]
    if rng.random() < 0.3:
        opts += ["--batch", str(rng.choice([1, 4, 64])), "--gvt-interval", str(rng.choice([1, 16, 128]))]
    return opts


class Soak:
    def __init__(self, args):
        self.bin, self.mpi_bin, self.findings, self.runs = args.bin, args.mpi_bin, [], 0
        self.tmp = tempfile.mkdtemp(prefix="timewarp-soak-")

    def run(self, argv, timeout=600, prefix=()):
        """(exit code, stats or None, stderr, seconds) of `timewarp argv`."""
        path = os.path.join(self.tmp, "s.json")
        if os.path.exists(path):
            os.remove(path)
        cmd = list(prefix) + [self.bin] + argv + ["-q", "--stats-json", path]
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.find("slow", cmd, f"no end after {timeout} s")
            return None, None, "", timeout
        took = time.monotonic() - t0
        self.runs += 1
        stats = None
        if p.returncode == 0 and os.path.exists(path):
            with open(path) as f:
                stats = json.load(f)
        if "panicked" in p.stderr or p.returncode not in (0, 1, 2):
            self.find("panic", cmd, p.stderr.strip()[-400:])
        return p.returncode, stats, p.stderr, took

    def find(self, what, cmd, detail):
        line = f"[{what}] {shlex.join(cmd)}\n    {detail}"
        print(line, flush=True)
        self.findings.append(line)

    def round(self, rng):
        m = model(rng)
        run = ["run"] + m
        code, seq, err, t_seq = self.run(run + ["--sync", "sequential"])
        if code is None:
            return
        par = parallel(rng)
        code2, p, err2, t_par = self.run(run + par)
        if code2 is None:
            return
        if (code == 0) != (code2 == 0):
            self.find("error", [self.bin] + run + par, f"sequential exit {code}, parallel {code2}: {err2.strip()[:300]}")
        elif code == 0:
            if seq["digest"] != p["digest"] or seq.get("model_results") != p.get("model_results"):
                self.find("digest", [self.bin] + run + par, f"{seq['digest']} vs {p['digest']}")
        elif err.strip() != err2.strip() and code == 1:
            self.find("error", [self.bin] + run + par, f"{err.strip()[:200]} / {err2.strip()[:200]}")
        # (check mode undoes and redoes every event and compares the state: slow by design)
        if "check" not in par and t_par > SLOW * t_seq + 1.0:
            self.find("slow", [self.bin] + run + par, f"{t_par:.1f} s against sequential's {t_seq:.2f} s")
        if code != 0:
            return
        for s in (seq.get("model_results") or {}).get("samples") or []:
            for link in s.get("links", []):
                if not 0.0 <= link["utilisation"] <= 1.0 + 1e-9:
                    self.find("fraction", [self.bin] + run, f"utilisation {link['utilisation']} in {s['start_ns']}")
        # verify of the same options: the events run committed.
        vcode, v, verr, _ = self.run(["verify"] + m + par)
        if vcode == 0 and v["sequential"]["committed_events"] != seq["committed_events"]:
            self.find("verify", [self.bin, "verify"] + m, f"{v['sequential']['committed_events']} events, run "
                      f"{seq['committed_events']}")
        elif vcode not in (0, None):
            self.find("verify", [self.bin, "verify"] + m, verr.strip()[:300])
        # The statistics file replayed: same digest, no output rewritten.
        stats = os.path.join(self.tmp, "first.json")
        with open(stats, "w") as f:
            json.dump(seq, f)
        rcode, r, rerr, _ = self.run(["run", "--config", stats])
        if rcode != 0 or r["digest"] != seq["digest"]:
            self.find("replay", [self.bin, "run", "--config", stats], rerr.strip()[:300] or "another digest")
        if self.mpi_bin and rng.random() < 0.2:
            mpi = ["mpirun", "--oversubscribe", "-n", str(rng.choice([2, 3]))]
            self.bin, keep = self.mpi_bin, self.bin
            c3, m3, e3, t3 = self.run(run + ["--sync", rng.choice(["optimistic", "conservative"])], prefix=mpi)
            self.bin = keep
            if c3 == 0 and m3["digest"] != seq["digest"]:
                self.find("digest", mpi + run, f"{m3['digest']} vs {seq['digest']}")
            if c3 is not None and t3 > SLOW * t_seq + 3.0:
                self.find("slow", mpi + run, f"{t3:.1f} s against sequential's {t_seq:.2f} s")

    def fuzz_yaml(self, rng):
        """A YAML twin with one key's value made empty: refused, never a panic."""
        twins = [c for c in configs() if c.endswith(".yaml")]
        src = rng.choice(twins)
        lines = open(src).read().split("\n")
        keys = [i for i, l in enumerate(lines) if ":" in l.split("#")[0] and not l.strip().startswith("-")]
        i = rng.choice(keys)
        key = lines[i].split(":")[0]
        empty = rng.choice(["[]", "[[]]", "{}", '""', "[1, []]"])
        lines[i] = f"{key}: {empty}"
        path = os.path.join(os.path.dirname(src), f".soak-{os.getpid()}.yaml")
        try:
            with open(path, "w") as f:
                f.write("\n".join(lines))
            self.run(["run", "network", "--codes-config", path, "--end", "100"])
        finally:
            os.remove(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=50, help="rounds (each several runs)")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/timewarp"))
    ap.add_argument("--mpi-bin", default=None, help="an MPI build (cargo feature mpi) to run under mpirun too")
    args = ap.parse_args()
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    rng = random.Random(args.seed)
    soak = Soak(args)
    print(f"soak: seed {args.seed}, {args.runs} rounds, {args.bin}", flush=True)
    for _ in range(args.runs):
        soak.round(rng)
        soak.fuzz_yaml(rng)
    print(f"soak: {soak.runs} runs, {len(soak.findings)} findings (seed {args.seed})")
    sys.exit(1 if soak.findings else 0)


if __name__ == "__main__":
    main()
