"""Checks that two workload reports (docs/workload-report.md) have the same
totals for the given keys: the same model through two routes.

usage: same_totals.py a.json b.json key [key ...]"""

import json
import sys

a = json.load(open(sys.argv[1]))["totals"]
b = json.load(open(sys.argv[2]))["totals"]
differ = [f"{k}: {a[k]} != {b[k]}" for k in sys.argv[3:] if a[k] != b[k]]
if differ:
    sys.exit("totals differ: " + "; ".join(differ))
print("same " + ", ".join(f"{k} {a[k]}" for k in sys.argv[3:]))
