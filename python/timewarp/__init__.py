"""timewarp: the timewarp simulator's command-line verbs, in-process, from Python.

Every function turns its keyword arguments into the tokens of the
``timewarp`` command (``load=0.3`` -> ``--load=0.3``, ``job=["a", "b"]`` ->
``--job=a --job=b``, ``dims=[8, 8]`` -> ``--dims=8,8``, ``True`` -> the
switch, ``False`` / ``None`` -> left out) and runs them through the very
parser and code path of the command, in this process: every option of
``timewarp run MODEL --help`` is a keyword argument here, and a run commits
the digest the command commits for the same options.

>>> import timewarp
>>> r = timewarp.run("phold", lps=16, end=5)
>>> r.digest
'9b37774d13121e2b'
>>> r.stats["committed_events"]
336
>>> r.args
['phold', '--sync=auto', '--threads=1', '--lps=16', '--end=5', '--quiet']

Bad input raises ``ValueError`` with the command's message; a run that
fails raises :class:`RunError`; Ctrl-C stops a run at its next cut (writing
a checkpoint when ``checkpoint_dir`` is given) and raises
``KeyboardInterrupt``.

>>> timewarp.run("phold", lps="many")
Traceback (most recent call last):
...
ValueError: invalid value 'many' for '--lps <LPS>': ...
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _timewarp
from ._timewarp import RunError

__version__: str = _timewarp.__version__

__all__ = [
    "Curve",
    "Run",
    "RunError",
    "Verification",
    "curve",
    "effective_config",
    "models",
    "options",
    "resume",
    "run",
    "sweep",
    "tokens",
    "verify",
]


def models() -> Dict[str, str]:
    """The models, each name with the line ``timewarp list`` prints.

    >>> sorted(timewarp.models())
    ['network', 'pcs', 'phold', 'tlm']
    """
    return dict(_timewarp.models())


def options(model: str) -> List[Dict[str, Any]]:
    """The options of ``timewarp run MODEL``: dicts with ``name`` (as on the
    command line), ``keyword`` (as a keyword argument here), ``engine`` (an
    engine option, else the model's), ``kind`` (``flag``, ``one``, ``list``
    or ``repeat``), ``default`` (text, or None) and ``help``.

    >>> [o for o in timewarp.options("phold") if o["name"] == "lps"][0]["default"]
    '16384'
    """
    found = _timewarp.options(model)
    if found is None:
        raise ValueError(f"no model {model!r}; the models are {', '.join(models())}")
    for o in found:
        o["keyword"] = o["name"].replace("-", "_")
    return found


def _kinds(model: Optional[str]) -> Dict[str, str]:
    if model is None:
        return {}
    found = _timewarp.options(model)
    return {o["name"]: o["kind"] for o in found or []}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def tokens(model: Optional[str], **options: Any) -> List[str]:
    """The command-line tokens (after the verb) of ``model`` with ``options``.

    >>> timewarp.tokens("network", dims=[8, 8], load=0.25, job=["a", "b"], progress=False)
    ['network', '--dims=8,8', '--load=0.25', '--job=a', '--job=b']
    """
    kinds = _kinds(model)
    out: List[str] = [model] if model is not None else []
    for key, value in options.items():
        name = key.replace("_", "-")
        flag = f"--{name}"
        kind = kinds.get(name)
        if value is None:
            continue
        if isinstance(value, bool) and kind in (None, "flag"):
            if value:
                out.append(flag)
            continue
        if isinstance(value, (list, tuple)):
            if kind == "list":
                out.append(f"{flag}={','.join(_text(v) for v in value)}")
            else:
                out.extend(f"{flag}={_text(v)}" for v in value)
            continue
        out.append(f"{flag}={_text(value)}")
    return out


def _engine(sync: Optional[str], threads: Optional[int], seed: Optional[int]) -> Dict[str, Any]:
    return {"sync": sync, "threads": threads, "seed": seed}


def _samples(rows: Any) -> Any:
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.json_normalize(rows) if rows else pandas.DataFrame()


class Run:
    """One run's statistics: what ``timewarp run ... --stats-json FILE`` writes.

    ``stats`` is the whole file (a dict); the other attributes are parts of it.
    """

    def __init__(self, args: List[str], stats: Dict[str, Any]) -> None:
        #: The command-line tokens after ``timewarp run``.
        self.args: List[str] = args
        #: The statistics file, parsed (the command line in ``config.command``
        #: is the ``timewarp`` command's that makes this run).
        self.stats: Dict[str, Any] = stats

    @property
    def digest(self) -> str:
        """The digest of the committed history (hex): equal across modes, threads, processes."""
        return self.stats["digest"]

    @property
    def results(self) -> Any:
        """The model's results (``model_results``)."""
        return self.stats.get("model_results")

    @property
    def config(self) -> Dict[str, Any]:
        """The effective configuration (every option's value; ``timewarp run --config`` reads it)."""
        return self.stats.get("config", {})

    @property
    def samples(self) -> Any:
        """The time series of ``sample_every`` (network): a pandas DataFrame
        (nested figures flattened, ``jobs`` kept as lists) when pandas is
        installed, else a list of dicts; empty without ``sample_every``."""
        results = self.results if isinstance(self.results, dict) else {}
        return _samples(results.get("samples") or [])

    @property
    def jobs(self) -> List[Dict[str, Any]]:
        """The jobs of a ``job=[...]`` workload (network): a dict per job, in order; empty without."""
        results = self.results if isinstance(self.results, dict) else {}
        return list(results.get("jobs") or [])

    @property
    def command(self) -> str:
        """The ``timewarp`` command line that makes this run."""
        return " ".join(["timewarp", "run", *self.args])

    def to_json(self, path: Union[str, os.PathLike, None] = None) -> str:
        """The statistics as JSON text (``timewarp plot`` and ``report`` read it); written to ``path`` if given."""
        text = json.dumps(self.stats, indent=2)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        return text

    def _drawn(self, verb: str, path: Union[str, os.PathLike, None], suffix: str, extra: List[str]) -> str:
        if path is None:
            path = os.path.join(tempfile.mkdtemp(prefix=f"timewarp-{verb}-"), f"run{suffix}")
        path = os.fspath(path)
        folder = tempfile.mkdtemp(prefix=f"timewarp-{verb}-")
        stats = os.path.join(folder, "stats.json")
        try:
            self.to_json(stats)
            getattr(_timewarp, verb)([stats, "-o", path, *extra])
        finally:
            try:
                os.remove(stats)
                os.rmdir(folder)
            except OSError:
                pass
        return path

    def plot(self, path: Union[str, os.PathLike, None] = None, **options: Any) -> str:
        """``timewarp plot STATS.json -o PATH``: the run's statistics drawn
        as the command draws them (GVT against wall time, event rate, per-PE
        events, efficiency), a PNG or an SVG by ``path``'s name (default: a
        PNG in a temporary folder); the path written. ``options`` are the
        command's: ``samples=True`` (a network run's time series, with
        ``sample_every``), ``links=True`` / ``map=True`` (its links, with
        ``link_stats``), ``size=(1200, 900)``.

        >>> import os, tempfile
        >>> svg = timewarp.run("phold", lps=16, end=5).plot(os.path.join(tempfile.mkdtemp(), "run.svg"))
        >>> open(svg).read().lstrip().startswith("<svg")
        True
        """
        size = options.pop("size", None)
        extra = tokens(None, **options)
        if size is not None:
            extra.append(f"--size={size[0]}x{size[1]}" if isinstance(size, (list, tuple)) else f"--size={size}")
        return self._drawn("plot", path, ".png", extra)

    def report(self, path: Union[str, os.PathLike, None] = None) -> str:
        """``timewarp report STATS.json -o PATH``: the run as the command's
        self-contained HTML page (summary, configuration, plots, per-PE
        tables, the model's results; default: a temporary file); the path written.

        >>> import os, tempfile
        >>> page = timewarp.run("phold", lps=16, end=5).report(os.path.join(tempfile.mkdtemp(), "run.html"))
        >>> "9b37774d13121e2b" in open(page, encoding="utf-8").read()
        True
        """
        return self._drawn("report", path, ".html", [])

    def __repr__(self) -> str:
        return f"<timewarp.Run {self.command!r} digest={self.digest} events={self.stats.get('committed_events')}>"


def _stats(args: List[str], text: str) -> Dict[str, Any]:
    if not text.strip():
        raise ValueError("the run wrote no statistics (a --help?)")
    if not text.lstrip().startswith("{"):
        raise ValueError("print_config: use timewarp.effective_config(model, **options) for the TOML text")
    stats = json.loads(text)
    if isinstance(stats.get("config"), dict):
        stats["config"]["command"] = ["timewarp", "run", *args]
    return stats


def _interactive() -> bool:
    """Whether someone watches: stderr a terminal, or an IPython/Jupyter kernel."""
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):
        pass
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:
        return False
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


class _Bar:
    """A ``tqdm.auto`` bar over virtual time [0, end], made at the run's first report."""

    def __init__(self, tqdm: Any) -> None:
        self.tqdm = tqdm
        self.bar: Any = None

    def __call__(self, now: float, end: float) -> None:
        if self.bar is None:
            self.bar = self.tqdm(total=end, unit="", desc="timewarp",
                                 bar_format="{desc}: {percentage:3.0f}%|{bar}| time {n:.4g}/{total:.4g} "
                                            "[{elapsed}<{remaining}]")
        self.bar.n = now
        self.bar.refresh()

    def close(self, done: bool) -> None:
        if self.bar is not None:
            if done:
                self.bar.n = self.bar.total
                self.bar.refresh()
            self.bar.close()


def _progress(progress: Optional[bool]) -> Optional[_Bar]:
    """The bar of ``progress=`` (None: where tqdm is installed and someone watches)."""
    if progress is False or (progress is None and not _interactive()):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return _Bar(tqdm)


def _with_progress(progress: Optional[bool], call: Any, *args: Any) -> str:
    bar = _progress(progress)
    if bar is None:
        return call(*args)
    done = False
    try:
        text = call(*args, bar)
        done = True
        return text
    finally:
        bar.close(done)


def run(
    model: Optional[str] = None,
    *,
    sync: Optional[str] = "auto",
    threads: Optional[int] = 1,
    seed: Optional[int] = None,
    quiet: bool = True,
    progress: Optional[bool] = None,
    **options: Any,
) -> Run:
    """``timewarp run MODEL`` with ``options``: the run's :class:`Run`.

    ``sync``, ``threads`` and ``seed`` are the engine's options (``None``:
    the command's default: sequential, 1, 1); ``quiet=False`` prints the
    summary table as the command does. ``config="run.toml"`` (without
    ``model``) reads a run file, and ``checkpoint_dir`` /
    ``checkpoint_every`` write checkpoints (see :func:`resume`).

    ``progress``: a progress bar of virtual time against the end time
    (``tqdm.auto``: a notebook widget in Jupyter, a text bar on a terminal)
    while the run goes on; ``None`` (default) shows one where ``tqdm`` is
    installed and stderr is a terminal or the code runs in a Jupyter or
    IPython kernel, ``False`` never, ``True`` whenever ``tqdm`` is
    installed. Runs shorter than 50 ms show none. The command's own
    terminal bar stays off here.

    >>> r = timewarp.run("phold", lps=64, end=10, sync="optimistic", threads=2)
    >>> r.digest == timewarp.run("phold", lps=64, end=10).digest
    True
    """
    args = tokens(model, **_engine(sync, threads, seed), **options)
    if quiet:
        args.append("--quiet")
    return Run(args, _stats(args, _with_progress(progress, _timewarp.run, args)))


def effective_config(model: Optional[str] = None, **options: Any) -> str:
    """``timewarp run MODEL ... --print-config``: the effective configuration
    as a TOML run file (``run(config=FILE)`` reads it), without running.

    >>> print(timewarp.effective_config("phold", lps=16).splitlines()[0])
    # timewarp ...: effective configuration (run it with: timewarp run --config FILE)
    """
    args = tokens(model, **options) + ["--print-config"]
    return _timewarp.run(args)


def resume(
    checkpoint: Union[str, os.PathLike], *, quiet: bool = True, progress: Optional[bool] = None, **options: Any
) -> Run:
    """``timewarp resume CHECKPOINT`` with ``options`` (engine options but
    ``seed``: ``threads``, ``sync``, ``end``, ...): the continued run's :class:`Run`,
    whose digest is that of the run that never stopped. ``progress`` as :func:`run`'s.
    """
    args = tokens(None, **options)
    if quiet:
        args.append("--quiet")
    return Run(args, _stats(args, _with_progress(progress, _timewarp.resume, os.fspath(checkpoint), args)))


class Verification:
    """What ``timewarp verify`` finds: a sequential run against a parallel one."""

    def __init__(self, args: List[str], stats: Dict[str, Any]) -> None:
        #: The tokens after ``timewarp verify``.
        self.args = args
        #: ``identical``, ``divergence``, ``sequential``, ``parallel`` (both runs' statistics).
        self.stats = stats

    @property
    def identical(self) -> bool:
        """Whether both runs committed the same history."""
        return bool(self.stats["identical"])

    @property
    def divergence(self) -> Optional[str]:
        """Where they first differ (LP, event), or None."""
        return self.stats.get("divergence")

    @property
    def digest(self) -> str:
        """The sequential run's digest."""
        return self.stats["sequential"]["digest"]

    def __bool__(self) -> bool:
        return self.identical

    def __repr__(self) -> str:
        return f"<timewarp.Verification identical={self.identical} digest={self.digest}>"


def verify(
    model: Optional[str] = None,
    *,
    sync: Optional[str] = None,
    threads: Optional[int] = 2,
    seed: Optional[int] = None,
    quiet: bool = True,
    **options: Any,
) -> Verification:
    """``timewarp verify MODEL``: the model run sequentially and in parallel
    (``sync``, default optimistic, on ``threads``), their histories compared.

    >>> timewarp.verify("phold", lps=64, end=10).identical
    True
    """
    args = tokens(model, **_engine(sync, threads, seed), **options)
    if quiet:
        args.append("--quiet")
    return Verification(args, json.loads(_timewarp.verify(args)))


def _table(text: str, strings: Sequence[str]) -> Any:
    try:
        import pandas
    except ImportError:
        pandas = None
    if pandas is not None:
        frame = pandas.read_csv(io.StringIO(text), dtype={k: str for k in strings})
        for k in strings:
            if k in frame:
                frame[k] = frame[k].fillna("")
        return frame
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        rows.append({k: (v if k in strings else _number(v)) for k, v in row.items()})
    return rows


def _number(v: str) -> Any:
    if v == "":
        return None
    if v in ("true", "false"):
        return v == "true"
    for kind in (int, float):
        try:
            return kind(v)
        except ValueError:
            pass
    return v


def _values(value: Any) -> str:
    """A ``--set`` value list: ``[1, 2]`` -> ``1,2``; ``[[8, 8], [16, 16]]`` -> ``8,8;16,16``."""
    if isinstance(value, (list, tuple)):
        if any(isinstance(v, (list, tuple)) for v in value):
            return ";".join(",".join(_text(x) for x in v) if isinstance(v, (list, tuple)) else _text(v) for v in value)
        return ",".join(_text(v) for v in value)
    return _text(value)


def sweep(
    model: str,
    grid: Optional[Mapping[str, Any]] = None,
    *,
    zip: Optional[Mapping[str, Any]] = None,
    repeats: Optional[int] = None,
    sync: Optional[str] = None,
    threads: Optional[int] = None,
    seed: Optional[int] = None,
    **options: Any,
) -> Any:
    """``timewarp sweep MODEL --set K=V1,V2 ...``: a run per combination of
    ``grid``'s values (or per position of ``zip``'s, taken in step), each
    ``repeats`` times, in this process; one row per run with the CLI's sweep
    CSV columns (the swept options, ``rep``, ``committed_events``,
    ``event_rate``, ``efficiency``, ``rolled_back_events``,
    ``peak_memory_bytes`` (this process's high-water mark), ``wall_seconds``,
    ``digest``, ``digest_version``, the model's scalar results, ``error``).
    A pandas DataFrame when pandas is installed, else a list of dicts.

    >>> rows = timewarp.sweep("phold", grid={"remote": [0.1, 0.5]}, lps=16, end=5)
    >>> [row["remote"] for row in (rows.to_dict("records") if hasattr(rows, "to_dict") else rows)]
    [0.1, 0.5]
    """
    if (grid is None) == (zip is None):
        raise ValueError("sweep: give grid={...} (every combination) or zip={...} (values taken in step)")
    axes = grid if grid is not None else zip
    assert axes is not None
    args = tokens(model, **_engine(sync, threads, seed), **options)
    for key, value in axes.items():
        args += ["--set", f"{key.replace('_', '-')}={_values(value)}"]
    if zip is not None:
        args.append("--zip")
    if repeats is not None:
        args += ["--reps", str(repeats)]
    return _table(_timewarp.sweep(args), ("digest", "error"))


class Curve:
    """A latency-load curve (``timewarp curve network``): a point per load."""

    def __init__(self, points: Any, csv_path: str, plots: List[str]) -> None:
        #: One row per load, the CLI's curve CSV columns (``load``,
        #: ``status``, ``latency_mean``, ``accepted_throughput``, ...): a
        #: DataFrame with pandas, else a list of dicts.
        self.points = points
        #: The CSV file and the plots written beside it.
        self.csv_path = csv_path
        self.plots = plots

    def _rows(self) -> List[Dict[str, Any]]:
        p = self.points
        return p.to_dict("records") if hasattr(p, "to_dict") else list(p)

    @property
    def saturation(self) -> Optional[float]:
        """The highest steady load (the saturation throughput's load), or None if no load was steady."""
        steady = [r["load"] for r in self._rows() if r.get("status") == "steady"]
        return max(steady) if steady else None

    @property
    def saturation_throughput(self) -> Optional[float]:
        """The accepted throughput at :attr:`saturation` (what the command's summary calls the saturation throughput)."""
        rows = [r for r in self._rows() if r.get("status") == "steady"]
        return max(rows, key=lambda r: r["load"])["accepted_throughput"] if rows else None

    @property
    def unstable(self) -> List[float]:
        """The loads whose runs did not settle (past saturation)."""
        return [r["load"] for r in self._rows() if r.get("status") not in ("steady", None) and not r.get("error")]

    def plot(self) -> List[str]:
        """The plots the curve wrote (latency and throughput against load), as paths."""
        return list(self.plots)


def curve(
    model: str = "network",
    *,
    load: str,
    output: Union[str, os.PathLike, None] = None,
    sample_period: Optional[float] = None,
    max_end: Optional[float] = None,
    refine: Optional[int] = None,
    threshold: Optional[float] = None,
    **options: Any,
) -> Curve:
    """``timewarp curve network --load FROM:TO[:STEP] -o FILE.csv``: each
    load run to steady state, the saturation point found, the CSV and two
    plots written (to ``output``, default a temporary folder).
    """
    curve_opts = {"load": load, "sample_period": sample_period, "max_end": max_end,
                  "refine": refine, "threshold": threshold}
    args = [a for a in tokens(None, **curve_opts)] + tokens(model, **options)
    if output is None:
        output = os.path.join(tempfile.mkdtemp(prefix="timewarp-curve-"), "curve.csv")
    output = os.fspath(output)
    text = _timewarp.curve(args, output)
    base = os.path.splitext(output)[0]
    folder = os.path.dirname(output) or "."
    plots = sorted(
        os.path.join(folder, f) for f in os.listdir(folder)
        if os.path.join(folder, f).startswith(base) and f.endswith((".png", ".svg"))
    )
    return Curve(_table(text, ("status", "digest", "error")), output, plots)
