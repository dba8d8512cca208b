"""timewarp.sweep and timewarp.curve: the command's tables, in-process."""

import csv
import io

import pytest

import timewarp

# Columns that measure this machine, not the run.
TIMING = {"event_rate", "wall_seconds", "peak_memory_bytes"}


def records(table):
    return table.to_dict("records") if hasattr(table, "to_dict") else table


def test_a_sweep_is_the_commands_csv(cli, tables):
    table = timewarp.sweep("phold", grid={"remote": [0.1, 0.5], "lps": [16, 32]}, end=5, repeats=2)
    assert hasattr(table, "to_dict") == (tables == "pandas")
    rows = records(table)
    theirs = list(csv.DictReader(io.StringIO(cli.sweep(
        ["phold", "--end=5", "--set", "remote=0.1,0.5", "--set", "lps=16,32", "--reps", "2"]))))
    assert len(rows) == len(theirs) == 8
    for mine, row in zip(rows, theirs):
        assert list(mine) == list(row)
        for k, v in row.items():
            if k not in TIMING:
                assert str(mine[k]) == v or mine[k] == pytest.approx(float(v)), k


def test_zip_takes_values_in_step_and_failures_are_rows(tables):
    rows = records(timewarp.sweep("phold", zip={"lps": [16, 32], "remote": [0.1, 0.2]}, end=5))
    assert [(r["lps"], r["remote"]) for r in rows] == [(16, 0.1), (32, 0.2)]
    assert rows[0]["digest"] == "9b37774d13121e2b"
    with pytest.raises(ValueError, match="did you mean `nodes`"):
        timewarp.sweep("phold", grid={"nope": [1]})
    with pytest.raises(ValueError, match="grid"):
        timewarp.sweep("phold", end=5)
    failed = records(timewarp.sweep("network", grid={"end": [10, 1e6]}, dims=[4, 4], workload="allreduce", ranks=8))
    assert "did not finish" in failed[0]["error"]
    assert failed[1]["error"] == ""


def test_a_curve_finds_its_saturation(tmp_path, tables):
    c = timewarp.curve(load="0.1:0.9:0.4", dims=[4, 4], output=tmp_path / "c.csv")
    rows = records(c.points)
    assert [r["load"] for r in rows][:2] == [0.1, 0.5]
    assert c.saturation is not None and 0.5 <= c.saturation < 0.9
    assert 0.9 in c.unstable
    assert 0.5 < c.saturation_throughput < 0.9
    assert len(c.plot()) == 2 and (tmp_path / "c.csv").exists()
