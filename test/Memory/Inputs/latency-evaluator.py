#!/usr/bin/env python3
# A stand-in for hardware behind `evaluator=` (docs/memory-placement.md): it
# reads the map file named by its argument and prints a latency in seconds.
# Its "hardware" is unlike the cost model on purpose -- DRAM is the fastest
# level -- so a search that follows it ends where the cost model never would.
# EVALUATOR_MODE selects a misbehaviour to test the errors.
import json
import os
import sys
import time

mode = os.environ.get("EVALUATOR_MODE", "")
with open(sys.argv[1]) as f:
    nodes = json.load(f)["nodes"]
if mode == "fail":
    sys.stderr.write("the board is not answering\n")
    sys.exit(1)
if mode == "garbage":
    print("fast")
    sys.exit(0)
if mode == "huge":
    print("1e308")
    sys.exit(0)
if mode == "tiny":
    print("4.9e-324")
    sys.exit(0)
if mode == "flood":
    sys.stdout.write("9" * 1000000 + "\n")
    sys.stderr.write("E" * 1000000 + "\n")
    sys.exit(0 if os.environ.get("FLOOD_EXIT") != "1" else 1)
if mode == "hang":
    time.sleep(30)
if mode == "hang-with-child":
    # A child of its own (a board's driver), its pid in EVALUATOR_CHILD_PID:
    # the timeout must stop it too.
    import subprocess
    child = subprocess.Popen([sys.executable, "-c",
                              "import time; time.sleep(30)"])
    with open(os.environ["EVALUATOR_CHILD_PID"], "w") as f:
        f.write(str(child.pid))
    time.sleep(30)
if mode == "fail-on-sram-weights" and any(
        n["weights"]["level"] == "sram" for n in nodes):
    sys.stderr.write("weights in SRAM crash the board\n")
    sys.exit(3)
cost = {"dram": 1, "llc": 2, "sram": 3}
ns = sum(n[t]["bytes"] * cost[n[t]["level"]]
         for n in nodes for t in ("weights", "activations"))
print(f"{ns * 1e-9:.12g}")
