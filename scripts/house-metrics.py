#!/usr/bin/env python3
"""Size metrics of the code (issue 30's before/after table).

    scripts/house-metrics.py [ROOT]      # ROOT: a checkout (default: this one)

Counts, over every .rs file under crates/ and examples/ (tests included):
files over 800 lines, functions over 80 lines, structs over 15 fields, and
lists each. Relies on rustfmt's layout (a block closes on a line of its own
at the opening line's indentation), which `cargo fmt --check` guarantees.
Import cycles (every crate of the workspace): crates/timewarp/tests/module_cycles.rs
(TIMEWARP_CYCLES_ROOT=CHECKOUT for another checkout). Pedantic warnings:
`cargo clippy --workspace --all-targets -- -W clippy::pedantic`.
"""
import pathlib, re, sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
FN = re.compile(r'^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+(\w+)')
STRUCT = re.compile(r'^(\s*)(?:pub(?:\([^)]*\))?\s+)?struct\s+(\w+)[^;(]*\{\s*$')
FIELD = re.compile(r'^\s*(?:pub(?:\([^)]*\))?\s+)?[a-z_][a-z0-9_]*\s*:')

files, fns, structs = [], [], []
for p in sorted(list(root.glob('crates/**/*.rs')) + list(root.glob('examples/**/*.rs'))):
    if '/target/' in str(p):
        continue
    rel = p.relative_to(root)
    lines = p.read_text().splitlines()
    if len(lines) > 800:
        files.append((len(lines), str(rel)))
    for i, line in enumerate(lines):
        m = FN.match(line)
        if m:
            # a declaration without a body (a trait's), on one line or several
            k = i
            while k < len(lines) and '{' not in lines[k] and not lines[k].rstrip().endswith(';'):
                k += 1
            if k < len(lines) and '{' not in lines[k]:
                m = None
        if m:
            ind = m.group(1)
            # the body ends at the first line that is the indentation and "}"
            for j in range(i, len(lines)):
                if j > i and lines[j].rstrip() == ind + '}':
                    break
                if j == i and line.rstrip().endswith('}'):
                    break
            n = j - i + 1
            if n > 80:
                fns.append((n, f'{rel}:{i + 1} {m.group(2)}'))
        m = STRUCT.match(line)
        if m:
            ind = m.group(1)
            k = 0
            for j in range(i + 1, len(lines)):
                if lines[j].rstrip() == ind + '}':
                    break
                if lines[j].startswith(ind + '    ') and not lines[j].startswith(ind + '     ') and FIELD.match(lines[j]):
                    k += 1
            if k > 15:
                structs.append((k, f'{rel}:{i + 1} {m.group(2)}'))

for title, rows in (('files over 800 lines', files), ('functions over 80 lines', fns), ('structs over 15 fields', structs)):
    print(f'{title}: {len(rows)}')
    for n, what in sorted(rows, reverse=True):
        print(f'  {n:5}  {what}')
