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

Only what the CNN generators use is here (conv, batch_norm, relu, add,
max_pool, global_avg_pool, flatten, fc); test/Import/shard uses it to
export ResNet-50 and partition it with upstream `shard`.
"""

from dsmgraph import Value

_MAP4 = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
_CHANNEL = "affine_map<(d0, d1, d2, d3) -> (d1)>"
_PAR4 = '["parallel", "parallel", "parallel", "parallel"]'
_PAR2 = '["parallel", "parallel"]'


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

    def _elementwise(self, inputs, maps, body, shape):
        """A linalg.generic over NCHW whose body is `body` (lines using %a0,
        %a1, ... for the inputs, yielding the last value %r)."""
        out = self._new(shape)
        init = self._new(shape)
        self.lines.append(f"{init.name} = tensor.empty() : {init.type}")
        args = ", ".join(f"%a{k}: f32" for k in range(len(inputs)))
        ins = ", ".join(i.name for i in inputs)
        types = ", ".join(i.type for i in inputs)
        maps = ", ".join(maps + [_MAP4])
        self.lines.append(
            f"{out.name} = linalg.generic {{indexing_maps = [{maps}], "
            f"iterator_types = {_PAR4}}} ins({ins} : {types}) "
            f"outs({init.name} : {init.type}) {{\n"
            f"^bb0({args}, %o: f32):\n" + "".join(f"  {l}\n" for l in body) +
            f"  linalg.yield %r : f32\n}} -> {out.type}")
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
        return self._elementwise([a, b], [_MAP4, _MAP4],
                                 ["%r = arith.addf %a0, %a1 : f32"], a.shape)

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
        n, c, h, w = x.shape
        out = Value(self._name(), [n, c * h * w], self.dtype)
        self.lines.append(f"{out.name} = tensor.collapse_shape {x.name} "
                          f"[[0], [1, 2, 3]] : {x.type} into {out.type}")
        return out

    def fc(self, x, out_features, bias=True, name=None):
        n, k = x.shape
        wt = self._weight([out_features, k])
        transposed = self._new([k, out_features])
        empty = self._new([k, out_features])
        self.lines.append(f"{empty.name} = tensor.empty() : {empty.type}")
        self.lines.append(
            f"{transposed.name} = linalg.generic {{indexing_maps = "
            f"[affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> "
            f"(d0, d1)>], iterator_types = {_PAR2}}} ins({wt.name} : "
            f"{wt.type}) outs({empty.name} : {empty.type}) {{\n"
            f"^bb0(%a0: f32, %o: f32):\n  linalg.yield %a0 : f32\n"
            f"}} -> {transposed.type}")
        acc = self._init([n, out_features], "%zero")
        out = self._new([n, out_features])
        self.lines.append(
            f"{out.name} = linalg.matmul ins({x.name}, {transposed.name} : "
            f"{x.type}, {transposed.type}) outs({acc.name} : {acc.type}) -> "
            f"{out.type}")
        if not bias:
            return out
        b = self._weight([out_features])
        biased = self._new([n, out_features])
        init = self._new([n, out_features])
        self.lines.append(f"{init.name} = tensor.empty() : {init.type}")
        self.lines.append(
            f"{biased.name} = linalg.generic {{indexing_maps = "
            f"[affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> "
            f"(d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = "
            f"{_PAR2}}} ins({out.name}, {b.name} : {out.type}, {b.type}) "
            f"outs({init.name} : {init.type}) {{\n"
            f"^bb0(%a0: f32, %a1: f32, %o: f32):\n"
            f"  %r = arith.addf %a0, %a1 : f32\n  linalg.yield %r : f32\n"
            f"}} -> {biased.type}")
        return biased

    def emit(self, result):
        doc = "".join(f"// {line}\n".replace("// \n", "//\n")
                      for line in self.doc.strip().split("\n"))
        args = ", ".join(f"{a.name}: {a.type}" for a in self.args)
        body = ["%zero = arith.constant 0.000000e+00 : f32",
                "%ninf = arith.constant 0xFF800000 : f32"] + self.constants + \
            self.lines + [f"return {result.name} : {result.type}"]
        text = "".join("    " + l.replace("\n", "\n    ") + "\n" for l in body)
        return (f"{doc}// linalg on tensors, as torch-mlir writes it "
                f"(models/linalggraph.py).\nmodule {{\n  func.func "
                f"@{self.func_name}({args}) -> {result.type} {{\n{text}  }}\n}}\n")
