#!/usr/bin/env python3
"""Writes the model zoo as dsm-dialect MLIR (models/*.mlir).

    python3 models/generate.py            # regenerate every model
    python3 models/generate.py vgg16      # one model to stdout
    python3 models/generate.py --linalg resnet50   # as torch-mlir's linalg

Each network follows its reference definition (torchvision for the CNNs, the
GNMT paper for GNMT, Hugging Face's BertModel for BERT) at batch 1;
`dsm-opt --dsm-set-batch=batch=N` changes the batch. test/Models checks the
totals against the references' (BERT's against bert_totals, by hand), and
that the checked-in files are what this script writes.
"""

import math
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsmgraph import Graph  # noqa: E402
from linalggraph import LinalgGraph, LinalgLlmGraph  # noqa: E402


def vgg16():
    g = Graph("vgg16", doc="""
VGG16 (Simonyan & Zisserman 2014) as torchvision.models.vgg16 defines it, at
224x224: 13 convolutions and 3 fully connected layers, 138,357,544 parameters,
15,470,264,320 MACs at batch 1. Layer names follow DeepSpatialMatrix Fig. 12
(conv1_1 .. conv5_3, fcon1 .. fcon3). Dropout is an identity at mapping time.""")
    x = g.arg([1, 3, 224, 224])
    stages = [(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)]
    for s, (width, convs) in enumerate(stages, start=1):
        for c in range(1, convs + 1):
            name = f"conv{s}_{c}"
            x = g.relu(g.conv(x, width, 3, pad=1, name=name), name=f"{name}.relu")
        x = g.max_pool(x, 2, 2, name=f"pool{s}")
    # torchvision's AdaptiveAvgPool2d((7, 7)) is the identity at 224x224.
    x = g.flatten(x, name="flatten")
    x = g.relu(g.fc(x, 4096, name="fcon1"), name="fcon1.relu")
    x = g.relu(g.fc(x, 4096, name="fcon2"), name="fcon2.relu")
    x = g.fc(x, 1000, name="fcon3")
    return g.emit(x)


def alexnet():
    g = Graph("alexnet", doc="""
AlexNet (Krizhevsky et al. 2012) as torchvision.models.alexnet defines it, at
224x224: 5 convolutions and 3 fully connected layers, 61,100,840 parameters,
714,188,480 MACs at batch 1. Layer names are torchvision's module paths
(features.0 .. features.12, classifier.1 .. classifier.6). Dropout is an
identity at mapping time.""")
    x = g.arg([1, 3, 224, 224])
    # (index in features, output channels, kernel, stride, padding, max pool after)
    convs = [(0, 64, 11, 4, 2, True), (3, 192, 5, 1, 2, True),
             (6, 384, 3, 1, 1, False), (8, 256, 3, 1, 1, False),
             (10, 256, 3, 1, 1, True)]
    for i, cout, kernel, stride, pad, pool in convs:
        x = g.conv(x, cout, kernel, stride=stride, pad=pad, name=f"features.{i}")
        x = g.relu(x, name=f"features.{i + 1}")
        if pool:
            x = g.max_pool(x, 3, 2, name=f"features.{i + 2}")
    # torchvision's AdaptiveAvgPool2d((6, 6)) is the identity at 224x224.
    x = g.flatten(x, name="flatten")
    x = g.relu(g.fc(x, 4096, name="classifier.1"), name="classifier.2")
    x = g.relu(g.fc(x, 4096, name="classifier.4"), name="classifier.5")
    x = g.fc(x, 1000, name="classifier.6")
    return g.emit(x)


def _bottleneck(g, x, width, stride, downsample, prefix):
    """torchvision Bottleneck (ResNet v1.5: the stride is on the 3x3 conv)."""
    identity = x
    out = g.relu(g.batch_norm(g.conv(x, width, 1, bias=False, name=f"{prefix}.conv1"),
                              name=f"{prefix}.bn1"), name=f"{prefix}.relu1")
    out = g.relu(g.batch_norm(g.conv(out, width, 3, stride=stride, pad=1, bias=False,
                                     name=f"{prefix}.conv2"),
                              name=f"{prefix}.bn2"), name=f"{prefix}.relu2")
    out = g.batch_norm(g.conv(out, width * 4, 1, bias=False, name=f"{prefix}.conv3"),
                       name=f"{prefix}.bn3")
    if downsample:
        identity = g.batch_norm(
            g.conv(x, width * 4, 1, stride=stride, bias=False,
                   name=f"{prefix}.downsample.0"),
            name=f"{prefix}.downsample.1")
    return g.relu(g.add(out, identity, name=f"{prefix}.add"), name=f"{prefix}.relu3")


def resnet(depth, graph=Graph):
    blocks = {50: [3, 4, 6, 3], 101: [3, 4, 23, 3]}[depth]
    totals = {50: ("53 convolutions and 1 fully connected layer, 25,557,032",
                   "4,089,184,256"),
              101: ("104 convolutions and 1 fully connected layer, 44,549,160",
                    "7,801,405,440")}[depth]
    g = graph(f"resnet{depth}", doc=f"""
ResNet-{depth} (He et al. 2015) as torchvision.models.resnet{depth} defines it
(v1.5: strided 3x3 convolutions), at 224x224: {totals[0]}
parameters (batch-norm scales and offsets included), {totals[1]} MACs at
batch 1. Residual connections are dsm.add of the block output and its
shortcut.""")
    x = g.arg([1, 3, 224, 224])
    x = g.relu(g.batch_norm(g.conv(x, 64, 7, stride=2, pad=3, bias=False, name="conv1"),
                            name="bn1"), name="relu")
    x = g.max_pool(x, 3, 2, pad=1, name="maxpool")
    for layer, (count, width) in enumerate(zip(blocks, [64, 128, 256, 512]), start=1):
        for b in range(count):
            stride = 2 if (b == 0 and layer > 1) else 1
            x = _bottleneck(g, x, width, stride, downsample=(b == 0),
                            prefix=f"layer{layer}.{b}")
    x = g.global_avg_pool(x, name="avgpool")
    x = g.flatten(x, name="flatten")
    x = g.fc(x, 1000, name="fc")
    return g.emit(x)


def gnmt(timesteps=128, units=1024, layers=8, vocab=32000):
    """GNMT (Wu et al. 2016) as DeepSpatialMatrix §IV uses it."""
    g = Graph("gnmt", doc=f"""
GNMT (Wu et al. 2016) as DeepSpatialMatrix §IV describes it: {layers} encoder
and {layers} decoder LSTM layers of {units} units over {timesteps} timesteps,
attention and residual connections. DeepSpatialMatrix says the first *decoder*
layer is bidirectional; in GNMT's own design it is the first *encoder* layer
(decoding runs left to right and cannot look ahead), so that is what this
model does: its two directions of {units} units are concatenated. As in GNMT,
residual connections start at the third layer of each stack; the bottom
decoder layer's output queries the attention over the encoder outputs and the
context is fed to every other decoder layer. Attention is dot-product over a
projected memory (a fully connected "memory layer" on the encoder outputs);
the output is a {vocab}-word softmax. Training uses teacher forcing: both
token sequences are inputs, time-major [T, N].""")
    src = g.arg([timesteps, 1], dtype="i64", batch_dim=1)
    tgt = g.arg([timesteps, 1], dtype="i64", batch_dim=1)

    # Encoder.
    x = g.embedding(src, vocab, units, name="encoder.embedding")
    x = g.lstm(x, units, bidirectional=True, name="encoder.lstm0")
    for i in range(1, layers):
        y = g.lstm(x, units, name=f"encoder.lstm{i}")
        x = g.add(y, x, name=f"encoder.residual{i}") if i >= 2 else y
    memory = g.fc(x, units, bias=False, name="attention.memory_layer")

    # Decoder: the bottom layer drives attention.
    y = g.embedding(tgt, vocab, units, name="decoder.embedding")
    y = g.lstm(y, units, name="decoder.lstm0")
    # Attention over the source positions, batch-major for the matmuls.
    q = g.transpose(y, [1, 0, 2], name="attention.query")           # [N, T, F]
    k = g.transpose(memory, [1, 0, 2], name="attention.keys")       # [N, S, F]
    v = g.transpose(x, [1, 0, 2], name="attention.values")          # [N, S, F]
    scores = g.matmul(q, k, transpose_rhs=True, name="attention.scores")  # [N, T, S]
    probs = g.softmax(scores, name="attention.softmax")
    context = g.matmul(probs, v, name="attention.context")          # [N, T, F]
    context = g.transpose(context, [1, 0, 2], name="attention.context_tm")
    for i in range(1, layers):
        inp = g.concat([y, context], axis=2, name=f"decoder.input{i}")
        out = g.lstm(inp, units, name=f"decoder.lstm{i}")
        y = g.add(out, y, name=f"decoder.residual{i}") if i >= 2 else out
    logits = g.fc(y, vocab, name="decoder.projection")
    return g.emit(g.softmax(logits, name="decoder.softmax"))


def _basic_conv(g, x, cout, kernel, prefix, stride=1, pad=0):
    """Inception-v3's BasicConv2d: conv (no bias), batch norm (eps 0.001), ReLU."""
    x = g.conv(x, cout, kernel, stride=stride, pad=pad, bias=False, name=f"{prefix}.conv")
    x = g.batch_norm(x, eps=0.001, name=f"{prefix}.bn")
    return g.relu(x, name=f"{prefix}.relu")


def _inception_a(g, x, pool_features, p):
    b1 = _basic_conv(g, x, 64, 1, f"{p}.branch1x1")
    b5 = _basic_conv(g, x, 48, 1, f"{p}.branch5x5_1")
    b5 = _basic_conv(g, b5, 64, 5, f"{p}.branch5x5_2", pad=2)
    b3 = _basic_conv(g, x, 64, 1, f"{p}.branch3x3dbl_1")
    b3 = _basic_conv(g, b3, 96, 3, f"{p}.branch3x3dbl_2", pad=1)
    b3 = _basic_conv(g, b3, 96, 3, f"{p}.branch3x3dbl_3", pad=1)
    bp = g.avg_pool(x, 3, 1, pad=1, name=f"{p}.avg_pool")
    bp = _basic_conv(g, bp, pool_features, 1, f"{p}.branch_pool")
    return g.concat([b1, b5, b3, bp], axis=1, name=f"{p}.concat")


def _inception_b(g, x, p):
    b3 = _basic_conv(g, x, 384, 3, f"{p}.branch3x3", stride=2)
    bd = _basic_conv(g, x, 64, 1, f"{p}.branch3x3dbl_1")
    bd = _basic_conv(g, bd, 96, 3, f"{p}.branch3x3dbl_2", pad=1)
    bd = _basic_conv(g, bd, 96, 3, f"{p}.branch3x3dbl_3", stride=2)
    bp = g.max_pool(x, 3, 2, name=f"{p}.max_pool")
    return g.concat([b3, bd, bp], axis=1, name=f"{p}.concat")


def _inception_c(g, x, c7, p):
    row, col = ((1, 7), (0, 3)), ((7, 1), (3, 0))   # (kernel, padding)
    b1 = _basic_conv(g, x, 192, 1, f"{p}.branch1x1")
    b7 = _basic_conv(g, x, c7, 1, f"{p}.branch7x7_1")
    b7 = _basic_conv(g, b7, c7, row[0], f"{p}.branch7x7_2", pad=row[1])
    b7 = _basic_conv(g, b7, 192, col[0], f"{p}.branch7x7_3", pad=col[1])
    bd = _basic_conv(g, x, c7, 1, f"{p}.branch7x7dbl_1")
    for i, (cout, (kernel, pad)) in enumerate(
            [(c7, col), (c7, row), (c7, col), (192, row)], start=2):
        bd = _basic_conv(g, bd, cout, kernel, f"{p}.branch7x7dbl_{i}", pad=pad)
    bp = g.avg_pool(x, 3, 1, pad=1, name=f"{p}.avg_pool")
    bp = _basic_conv(g, bp, 192, 1, f"{p}.branch_pool")
    return g.concat([b1, b7, bd, bp], axis=1, name=f"{p}.concat")


def _inception_d(g, x, p):
    b3 = _basic_conv(g, x, 192, 1, f"{p}.branch3x3_1")
    b3 = _basic_conv(g, b3, 320, 3, f"{p}.branch3x3_2", stride=2)
    b7 = _basic_conv(g, x, 192, 1, f"{p}.branch7x7x3_1")
    b7 = _basic_conv(g, b7, 192, (1, 7), f"{p}.branch7x7x3_2", pad=(0, 3))
    b7 = _basic_conv(g, b7, 192, (7, 1), f"{p}.branch7x7x3_3", pad=(3, 0))
    b7 = _basic_conv(g, b7, 192, 3, f"{p}.branch7x7x3_4", stride=2)
    bp = g.max_pool(x, 3, 2, name=f"{p}.max_pool")
    return g.concat([b3, b7, bp], axis=1, name=f"{p}.concat")


def _inception_e(g, x, p):
    def split(y, prefix, a, b):
        ya = _basic_conv(g, y, 384, (1, 3), f"{p}.{a}", pad=(0, 1))
        yb = _basic_conv(g, y, 384, (3, 1), f"{p}.{b}", pad=(1, 0))
        return g.concat([ya, yb], axis=1, name=f"{p}.{prefix}.concat")
    b1 = _basic_conv(g, x, 320, 1, f"{p}.branch1x1")
    b3 = _basic_conv(g, x, 384, 1, f"{p}.branch3x3_1")
    b3 = split(b3, "branch3x3", "branch3x3_2a", "branch3x3_2b")
    bd = _basic_conv(g, x, 448, 1, f"{p}.branch3x3dbl_1")
    bd = _basic_conv(g, bd, 384, 3, f"{p}.branch3x3dbl_2", pad=1)
    bd = split(bd, "branch3x3dbl", "branch3x3dbl_3a", "branch3x3dbl_3b")
    bp = g.avg_pool(x, 3, 1, pad=1, name=f"{p}.avg_pool")
    bp = _basic_conv(g, bp, 192, 1, f"{p}.branch_pool")
    return g.concat([b1, b3, bd, bp], axis=1, name=f"{p}.concat")


def inception_v3():
    g = Graph("inception_v3", doc="""
Inception-v3 (Szegedy et al. 2015) as torchvision.models.inception_v3 defines
it, at 299x299 and without the auxiliary classifier (aux_logits=False): 94
convolutions and 1 fully connected layer, 23,834,568 parameters (batch-norm
scales and offsets included), 5,713,216,096 MACs at batch 1. Every
BasicConv2d is a convolution without bias, batch norm (eps 0.001) and ReLU;
layer names are torchvision's module paths (Mixed_5b.branch1x1.conv), the
functional pools, ReLUs and concatenations are named after their block.
transform_input (a per-channel input rescaling used with the pretrained
weights) is preprocessing and left out; dropout is an identity.""")
    x = g.arg([1, 3, 299, 299])
    x = _basic_conv(g, x, 32, 3, "Conv2d_1a_3x3", stride=2)
    x = _basic_conv(g, x, 32, 3, "Conv2d_2a_3x3")
    x = _basic_conv(g, x, 64, 3, "Conv2d_2b_3x3", pad=1)
    x = g.max_pool(x, 3, 2, name="maxpool1")
    x = _basic_conv(g, x, 80, 1, "Conv2d_3b_1x1")
    x = _basic_conv(g, x, 192, 3, "Conv2d_4a_3x3")
    x = g.max_pool(x, 3, 2, name="maxpool2")
    for name, pool_features in [("Mixed_5b", 32), ("Mixed_5c", 64), ("Mixed_5d", 64)]:
        x = _inception_a(g, x, pool_features, name)
    x = _inception_b(g, x, "Mixed_6a")
    for name, c7 in [("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160),
                     ("Mixed_6e", 192)]:
        x = _inception_c(g, x, c7, name)
    x = _inception_d(g, x, "Mixed_7a")
    x = _inception_e(g, x, "Mixed_7b")
    x = _inception_e(g, x, "Mixed_7c")
    x = g.global_avg_pool(x, name="avgpool")
    x = g.flatten(x, name="flatten")
    x = g.fc(x, 1000, name="fc")
    return g.emit(x)


def _conv_bn_relu6(g, x, cout, kernel, prefix, stride=1, groups=1):
    """torchvision's Conv2dNormActivation: conv (no bias) .0, batch norm .1,
    ReLU6 .2 (a clamp to [0, 6])."""
    x = g.conv(x, cout, kernel, stride=stride, pad=(kernel - 1) // 2, groups=groups,
               bias=False, name=f"{prefix}.0")
    x = g.batch_norm(x, name=f"{prefix}.1")
    return g.clamp(x, 0, 6, name=f"{prefix}.2")


def _inverted_residual(g, x, cout, stride, expand, p):
    """torchvision InvertedResidual: 1x1 expansion (unless expand == 1),
    3x3 depthwise, linear 1x1 projection; a residual when shapes allow."""
    cin = x.shape[1]
    hidden = cin * expand
    y, i = x, 0
    if expand != 1:
        y = _conv_bn_relu6(g, y, hidden, 1, f"{p}.conv.{i}")
        i += 1
    y = _conv_bn_relu6(g, y, hidden, 3, f"{p}.conv.{i}", stride=stride, groups=hidden)
    y = g.conv(y, cout, 1, bias=False, name=f"{p}.conv.{i + 1}")
    y = g.batch_norm(y, name=f"{p}.conv.{i + 2}")
    if stride == 1 and cin == cout:
        y = g.add(x, y, name=f"{p}.add")
    return y


def mobilenet_v2():
    g = Graph("mobilenet_v2", doc="""
MobileNet-v2 (Sandler et al. 2018) as torchvision.models.mobilenet_v2 defines
it (width 1.0), at 224x224: 52 convolutions (17 depthwise, groups = channels)
and 1 fully connected layer, 3,504,872 parameters (batch-norm scales and
offsets included), 300,774,272 MACs at batch 1. ReLU6 is dsm.clamp to
[0, 6]; layer names are torchvision's module paths (features.2.conv.1.0 is
the depthwise convolution of the second block). Dropout is an identity.""")
    x = g.arg([1, 3, 224, 224])
    x = _conv_bn_relu6(g, x, 32, 3, "features.0", stride=2)
    # (expansion t, output channels c, repeats n, first stride s)
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    index = 1
    for t, c, n, s in settings:
        for r in range(n):
            x = _inverted_residual(g, x, c, s if r == 0 else 1, t, f"features.{index}")
            index += 1
    x = _conv_bn_relu6(g, x, 1280, 1, f"features.{index}")
    x = g.global_avg_pool(x, name="adaptive_avg_pool2d")
    x = g.flatten(x, name="flatten")
    x = g.fc(x, 1000, name="classifier.1")
    return g.emit(x)


def bert_totals(hidden, layers, ffn, seq, vocab=30522, positions=512, types=2):
    """BERT's parameters and batch-1 MACs by hand (the tests check the
    report against these)."""
    embeddings = (vocab + positions + types) * hidden + 2 * hidden
    layer = 4 * (hidden * hidden + hidden) + 2 * hidden \
        + 2 * hidden * ffn + ffn + hidden + 2 * hidden
    pooler = hidden * hidden + hidden
    params = embeddings + layers * layer + pooler
    # Q, K, V, output projections; scores and context; the FFN; the pooler.
    macs = layers * (4 * seq * hidden ** 2 + 2 * seq ** 2 * hidden
                     + 2 * seq * hidden * ffn) + hidden ** 2
    return params, macs


def bert(size, seq, graph=Graph):
    hidden, heads, ffn, layers = {"base": (768, 12, 3072, 12),
                                  "large": (1024, 16, 4096, 24)}[size]
    head_dim = hidden // heads
    params, macs = bert_totals(hidden, layers, ffn, seq)
    g = graph(f"bert_{size}_s{seq}", doc=f"""
BERT-{size} (Devlin et al. 2018) as Hugging Face's BertModel defines it, over
sequences of T = {seq} tokens: hidden size H = {hidden}, {heads} heads of {head_dim},
FFN {ffn}, {layers} encoder layers and the pooler. {params:,} parameters;
{macs:,} MACs at batch 1, which is
{layers} x (4*T*H^2 + 2*T^2*H + 2*T*H*FFN) + H^2.
Inputs: token ids and token-type ids [N, T] (i64). Position ids are the
constant [[0 .. T-1]] ([1, T], like BertEmbeddings' position_ids buffer): their
embedding is looked up once and broadcast over the batch. No attention mask
(every token is real). Attention scores are divided by sqrt({head_dim}), an
arith.constant (a dsm.weight would count as a parameter). Results: the
sequence output [N, T, H] and the pooled output [N, H]. Layer names are the
module paths (encoder.layer.0.attention.self.query); dropout (p = 0.1) is an
identity, named by the function's dsm.dropout for the masks training keeps.""")
    g.dropout = 0.1
    ids = g.arg([1, seq], dtype="i64")
    token_types = g.arg([1, seq], dtype="i64")

    x = g.embedding(ids, 30522, hidden, name="embeddings.word_embeddings")
    t = g.embedding(token_types, 2, hidden, name="embeddings.token_type_embeddings")
    x = g.add(x, t, name="embeddings.add_token_type")
    positions = g.constant([list(range(seq))], [1, seq], dtype="i64",
                           name="embeddings.position_ids")
    p = g.embedding(positions, 512, hidden, name="embeddings.position_embeddings")
    x = g.add(x, p, name="embeddings.add_position")
    x = g.layer_norm(x, eps=1e-12, name="embeddings.LayerNorm")

    scale = g.constant(math.sqrt(head_dim), [], name="attention.scale")
    for i in range(layers):
        p = f"encoder.layer.{i}"
        def heads_of(y, what):  # [N, T, H] -> [N, heads, T, head_dim]
            y = g.fc(y, hidden, name=f"{p}.attention.self.{what}")
            y = g.reshape(y, [0, 0, heads, head_dim],
                          name=f"{p}.attention.self.{what}.split_heads")
            return g.transpose(y, [0, 2, 1, 3], name=f"{p}.attention.self.{what}.transpose")
        q, k, v = heads_of(x, "query"), heads_of(x, "key"), heads_of(x, "value")
        s = g.matmul(q, k, transpose_rhs=True, name=f"{p}.attention.self.scores")
        s = g.div(s, scale, name=f"{p}.attention.self.scale")
        s = g.softmax(s, name=f"{p}.attention.self.softmax")
        c = g.matmul(s, v, name=f"{p}.attention.self.context")
        c = g.transpose(c, [0, 2, 1, 3], name=f"{p}.attention.self.context.transpose")
        c = g.reshape(c, [0, 0, hidden], name=f"{p}.attention.self.context.merge_heads")
        a = g.fc(c, hidden, name=f"{p}.attention.output.dense")
        a = g.add(a, x, name=f"{p}.attention.output.add")
        x = g.layer_norm(a, eps=1e-12, name=f"{p}.attention.output.LayerNorm")
        f = g.fc(x, ffn, name=f"{p}.intermediate.dense")
        f = g.unary("gelu", f, name=f"{p}.intermediate.gelu")
        f = g.fc(f, hidden, name=f"{p}.output.dense")
        f = g.add(f, x, name=f"{p}.output.add")
        x = g.layer_norm(f, eps=1e-12, name=f"{p}.output.LayerNorm")

    first = g.slice(x, [0, 0, 0], [-1, 1, -1], name="pooler.first_token")
    first = g.flatten(first, name="pooler.flatten")
    pooled = g.unary("tanh", g.fc(first, hidden, name="pooler.dense"),
                     name="pooler.activation")
    return g.emit([x, pooled])



def gpt2_totals(seq, hidden=768, layers=12, ffn=3072, vocab=50257,
                positions=1024):
    """GPT-2's parameters (the output projection is the token embedding,
    counted once) and batch-1 MACs by hand."""
    layer = 2 * hidden + (hidden * 3 * hidden + 3 * hidden) \
        + (hidden * hidden + hidden) + 2 * hidden \
        + (hidden * ffn + ffn) + (ffn * hidden + hidden)
    params = (vocab + positions) * hidden + layers * layer + 2 * hidden
    # c_attn (Q, K, V at once), c_proj, scores and context, the MLP; the
    # logits of every position.
    macs = layers * (seq * hidden * 3 * hidden + seq * hidden ** 2
                     + 2 * seq ** 2 * hidden + 2 * seq * hidden * ffn) \
        + seq * hidden * vocab
    return params, macs


def gpt3(seq=2048, graph=Graph):
    """GPT-3 175B (Brown et al. 2020, Table 2.1: 96 layers, d_model 12288,
    96 heads of 128, context 2048), GPT-2's architecture at that size: MLP
    4 x d_model, vocabulary 50257, the head tied to the token embedding."""
    hidden, heads, layers, ffn, vocab = 12288, 96, 96, 4 * 12288, 50257
    context = max(seq, 2048)
    params, macs = gpt2_totals(seq, hidden, layers, ffn, vocab, context)
    doc = f"""
GPT-3 175B (Brown et al. 2020, "Language Models are Few-Shot Learners",
Table 2.1) over T = {seq} tokens: hidden size H = {hidden}, {heads} heads of
{hidden // heads}, MLP {ffn}, {layers} layers, vocabulary {vocab}, context {context}.
GPT-2's architecture (pre-norm layers, learned positions, the head tied to
the token embedding); the paper's alternating locally banded sparse
attention is written dense. {params:,} parameters (the paper's
175.0B, rounded); {macs:,} MACs at batch 1, which is
{layers} x (4*T*H^2 + 2*T^2*H + 2*T*H*MLP) + T*H*V.
Inputs: token ids [N, T] (i64) and the additive causal mask [N, 1, T, T].
Layer names follow GPT-2's module paths; dropout (p = 0.1) is an identity,
named by the function's dsm.dropout for the masks training keeps."""
    if context != 2048:
        doc += f"""
The paper's context is 2048: here the learned positions cover {context}."""
    return gpt2(seq, graph, hidden, heads, layers, ffn, vocab, context,
                name=f"gpt3_175b_s{seq}", doc=doc)


def _causal_attention(g, q, k, v, mask, hidden, head_dim, scale, p):
    """softmax(q k^T / sqrt(head_dim) + mask) v over [N, heads, T, head_dim],
    the heads merged back into [N, T, hidden]."""
    s = g.matmul(q, k, transpose_rhs=True, name=f"{p}.scores")
    s = g.div(s, scale, name=f"{p}.scale")
    if mask:
        s = g.add(s, mask, name=f"{p}.causal_mask")
    s = g.softmax(s, name=f"{p}.softmax")
    c = g.matmul(s, v, name=f"{p}.context")
    c = g.transpose(c, [0, 2, 1, 3], name=f"{p}.context.transpose")
    return g.reshape(c, [0, 0, hidden], name=f"{p}.context.merge_heads")


def gpt2(seq=1024, graph=Graph, hidden=768, heads=12, layers=12, ffn=3072,
         vocab=50257, context=1024, name=None, doc=None):
    head_dim = hidden // heads
    params, macs = gpt2_totals(seq, hidden, layers, ffn, vocab, context)
    g = graph(name or f"gpt2_s{seq}", doc=doc or f"""
GPT-2 small (Radford et al. 2019) as Hugging Face's GPT2LMHeadModel defines
it, over T = {seq} tokens (the whole context): hidden size H = {hidden}, {heads}
heads of {head_dim}, MLP {ffn}, {layers} layers, vocabulary {vocab}. {params:,}
parameters (the language-model head is the token embedding, counted once);
{macs:,} MACs at batch 1, which is
{layers} x (4*T*H^2 + 2*T^2*H + 2*T*H*MLP) + T*H*V.
Inputs: token ids [N, T] (i64) and the additive causal mask [N, 1, T, T].
Position ids are the constant [[0 .. T-1]] (their embedding is broadcast over
the batch). Each Conv1D is a fully connected layer; c_attn computes Q, K and
V at once and is sliced. Attention scores are divided by sqrt({head_dim}), an
arith.constant. Result: the logits [N, T, V]. Layer names are the module
paths (transformer.h.0.attn.c_attn); dropout (p = 0.1) is an identity, named
by the function's dsm.dropout for the masks training keeps.""")
    g.dropout = 0.1
    ids = g.arg([1, seq], dtype="i64")
    mask = g.arg([1, 1, seq, seq])

    wte = g.weight("transformer.wte.weight", [vocab, hidden])
    x = g.embedding(ids, vocab, hidden, name="transformer.wte", table=wte)
    positions = g.constant([list(range(seq))], [1, seq], dtype="i64",
                           name="transformer.position_ids")
    pe = g.embedding(positions, context, hidden, name="transformer.wpe")
    x = g.add(x, pe, name="transformer.add_position")

    scale = g.constant(math.sqrt(head_dim), [], name="attn.scale")
    for i in range(layers):
        p = f"transformer.h.{i}"
        a = g.layer_norm(x, eps=1e-5, name=f"{p}.ln_1")
        qkv = g.fc(a, 3 * hidden, name=f"{p}.attn.c_attn")

        def heads_of(index, what):  # [N, T, 3H] -> [N, heads, T, head_dim]
            y = g.slice(qkv, [0, 0, index * hidden], [-1, -1, hidden],
                        name=f"{p}.attn.{what}")
            y = g.reshape(y, [0, 0, heads, head_dim],
                          name=f"{p}.attn.{what}.split_heads")
            return g.transpose(y, [0, 2, 1, 3],
                               name=f"{p}.attn.{what}.transpose")
        q, k, v = heads_of(0, "query"), heads_of(1, "key"), heads_of(2, "value")
        c = _causal_attention(g, q, k, v, mask, hidden, head_dim, scale,
                              f"{p}.attn")
        a = g.fc(c, hidden, name=f"{p}.attn.c_proj")
        x = g.add(x, a, name=f"{p}.attn.residual")
        m = g.layer_norm(x, eps=1e-5, name=f"{p}.ln_2")
        m = g.fc(m, ffn, name=f"{p}.mlp.c_fc")
        m = g.unary("gelu", m, name=f"{p}.mlp.act")
        m = g.fc(m, hidden, name=f"{p}.mlp.c_proj")
        x = g.add(x, m, name=f"{p}.mlp.residual")
    x = g.layer_norm(x, eps=1e-5, name="transformer.ln_f")
    logits = g.fc(x, vocab, bias=False, name="lm_head", weight=wte)
    return g.emit(logits)


def llama_totals(seq, hidden=4096, layers=32, ffn=11008, vocab=32000,
                 past=0, kv_dim=None):
    """A Llama's parameters (untied head) and batch-1 MACs by hand, for
    `seq` new tokens attending to themselves and `past` cached positions.
    `kv_dim` is the width of K and V (kv_heads x head_dim; the hidden size
    unless the attention is grouped-query)."""
    kv_dim = kv_dim or hidden
    layer = 2 * hidden ** 2 + 2 * hidden * kv_dim + 3 * hidden * ffn \
        + 2 * hidden
    params = 2 * vocab * hidden + layers * layer + hidden
    # Q and O, K and V; scores and context; gate, up and down; the logits.
    macs = layers * (2 * seq * hidden ** 2 + 2 * seq * hidden * kv_dim
                     + 2 * seq * (past + seq) * hidden
                     + 3 * seq * hidden * ffn) + seq * hidden * vocab
    return params, macs


def llama(seq=128, hidden=4096, heads=32, layers=32, ffn=11008, vocab=32000,
          name="llama2_7b", title="Llama-2-7B", graph=Graph, past=0,
          kv_heads=None):
    """A prompt of `seq` tokens (prefill), or with `past` > 0 a decode step
    of `seq` tokens after `past` cached positions. With `kv_heads` < `heads`
    the attention is grouped-query (Llama-2-70B): k_proj and v_proj make
    `kv_heads` heads, each repeated for heads / kv_heads query heads."""
    kv_heads = kv_heads or heads
    assert heads % kv_heads == 0
    groups = heads // kv_heads
    head_dim = hidden // heads
    kv_dim = kv_heads * head_dim
    half = head_dim // 2
    params, macs = llama_totals(seq, hidden, layers, ffn, vocab, past,
                                kv_dim)
    if past:
        what = (f"at a decode step: T = {seq} new token(s) after a KV cache of P = "
                f"{past} positions")
        formula = "4*T*H^2 + 2*T*(P+T)*H + 3*T*H*FFN"
        inputs = (f"and the {2 * layers} caches past_key_values [N, {kv_heads}, P, "
                  f"{head_dim}] (no mask: the new token attends to every position)")
        results = (f"Results: the logits [N, T, V] and the {2 * layers} caches "
                   "with the new token (concatenated)")
    else:
        what = f"over a prompt of T = {seq} tokens (prefill)"
        formula = "4*T*H^2 + 2*T^2*H + 3*T*H*FFN"
        inputs = "and the additive\ncausal mask [N, 1, T, T]"
        results = "Result: the logits [N, T, V]"
    attention = f"{heads} heads\nof {head_dim},"
    if groups > 1:
        formula = formula.replace("4*T*H^2", "2*T*H^2 + 2*T*H*KV")
        attention = (f"{heads} query heads\nof {head_dim}, grouped-query "
                     f"attention with {kv_heads} key/value heads (KV =\n"
                     f"{kv_dim}: repeat_kv is a concatenation of {groups} "
                     "copies),")
    suffix = f"decode{past + seq}" if past else f"s{seq}"
    doc = f"""
{title} (Touvron et al. 2023) as Hugging Face's LlamaForCausalLM defines it,
{what}: hidden size H = {hidden}, {attention} SwiGLU FFN {ffn}, {layers} layers, vocabulary {vocab}, RMSNorm
(eps 1e-5), rotary position embeddings, no biases. {params:,} parameters;
{macs:,} MACs at batch 1, which is
{layers} x ({formula}) + T*H*V.
Inputs: token ids [N, T] (i64), the rotary tables cos and sin [N, T, {head_dim}]
(LlamaRotaryEmbedding's output, which every layer receives) {inputs}. RMSNorm is dsm.rms_norm with its weight; RoPE is
q * cos + rotate_half(q) * sin, rotate_half as slices, a product by -1 and a
concatenation; SiLU is x * sigmoid(x). Scores are divided by sqrt({head_dim}), an
arith.constant. {results}. Layer names are the module
paths (model.layers.0.self_attn.q_proj)."""
    if past or groups > 1:
        doc = textwrap.fill(" ".join(doc.split()), width=76)
    g = graph(f"{name}_{suffix}", doc=doc)
    ids = g.arg([1, seq], dtype="i64")
    cos = g.arg([1, seq, head_dim])
    sin = g.arg([1, seq, head_dim])
    mask = None if past else g.arg([1, 1, seq, seq])
    caches = [(g.arg([1, kv_heads, past, head_dim]),
               g.arg([1, kv_heads, past, head_dim]))
              for _ in range(layers)] if past else []
    presents = []

    x = g.embedding(ids, vocab, hidden, name="model.embed_tokens")
    # unsqueeze(1): broadcast over the heads.
    cos = g.reshape(cos, [0, 1, seq, head_dim], name="model.rotary_emb.cos")
    sin = g.reshape(sin, [0, 1, seq, head_dim], name="model.rotary_emb.sin")
    scale = g.constant(math.sqrt(head_dim), [], name="self_attn.scale")
    minus_one = g.constant(-1.0, [], name="rotate_half.negate")
    for i in range(layers):
        p = f"model.layers.{i}"
        a = g.rms_norm(x, eps=1e-5, name=f"{p}.input_layernorm")

        def heads_of(what, n=heads):  # [N, T, n*d] -> [N, n, T, head_dim]
            y = g.fc(a, n * head_dim, bias=False,
                     name=f"{p}.self_attn.{what}_proj")
            y = g.reshape(y, [0, 0, n, head_dim],
                          name=f"{p}.self_attn.{what}.split_heads")
            return g.transpose(y, [0, 2, 1, 3],
                               name=f"{p}.self_attn.{what}.transpose")

        def repeat_kv(y, what):  # [N, kv_heads, S, d] -> [N, heads, S, d]
            if groups == 1:
                return y
            r = f"{p}.self_attn.{what}.repeat_kv"
            s = y.shape[2]
            y = g.reshape(y, [0, kv_heads, 1, s, head_dim], name=f"{r}.unsqueeze")
            y = g.concat([y] * groups, 2, name=f"{r}.expand")
            return g.reshape(y, [0, heads, s, head_dim], name=r)

        def rope(y, what):  # apply_rotary_pos_emb
            r = f"{p}.self_attn.{what}.rope"
            lo = g.slice(y, [0, 0, 0, 0], [-1, -1, -1, half], name=f"{r}.x1")
            hi = g.slice(y, [0, 0, 0, half], [-1, -1, -1, half], name=f"{r}.x2")
            hi = g.mul(hi, minus_one, name=f"{r}.negate")
            rotated = g.concat([hi, lo], 3, name=f"{r}.rotate_half")
            return g.add(g.mul(y, cos, name=f"{r}.cos"),
                         g.mul(rotated, sin, name=f"{r}.sin"), name=r)
        q = rope(heads_of("q"), "q")
        k = rope(heads_of("k", kv_heads), "k")
        v = heads_of("v", kv_heads)
        if past:  # DynamicCache.update: the new positions after the cached
            k = g.concat([caches[i][0], k], 2, name=f"{p}.self_attn.k.cache")
            v = g.concat([caches[i][1], v], 2, name=f"{p}.self_attn.v.cache")
            presents += [k, v]
        k, v = repeat_kv(k, "k"), repeat_kv(v, "v")
        c = _causal_attention(g, q, k, v, mask, hidden, head_dim, scale,
                              f"{p}.self_attn")
        o = g.fc(c, hidden, bias=False, name=f"{p}.self_attn.o_proj")
        x = g.add(x, o, name=f"{p}.self_attn.residual")
        m = g.rms_norm(x, eps=1e-5, name=f"{p}.post_attention_layernorm")
        gate = g.fc(m, ffn, bias=False, name=f"{p}.mlp.gate_proj")
        up = g.fc(m, ffn, bias=False, name=f"{p}.mlp.up_proj")
        gate = g.mul(gate, g.unary("sigmoid", gate, name=f"{p}.mlp.act_fn.sigmoid"),
                     name=f"{p}.mlp.act_fn")
        m = g.mul(gate, up, name=f"{p}.mlp.gate_up")
        m = g.fc(m, hidden, bias=False, name=f"{p}.mlp.down_proj")
        x = g.add(x, m, name=f"{p}.mlp.residual")
    x = g.rms_norm(x, eps=1e-5, name="model.norm")
    logits = g.fc(x, vocab, bias=False, name="lm_head")
    return g.emit([logits] + presents if past else logits)


MODELS = {
    "vgg16": vgg16,
    "resnet50": lambda: resnet(50),
    "gnmt": gnmt,
    "alexnet": alexnet,
    "resnet101": lambda: resnet(101),
    "inception_v3": inception_v3,
    "mobilenet_v2": mobilenet_v2,
    "bert_base_s128": lambda: bert("base", 128),
    "bert_base_s384": lambda: bert("base", 384),
    "bert_large_s128": lambda: bert("large", 128),
    "bert_large_s384": lambda: bert("large", 384),
    "gpt2_s1024": lambda: gpt2(1024),
    "gpt3_175b_s2048": lambda: gpt3(2048),
    "llama2_7b_s128": lambda: llama(128),
    "llama2_7b_decode128": lambda: llama(1, past=127),
    "llama2_70b_s128": lambda: llama(128, hidden=8192, heads=64, layers=80,
                                     ffn=28672, kv_heads=8, name="llama2_70b",
                                     title="Llama-2-70B"),
    # The lengths LLMs are trained at: Llama-2's context is 4,096 tokens,
    # GPT-3's 2,048 (at 4,096 its learned positions are 4,096 too).
    "llama2_7b_s2048": lambda: llama(2048),
    "llama2_7b_s4096": lambda: llama(4096),
    "llama2_70b_s2048": lambda: llama(2048, hidden=8192, heads=64, layers=80,
                                      ffn=28672, kv_heads=8,
                                      name="llama2_70b", title="Llama-2-70B"),
    "llama2_70b_s4096": lambda: llama(4096, hidden=8192, heads=64, layers=80,
                                      ffn=28672, kv_heads=8,
                                      name="llama2_70b", title="Llama-2-70B"),
    "gpt3_175b_s4096": lambda: gpt3(4096),
}


# The same networks as the linalg program a downstream compiler holds
# (linalggraph.py), not checked in: tests generate them.
LINALG_MODELS = {
    "resnet50": lambda: resnet(50, LinalgGraph),
    "resnet101": lambda: resnet(101, LinalgGraph),
    "bert_base_s128": lambda: bert("base", 128, LinalgGraph),
    "gpt2_s1024": lambda: gpt2(1024, LinalgLlmGraph),
    "llama2_7b_s128": lambda: llama(128, graph=LinalgLlmGraph),
    "llama2_7b_decode128": lambda: llama(1, past=127, graph=LinalgLlmGraph),
}


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    if len(argv) > 1 and argv[1] == "--linalg":
        for name in argv[2:]:
            if name not in LINALG_MODELS:
                sys.exit(f"no linalg form of '{name}'; known: "
                         f"{', '.join(LINALG_MODELS)}")
            sys.stdout.write(LINALG_MODELS[name]())
        return
    if len(argv) > 1:
        for name in argv[1:]:
            if name not in MODELS:
                sys.exit(f"unknown model '{name}'; known: {', '.join(MODELS)}")
            Graph.source_file = f"{name}.mlir"
            sys.stdout.write(MODELS[name]())
        return
    for name, build in MODELS.items():
        Graph.source_file = f"{name}.mlir"
        with open(os.path.join(here, f"{name}.mlir"), "w") as f:
            f.write(build())


if __name__ == "__main__":
    main(sys.argv)
