"""Run.plot and Run.report: the pictures and pages of `timewarp plot` and `timewarp report`."""

import re

import pytest

import timewarp


@pytest.fixture(scope="module")
def phold():
    return timewarp.run("phold", lps=64, end=10, sync="optimistic", threads=2)


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_writes_what_the_command_draws(cli, tmp_path, phold, suffix):
    stats = tmp_path / "stats.json"
    phold.to_json(stats)
    theirs = cli.command("plot", str(stats), "-o", str(tmp_path / f"cli{suffix}"))
    ours = phold.plot(tmp_path / f"py{suffix}")
    assert ours == str(tmp_path / f"py{suffix}")
    data = open(ours, "rb").read()
    assert data == theirs.read_bytes()
    if suffix == ".png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
    else:
        assert data.lstrip().startswith(b"<svg")


def test_plot_options_are_the_commands(cli, tmp_path, phold):
    stats = tmp_path / "stats.json"
    phold.to_json(stats)
    theirs = cli.command("plot", str(stats), "--size", "400x300", "-o", str(tmp_path / "cli.svg"))
    ours = phold.plot(tmp_path / "py.svg", size=(400, 300))
    assert open(ours, "rb").read() == theirs.read_bytes()
    assert 'width="400"' in open(ours).read()


def test_plot_defaults_to_a_png_in_a_temporary_folder(phold):
    path = phold.plot()
    assert path.endswith(".png")
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_report_writes_the_commands_page(cli, tmp_path, phold):
    stats = tmp_path / "stats.json"
    phold.to_json(stats)
    theirs = cli.command("report", str(stats), "-o", str(tmp_path / "cli.html")).read_text()
    ours = open(phold.report(tmp_path / "py.html"), encoding="utf-8").read()
    # The pages say which file they were made from (ours: a temporary one).
    source = re.compile(r'<p class="note">From [^<]*, by')
    assert source.sub("FROM", ours) == source.sub("FROM", theirs)
    assert ours.startswith("<!DOCTYPE html>") and phold.digest in ours


def test_bad_plot_options_raise(phold, tmp_path):
    with pytest.raises(ValueError, match="unexpected argument"):
        phold.plot(tmp_path / "x.png", colour="red")
    with pytest.raises(timewarp.RunError):
        phold.plot(tmp_path / "x.jpg")
