#!/usr/bin/env python3
"""Checks the study's JSON and the figures plot_studies.py drew from it.

usage: check_figures.py study.json figures/ name...

For the JSON: every table has one value per column in every row. For each
name: name.png is a PNG with a non-empty image and name.svg an SVG document
that draws something. Prints one line per checked file; exits 1 at the first
problem.
"""
import json
import os
import struct
import sys
import xml.etree.ElementTree as ET

TABLES = {"fig11_training": "bars", "fig11_inference": "bars",
          "fig14_chips": "chips", "fig15_scratchpad": "capacity_mb",
          "utilization_by_minibatch": "minibatches"}


def fail(message):
    print("error:", message)
    sys.exit(1)


def check_json(path):
    with open(path) as f:
        study = json.load(f)
    for key, columns in TABLES.items():
        table = study[key]
        width = len(table[columns])
        for row in table["rows"]:
            for series in ("speedup", "utilization"):
                if series in row and len(row[series]) != width:
                    fail(f"{key} {row['network']}: {len(row[series])} "
                         f"{series} values for {width} columns")
        print(f"json {key}: {len(table['rows'])} rows of {width}")


def check_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        fail(f"{path}: not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    if width < 100 or height < 100 or b"IEND" not in data[-12:]:
        fail(f"{path}: {width}x{height}, or truncated")
    print(f"png {os.path.basename(path)}: {width}x{height}")


def check_svg(path):
    root = ET.parse(path).getroot()
    if root.tag != "{http://www.w3.org/2000/svg}svg":
        fail(f"{path}: root element {root.tag}")
    paths = sum(1 for e in root.iter() if e.tag.endswith("}path"))
    if paths == 0:
        fail(f"{path}: draws nothing")
    print(f"svg {os.path.basename(path)}: drawn")


def main():
    check_json(sys.argv[1])
    for name in sys.argv[3:]:
        check_png(os.path.join(sys.argv[2], name + ".png"))
        check_svg(os.path.join(sys.argv[2], name + ".svg"))


if __name__ == "__main__":
    main()
