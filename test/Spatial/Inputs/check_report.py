"""Checks a --dsm-mapping-report JSON file for the schema scripts rely on
(docs/mapping-report.md) and for its arithmetic: categories add up to each
row's total, rows and a pipeline's wait (bubble, sends) add up to the
totals, seconds = cycles / frequency.

usage: check_report.py report.json frequency_hz [expected rows]"""

import json
import math
import sys

report = json.load(open(sys.argv[1]))
frequency = float(sys.argv[2])
DIMS = {"in", "out", "ij", "kij", "mb"}
CATEGORIES = ["useful", "underuse", "ovldt_visible", "non_ovldt", "aux_comp"]
# Names before the vocabulary was unified, kept for one release.
ALIASES = {"ovl": "ovldt_visible", "non_ovl": "non_ovldt"}


def close(a, b, rel=1e-9):
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-6)


assert report["mode"] in ("train", "infer"), report["mode"]
rows = report["layers"]
if len(sys.argv) > 3:
    assert len(rows) == int(sys.argv[3]), f"{len(rows)} rows, expected {sys.argv[3]}"
total = 0.0
useful = 0.0
for row in rows:
    for key in ("name", "pass", "parallelism", "chipD", "coreD", "arrayD",
                "cycles", "utilization", "macs", "limited_by", "transfers"):
        assert key in row, f"{row.get('name')}: missing {key}"
    assert row["pass"] in ("fwd", "bwd", "upd")
    assert row["parallelism"] in ("data", "model", "data_x_model_y", "model_x_data_y")
    for level in ("chipD", "coreD", "arrayD", "chip_split", "core_split"):
        assert set(row[level]) == DIMS, f"{row['name']}: {level} keys"
    c = row["cycles"]
    parts = sum(c[k] for k in CATEGORIES)
    assert close(parts, c["total"]), f"{row['name']} {row['pass']}: {parts} != {c['total']}"
    assert all(c[k] >= 0 for k in CATEGORIES)
    # PriComp of the paper: the PE array's time, useful or not.
    assert close(c["pri_comp"], c["useful"] + c["underuse"])
    for old, new in ALIASES.items():
        assert c[old] == c[new], f"{row['name']}: alias {old} != {new}"
    if c["total"] > 0:
        assert close(row["utilization"], c["useful"] / c["total"])
    # ChipD = ceil(work / chip split) and CoreD = ceil(ChipD / core split).
    for d in DIMS:
        assert row["coreD"][d] == -(-row["chipD"][d] // row["core_split"][d])
    total += c["total"]
    useful += c["useful"]
t = report["totals"]
# A pipeline's wait is its own part of the step, in no row.
idle = sum(t["breakdown"].get(k, 0) for k in ("bubble", "pipeline_sends"))
assert ("bubble" in t["breakdown"]) == ("pipeline" in t), t["breakdown"]
total += idle
assert close(t["cycles"], total, rel=1e-7), (t["cycles"], total)
assert close(t["seconds"], total / frequency)
assert close(t["utilization"], useful / total)
# The memory of the fullest chip: its categories add up, `fits` says whether
# the total is within a chip's memory, training has gradients.
m = t["memory_per_chip"]
parts = ("weights", "gradients", "optimizer", "activations", "buffers")
assert close(m["total_bytes"], sum(m[p + "_bytes"] for p in parts)), m
assert m["fits"] == (m["total_bytes"] <= m["capacity_bytes"]), m
assert all(m[p + "_bytes"] >= 0 for p in parts), m
assert (m["gradients_bytes"] > 0) == (report["mode"] == "train" and m["weights_bytes"] > 0), m
print(f"ok: {len(rows)} rows, {total:.0f} cycles, utilization {t['utilization']:.3f}")
