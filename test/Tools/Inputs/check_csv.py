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
# A pipeline's wait has rows of its own, in no layer (docs/mapping-report.md).
rows = [r for r in rows if r["layer"] != "(pipeline)"]
assert [(r["layer"], r["pass"], r["parallelism"], int(r["cycles"]),
         r["limited_by"], int(r["macs"])) for r in rows] == \
    [(l["name"], l["pass"], l["parallelism"], l["cycles"]["total"],
      l["limited_by"], l["macs"]) for l in report["layers"]]
# Every figure column, not only the keys: utilization and seconds as the
# JSON's rows give them.
for r, l in zip(rows, report["layers"]):
    assert abs(float(r["utilization"]) - l["utilization"]) <= 1e-9, (r, l["utilization"])
    assert abs(float(r["seconds"]) - l["seconds"]) <= 1e-9 * max(1, l["seconds"]), (r, l["seconds"])
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
