"""Checks that a screenshot of an HTML mapping report shows its charts: counts
the pixels of each cycle category's color (lib/Spatial/MappingReportHTML.cpp)
in a PNG that headless Chromium took. Pure Python (zlib): no imaging library.
With `stages`, counts the pipeline stages' colors on the torus instead, and
the timeline's colors of the passes.

usage: check_screenshot.py shot.png [min pixels per color] [stages]"""

import struct
import sys
import zlib

COLORS = {"useful": (0x2E, 0x7D, 0x32), "underuse": (0xA5, 0xD6, 0xA7),
          "ovldt_visible": (0x15, 0x65, 0xC0), "non_ovldt": (0xEF, 0x6C, 0x00),
          "aux_comp": (0x8E, 0x24, 0xAA)}
# kStageColors, kPassColors and kWaitColor.
STAGES = {f"stage{i}": tuple(int(c[k:k + 2], 16) for k in (1, 3, 5))
          for i, c in enumerate(["#1b9e77", "#d95f02", "#7570b3", "#e7298a",
                                 "#66a61e", "#e6ab02", "#a6761d", "#666666"])}
PASSES = {"fwd": (0x4F, 0xC3, 0xF7), "bwd": (0xF0, 0x62, 0x92),
          "upd": (0xFF, 0xD5, 0x4F), "wait": (0xBD, 0xBD, 0xBD)}


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 0xFF
        rows.append(line)
        prev = line
    return width, height, channels, rows


def main(argv):
    width, height, channels, rows = read_png(argv[1])
    least = int(argv[2]) if len(argv) > 2 else 50
    stages = len(argv) > 3 and argv[3] == "stages"
    colors = {**STAGES, **PASSES} if stages else COLORS
    counts = dict.fromkeys(colors, 0)
    for line in rows:
        for x in range(0, len(line), channels):
            pixel = tuple(line[x:x + 3])
            for name, color in colors.items():
                if all(abs(p - q) <= 2 for p, q in zip(pixel, color)):
                    counts[name] += 1
    print(f"{width}x{height}", " ".join(f"{k}={v}" for k, v in counts.items()))
    shown = [k for k, v in counts.items() if v >= least]
    if stages:
        print(f"{sum(1 for k in shown if k in STAGES)} stage colors;",
              "timeline rendered"
              if all(k in shown for k in ("fwd", "bwd", "upd", "wait"))
              else "timeline missing")
    else:
        print("charts rendered" if len(shown) >= 3 else "charts missing")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
