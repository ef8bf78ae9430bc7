"""A small builder that writes dsm-dialect MLIR with the real shapes.

The zoo generators (models/generate.py) describe networks layer by layer the
way torchvision, GNMT and BERT define them; this module tracks shapes (so the
result types it writes are right), names layers with `loc("...")` (the names
reports use) and prints the function. No third-party package is needed.

Conventions (docs/models.md): activations are NCHW (CNNs), time-major
[T, N, F] (LSTMs) or [N, T, F] (transformers); the batch is written as 1 and
changed with `dsm-opt --dsm-set-batch=batch=N`; reshapes write the batch as 0
("copy") so they stay valid at any batch.
"""

import math
import re


class Value:
    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = list(shape)
        self.dtype = dtype

    @property
    def type(self):
        dims = "x".join(str(d) for d in self.shape)
        return f"tensor<{dims}x{self.dtype}>" if dims else f"tensor<{self.dtype}>"


def _array(values):
    return "array<i64: " + ", ".join(str(v) for v in values) + ">"


def _f64(value):
    """An f64 attribute. MLIR float literals need a '.' (1.0e-12, not 1e-12)."""
    text = repr(float(value))
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}{e}{exponent} : f64"


def _attrs(items):
    """Formats an attribute dictionary: None values are skipped, True values
    are unit attributes (printed as the bare name)."""
    parts = [k if v is True else f"{k} = {v}" for k, v in items if v is not None]
    return " {" + ", ".join(parts) + "}" if parts else ""


class Graph:
    def __init__(self, func_name, dtype="f32", doc=""):
        self.func_name = func_name
        self.dtype = dtype
        self.doc = doc
        self.args = []       # (Value, attrs)
        self.lines = []
        self.counter = 0
        self.weights = set()
        # Dropout's probability in training (None: the model has none): the
        # function's dsm.dropout, for the masks a training step keeps.
        self.dropout = None

    # -- values -------------------------------------------------------------
    def _new(self, shape, dtype=None):
        v = Value(f"%{self.counter}", shape, dtype or self.dtype)
        self.counter += 1
        return v

    def arg(self, shape, dtype=None, batch_dim=0):
        v = Value(f"%arg{len(self.args)}", shape, dtype or self.dtype)
        attrs = "" if batch_dim == 0 else f" {{dsm.batch_dim = {batch_dim} : i64}}"
        self.args.append((v, attrs))
        return v

    def constant(self, values, shape, dtype=None, name=None):
        """An `arith.constant`: a fixed tensor that is not a parameter (a
        `dsm.weight` operand counts as one). `values` is a scalar (splat) or
        a nested list matching `shape`."""
        v = self._new(shape, dtype)
        loc = f' loc("{name}")' if name else ""
        self.lines.append(f"{v.name} = arith.constant dense<{values!r}> : {v.type}{loc}")
        return v

    def weight(self, name, shape):
        if name in self.weights:
            raise ValueError(f"duplicate weight {name}")
        self.weights.add(name)
        v = self._new(shape)
        self.lines.append(f'{v.name} = dsm.weight "{name}" : {v.type}')
        return v

    def _op(self, op, operands, shape, attrs=(), name=None, fmt="functional"):
        out = self._new(shape)
        ops = ", ".join(o.name for o in operands)
        a = _attrs(attrs)
        if fmt == "functional":
            types = f"({', '.join(o.type for o in operands)}) -> {out.type}"
        else:  # the unary form: `: type`
            types = operands[0].type
        loc = f' loc("{name}")' if name else ""
        self.lines.append(f"{out.name} = dsm.{op} {ops}{a} : {types}{loc}")
        return out

    # -- primary computations ---------------------------------------------
    def conv(self, x, cout, kernel, stride=1, pad=0, groups=1, bias=True,
             name=None, dilation=1):
        n, cin, h, w = x.shape
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        sh, sw = (stride, stride) if isinstance(stride, int) else stride
        if isinstance(pad, int):
            pads = [pad, pad, pad, pad]
        elif len(pad) == 2:
            pads = [pad[0], pad[1], pad[0], pad[1]]
        else:
            pads = list(pad)
        dh, dw = (dilation, dilation) if isinstance(dilation, int) else dilation
        oh = (h + pads[0] + pads[2] - ((kh - 1) * dh + 1)) // sh + 1
        ow = (w + pads[1] + pads[3] - ((kw - 1) * dw + 1)) // sw + 1
        wt = self.weight(f"{name}.weight", [cout, cin // groups, kh, kw])
        operands = [x, wt]
        if bias:
            operands.append(self.weight(f"{name}.bias", [cout]))
        attrs = [
            ("strides", _array([sh, sw]) if (sh, sw) != (1, 1) else None),
            ("padding", _array(pads) if any(pads) else None),
            ("dilations", _array([dh, dw]) if (dh, dw) != (1, 1) else None),
            ("groups", f"{groups} : i64" if groups != 1 else None),
        ]
        return self._op("conv2d", operands, [n, cout, oh, ow], attrs, name)

    def fc(self, x, out, bias=True, name=None, weight=None):
        """`weight` shares a declared [out, in] weight (GPT-2's output
        projection is the token embedding table)."""
        wt = weight or self.weight(f"{name}.weight", [out, x.shape[-1]])
        operands = [x, wt]
        if bias:
            operands.append(self.weight(f"{name}.bias", [out]))
        return self._op("fully_connected", operands, x.shape[:-1] + [out], (), name)

    def matmul(self, a, b, transpose_rhs=False, name=None):
        n = b.shape[-2] if transpose_rhs else b.shape[-1]
        return self._op("matmul", [a, b], a.shape[:-1] + [n],
                        [("transpose_rhs", True if transpose_rhs else None)], name)

    def lstm(self, x, hidden, bidirectional=False, bias=True, name=None):
        t, n, f = x.shape
        d = 2 if bidirectional else 1
        operands = [x, self.weight(f"{name}.weight_ih", [d, 4 * hidden, f]),
                    self.weight(f"{name}.weight_hh", [d, 4 * hidden, hidden])]
        if bias:
            operands.append(self.weight(f"{name}.bias", [d, 8 * hidden]))
        return self._op("lstm", operands, [t, n, d * hidden],
                        [("bidirectional", True if bidirectional else None)], name)

    # -- auxiliary computations -------------------------------------------
    def unary(self, op, x, name=None):
        return self._op(op, [x], x.shape, (), name, fmt="unary")

    def relu(self, x, name=None):
        return self.unary("relu", x, name)

    def clamp(self, x, lo, hi, name=None):
        return self._op("clamp", [x], x.shape,
                        [("min", _f64(lo)), ("max", _f64(hi))],
                        name, fmt="unary")

    def softmax(self, x, axis=-1, name=None):
        attrs = [("axis", f"{axis} : i64" if axis != -1 else None)]
        return self._op("softmax", [x], x.shape, attrs, name, fmt="unary")

    def binary(self, op, a, b, name=None):
        rank = max(len(a.shape), len(b.shape))
        pa = [1] * (rank - len(a.shape)) + a.shape
        pb = [1] * (rank - len(b.shape)) + b.shape
        shape = [max(x, y) for x, y in zip(pa, pb)]
        return self._op(op, [a, b], shape, (), name)

    def add(self, a, b, name=None):
        return self.binary("add", a, b, name)

    def mul(self, a, b, name=None):
        return self.binary("mul", a, b, name)

    def div(self, a, b, name=None):
        return self.binary("div", a, b, name)

    def batch_norm(self, x, eps=1e-5, name=None):
        c = x.shape[1]
        ws = [self.weight(f"{name}.{p}", [c])
              for p in ("weight", "bias", "running_mean", "running_var")]
        return self._op("batch_norm", [x] + ws, x.shape,
                        [("epsilon", _f64(eps) if eps != 1e-5 else None)], name)

    def layer_norm(self, x, eps=1e-12, name=None):
        d = x.shape[-1]
        ws = [self.weight(f"{name}.{p}", [d]) for p in ("weight", "bias")]
        return self._op("layer_norm", [x] + ws, x.shape,
                        [("epsilon", _f64(eps))], name)

    def reduce(self, kind, x, axes, keep_dims=False, name=None):
        shape = [1 if i in axes else d for i, d in enumerate(x.shape)
                 if keep_dims or i not in axes]
        out = self._new(shape)
        keep = ", keep_dims" if keep_dims else ""
        loc = f' loc("{name}")' if name else ""
        self.lines.append(
            f"{out.name} = dsm.reduce <{kind}> {x.name} {{axes = "
            f"{_array(axes)}{keep}}} : ({x.type}) -> {out.type}{loc}")
        return out

    def opaque(self, origin, inputs, shape, ops_per_element, name=None):
        """Work dsm has no operation for (rsqrt), charged as
        `ops_per_element` auxiliary operations per result element."""
        out = self._new(shape)
        ops = ", ".join(i.name for i in inputs)
        types = ", ".join(i.type for i in inputs)
        loc = f' loc("{name}")' if name else ""
        self.lines.append(
            f'{out.name} = dsm.opaque "{origin}"({ops}) {{ops_per_element = '
            f"{_f64(ops_per_element)}}} : ({types}) -> {out.type}{loc}")
        return out

    def rms_norm(self, x, eps=1e-6, name=None):
        """RMSNorm (Zhang & Sennrich 2019) over the last dimension as
        Hugging Face's LlamaRMSNorm computes it: x * rsqrt(mean(x^2) + eps)
        * weight, with the learnable scale ([D], a parameter)."""
        w = self.weight(f"{name}.weight", [x.shape[-1]])
        return self._op("rms_norm", [x, w], x.shape,
                        [("epsilon", _f64(eps) if eps != 1e-6 else None)],
                        name)

    def pool(self, kind, x, kernel, stride=None, pad=0, ceil_mode=False, name=None):
        n, c, h, w = x.shape
        stride = stride or kernel
        pads = [pad] * 4
        def out(size):
            span = size + 2 * pad - kernel
            steps = -(-span // stride) if ceil_mode else span // stride
            if ceil_mode and steps * stride >= size + pad:
                steps -= 1
            return steps + 1
        attrs = [("kernel", _array([kernel, kernel])),
                 ("strides", _array([stride, stride]) if stride != 1 else None),
                 ("padding", _array(pads) if pad else None),
                 ("ceil_mode", True if ceil_mode else None)]
        return self._op(kind, [x], [n, c, out(h), out(w)], attrs, name)

    def max_pool(self, x, kernel, stride=None, pad=0, ceil_mode=False, name=None):
        return self.pool("max_pool", x, kernel, stride, pad, ceil_mode, name)

    def avg_pool(self, x, kernel, stride=None, pad=0, name=None):
        return self.pool("avg_pool", x, kernel, stride, pad, False, name)

    def global_avg_pool(self, x, name=None):
        n, c, _, _ = x.shape
        return self._op("global_avg_pool", [x], [n, c, 1, 1], (), name)

    def embedding(self, ids, vocab, dim, name=None, table=None):
        table = table or self.weight(f"{name}.weight", [vocab, dim])
        return self._op("embedding", [ids, table], ids.shape + [dim], (), name)

    # -- data movement ------------------------------------------------------
    def reshape(self, x, shape, name=None):
        """`shape` uses ONNX semantics: 0 copies, -1 infers."""
        resolved = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
        if -1 in resolved:
            known = math.prod(s for s in resolved if s != -1)
            resolved[resolved.index(-1)] = math.prod(x.shape) // known
        return self._op("reshape", [x], resolved, [("shape", _array(shape))], name)

    def flatten(self, x, name=None):
        return self.reshape(x, [0, -1], name)

    def transpose(self, x, perm, name=None):
        return self._op("transpose", [x], [x.shape[p] for p in perm],
                        [("permutation", _array(perm))], name)

    def concat(self, xs, axis, name=None):
        shape = list(xs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in xs)
        return self._op("concat", xs, shape, [("axis", f"{axis} : i64")], name)

    def slice(self, x, offsets, sizes, name=None):
        shape = [d - o if s == -1 else s for d, o, s in zip(x.shape, offsets, sizes)]
        return self._op("slice", [x], shape,
                        [("offsets", _array(offsets)), ("sizes", _array(sizes))], name)

    # -- output -------------------------------------------------------------
    # File name written into op locations ("vgg16.mlir":12:8), so that
    # diagnostics about a layer point at its line; set by generate.py.
    source_file = None

    def emit(self, results):
        results = results if isinstance(results, list) else [results]
        args = ", ".join(f"{v.name}: {v.type}{a}" for v, a in self.args)
        rtypes = ", ".join(r.type for r in results)
        if len(results) > 1:
            rtypes = f"({rtypes})"
        out = []
        for line in self.doc.strip().splitlines():
            out.append(f"// {line}".rstrip())
        out.append("// Generated by models/generate.py; do not edit.")
        attrs = ("" if self.dropout is None else
                 f" attributes {{dsm.dropout = {self.dropout} : f64}}")
        out.append(f"func.func @{self.func_name}({args}) -> {rtypes}{attrs} {{")
        out.extend("  " + l for l in self.lines)
        out.append(f"  return {', '.join(r.name for r in results)} : "
                   f"{', '.join(r.type for r in results)}")
        out.append("}")
        file = self.source_file or f"{self.func_name}.mlir"
        for number, line in enumerate(out, start=1):
            # A named op: its location is the name at the op's own position.
            match = re.search(r' loc\("([^"]*)"\)$', line)
            if match:
                column = line.index(" = ") + 4 if " = " in line else 3
                out[number - 1] = (line[:match.start()] +
                                   f' loc("{match.group(1)}"("{file}":{number}:{column}))')
        return "\n".join(out) + "\n"
