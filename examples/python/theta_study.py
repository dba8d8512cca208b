# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Theta: a latency-load study and two jobs' interference
#
# ALCF's Theta (a dragonfly of 864 routers and 3,456 nodes) as CODES
# configures it, read from its CODES configuration file, run in-process from
# Python with `timewarp` (install: `pip install ./python`; see docs/python.md).
# Small enough for CI: well under a minute. Open it in Jupyter with jupytext,
# or run it as a script: `python examples/python/theta_study.py`.

# %%
import os
import sys

import timewarp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THETA = os.path.join(ROOT, "crates/timewarp-cli/tests/data/codes/modelnet-test-dragonfly-theta.conf")
END = 30_000  # ns of virtual time per load

# %% [markdown]
# ## Latency against offered load
#
# One run per load (uniform random traffic, the configuration's routing; the
# load is a fraction of a node's injection bandwidth), in
# one call: `timewarp.sweep` is `timewarp sweep`, each run in this process;
# its rows are the CLI's CSV columns plus every scalar the model reports.

# %%
loads = [0.02, 0.04, 0.06, 0.08]
table = timewarp.sweep("network", grid={"load": loads}, codes_config=THETA, end=END)
rows = table.to_dict("records") if hasattr(table, "to_dict") else table
print(f"{'load':>6} {'latency (ns)':>13} {'accepted':>9} {'hops':>5}  digest")
for r in rows:
    assert not r["error"], r["error"]
    print(f"{r['load']:>6} {r['latency_mean']:>13.1f} {r['accepted_throughput']:>9.4f} {r['hops_mean']:>5.2f}  {r['digest']}")
latencies = [r["latency_mean"] for r in rows]
# Past saturation the network carries less than it is offered.
print("offered", loads[-1], "accepted", round(rows[-1]["accepted_throughput"], 4))

# %% [markdown]
# The same point again with `timewarp.run` commits the same history (the
# digest is the run's fingerprint: any mode, any thread count).

# %%
again = timewarp.run("network", codes_config=THETA, load=loads[-1], end=END, sync="optimistic", threads=2)
assert again.digest == rows[-1]["digest"], (again.digest, rows[-1]["digest"])
print("load", loads[-1], "optimistic on 2 threads: digest", again.digest, "(same)")

# %% [markdown]
# ## Two jobs on one network: interference
#
# A synthetic job and an all-reduce share Theta's links; with
# `baseline_alone=True` each also runs alone on the same nodes first, and
# each job reports its slowdowns.

# %%
shared = timewarp.run(
    "network",
    codes_config=THETA,
    end=300_000,
    job=[
        "synthetic:load=0.05,nodes=2048@random-groups",
        "allreduce:ranks=16,bytes=4096,iterations=2@random-nodes",
    ],
    baseline_alone=True,
)
for j, job in enumerate(shared.jobs):
    slow = {k: round(v, 3) for k, v in job.items() if k.endswith("slowdown") and isinstance(v, (int, float))}
    nodes = job.get("nodes")
    count = len(nodes) if isinstance(nodes, list) else nodes
    print(f"job {j} {job.get('name')} ({count} nodes): {slow}")

# %%
if "--check" in sys.argv:
    assert len(shared.jobs) == 2
    assert latencies[-1] > latencies[0], latencies
    assert all(job.get("latency_slowdown", 1.0) >= 0.9 for job in shared.jobs), shared.jobs
    print("ok")
