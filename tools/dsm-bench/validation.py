#!/usr/bin/env python3
"""Published-runs suite: the ten GPT runs of Narayanan et al., SC'21
("Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", Table 1: 1.7B on 32 A100s to 1T on 3,072), each mapped on the
DGX A100 preset with the run's node count, and its predicted step set beside
the measured one (docs/validation.md).

The paper gives each run's tensor and pipeline degrees (the data degree is
the GPUs over their product), its batch and the teraFLOP/s each GPU achieved;
the measured step is the paper's FLOP count per iteration (its equation 3,
which counts the forward pass recomputation runs again:
96 B s l h^2 (1 + s/(6h) + V/(16 l h))) over GPUs x achieved FLOP/s. What the
paper leaves open is stated here and the same for every run: microbatch size
1, full recomputation, the 1F1B schedule without interleaving, the optimizer
state sharded over the data-parallel replicas (Megatron-LM's distributed
optimizer); sequence 2,048, vocabulary 51,200.

usage: validation.py DSM_OPT [--runs N,N,...] [--check MAX,MEAN]
  --runs picks runs by their row (1-10) of Table 1.
  --check exits 1 when a run's |error| exceeds MAX percent or the mean
  |error| exceeds MEAN percent (the issue's bounds are 10 and 5).
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "models"))
import generate  # noqa: E402  (the zoo's generator)

SEQUENCE, VOCABULARY = 2048, 51200

# Table 1 of Narayanan et al. 2021: billions of parameters, attention heads,
# hidden size, layers, tensor degree, pipeline degree, GPUs, batch, achieved
# teraFLOP/s per GPU.
TABLE_1 = [
    (1.7, 24, 2304, 24, 1, 1, 32, 512, 137),
    (3.6, 32, 3072, 30, 2, 1, 64, 512, 138),
    (7.5, 32, 4096, 36, 4, 1, 128, 512, 142),
    (18.4, 48, 6144, 40, 8, 1, 256, 1024, 135),
    (39.1, 64, 8192, 48, 8, 2, 512, 1536, 138),
    (76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140),
    (145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148),
    (310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155),
    (529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163),
    (1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163),
]


def paper_flops(batch, layers, hidden):
    """Narayanan et al.'s equation 3: FLOPs of one iteration with full
    recomputation."""
    s, l, h, v = SEQUENCE, layers, hidden, VOCABULARY
    return 96 * batch * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))


def map_run(dsm_opt, row, workdir):
    billions, heads, hidden, layers, tensor, stages, gpus, batch, _ = row
    name = f"gpt_{str(billions).replace('.', 'p')}b"
    model = os.path.join(workdir, f"{name}.mlir")
    generate.Graph.source_file = f"{name}.mlir"
    with open(model, "w") as f:
        f.write(generate.gpt2(SEQUENCE, hidden=hidden, heads=heads,
                              layers=layers, ffn=4 * hidden,
                              vocab=VOCABULARY, context=SEQUENCE, name=name,
                              doc=f"GPT {billions}B of Narayanan et al. "
                                  "2021, Table 1"))
    report = os.path.join(workdir, f"{name}.json")
    data = gpus // (tensor * stages)
    options = (f"system=dgx-a100-80g nodes={gpus // 8} mode=train "
               f"batch={batch} tensor={tensor} data={data} stages={stages} "
               f"microbatch-size=1 recompute=full zero=1 report={report}")
    done = subprocess.run([dsm_opt, model, f"--dsm-map-system={options}",
                           "-o", os.devnull], capture_output=True, text=True)
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[0:3]
    with open(report) as f:
        return json.load(f)["totals"], None


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    dsm_opt, rows, check = argv[1], range(1, len(TABLE_1) + 1), None
    args = argv[2:]
    while args:
        flag = args.pop(0)
        if flag == "--runs":
            rows = [int(r) for r in args.pop(0).split(",")]
        elif flag == "--check":
            check = [float(x) for x in args.pop(0).split(",")]
        else:
            sys.exit(f"unknown argument '{flag}'\n{__doc__}")
    print("| run | params | TP | PP | DP | GPUs | batch | measured s | "
          "predicted s | error | memory / GPU | MFU predicted | "
          "MFU measured |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    errors = []
    with tempfile.TemporaryDirectory() as workdir:
        for r in rows:
            row = TABLE_1[r - 1]
            billions, _, hidden, layers, tensor, stages, gpus, batch, tflops \
                = row
            measured = paper_flops(batch, layers, hidden) / (gpus * tflops * 1e12)
            totals, why = map_run(dsm_opt, row, workdir)
            head = (f"| {r} | {billions}B | {tensor} | {stages} | "
                    f"{gpus // (tensor * stages)} | {gpus} | {batch} | "
                    f"{measured:.2f} |")
            if totals is None:
                print(f"{head} no plan: {' '.join(why)} |")
                errors.append(float("inf"))
                continue
            predicted = totals["seconds"]
            error = 100 * (predicted - measured) / measured
            errors.append(abs(error))
            memory = totals["memory_per_chip"]["total_bytes"] / 1e9
            # The paper's measured MFU: its model FLOPs (equation 3 less
            # the recomputed forward pass, 3/4 of it) over peak x step.
            peak = 312e12
            mfu = 0.75 * paper_flops(batch, layers, hidden) / (
                gpus * peak * measured)
            print(f"{head} {predicted:.2f} | {error:+.1f}% | {memory:.1f} GB"
                  f" | {100 * totals['model_flop_utilization']:.1f}% | "
                  f"{100 * mfu:.1f}% |")
    mean = sum(errors) / len(errors)
    print(f"\nmean |error| {mean:.1f}%, largest {max(errors):.1f}%")
    if check and (max(errors) > check[0] or mean > check[1]):
        print(f"FAILED: bounds {check[0]}% each, {check[1]}% mean")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
