#!/usr/bin/env python3
"""Experiment E3 of Andreassen's device-placement thesis as a study.

Runs dsm-opt --dsm-place-devices on AlexNet, ResNet-50 and Inception-v3
(training, minibatch 64) for the normal version (Malvik: CPU + 2 V100), the
limited version (4 V100 with 200 MB / 2.5 GB / 2.5 GB) and the pipelined
version (4 V100, 4 batches in flight, 10 simulated), 20,000 evaluations per
search, several seeds; prints the mean best step time with a 95% interval, the
single-GPU time, and the evaluation rate. docs/device-placement.md records the
output with the command that produced it.

usage: e3.py <dsm-opt> [--seeds N] [--pipeline-seeds N] [--versions ...]
             [--json FILE]

--json also writes the tables as JSON, which tools/dsm-bench/plot_studies.py
draws as the thesis's E3 bars (e3-step-times.png, .svg).
"""
import argparse, json, math, os, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
MODELS = ["alexnet", "resnet50", "inception_v3"]
SEARCHES = ["hc", "sa", "ga", "map-elites"]
# Student t quantiles (0.975) for n - 1 degrees of freedom.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
        7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


def system(version, model):
    if version == "normal":
        return "malvik"
    if version == "limited":
        return os.path.join(HERE, f"malvik-4gpu-limited-{model}.yaml")
    return os.path.join(HERE, "malvik-4gpu.yaml")


def place(opt, version, model, search, seed, evaluations):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        options = [f"system={system(version, model)}", f"placement={search}",
                   f"evaluations={evaluations}", f"seed={seed}",
                   f"report={report.name}", "format=json"]
        if version == "pipelined":
            options += ["batches=4", "simulated-batches=10"]
        subprocess.run([opt, "--mlir-disable-threading",
                        "--dsm-set-batch=batch=64",
                        "--dsm-place-devices=" + " ".join(options),
                        os.path.join(ROOT, "models", model + ".mlir"),
                        "-o", os.devnull], check=True,
                       stderr=subprocess.DEVNULL)
        with open(report.name) as f:
            return json.load(f)


def interval(values):
    mean = statistics.mean(values)
    if len(values) < 2:
        return mean, 0.0
    half = T975.get(len(values) - 1, 1.96) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, half


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dsm_opt")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--pipeline-seeds", type=int, default=3)
    parser.add_argument("--evaluations", type=int, default=20000)
    parser.add_argument("--versions", nargs="*",
                        default=["normal", "limited", "pipelined"])
    parser.add_argument("--json", help="also write the tables here")
    args = parser.parse_args()
    # Opened first: a bad path fails before an hour of searching.
    out = open(args.json, "w") if args.json else None
    tables = []
    for version in args.versions:
        table = {"version": version, "rows": []}
        tables.append(table)
        seeds = args.pipeline_seeds if version == "pipelined" else args.seeds
        print(f"\n== {version}: {seeds} seeds, {args.evaluations} evaluations "
              "(step time ms, mean +- 95% interval; fits: runs whose best "
              "fits in memory)")
        print(f"{'model':<13} {'search':<14} {'step ms':>10} {'+-':>8} "
              f"{'fits':>5} {'devices':>7} {'eval/s':>8} {'Mevents/s':>9}")
        for model in MODELS:
            single = place(args.dsm_opt, version, model, "single-device", 1, 1)
            one_gpu = place(args.dsm_opt, "normal", model, "single-device", 1, 1)
            print(f"{model:<13} {'single-device':<14} "
                  f"{single['step_time_ms']:>10.3f} {'':>8} "
                  f"{int(single['fits_memory']):>5} {'':>7} {'':>8} {'':>9}"
                  f"   (one V100 unlimited: {one_gpu['step_time_ms']:.3f})")
            table["rows"].append({"network": model, "label": "single-device",
                                  "step_ms": single["step_time_ms"],
                                  "half": 0.0,
                                  "fits": int(single["fits_memory"]),
                                  "runs": 1})
            for search in SEARCHES:
                runs = [place(args.dsm_opt, version, model, search, seed,
                              args.evaluations) for seed in range(1, seeds + 1)]
                mean, half = interval([r["step_time_ms"] for r in runs])
                fits = sum(r["fits_memory"] for r in runs)
                used = statistics.mean(
                    sum(1 for d in r["devices"] if d["ops"]) for r in runs)
                rate = statistics.mean(r["search"]["evaluations_per_second"] for r in runs)
                events = statistics.mean(r["search"]["events_per_second"] for r in runs)
                print(f"{model:<13} {search:<14} {mean:>10.3f} {half:>8.3f} "
                      f"{fits:>3}/{len(runs):<1} {used:>7.1f} {rate:>8.0f} "
                      f"{events / 1e6:>9.1f}")
                table["rows"].append({"network": model, "label": search,
                                      "step_ms": mean, "half": half,
                                      "fits": fits, "runs": len(runs)})
            sys.stdout.flush()
    if out:
        json.dump({"e3": {"evaluations": args.evaluations,
                          "versions": tables}}, out, indent=2)
        out.write("\n")
        out.close()


if __name__ == "__main__":
    main()
