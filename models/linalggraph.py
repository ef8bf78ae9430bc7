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
activations, div and slice for BERT. test/Import/shard uses it to export
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
        return self._generic(inputs, maps, init, [_PAR] * len(shape), body,
                             out, yielded)

    def _generic(self, inputs, maps, init, iterators, body, out,
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
            self._generic(
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

    def _reduce_last(self, x, body, fill):
        """A reduction over the last dimension (its result drops it)."""
        rank = len(x.shape)
        acc = self._init(x.shape[:-1], fill)
        reduced = self._new(x.shape[:-1])
        return self._generic([x], [_map(rank, range(rank))], acc,
                             [_PAR] * (rank - 1) + [_RED], body, reduced)

    def _broadcast_last(self, x, y, op):
        """x op y, y [..] broadcast along x's last dimension."""
        rank = len(x.shape)
        return self._elementwise([x, y], [_map(rank, range(rank)),
                                          _map(rank, range(rank - 1))],
                                 [f"%r = arith.{op} %a0, %a1 : f32"], x.shape)

    def _mean_last(self, x):
        total = self._reduce_last(x, ["%r = arith.addf %a0, %o : f32"],
                                  "%zero")
        return self._scalar(total, "divf", float(x.shape[-1]))

    def layer_norm(self, x, eps=1e-12, name=None):
        """aten.layer_norm over the last dimension, decomposed as
        torch-mlir decomposes it: mean, centre, variance, rsqrt, scale and
        shift."""
        mean = self._mean_last(x)
        centred = self._broadcast_last(x, mean, "subf")
        square = self._binary(centred, centred, "mulf")
        var = self._mean_last(square)
        rank = len(x.shape)
        inv = self._elementwise(
            [var], [_map(rank - 1, range(rank - 1))],
            [f"%e = arith.constant {eps:.6e} : f32",
             "%s = arith.addf %a0, %e : f32", "%r = math.rsqrt %s : f32"],
            var.shape)
        normed = self._broadcast_last(centred, inv, "mulf")
        gamma, beta = self._weight([x.shape[-1]]), self._weight([x.shape[-1]])
        scaled = self._binary(normed, gamma, "mulf")
        return self._binary(scaled, beta, "addf")

    def softmax(self, x, axis=-1, name=None):
        """Softmax over the last dimension, as torch-mlir's decomposition
        writes it: subtract the max, exponentiate, divide by the sum."""
        if axis not in (-1, len(x.shape) - 1):
            raise ValueError("LinalgGraph: softmax over the last axis only")
        peak = self._reduce_last(x, ["%r = arith.maximumf %a0, %o : f32"],
                                 "%ninf")
        shifted = self._broadcast_last(x, peak, "subf")
        rank = len(x.shape)
        exp = self._elementwise([shifted], [_map(rank, range(rank))],
                                ["%r = math.exp %a0 : f32"], x.shape)
        total = self._reduce_last(exp, ["%r = arith.addf %a0, %o : f32"],
                                  "%zero")
        return self._broadcast_last(exp, total, "divf")

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
        return self._generic(
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
