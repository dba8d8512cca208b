"""progress=: a tqdm bar while a run goes on, where one is wanted; nothing otherwise."""

import sys
import types

import pytest

import timewarp
from timewarp import _timewarp

# A run long enough (well over 50 ms) for the bar to be drawn at least once.
LONG = dict(lps=16384, end=60)


class FakeBar:
    made = []

    def __init__(self, total, **kwargs):
        self.total = total
        self.n = 0
        self.seen = []
        self.closed = False
        FakeBar.made.append(self)

    def refresh(self):
        self.seen.append(self.n)

    def close(self):
        self.closed = True


@pytest.fixture
def fake_tqdm(monkeypatch):
    FakeBar.made = []
    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = FakeBar
    monkeypatch.setitem(sys.modules, "tqdm", types.ModuleType("tqdm"))
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    return FakeBar


def test_no_progress_prints_nothing(capfd):
    timewarp.run("phold", progress=False, **LONG)
    # Under pytest stderr is no terminal and no kernel runs: the default shows nothing either.
    timewarp.run("phold", **LONG)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_no_bar_unless_asked_where_nobody_watches(fake_tqdm):
    timewarp.run("phold", **LONG)
    timewarp.run("phold", progress=False, **LONG)
    assert fake_tqdm.made == []


def test_the_bar_follows_virtual_time_to_the_end(fake_tqdm):
    for sync, threads in [("sequential", 1), ("optimistic", 2)]:
        fake_tqdm.made = []
        timewarp.run("phold", progress=True, sync=sync, threads=threads, **LONG)
        [bar] = fake_tqdm.made
        assert bar.total == LONG["end"]
        assert bar.seen == sorted(bar.seen), sync
        assert 0 <= bar.seen[0] <= LONG["end"]
        assert bar.n == LONG["end"] and bar.closed


def test_the_progress_callback_sees_time_and_end():
    seen = []
    _timewarp.run(["phold", "--lps=16384", "--end=60", "--quiet"], lambda now, end: seen.append((now, end)))
    assert seen, "a run this long reports at least once"
    assert all(end == 60 and 0 <= now <= 60 for now, end in seen)


def test_a_progress_callback_that_raises_stops_the_run():
    def boom(now, end):
        raise ZeroDivisionError("stop")

    with pytest.raises(ZeroDivisionError):
        _timewarp.run(["phold", "--lps=16384", "--end=10000", "--quiet"], boom)
