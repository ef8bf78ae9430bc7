#!/usr/bin/env python3
"""Draws a study with plot_studies.py, headless, and checks each figure as
drawn: its title lies inside the figure, the bars' value labels, and the
bands (filled areas) of the lines that give a standard deviation.

usage: check_plot_figures.py plot_studies.py study.json figures/

Prints one line per figure: its name, whether the title fits, the bar
labels in drawing order, and the number of bands."""
import importlib.util
import json
import sys


def main(script, study_path, outdir):
    spec = importlib.util.spec_from_file_location("plot_studies", script)
    plot_studies = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot_studies)
    from matplotlib.collections import PolyCollection

    drawn = []
    close = plot_studies.plt.close

    # save() closes each figure after writing it: look at it then, as drawn.
    def inspect(fig=None):
        if not hasattr(fig, "bbox"):  # close("all") and the like
            return close(fig)
        box = fig.bbox
        extent = fig._suptitle.get_window_extent()
        fits = (extent.x0 >= box.x0 - 0.5 and extent.x1 <= box.x1 + 0.5 and
                extent.y0 >= box.y0 - 0.5 and extent.y1 <= box.y1 + 0.5)
        labels, bands = [], 0
        for ax in fig.axes:
            labels += [t.get_text() for t in ax.texts]
            bands += sum(1 for c in ax.collections
                         if isinstance(c, PolyCollection))
        drawn.append((fits, labels, bands))
        close(fig)

    plot_studies.plt.close = inspect
    with open(study_path) as f:
        written = plot_studies.plot(json.load(f), outdir)
    names = [p.rsplit("/", 1)[-1].rsplit(".", 1)[0] for p in written[::2]]
    for name, (fits, labels, bands) in zip(names, drawn):
        print(f"{name}: title {'inside' if fits else 'CLIPPED'}; "
              f"labels {' '.join(labels) or '-'}; bands {bands}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
