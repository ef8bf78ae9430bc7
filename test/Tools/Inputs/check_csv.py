"""The CSV reports' rows against the JSON reports' (test/Tools/report-csv.test).
argv: the directory holding spatial/memory/devices .csv and .json."""

import csv
import json
import os
import sys

out = sys.argv[1]


def load(name):
    with open(os.path.join(out, name + ".csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, name + ".json")) as f:
        return rows, json.load(f)


rows, report = load("spatial")
assert [(r["layer"], r["pass"], r["parallelism"], int(r["cycles"]))
        for r in rows] == [(l["name"], l["pass"], l["parallelism"],
                            l["cycles"]["total"]) for l in report["layers"]]
print("spatial: %d rows as the JSON's" % len(rows))

rows, report = load("memory")
tensors = [t for p in report["placements"] for t in p["tensors"]]
assert [(r["node"], r["tensor"], int(r["bytes"]), r["level"]) for r in rows] \
    == [(t["node"], t["tensor"], t["bytes"], t["level"]) for t in tensors]
print("memory: %d rows as the JSON's" % len(rows))

rows, report = load("devices")
assert [(r["op"], int(r["device"])) for r in rows] == \
    [(o["name"], o["device"]) for o in report["ops"]]
print("devices: %d rows as the JSON's" % len(rows))
