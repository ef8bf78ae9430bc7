#!/usr/bin/env python3
"""Draws DeepSpatialMatrix's figures from `dsm-study --json` as PNG and SVG.

    build/bin/dsm-study --quick --json study.json
    python3 tools/dsm-bench/plot_studies.py study.json figures/

writes into figures/ (created if missing), each as .png and .svg:
  fig11-training   Fig. 11a-c: each optimization in turn, speedup over DSM at
                   minibatch 256, grouped bars per minibatch, one panel per
                   network (utilization above each bar)
  fig11-inference  Fig. 11d-f: inference on one chip, speedup over DSM at the
                   same minibatch
  fig14-chips      Fig. 14: speedup against the chip count, DSM and all
                   optimizations
  fig15-scratchpad Fig. 15: utilization against the scratchpad capacity

and from `dsm-memory-study --json=memory.json` (memory placement, the EGRL
paper's speedup-against-iterations figure):
  memory-speedup   speedup over the compiler's map against iterations, a
                   line per search with a band of one standard deviation
                   over the seeds, the ILP's map as a flat line

and from `tools/dsm-bench/devices/e3.py ... --json e3.json` (device
placement, the thesis's experiment E3):
  e3-step-times    best step time per search and network, a panel per
                   version, with the 95% interval

Needs Debian's python3-matplotlib (DSM_WITH_PLOTS=1 scripts/install-deps.sh);
draws without a display. docs/spatial-mapping-results.md shows the commands.
"""
import argparse
import json
import os
import sys
import textwrap

try:
    import matplotlib
except ImportError:
    sys.exit("plot_studies.py: needs matplotlib (Debian: python3-matplotlib, "
             "DSM_WITH_PLOTS=1 scripts/install-deps.sh)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)

FORMATS = ("png", "svg")
NETWORK_TITLES = {"vgg16": "VGG16", "resnet50": "ResNet-50", "gnmt": "GNMT",
                  "resnet101": "ResNet-101", "bert_base_s128": "BERT-base",
                  "alexnet": "AlexNet", "inception_v3": "Inception-v3"}


class StudyError(Exception):
    """The JSON is not what dsm-study --json writes."""


def field(table, key, figure):
    if key not in table:
        raise StudyError(f"{figure}: missing '{key}'")
    return table[key]


def networks(rows):
    """The networks in the order the study lists them."""
    seen = []
    for row in rows:
        if row["network"] not in seen:
            seen.append(row["network"])
    return seen


def panels(count):
    fig, axes = plt.subplots(1, count, figsize=(4.2 * count, 3.6),
                             squeeze=False)
    return fig, axes[0]


def title(fig, text):
    """The figure's title, wrapped to the figure's width: one panel (a
    study of one model) is too narrow for it on one line."""
    # About 13 characters of 10-point text to the inch.
    fig.suptitle(textwrap.fill(text, max(30, int(fig.get_figwidth() * 13))),
                 fontsize=10)


def value_label(value):
    """A value above a bar: two decimals, or two significant digits for a
    small one, which two decimals would print as 0.00."""
    if value == 0 or abs(value) >= 0.01:
        return f"{value:.2f}"
    return f"{value:.2g}"


def save(fig, outdir, name, bottom=0.0):
    fig.tight_layout(rect=(0, bottom, 1, 1))
    written = []
    for fmt in FORMATS:
        path = os.path.join(outdir, f"{name}.{fmt}")
        fig.savefig(path, format=fmt, dpi=150)
        written.append(path)
    plt.close(fig)
    return written


def grouped_bars(table, figure, letters, outdir, name, heading):
    """One panel per network: a group of bars per minibatch, a bar per
    optimization added in turn."""
    bars = field(table, "bars", figure)
    rows = field(table, "rows", figure)
    nets = networks(rows)
    fig, axes = panels(len(nets))
    width = 0.8 / len(bars)
    for ax, net, letter in zip(axes, nets, letters):
        group = [r for r in rows if r["network"] == net]
        top = 0
        for b, label in enumerate(bars):
            xs = [i + (b - (len(bars) - 1) / 2) * width
                  for i in range(len(group))]
            heights = [field(r, "speedup", figure)[b] for r in group]
            top = max(top, max(heights))
            drawn = ax.bar(xs, heights, width, label=label)
            ax.bar_label(drawn, [value_label(r["utilization"][b])
                                 for r in group],
                         fontsize=6, rotation=90, padding=2)
        ax.set_xticks(range(len(group)))
        ax.set_xticklabels([str(r["minibatch"]) for r in group])
        ax.set_xlabel("minibatch")
        ax.set_ylabel("speedup")
        # GNMT's bars span two orders of magnitude.
        if top > 20:
            ax.set_yscale("log")
        ax.set_ylim(top=top * (3 if top > 20 else 1.25))
        ax.set_title(f"({letter}) {NETWORK_TITLES.get(net, net)}")
        ax.grid(axis="y", alpha=0.3)
    # Below the panels: the utilization labels fill the top of each.
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(bars),
               fontsize=8, frameon=False)
    title(fig, heading)
    return save(fig, outdir, name, bottom=0.07)


def lines(table, figure, xkey, ykey, outdir, name, heading, xlabel, ylabel,
          logx=False):
    """One panel per network, a line per configuration, with a band of one
    standard deviation either side where the row gives one ("std")."""
    xs = field(table, xkey, figure)
    rows = field(table, "rows", figure)
    nets = networks(rows)
    fig, axes = panels(len(nets))
    for ax, net in zip(axes, nets):
        # Lines often coincide (ResNet-50's +Mem-Opt and +DySM): the later
        # ones are dashed with smaller marks, so the earlier ones show.
        group = [r for r in rows if r["network"] == net]
        for i, row in enumerate(group):
            ys = field(row, ykey, figure)
            (line,) = ax.plot(xs, ys, label=row.get("label", ""),
                              marker="osD^v"[i % 5],
                              markersize=7 - 1.5 * (i % 3),
                              linestyle=("-", "--", ":")[i % 3])
            std = row.get("std")
            if std:
                if len(std) != len(ys):
                    raise StudyError(f"{figure}: {net} {row.get('label')}: "
                                     f"{len(std)} std values for {len(ys)}")
                ax.fill_between(xs, [y - d for y, d in zip(ys, std)],
                                [y + d for y, d in zip(ys, std)],
                                color=line.get_color(), alpha=0.2,
                                linewidth=0)
        if logx:
            ax.set_xscale("log", base=2)
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{x:g}" for x in xs])
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(NETWORK_TITLES.get(net, net))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    title(fig, heading)
    return save(fig, outdir, name)


def e3_bars(table, outdir):
    """One panel per version (normal, limited, pipelined): a group of bars
    per network, a bar per search, the single device first."""
    versions = field(table, "versions", "e3")
    fig, axes = panels(len(versions))
    for ax, version in zip(axes, versions):
        rows = field(version, "rows", "e3")
        nets = networks(rows)
        labels = []
        for row in rows:
            if row["label"] not in labels:
                labels.append(row["label"])
        width = 0.8 / len(labels)
        for b, label in enumerate(labels):
            xs, heights, errors = [], [], []
            for i, net in enumerate(nets):
                for row in rows:
                    if row["network"] == net and row["label"] == label:
                        xs.append(i + (b - (len(labels) - 1) / 2) * width)
                        heights.append(field(row, "step_ms", "e3"))
                        errors.append(row.get("half", 0.0))
            ax.bar(xs, heights, width, yerr=errors, capsize=2, label=label)
        ax.set_xticks(range(len(nets)))
        ax.set_xticklabels([NETWORK_TITLES.get(n, n) for n in nets],
                           fontsize=8)
        # Hill climbing lands an order of magnitude above the optimum.
        ax.set_yscale("log")
        ax.set_ylabel("best step time (ms)")
        ax.set_title(field(version, "version", "e3"))
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels),
               fontsize=8, frameon=False)
    title(fig, "Experiment E3: device placement on Malvik (training, "
          f"minibatch 64, {table.get('evaluations', '')} evaluations; "
          "mean over seeds, 95% interval)")
    return save(fig, outdir, "e3-step-times", bottom=0.07)


def plot(study, outdir):
    figures = {
        "fig11_training": lambda t: grouped_bars(
            t, "fig11_training", "abc", outdir, "fig11-training",
            "Each optimization in turn (training, "
            f"{t.get('system', '')}; speedup over "
            f"{t.get('speedup_over', '')}, utilization on the bars)"),
        "fig11_inference": lambda t: grouped_bars(
            t, "fig11_inference", "def", outdir, "fig11-inference",
            f"Inference on one chip ({t.get('system', '')}; speedup over "
            f"{t.get('speedup_over', '')}, utilization on the bars)"),
        "fig14_chips": lambda t: lines(
            t, "fig14_chips", "chips", "speedup", outdir, "fig14-chips",
            "Scaling with the chip count (training, minibatch 512; speedup "
            f"over {t.get('speedup_over', '')})", "chips", "speedup",
            logx=True),
        "fig15_scratchpad": lambda t: lines(
            t, "fig15_scratchpad", "capacity_mb", "utilization", outdir,
            "fig15-scratchpad",
            "Scratchpad capacity (training, minibatch 512, "
            f"{t.get('system', '')})", "scratchpad per core (MB)",
            "utilization", logx=True),
        "memory_speedup_by_iterations": lambda t: lines(
            t, "memory_speedup_by_iterations", "iterations", "speedup",
            outdir, "memory-speedup",
            f"Memory placement on {t.get('system', '')} (speedup over the "
            f"{t.get('speedup_over', '')}'s map, mean over seeds, the band "
            "one standard deviation)",
            "iterations", "speedup", logx=True),
        "e3": lambda t: e3_bars(t, outdir),
    }
    present = [key for key in figures
               if isinstance(study, dict) and key in study]
    if not present:
        raise StudyError("none of " + ", ".join(figures) +
                         " in the input: is it the JSON of dsm-study --json, "
                         "dsm-memory-study --json= or e3.py --json?")
    os.makedirs(outdir, exist_ok=True)
    written = []
    for key in present:
        written += figures[key](study[key])
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", help="the JSON of dsm-study --json")
    parser.add_argument("outdir", help="where the figures go")
    args = parser.parse_args()
    try:
        with open(args.study) as f:
            study = json.load(f)
        for path in plot(study, args.outdir):
            print(path)
    except (OSError, ValueError, KeyError, IndexError, StudyError) as error:
        print(f"plot_studies.py: {args.study}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
