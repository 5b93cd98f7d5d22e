"""Running ONNX models on simd-synet.

    net = simdsynet.onnx.load("model.onnx", threads=1)
    outputs = net.run(x)                  # one array (single-input models) ...
    outputs = net.run({"input": x})       # ... or a dict input name -> array

`load` reads the model (Debian's python3-onnx), checks that everything in it is supported
(operators, attributes, float32 data, fixed shapes: anything else raises
UnsupportedModelError naming the node and the reason), and compiles it once into a plan over
the library: BatchNormalization folded into the preceding convolution, activations fused into
the convolution contexts, depthwise/pointwise chains onto the merged convolution, NHWC inside
the network, every buffer allocated once. `run` executes the plan in one C++ call (no Python
per layer, the GIL released) and returns the outputs in the graph's order, NCHW as the model
declares them.
"""

import time

import numpy as np

from . import _executor
from . import _onnx_int8 as _int8
from ._onnx_emit import emit
from ._onnx_fuse import fuse
from ._onnx_graph import Model, UnsupportedModelError, onnx
from ._onnx_lower import lower
from ._onnx_merge import merge_convolutions
from ._onnx_plan import Layouts, plan_memory
from ._onnx_shuffle import map_channel_shuffles
from ._simdsynet import Error

__all__ = ["load", "Network", "UnsupportedModelError"]


def _read(model):
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        return onnx.load_from_string(bytes(model))
    return onnx.load(str(model))


class Network:
    """A loaded model. Use `load` to create one. (`merge=False` keeps depthwise/pointwise
    chains as separate convolutions; `guard` > 0, for tests, plans without memory reuse and
    checks after every step that no step wrote the `guard` floats after any tensor; `int8`:
    see `load`.)"""

    def __init__(self, model, threads=1, merge=True, guard=0, int8=None):
        net = lower(Model(_read(model)))
        self.inputs = [(t.name, t.shape) for t in net.inputs]
        self.outputs = [t.name for t in net.outputs]
        self.int8 = int8 is not None and int8 is not False
        self.uint8_tensors = 0  # INT8: convolution outputs passed on as UINT8
        fuse(net)
        if merge and not self.int8:
            merge_convolutions(net)
        map_channel_shuffles(net)
        Layouts(net).run()
        if self.int8:
            self._quantize(net, int8)
        arena, guards = plan_memory(net, guard)
        self._executor = _executor.Executor()
        try:
            self._step_flops = emit(net, self._executor)
        except Error as error:
            raise UnsupportedModelError(f"the library rejected a layer: {error}") from error
        self._executor.finalize(arena)
        if guard:
            # Tests: every tensor followed by `guard` floats checked after every step.
            self._executor.guard(guards)
        # The executor holds everything it needs: the model's arrays are not kept.
        self.flops = sum(self._step_flops)
        self.threads = threads

    def _quantize(self, net, int8):
        """Calibrates the convolutions on an FP32 plan of `net` and marks them INT8."""
        samples = _int8.calibration_inputs(self.inputs, int8)
        arena, _ = plan_memory(net, reuse=False)
        executor = _executor.Executor()
        try:
            emit(net, executor)
        except Error as error:
            raise UnsupportedModelError(f"the library rejected a layer: {error}") from error
        executor.finalize(arena)
        stats = _int8.calibrate(net, executor, self._arrays, samples)
        del executor
        _int8.forget_memory(net)
        self.uint8_tensors = _int8.assign(net, stats)

    @property
    def threads(self):
        """The library's thread budget (SimdSetThreadNumber) during run()."""
        return self._executor.threads

    @threads.setter
    def threads(self, value):
        value = int(value)
        if value < 1:
            raise ValueError("threads must be at least 1")
        self._executor.threads = value

    def _arrays(self, x):
        if isinstance(x, dict):
            missing = [name for name, _ in self.inputs if name not in x]
            extra = [name for name in x if name not in dict(self.inputs)]
            if missing or extra:
                raise ValueError(f"inputs: missing {missing}, unknown {extra}")
            x = [x[name] for name, _ in self.inputs]
        else:
            if len(self.inputs) != 1:
                raise ValueError(f"the model has {len(self.inputs)} inputs: pass a dict "
                                 f"{[n for n, _ in self.inputs]}")
            x = [x]
        return [np.ascontiguousarray(a, dtype=np.float32) for a in x]

    def run(self, x, profile=False):
        """The outputs (a list of float32 arrays in the graph's output order) for input `x`:
        one array, or a dict input name -> array (NCHW as the model declares it)."""
        return self._executor.run(self._arrays(x), profile)

    def profile(self, x, runs=10, warmup=2):
        """Runs the model `runs` times with per-step timers and returns a dict: 'steps' (one
        dict per step: name, kind, category, info, ms, min_ms, flops), 'total_ms', 'input_ms', 'output_ms',
        'kernel_ms', 'layout_ms', 'glue_ms' and 'outside_ms' (everything but the library's
        compute kernels), averaged per run; 'plain_ms', the time of an unprofiled run
        (median of `runs`); each step's fastest run ('min_ms') and the sums of those over the
        kernels ('min_kernel_ms') and the layout conversions and glue ('min_outside_ms'), which
        other work on the machine disturbs less than the averages."""
        arrays = self._arrays(x)
        for _ in range(warmup):
            self._executor.run(arrays, False)
        plain = []
        for _ in range(runs):
            start = time.perf_counter()
            self._executor.run(arrays, False)
            plain.append(time.perf_counter() - start)
        self._executor.reset_profile()
        for _ in range(runs):
            self._executor.run(arrays, True)
        p = self._executor.profile()
        n = max(p["runs"], 1)
        steps = []
        sums = {"kernel": 0.0, "layout": 0.0, "glue": 0.0}
        mins = {"kernel": 0.0, "layout": 0.0, "glue": 0.0}
        for (name, kind, category, info), seconds, fastest, flops in zip(
                self._executor.steps(), p["steps"], p["fastest"], self._step_flops):
            ms = seconds * 1e3 / n
            steps.append(dict(name=name, kind=kind, category=category, info=info, ms=ms,
                              min_ms=fastest * 1e3, flops=flops))
            sums[category] += ms
            mins[category] += fastest * 1e3
        total = p["total"] * 1e3 / n
        edges = (p["input"] + p["output"]) * 1e3 / n
        return dict(steps=steps, total_ms=total, input_ms=p["input"] * 1e3 / n,
                    output_ms=p["output"] * 1e3 / n, kernel_ms=sums["kernel"],
                    layout_ms=sums["layout"] + edges, glue_ms=sums["glue"],
                    outside_ms=total - sums["kernel"],
                    plain_ms=float(np.median(plain)) * 1e3,
                    min_kernel_ms=mins["kernel"], min_outside_ms=mins["layout"] + mins["glue"])

    def steps(self):
        """The plan: (name, kind, category, info) per executor step."""
        return self._executor.steps()

    @property
    def arena_bytes(self):
        return 4 * (self._executor.arena_floats + self._executor.scratch_floats)


def load(path, threads=1, int8=None):
    """Loads an ONNX model (a path, the model's bytes or an onnx.ModelProto) and compiles it
    into a plan over the library; `threads` is the library's thread budget during run().

    int8: None (FP32 throughout), or the calibration inputs of an INT8 plan: True (8 random
    standard-normal inputs, the distribution of the runner's random inputs) or a sequence of
    inputs (each an array, or a dict input name -> array). Every convolution then runs on the
    INT8 framework (SimdSynetConvolution8i, quantized with the per-channel minimum and maximum
    of its input and output over the calibration inputs), the rest in FP32; convolution outputs
    read only by convolutions stay UINT8 (_onnx_int8.py says why that changes no result)."""
    return Network(path, threads=threads, int8=int8)
