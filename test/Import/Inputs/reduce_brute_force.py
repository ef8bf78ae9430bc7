"""Reductions of any arity and permutation, against brute force.

Writes random reduction generics -- ranks 1 to 4 of loops, an input map
that is any permutation of them, any non-empty set of reduction loops, the
result keeping the reduced dimensions (as constant 0s) or dropping them, its
parallel loops in the input's order or in loop order, a sum or a max body --
imports them with dsm-opt (permissive: what is not recognised stays opaque)
and checks each against brute force: the generic evaluated point by point
over its iteration space on a random input, and the dsm.reduce it became
(axes, keep_dims, kind) evaluated with numpy. A recognised reduction must
agree exactly; an unrecognised one must be one that no dsm.reduce computes
(its parallel loops permuted). Prints a line per verdict and a total.

    python3 reduce_brute_force.py path/to/dsm-opt
"""

import itertools
import random
import re
import subprocess
import sys

import numpy as np

DSM_OPT = sys.argv[1]
rng = random.Random(7)
cases = []
for index in range(160):
    loops = rng.randint(1, 4)
    ranges = [rng.randint(1, 3) for _ in range(loops)]
    perm = list(range(loops))
    rng.shuffle(perm)  # input dimension i reads loop perm[i]
    reduced = set(rng.sample(range(loops), rng.randint(1, loops)))
    keep = rng.random() < 0.4
    kind = rng.choice(["sum", "max"])
    parallel_in_input_order = [l for l in perm if l not in reduced]
    if keep:
        out = [None if l in reduced else l for l in perm]  # input order
    elif rng.random() < 0.5:
        out = parallel_in_input_order
    else:
        out = [l for l in range(loops) if l not in reduced]  # loop order
    cases.append((index, ranges, perm, reduced, keep, kind, out))


def tensor(shape):
    return "tensor<%sf32>" % "".join("%dx" % d for d in shape)


def map_text(loops, results):
    dims = ", ".join("d%d" % i for i in range(loops))
    return "affine_map<(%s) -> (%s)>" % (
        dims, ", ".join("0" if r is None else "d%d" % r for r in results))


lines = []
for index, ranges, perm, reduced, keep, kind, out in cases:
    in_shape = [ranges[l] for l in perm]
    out_shape = [1 if r is None else ranges[r] for r in out]
    iterators = ", ".join('"reduction"' if l in reduced else '"parallel"'
                          for l in range(len(ranges)))
    init = "0.000000e+00" if kind == "sum" else "0xFF800000"
    body = "arith.addf" if kind == "sum" else "arith.maximumf"
    lines += [
        "func.func @case%d(%%x: %s) -> %s {" % (index, tensor(in_shape),
                                               tensor(out_shape)),
        "  %%init = arith.constant %s : f32" % init,
        "  %%e = tensor.empty() : %s" % tensor(out_shape),
        "  %%f = linalg.fill ins(%%init : f32) outs(%%e : %s) -> %s" % (
            tensor(out_shape), tensor(out_shape)),
        "  %%r = linalg.generic {indexing_maps = [%s, %s], iterator_types = "
        "[%s]} ins(%%x : %s) outs(%%f : %s) {" % (
            map_text(len(ranges), perm), map_text(len(ranges), out),
            iterators, tensor(in_shape), tensor(out_shape)),
        "  ^bb0(%a: f32, %acc: f32):",
        "    %%v = %s %%a, %%acc : f32" % body,
        "    linalg.yield %v : f32",
        "  } -> %s" % tensor(out_shape),
        "  return %%r : %s" % tensor(out_shape),
        "}",
    ]
imported = subprocess.run(
    [DSM_OPT, "--dsm-import-linalg=mode=permissive", "-"],
    input="\n".join(lines), capture_output=True, text=True, check=True).stdout

functions = {}
for name, text in re.findall(r"func\.func @(case\d+)\((.*?)\n  \}", imported,
                             re.S):
    functions[int(name[4:])] = text

recognised = opaque = 0
for index, ranges, perm, reduced, keep, kind, out in cases:
    in_shape = [ranges[l] for l in perm]
    out_shape = [1 if r is None else ranges[r] for r in out]
    x = np.random.default_rng(index).standard_normal(in_shape).astype(
        np.float32) if in_shape else np.float32(1.5)
    # Brute force: the generic, point by point.
    result = np.full(out_shape, 0.0 if kind == "sum" else -np.inf,
                     dtype=np.float64)
    for point in itertools.product(*[range(r) for r in ranges]):
        xi = tuple(point[l] for l in perm)
        oi = tuple(0 if r is None else point[r] for r in out)
        v = float(x[xi])
        result[oi] = result[oi] + v if kind == "sum" else max(result[oi], v)
    text = functions[index]
    m = re.search(r"dsm\.reduce <(\w+)> %arg0 \{axes = array<i64(?:: ([\d, ]*))?>"
                  r"(, keep_dims)?\}", text)
    if m:
        axes = tuple(int(a) for a in m.group(2).split(",")) if m.group(2) else ()
        reduce = np.sum if m.group(1) == "sum" else np.max
        dsm = reduce(x.astype(np.float64), axis=axes,
                     keepdims=bool(m.group(3)))
        ok = m.group(1) == kind and dsm.shape == result.shape and \
            np.allclose(dsm, result, rtol=1e-6, atol=1e-6)
        print("case%d %s: dsm.reduce <%s> axes %s%s" % (
            index, "agrees" if ok else "DISAGREES", m.group(1), list(axes),
            " keep_dims" if m.group(3) else ""))
        recognised += ok
        if not ok:
            sys.exit(1)
    elif "dsm.opaque" in text or "return %arg0" in text:
        # Only a reduction whose parallel loops the result permutes (dsm.reduce
        # keeps the input's order) may stay unrecognised.
        parallel = [l for l in perm if l not in reduced]
        kept = [r for r in out if r is not None]
        permuted = kept != parallel
        # A generic that reduces nothing but unit loops is a copy.
        print("case%d %s: %s" % (index, "expected" if permuted or
                                 "return %arg0" in text else "MISSED",
                                 "opaque" if "dsm.opaque" in text else "copy"))
        if not permuted and "return %arg0" not in text:
            sys.exit(1)
        opaque += 1
    else:
        print("case%d: UNEXPECTED\n%s" % (index, text))
        sys.exit(1)
print("%d recognised and checked, %d left opaque (permuted results)" % (
    recognised, opaque))
