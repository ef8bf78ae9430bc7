#!/usr/bin/env python3
"""Mutation check: curated bugs the test suite must catch.

Each mutation below is a small, plausible bug in the cost models, the
searches, the memory accounting, the report writers, the importers or the
verifier. This script copies the tree (the files git tracks, with their
local changes) to a scratch directory, builds it once and checks that the
suite passes there; then, one mutation at a time, it applies the mutation,
rebuilds, runs the suite (lit, unit tests included, stopping at the first
failure) and restores the file. It prints which test caught each mutation
and exits non-zero if any was not caught, did not apply or did not build.

  tools/mutants/mutants.py                 # every mutation
  tools/mutants/mutants.py --only pricing-walk trilu-lower
  tools/mutants/mutants.py --list          # the mutations, checked to apply

The scratch build (default /tmp/dsm-mutants, --work) is kept between runs
and uses ccache where it is installed; docs/hardening.md says how long a
run takes.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIT = "/usr/lib/llvm-22/bin/lit"

# (name, what it breaks, file, text found exactly once, its replacement)
MUTATIONS = [
    # The spatial performance model (DeepSpatialMatrix).
    ("overlap-ignored", "cost model: TotCy takes the smaller of PriComp and Ovldt",
     "lib/Spatial/PerformanceModel.cpp",
     "c.total = std::max(priComp, terms.ovldt) + c.auxComp + c.nonOvldt;",
     "c.total = std::min(priComp, terms.ovldt) + c.auxComp + c.nonOvldt;"),
    ("gather-y-bytes", "cost model: ZeRO-3 weight gather along Y sends a 1/copies share",
     "lib/Spatial/PerformanceModel.cpp",
     "group.bytes[int(Link::TorusY)] = bytes * (copiesY - 1) / copiesY;",
     "group.bytes[int(Link::TorusY)] = bytes / copiesY;"),
    ("aux-params-split", "cost model: auxiliary layers' parameters split by the input split",
     "lib/Spatial/PerformanceModel.cpp",
     "return layer.params / double(config.chipSplit[int(Dim::Out)]);",
     "return layer.params / double(config.chipSplit[int(Dim::In)]);"),
    ("recompute-useful", "cost model: a recomputed FWD counted as useful work",
     "lib/Spatial/Mapping.cpp",
     "  forward.underuse += forward.useful;\n  forward.useful = 0;\n",
     "  forward.underuse += 0 * forward.useful;\n"),
    # The searches.
    ("explorer-worst", "design-space exploration keeps the slowest configuration",
     "lib/Spatial/DesignSpaceExplorer.cpp",
     "return a.cycles.total < b.cycles.total;",
     "return a.cycles.total > b.cycles.total;"),
    ("pricing-walk", "capacity pricing stops its walk at once (issue 48)",
     "lib/Spatial/ParallelismSelection.cpp",
     "if (!(lowBytes > highBytes))",
     "if (!(lowBytes < highBytes))"),
    ("selection-cost", "the selection's cost leaves out the edges' terms",
     "lib/Spatial/ParallelismSelection.cpp",
     "    result.cost += edge.cost[result.choice[edge.from]][result.choice[edge.to]];",
     "    result.cost += 0 * edge.cost[result.choice[edge.from]][result.choice[edge.to]];"),
    ("stage-cut-late", "stage balancing cuts a stage one layer late",
     "lib/Spatial/PipelineParallelism.cpp",
     "bool full = i > 0 && sum + cost[i] > bound;",
     "bool full = i > 0 && sum > bound;"),
    # Pipelines.
    ("1f1b-link", "1F1B waits for the less busy link of a boundary",
     "lib/Spatial/PipelineParallelism.cpp",
     "busier[j] = std::max(forwardLinks[j], backwardLinks[j]);",
     "busier[j] = std::min(forwardLinks[j], backwardLinks[j]);"),
    ("in-flight", "1F1B keeps one microbatch fewer in flight",
     "lib/Spatial/PipelineParallelism.cpp",
     "return std::min<int64_t>(microbatches, stages - stage);",
     "return std::min<int64_t>(microbatches, stages - stage - 1);"),
    ("once-per-step", "a pipeline runs the FWD's transfers once a step, not the UPD's",
     "lib/Spatial/PipelineParallelism.cpp",
     "  if (pass != TrainingPass::UPD)\n    return 0;\n  double cycles = 0;",
     "  if (pass != TrainingPass::FWD)\n    return 0;\n  double cycles = 0;"),
    # The memory accounting.
    ("adam-bytes", "mixed-precision Adam keeps 8 bytes of state a parameter, not 12",
     "lib/Spatial/StepMemory.cpp",
     "  case Optimizer::Adam:\n    return 12;",
     "  case Optimizer::Adam:\n    return 8;"),
    ("live-end", "a tensor's bytes end before its last step's other starts",
     "include/dsm/Core/Spatial/StepMemory.h",
     "change[2 * size_t(t.last) + 1] -= t.bytes;",
     "change[2 * size_t(t.last)] -= t.bytes;"),
    ("shard-state", "ZeRO-2 shards the state only where the weights are sharded",
     "include/dsm/Core/Spatial/StepMemory.h",
     "shardState ? parameters / chips : chipElements};",
     "shardWeights ? parameters / chips : chipElements};"),
    ("fullest-row", "the fullest row is the emptiest",
     "lib/Spatial/StepMemory.cpp",
     "if (bytes(row) > bytes(fullest))",
     "if (bytes(row) < bytes(fullest))"),
    ("shared-weight", "a shared weight is held again by each reader in the IR count",
     "passes/Spatial/MappedMemory.cpp",
     "if (!heldWeights.insert(weight).second)",
     "if (heldWeights.insert(weight).second && false)"),
    ("record-unchecked", "the verifier trusts the recorded memory figure",
     "passes/Spatial/VerifyMapping.cpp",
     "return ir > record * (1 + 1e-9) + 1;",
     "return ir > record * (1 + 1e-9) + 1 && false;"),
    ("cycles-sum", "a cycles record whose categories exceed its total is accepted",
     "dialects/DsmAttrs.cpp",
     "  if (sum != total)\n    return emitError() << \"cycle categories add up to \"",
     "  if (sum < total)\n    return emitError() << \"cycle categories add up to \""),
    # Report writers.
    ("json-activations", "the JSON report writes the buffers as the activations",
     "lib/Spatial/MappingReport.cpp",
     'json.attribute("activations_bytes", m.activations);',
     'json.attribute("activations_bytes", m.buffers);'),
    ("csv-utilization", "the CSV report's utilization column holds useful cycles",
     "lib/Spatial/MappingReport.cpp",
     "csvNumber(row.utilization()), row.limitedBy(),",
     "csvNumber(row.cycles.useful), row.limitedBy(),"),
    # Memory placement (EGRL).
    ("memory-bandwidth", "memory placement prices every level at DRAM's bandwidth",
     "lib/Memory/MemoryCostModel.cpp",
     "double perByte = 1.0 / model.bandwidth[int(level)];",
     "double perByte = 1.0 / model.bandwidth[int(MemoryLevel::DRAM)];"),
    ("llc-capacity", "the LLC holds as much as DRAM",
     "lib/Memory/CapacityChecker.cpp",
     "toBytes(system.llc.capacityBytes);",
     "toBytes(system.dram.capacityBytes);"),
    ("greedy-worse", "greedy DP keeps a move that lowers the reward",
     "lib/Memory/GreedyDP.cpp",
     "if (results[c].reward > bestReward) {",
     "if (results[c].reward < bestReward) {"),
    # Device placement (execution simulator).
    ("backward-flops", "the simulator leaves the weight update out of the backward task",
     "lib/Devices/ExecutionSimulator.cpp",
     "taskTime[1][slot] = (o.backwardFlops + o.updateFlops) / rate;",
     "taskTime[1][slot] = o.backwardFlops / rate;"),
    ("channel-efficiency", "the simulator ignores a channel's efficiency",
     "lib/Devices/ExecutionSimulator.cpp",
     "conventions.channelEfficiency.value_or(channel.efficiency));",
     "conventions.channelEfficiency.value_or(1.0));"),
    # Importers and workloads.
    ("trilu-lower", "the ONNX Trilu fold drops the diagonal of a lower triangle (issue 48)",
     "importers/onnx/OnnxFolding.cpp",
     "column - row >= k : column - row <= k;",
     "column - row >= k : column - row < k;"),
    ("trilu-upper", "the ONNX Trilu fold drops the diagonal of an upper triangle",
     "importers/onnx/OnnxFolding.cpp",
     "column - row >= k : column - row <= k;",
     "column - row > k : column - row <= k;"),
    ("conv-bias", "a convolution's bias is not among its parameters",
     "lib/Workload/Workload.cpp",
     "w.params = c.add(kernel, s.hasBias ? s.outChannels : 0);",
     "w.params = c.add(kernel, 0);"),
]


def run(cmd, cwd, log):
    with open(log, "w") as out:
        return subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT).returncode


def apply(work, mutation):
    """Applies `mutation` to the scratch tree; returns the file's text
    before it (to restore), or a string saying why it does not apply."""
    name, _, path, find, replace = mutation
    full = os.path.join(work, path)
    text = open(full).read()
    if text.count(find) != 1:
        return None, "text found %d times in %s" % (text.count(find), path)
    with open(full, "w") as f:
        f.write(text.replace(find, replace))
    return text, None


def restore(work, mutation, text):
    with open(os.path.join(work, mutation[2]), "w") as f:
        f.write(text)


def first_failure(log):
    text = open(log).read()
    found = re.search(r"Failed Tests \(\d+\):\n\s+(.*)", text)
    if found:
        return found.group(1).strip()
    found = re.search(r"^(FAIL|UNRESOLVED|TIMEOUT): (.*?) \(", text, re.M)
    return found.group(2) if found else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", default="/tmp/dsm-mutants")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if not args.only or m[0] in args.only]
    if args.only and len(chosen) != len(args.only):
        sys.exit("unknown mutation among: " + " ".join(args.only))

    if args.list:
        bad = 0
        for m in chosen:
            text = open(os.path.join(ROOT, m[2])).read()
            ok = text.count(m[3]) == 1
            bad += not ok
            print("%-20s %-40s %s%s" % (m[0], m[2], m[1], "" if ok else "  [DOES NOT APPLY]"))
        return 1 if bad else 0

    # The scratch tree: the files git tracks, as they are now.
    src = os.path.join(args.work, "src")
    os.makedirs(src, exist_ok=True)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           stdout=subprocess.PIPE).stdout.split(b"\0")
    for f in files:
        if not f:
            continue
        rel = f.decode()
        source, target = os.path.join(ROOT, rel), os.path.join(src, rel)
        if not os.path.isfile(source):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        # A fresh modification time, so the scratch build sees the change.
        if not os.path.exists(target) or open(source, "rb").read() != open(target, "rb").read():
            shutil.copyfile(source, target)
            shutil.copymode(source, target)
    build = os.path.join(args.work, "build")
    logs = os.path.join(args.work, "logs")
    os.makedirs(logs, exist_ok=True)
    if not os.path.exists(os.path.join(build, "build.ninja")):
        cmake = ["cmake", "-S", src, "-B", build, "-G", "Ninja",
                 "-DCMAKE_BUILD_TYPE=Release",
                 "-DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir",
                 "-DLLVM_EXTERNAL_LIT=" + LIT]
        if shutil.which("ccache"):
            cmake += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache",
                      "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        if run(cmake, src, os.path.join(logs, "configure.log")):
            sys.exit("configure failed: see " + os.path.join(logs, "configure.log"))

    # What check-dsm builds (the tools, the unit tests, the generated docs
    # test/Docs compares) and its two suites, the unit tests first.
    def suite(tag):
        if run(["ninja", "-C", build, "all", "mlir-doc"], src,
               os.path.join(logs, tag + ".build.log")):
            return "build", None
        log = os.path.join(logs, tag + ".lit.log")
        failed = run([LIT, "-q", "--max-failures=1",
                      os.path.join(build, "test", "Unit"),
                      os.path.join(build, "test")], src, log)
        return ("fail" if failed else "pass"), first_failure(log)

    start = time.time()
    outcome, failure = suite("baseline")
    if outcome != "pass":
        sys.exit("the unmutated tree does not pass (%s): %s" % (outcome, failure))
    print("baseline: built and passed in %.0f s" % (time.time() - start), flush=True)

    uncaught = 0
    for m in chosen:
        began = time.time()
        original, problem = apply(src, m)
        if problem:
            print("%-20s DOES NOT APPLY: %s" % (m[0], problem), flush=True)
            uncaught += 1
            continue
        try:
            outcome, failure = suite(m[0])
        finally:
            restore(src, m, original)
        took = time.time() - began
        if outcome == "fail":
            print("%-20s caught by %s (%.0f s)" % (m[0], failure, took), flush=True)
        else:
            uncaught += 1
            print("%-20s %s (%.0f s): %s" % (
                m[0], "DOES NOT BUILD" if outcome == "build" else "NOT CAUGHT",
                took, m[1]), flush=True)
    # Leave the scratch build as the tree is.
    run(["ninja", "-C", build, "all", "mlir-doc"], src,
        os.path.join(logs, "restore.build.log"))
    print("%d of %d mutations caught in %.0f s" % (
        len(chosen) - uncaught, len(chosen), time.time() - start))
    return 1 if uncaught else 0


if __name__ == "__main__":
    sys.exit(main())
