"""The single-V100 step time of blocks.json under Exprimo's conventions,
worked out layer by layer from Paleo's formulas (docs/device-placement.md,
"The peer's inputs and conventions"): minibatch 128, fp32; per op
(FLOPs / peak + each array / memory bandwidth) / 0.9, every term at least
one 1312 MHz clock cycle, bandwidth 900 GiB/s; convolutions as Paleo's GEMM
over the padded input, their backward pass the data gradient only (none for
the first convolution, which reads the network input); pooling 2 FLOPs per
window element forward and backward, reading its input and writing its
output; the fully connected layer a GEMM each way; activations,
concatenations and the flatten cost nothing. One device: the step is the
sum of every op's forward and backward time."""

import math

N, E = 128, 4.0
RATE = 14000e9 * 0.9
TRAFFIC = 900 * 2**30 * 0.9
CYCLE = 1 / 1312e6


def time(flops, arrays):
    t = max(CYCLE, flops / RATE) if flops > 0 else 0.0
    return t + sum(max(CYCLE, b / TRAFFIC) for b in arrays)


def same_pad(size, k, s):
    out = math.ceil(size / s)
    return out, max((out - 1) * s + k - size, 0) // 2


def conv(h, c, k, o, s=1, padding="SAME", backprop=True):
    """[N, h, h, c] by a k x k filter into o channels; returns (seconds,
    output size)."""
    if padding == "SAME":
        oh, p = same_pad(h, k, s)
    else:
        oh, p = (h - k) // s + 1, 0
    fwd = time(2.0 * k * k * c * oh * oh * o * N,
               [N * (h + 2 * p) ** 2 * c * E, k * k * c * o * E,
                N * oh * oh * o * E])
    if not backprop:
        return fwd, oh
    # The data gradient: the output gradient dilated by the stride, padded
    # as TensorFlow's Conv2DBackpropInput, by the transposed filter.
    size = (oh - 1) * s + 1
    before = k - 1 - p
    after = h + k - 1 - size - before
    if abs(before - after) == 1:
        size += 1
    pad = min(before, after)
    holes = (size * size - oh * oh) / (size * size)
    d = size + 2 * pad - k + 1
    flops = 2.0 * k * k * o * d * d * c * N
    if holes > 0:
        flops += 2.0 * N * size * size * o * (1 - holes)
    bwd = time(flops, [N * (size + 2 * pad) ** 2 * o * E, k * k * o * c * E,
                       N * d * d * c * E])
    return fwd + bwd, oh


def pool(h, c, k, s=1, padding="SAME"):
    oh = math.ceil(h / s) if padding == "SAME" else (h - k) // s + 1
    t = time(2.0 * k * k * N * oh * oh * c,
             [N * h * h * c * E, N * oh * oh * c * E])
    return 2 * t, oh


total = 0.0
def add(result):
    global total
    total += result[0]
    return result[1]

add(conv(35, 192, 1, 192, backprop=False))          # Conv2d_4a_1x1
# Mixed_5b: 35x35x192 -> 35x35x256
add(conv(35, 192, 1, 64))
add(conv(35, 192, 1, 48)); add(conv(35, 48, 5, 64))
add(conv(35, 192, 1, 64)); add(conv(35, 64, 3, 96)); add(conv(35, 96, 3, 96))
add(pool(35, 192, 3)); add(conv(35, 192, 1, 32))
# Mixed_6a: 35x35x256 -> 17x17x736
add(conv(35, 256, 3, 384, 2, "VALID"))
add(conv(35, 256, 1, 64)); add(conv(35, 64, 3, 96))
add(conv(35, 96, 3, 96, 2, "VALID"))
add(pool(35, 256, 3, 2, "VALID"))
add(pool(17, 736, 17, 1, "VALID"))                 # AvgPool_1a_17x17
fc = time(2.0 * N * 736 * 10, [N * 736 * E, 736 * 10 * E, N * 10 * E])
total += fc + time(2.0 * N * 736 * 10, [N * 10 * E, 736 * 10 * E, N * 736 * E])
print("step time %.3f ms" % (total * 1e3))
