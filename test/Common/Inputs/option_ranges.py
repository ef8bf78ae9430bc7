"""Every pass option that takes a quantity, at and past the ends of its range
(Common/option-ranges.test; the table of ranges is in docs/hardening.md).

Each row: the pass, its options, and the error expected (None: the value is
in range and the pass succeeds). A rejected value must be an error at the
module naming the option and its range, with a non-zero exit and no output.
"""
import subprocess
import sys

dsm_opt, model = sys.argv[1], sys.argv[2]

DEVICES = "dsm-place-devices=system=malvik placement=single-device"
MEMORY = "dsm-place-memory=system=nnp-i placement=greedy-dp"
MAP = "dsm-map-system=system=dsm-8pf-asym mode=infer"
MAP_DEVICES = "dsm-map-system=system=malvik placement=single-device"
MAP_MEMORY = "dsm-map-system=system=nnp-i placement=greedy-dp"
SET_BATCH = "dsm-set-batch="
DEFAULT = "at least batches; -1: the default"

ROWS = [
    # Device placement.
    (DEVICES, "evaluations=0", "evaluations must be in [1, 100000000], got 0"),
    (DEVICES, "evaluations=100000001",
     "evaluations must be in [1, 100000000], got 100000001"),
    (DEVICES, "evaluations=100000000 time-budget=0.001", None),
    (DEVICES, "batches=0", "batches must be in [1, 1000], got 0"),
    (DEVICES, "batches=1001", "batches must be in [1, 1000], got 1001"),
    (DEVICES, "batches=1000 evaluations=1", None),
    (DEVICES, "simulated-batches=0",
     f"simulated-batches must be in [1, 1000] ({DEFAULT}), got 0"),
    (DEVICES, "batches=3 simulated-batches=2",
     f"simulated-batches must be in [3, 1000] ({DEFAULT}), got 2"),
    (DEVICES, "simulated-batches=1001",
     f"simulated-batches must be in [1, 1000] ({DEFAULT}), got 1001"),
    (DEVICES, "simulated-batches=-1 evaluations=1", None),
    (DEVICES, "compute-efficiency=0",
     "compute-efficiency must be in (0, 1], got 0"),
    (DEVICES, "compute-efficiency=1.5",
     "compute-efficiency must be in (0, 1], got 1.5"),
    (DEVICES, "compute-efficiency=nan",
     "compute-efficiency must be in (0, 1], got nan"),
    (DEVICES, "compute-efficiency=1 evaluations=1", None),
    (DEVICES, "memory-fraction=0", "memory-fraction must be in (0, 1], got 0"),
    (DEVICES, "memory-fraction=2", "memory-fraction must be in (0, 1], got 2"),
    (DEVICES, "time-budget=-1",
     "time-budget must be in [0, 1000000] seconds (0: no limit), got -1"),
    (DEVICES, "time-budget=1e300",
     "time-budget must be in [0, 1000000] seconds (0: no limit), got 1e+300"),
    (DEVICES, "time-budget=inf",
     "time-budget must be in [0, 1000000] seconds (0: no limit), got inf"),
    (DEVICES, "time-budget=1000000 evaluations=1", None),
    # Memory placement.
    (MEMORY, "iterations=0", "iterations must be in [1, 100000000], got 0"),
    (MEMORY, "iterations=100000001",
     "iterations must be in [1, 100000000], got 100000001"),
    (MEMORY, "evaluator-timeout=0",
     "evaluator-timeout must be in [1, 1000000] seconds, got 0"),
    (MEMORY, "evaluator-timeout=1000001",
     "evaluator-timeout must be in [1, 1000000] seconds, got 1000001"),
    (MEMORY, "evaluator-timeout=1000000", None),
    (MEMORY, "time-budget=1000001",
     "time-budget must be in [0, 1000000] seconds (0: no limit), got 1000001"),
    (MEMORY, "ilp-time-limit=0",
     "ilp-time-limit must be in [0.001, 1000000] seconds, got 0"),
    (MEMORY, "ilp-time-limit=0.0001",
     "ilp-time-limit must be in [0.001, 1000000] seconds, got 0.0001"),
    (MEMORY, "ilp-time-limit=2e6",
     "ilp-time-limit must be in [0.001, 1000000] seconds, got 2000000"),
    (MEMORY, "ilp-time-limit=0.001", None),
    # The batch, standalone and through --dsm-map-system.
    (SET_BATCH, "batch=0", "batch must be in [1, 2147483647], got 0"),
    (SET_BATCH, "batch=2147483648",
     "batch must be in [1, 2147483647], got 2147483648"),
    (SET_BATCH, "batch=2147483647", None),
    (MAP, "batch=0",
     "batch must be in [1, 2147483647] (-1 keeps the model's), got 0"),
    (MAP, "batch=-2",
     "batch must be in [1, 2147483647] (-1 keeps the model's), got -2"),
    (MAP, "batch=9223372036854775807",
     "batch must be in [1, 2147483647] (-1 keeps the model's), got "
     "9223372036854775807"),
    # --dsm-map-system checks the options of the job it runs as that job's
    # pass does.
    (MAP_DEVICES, "evaluations=0",
     "evaluations must be in [1, 100000000], got 0"),
    (MAP_DEVICES, "batches=1001", "batches must be in [1, 1000], got 1001"),
    (MAP_MEMORY, "iterations=0", "iterations must be in [1, 100000000], got 0"),
    (MAP_MEMORY, "ilp-time-limit=0",
     "ilp-time-limit must be in [0.001, 1000000] seconds, got 0"),
]

failures = 0
for pass_options, options, expected in ROWS:
    name, _, base = pass_options.partition("=")
    text = (base + " " + options).strip()
    run = subprocess.run([dsm_opt, model, f"--{name}={text}", "-o", "-"],
                         capture_output=True, text=True)
    errors = [line for line in run.stderr.splitlines() if "error:" in line]
    if expected is None:
        ok = run.returncode == 0 and not errors
    else:
        ok = (run.returncode != 0 and not run.stdout and len(errors) == 1 and
              errors[0].endswith("error: " + expected) and
              "two-ops.mlir:" in errors[0])
    if not ok:
        failures += 1
        print(f"FAIL --{name}=\"{text}\": exit {run.returncode}, expected "
              f"{expected!r}\n{run.stderr}")
print(f"{len(ROWS) - failures} of {len(ROWS)} rows as expected")
sys.exit(1 if failures else 0)
