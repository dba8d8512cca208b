#!/usr/bin/env python3
"""Cost baseline (issue 60): instructions per committed event, held to a file.

    scripts/cost-baseline.py measure BASELINE OUT [--jobs N] [--only LABEL]...
    scripts/cost-baseline.py compare BASELINE MEASURED
    scripts/cost-baseline.py lower BASELINE MEASURED
    scripts/cost-baseline.py check BASELINE

measure: runs every configuration of BASELINE twice under
`valgrind --tool=callgrind`, to its two end times, with the release binary
$BIN (default target/release/timewarp), and writes OUT: BASELINE with the
measured figures. A figure is the marginal cost between the end times,
(instructions at end2 - at end1) / (committed events at end2 - at end1), as
`scripts/house-check.sh callgrind` has it: start-up, the initial events and
the final report cancel out. N configurations run at a time (default: the
CPUs); the counts do not depend on it.

compare: prints the table and exits 1 when a figure rose more than 3 %
above BASELINE's, or when the files name different configurations; a figure
that fell more than 0.5 % prints a hint to record it.

lower: writes into BASELINE the figures of MEASURED that fell more than
0.5 %, and only those (a rise is recorded by hand, in a reviewed commit).

check: parses BASELINE. Exit 2 on a malformed file or command line.

The file: `#` comment lines, then a line per configuration of five
tab-separated fields: label, end1, end2, instructions per committed event,
and the arguments of `timewarp run` (split like a shell's, paths relative to
the repository root; `--end`, `--quiet` and `--stats-json` are added).
"""

import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

LIMIT = 3.0  # % a figure may rise above its baseline
# % a figure must fall to be worth recording: the figures repeat to within
# 0.1 % (see the baseline's header); code layout alone moves some by a few
# tenths of a percent.
HINT = 0.5
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Malformed(Exception):
    pass


class Row:
    def __init__(self, label, end1, end2, figure, args):
        self.label, self.end1, self.end2, self.figure, self.args = label, end1, end2, figure, args

    def line(self, figure=None):
        fig = self.figure if figure is None else figure
        return f"{self.label}\t{self.end1}\t{self.end2}\t{fig:.1f}\t{self.args}\n"


def parse(path):
    """The file's lines in order: a comment or blank line as text, a configuration as a Row."""
    lines, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for n, text in enumerate(f, 1):
            text = text.rstrip("\n")
            if not text.strip() or text.startswith("#"):
                lines.append(text + "\n")
                continue
            fields = text.split("\t")
            if len(fields) != 5:
                raise Malformed(f"{path}:{n}: {len(fields)} tab-separated fields, not 5: {text!r}")
            label, e1, e2, fig, args = fields
            try:
                t1, t2, fig = float(e1), float(e2), float(fig)
            except ValueError:
                raise Malformed(f"{path}:{n}: end times and figure must be numbers: {text!r}") from None
            if not label or label != label.strip():
                raise Malformed(f"{path}:{n}: an empty label, or spaces around it")
            if label in seen:
                raise Malformed(f"{path}:{n}: {label!r} named twice")
            if not 0 <= t1 < t2 or fig <= 0 or not args.strip():
                raise Malformed(f"{path}:{n}: needs 0 <= end1 < end2, a positive figure and arguments")
            seen.add(label)
            lines.append(Row(label, e1, e2, fig, args))
    if not seen:
        raise Malformed(f"{path}: no configurations")
    return lines


def rows(lines):
    return [r for r in lines if isinstance(r, Row)]


def callgrind(binary, row, end, tmp):
    """(instructions, committed events) of one run to `end`."""
    out, stats = os.path.join(tmp, f"cg.{end}"), os.path.join(tmp, f"stats.{end}.json")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, "run",
           *shlex.split(row.args), "--end", end, "--quiet", "--stats-json", stats]
    r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{row.label}: exit {r.returncode}: {shlex.join(cmd)}\n{r.stderr[-2000:]}")
    with open(out) as f:
        total = next(int(l.split()[1]) for l in f if l.startswith(("summary:", "totals:")))
    with open(stats) as f:
        return total, json.load(f)["committed_events"]


def marginal(binary, row):
    t = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cost-baseline.") as tmp:
        (i1, n1), (i2, n2) = (callgrind(binary, row, e, tmp) for e in (row.end1, row.end2))
    if n2 <= n1:
        raise RuntimeError(f"{row.label}: no events committed between end {row.end1} and {row.end2}")
    fig = (i2 - i1) / (n2 - n1)
    # Progress, and what sizing a configuration needs: its events and time.
    print(f"  {row.label}: {fig:.1f} ({n2 - n1} events between the end times, "
          f"{i2} instructions to end {row.end2}, {time.monotonic() - t:.1f} s)", file=sys.stderr, flush=True)
    return fig


def measure(baseline, out, jobs, only):
    binary = os.environ.get("BIN") or os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release/timewarp")
    # Relative to the checkout, so that the command line is the same wherever
    # it lies: the lengths of the arguments move the heap's layout, and with
    # it the counts by up to 0.1 % (see the baseline's header).
    binary = os.path.relpath(os.path.join(ROOT, binary), ROOT)
    if os.sep not in binary:
        binary = os.path.join(".", binary)  # not looked up in PATH
    lines = parse(baseline)
    unknown = set(only) - {r.label for r in rows(lines)}
    if unknown:
        raise Malformed(f"--only names no configuration of {baseline}: {sorted(unknown)}")
    todo = [r for r in rows(lines) if not only or r.label in only]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        figures = dict(zip((r.label for r in todo), pool.map(lambda r: marginal(binary, r), todo)))
    with open(out, "w", encoding="utf-8") as f:
        for x in lines:
            if not isinstance(x, Row):
                f.write(x)
            elif x.label in figures:
                f.write(x.line(figures[x.label]))


def change(base, now):
    return 100.0 * (now - base) / base


def compare(baseline, measured):
    base = {r.label: r.figure for r in rows(parse(baseline))}
    now = {r.label: r.figure for r in rows(parse(measured))}
    width = max(map(len, base | now))
    print(f"{'configuration':<{width}}  {'baseline':>9}  {'measured':>9}  {'change':>9}")
    risen, fallen = [], []
    for label, b in base.items():
        if label not in now:
            print(f"{label:<{width}}  {b:9.1f}  {'-':>9}  not measured")
            continue
        c = change(b, now[label])
        mark = ""
        if c > LIMIT:
            risen.append(f"{label} ({c:+.1f} %)")
            mark = f"  ROSE more than {LIMIT:g} %"
        elif c < -HINT:
            fallen.append(label)
            mark = "  fell: record it"
        print(f"{label:<{width}}  {b:9.1f}  {now[label]:9.1f}  {c:+7.2f} %{mark}")
    missing = [l for l in base if l not in now]
    extra = [l for l in now if l not in base]
    for l in extra:
        print(f"{l:<{width}}  {'-':>9}  {now[l]:9.1f}  not in the baseline")
    if fallen:
        print(f"hint: {len(fallen)} figure(s) fell more than {HINT:g} %; record them in this commit: "
              f"scripts/cost-baseline.py lower {baseline} {measured}")
    if missing or extra:
        print(f"FAIL: the baseline and the measurement name different configurations "
              f"(not measured: {missing}; not in the baseline: {extra})")
    if risen:
        print(f"FAIL: instructions per committed event rose more than {LIMIT:g} %: {'; '.join(risen)}")
        print(f"(a rise is recorded only by an explicit, reviewed update of {baseline} "
              "whose commit message says why)")
    return 1 if risen or missing or extra else 0


def lower(baseline, measured):
    lines = parse(baseline)
    now = {r.label: r.figure for r in rows(parse(measured))}
    done = []
    with open(baseline, "w", encoding="utf-8") as f:
        for x in lines:
            if isinstance(x, Row) and x.label in now and change(x.figure, now[x.label]) < -HINT:
                done.append(f"{x.label}: {x.figure:.1f} -> {now[x.label]:.1f}")
                x = Row(x.label, x.end1, x.end2, now[x.label], x.args)
            f.write(x if isinstance(x, str) else x.line())
    print("\n".join(done) if done else f"no figure fell more than {HINT:g} %")


def main(argv):
    try:
        mode, args = (argv[1], argv[2:]) if len(argv) > 1 else ("", [])
        if mode == "measure" and len(args) >= 2:
            jobs, only, opts = os.cpu_count() or 1, [], args[2:]
            while opts:
                if len(opts) < 2 or opts[0] not in ("--jobs", "--only"):
                    raise Malformed(f"unknown option or missing value: {opts}")
                if opts[0] == "--jobs":
                    jobs = int(opts[1])
                else:
                    only.append(opts[1])
                opts = opts[2:]
            measure(args[0], args[1], jobs, only)
            return 0
        if mode == "compare" and len(args) == 2:
            return compare(*args)
        if mode == "lower" and len(args) == 2:
            lower(*args)
            return 0
        if mode == "check" and len(args) == 1:
            print(f"{len(rows(parse(args[0])))} configurations")
            return 0
    except (Malformed, RuntimeError) as e:  # RuntimeError: a run failed
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
