"""INT8 convolutions in simdsynet.onnx (load(..., int8=...)).

Calibration: the planned network (convolutions not merged, every fusion done) runs in FP32 on a
few calibration inputs with an arena that reuses no memory, so that every tensor is still there
after a run; the minimum and maximum of every channel of each convolution's input and output
(after its fused activation) are gathered over the inputs. Those are the `stats` of
SimdSynetConvolution8iSetParams (SUPPLEMENT.md §11): every convolution then runs on the INT8
framework (input quantized per channel, weights per output channel, INT32 sums, FP32 bias and
activation); everything else stays FP32.

UINT8 between convolutions: a convolution's output that only INT8 convolutions read (not a
network output, not viewed) is written as UINT8 (dst_type uint8) and read as such (src_type
uint8). Its producer quantizes it with the output statistics, which are the statistics of the
same tensor its readers would quantize their FP32 input with, so the bytes are those the
readers would compute: the choice changes no result, it saves the FP32 store and the
quantizing pass (and 3/4 of the tensor's memory traffic). It holds for any activation; after a
ReLU-like one the tensor is unsigned and keeps all 256 levels, otherwise it is signed (zero
point 128, 128 levels each side), as the reader's own quantization would be.
"""

import numpy as np

# Random calibration inputs (int8=True): standard normal, as the runner's and the benchmark's
# random test inputs, from a seed of their own.
CALIBRATION_INPUTS = 8
CALIBRATION_SEED = 20240527
# The INT8 mode (SimdSynetCompatibilityType): exact products and sums (8iPrecise).
COMPATIBILITY = 0
# UINT8 tensors between convolutions (the tests turn it off to show that it changes nothing).
UINT8_BETWEEN_CONVOLUTIONS = True


def calibration_inputs(inputs, int8):
    """The calibration samples, each a dict input name -> array: `int8` is True (random inputs)
    or a sequence of samples, each an array (single-input models) or such a dict."""
    if int8 is True:
        rng = np.random.default_rng(CALIBRATION_SEED)
        return [{name: rng.standard_normal(shape).astype(np.float32) for name, shape in inputs}
                for _ in range(CALIBRATION_INPUTS)]
    samples = list(int8)
    if not samples:
        raise ValueError("int8 needs at least one calibration input (or True)")
    return [s if isinstance(s, dict) else {inputs[0][0]: s} for s in samples]


def convolutions(net):
    return [op for op in net.ops if op.kind == "conv"]


class Statistics:
    """Per-channel minimum and maximum of NHWC tensors over several runs."""

    def __init__(self):
        self.low, self.high = {}, {}

    def add(self, key, data, channels):
        values = data.reshape(-1, channels)
        low, high = values.min(axis=0), values.max(axis=0)
        if key in self.low:
            low, high = np.minimum(self.low[key], low), np.maximum(self.high[key], high)
        self.low[key], self.high[key] = low, high

    def get(self, key):
        return widen_dead_channels(self.low[key], self.high[key])


# A channel whose largest magnitude is below this fraction of the tensor's largest is "dead".
DEAD_CHANNEL = 1e-4


def widen_dead_channels(low, high):
    """Statistics with the range of every dead channel (constant 0 in the calibration, as a
    ReLU's output channel often is) widened to the smallest range of the live ones. §11 gives a
    channel whose range is below 1e-7 per level the step 1: its weights, multiplied by that step,
    would then set the scale of each output channel's weights, and every other weight would
    round to a few levels or to 0 (resnet18: 89% of a layer's INT8 weights 0, the layer's
    output 68% off). A widened dead channel quantizes its zeros exactly and weighs no more
    than the live channels in the weight scale."""
    peak = np.maximum(np.abs(low), np.abs(high))
    top = float(peak.max()) if peak.size else 0.0
    dead = peak <= DEAD_CHANNEL * top
    if top == 0.0 or not dead.any():
        return low, high
    width = float(peak[~dead].min())
    return low, np.where(dead, np.maximum(high, np.float32(width)), high).astype(np.float32)


def calibrate(net, executor, arrays, samples):
    """Statistics of every convolution's input and output (keyed by the tensors' ids), from
    running `executor` (the FP32 plan of `net` without memory reuse) on `samples`; `arrays`
    turns a sample into the executor's input list."""
    from ._onnx_plan import offset
    stats = Statistics()
    tensors = {}
    for op in convolutions(net):
        for t in (op.inputs[0], op.outputs[0]):
            tensors[id(t)] = t
    for sample in samples:
        executor.run(arrays(sample), False)
        for key, t in tensors.items():
            stats.add(key, executor.read(offset(t), t.size), t.shape[1])
    return stats


def assign(net, stats):
    """Marks every convolution INT8 (op attribute "int8": the stats and the tensor types) and
    makes UINT8 the tensors only INT8 convolutions read; returns how many those are."""
    ops = convolutions(net)
    for op in ops:
        x, y = op.inputs[0], op.outputs[0]
        low, high = stats.get(id(x))
        out_low, out_high = stats.get(id(y))
        op.attrs["int8"] = dict(stats=[low, high, out_low, out_high], src_type="float32",
                                dst_type="float32", compatibility=COMPATIBILITY)
    for op in ops if UINT8_BETWEEN_CONVOLUTIONS else []:
        y = op.outputs[0]
        readers = y.consumers
        if (readers and not net.is_output(y) and
                all(r.kind == "conv" and r.inputs[0] is y for r in readers)):
            y.dtype = "uint8"
            op.attrs["int8"]["dst_type"] = "uint8"
            for r in readers:
                r.attrs["int8"]["src_type"] = "uint8"
    return sum(op.outputs[0].dtype == "uint8" for op in ops)


def forget_memory(net):
    """Clears the offsets of a memory plan, so that the network can be planned again."""
    tensors = list(net.inputs) + list(net.outputs)
    for op in net.ops:
        tensors += op.inputs + op.outputs
    for t in tensors:
        t.offset = None
