#!/usr/bin/env python3
"""Counts clippy::pedantic warnings by lint from cargo's JSON messages.

    cargo clippy --workspace --all-targets --message-format=json -- -W clippy::pedantic \\
        | scripts/pedantic-count.py
"""
import collections, json, signal, sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`

seen, count = set(), collections.Counter()
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-message":
        continue
    msg = m["message"]
    code = (msg.get("code") or {}).get("code") or ""
    if not code.startswith("clippy::") or msg.get("level") != "warning":
        continue
    span = next((s for s in msg["spans"] if s.get("is_primary")), msg["spans"][0] if msg["spans"] else {})
    key = (code, span.get("file_name"), span.get("line_start"), span.get("column_start"))
    if key in seen:  # the same warning from a lib and its test build
        continue
    seen.add(key)
    count[code] += 1
casts = sum(n for c, n in count.items() if "cast" in c)
print(f"total {sum(count.values())}  (casts {casts})")
for c, n in count.most_common():
    print(f"{n:6}  {c}")
