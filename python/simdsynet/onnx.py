"""Running ONNX models on simd-synet.

    net = simdsynet.onnx.load("model.onnx", threads=1)
    outputs = net.run(x)                  # one array (single-input models) ...
    outputs = net.run({"input": x})       # ... or a dict input name -> array

`load` reads the model (Debian's python3-onnx), checks that everything in it is supported
(operators, attributes, float32 data: anything else raises UnsupportedModelError naming the
node and the reason), and compiles it once into a plan over
the library: BatchNormalization folded into the preceding convolution, activations fused into
the convolution contexts, depthwise/pointwise chains onto the merged convolution, NHWC inside
the network, every buffer allocated once. `run` executes the plan in one C++ call (no Python
per layer, the GIL released) and returns the outputs in the graph's order, NCHW as the model
declares them. A model whose input shapes hold dimensions known only at run time (a dynamic
batch) is compiled per input shape at the first run with that shape (or ahead, `shapes=`), and
the plans are kept in a small cache.
"""

import collections
import threading
import time

import numpy as np

from . import _executor
from . import _onnx_int8 as _int8
from ._onnx_emit import emit
from ._onnx_file import NetworkWriter
from ._onnx_fuse import fuse, fuse_residual_adds
from ._onnx_graph import Model, UnsupportedModelError, onnx
from ._onnx_lower import lower
from ._onnx_merge import merge_convolutions
from ._onnx_plan import Layouts, plan_memory
from ._onnx_shuffle import map_channel_shuffles
from ._simdsynet import Error

__all__ = ["load", "compile", "load_compiled", "Network", "CompiledNetwork",
           "UnsupportedModelError"]


def _read(model):
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        return onnx.load_from_string(bytes(model))
    return onnx.load(str(model))


def _network_file(net, arena):
    """The network file (bytes) of a planned network and the FLOP of each of its steps."""
    writer = NetworkWriter()
    flops = emit(net, writer)
    return writer.finish(arena, flops), flops


def _load_file(data):
    """The executor of a network file, built by the runtime's loader (SimdSynetNetworkLoad's)."""
    try:
        return _executor.load(data)
    except Error as error:
        raise UnsupportedModelError(f"the library rejected a layer: {error}") from error


class _Plan:
    """The compiled plan of a model for one set of input shapes: its executor, built from the
    plan's network file by the runtime's loader (the file itself is kept with `keep_file`), the
    FLOP of each step and how long compiling took."""

    def __init__(self, model, shapes, threads, merge, guard, int8, keep_file=False):
        start = time.perf_counter()
        net = lower(model.with_shapes(shapes))
        self.shapes = shapes
        self.uint8_tensors = 0  # INT8: convolution outputs passed on as UINT8
        fuse(net)
        if merge and int8 is None:
            merge_convolutions(net)
        map_channel_shuffles(net)
        if int8 is None:
            fuse_residual_adds(net)
        Layouts(net).run()
        if int8 is not None:
            self._quantize(net, int8)
        arena, guards = plan_memory(net, guard)
        data, self.step_flops = _network_file(net, arena)
        self.file = data if keep_file else None
        self.executor = _load_file(data)
        del data
        if guard:
            # Tests: every tensor followed by `guard` floats checked after every step.
            self.executor.guard(guards)
        # The executor holds everything it needs: the model's arrays are not kept.
        self.flops = sum(self.step_flops)
        self.executor.threads = threads
        self.compile_seconds = time.perf_counter() - start

    def _quantize(self, net, samples):
        """Calibrates the convolutions on an FP32 plan of `net` and marks them INT8."""
        arena, _ = plan_memory(net, reuse=False)
        executor = _load_file(_network_file(net, arena)[0])
        names = [t.name for t in net.inputs]

        def arrays(sample):
            if sorted(sample) != sorted(names):
                raise ValueError(f"calibration inputs: {sorted(sample)} given, the model has "
                                 f"{names}")
            return [np.ascontiguousarray(sample[name], dtype=np.float32) for name in names]
        stats = _int8.calibrate(net, executor, arrays, samples)
        del executor
        _int8.forget_memory(net)
        self.uint8_tensors = _int8.assign(net, stats)


# Plans kept per Network for models with dimensions known only at run time: each holds its
# own arena and a copy of the weights, so the cache is small; the least recently run goes.
MAX_PLANS = 8


class Network:
    """A loaded model. Use `load` to create one. (`merge=False` keeps depthwise/pointwise
    chains as separate convolutions; `guard` > 0, for tests, plans without memory reuse and
    checks after every step that no step wrote the `guard` floats after any tensor; `int8`,
    `shapes` and `max_plans`: see `load`.)

    `inputs` holds each input's declared shape, None for a dimension known only at run time.
    `steps()`, `flops`, `arena_bytes`, `uint8_tensors` and `compile_seconds` describe the plan
    run last (compiled last before any run)."""

    def __init__(self, model, threads=1, merge=True, guard=0, int8=None, shapes=None,
                 max_plans=MAX_PLANS, keep_file=False):
        self._model = Model(_read(model))
        self.inputs = list(self._model.inputs)
        self.outputs = list(self._model.outputs)
        self.dynamic = self._model.dynamic
        self.int8 = int8 is not None and int8 is not False
        if int(max_plans) < 1:
            raise ValueError("max_plans must be at least 1")
        self.max_plans = int(max_plans)
        self._options = dict(merge=merge, guard=guard, keep_file=keep_file)
        self._plans = collections.OrderedDict()  # input shapes -> _Plan, least recent first
        self._lock = threading.Lock()  # the cache; runs of one plan lock in its executor
        self._last = None
        self._fixed = None  # the one plan of a model with fixed shapes
        self._threads = 1
        self.threads = threads
        if self.dynamic:
            if self.int8:
                # Calibration statistics belong to one plan's tensors; gathering them again for
                # every shape would make an item's INT8 result depend on the batch it came in.
                raise UnsupportedModelError(
                    "INT8 plans need fixed input shapes; this model has dimensions known only "
                    f"at run time ({self._describe_dynamic()})")
            node = self._model.unsupported_operators()
            if node is not None:
                node.fail("operator not supported")
            self._samples = None
        else:
            self._samples = _int8.calibration_inputs(self.inputs, int8) if self.int8 else None
            self._fixed = self._plan(self._check_shapes(dict(self.inputs)))
            self._samples = None  # the only shape is compiled: the inputs are not needed again
        for entry in self._shape_list(shapes):
            self._plan(self._check_shapes(entry))

    def _describe_dynamic(self):
        return ", ".join(f"'{name}' {self.declared(name)}" for name, _ in self.inputs)

    def _shape_list(self, shapes):
        """`shapes` of load(): None, a dict name -> shape, a list of such, or one shape (a
        sequence of ints) for a single-input model; as a list of dicts."""
        if shapes is None:
            return []
        if isinstance(shapes, dict):
            return [shapes]
        shapes = list(shapes)
        if shapes and all(isinstance(d, (int, np.integer)) for d in shapes):
            if len(self.inputs) != 1:
                raise ValueError(f"the model has {len(self.inputs)} inputs: give shapes as a dict "
                                 f"{[n for n, _ in self.inputs]}")
            return [{self.inputs[0][0]: shapes}]
        if not all(isinstance(entry, dict) for entry in shapes):
            raise ValueError("shapes must be a dict input name -> shape, a list of such dicts, "
                             "or one shape of a single-input model")
        return shapes

    def _check_shapes(self, given):
        """The input shapes as a hashable key (a tuple of shapes in input order), refused with
        a ValueError naming the input when a shape has the wrong rank, contradicts a fixed
        dimension, or gives one named dimension two values."""
        missing = [name for name, _ in self.inputs if name not in given]
        extra = [name for name in given if name not in dict(self.inputs)]
        if missing or extra:
            raise ValueError(f"inputs: missing {missing}, unknown {extra}")
        named = {}
        key = []
        for name, declared in self.inputs:
            shape = given[name]
            try:
                shape = tuple(int(d) for d in shape)
            except (TypeError, ValueError):
                raise ValueError(f"input '{name}': shape {shape!r} is not a sequence of integers")
            if len(shape) != len(declared):
                raise ValueError(f"input '{name}' has rank {len(declared)} (shape "
                                 f"{self.declared(name, declared)}), not {len(shape)} (shape "
                                 f"{shape})")
            for axis, (want, got) in enumerate(zip(declared, shape)):
                if want is not None and want != got:
                    raise ValueError(f"input '{name}': dimension {axis} is {want}, not {got} "
                                     f"(shape {shape}, declared {self.declared(name, declared)})")
                if got < 1:
                    raise ValueError(f"input '{name}': dimension {axis} is {got} (shape {shape})")
                dim_name = self._model.dim_names.get((name, axis))
                if dim_name is not None:
                    seen = named.setdefault(dim_name, (got, name, axis))
                    if seen[0] != got:
                        raise ValueError(
                            f"dimension '{dim_name}' is {seen[0]} in input '{seen[1]}' (axis "
                            f"{seen[2]}) and {got} in input '{name}' (axis {axis})")
            key.append(shape)
        return tuple(key)

    def declared(self, name, declared=None):
        """Input `name`'s declared shape as text, dynamic dimensions by their names ('?' for
        unnamed ones): "(batch, 3, 224, 224)"."""
        declared = dict(self.inputs)[name] if declared is None else declared
        dims = [str(d) if d is not None else self._model.dim_names.get((name, i), "?")
                for i, d in enumerate(declared)]
        return "(" + ", ".join(dims) + ")"

    def _plan(self, key):
        """The plan for input shapes `key` (_check_shapes), compiled on first use. Compiling
        happens outside the lock, so runs of other shapes go on meanwhile; two threads that
        compile the same new shape at once keep the first plan stored."""
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:
                self._plans.move_to_end(key)
                self._last = plan
                return plan
        shapes = {name: shape for (name, _), shape in zip(self.inputs, key)}
        samples = self._samples
        plan = _Plan(self._model, shapes, self._threads, int8=samples, **self._options)
        with self._lock:
            stored = self._plans.get(key)
            if stored is not None:
                plan = stored
                self._plans.move_to_end(key)
            else:
                # `threads` may have changed while this plan was compiled.
                plan.executor.threads = self._threads
                self._plans[key] = plan
                while len(self._plans) > self.max_plans:
                    self._plans.popitem(last=False)
            self._last = plan
        return plan

    def compile(self, shapes):
        """Compiles the plans for `shapes` (as load's `shapes`) now, not at their first run."""
        for entry in self._shape_list(shapes):
            self._plan(self._check_shapes(entry))

    def plan_shapes(self):
        """The input shapes of the plans in the cache, least recently run first (each a tuple
        of shapes in input order)."""
        with self._lock:
            return list(self._plans)

    def _current(self):
        plan = self._last
        if plan is None:
            raise RuntimeError("the model's input shapes are known only at run time: no plan "
                               "is compiled before the first run (or load(..., shapes=...))")
        return plan

    @property
    def threads(self):
        """The library's thread budget (SimdSetThreadNumber) during run()."""
        return self._threads

    @threads.setter
    def threads(self, value):
        value = int(value)
        if value < 1:
            raise ValueError("threads must be at least 1")
        with self._lock:
            self._threads = value
            for plan in self._plans.values():
                plan.executor.threads = value

    def _arrays(self, x):
        """The input arrays in input order and the plan for their shapes."""
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
        arrays = [np.ascontiguousarray(a, dtype=np.float32) for a in x]
        key = tuple(a.shape for a in arrays)
        if self._fixed is not None:
            # The executor checks the shapes itself, naming the input.
            return arrays, self._fixed
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:
                self._plans.move_to_end(key)
                self._last = plan
                return arrays, plan
        key = self._check_shapes({name: a.shape for (name, _), a in zip(self.inputs, arrays)})
        return arrays, self._plan(key)

    def run(self, x, profile=False):
        """The outputs (a list of float32 arrays in the graph's output order) for input `x`:
        one array, or a dict input name -> array (NCHW as the model declares it). A model with
        dimensions known only at run time is compiled here for shapes not run before."""
        arrays, plan = self._arrays(x)
        return plan.executor.run(arrays, profile)

    def profile(self, x, runs=10, warmup=2):
        """Runs the model `runs` times with per-step timers and returns a dict: 'steps' (one
        dict per step: name, kind, category, info, ms, min_ms, flops), 'total_ms', 'input_ms', 'output_ms',
        'kernel_ms', 'layout_ms', 'glue_ms' and 'outside_ms' (everything but the library's
        compute kernels), averaged per run; 'plain_ms', the time of an unprofiled run
        (median of `runs`); each step's fastest run ('min_ms') and the sums of those over the
        kernels ('min_kernel_ms') and the layout conversions and glue ('min_outside_ms'), which
        other work on the machine disturbs less than the averages; 'compile_ms', the time
        compiling the plan for these input shapes took, and 'shapes', those shapes."""
        arrays, plan = self._arrays(x)
        executor = plan.executor
        for _ in range(warmup):
            executor.run(arrays, False)
        plain = []
        for _ in range(runs):
            start = time.perf_counter()
            executor.run(arrays, False)
            plain.append(time.perf_counter() - start)
        executor.reset_profile()
        for _ in range(runs):
            executor.run(arrays, True)
        p = executor.profile()
        n = max(p["runs"], 1)
        steps = []
        sums = {"kernel": 0.0, "layout": 0.0, "glue": 0.0}
        mins = {"kernel": 0.0, "layout": 0.0, "glue": 0.0}
        for (name, kind, category, info), seconds, fastest, flops in zip(
                executor.steps(), p["steps"], p["fastest"], plan.step_flops):
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
                    min_kernel_ms=mins["kernel"], min_outside_ms=mins["layout"] + mins["glue"],
                    compile_ms=plan.compile_seconds * 1e3, shapes=dict(plan.shapes))

    def steps(self):
        """The plan: (name, kind, category, info) per executor step."""
        return self._current().executor.steps()

    @property
    def flops(self):
        return self._current().flops

    @property
    def uint8_tensors(self):
        """INT8: convolution outputs passed on as UINT8."""
        return self._current().uint8_tensors

    @property
    def compile_seconds(self):
        return self._current().compile_seconds

    @property
    def arena_bytes(self):
        executor = self._current().executor
        return 4 * (executor.arena_floats + executor.scratch_floats)


def load(path, threads=1, int8=None, shapes=None, max_plans=MAX_PLANS):
    """Loads an ONNX model (a path, the model's bytes or an onnx.ModelProto) and compiles it
    into a plan over the library; `threads` is the library's thread budget during run().

    Dimensions known only at run time (a dynamic batch, dim_param or no value in the model's
    input shapes): the model is read and its operators checked here, and the plan is compiled
    at the first run with each new set of input shapes, then kept; at most `max_plans` plans
    are kept, the least recently run one goes first. `shapes` compiles ahead: a dict input name
    -> shape, a list of such dicts, or one shape for a single-input model. Refusals that depend
    on the shapes (a kernel larger than the padded input, say) then come at that compile.

    int8: None (FP32 throughout), or the calibration inputs of an INT8 plan: True (8 random
    standard-normal inputs, the distribution of the runner's random inputs) or a sequence of
    inputs (each an array, or a dict input name -> array). Every convolution then runs on the
    INT8 framework (SimdSynetConvolution8i, quantized with the per-channel minimum and maximum
    of its input and output over the calibration inputs), the rest in FP32; convolution outputs
    read only by convolutions stay UINT8 (_onnx_int8.py says why that changes no result). INT8
    needs fixed input shapes."""
    return Network(path, threads=threads, int8=int8, shapes=shapes, max_plans=max_plans)


def compile(model, path=None, int8=None, shapes=None, merge=True):
    """Compiles an ONNX model (as `load` takes it) into a network file and returns its bytes;
    with `path`, also writes them there. The file holds the whole plan (steps, folded weights,
    buffer plan, input and output names and shapes) and runs without Python: the C API of
    SimdSynetRuntime.h, the tools simdsynet-run and simdsynet-bench, or `load_compiled`. It
    records no instruction set: contexts are created on the CPU that loads it.

    A file holds one plan, so a model with dimensions known only at run time needs `shapes`
    (one set, as `load` takes it); `int8` as in `load`."""
    network = Network(model, int8=int8, merge=merge, keep_file=True)
    if network.dynamic:
        entries = network._shape_list(shapes)
        if len(entries) != 1:
            raise ValueError("a network file holds one plan: give one set of input shapes "
                             f"for this model's dimensions known at run time "
                             f"({network._describe_dynamic()})")
        network.compile(entries)
    elif shapes is not None:
        network._check_shapes(network._shape_list(shapes)[0])
    data = network._current().file
    if path is not None:
        with open(path, "wb") as f:
            f.write(data)
    return data


class CompiledNetwork:
    """A network file loaded for running (`load_compiled`): `run`, `inputs` and `outputs`
    (name and shape each), `threads`, `steps()`."""

    def __init__(self, data, threads=1):
        self._executor = _load_file(data)
        self.inputs = [(name, tuple(shape)) for name, shape in self._executor.inputs()]
        self.outputs = [(name, tuple(shape)) for name, shape in self._executor.outputs()]
        self.threads = threads

    @property
    def threads(self):
        return self._executor.threads

    @threads.setter
    def threads(self, value):
        if int(value) < 1:
            raise ValueError("threads must be at least 1")
        self._executor.threads = int(value)

    def run(self, x):
        """The outputs for `x`: one array, or a dict input name -> array."""
        names = [name for name, _ in self.inputs]
        if isinstance(x, dict):
            if sorted(x) != sorted(names):
                raise ValueError(f"inputs: {sorted(x)} given, the network has {names}")
            x = [x[name] for name in names]
        else:
            if len(names) != 1:
                raise ValueError(f"the network has {len(names)} inputs: pass a dict {names}")
            x = [x]
        return self._executor.run([np.ascontiguousarray(a, dtype=np.float32) for a in x], False)

    def steps(self):
        """(name, kind, category, info) per step."""
        return self._executor.steps()


def load_compiled(file, threads=1):
    """Loads a network file written by `compile` (a path or the file's bytes) with the
    runtime's loader, which checks everything in it before use."""
    if not isinstance(file, (bytes, bytearray, memoryview)):
        with open(file, "rb") as f:
            file = f.read()
    return CompiledNetwork(file, threads)
