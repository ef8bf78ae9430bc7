#!/usr/bin/env python3
"""Scaling benchmark: compile time and peak memory of --dsm-map-system against
the depth of generated networks, with the fitted growth exponent.

Families (docs/scaling.md):
  plain        FC + ReLU blocks, no skips
  residual     FC + ReLU + residual add
  transformer  encoder blocks (H=256, 4 heads, T=64): attention, FFN, LayerNorm
  nested       U-Net-style: a down path whose every output is added back on the
               way up, so the skips nest (N blocks, N/2 live at the deepest)

Each point is one process, training at minibatch 512 on dsm-8pf-asym with a
JSON report, timed with the process's own rusage (user + system CPU, peak
RSS). The exponent k fits time ~ N^k (least squares in log-log).

usage: scaling.py DSM_OPT [--quick | --guard K] [--family NAME ...]
                  [--depths N,N,...] [--repeat K] [--timeout S]
  --depths replaces the depths of every family chosen (e.g. --family
  transformer --depths 1000,3000,10000).
  --repeat runs each point K times and keeps the least CPU and wall time
  (on a machine shared with other work, the figures least disturbed by it)
  and the largest peak memory.
  --guard K is the CI check of compile time: each family at its two guard
  depths (large enough that the process's start-up does not hide the
  growth), least of 3 runs, and exit 1 when a family's time grows faster
  than N^K -- a ratio, so a loaded machine does not trip it -- or when a
  point takes more than --timeout seconds of wall time (default 120).
"""

import math
import os
import subprocess
import sys
import tempfile
import time

FC = "tensor<512x{h}xf32>"


def fc_chain(n, residual, h=256):
    t = FC.format(h=h)
    lines = [f"func.func @net(%x: {t}) -> {t} {{"]
    prev = "%x"
    for i in range(n):
        lines.append(f'  %w{i} = dsm.weight "w{i}" : tensor<{h}x{h}xf32>')
        lines.append(f"  %f{i} = dsm.fully_connected {prev}, %w{i} : ({t}, tensor<{h}x{h}xf32>) -> {t} loc(\"fc{i}\")")
        lines.append(f"  %r{i} = dsm.relu %f{i} : {t}")
        out = f"%r{i}"
        if residual:
            lines.append(f"  %a{i} = dsm.add %r{i}, {prev} : ({t}, {t}) -> {t}")
            out = f"%a{i}"
        prev = out
    lines.append(f"  return {prev} : {t}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def nested(n, h=64):
    """Down path of n/2 FC layers, up path of n/2 adding the mirrored output."""
    t = f"tensor<512x{h}xf32>"
    half = max(1, n // 2)
    lines = [f"func.func @net(%x: {t}) -> {t} {{"]
    prev = "%x"
    downs = []
    for i in range(half):
        lines.append(f'  %dw{i} = dsm.weight "down{i}" : tensor<{h}x{h}xf32>')
        lines.append(f"  %d{i} = dsm.fully_connected {prev}, %dw{i} : ({t}, tensor<{h}x{h}xf32>) -> {t} loc(\"down{i}\")")
        prev = f"%d{i}"
        downs.append(prev)
    for i in range(half):
        lines.append(f'  %uw{i} = dsm.weight "up{i}" : tensor<{h}x{h}xf32>')
        lines.append(f"  %u{i} = dsm.fully_connected {prev}, %uw{i} : ({t}, tensor<{h}x{h}xf32>) -> {t} loc(\"up{i}\")")
        skip = downs[half - 1 - i]
        lines.append(f"  %s{i} = dsm.add %u{i}, {skip} : ({t}, {t}) -> {t}")
        prev = f"%s{i}"
    lines.append(f"  return {prev} : {t}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def transformer(n, h=256, heads=4, seq=64, ffn=1024):
    d = h // heads
    act = f"tensor<1x{seq}x{h}xf32>"
    split = f"tensor<1x{seq}x{heads}x{d}xf32>"
    hs = f"tensor<1x{heads}x{seq}x{d}xf32>"
    scores = f"tensor<1x{heads}x{seq}x{seq}xf32>"
    mid = f"tensor<1x{seq}x{ffn}xf32>"
    lines = [f"func.func @net(%x: {act}) -> {act} {{",
             "  %scale = arith.constant dense<8.0> : tensor<f32>"]
    prev = "%x"

    def fc(name, src, cin, cout, tin, tout):
        lines.append(f'  %{name}_w = dsm.weight "{name}.w" : tensor<{cout}x{cin}xf32>')
        lines.append(f'  %{name}_b = dsm.weight "{name}.b" : tensor<{cout}xf32>')
        lines.append(f"  %{name} = dsm.fully_connected {src}, %{name}_w, %{name}_b : ({tin}, tensor<{cout}x{cin}xf32>, tensor<{cout}xf32>) -> {tout} loc(\"{name}\")")
        return f"%{name}"

    def norm(name, src):
        lines.append(f'  %{name}_g = dsm.weight "{name}.g" : tensor<{h}xf32>')
        lines.append(f'  %{name}_b = dsm.weight "{name}.b" : tensor<{h}xf32>')
        lines.append(f"  %{name} = dsm.layer_norm {src}, %{name}_g, %{name}_b : ({act}, tensor<{h}xf32>, tensor<{h}xf32>) -> {act}")
        return f"%{name}"

    for i in range(n):
        p = f"l{i}"
        heads_of = {}
        for proj in ("q", "k", "v"):
            y = fc(f"{p}{proj}", prev, h, h, act, act)
            lines.append(f"  %{p}{proj}s = dsm.reshape {y} {{shape = array<i64: 0, 0, {heads}, {d}>}} : ({act}) -> {split}")
            lines.append(f"  %{p}{proj}t = dsm.transpose %{p}{proj}s {{permutation = array<i64: 0, 2, 1, 3>}} : ({split}) -> {hs}")
            heads_of[proj] = f"%{p}{proj}t"
        lines.append(f"  %{p}sc = dsm.matmul {heads_of['q']}, {heads_of['k']} {{transpose_rhs}} : ({hs}, {hs}) -> {scores}")
        lines.append(f"  %{p}dv = dsm.div %{p}sc, %scale : ({scores}, tensor<f32>) -> {scores}")
        lines.append(f"  %{p}sm = dsm.softmax %{p}dv : {scores}")
        lines.append(f"  %{p}cx = dsm.matmul %{p}sm, {heads_of['v']} : ({scores}, {hs}) -> {hs}")
        lines.append(f"  %{p}ct = dsm.transpose %{p}cx {{permutation = array<i64: 0, 2, 1, 3>}} : ({hs}) -> {split}")
        lines.append(f"  %{p}cm = dsm.reshape %{p}ct {{shape = array<i64: 0, 0, {h}>}} : ({split}) -> {act}")
        o = fc(f"{p}o", f"%{p}cm", h, h, act, act)
        lines.append(f"  %{p}r1 = dsm.add {o}, {prev} : ({act}, {act}) -> {act}")
        n1 = norm(f"{p}n1", f"%{p}r1")
        f1 = fc(f"{p}f1", n1, h, ffn, act, mid)
        lines.append(f"  %{p}g = dsm.gelu {f1} : {mid}")
        f2 = fc(f"{p}f2", f"%{p}g", ffn, h, mid, act)
        lines.append(f"  %{p}r2 = dsm.add {f2}, {n1} : ({act}, {act}) -> {act}")
        prev = norm(f"{p}n2", f"%{p}r2")
    lines.append(f"  return {prev} : {act}")
    lines.append("}")
    return "\n".join(lines) + "\n"


FAMILIES = {
    "plain": (lambda n: fc_chain(n, False), [1000, 3000, 10000]),
    "residual": (lambda n: fc_chain(n, True), [1000, 3000, 10000]),
    "transformer": (transformer, [100, 300, 1000]),
    "nested": (nested, [1000, 3000, 10000]),
}
QUICK = {"plain": [300, 1000], "residual": [300, 1000],
         "transformer": [30, 100], "nested": [300, 1000]}
# Two depths a factor of 3 apart, each point well above the start-up time
# (about 25 ms) on the 2-core machine: a growth of N^1.3 between them is a
# factor of 4.2 where linear is 3.
GUARD = {"plain": [1000, 3000], "residual": [1000, 3000],
         "transformer": [100, 300], "nested": [1000, 3000]}


class TooSlow(Exception):
    pass


def run(dsm_opt, text, workdir, timeout=None):
    model = os.path.join(workdir, "model.mlir")
    report = os.path.join(workdir, "report.json")
    with open(model, "w") as f:
        f.write(text)
    # mb 512 trains everything; the 64-chip torus splits the batch 64 ways.
    cmd = [dsm_opt, model, "-o", os.devnull,
           "--dsm-map-system=system=dsm-8pf-asym mode=train batch=512 report=" + report]
    start = time.monotonic()
    errors = open(os.path.join(workdir, "stderr"), "w+")
    proc = subprocess.Popen(cmd, stderr=errors)
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG if timeout else 0)
        if pid:
            break
        if time.monotonic() - start > timeout:
            errors.close()
            proc.kill()
            os.wait4(proc.pid, 0)
            raise TooSlow(f"over {timeout:.0f} s")
        time.sleep(0.01)
    wall = time.monotonic() - start
    errors.seek(0)
    err = errors.read()
    errors.close()
    if status != 0:
        raise RuntimeError(f"dsm-opt failed ({status}): {err[:2000]}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024.0


def exponent(points):
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(t, 1e-6)) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    dsm_opt = argv[1]
    quick = "--quick" in argv
    chosen = [argv[i + 1] for i, a in enumerate(argv) if a == "--family"]
    given = [argv[i + 1] for i, a in enumerate(argv) if a == "--depths"]
    repeats = [int(argv[i + 1]) for i, a in enumerate(argv) if a == "--repeat"]
    repeat = max(1, repeats[-1]) if repeats else 1
    guards = [float(argv[i + 1]) for i, a in enumerate(argv) if a == "--guard"]
    guard = guards[-1] if guards else None
    timeouts = [float(argv[i + 1]) for i, a in enumerate(argv) if a == "--timeout"]
    timeout = timeouts[-1] if timeouts else (120.0 if guard else None)
    if guard and not repeats:
        repeat = 3
    failures = []
    print("family        blocks   cpu s   wall s   peak MB")
    summary = []
    with tempfile.TemporaryDirectory() as workdir:
        for family, (generate, depths) in FAMILIES.items():
            if chosen and family not in chosen:
                continue
            if quick:
                depths = QUICK[family]
            if guard:
                depths = GUARD[family]
            if given:
                depths = [int(d) for d in given[-1].split(",")]
            times, memory = [], []
            slow = False
            for n in depths:
                text = generate(n)
                try:
                    runs = [run(dsm_opt, text, workdir, timeout)
                            for _ in range(repeat)]
                except TooSlow as e:
                    print(f"{family:12s} {n:7d}   {e}", flush=True)
                    failures.append(f"{family}: {n} blocks took {e}")
                    slow = True
                    break
                cpu = min(r[0] for r in runs)
                wall = min(r[1] for r in runs)
                mb = max(r[2] for r in runs)
                times.append((n, cpu))
                memory.append((n, mb))
                print(f"{family:12s} {n:7d} {cpu:7.2f} {wall:8.2f} {mb:9.1f}", flush=True)
            if not slow:
                summary.append((family, exponent(times), exponent(memory)))
    print("\nfamily        time ~ N^k   memory ~ N^k")
    for family, kt, km in summary:
        print(f"{family:12s} {kt:10.2f} {km:14.2f}")
        if guard and kt > guard:
            failures.append(f"{family}: time grows as N^{kt:.2f}, "
                            f"more than N^{guard:g}")
    if guard:
        for failure in failures:
            print(f"scaling guard: {failure}", file=sys.stderr)
        print(f"scaling guard: {'FAILED' if failures else 'passed'} "
              f"(time at most N^{guard:g} per family)")
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
