#!/usr/bin/env python3
"""Writes the ONNX files that test dsm-translate --import-onnx.

    python3 models/onnx/export.py                 # everything
    python3 models/onnx/export.py snippets        # op snippets and error cases
    python3 models/onnx/export.py models          # torch exports (slow)
    python3 models/onnx/export.py transformers    # small ViT and encoder
    python3 models/onnx/export.py decoder         # position ids, causal mask
    python3 models/onnx/export.py --out DIR ...   # default test/Import/Inputs/onnx

Run it only to regenerate the checked-in files: it needs the Debian packages
python3-onnx (snippets) and python3-torch, python3-torchvision (models), none
of which the build or the tests use.

- Snippets: one small graph per supported operator (or operator family) and
  one per error case, written with onnx.helper. Their initializers keep their
  (tiny) data.
- Models: torchvision's ResNet-50 (224x224, batch 1) and BERT-base (written
  below in plain torch: hidden 768, 12 heads, FFN 3072, 12 layers, vocabulary
  30522, 512 positions, 2 token types, sequence 128, with pooler; at opset 17
  with a dynamic batch dimension and at opset 14 with batch 1) exported
  with torch.onnx.export, plus a small two-layer bidirectional LSTM. Before
  export every parameter and buffer is randomized: torch.onnx deduplicates
  initializers with equal values (freshly initialized normalization scales are
  all ones), which would merge distinct parameters. ResNet-50 is exported with
  TrainingMode.PRESERVE on an eval-mode model so that BatchNormalization nodes
  are kept (EVAL would fold them into the convolutions). After export the
  initializers are stripped: floating-point initializers with more than one
  element lose their data (name, dims and data_type stay), which is all the
  importer needs; integer initializers (shapes, position ids) and scalars
  keep theirs.
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(
    os.path.join(HERE, "..", "..", "test", "Import", "Inputs", "onnx"))

# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------


def strip(model):
    """Drops the data of floating-point initializers with more than one
    element, keeping name, dims and data_type."""
    from onnx import TensorProto

    floats = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16,
              TensorProto.DOUBLE, TensorProto.INT8}
    for init in model.graph.initializer:
        count = int(np.prod(init.dims)) if len(init.dims) else 1
        if init.data_type in floats and count > 1:
            for field in ("raw_data", "float_data", "double_data", "int32_data"):
                init.ClearField(field)
    model.doc_string = ("Initializer data stripped by models/onnx/export.py "
                        "(names, dims and types kept).")
    return model


class Snippets:
    """Builds and saves small models with onnx.helper."""

    def __init__(self, out):
        import onnx
        from onnx import helper
        self.onnx, self.helper = onnx, helper
        self.T = onnx.TensorProto
        self.out = out
        self.rng = np.random.default_rng(0)

    def vi(self, name, shape, elem=None):
        return self.helper.make_tensor_value_info(
            name, self.T.FLOAT if elem is None else elem, shape)

    def init(self, name, shape, elem=None, values=None):
        elem = self.T.FLOAT if elem is None else elem
        if values is None:
            values = self.rng.standard_normal(int(np.prod(shape))).astype(np.float32)
        values = np.asarray(values).flatten().tolist()
        return self.helper.make_tensor(name, elem, shape, values)

    def const(self, output, values, elem=None, shape=None, name=None):
        """A Constant node; integer lists default to INT64."""
        values = np.asarray(values)
        if elem is None:
            elem = self.T.INT64 if values.dtype.kind in "iu" else self.T.FLOAT
        shape = list(values.shape) if shape is None else shape
        tensor = self.helper.make_tensor(output + "_value", elem, shape,
                                         values.flatten().tolist())
        return self.helper.make_node("Constant", [], [output],
                                     name=name or output, value=tensor)

    def node(self, op, inputs, outputs, name, **attrs):
        return self.helper.make_node(op, inputs, outputs, name=name, **attrs)

    def save(self, file, nodes, inputs, outputs, inits=(), opset=17,
             value_info=(), ir_version=8, graph_name=None):
        graph = self.helper.make_graph(nodes, graph_name or file, inputs,
                                       outputs, list(inits),
                                       value_info=list(value_info))
        model = self.helper.make_model(
            graph, producer_name="models/onnx/export.py",
            opset_imports=[self.helper.make_opsetid("", opset)])
        model.ir_version = ir_version
        self.write(file, model.SerializeToString())
        return model

    def write(self, file, data):
        with open(os.path.join(self.out, file + ".onnx"), "wb") as f:
            f.write(data)


# ----------------------------------------------------------------------------
# Snippets: one per operator family
# ----------------------------------------------------------------------------


def write_snippets(out):
    s = Snippets(out)
    T = s.T

    # Conv: bias, strides, explicit pads, groups, dilations, auto_pad.
    s.save("conv", [
        s.node("Conv", ["x", "w1", "b1"], ["c1"], "conv1", strides=[2, 2],
               pads=[3, 3, 3, 3]),
        s.node("Conv", ["c1", "w2"], ["c2"], "depthwise", group=8,
               pads=[1, 1, 1, 1]),
        s.node("Conv", ["c2", "w3"], ["c3"], "dilated", dilations=[2, 2],
               auto_pad="SAME_UPPER"),
        s.node("Conv", ["c3", "w4"], ["y"], "valid", kernel_shape=[3, 3],
               auto_pad="VALID", strides=[2, 1]),
    ], [s.vi("x", [1, 3, 32, 32])], [s.vi("y", [1, 4, 7, 14])],
        [s.init("w1", [8, 3, 7, 7]), s.init("b1", [8]), s.init("w2", [8, 1, 3, 3]),
         s.init("w3", [16, 8, 3, 3]), s.init("w4", [4, 16, 3, 3])])

    # Gemm: Linear (transB = 1, bias), weight [in, out] with alpha and a
    # broadcast C, and a product of two activations.
    s.save("gemm", [
        s.node("Gemm", ["x", "fc.weight", "fc.bias"], ["h"], "fc", transB=1),
        s.node("Gemm", ["h", "w2", "c2"], ["g"], "scaled", alpha=0.5, beta=2.0),
        s.node("Gemm", ["g", "x2"], ["y"], "product", transA=1),
    ], [s.vi("x", [2, 16]), s.vi("x2", [2, 5])], [s.vi("y", [4, 5])],
        [s.init("fc.weight", [8, 16]), s.init("fc.bias", [8]),
         s.init("w2", [8, 4]), s.init("c2", [1, 4])])

    # MatMul: by a weight with a bias Add (a Linear layer on a 3-D input), by
    # a weight alone, by Transpose(weight) (unfolded export), and the
    # attention products Q K^T (with the K transpose) and P V.
    s.save("matmul", [
        s.node("MatMul", ["x", "wq"], ["q0"], "query/MatMul"),
        s.node("Add", ["query.bias", "q0"], ["q"], "query/Add"),
        s.node("MatMul", ["x", "wk"], ["k"], "key/MatMul"),
        s.node("Transpose", ["value.weight"], ["wvt"], "value/Transpose",
               perm=[1, 0]),
        s.node("MatMul", ["x", "wvt"], ["v"], "value/MatMul"),
        s.node("Transpose", ["k"], ["kt"], "key/Transpose", perm=[0, 2, 1]),
        s.node("MatMul", ["q", "kt"], ["scores"], "scores"),
        s.node("MatMul", ["scores", "v"], ["y"], "context"),
    ], [s.vi("x", [2, 6, 16])], [s.vi("y", [2, 6, 8])],
        [s.init("wq", [16, 8]), s.init("query.bias", [8]), s.init("wk", [16, 8]),
         s.init("value.weight", [8, 16])])

    # LSTM: forward with bias (Y squeezed, Y_h used) and bidirectional (Y
    # transposed and reshaped to [T, N, 2H] as torch.onnx writes it).
    s.save("lstm", [
        s.const("axes1", [1]),
        s.node("LSTM", ["x", "W1", "R1", "B1"], ["Y1", "Yh1"], "lstm1",
               hidden_size=8),
        s.node("Squeeze", ["Y1", "axes1"], ["h1"], "squeeze1"),
        s.node("LSTM", ["h1", "W2", "R2", "B2"], ["Y2"], "lstm2",
               hidden_size=4, direction="bidirectional"),
        s.node("Transpose", ["Y2"], ["t2"], "transpose2", perm=[0, 2, 1, 3]),
        s.const("shape2", [0, 0, -1]),
        s.node("Reshape", ["t2", "shape2"], ["y"], "reshape2"),
    ], [s.vi("x", [5, 2, 6])], [s.vi("y", [5, 2, 8]), s.vi("Yh1", [1, 2, 8])],
        [s.init("W1", [1, 32, 6]), s.init("R1", [1, 32, 8]), s.init("B1", [1, 64]),
         s.init("W2", [2, 16, 8]), s.init("R2", [2, 16, 4]), s.init("B2", [2, 32])])

    # Activations, including Gelu (opset 20) and the erf-GELU subgraph in
    # torch's form and in the x * 0.5 form.
    s.save("activations", [
        s.node("Relu", ["x"], ["r"], "relu"),
        s.node("Sigmoid", ["r"], ["sg"], "sigmoid"),
        s.node("Tanh", ["sg"], ["t"], "tanh"),
        s.const("zero", 0.0, shape=[]),
        s.const("six", 6.0, shape=[]),
        s.node("Clip", ["t", "zero", "six"], ["c"], "relu6"),
        s.node("HardSigmoid", ["c"], ["hs"], "hardsigmoid", alpha=1.0 / 6),
        s.node("HardSigmoid", ["hs"], ["hs2"], "hardsigmoid_onnx"),
        s.node("HardSwish", ["hs2"], ["hw"], "hardswish"),
        s.node("Clip", ["hw", "", "six"], ["y"], "clip_max"),
    ], [s.vi("x", [2, 3, 4])], [s.vi("y", [2, 3, 4])])
    s.save("gelu", [
        s.node("Gelu", ["x"], ["g"], "gelu"),
        # torch.onnx: x * (1 + erf(x / sqrt 2)) * 0.5
        s.const("sqrt2", 1.4142135381698608, shape=[]),
        s.node("Div", ["g", "sqrt2"], ["d"], "act1/Div"),
        s.node("Erf", ["d"], ["e"], "act1/Erf"),
        s.const("one", 1.0, shape=[]),
        s.node("Add", ["e", "one"], ["a"], "act1/Add"),
        s.node("Mul", ["g", "a"], ["m"], "act1/Mul"),
        s.const("half", 0.5, shape=[]),
        s.node("Mul", ["m", "half"], ["g1"], "act1/Mul_1"),
        # x * 0.5 * (1 + erf(x * 0.7071))
        s.node("Mul", ["g1", "half"], ["h2"], "act2/Half"),
        s.const("rsqrt2", 0.7071067690849304, shape=[]),
        s.node("Mul", ["g1", "rsqrt2"], ["d2"], "act2/Scale"),
        s.node("Erf", ["d2"], ["e2"], "act2/Erf"),
        s.node("Add", ["one", "e2"], ["a2"], "act2/Add"),
        s.node("Mul", ["h2", "a2"], ["g2"], "act2/Mul"),
        # Not GELU (the scale is 2): imported piece by piece.
        s.const("two", 2.0, shape=[]),
        s.node("Div", ["g2", "two"], ["d3"], "act3/Div"),
        s.node("Erf", ["d3"], ["e3"], "act3/Erf"),
        s.node("Add", ["e3", "one"], ["a3"], "act3/Add"),
        s.node("Mul", ["g2", "a3"], ["m3"], "act3/Mul"),
        s.node("Mul", ["m3", "half"], ["y"], "act3/Mul_1"),
    ], [s.vi("x", [2, 8])], [s.vi("y", [2, 8])], opset=20)

    # Pooling.
    s.save("pooling", [
        s.node("MaxPool", ["x"], ["m"], "maxpool", kernel_shape=[3, 3],
               strides=[2, 2], pads=[1, 1, 1, 1]),
        s.node("AveragePool", ["m"], ["a"], "avgpool", kernel_shape=[2, 2],
               strides=[2, 2], ceil_mode=1),
        s.node("GlobalAveragePool", ["a"], ["g"], "gap"),
        s.node("GlobalMaxPool", ["a"], ["gm"], "gmp"),
        s.node("Add", ["g", "gm"], ["y"], "sum"),
    ], [s.vi("x", [1, 4, 17, 17])], [s.vi("y", [1, 4, 1, 1])])

    # Normalization: BatchNormalization, LayerNormalization (opset 17) and
    # the decomposition torch.onnx writes for LayerNorm before opset 17.
    s.save("batchnorm", [
        s.node("BatchNormalization", ["x", "bn.weight", "bn.bias",
                                      "bn.running_mean", "bn.running_var"],
               ["y"], "bn", epsilon=1e-3),
    ], [s.vi("x", [2, 4, 5, 5])], [s.vi("y", [2, 4, 5, 5])],
        [s.init("bn.weight", [4]), s.init("bn.bias", [4]),
         s.init("bn.running_mean", [4]), s.init("bn.running_var", [4])])
    s.save("layernorm", [
        s.node("LayerNormalization", ["x", "ln.weight", "ln.bias"], ["y"], "ln",
               epsilon=1e-12),
    ], [s.vi("x", [2, 6, 16])], [s.vi("y", [2, 6, 16])],
        [s.init("ln.weight", [16]), s.init("ln.bias", [16])])
    s.save("layernorm-decomposed", [
        s.node("ReduceMean", ["x"], ["mean"], "ln/ReduceMean", axes=[-1]),
        s.node("Sub", ["x", "mean"], ["d"], "ln/Sub"),
        s.const("two", 2.0, shape=[]),
        s.node("Pow", ["d", "two"], ["sq"], "ln/Pow"),
        s.node("ReduceMean", ["sq"], ["var"], "ln/ReduceMean_1", axes=[-1]),
        s.const("eps", 1e-5, shape=[]),
        s.node("Add", ["var", "eps"], ["ve"], "ln/Add"),
        s.node("Sqrt", ["ve"], ["std"], "ln/Sqrt"),
        s.node("Div", ["d", "std"], ["n"], "ln/Div"),
        s.node("Mul", ["n", "ln.weight"], ["sc"], "ln/Mul"),
        s.node("Add", ["sc", "ln.bias"], ["y1"], "ln/Add_1"),
        # Without the affine part it is not a dsm.layer_norm: pieces.
        s.node("ReduceMean", ["y1"], ["m2"], "plain/ReduceMean", axes=[-1]),
        s.node("Sub", ["y1", "m2"], ["d2"], "plain/Sub"),
        s.node("Pow", ["d2", "two"], ["sq2"], "plain/Pow"),
        s.node("ReduceMean", ["sq2"], ["v2"], "plain/ReduceMean_1", axes=[-1]),
        s.node("Add", ["v2", "eps"], ["ve2"], "plain/Add"),
        s.node("Sqrt", ["ve2"], ["std2"], "plain/Sqrt"),
        s.node("Div", ["d2", "std2"], ["y"], "plain/Div"),
    ], [s.vi("x", [2, 6, 16])], [s.vi("y", [2, 6, 16])],
        [s.init("ln.weight", [16]), s.init("ln.bias", [16])], opset=13)

    # Softmax and reductions (axes as attribute before opset 18 except
    # ReduceSum, which takes them as an input from opset 13).
    s.save("softmax-reduce", [
        s.node("Softmax", ["x"], ["p"], "softmax"),
        s.node("Softmax", ["p"], ["p1"], "softmax_axis1", axis=1),
        s.node("ReduceMean", ["p1"], ["m"], "mean", axes=[1], keepdims=0),
        s.const("axes", [-1]),
        s.node("ReduceSum", ["m", "axes"], ["sum"], "sum"),
        s.node("ReduceMax", ["p1"], ["y"], "max", keepdims=0),
    ], [s.vi("x", [2, 3, 4])], [s.vi("y", []), s.vi("sum", [2, 1])])

    # Elementwise arithmetic with NumPy broadcasting.
    s.save("elementwise", [
        s.node("Add", ["x", "x2"], ["a"], "residual"),
        s.node("Add", ["a", "bias"], ["b"], "bias_add"),
        s.const("scale", 0.125, shape=[]),
        s.node("Mul", ["b", "scale"], ["m"], "scale"),
        s.node("Sub", ["m", "x2"], ["s"], "sub"),
        s.node("Div", ["s", "row"], ["y"], "div"),
    ], [s.vi("x", [2, 3, 4]), s.vi("x2", [2, 3, 4]), s.vi("row", [3, 1])],
        [s.vi("y", [2, 3, 4])], [s.init("bias", [4])])

    # Data movement.
    s.save("data-movement", [
        s.const("shape", [0, 4, -1]),
        s.node("Reshape", ["x", "shape"], ["r"], "reshape"),
        s.node("Transpose", ["r"], ["t"], "transpose", perm=[0, 2, 1]),
        s.node("Transpose", ["t"], ["t2"], "untranspose", perm=[0, 2, 1]),
        s.const("axes0", [0]),
        s.node("Unsqueeze", ["t2", "axes0"], ["u"], "unsqueeze"),
        s.node("Squeeze", ["u", "axes0"], ["q"], "squeeze"),
        s.node("Concat", ["q", "r"], ["c"], "concat", axis=1),
        s.const("starts", [1]), s.const("ends", [-1]), s.const("axes2", [2]),
        s.node("Slice", ["c", "starts", "ends", "axes2"], ["sl"], "slice"),
        s.const("split", [3, 5]),
        s.node("Split", ["c", "split"], ["p0", "p1"], "split", axis=1),
        s.node("Flatten", ["p1"], ["f"], "flatten", axis=1),
        s.const("idx", 0, shape=[]),
        s.node("Gather", ["p0", "idx"], ["g"], "first", axis=1),
        s.node("Gather", ["table", "ids"], ["e"], "embedding"),
    ], [s.vi("x", [2, 3, 8]), s.vi("ids", [2, 5], T.INT64)],
        [s.vi("sl", [2, 8, 4]), s.vi("f", [2, 30]), s.vi("g", [2, 6]),
         s.vi("e", [2, 5, 4])],
        [s.init("table", [10, 4])])

    # Shape subgraphs folded statically: x.view(x.size(0), x.size(1), 2, -1),
    # a mask from ConstantOfShape/Range/Equal/Where, Expand of a constant.
    s.save("shape-folding", [
        s.node("Shape", ["x"], ["shape"], "shape"),
        s.const("zero", 0, shape=[]), s.const("one", 1, shape=[]),
        s.node("Gather", ["shape", "zero"], ["n"], "gather_n"),
        s.node("Gather", ["shape", "one"], ["t"], "gather_t"),
        s.const("axes", [0]),
        s.node("Unsqueeze", ["n", "axes"], ["n1"], "unsqueeze_n"),
        s.node("Unsqueeze", ["t", "axes"], ["t1"], "unsqueeze_t"),
        s.const("rest", [2, -1]),
        s.node("Concat", ["n1", "t1", "rest"], ["target"], "concat", axis=0),
        s.node("Reshape", ["x", "target"], ["r"], "view"),
        s.node("ConstantOfShape", ["t1"], ["ones"], "ones",
               value=s.helper.make_tensor("v", T.INT64, [1], [1])),
        s.node("Range", ["zero", "t", "one"], ["pos"], "range"),
        s.node("Equal", ["pos", "ones"], ["first"], "equal"),
        s.const("neg", [-1.0]), s.const("pos_val", [0.0]),
        s.node("Where", ["first", "pos_val", "neg"], ["bias"], "where"),
        s.const("bias_shape", [1, 3, 1, 1]),
        s.node("Reshape", ["bias", "bias_shape"], ["b4"], "bias_view"),
        s.node("Cast", ["b4"], ["b4f"], "cast", to=T.FLOAT),
        s.node("Add", ["r", "b4f"], ["y"], "add_mask"),
    ], [s.vi("x", [2, 3, 8])], [s.vi("y", [2, 3, 2, 4])])

    # No-ops and casts.
    s.save("no-ops", [
        s.node("Identity", ["x"], ["i"], "identity"),
        s.node("Dropout", ["i"], ["d"], "dropout"),
        s.node("Cast", ["d"], ["c"], "same_type", to=T.FLOAT),
        s.node("Relu", ["c"], ["y"], "relu"),
        s.node("Cast", ["ids"], ["idsf"], "to_float", to=T.FLOAT),
    ], [s.vi("x", [2, 3]), s.vi("ids", [2, 3], T.INT64)],
        [s.vi("y", [2, 3]), s.vi("idsf", [2, 3])])

    # Operators without a dsm operation, imported as dsm.opaque in both modes.
    s.save("opaque-known", [
        s.node("Sqrt", ["x"], ["s"], "sqrt"),
        s.node("Erf", ["s"], ["e"], "erf"),
        s.const("three", 3.0, shape=[]),
        s.node("Pow", ["e", "three"], ["p"], "cube"),
        s.const("two", 2.0, shape=[]),
        s.node("Pow", ["p", "two"], ["y"], "square"),
    ], [s.vi("x", [2, 3])], [s.vi("y", [2, 3])])

    # An operator the importer does not know: an error in strict mode,
    # dsm.opaque in permissive mode (its output shape is in value_info).
    s.save("unknown-op", [
        s.node("Relu", ["x"], ["r"], "relu"),
        s.node("NonZeroish", ["r"], ["u"], "mystery"),
        s.node("Relu", ["u"], ["y"], "relu2"),
    ], [s.vi("x", [2, 3])], [s.vi("y", [4, 3])],
        value_info=[s.vi("u", [4, 3])])
    # ... and without value_info even permissive mode cannot size it.
    s.save("unknown-op-no-shape", [
        s.node("NonZeroish", ["x"], ["u"], "mystery"),
        s.node("Relu", ["u"], ["y"], "relu"),
    ], [s.vi("x", [2, 3])], [s.vi("y", None)])
    # A known operator used in a way dsm cannot express.
    s.save("unsupported-attr", [
        s.node("MaxPool", ["x"], ["y"], "dilated_pool", kernel_shape=[2, 2],
               dilations=[2, 2]),
    ], [s.vi("x", [1, 2, 8, 8])], [s.vi("y", [1, 2, 6, 6])])

    # Initializers without data (stripped) are declared all the same.
    m = s.save("stripped", [
        s.node("Gemm", ["x", "fc.weight", "fc.bias"], ["y"], "fc", transB=1),
    ], [s.vi("x", [1, 16])], [s.vi("y", [1, 8])],
        [s.init("fc.weight", [8, 16]), s.init("fc.bias", [8])])
    s.write("stripped", strip(m).SerializeToString())

    # Error cases.
    s.write("empty", b"")
    rng = np.random.default_rng(1)
    s.write("random", rng.integers(0, 256, 512, dtype=np.uint8).tobytes())
    with open(os.path.join(out, "conv.onnx"), "rb") as f:
        data = f.read()
    s.write("truncated", data[: len(data) // 2])
    s.save("dynamic", [s.node("Relu", ["x"], ["y"], "relu")],
           [s.vi("x", ["batch", 3])], [s.vi("y", ["batch", 3])])
    s.save("dynamic-seq", [s.node("Relu", ["x"], ["y"], "relu")],
           [s.vi("x", [1, "seq"])], [s.vi("y", [1, "seq"])])
    s.save("shape-mismatch", [
        s.node("Relu", ["x"], ["r"], "relu"),
        s.node("Relu", ["r"], ["y"], "relu2"),
    ], [s.vi("x", [2, 3])], [s.vi("y", [2, 3])], value_info=[s.vi("r", [3, 2])])
    s.save("undefined-input", [s.node("Relu", ["nowhere"], ["y"], "relu")],
           [s.vi("x", [2, 3])], [s.vi("y", [2, 3])])
    s.save("missing-input", [s.node("Gemm", ["x", ""], ["y"], "fc")],
           [s.vi("x", [2, 3])], [s.vi("y", [2, 3])])
    s.save("old-opset", [s.node("Relu", ["x"], ["y"], "relu")],
           [s.vi("x", [2, 3])], [s.vi("y", [2, 3])], opset=6)
    s.save("dynamic-reshape", [
        s.node("Reshape", ["x", "shape"], ["y"], "reshape"),
    ], [s.vi("x", [2, 3]), s.vi("shape", [2], T.INT64)], [s.vi("y", [3, 2])])
    s.save("bad-attribute", [
        s.node("Conv", ["x", "w"], ["y"], "conv",
               strides=[1.5, 1.5]),
    ], [s.vi("x", [1, 2, 4, 4])], [s.vi("y", [1, 2, 4, 4])],
        [s.init("w", [2, 2, 1, 1])])
    s.save("bad-shapes", [
        s.node("Conv", ["x", "w"], ["y"], "conv"),
    ], [s.vi("x", [1, 3, 4, 4])], [s.vi("y", [1, 2, 4, 4])],
        [s.init("w", [2, 2, 1, 1])])
    bad = s.init("w", [2, 2, 1, 1])
    bad.raw_data = b"\0" * 12
    del bad.float_data[:]
    s.save("bad-initializer", [s.node("Conv", ["x", "w"], ["y"], "conv")],
           [s.vi("x", [1, 2, 4, 4])], [s.vi("y", [1, 2, 4, 4])], [bad])
    shape = s.init("shape", [2], T.INT64, [3, 2])
    del shape.int64_data[:]
    s.save("stripped-shape", [s.node("Reshape", ["x", "shape"], ["y"], "reshape")],
           [s.vi("x", [2, 3])], [s.vi("y", [3, 2])], [shape])

    # 1-D windows (sequence models): Conv with bias and pads, MaxPool with
    # pads, a depthwise Conv, AveragePool. Last, so that the snippets above
    # keep their random initializers.
    s.save("conv1d", [
        s.node("Conv", ["x", "w1", "b1"], ["c1"], "conv1", pads=[1, 1]),
        s.node("MaxPool", ["c1"], ["m"], "maxpool", kernel_shape=[3],
               strides=[2], pads=[1, 1]),
        s.node("Conv", ["m", "w2"], ["c2"], "depthwise", group=8),
        s.node("AveragePool", ["c2"], ["y"], "avgpool", kernel_shape=[2],
               strides=[2]),
    ], [s.vi("x", [2, 4, 16])], [s.vi("y", [2, 8, 3])],
        [s.init("w1", [8, 4, 3]), s.init("b1", [8]), s.init("w2", [8, 1, 3])])

    # Resize (opset 13: X, roi, scales, sizes): nearest by scales (as
    # torch.onnx writes nn.Upsample), linear by sizes; opset 10 (X, scales)
    # cubic.
    s.save("resize", [
        s.const("scales", [1.0, 1.0, 2.0, 2.0]),
        s.node("Resize", ["x", "", "scales"], ["up"], "upsample",
               mode="nearest"),
        s.const("sizes", [1, 3, 24, 20]),
        s.node("Resize", ["up", "", "", "sizes"], ["y"], "bilinear",
               mode="linear"),
    ], [s.vi("x", [1, 3, 8, 8])], [s.vi("y", [1, 3, 24, 20])], opset=13)
    s.save("resize-opset10", [
        s.const("scales", [1.0, 1.0, 1.5, 1.0]),
        s.node("Resize", ["x", "scales"], ["y"], "bicubic", mode="cubic"),
    ], [s.vi("x", [1, 3, 8, 8])], [s.vi("y", [1, 3, 12, 8])], opset=10)
    # Resize error cases, one per diagnostic.
    x8, y8 = [s.vi("x", [1, 3, 8, 8])], [s.vi("y", [1, 3, 16, 16])]
    s.save("resize-bad-mode", [
        s.const("scales", [1.0, 1.0, 2.0, 2.0]),
        s.node("Resize", ["x", "", "scales"], ["y"], "resize", mode="area"),
    ], x8, y8, opset=13)
    s.save("resize-dynamic-scales", [
        s.node("Resize", ["x", "", "scales"], ["y"], "resize"),
    ], x8 + [s.vi("scales", [4])], y8, opset=13)
    s.save("resize-no-scales", [s.node("Resize", ["x"], ["y"], "resize")],
           x8, y8, opset=13)
    s.save("resize-sizes-count", [
        s.const("sizes", [16, 16]),
        s.node("Resize", ["x", "", "", "sizes"], ["y"], "resize"),
    ], x8, y8, opset=13)
    s.save("resize-scales-count", [
        s.const("scales", [2.0, 2.0]),
        s.node("Resize", ["x", "", "scales"], ["y"], "resize"),
    ], x8, y8, opset=13)
    s.save("resize-bad-axis", [
        s.const("sizes", [16, 16]),
        s.node("Resize", ["x", "", "", "sizes"], ["y"], "resize", axes=[2, 4]),
    ], x8, y8, opset=18)
    s.save("resize-empty", [
        s.const("scales", [1.0, 1.0, 0.05, 1.0]),
        s.node("Resize", ["x", "", "scales"], ["y"], "resize"),
    ], x8, [s.vi("y", [1, 3, 0, 8])], opset=13)
    s.save("resize-aspect", [
        s.const("sizes", [16, 16]),
        s.node("Resize", ["x", "", "", "sizes"], ["y"], "resize", axes=[2, 3],
               keep_aspect_ratio_policy="not_larger"),
    ], x8, y8, opset=18)

    write_breadth_snippets(s)


def write_breadth_snippets(s):
    """The operators no other snippet uses, and one model per claimed opset
    (7 to 22) in the spellings that opset requires."""
    T = s.T

    # Elementwise functions dsm has no operation for: each a dsm.opaque
    # charged per element (PRelu with a per-channel slope initializer).
    unary = ["Abs", "Neg", "Exp", "Log", "Ceil", "Floor", "Sin", "Cos",
             "Reciprocal", "Softplus", "Softsign", "Elu", "Selu",
             "LeakyRelu"]
    nodes, prev = [], "x"
    for op in unary:
        nodes.append(s.node(op, [prev], [op.lower()], op.lower()))
        prev = op.lower()
    nodes += [
        s.node("PRelu", [prev, "slope"], ["prelu"], "prelu"),
        s.node("Max", ["prelu", "x", "b"], ["max"], "max"),
        s.node("Min", ["max", "b"], ["y"], "min"),
    ]
    s.save("elementwise-opaque", nodes,
           [s.vi("x", [2, 3, 4]), s.vi("b", [4])], [s.vi("y", [2, 3, 4])],
           [s.init("slope", [4])])

    # Comparisons and logic feed a Where; Size of a static input folds into
    # the shape of a Reshape; ReduceMin over an attribute axis.
    s.save("logic", [
        s.node("Greater", ["x", "b"], ["gt"], "greater"),
        s.node("Less", ["x", "b"], ["lt"], "less"),
        s.node("GreaterOrEqual", ["x", "b"], ["ge"], "greater_or_equal"),
        s.node("LessOrEqual", ["x", "b"], ["le"], "less_or_equal"),
        s.node("And", ["gt", "ge"], ["and"], "and"),
        s.node("Or", ["lt", "le"], ["or"], "or"),
        s.node("Not", ["or"], ["not"], "not"),
        s.node("Or", ["and", "not"], ["cond"], "either"),
        s.node("Where", ["cond", "x", "b"], ["w"], "where"),
        s.node("ReduceMin", ["w"], ["m"], "reduce_min", axes=[2],
               keepdims=0),
        s.node("Size", ["m"], ["n"], "size"),
        s.const("axes0", [0]),
        s.node("Unsqueeze", ["n", "axes0"], ["shape"], "shape"),
        s.node("Reshape", ["m", "shape"], ["y"], "flatten"),
    ], [s.vi("x", [2, 3, 4]), s.vi("b", [4])], [s.vi("y", [6])])

    # One small CNN per opset, written as that opset spells it: Clip's
    # bounds, Slice's ranges, Squeeze/Unsqueeze's and ReduceMean's axes,
    # Split's sizes and Dropout's ratio moved from attributes to inputs at
    # 11, 10, 13, 18, 13 and 12; Softmax normalizes one axis from 13.
    for opset in range(7, 23):
        nodes = [s.node("Conv", ["x", "w", "cb"], ["c"], "conv",
                        pads=[1, 1, 1, 1]),
                 s.node("BatchNormalization", ["c", "g", "bb", "mu", "var"],
                        ["n"], "bn")]
        if opset < 11:
            nodes.append(s.node("Clip", ["n"], ["r"], "relu6", min=0.0,
                                max=6.0))
        else:
            nodes += [s.const("lo", 0.0, shape=[]),
                      s.const("hi", 6.0, shape=[]),
                      s.node("Clip", ["n", "lo", "hi"], ["r"], "relu6")]
        nodes.append(s.node("MaxPool", ["r"], ["p"], "pool",
                            kernel_shape=[2, 2], strides=[2, 2]))
        if opset < 18:
            nodes.append(s.node("ReduceMean", ["p"], ["m"], "mean",
                                axes=[2, 3], keepdims=1))
        else:
            nodes += [s.const("hw", [2, 3]),
                      s.node("ReduceMean", ["p", "hw"], ["m"], "mean",
                             keepdims=1)]
        if opset < 13:
            nodes += [s.node("Squeeze", ["m"], ["sq"], "squeeze",
                             axes=[2, 3]),
                      s.node("Unsqueeze", ["sq"], ["us"], "unsqueeze",
                             axes=[1])]
        else:
            nodes += [s.const("sq_axes", [2, 3]),
                      s.node("Squeeze", ["m", "sq_axes"], ["sq"], "squeeze"),
                      s.const("us_axes", [1]),
                      s.node("Unsqueeze", ["sq", "us_axes"], ["us"],
                             "unsqueeze")]
        if opset < 10:
            nodes.append(s.node("Slice", ["us"], ["sl"], "slice",
                                starts=[0], ends=[4], axes=[2]))
        else:
            nodes += [s.const("starts", [0]), s.const("ends", [4]),
                      s.const("axis2", [2]),
                      s.node("Slice", ["us", "starts", "ends", "axis2"],
                             ["sl"], "slice")]
        nodes.append(s.node("Flatten", ["sl"], ["f"], "flatten"))
        if opset < 12:
            nodes.append(s.node("Dropout", ["f"], ["d"], "dropout",
                                ratio=0.1))
        else:
            nodes += [s.const("ratio", 0.1, shape=[]),
                      s.node("Dropout", ["f", "ratio"], ["d"], "dropout")]
        nodes.append(s.node("Gemm", ["d", "fw", "fb"], ["z"], "fc",
                            transB=1))
        nodes.append(s.node("Softmax", ["z"], ["prob"], "softmax",
                            axis=1 if opset < 13 else -1))
        if opset < 13:
            nodes.append(s.node("Split", ["prob"], ["y1", "y2"], "split",
                                axis=1, split=[2, 4]))
        else:
            nodes += [s.const("sizes", [2, 4]),
                      s.node("Split", ["prob", "sizes"], ["y1", "y2"],
                             "split", axis=1)]
        s.save(f"opset-{opset}", nodes, [s.vi("x", [1, 3, 8, 8])],
               [s.vi("y1", [1, 2]), s.vi("y2", [1, 4])],
               [s.init("w", [8, 3, 3, 3]), s.init("cb", [8]),
                s.init("g", [8]), s.init("bb", [8]), s.init("mu", [8]),
                s.init("var", [8], values=np.ones(8)),
                s.init("fw", [6, 4]), s.init("fb", [6])],
               opset=opset, ir_version=3 if opset < 8 else 8)

    write_node_error_snippets(s)
    write_graph_error_snippets(s)
    write_conv3d_snippet(s)
    write_conv_transpose_snippets(s)
    write_pool3d_snippet(s)
    write_fold_overflow_snippets(s)
    write_more_node_error_snippets(s)
    write_spelled_activation_snippets(s)
    write_sum_snippets(s)
    write_int_tensor_snippet(s)
    write_light_weight_snippet(s)
    write_variadic_snippets(s)
    write_shape_computation_snippet(s)
    write_custom_domain_snippets(s)
    write_local_function_snippets(s)
    write_operand_error_snippets(s)
    write_rank_limit_snippets(s)


def write_node_error_snippets(s):
    """One file per diagnostic a node's conversion can give
    (onnx-node-errors.test): each is a small valid graph with one node the
    importer must refuse."""
    T = s.T
    x4, y4 = [s.vi("x", [1, 2, 4, 4])], [s.vi("y", [1, 2, 4, 4])]
    w = [s.init("w", [2, 2, 1, 1])]
    cases = {
        # Convolution.
        "conv-strides-count": ([s.node("Conv", ["x", "w"], ["y"], "conv",
                                       strides=[1, 1, 1])], x4, y4, w),
        "conv-auto-pad": ([s.node("Conv", ["x", "w"], ["y"], "conv",
                                  auto_pad="SAME")], x4, y4, w),
        "conv-4d": ([s.node("Conv", ["x", "w"], ["y"], "conv")],
                    [s.vi("x", [1, 2, 4, 4, 4, 4])],
                    [s.vi("y", [1, 2, 4, 4, 4, 4])],
                    [s.init("w", [2, 2, 1, 1, 1, 1])]),
        "conv-zero-stride": ([s.node("Conv", ["x", "w"], ["y"], "conv",
                                     strides=[0, 1])], x4, y4, w),
        # Products.
        "gemm-rank": ([s.node("Gemm", ["x", "w"], ["y"], "fc")],
                      [s.vi("x", [1, 2, 4])], [s.vi("y", [1, 2, 3])],
                      [s.init("w", [4, 3])]),
        "matmul-vector": ([s.node("MatMul", ["x", "w"], ["y"], "fc")],
                          [s.vi("x", [4])], [s.vi("y", [3])],
                          [s.init("w", [4, 3])]),
        "matmul-ranks": ([s.node("MatMul", ["x", "b"], ["y"], "product")],
                         [s.vi("x", [2, 3, 4]), s.vi("b", [4, 5])],
                         [s.vi("y", [2, 3, 5])], []),
        # LSTM.
        **{f"lstm-{name}": ([s.node("LSTM", ["x", "W", "R"] + extra, ["y"],
                                    "lstm", **{"hidden_size": 2, **attrs})],
                            [s.vi("x", [3, 1, 4])]
                            + ([s.vi("P", [1, 6])] if extra else []),
                            [s.vi("y", [3, 1, 1, 2])],
                            [s.init("W", [1, 8, 4]), s.init("R", [1, 8, 2])])
           for name, attrs, extra in [
               ("direction", {"direction": "sideways"}, []),
               ("layout", {"layout": 1}, []),
               ("input-forget", {"input_forget": 1}, []),
               ("activations", {"activations": ["Relu", "Tanh", "Tanh"]}, []),
               ("peephole", {}, ["", "", "", "", "P"]),
               ("hidden-size", {"hidden_size": 3}, [])]},
        # Pooling.
        "pool-4d": ([s.node("MaxPool", ["x"], ["y"], "pool",
                            kernel_shape=[2, 2, 2, 2])],
                    [s.vi("x", [1, 2, 4, 4, 4, 4])],
                    [s.vi("y", [1, 2, 3, 3, 3, 3])], []),
        "pool-indices": ([s.node("MaxPool", ["x"], ["y", "i"], "pool",
                                 kernel_shape=[2, 2])], x4,
                         [s.vi("y", [1, 2, 2, 2]),
                          s.vi("i", [1, 2, 2, 2], T.INT64)], []),
        "pool-kernel-count": ([s.node("MaxPool", ["x"], ["y"], "pool",
                                      kernel_shape=[2])], x4, y4, []),
        "pool-big-pad": ([s.node("MaxPool", ["x"], ["y"], "pool",
                                 kernel_shape=[2, 2], pads=[2, 2, 2, 2])],
                         x4, y4, []),
        # Normalization and softmax.
        "batchnorm-training": (
            [s.node("BatchNormalization", ["x", "g", "b", "m", "v"], ["y"],
                    "bn", training_mode=1)], x4, y4,
            [s.init(n, [2]) for n in "gbmv"]),
        "layernorm-stats": (
            [s.node("LayerNormalization", ["x", "g", "b"], ["y", "mean"],
                    "ln")], x4, y4 + [s.vi("mean", [1, 2, 4, 1])],
            [s.init("g", [4]), s.init("b", [4])]),
        "layernorm-no-offset": (
            [s.node("LayerNormalization", ["x", "g"], ["y"], "ln")], x4, y4,
            [s.init("g", [4])]),
        "softmax-axis": ([s.node("Softmax", ["x"], ["y"], "softmax",
                                 axis=4)], x4, y4, []),
        # Data movement.
        "transpose-perm": ([s.node("Transpose", ["x"], ["y"], "transpose",
                                   perm=[0, 1, 1, 2])], x4, y4, []),
        "concat-axis": ([s.node("Concat", ["x", "x"], ["y"], "concat",
                                axis=5)], x4, y4, []),
        "slice-empty": ([s.const("starts", [3]), s.const("ends", [1]),
                         s.const("axes", [2]),
                         s.node("Slice", ["x", "starts", "ends", "axes"],
                                ["y"], "slice")], x4, y4, []),
        "split-sizes": ([s.const("sizes", [1, 2]),
                         s.node("Split", ["x", "sizes"], ["a", "b"], "split",
                                axis=1)], x4,
                        [s.vi("a", [1, 1, 4, 4]), s.vi("b", [1, 2, 4, 4])],
                        []),
        "split-uneven": ([s.node("Split", ["x"], ["a", "b", "c"], "split",
                                 axis=2)], x4,
                         [s.vi(n, [1, 2, 1, 4]) for n in "abc"], []),
        "gather-float-indices": (
            [s.node("Gather", ["t", "i"], ["y"], "gather")],
            [s.vi("i", [3])], [s.vi("y", [3, 4])],
            [s.init("t", [10, 4]), ]),
        "gather-axis": ([s.node("Gather", ["t", "i"], ["y"], "gather",
                                axis=1)],
                        [s.vi("i", [3], T.INT64)], [s.vi("y", [10, 3])],
                        [s.init("t", [10, 4])]),
        "gather-out-of-range": ([s.const("i", [0, 9]),
                                 s.node("Gather", ["x", "i"], ["y"], "gather",
                                        axis=3)], x4, y4, []),
        "dropout-mask": ([s.node("Dropout", ["x"], ["y", "mask"], "dropout")],
                         x4, y4 + [s.vi("mask", [1, 2, 4, 4], T.BOOL)], []),
        "dropout-training": ([s.const("ratio", 0.5, shape=[]),
                              s.const("training", [1], elem=T.BOOL, shape=[]),
                              s.node("Dropout", ["x", "ratio", "training"],
                                     ["y"], "dropout")], x4, y4, []),
        "cast-string": ([s.node("Cast", ["x"], ["y"], "cast",
                                to=T.STRING)], x4,
                        [s.vi("y", [1, 2, 4, 4], T.STRING)], []),
        "missing-attribute": ([s.node("Concat", ["x", "x"], ["y"],
                                      "concat")], x4, y4, []),
    }
    for name, (nodes, inputs, outputs, inits) in cases.items():
        s.save(f"node-error-{name}", nodes, inputs, outputs, inits)


def write_graph_error_snippets(s):
    """One file per diagnostic about the graph itself rather than a node
    (onnx-graph-errors.test)."""
    T, helper = s.T, s.helper
    x, y = [s.vi("x", [2, 3])], [s.vi("y", [2, 3])]
    relu = [s.node("Relu", ["x"], ["y"], "relu")]

    def model(nodes, inputs, outputs, inits=(), opsets=(("", 17),)):
        graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
        m = helper.make_model(graph, producer_name="models/onnx/export.py",
                              opset_imports=[helper.make_opsetid(d, v)
                                             for d, v in opsets])
        m.ir_version = 8
        return m

    unnamed = s.init("w", [3])
    unnamed.name = ""
    negative = s.init("w", [3])
    negative.dims[0] = -3
    huge = s.onnx.TensorProto(name="w", dims=[1 << 40, 1 << 40],
                              data_type=T.FLOAT)
    complex_init = helper.make_tensor("w", T.COMPLEX64, [1], [1.0])
    sequence = helper.make_tensor_sequence_value_info("x", T.FLOAT, [2, 3])
    cases = {
        "no-default-opset": model(relu, x, y, opsets=(("com.example", 1),)),
        "unnamed-initializer": model(relu, x, y, [unnamed]),
        "initializer-twice": model(relu, x, y, [s.init("w", [3]),
                                                 s.init("w", [3])]),
        "input-twice": model(relu, x + x, y),
        "output-twice": model(relu + [s.node("Relu", ["x"], ["y"], "again")],
                              x, y),
        "negative-dimension": model(relu, x, y, [negative]),
        "too-many-elements": model(relu, x, y, [huge]),
        "initializer-type": model(relu, x, y, [complex_init]),
        "input-not-tensor": model(relu, [sequence], y),
        "input-type": model(relu, [s.vi("x", [2, 3], T.COMPLEX64)], y),
        "unproduced-output": model(relu, x, y + [s.vi("z", [2, 3])]),
        "unsorted": model([s.node("Relu", ["r"], ["y"], "second"),
                           s.node("Relu", ["x"], ["r"], "first")], x, y),
        "unknown-op": model([s.node("Frobnicate", ["x"], ["y"], "frob")],
                            x, y),
    }
    for name, m in cases.items():
        s.write(f"graph-error-{name}", m.SerializeToString())


def write_conv3d_snippet(s):
    """Written last: the random initializers of the snippets before it do
    not change."""
    # 3-D convolutions (video models): padded with a bias, then strided;
    # the same network as test/Import/Inputs/conv3d-linalg.mlir.
    s.save("conv3d", [
        s.node("Conv", ["x", "w1", "b1"], ["c1"], "conv1",
               pads=[1, 1, 1, 1, 1, 1]),
        s.node("Conv", ["c1", "w2"], ["y"], "conv2", strides=[2, 2, 2]),
    ], [s.vi("x", [1, 2, 4, 6, 6])], [s.vi("y", [1, 8, 1, 2, 2])],
        [s.init("w1", [4, 2, 3, 3, 3]), s.init("b1", [4]),
         s.init("w2", [8, 4, 3, 3, 3])])


def write_conv_transpose_snippets(s):
    """ConvTranspose as U-Net and GAN decoders use it (onnx-conv-transpose
    .test), and its diagnostics. Written after the others for the same
    reason as write_conv3d_snippet."""
    s.save("conv-transpose", [
        s.node("ConvTranspose", ["x", "w1", "b1"], ["u"], "up1",
               strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]),
        s.node("ConvTranspose", ["u", "w2"], ["y"], "up2", strides=[2, 2],
               auto_pad="SAME_UPPER", group=2),
    ], [s.vi("x", [1, 8, 7, 7])], [s.vi("y", [1, 4, 28, 28])],
        [s.init("w1", [8, 4, 3, 3]), s.init("b1", [4]),
         s.init("w2", [4, 2, 3, 3])])
    x, y = [s.vi("x", [1, 8, 7, 7])], [s.vi("y", [1, 4, 14, 14])]
    w = [s.init("w", [8, 4, 2, 2])]
    s.save("node-error-conv-transpose-output-shape", [
        s.node("ConvTranspose", ["x", "w"], ["y"], "up", strides=[2, 2],
               output_shape=[14, 14])], x, y, w)
    s.save("node-error-conv-transpose-3d", [
        s.node("ConvTranspose", ["x", "w"], ["y"], "up")],
        [s.vi("x", [1, 8, 2, 7, 7])], [s.vi("y", [1, 4, 3, 8, 8])],
        [s.init("w", [8, 4, 2, 2, 2])])
    s.save("node-error-conv-transpose-auto-pad", [
        s.node("ConvTranspose", ["x", "w"], ["y"], "up", auto_pad="SAME")],
        x, y, w)


def write_pool3d_snippet(s):
    """3-D pooling (video models): a padded max pool over a [2, 3, 3]
    window, then a 2x2x2 average pool (onnx-pooling.test). Written after the
    others for the same reason as write_conv3d_snippet."""
    s.save("pool3d", [
        s.node("MaxPool", ["x"], ["m"], "maxpool", kernel_shape=[2, 3, 3],
               strides=[2, 2, 2], pads=[0, 1, 1, 0, 1, 1]),
        s.node("AveragePool", ["m"], ["y"], "avgpool", kernel_shape=[2, 2, 2],
               strides=[2, 2, 2]),
    ], [s.vi("x", [1, 4, 8, 16, 16])], [s.vi("y", [1, 4, 2, 4, 4])], [])


def write_fold_overflow_snippets(s):
    """Shape arithmetic whose integers leave 64 bits (onnx-node-errors.test):
    the importer folds it in checked arithmetic and refuses the node, where
    plain int64 arithmetic would be undefined behaviour."""
    x, y = [s.vi("x", [2, 3])], [s.vi("y", [6])]
    s.save("node-error-fold-overflow", [
        s.const("big", [2 ** 62]),
        s.const("four", [4]),
        s.node("Mul", ["big", "four"], ["shape"], "mul"),
        s.node("Reshape", ["x", "shape"], ["y"], "reshape"),
    ], x, y)
    s.save("node-error-fold-negate-min", [
        s.const("min", [-2 ** 63]),
        s.node("Neg", ["min"], ["shape"], "neg"),
        s.node("Reshape", ["x", "shape"], ["y"], "reshape"),
    ], x, y)


def write_more_node_error_snippets(s):
    """More diagnostics of node conversions, static folding and the shared
    graph builder (onnx-node-errors.test), one small graph each. Written last
    and with explicit initializer values, so that the shared random
    generator, and with it every file written before, does not change."""
    T, helper = s.T, s.helper
    x4, y4 = [s.vi("x", [1, 2, 4, 4])], [s.vi("y", [1, 2, 4, 4])]
    ones = lambda *shape: s.init("w", list(shape), values=np.ones(shape))
    stripped = s.onnx.TensorProto(name="w", dims=[3], data_type=T.INT64)
    no_data = s.onnx.TensorProto(name="v", dims=[2], data_type=T.INT64)
    cases = {
        # Initializers the importer cannot use.
        "initializer-no-data": ([s.node("Add", ["x", "w"], ["y"], "add")],
                                [s.vi("x", [3], T.INT64)],
                                [s.vi("y", [3], T.INT64)], [stripped]),
        "weight-type": ([s.node("Add", ["x", "w"], ["y"], "add")],
                        [s.vi("x", [3], T.DOUBLE)], [s.vi("y", [3], T.DOUBLE)],
                        [s.init("w", [3], T.DOUBLE, values=[1.0, 2.0, 3.0])]),
        # Conversions.
        "relu-type": ([s.node("Relu", ["x"], ["y"], "relu")],
                      [s.vi("x", [2, 3], T.INT32)],
                      [s.vi("y", [2, 3], T.INT32)], []),
        "conv1d-weight-input": ([s.node("Conv", ["x", "w"], ["y"], "conv")],
                                [s.vi("x", [1, 2, 8]), s.vi("w", [2, 2, 3])],
                                [s.vi("y", [1, 2, 6])], []),
        "conv-kernel-shape": ([s.node("Conv", ["x", "w"], ["y"], "conv",
                                      kernel_shape=[3, 3])], x4, y4,
                              [ones(2, 2, 1, 1)]),
        "conv-transpose-strides-count": (
            [s.node("ConvTranspose", ["x", "w"], ["y"], "up",
                    strides=[2, 2, 2])], x4, [s.vi("y", [1, 2, 8, 8])],
            [ones(2, 2, 2, 2)]),
        "global-pool-rank": ([s.node("GlobalAveragePool", ["x"], ["y"],
                                     "gap")],
                             [s.vi("x", [2, 3])], [s.vi("y", [2, 3])], []),
        "softmax-type": ([s.node("Softmax", ["x"], ["y"], "softmax")],
                         [s.vi("x", [2, 3], T.DOUBLE)],
                         [s.vi("y", [2, 3], T.DOUBLE)], []),
        "transpose-perm-length": ([s.node("Transpose", ["x"], ["y"],
                                          "transpose", perm=[1, 0])],
                                  x4, y4, []),
        "concat-empty": ([s.node("Concat", ["x", "x"], ["y"], "concat",
                                 axis=1)],
                         [s.vi("x", [2, 0])], [s.vi("y", [2, 0])], []),
        "split-type": ([s.node("Split", ["x"], ["a", "b"], "split", axis=1)],
                       [s.vi("x", [2, 4], T.DOUBLE)],
                       [s.vi("a", [2, 2], T.DOUBLE),
                        s.vi("b", [2, 2], T.DOUBLE)], []),
        "split-empty-output": ([s.const("sizes", [0, 2]),
                                s.node("Split", ["x", "sizes"], ["a", "b"],
                                       "split", axis=1)], x4,
                               [s.vi("a", [1, 0, 4, 4]),
                                s.vi("b", [1, 2, 4, 4])], []),
        "range-dynamic": ([s.node("Range", ["start", "limit", "delta"], ["y"],
                                  "range")],
                          [s.vi(n, [], T.INT64)
                           for n in ("start", "limit", "delta")],
                          [s.vi("y", ["n"], T.INT64)], []),
        "reshape-empty": ([s.const("axes", [0]),
                           s.node("Unsqueeze", ["x", "axes"], ["y"],
                                  "unsqueeze")],
                          [s.vi("x", [2, 0])], [s.vi("y", [1, 2, 0])], []),
        # Static operands.
        "reshape-float-shape": ([s.const("shape", [8.0, 4.0]),
                                 s.node("Reshape", ["x", "shape"], ["y"],
                                        "reshape")],
                                x4, [s.vi("y", [8, 4])], []),
        "reshape-2d-shape": ([s.const("shape", [[8, 4]]),
                              s.node("Reshape", ["x", "shape"], ["y"],
                                     "reshape")],
                             x4, [s.vi("y", [8, 4])], []),
        "clip-min-count": ([s.const("lo", [0.0, 0.0]),
                            s.node("Clip", ["x", "lo"], ["y"], "clip")],
                           x4, y4, []),
        # Constants and static folding (no graph input: every value is
        # known).
        "constant-not-tensor": ([helper.make_node("Constant", [], ["y"],
                                                  name="const", value=5)],
                                [], [s.vi("y", [], T.INT64)], []),
        "constant-no-data": ([helper.make_node("Constant", [], ["y"],
                                               name="const", value=no_data)],
                             [], [s.vi("y", [2], T.INT64)], []),
        "constant-string": ([helper.make_node("Constant", [], ["y"],
                                              name="const",
                                              value_string="dsm")],
                            [], [s.vi("y", [], T.STRING)], []),
        "fold-inputs-count": ([s.const("a", [1]), s.const("b", [2]),
                               s.const("c", [3]),
                               s.node("Add", ["a", "b", "c"], ["y"], "add")],
                              [], [s.vi("y", [1], T.INT64)], []),
        "fold-concat-ranks": ([s.const("a", [1]), s.const("b", [[2]]),
                               s.node("Concat", ["a", "b"], ["y"], "concat",
                                      axis=0)],
                              [], [s.vi("y", [2], T.INT64)], []),
        "fold-concat-shapes": ([s.const("a", [[1]]), s.const("b", [[2, 3]]),
                                s.node("Concat", ["a", "b"], ["y"], "concat",
                                       axis=0)],
                               [], [s.vi("y", [2, 2], T.INT64)], []),
        "fold-transpose-perm-length": ([s.const("a", [[1, 2]]),
                                        s.node("Transpose", ["a"], ["y"],
                                               "transpose", perm=[0])],
                                       [], [s.vi("y", [2, 1], T.INT64)], []),
        "fold-transpose-perm": ([s.const("a", [[1, 2]]),
                                 s.node("Transpose", ["a"], ["y"],
                                        "transpose", perm=[0, 0])],
                                [], [s.vi("y", [2, 1], T.INT64)], []),
        "fold-range-scalars": ([s.const("start", [0, 1]),
                                s.const("limit", 4, shape=[]),
                                s.const("delta", 1, shape=[]),
                                s.node("Range", ["start", "limit", "delta"],
                                       ["y"], "range")],
                               [], [s.vi("y", [4], T.INT64)], []),
        "fold-range-delta": ([s.const("start", 0, shape=[]),
                              s.const("limit", 4, shape=[]),
                              s.const("delta", 0, shape=[]),
                              s.node("Range", ["start", "limit", "delta"],
                                     ["y"], "range")],
                             [], [s.vi("y", ["n"], T.INT64)], []),
        "fold-constant-of-shape-value": (
            [s.const("shape", [2]),
             helper.make_node("ConstantOfShape", ["shape"], ["y"],
                              name="fill",
                              value=helper.make_tensor("value", T.INT64, [2],
                                                       [1, 2]))],
            [], [s.vi("y", [2], T.INT64)], []),
    }
    for name, (nodes, inputs, outputs, inits) in cases.items():
        s.save(f"node-error-{name}", nodes, inputs, outputs, inits)
    # Attributes only opsets before 13 (Unsqueeze's axes, Softmax's
    # coercion to 2-D) or 9 (BatchNormalization's spatial) have.
    s.save("node-error-unsqueeze-no-axes",
           [s.node("Unsqueeze", ["x"], ["y"], "unsqueeze")],
           [s.vi("x", [2, 3])], [s.vi("y", [1, 2, 3])], opset=11)
    s.save("node-error-fold-unsqueeze-no-axes",
           [s.const("a", [1, 2]),
            s.node("Unsqueeze", ["a"], ["y"], "unsqueeze")],
           [], [s.vi("y", [1, 2], T.INT64)], opset=11)
    s.save("node-error-softmax-opset11-axis",
           [s.node("Softmax", ["x"], ["y"], "softmax", axis=1)], x4, y4,
           opset=11)
    s.save("node-error-batchnorm-spatial",
           [s.node("BatchNormalization", ["x", "g", "b", "m", "v"], ["y"],
                   "bn", spatial=0)], x4, y4,
           [s.init(n, [2, 4, 4], values=np.ones(32)) for n in "gbmv"],
           opset=8, ir_version=3)
    # A float axis is one error (it was followed by a wrong second one).
    s.save("node-error-gather-float-axis",
           [s.node("Gather", ["t", "i"], ["y"], "gather", axis=1.0)],
           [s.vi("i", [3], T.INT64)], [s.vi("y", [3, 4])],
           [s.init("t", [5, 4], values=np.ones(20))])


def write_spelled_activation_snippets(s):
    """Activations as older exporters spell them (onnx-activations.test):
    torch.onnx before opset 14 writes nn.Hardswish as x * clip(x + 3, 0, 6)
    / 6, and the logistic sigmoid appears as 1 / (1 + exp(-x)). The graph
    fusions recognise both."""
    T = s.T
    s.save("spelled-activations", [
        s.const("three", 3.0, shape=[], elem=T.FLOAT),
        s.const("zero", 0.0, shape=[], elem=T.FLOAT),
        s.const("six", 6.0, shape=[], elem=T.FLOAT),
        s.const("one", 1.0, shape=[], elem=T.FLOAT),
        s.node("Add", ["x", "three"], ["a"], "hs/Add"),
        s.node("Clip", ["a", "zero", "six"], ["c"], "hs/Clip"),
        s.node("Mul", ["x", "c"], ["m"], "hs/Mul"),
        s.node("Div", ["m", "six"], ["h"], "hs/Div"),
        s.node("Neg", ["h"], ["n"], "sig/Neg"),
        s.node("Exp", ["n"], ["e"], "sig/Exp"),
        s.node("Add", ["e", "one"], ["d"], "sig/Add"),
        s.node("Div", ["one", "d"], ["y"], "sig/Div"),
    ], [s.vi("x", [2, 8])], [s.vi("y", [2, 8])], opset=13)


def write_sum_snippets(s):
    """Sum, the variadic Add (ShuffleNet in the ONNX backend's test data
    adds its branches with it): two, three (one broadcast from a [C, 1, 1]
    weight) and one input, at opset 9; and inputs that do not broadcast."""
    s.save("sum", [
        s.node("Sum", ["x", "x2"], ["s2"], "sum2"),
        s.node("Sum", ["s2", "x", "bias"], ["s3"], "sum3"),
        s.node("Sum", ["s3"], ["y"], "sum1"),
    ], [s.vi("x", [2, 4, 3, 3]), s.vi("x2", [2, 4, 3, 3])],
        [s.vi("y", [2, 4, 3, 3])], [s.init("bias", [4, 1, 1])], opset=9)
    s.save("node-error-sum-broadcast", [
        s.node("Sum", ["x", "x2", "x3"], ["y"], "sum"),
    ], [s.vi("x", [2, 4]), s.vi("x2", [2, 4]), s.vi("x3", [3])],
        [s.vi("y", [2, 4])], opset=13)


def write_variadic_snippets(s):
    """Mean, Max and Min of any number of inputs (variadic since opset 8):
    Mean of three (one a [C, 1, 1] weight), Max of four, Min of two, and of
    one input each; a Mean of constants folds."""
    T = s.T
    s.save("variadic", [
        s.node("Mean", ["x", "x2", "bias"], ["mean3"], "mean3"),
        s.node("Max", ["mean3", "x", "x2", "bias"], ["max4"], "max4"),
        s.node("Min", ["max4", "x"], ["min2"], "min2"),
        s.node("Mean", ["min2"], ["mean1"], "mean1"),
        s.node("Max", ["mean1"], ["max1"], "max1"),
        s.node("Min", ["max1"], ["min1"], "min1"),
        s.const("c1", [1.0, 2.0], elem=T.FLOAT),
        s.const("c2", [3.0, 6.0], elem=T.FLOAT),
        s.node("Mean", ["c1", "c2"], ["cmean"], "const_mean"),
        s.const("cshape", [1, 1, 1, 2]),
        s.node("Reshape", ["cmean", "cshape"], ["cmean4"], "const_view"),
        s.node("Slice", ["min1", "zero", "two", "three"], ["tail"], "tail"),
        s.node("Add", ["tail", "cmean4"], ["y"], "add_mean"),
    ], [s.vi("x", [2, 4, 3, 3]), s.vi("x2", [2, 4, 3, 3])],
        [s.vi("y", [2, 4, 3, 2])],
        [s.init("bias", [4, 1, 1]), s.init("zero", [1], T.INT64, [0]),
         s.init("two", [1], T.INT64, [2]), s.init("three", [1], T.INT64, [3])],
        opset=13)


def write_shape_computation_snippet(s):
    """The shape computations of a decoder's embedding and causal mask as
    torch.onnx (1.13, opset 17) writes them for `torch.arange(T)
    .unsqueeze(0).expand(B, T)` and `torch.full((T, T), -inf).triu(1)
    .expand(B, T, T)`: Range and Expand of constants (the sizes from Shape
    subgraphs), ConstantOfShape, Trilu; all fold into constants. And a
    Trilu of activations."""
    T = s.T
    s.save("shape-computations", [
        s.node("Shape", ["ids"], ["ids_shape"], "shape"),
        s.const("i0", 0, shape=[]), s.const("i1", 1, shape=[]),
        s.node("Gather", ["ids_shape", "i0"], ["b"], "batch", axis=0),
        s.node("Gather", ["ids_shape", "i1"], ["t"], "seq", axis=0),
        s.node("Range", ["i0", "t", "i1"], ["pos"], "arange"),
        s.const("axes0", [0]),
        s.node("Unsqueeze", ["pos", "axes0"], ["pos2"], "pos_unsqueeze"),
        s.node("Unsqueeze", ["b", "axes0"], ["b1"], "b1"),
        s.node("Unsqueeze", ["t", "axes0"], ["t1"], "t1"),
        s.node("Concat", ["b1", "t1"], ["bt"], "bt", axis=0),
        s.node("Expand", ["pos2", "bt"], ["positions"], "expand_positions"),
        s.node("Gather", ["wte", "ids"], ["tok"], "wte"),
        s.node("Gather", ["wpe", "positions"], ["posemb"], "wpe"),
        s.node("Add", ["tok", "posemb"], ["h"], "embed"),
        s.node("Concat", ["t1", "t1"], ["tt"], "tt", axis=0),
        s.node("ConstantOfShape", ["tt"], ["full"], "full",
               value=s.helper.make_tensor("value", T.FLOAT, [1],
                                          [float("-inf")])),
        s.node("Trilu", ["full", "i1"], ["causal"], "triu", upper=1),
        s.node("Concat", ["b1", "t1", "t1"], ["btt"], "btt", axis=0),
        s.node("Expand", ["causal", "btt"], ["mask"], "expand_mask"),
        s.node("Transpose", ["h"], ["hT"], "keys", perm=[0, 2, 1]),
        s.node("MatMul", ["h", "hT"], ["scores"], "scores"),
        s.node("Add", ["scores", "mask"], ["masked"], "mask"),
        s.node("Softmax", ["masked"], ["p"], "softmax", axis=-1),
        s.node("MatMul", ["p", "h"], ["y"], "context"),
    ], [s.vi("ids", [2, 5], T.INT64)], [s.vi("y", [2, 5, 16])],
        [s.init("wte", [100, 16]), s.init("wpe", [32, 16])], opset=17)
    s.save("trilu-activations", [
        s.const("k0", 0, shape=[]),
        s.node("Trilu", ["x", "k0"], ["y"], "tril", upper=0),
    ], [s.vi("x", [2, 4, 4])], [s.vi("y", [2, 4, 4])], opset=14)
    # Lower triangles of a constant, as `torch.ones(T, T).tril()` and
    # `.tril(-1)` write them: both fold, the diagonal kept by the first only.
    s.save("trilu-lower", [
        s.const("tt", [4, 4]),
        s.node("ConstantOfShape", ["tt"], ["ones"], "ones",
               value=s.helper.make_tensor("value", T.FLOAT, [1], [1.0])),
        s.const("k0", 0, shape=[]), s.const("km1", -1, shape=[]),
        s.node("Trilu", ["ones", "k0"], ["tril"], "tril", upper=0),
        s.node("Trilu", ["ones", "km1"], ["below"], "tril_below", upper=0),
        s.node("Add", ["x", "tril"], ["y0"], "add_tril"),
        s.node("Add", ["y0", "below"], ["y"], "add_below"),
    ], [s.vi("x", [2, 4, 4])], [s.vi("y", [2, 4, 4])], opset=14)


def write_custom_domain_snippets(s):
    """Nodes outside the default domain: an onnxruntime contrib operator
    (com.microsoft's FusedMatMul) and a custom exporter's op (refused); and
    calls of functions the model defines (inlined), one recursive."""
    helper, T = s.helper, s.T

    def model(file, nodes, opsets, functions=()):
        graph = helper.make_graph(nodes, file, [s.vi("x", [2, 4])],
                                  [s.vi("y", [2, 4])])
        m = helper.make_model(
            graph, producer_name="models/onnx/export.py",
            opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
        m.functions.extend(functions)
        m.ir_version = 8
        s.write(file, m.SerializeToString())

    model("custom-domain-ort", [
        s.node("Relu", ["x"], ["r"], "relu"),
        helper.make_node("FusedMatMul", ["r", "r"], ["y"], name="fused",
                         domain="com.microsoft", transB=1),
    ], [("", 17), ("com.microsoft", 1)])
    model("custom-domain-other", [
        helper.make_node("Frobnicate", ["x"], ["y"], name="frob",
                         domain="org.example.custom"),
    ], [("", 17), ("org.example.custom", 1)])
    # Functions the model defines, as torch's dynamo exporter writes
    # modules: Pair calls Block twice, forwarding its attribute `tb` to
    # Block's Gemm (`transB` by reference), which the importer inlines.
    def ref(node, name, referenced):
        """`node` with the attribute `name` read from the caller's
        `referenced` (ref_attr_name)."""
        attr = s.onnx.AttributeProto(name=name, ref_attr_name=referenced,
                                     type=s.onnx.AttributeProto.INT)
        node.attribute.append(attr)
        return node

    block = helper.make_function(
        "pkg.example", "Block", ["a", "w", "bias"], ["b"],
        [ref(helper.make_node("Gemm", ["a", "w", "bias"], ["g"], name="Gemm"),
             "transB", "tb"),
         helper.make_node("Relu", ["g"], ["b"], name="Relu")],
        [helper.make_opsetid("", 17)], ["tb"])
    pair = helper.make_function(
        "pkg.example", "Pair", ["x", "w0", "b0", "w1", "b1"], ["y"],
        [ref(helper.make_node("Block", ["x", "w0", "b0"], ["h"],
                              name="block_a", domain="pkg.example"),
             "tb", "tb"),
         ref(helper.make_node("Block", ["h", "w1", "b1"], ["y"],
                              name="block_b", domain="pkg.example"),
             "tb", "tb")],
        [helper.make_opsetid("", 17), helper.make_opsetid("pkg.example", 1)],
        ["tb"])
    graph = helper.make_graph(
        [helper.make_node("Pair", ["x", "w0", "b0", "w1", "b1"], ["y"],
                          name="pair", domain="pkg.example", tb=1)],
        "local-functions", [s.vi("x", [2, 8])], [s.vi("y", [2, 4])],
        [s.init("w0", [16, 8]), s.init("b0", [16]), s.init("w1", [4, 16]),
         s.init("b1", [4])])
    m = helper.make_model(
        graph, producer_name="models/onnx/export.py",
        opset_imports=[helper.make_opsetid("", 17),
                       helper.make_opsetid("pkg.example", 1)])
    m.functions.extend([block, pair])
    m.ir_version = 8
    s.write("local-functions", m.SerializeToString())
    # A function that calls itself.
    loop = helper.make_function(
        "pkg.example", "Loop", ["a"], ["b"],
        [helper.make_node("Loop", ["a"], ["b"], domain="pkg.example")],
        [helper.make_opsetid("", 17), helper.make_opsetid("pkg.example", 1)])
    model("local-functions-recursive", [
        helper.make_node("Loop", ["x"], ["y"], name="loop",
                         domain="pkg.example"),
    ], [("", 17), ("pkg.example", 1)], [loop])


def write_local_function_snippets(s):
    """Model-local functions that call each other (issue 46): doubling trees
    that expand past the inliner's budget, nested calls whose inlined names
    would collide, and calls that do not match the function."""
    helper = s.helper
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("pkg", 1)]

    def model(file, functions, nodes, x=(4,), y=(4,)):
        graph = helper.make_graph(nodes, file, [s.vi("x", list(x))],
                                  [s.vi("y", list(y))])
        m = helper.make_model(graph, producer_name="models/onnx/export.py",
                              opset_imports=opsets)
        m.functions.extend(functions)
        m.ir_version = 8
        s.write(file, m.SerializeToString())
        return m

    def tree(levels, leaf_nodes, named=True):
        """F0 .. F<levels-1>, each calling the next twice on a chain (calls
        `first` and `second`, or unnamed as exporters write them); the last
        is `leaf_nodes` from `a` to `b`."""
        names = ["first", "second"] if named else ["", ""]
        functions = [helper.make_function("pkg", "F%d" % (levels - 1),
                                          ["a"], ["b"], leaf_nodes, opsets)]
        for k in reversed(range(levels - 1)):
            callee = "F%d" % (k + 1)
            functions.append(helper.make_function("pkg", "F%d" % k, ["a"],
                ["b"], [helper.make_node(callee, ["a"], ["t"], names[0],
                                         domain="pkg"),
                        helper.make_node(callee, ["t"], ["b"], names[1],
                                         domain="pkg")],
                opsets))
        return functions

    # 18 levels with a 16 KB Constant at the leaf: 2^17 copies of it (2 GB).
    constant = helper.make_tensor("c_value", s.T.FLOAT, [4096],
                                  np.zeros(4096, np.float32).tolist())
    model("local-functions-bytes", tree(18, [
        helper.make_node("Constant", [], ["c"], value=constant),
        helper.make_node("Add", ["a", "c"], ["b"])]),
        [helper.make_node("F0", ["x"], ["y"], name="top", domain="pkg")],
        x=(4096,), y=(4096,))
    # 40 levels of a Relu: 2^39 nodes.
    model("local-functions-nodes", tree(40, [
        helper.make_node("Relu", ["a"], ["b"])]),
        [helper.make_node("F0", ["x"], ["y"], name="top", domain="pkg")])
    # F0 -> F1 -> F2 -> F3, each calling the next twice: 8 Relus, whose
    # inlined names must not collide (calls are named after their outputs).
    m = model("local-functions-nested", tree(4, [
        helper.make_node("Relu", ["a"], ["b"])], named=False),
        [helper.make_node("F0", ["x"], ["y"], domain="pkg")])
    s.onnx.checker.check_model(m)
    # A 2-in/1-out function called with 3 inputs and 2 outputs.
    add = helper.make_function("pkg", "AddTwo", ["a", "b"], ["c"],
                               [helper.make_node("Add", ["a", "b"], ["c"])],
                               opsets)
    model("local-functions-arity", [add], [
        helper.make_node("AddTwo", ["x", "x", "x"], ["y", "extra"],
                         name="call", domain="pkg")])
    # A function whose body never writes its output.
    lost = helper.make_function("pkg", "Lost", ["a"], ["b"],
                                [helper.make_node("Relu", ["a"], ["r"])],
                                opsets)
    model("local-functions-unproduced", [lost], [
        helper.make_node("Lost", ["x"], ["y"], name="call", domain="pkg")])


def write_operand_error_snippets(s):
    """What an operator's signature requires of its operands (issue 46):
    Trilu of a scalar and of a vector, Mean of FLOAT and INT64."""
    T = s.T
    s.save("trilu-rank0", [s.node("Trilu", ["x"], ["y"], "trilu")],
           [s.vi("x", [])], [s.vi("y", [])], opset=14)
    s.save("trilu-rank1", [s.node("Trilu", ["x"], ["y"], "trilu")],
           [s.vi("x", [4])], [s.vi("y", [4])], opset=14)
    s.save("mean-mixed-types", [s.node("Mean", ["x", "n"], ["y"], "mean")],
           [s.vi("x", [4]), s.vi("n", [4], T.INT64)], [s.vi("y", [4])])


def write_rank_limit_snippets(s):
    """Tensors of 65 dimensions, one more than the importer allows: a graph
    input, an initializer and a Reshape's output (issue 46)."""
    T = s.T
    ones = [1] * 65
    s.save("rank-65-input", [s.node("Relu", ["x"], ["y"], "relu")],
           [s.vi("x", ones)], [s.vi("y", ones)])
    s.save("rank-65-initializer", [s.node("Add", ["x", "w"], ["y"], "add")],
           [s.vi("x", [1])], [s.vi("y", ones)],
           inits=[s.init("w", ones, values=[0.5])])
    s.save("rank-65-reshape", [
        s.const("shape", ones),
        s.node("Reshape", ["x", "shape"], ["y"], "reshape")],
        [s.vi("x", [1])], [s.vi("y", ones)])


def write_int_tensor_snippet(s):
    """Integer tensors as data, as LLM exports move them: INT64 token ids
    viewed as [-1, T] (Reshape), unsqueezed and squeezed, transposed,
    sliced, split and concatenated with INT64 positions (a graph input);
    looked up in an embedding table (Gather), the first id gathered at a
    static position (a slice); compared with the pad id
    (Equal: a BOOL mask), the mask cast to float and applied with Where."""
    T = s.T
    s.save("int-tensors", [
        s.const("view", [-1, 5]),
        s.node("Reshape", ["ids", "view"], ["ids2"], "view"),
        s.const("axes1", [1]),
        s.node("Unsqueeze", ["ids2", "axes1"], ["ids3"], "unsqueeze"),
        s.node("Squeeze", ["ids3", "axes1"], ["ids4"], "squeeze"),
        s.node("Concat", ["ids4", "pos"], ["cat"], "cat", axis=1),
        s.node("Transpose", ["cat"], ["catT"], "transpose", perm=[1, 0]),
        s.const("starts", [0]), s.const("ends", [5]), s.const("axes0", [0]),
        s.node("Slice", ["catT", "starts", "ends", "axes0"], ["first"],
               "slice"),
        s.node("Split", ["cat"], ["left", "right"], "split", axis=1),
        s.node("Gather", ["wte", "ids4"], ["emb"], "wte"),
        s.const("zero_index", 0, shape=[]),
        s.node("Gather", ["ids4", "zero_index"], ["first_id"], "first_id",
               axis=1),
        s.const("pad", 0, shape=[]),
        s.node("Equal", ["ids4", "pad"], ["is_pad"], "is_pad"),
        s.node("Not", ["is_pad"], ["mask"], "mask"),
        s.node("Cast", ["mask"], ["maskf"], "mask_float", to=T.FLOAT),
        s.const("zero", 0.0, shape=[], elem=T.FLOAT),
        s.const("axes2", [2]),
        s.node("Unsqueeze", ["mask", "axes2"], ["mask3"], "mask3"),
        s.node("Where", ["mask3", "emb", "zero"], ["y"], "masked"),
    ], [s.vi("ids", [1, 5], T.INT64), s.vi("pos", [1, 5], T.INT64)],
        [s.vi("y", [1, 5, 16]), s.vi("maskf", [1, 5]),
         s.vi("first", [5, 1], T.INT64), s.vi("left", [1, 5], T.INT64),
         s.vi("first_id", [1], T.INT64)],
        [s.init("wte", [100, 16])], opset=13)


def write_light_weight_snippet(s):
    """Weights stored as their shape alone, as the ONNX backend's "light"
    models store every initializer: ConstantOfShape of a constant shape.
    The [2048, 1024] weight is too large to fold and becomes a parameter;
    the [1024] bias folds to a constant."""
    T = s.T
    half = s.helper.make_tensor("value", T.FLOAT, [1], [0.5])
    s.save("light-weights", [
        s.node("ConstantOfShape", ["w_shape"], ["w"], "w_fill", value=half),
        s.const("b_shape", [1024]),
        s.node("ConstantOfShape", ["b_shape"], ["b"], "b_fill", value=half),
        s.node("MatMul", ["x", "w"], ["m"], "fc"),
        s.node("Add", ["m", "b"], ["y"], "fc_bias"),
    ], [s.vi("x", [1, 2048])], [s.vi("y", [1, 1024])],
        [s.init("w_shape", [2], T.INT64, [2048, 1024])], opset=13)


# ----------------------------------------------------------------------------
# Torch exports
# ----------------------------------------------------------------------------


def bert_module():
    """BERT-base as Hugging Face's BertModel computes it (post-LayerNorm
    encoder, erf GELU, tanh pooler over the first token), in plain torch."""
    import math
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class SelfAttention(nn.Module):
        def __init__(self, hidden, heads):
            super().__init__()
            self.heads, self.head_dim = heads, hidden // heads
            self.query = nn.Linear(hidden, hidden)
            self.key = nn.Linear(hidden, hidden)
            self.value = nn.Linear(hidden, hidden)

        def split(self, x):
            n, t, _ = x.shape
            return x.view(n, t, self.heads, self.head_dim).transpose(1, 2)

        def forward(self, x, mask):
            q, k, v = self.split(self.query(x)), self.split(self.key(x)), \
                self.split(self.value(x))
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
            probs = F.softmax(scores + mask, dim=-1)
            context = torch.matmul(probs, v).transpose(1, 2)
            n, t = context.shape[0], context.shape[1]
            return context.reshape(n, t, self.heads * self.head_dim)

    class Layer(nn.Module):
        def __init__(self, hidden, heads, ffn):
            super().__init__()
            self.attention = SelfAttention(hidden, heads)
            self.attention_output = nn.Linear(hidden, hidden)
            self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
            self.intermediate = nn.Linear(hidden, ffn)
            self.output = nn.Linear(ffn, hidden)
            self.output_norm = nn.LayerNorm(hidden, eps=1e-12)

        def forward(self, x, mask):
            a = self.attention_norm(x + self.attention_output(self.attention(x, mask)))
            return self.output_norm(a + self.output(F.gelu(self.intermediate(a))))

    class Bert(nn.Module):
        def __init__(self, vocab=30522, hidden=768, layers=12, heads=12,
                     ffn=3072, positions=512, types=2):
            super().__init__()
            self.word_embeddings = nn.Embedding(vocab, hidden)
            self.position_embeddings = nn.Embedding(positions, hidden)
            self.token_type_embeddings = nn.Embedding(types, hidden)
            self.embeddings_norm = nn.LayerNorm(hidden, eps=1e-12)
            self.register_buffer("position_ids",
                                 torch.arange(positions).unsqueeze(0))
            self.layers = nn.ModuleList(
                [Layer(hidden, heads, ffn) for _ in range(layers)])
            self.pooler = nn.Linear(hidden, hidden)

        def forward(self, input_ids, token_type_ids, attention_mask):
            t = input_ids.shape[1]
            x = (self.word_embeddings(input_ids)
                 + self.position_embeddings(self.position_ids[:, :t])
                 + self.token_type_embeddings(token_type_ids))
            x = self.embeddings_norm(x)
            mask = (1.0 - attention_mask.to(torch.float32)[:, None, None, :]) * -10000.0
            for layer in self.layers:
                x = layer(x, mask)
            return x, torch.tanh(self.pooler(x[:, 0]))

    return Bert()


def randomize(module, seed):
    """Distinct values for every parameter and floating-point buffer, so that
    torch.onnx's initializer deduplication merges nothing."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.02)
        for name, b in module.named_buffers():
            if b.is_floating_point():
                b.copy_(torch.rand(b.shape, generator=gen) + 0.5)


def export(module, args, path, opset, input_names, output_names,
           dynamic_axes=None):
    import onnx
    import torch
    torch.onnx.export(module, args, path, opset_version=opset,
                      input_names=input_names, output_names=output_names,
                      dynamic_axes=dynamic_axes,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=True)
    model = onnx.load(path)
    onnx.save(strip(model), path)
    print(f"{path}: {os.path.getsize(path)} bytes")


def write_models(out):
    import torch
    import torchvision

    resnet = torchvision.models.resnet50().eval()
    randomize(resnet, 0)
    export(resnet, (torch.zeros(1, 3, 224, 224),),
           os.path.join(out, "resnet50.onnx"), 17, ["input"], ["logits"])

    bert = bert_module().eval()
    randomize(bert, 1)
    ids = torch.zeros(1, 128, dtype=torch.long)
    args = (ids, ids, torch.ones(1, 128, dtype=torch.long))
    names = ["input_ids", "token_type_ids", "attention_mask"]
    outputs = ["last_hidden_state", "pooler_output"]
    # Opset 17 has LayerNormalization; opset 14 decomposes it. The opset-17
    # file has a dynamic batch dimension (import it with --onnx-batch=N; its
    # reshapes are Shape subgraphs), the opset-14 one is static (batch 1).
    batch = {name: {0: "batch"} for name in names + outputs}
    export(bert, args, os.path.join(out, "bert-base.onnx"), 17, names, outputs,
           dynamic_axes=batch)
    export(bert, args, os.path.join(out, "bert-base-opset14.onnx"), 14, names,
           outputs)

    lstm = torch.nn.LSTM(16, 32, num_layers=2, bidirectional=True).eval()
    randomize(lstm, 2)
    export(lstm, (torch.zeros(7, 3, 16),), os.path.join(out, "lstm-torch.onnx"),
           17, ["x"], ["y"])


def vit_module(dim=32, heads=4, ffn=64, layers=2, image=32, patch=8,
               classes=10):
    """A small ViT in plain torch, as torchvision's VisionTransformer writes
    it: a strided convolution as patch embedding, flatten(2).transpose(1, 2),
    the class token expanded over the batch and concatenated in front, a
    learned position embedding added, nn.TransformerEncoder layers (pre-norm,
    GELU, batch first, nn.MultiheadAttention inside), a final LayerNorm and
    the head on the class token."""
    import torch
    from torch import nn

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv_proj = nn.Conv2d(3, dim, patch, stride=patch)
            tokens = (image // patch) ** 2 + 1
            self.class_token = nn.Parameter(torch.zeros(1, 1, dim))
            self.pos_embedding = nn.Parameter(torch.zeros(1, tokens, dim))
            layer = nn.TransformerEncoderLayer(dim, heads, ffn, dropout=0.0,
                                               activation="gelu",
                                               batch_first=True,
                                               norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, layers,
                                                 enable_nested_tensor=False)
            self.ln = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, classes)

        def forward(self, x):
            x = self.conv_proj(x)
            x = x.flatten(2).transpose(1, 2)
            cls = self.class_token.expand(x.shape[0], -1, -1)
            x = torch.cat([cls, x], dim=1) + self.pos_embedding
            x = self.ln(self.encoder(x))
            return self.head(x[:, 0])

    return ViT()


def encoder_module(dim=32, heads=4, ffn=64, layers=2):
    """nn.TransformerEncoder of post-norm ReLU layers, batch first."""
    from torch import nn
    layer = nn.TransformerEncoderLayer(dim, heads, ffn, dropout=0.0,
                                       batch_first=True)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


def write_transformers(out):
    """A small ViT and nn.TransformerEncoder, each at batch 1 (re-batched by
    dsm-opt --dsm-set-batch), with a dynamic batch (--onnx-batch) and at
    batch 8 (the reference the re-batched imports must equal)."""
    import torch

    for name, module, shape in [
            ("vit-tiny", vit_module(), (3, 32, 32)),
            ("encoder-tiny", encoder_module(), (17, 32))]:
        module = module.eval()
        randomize(module, 3)
        for suffix, batch, axes in [("", 1, None), ("-b8", 8, None),
                                    ("-dyn", 1, {"x": {0: "batch"},
                                                 "y": {0: "batch"}})]:
            # With gradients on: torch's fused encoder fast path (no ONNX
            # spelling) is taken only without them.
            export(module, (torch.zeros(batch, *shape),),
                   os.path.join(out, name + suffix + ".onnx"), 17, ["x"],
                   ["y"], dynamic_axes=axes)


def decoder_module(vocab=100, positions=32, dim=16):
    """A decoder's embedding and one causal attention, written as GPT-style
    code writes them: position ids `torch.arange(T).unsqueeze(0).expand(B,
    T)`, a causal mask `torch.full((T, T), -inf).triu(1)` expanded over the
    batch; torch.onnx folds or writes them as Range, Expand,
    ConstantOfShape and Trilu."""
    import torch
    import torch.nn as nn

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, dim)
            self.wpe = nn.Embedding(positions, dim)
            self.q = nn.Linear(dim, dim)

        def forward(self, ids):
            b, t = ids.shape
            pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
            h = self.wte(ids) + self.wpe(pos.expand(b, t))
            mask = torch.full((t, t), float("-inf")).triu(1)
            scores = self.q(h) @ h.transpose(1, 2) + mask.expand(b, t, t)
            return scores.softmax(-1) @ h

    return Decoder()


def write_decoder(out):
    """The decoder at batch 1 (re-batched by dsm-opt --dsm-set-batch) and
    at batch 8 (the reference), sequence 8."""
    import torch

    module = decoder_module().eval()
    randomize(module, 5)
    for suffix, batch in [("", 1), ("-b8", 8)]:
        export(module, (torch.zeros(batch, 8, dtype=torch.long),),
               os.path.join(out, "decoder-masks" + suffix + ".onnx"), 17,
               ["ids"], ["y"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", nargs="*", default=["snippets", "models"],
                        choices=["snippets", "models", "transformers",
                                 "decoder"])
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if "snippets" in args.what:
        write_snippets(args.out)
    if "models" in args.what:
        write_models(args.out)
    if "transformers" in args.what:
        write_transformers(args.out)
    if "decoder" in args.what:
        write_decoder(args.out)


if __name__ == "__main__":
    sys.exit(main())
