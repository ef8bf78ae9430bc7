"""The same builder interface as dsmgraph.Graph, writing the program a
downstream compiler holds instead: linalg on tensors in the form torch-mlir
emits it (NCHW `linalg.conv_2d_nchw_fchw` after a `tensor.pad`, batch norm
and ReLU as `linalg.generic`, the classifier as a transposed weight and a
`linalg.matmul`), at batch 1. Weights are `arith.constant` tensors with
elided contents, as in torch-mlir dumps. Like a dump, it carries no layer
names: ops keep the file positions the parser gives them, which is what
`--dsm-export-shard` finds each layer's operation by (the importer names
layers conv2d_0, ...); the builder's `name=` arguments are accepted and
unused.

    python3 models/generate.py --linalg resnet50   # to stdout

Only what the ResNet and BERT generators use is here: conv, batch_norm,
relu, add, max_pool, global_avg_pool, flatten and fc for the ResNets;
embedding, layer_norm, softmax, gelu/tanh, reshape, transpose, matmul of two
activations, div and slice for BERT. test/Export/shard uses it to export
ResNet-50 and BERT-base and partition them with upstream `shard`.
"""

import math

from dsmgraph import Value

_MAP4 = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
_CHANNEL = "affine_map<(d0, d1, d2, d3) -> (d1)>"
_PAR, _RED = "parallel", "reduction"


def _map(rank, dims):
    """affine_map<(d0, .., d{rank-1}) -> (d{dims[0]}, ..)>"""
    loops = ", ".join(f"d{d}" for d in range(rank))
    return f"affine_map<({loops}) -> ({', '.join(f'd{d}' for d in dims)})>"


class LinalgGraph:
    def __init__(self, func_name, dtype="f32", doc=""):
        self.func_name = func_name
        self.dtype = dtype
        self.doc = doc
        self.args = []
        self.constants = []  # (name, type) of the weights, hoisted
        self.lines = []
        self.counter = 0

    def _name(self, prefix="v"):
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def _new(self, shape):
        return Value(self._name(), shape, self.dtype)

    def _weight(self, shape):
        v = Value(self._name("w"), shape, self.dtype)
        self.constants.append(
            f"{v.name} = arith.constant dense_resource<__elided__> : {v.type}")
        return v

    def _init(self, shape, fill):
        """An empty tensor filled with `fill` (the accumulator of a
        reduction)."""
        empty = self._new(shape)
        self.lines.append(f"{empty.name} = tensor.empty() : {empty.type}")
        filled = self._new(shape)
        self.lines.append(f"{filled.name} = linalg.fill ins({fill} : f32) "
                          f"outs({empty.name} : {empty.type}) -> {filled.type}")
        return filled

    def _pad(self, x, pads, value):
        top, left, bottom, right = pads
        if not any(pads):
            return x
        n, c, h, w = x.shape
        out = self._new([n, c, h + top + bottom, w + left + right])
        self.lines.append(
            f"{out.name} = tensor.pad {x.name} low[0, 0, {top}, {left}] "
            f"high[0, 0, {bottom}, {right}] {{\n"
            f"^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n"
            f"  tensor.yield {value} : f32\n"
            f"}} : {x.type} to {out.type}")
        return out

    def _elementwise(self, inputs, maps, body, shape, yielded="%r"):
        """A parallel linalg.generic over `shape` whose body is `body` (lines
        using %a0, %a1, ... for the inputs, yielding the last value %r);
        `maps` index the inputs."""
        out = self._new(shape)
        init = self._new(shape)
        self.lines.append(f"{init.name} = tensor.empty() : {init.type}")
        return self._structured(inputs, maps, init, [_PAR] * len(shape), body,
                             out, yielded)

    def _structured(self, inputs, maps, init, iterators, body, out,
                 yielded="%r"):
        """A linalg.generic writing `out` into `init` (read at the identity
        of the parallel loops), with `iterators` the loop kinds."""
        rank = len(iterators)
        result_map = _map(rank, [d for d in range(rank)
                                 if iterators[d] == _PAR])
        args = "".join(f"%a{k}: {i.dtype}, " for k, i in enumerate(inputs))
        ins = ", ".join(i.name for i in inputs)
        types = ", ".join(i.type for i in inputs)
        maps = ", ".join(maps + [result_map])
        kinds = ", ".join(f'"{k}"' for k in iterators)
        self.lines.append(
            f"{out.name} = linalg.generic {{indexing_maps = [{maps}], "
            f"iterator_types = [{kinds}]}} ins({ins} : {types}) "
            f"outs({init.name} : {init.type}) {{\n"
            f"^bb0({args}%o: {init.dtype}):\n" +
            "".join(f"  {l}\n" for l in body) +
            f"  linalg.yield {yielded} : {init.dtype}\n}} -> {out.type}")
        return out

    # -- the builder interface of dsmgraph.Graph ---------------------------
    def arg(self, shape, dtype=None, batch_dim=0):
        v = Value(f"%arg{len(self.args)}", shape, dtype or self.dtype)
        self.args.append(v)
        return v

    def conv(self, x, cout, kernel, stride=1, pad=0, groups=1, bias=True,
             name=None, dilation=1):
        if groups != 1 or dilation != 1 or bias:
            raise ValueError("LinalgGraph: only bias-free, ungrouped, "
                             "undilated convolutions")
        n, cin, h, w = x.shape
        padded = self._pad(x, [pad] * 4, "%zero")
        oh = (h + 2 * pad - kernel) // stride + 1
        ow = (w + 2 * pad - kernel) // stride + 1
        wt = self._weight([cout, cin, kernel, kernel])
        acc = self._init([n, cout, oh, ow], "%zero")
        out = self._new([n, cout, oh, ow])
        self.lines.append(
            f"{out.name} = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : "
            f"vector<2xi64>, strides = dense<{stride}> : vector<2xi64>}} "
            f"ins({padded.name}, {wt.name} : {padded.type}, {wt.type}) "
            f"outs({acc.name} : {acc.type}) -> {out.type}")
        return out

    def batch_norm(self, x, eps=1e-5, name=None):
        c = x.shape[1]
        gamma, beta, mean, var = (self._weight([c]) for _ in range(4))
        body = [f"%e = arith.constant {eps:.6e} : f32",
                "%s = arith.addf %a4, %e : f32",
                "%q = math.rsqrt %s : f32",
                "%d = arith.subf %a0, %a3 : f32",
                "%m = arith.mulf %d, %q : f32",
                "%g = arith.mulf %m, %a1 : f32",
                "%r = arith.addf %g, %a2 : f32"]
        return self._elementwise([x, gamma, beta, mean, var],
                                 [_MAP4] + [_CHANNEL] * 4, body, x.shape)

    def relu(self, x, name=None):
        body = ["%c = arith.cmpf ugt, %a0, %zero : f32",
                "%r = arith.select %c, %a0, %zero : f32"]
        return self._elementwise([x], [_MAP4], body, x.shape)

    def add(self, a, b, name=None):
        return self._binary(a, b, "addf")

    def max_pool(self, x, kernel, stride=None, pad=0, ceil_mode=False,
                 name=None):
        if ceil_mode:
            raise ValueError("LinalgGraph: no ceil_mode pooling")
        stride = stride or kernel
        n, c, h, w = x.shape
        padded = self._pad(x, [pad] * 4, "%ninf")
        oh = (h + 2 * pad - kernel) // stride + 1
        ow = (w + 2 * pad - kernel) // stride + 1
        acc = self._init([n, c, oh, ow], "%ninf")
        window = self._new([kernel, kernel])
        self.lines.append(f"{window.name} = tensor.empty() : {window.type}")
        out = self._new([n, c, oh, ow])
        self.lines.append(
            f"{out.name} = linalg.pooling_nchw_max {{dilations = dense<1> : "
            f"vector<2xi64>, strides = dense<{stride}> : vector<2xi64>}} "
            f"ins({padded.name}, {window.name} : {padded.type}, "
            f"{window.type}) outs({acc.name} : {acc.type}) -> "
            f"{out.type}")
        return out

    def global_avg_pool(self, x, name=None):
        n, c, h, w = x.shape
        acc = self._init([n, c, 1, 1], "%zero")
        window = self._new([h, w])
        self.lines.append(f"{window.name} = tensor.empty() : {window.type}")
        total = self._new([n, c, 1, 1])
        self.lines.append(
            f"{total.name} = linalg.pooling_nchw_sum {{dilations = dense<1> : "
            f"vector<2xi64>, strides = dense<1> : vector<2xi64>}} "
            f"ins({x.name}, {window.name} : {x.type}, {window.type}) "
            f"outs({acc.name} : {acc.type}) -> {total.type}")
        body = [f"%k = arith.constant {float(h * w):.6e} : f32",
                "%r = arith.divf %a0, %k : f32"]
        return self._elementwise([total], [_MAP4], body, total.shape)

    def flatten(self, x, name=None):
        rest = list(range(1, len(x.shape)))
        out = Value(self._name(), [x.shape[0], math.prod(x.shape[1:])],
                    self.dtype)
        self.lines.append(f"{out.name} = tensor.collapse_shape {x.name} "
                          f"[[0], {rest}] : {x.type} into {out.type}")
        return out

    def fc(self, x, out_features, bias=True, name=None):
        """nn.Linear: the weight [out, in] transposed, then `linalg.matmul`
        for [N, in] rows or, for [N, T, in], one generic contraction (the
        batch dimension stays a loop of its own), and a broadcast bias."""
        k = x.shape[-1]
        wt = self._weight([out_features, k])
        transposed = self._elementwise([wt], [_map(2, [1, 0])], [],
                                       [k, out_features], yielded="%a0")
        shape = x.shape[:-1] + [out_features]
        acc = self._init(shape, "%zero")
        out = self._new(shape)
        rank = len(shape)
        if rank == 2:
            self.lines.append(
                f"{out.name} = linalg.matmul ins({x.name}, {transposed.name} "
                f": {x.type}, {transposed.type}) outs({acc.name} : "
                f"{acc.type}) -> {out.type}")
        else:
            rows = list(range(rank - 1))
            self._structured(
                [x, transposed], [_map(rank + 1, rows + [rank]),
                                  _map(rank + 1, [rank, rank - 1])], acc,
                [_PAR] * rank + [_RED],
                ["%p = arith.mulf %a0, %a1 : f32",
                 "%r = arith.addf %o, %p : f32"], out)
        if not bias:
            return out
        return self._binary(out, self._weight([out_features]), "addf")

    # -- what BERT adds ---------------------------------------------------
    def constant(self, values, shape, dtype=None, name=None):
        """Fixed ids are a dense constant; a scalar (BERT's attention scale)
        stays a Python number, written into the body that uses it."""
        if not shape:
            return float(values)
        v = Value(self._name("c"), shape, dtype or self.dtype)
        self.constants.append(f"{v.name} = arith.constant dense<{values!r}> "
                              f": {v.type}")
        return v

    def embedding(self, ids, vocab, dim, name=None):
        """aten.embedding as torch-mlir writes it: a generic that gathers
        table rows with tensor.extract."""
        table = self._weight([vocab, dim])
        shape = ids.shape + [dim]
        rank = len(shape)
        body = [f"%i = arith.index_cast %a0 : {ids.dtype} to index",
                f"%j = linalg.index {rank - 1} : index",
                f"%r = tensor.extract {table.name}[%i, %j] : {table.type}"]
        return self._elementwise([ids], [_map(rank, range(rank - 1))], body,
                                 shape)

    def _binary(self, a, b, op):
        """`a op b`, b broadcast over the leading dimensions it lacks or has
        as 1."""
        rank = len(a.shape)
        offset = rank - len(b.shape)
        b_map = _map(rank, [offset + d for d, n in enumerate(b.shape)])
        if any(n == 1 and a.shape[offset + d] != 1
               for d, n in enumerate(b.shape)):
            raise ValueError("LinalgGraph: broadcast of a unit dimension")
        return self._elementwise([a, b], [_map(rank, range(rank)), b_map],
                                 [f"%r = arith.{op} %a0, %a1 : f32"], a.shape)

    def _scalar(self, x, op, value):
        rank = len(x.shape)
        return self._elementwise(
            [x], [_map(rank, range(rank))],
            [f"%k = arith.constant {value:.6e} : f32",
             f"%r = arith.{op} %a0, %k : f32"], x.shape)

    def div(self, a, b, name=None):
        if isinstance(b, float):
            return self._scalar(a, "divf", b)
        return self._binary(a, b, "divf")

    def _reduce_rows(self, x, body, fill):
        """A reduction over the last dimension (its result drops it)."""
        rank = len(x.shape)
        acc = self._init(x.shape[:-1], fill)
        reduced = self._new(x.shape[:-1])
        return self._structured([x], [_map(rank, range(rank))], acc,
                             [_PAR] * (rank - 1) + [_RED], body, reduced)

    def _broadcast_rows(self, x, y, op):
        """x op y, y [..] broadcast along x's last dimension."""
        rank = len(x.shape)
        return self._elementwise([x, y], [_map(rank, range(rank)),
                                          _map(rank, range(rank - 1))],
                                 [f"%r = arith.{op} %a0, %a1 : f32"], x.shape)

    def _mean_rows(self, x):
        total = self._reduce_rows(x, ["%r = arith.addf %a0, %o : f32"],
                                  "%zero")
        return self._scalar(total, "divf", float(x.shape[-1]))

    def layer_norm(self, x, eps=1e-12, name=None):
        """aten.layer_norm over the last dimension, decomposed as
        torch-mlir decomposes it: mean, centre, variance, rsqrt, scale and
        shift."""
        mean = self._mean_rows(x)
        centred = self._broadcast_rows(x, mean, "subf")
        square = self._binary(centred, centred, "mulf")
        var = self._mean_rows(square)
        rank = len(x.shape)
        inv = self._elementwise(
            [var], [_map(rank - 1, range(rank - 1))],
            [f"%e = arith.constant {eps:.6e} : f32",
             "%s = arith.addf %a0, %e : f32", "%r = math.rsqrt %s : f32"],
            var.shape)
        normed = self._broadcast_rows(centred, inv, "mulf")
        gamma, beta = self._weight([x.shape[-1]]), self._weight([x.shape[-1]])
        scaled = self._binary(normed, gamma, "mulf")
        return self._binary(scaled, beta, "addf")

    def softmax(self, x, axis=-1, name=None):
        """Softmax over the last dimension, as torch-mlir's decomposition
        writes it: subtract the max, exponentiate, divide by the sum."""
        if axis not in (-1, len(x.shape) - 1):
            raise ValueError("LinalgGraph: softmax over the last axis only")
        peak = self._reduce_rows(x, ["%r = arith.maximumf %a0, %o : f32"],
                                 "%ninf")
        shifted = self._broadcast_rows(x, peak, "subf")
        rank = len(x.shape)
        exp = self._elementwise([shifted], [_map(rank, range(rank))],
                                ["%r = math.exp %a0 : f32"], x.shape)
        total = self._reduce_rows(exp, ["%r = arith.addf %a0, %o : f32"],
                                  "%zero")
        return self._broadcast_rows(exp, total, "divf")

    def unary(self, op, x, name=None):
        rank = len(x.shape)
        bodies = {
            "gelu": ["%h = arith.constant 5.000000e-01 : f32",
                     "%one = arith.constant 1.000000e+00 : f32",
                     "%s = arith.constant 0.70710678118654757 : f32",
                     "%t = arith.mulf %a0, %s : f32",
                     "%f = math.erf %t : f32",
                     "%g = arith.addf %f, %one : f32",
                     "%m = arith.mulf %a0, %h : f32",
                     "%r = arith.mulf %m, %g : f32"],
            "tanh": ["%r = math.tanh %a0 : f32"]}
        return self._elementwise([x], [_map(rank, range(rank))], bodies[op],
                                 x.shape)

    def reshape(self, x, shape, name=None):
        """Only the splits and merges of adjacent dimensions BERT uses:
        expand_shape or collapse_shape."""
        shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
        groups, i = [], 0
        small, large = sorted([x.shape, shape], key=len)
        for n in small:
            group, size = [], 1
            while size < n or not group:
                group.append(i)
                size *= large[i]
                i += 1
            groups.append(group)
        out = Value(self._name(), shape, self.dtype)
        if len(shape) > len(x.shape):
            self.lines.append(f"{out.name} = tensor.expand_shape {x.name} "
                              f"{groups} output_shape {shape} : {x.type} "
                              f"into {out.type}")
        else:
            self.lines.append(f"{out.name} = tensor.collapse_shape {x.name} "
                              f"{groups} : {x.type} into {out.type}")
        return out

    def transpose(self, x, perm, name=None):
        """A generic that only moves data: out[i] = x[perm(i)]."""
        rank = len(x.shape)
        inverse = [perm.index(d) for d in range(rank)]
        return self._elementwise([x], [_map(rank, inverse)], [],
                                 [x.shape[p] for p in perm], yielded="%a0")

    def matmul(self, a, b, transpose_rhs=False, name=None):
        """A batched product of two activations [B.., M, K] x [B.., K, N]
        (or [B.., N, K]) as one generic contraction over the batch loops,
        as torch-mlir writes aten.matmul of 4-D tensors."""
        rank = len(a.shape)
        m, k = rank - 2, rank
        n = rank - 1
        batch = list(range(rank - 2))
        out_shape = a.shape[:-1] + [b.shape[-2] if transpose_rhs
                                    else b.shape[-1]]
        acc = self._init(out_shape, "%zero")
        out = self._new(out_shape)
        loops = rank + 1
        b_dims = batch + ([n, k] if transpose_rhs else [k, n])
        return self._structured(
            [a, b], [_map(loops, batch + [m, k]), _map(loops, b_dims)], acc,
            [_PAR] * rank + [_RED],
            ["%p = arith.mulf %a0, %a1 : f32", "%r = arith.addf %o, %p : f32"],
            out)

    def slice(self, x, offsets, sizes, name=None):
        sizes = [x.shape[d] if s == -1 else s for d, s in enumerate(sizes)]
        out = Value(self._name(), sizes, self.dtype)
        self.lines.append(
            f"{out.name} = tensor.extract_slice {x.name}{offsets}{sizes}"
            f"{[1] * len(sizes)} : {x.type} to {out.type}")
        return out

    def emit(self, results):
        results = results if isinstance(results, list) else [results]
        doc = "".join(f"// {line}\n".replace("// \n", "//\n")
                      for line in self.doc.strip().split("\n"))
        args = ", ".join(f"{a.name}: {a.type}" for a in self.args)
        names = ", ".join(r.name for r in results)
        types = ", ".join(r.type for r in results)
        body = ["%zero = arith.constant 0.000000e+00 : f32",
                "%ninf = arith.constant 0xFF800000 : f32"] + self.constants + \
            self.lines + [f"return {names} : {types}"]
        text = "".join("    " + l.replace("\n", "\n    ") + "\n" for l in body)
        signature = types if len(results) == 1 else f"({types})"
        return (f"{doc}// linalg on tensors, as torch-mlir writes it "
                f"(models/linalggraph.py).\nmodule {{\n  func.func "
                f"@{self.func_name}({args}) -> {signature} {{\n{text}  }}\n}}\n")


# -- decoder-only LLMs (models/generate.py gpt2, llama) ---------------------

def _amap(loops, results):
    dims = ", ".join(f"d{i}" for i in range(loops))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


def _parallel(loops):
    return ", ".join(['"parallel"'] * loops)


def _reassociation(small, large):
    """The groups of `large`'s dimensions that each dimension of `small`
    collapses (unit dimensions join the group before them)."""
    groups, j = [], 0
    for size in small:
        group, product = [], 1
        while j < len(large) and (product != size or not group):
            group.append(j)
            product *= large[j]
            j += 1
        while j < len(large) and large[j] == 1 and product == size and \
                len(groups) + 1 < len(small) and small[len(groups) + 1] != 1:
            group.append(j)
            j += 1
        groups.append(group)
    while j < len(large):
        groups[-1].append(j)
        j += 1
    return groups


class LinalgLlmGraph(LinalgGraph):
    """The builder interface generate.py's decoder-only LLMs use (gpt2,
    llama), writing linalg on tensors as torch-mlir emits it for Hugging
    Face's models at batch 1 (test/Import/Inputs/llama-*-linalg.mlir are
    one layer of it by hand):
    - nn.Linear (and GPT-2's Conv1D) on [N, T, in] as the transposed weight
      broadcast over the batch and `linalg.batch_matmul`, a bias as a
      following broadcast add;
    - embeddings as torch-mlir's gather: a `linalg.generic` extracting
      table[index_cast(id), linalg.index 2];
    - attention scores and context as 5-loop `linalg.generic` contractions,
      softmax as `linalg.softmax`;
    - layer norm and RMSNorm decomposed (sums, divisions, rsqrt, products);
      GELU (tanh approximation) and sigmoid as `linalg.generic` bodies.
    Scalar constants (the attention scale) are written into the bodies;
    integer constants (GPT-2's position ids) are function arguments, which
    dsm can hold once imported.
    """

    # -- helpers ------------------------------------------------------------
    def _generic(self, inputs, out_shape, body, iterators=None, init=None,
                 loops=None, out_map=None, names=None):
        """A linalg.generic over `loops` (default: one per output
        dimension). `inputs` are (Value, map results), `out_map` the
        result's (default: the identity); `body` lines read %a0, %a1, ..
        and %o and compute %r."""
        loops = loops or len(out_shape)
        out_map = out_map or [f"d{i}" for i in range(len(out_shape))]
        maps = [_amap(loops, m) for _, m in inputs] + [_amap(loops, out_map)]
        iterators = iterators or ["parallel"] * loops
        if init is None:
            init = self._new(out_shape)
            self.lines.append(f"{init.name} = tensor.empty() : {init.type}")
        out = self._new(out_shape)
        names = names or [f"%a{k}" for k in range(len(inputs))]
        args = "".join(f"{name}: {v.dtype}, "
                       for name, (v, _) in zip(names, inputs))
        ins = ", ".join(v.name for v, _ in inputs)
        types = ", ".join(v.type for v, _ in inputs)
        its = ", ".join(f'"{i}"' for i in iterators)
        self.lines.append(
            f"{out.name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
            f"iterator_types = [{its}]}} ins({ins} : {types}) "
            f"outs({init.name} : {init.type}) {{\n"
            f"^bb0({args}%o: f32):\n" + "".join(f"  {l}\n" for l in body) +
            f"  linalg.yield %r : f32\n}} -> {out.type}")
        return out

    def _broadcasting(self, values, body):
        """An elementwise generic over NumPy-broadcast `values`: unit
        dimensions that broadcast are indexed as 0, as torch-mlir does."""
        rank = max(len(v.shape) for v in values)
        shape = [1] * rank
        for v in values:
            for i, d in enumerate(v.shape):
                shape[rank - len(v.shape) + i] = max(
                    shape[rank - len(v.shape) + i], d)
        inputs, names, scalars = [], [], []
        for k, v in enumerate(values):
            if getattr(v, "scalar", None) is not None:
                # A scalar constant of the body, as torch-mlir writes one.
                scalars.append(f"%a{k} = arith.constant {v.scalar:.6e} : f32")
                continue
            lead = rank - len(v.shape)
            inputs.append((v, ["0" if d == 1 and shape[lead + i] != 1
                               else f"d{lead + i}"
                               for i, d in enumerate(v.shape)]))
            names.append(f"%a{k}")
        return self._generic(inputs, shape, scalars + body, names=names)

    def _reduce_last(self, x, body, fill):
        """`body` reducing the last dimension into a kept unit dimension."""
        n = len(x.shape)
        acc = self._init(x.shape[:-1] + [1], fill)
        return self._generic(
            [(x, [f"d{i}" for i in range(n)])], x.shape[:-1] + [1], body,
            iterators=["parallel"] * (n - 1) + ["reduction"], init=acc,
            loops=n, out_map=[f"d{i}" for i in range(n - 1)] + ["0"])

    def _mean_last(self, x):
        total = self._reduce_last(x, ["%r = arith.addf %a0, %o : f32"], "%zero")
        return self._generic(
            [(total, [f"d{i}" for i in range(len(total.shape))])], total.shape,
            [f"%k = arith.constant {float(x.shape[-1]):.6e} : f32",
             "%r = arith.divf %a0, %k : f32"])

    # -- the builder interface ---------------------------------------------
    def weight(self, name, shape):
        return self._weight(shape)

    def constant(self, values, shape, dtype=None, name=None):
        if dtype and dtype.startswith("i"):
            return self.arg(shape, dtype)
        # A scalar: written into the bodies that use it.
        v = Value(None, shape, dtype or self.dtype)
        v.scalar = float(values)
        return v

    def embedding(self, ids, vocab, dim, name=None, table=None):
        table = table or self._weight([vocab, dim])
        n = len(ids.shape)
        out = self._new(ids.shape + [dim])
        init = self._new(out.shape)
        self.lines.append(f"{init.name} = tensor.empty() : {init.type}")
        self.lines.append(
            f"{out.name} = linalg.generic {{indexing_maps = "
            f"[{_amap(n + 1, [f'd{i}' for i in range(n)])}, "
            f"{_amap(n + 1, [f'd{i}' for i in range(n + 1)])}], "
            f"iterator_types = [{_parallel(n + 1)}]}} "
            f"ins({ids.name} : {ids.type}) outs({init.name} : {init.type}) {{\n"
            f"^bb0(%id: {ids.dtype}, %o: f32):\n"
            f"  %i = arith.index_cast %id : {ids.dtype} to index\n"
            f"  %j = linalg.index {n} : index\n"
            f"  %r = tensor.extract {table.name}[%i, %j] : {table.type}\n"
            f"  linalg.yield %r : f32\n}} -> {out.type}")
        return out

    def fc(self, x, out_features, bias=True, name=None, weight=None):
        if len(x.shape) == 2:
            return super().fc(x, out_features, bias, name)
        n, t, k = x.shape
        wt = weight or self._weight([out_features, k])
        transposed = self._new([k, out_features])
        empty = self._new([k, out_features])
        self.lines.append(f"{empty.name} = tensor.empty() : {empty.type}")
        self.lines.append(
            f"{transposed.name} = linalg.transpose ins({wt.name} : {wt.type}) "
            f"outs({empty.name} : {empty.type}) permutation = [1, 0]")
        broadcast = self._new([n, k, out_features])
        empty = self._new([n, k, out_features])
        self.lines.append(f"{empty.name} = tensor.empty() : {empty.type}")
        self.lines.append(
            f"{broadcast.name} = linalg.broadcast ins({transposed.name} : "
            f"{transposed.type}) outs({empty.name} : {empty.type}) "
            f"dimensions = [0]")
        acc = self._init([n, t, out_features], "%zero")
        out = self._new([n, t, out_features])
        self.lines.append(
            f"{out.name} = linalg.batch_matmul ins({x.name}, {broadcast.name} "
            f": {x.type}, {broadcast.type}) outs({acc.name} : {acc.type}) -> "
            f"{out.type}")
        if not bias:
            return out
        return self._broadcasting([out, self._weight([out_features])],
                                  ["%r = arith.addf %a0, %a1 : f32"])

    def matmul(self, a, b, transpose_rhs=False, name=None):
        """[N, heads, M, K] x [N, heads, K, N'] (or [.., N', K]) as a
        5-loop linalg.generic contraction."""
        m = a.shape[2]
        cols = b.shape[2] if transpose_rhs else b.shape[3]
        shape = a.shape[:2] + [m, cols]
        acc = self._init(shape, "%zero")
        rhs = ["d0", "d1", "d3", "d4"] if transpose_rhs else \
            ["d0", "d1", "d4", "d3"]
        return self._generic(
            [(a, ["d0", "d1", "d2", "d4"]), (b, rhs)], shape,
            ["%p = arith.mulf %a0, %a1 : f32", "%r = arith.addf %o, %p : f32"],
            iterators=["parallel"] * 4 + ["reduction"], init=acc, loops=5)

    def reshape(self, x, shape, name=None):
        resolved = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
        if -1 in resolved:
            known = 1
            for s in resolved:
                known *= s if s != -1 else 1
            total = 1
            for s in x.shape:
                total *= s
            resolved[resolved.index(-1)] = total // known
        out = Value(self._name(), resolved, self.dtype)
        if len(resolved) >= len(x.shape):
            groups = _reassociation(x.shape, resolved)
            self.lines.append(
                f"{out.name} = tensor.expand_shape {x.name} {groups} "
                f"output_shape {resolved} : {x.type} into {out.type}")
        else:
            groups = _reassociation(resolved, x.shape)
            self.lines.append(
                f"{out.name} = tensor.collapse_shape {x.name} {groups} : "
                f"{x.type} into {out.type}")
        return out

    def transpose(self, x, perm, name=None):
        out = self._new([x.shape[p] for p in perm])
        empty = self._new(out.shape)
        self.lines.append(f"{empty.name} = tensor.empty() : {empty.type}")
        self.lines.append(
            f"{out.name} = linalg.transpose ins({x.name} : {x.type}) "
            f"outs({empty.name} : {empty.type}) permutation = "
            f"[{', '.join(map(str, perm))}]")
        return out

    def slice(self, x, offsets, sizes, name=None):
        sizes = [d - o if s == -1 else s
                 for d, o, s in zip(x.shape, offsets, sizes)]
        out = self._new(sizes)
        self.lines.append(
            f"{out.name} = tensor.extract_slice {x.name}{offsets} {sizes} "
            f"{[1] * len(sizes)} : {x.type} to {out.type}")
        return out

    def concat(self, xs, axis, name=None):
        shape = list(xs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in xs)
        out = self._new(shape)
        self.lines.append(
            f"{out.name} = tensor.concat dim({axis}) "
            f"{', '.join(x.name for x in xs)} : "
            f"({', '.join(x.type for x in xs)}) -> {out.type}")
        return out

    def softmax(self, x, axis=-1, name=None):
        axis = axis % len(x.shape)
        out = self._new(x.shape)
        empty = self._new(x.shape)
        self.lines.append(f"{empty.name} = tensor.empty() : {empty.type}")
        self.lines.append(
            f"{out.name} = linalg.softmax dimension({axis}) ins({x.name} : "
            f"{x.type}) outs({empty.name} : {empty.type}) -> {out.type}")
        return out

    def add(self, a, b, name=None):
        return self._broadcasting([a, b], ["%r = arith.addf %a0, %a1 : f32"])

    def mul(self, a, b, name=None):
        return self._broadcasting([a, b], ["%r = arith.mulf %a0, %a1 : f32"])

    def div(self, a, b, name=None):
        return self._broadcasting([a, b], ["%r = arith.divf %a0, %a1 : f32"])

    def unary(self, op, x, name=None):
        bodies = {
            # GPT-2's gelu_new: the tanh approximation.
            "gelu": ["%c = arith.constant 0.797884583 : f32",
                     "%k = arith.constant 4.471500e-02 : f32",
                     "%h = arith.constant 5.000000e-01 : f32",
                     "%one = arith.constant 1.000000e+00 : f32",
                     "%x2 = arith.mulf %a0, %a0 : f32",
                     "%x3 = arith.mulf %x2, %a0 : f32",
                     "%kx3 = arith.mulf %x3, %k : f32",
                     "%in = arith.addf %a0, %kx3 : f32",
                     "%s = arith.mulf %in, %c : f32",
                     "%t = math.tanh %s : f32",
                     "%t1 = arith.addf %t, %one : f32",
                     "%hx = arith.mulf %a0, %h : f32",
                     "%r = arith.mulf %hx, %t1 : f32"],
            "sigmoid": ["%one = arith.constant 1.000000e+00 : f32",
                        "%n = arith.negf %a0 : f32",
                        "%e = math.exp %n : f32",
                        "%d = arith.addf %e, %one : f32",
                        "%r = arith.divf %one, %d : f32"],
        }
        return self._broadcasting([x], bodies[op])

    def layer_norm(self, x, eps=1e-12, name=None):
        """torch-mlir's decomposed aten.native_layer_norm: mean, x - mean,
        its mean square, rsqrt(var + eps), then weight and bias."""
        d = x.shape[-1]
        centered = self._broadcasting([x, self._mean_last(x)],
                                      ["%r = arith.subf %a0, %a1 : f32"])
        square = self._broadcasting([centered],
                                    ["%r = arith.mulf %a0, %a0 : f32"])
        rstd = self._broadcasting(
            [self._mean_last(square)],
            [f"%e = arith.constant {eps:.6e} : f32",
             "%s = arith.addf %a0, %e : f32", "%r = math.rsqrt %s : f32"])
        normed = self.mul(centered, rstd)
        return self.add(self.mul(normed, self._weight([d])),
                        self._weight([d]))

    def rms_norm(self, x, eps=1e-6, name=None):
        """LlamaRMSNorm as torch-mlir writes it: powf, mean, addf eps and
        rsqrt, the normalization and the weight."""
        square = self._broadcasting(
            [x], ["%two = arith.constant 2.000000e+00 : f32",
                  "%r = math.powf %a0, %two : f32"])
        mean = self._mean_last(square)
        rstd = self._broadcasting(
            [mean], [f"%e = arith.constant {eps:.6e} : f32",
                     "%s = arith.addf %a0, %e : f32",
                     "%r = math.rsqrt %s : f32"])
        return self.mul(self._weight([x.shape[-1]]), self.mul(x, rstd))
    def emit(self, results):
        """Several results (a decode step's logits and updated caches)."""
        if not isinstance(results, list):
            return super().emit(results)
        tuple_type = f"({', '.join(r.type for r in results)})"
        ret = Value(", ".join(r.name for r in results), [], self.dtype)
        text = super().emit(ret)
        # The return lists every result and its type; so does the signature.
        ret_type = ret.type
        text = text.replace(f"return {ret.name} : {ret_type}",
                            f"return {ret.name} : "
                            f"{', '.join(r.type for r in results)}")
        return text.replace(f") -> {ret_type} {{", f") -> {tuple_type} {{")
