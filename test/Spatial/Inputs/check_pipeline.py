"""Checks a spatial report's pipeline: its stages cover the layers in order
on rows that tile a torus of the given rows, and the fullest chip fits."""
import json
import sys

report = json.load(open(sys.argv[1]))
torus_rows = int(sys.argv[2])
pipeline = report["totals"]["pipeline"]
fwd = [row["name"] for row in report["layers"] if row["pass"] == "fwd"]
position, row = 0, 0
for stage in pipeline["stages"]:
    assert stage["first_row"] == row, stage
    assert fwd[position] == stage["first_layer"], (fwd[position], stage)
    position += stage["layers"]
    assert fwd[position - 1] == stage["last_layer"], stage
    row += stage["rows"]
assert position == len(fwd), (position, len(fwd))
assert row == torus_rows, row
print("stages cover every layer in order on rows 0-%d" % (row - 1))
print("fits", report["totals"]["memory_per_chip"]["fits"])
