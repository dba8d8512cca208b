"""Shared fixtures: the `timewarp` binary built from the same tree, to compare with."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
THETA = ROOT / "crates/timewarp-cli/tests/data/codes/modelnet-test-dragonfly-theta.conf"


def _binary():
    given = os.environ.get("TIMEWARP_BIN")
    if given:
        return given
    for profile in ("release", "debug"):
        p = ROOT / "target" / profile / "timewarp"
        if p.exists():
            return str(p)
    return shutil.which("timewarp")


class Cli:
    """The `timewarp` command: its statistics and CSVs for the same tokens."""

    def __init__(self, path, tmp):
        self.path = path
        self.tmp = tmp

    def run(self, args):
        out = self.tmp / "cli-stats.json"
        subprocess.run([self.path, "run", *args, "--stats-json", str(out)], check=True,
                       stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())

    def resume(self, checkpoint, options):
        out = self.tmp / "cli-resume.json"
        subprocess.run([self.path, "resume", str(checkpoint), *options, "--quiet", "--stats-json", str(out)],
                       check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())

    def command(self, verb, *args):
        """`timewarp VERB ARGS... -o OUT`: the file OUT (the last argument)."""
        subprocess.run([self.path, verb, *args], check=True, stdout=subprocess.DEVNULL)
        return Path(args[-1])

    def sweep(self, args):
        out = self.tmp / "cli-sweep.csv"
        subprocess.run([self.path, "sweep", *args, "-o", str(out)], check=True, stdout=subprocess.DEVNULL)
        return out.read_text()


@pytest.fixture
def cli(tmp_path):
    path = _binary()
    if path is None:
        if os.environ.get("TIMEWARP_REQUIRE_CLI") == "1":
            pytest.fail("no timewarp binary (set TIMEWARP_BIN or build it: cargo build -p timewarp-cli)")
        pytest.skip("no timewarp binary to compare with (set TIMEWARP_BIN)")
    return Cli(path, tmp_path)


@pytest.fixture(params=["pandas", "lists"])
def tables(request, monkeypatch):
    """Each test twice: with pandas (if installed) and as without it."""
    if request.param == "pandas":
        pytest.importorskip("pandas")
    else:
        import sys
        monkeypatch.setitem(sys.modules, "pandas", None)
    return request.param
