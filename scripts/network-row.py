#!/usr/bin/env python3
"""One routing's cells of a latency-load table row, from a --stats-json file:
" accepted | mean latency | mean hops |" (used by the *-curves.sh scripts)."""
import json
import sys

r = json.load(open(sys.argv[1]))["model_results"]
print(f" {r['accepted_throughput']:.3f} | {r['latency_mean']:.0f} | {r['hops_mean']:.2f} |", end="")
