"""Summarises a mapping report's strategy for named-strategy.test: the layers
not under the named parallelism, the pipeline, the memory savers, whether
the fullest chip fits."""
import json
import sys

report = json.load(open(sys.argv[1]))
totals = report["totals"]
if len(sys.argv) > 2:
    # The named parallelism is the layers with weights' (fully connected
    # here); those without take the fastest.
    named = sys.argv[2]
    others = sorted({row["name"] for row in report["layers"]
                     if row["kind"] == "fc" and row["parallelism"] != named})
    print("fc layers not %s: %s" % (named, ", ".join(others) or "none"))
pipeline = totals.get("pipeline")
if pipeline:
    rows = {stage["rows"] for stage in pipeline["stages"]}
    print("pipeline: %d stages of %s rows, %d microbatches, %s" %
          (len(pipeline["stages"]), "/".join(str(r) for r in sorted(rows)),
           pipeline["microbatches"], pipeline["schedule"]))
savers = totals.get("memory_savers")
if savers:
    print("savers: recomputed %s, state sharded %d, weights sharded %d" %
          ("yes" if savers["recomputed_layers"] > 0 else "no",
           savers["sharded_state_layers"], savers["sharded_weights_layers"]))
memory = totals["memory_per_chip"]
print("fits", memory["total_bytes"] <= memory["capacity_bytes"])
