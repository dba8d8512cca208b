"""timewarp.run: the command's digest, statistics and messages, in-process."""

import subprocess
import sys

import pytest

import timewarp
from conftest import THETA

# Written by `timewarp run phold --lps 16 --end 5 --stats-json -` (digest version 1).
PHOLD_16_5 = "9b37774d13121e2b"

CASES = [
    ("phold", dict(lps=64, end=20, remote=0.5)),
    ("phold", dict(lps=64, end=20, sync="optimistic", threads=2)),
    ("pcs", dict(end=100)),
    ("tlm", dict(end=5)),
    ("network", dict(dims=[4, 4], load=0.3, end=2000)),
    ("network", dict(codes_config=str(THETA), load=0.2, end=2000)),
    ("network", dict(topology="torus", dims=[4, 4], end=20000,
                     job=["synthetic:load=0.3,nodes=8", "allreduce:ranks=8,bytes=4096,iterations=2"])),
]


def test_a_known_digest():
    r = timewarp.run("phold", lps=16, end=5)
    assert r.digest == PHOLD_16_5
    assert r.stats["committed_events"] == 336
    assert r.results == {"processed": 336, "sent_remote": 37}
    assert r.config["model"]["lps"] == 16
    assert r.config["command"] == ["timewarp", "run", *r.args]


@pytest.mark.parametrize("model,options", CASES, ids=lambda c: str(c))
def test_every_run_commits_the_digest_of_the_command(cli, model, options):
    r = timewarp.run(model, **options)
    theirs = cli.run(r.args)
    assert r.digest == theirs["digest"]
    assert r.stats["committed_events"] == theirs["committed_events"]
    assert r.results == theirs["model_results"]
    assert r.config["engine"] == theirs["config"]["engine"]
    assert r.config["model"] == theirs["config"]["model"]


def test_modes_and_threads_commit_one_history():
    digests = {timewarp.run("phold", lps=64, end=20, sync=s, threads=t).digest
               for s, t in [("sequential", 1), ("optimistic", 2), ("conservative", 2), ("auto", 2)]}
    assert len(digests) == 1


def test_keywords_become_the_commands_tokens():
    assert timewarp.tokens("network", dims=[8, 8], job=["a", "b"], load=0.25, baseline_alone=True,
                           quiet=False, seed=None) == [
        "network", "--dims=8,8", "--job=a", "--job=b", "--load=0.25", "--baseline-alone"]


def test_bad_input_is_a_value_error_with_the_commands_message():
    with pytest.raises(ValueError, match=r"invalid value 'many' for '--lps"):
        timewarp.run("phold", lps="many")
    with pytest.raises(ValueError, match=r"unexpected argument '--lpz'.*'--lps'"):
        timewarp.run("phold", lpz=3)
    with pytest.raises(ValueError, match="unrecognized subcommand 'nope'"):
        timewarp.run("nope")
    # The model's own checks, before it runs.
    with pytest.raises(ValueError, match="more than the 100000 a run keeps"):
        timewarp.run("network", dims=[4, 4], sample_every=0.0001, end=100)
    with pytest.raises(ValueError, match="no such file|cannot read|No such file"):
        timewarp.run("network", codes_config="/nonexistent.conf")


def test_a_failed_run_is_a_run_error():
    with pytest.raises(timewarp.RunError, match="ranks did not finish"):
        timewarp.run("network", dims=[4, 4], workload="allreduce", ranks=8, end=10)
    assert issubclass(timewarp.RunError, RuntimeError)


def test_samples_and_jobs(tables):
    r = timewarp.run("network", dims=[4, 4], load=0.2, end=4000, sample_every=1000)
    rows = r.samples
    assert hasattr(rows, "to_dict") == (tables == "pandas")
    records = rows.to_dict("records") if hasattr(rows, "to_dict") else rows
    assert len(records) == 4
    assert all("accepted_throughput" in s for s in records)
    assert len(timewarp.run("phold", lps=16, end=5).samples) == 0
    j = timewarp.run("network", topology="torus", dims=[4, 4], end=20000, baseline_alone=True,
                     job=["synthetic:load=0.3,nodes=8", "allreduce:ranks=8,bytes=4096,iterations=2"])
    assert len(j.jobs) == 2
    assert all("slowdown" in job or "latency_slowdown" in job for job in j.jobs)


def test_to_json_is_the_statistics_file(tmp_path):
    r = timewarp.run("phold", lps=16, end=5)
    path = tmp_path / "s.json"
    r.to_json(path)
    import json
    assert json.loads(path.read_text())["digest"] == PHOLD_16_5


def test_a_user_statistics_file_is_written_and_read(tmp_path):
    path = tmp_path / "mine.json"
    r = timewarp.run("phold", lps=16, end=5, stats_json=path)
    assert path.exists() and r.digest == PHOLD_16_5


def test_discovery():
    assert set(timewarp.models()) == {"phold", "network", "tlm", "pcs"}
    opts = {o["name"]: o for o in timewarp.options("network")}
    assert opts["dims"]["kind"] == "list"
    assert opts["job"]["kind"] == "repeat"
    assert opts["threads"]["engine"] and opts["threads"]["default"] == "1"
    assert opts["codes-config"]["keyword"] == "codes_config"
    with pytest.raises(ValueError, match="no model"):
        timewarp.options("nope")


def test_verify():
    v = timewarp.verify("phold", lps=64, end=20)
    assert v.identical and v
    assert v.digest == timewarp.run("phold", lps=64, end=20).digest
    assert v.stats["parallel"]["digest"] == v.digest


def test_checkpoint_and_resume_give_the_history_of_a_run_that_never_stopped(tmp_path):
    full = timewarp.run("phold", lps=64, end=50)
    timewarp.run("phold", lps=64, end=50, checkpoint_dir=tmp_path, checkpoint_every=20)
    files = sorted(tmp_path.glob("ckpt-*.twc"))
    assert files
    resumed = timewarp.resume(files[0], sync="optimistic", threads=2)
    assert resumed.digest == full.digest


# Ctrl-C in a Python process of its own: the signal is sent from the run's
# progress callback, so it comes while the run goes on (no timer to race).
CTRL_C = """
import os, signal, sys
from timewarp import _timewarp
signal.signal(signal.SIGINT, signal.default_int_handler)
def tick(now, end):
    os.kill(os.getpid(), signal.SIGINT)
try:
    _timewarp.run(["phold", "--lps=4096", "--end=1e7", "--quiet", "--checkpoint-dir=" + sys.argv[1]], tick)
except KeyboardInterrupt as e:
    print("KeyboardInterrupt:", e)
    sys.exit(0)
sys.exit(3)
"""


def test_ctrl_c_stops_a_run_with_a_checkpoint_and_raises_keyboard_interrupt(tmp_path, cli):
    done = subprocess.run([sys.executable, "-c", CTRL_C, str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "KeyboardInterrupt:" in done.stdout and "wrote checkpoint" in done.stdout, done.stdout
    (ck,) = tmp_path.glob("ckpt-*.twc")
    # The checkpoint's virtual time is in its name: continue a little past it,
    # as the command does.
    end = float(ck.name[len("ckpt-"):-len(".twc")]) + 2
    mine = timewarp.resume(ck, end=end)
    theirs = cli.resume(ck, ["--end", repr(end)])
    assert mine.digest == theirs["digest"]
    assert mine.stats["committed_events"] == theirs["committed_events"]


def test_the_effective_configuration_is_a_run_file_that_makes_the_same_run(tmp_path):
    text = timewarp.effective_config("phold", lps=16, end=5)
    assert "[engine]" in text and "lps = 16" in text
    path = tmp_path / "run.toml"
    path.write_text(text)
    assert timewarp.run(config=path).digest == PHOLD_16_5
    with pytest.raises(ValueError, match="effective_config"):
        timewarp.run("phold", print_config=True)
