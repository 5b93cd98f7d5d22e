"""The writer of compiled network files (.ssn; schema runtime/schema/SimdSynetNetwork.fbs).

The emitter (_onnx_emit) calls one method per executor step, as it would call the executor;
each becomes a table of the file. `finish` returns the file's bytes, which the runtime's loader
(python: _executor.load; C: SimdSynetNetworkLoad) verifies and turns into an executor. Arrays
the emitter passes become constants of the file, 64-byte aligned so that a mapped file's weights
are read in place."""

import numpy as np
import flatbuffers

from . import _simdsynet
from .SimdSynetFile import (
    Activation, ActivationKind, Binding, ConcatScaleRelu, Constant, ConvertImage, Convolution,
    Convolution8i, Copy, Deconvolution, DilatedMaxPooling, Eltwise, InnerProduct, Layer,
    LinearTaps, Lrn, MatMul, MergedConvolution, Network, Normalize, Pad, Pooling, Prelu, Reduce,
    ReductionKind, ResizeLinear, ResizeNearest, Scale, Shuffle, Softmax, Step, Tile, Transpose)
from .SimdSynetFile.ConvolutionDesc import CreateConvolutionDesc
from .SimdSynetFile.CopyRegion import CreateCopyRegion
from .SimdSynetFile.PoolingShape import CreatePoolingShape
from .SimdSynetFile.Ref import CreateRef

# The format version this writer produces (SIMD_SYNET_NETWORK_FORMAT_VERSION of the runtime).
FORMAT_VERSION = 2
FILE_IDENTIFIER = b"SSNF"
CONSTANT_ALIGNMENT = 64

REF_NONE, REF_ARENA, REF_CONSTANT = 0, 1, 2
FORMATS = {"nchw": 0, "nhwc": 1}
TYPES = {"float32": 0, "uint8": 1}
POOLING = {"max": 0, "average": 1}  # anything else: average excluding the padding (2)


def camel(name):
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def enum_value(enum_class, name):
    value = getattr(enum_class, camel(name), None)
    if value is None:
        raise ValueError(f"{enum_class.__name__} has no {name}")
    return value


# Values of a table's fields that are not scalars: each knows how to be written.
class _Ulongs(list):
    pass


class _Floats(list):
    pass


class _Bools(list):
    pass


class _Refs(list):
    pass


class _Ref(tuple):
    pass


class _Struct:
    def __init__(self, create, *values):
        self.create, self.values = create, values


class NetworkWriter:
    """Collects the steps of one plan and writes them as one network file."""

    def __init__(self, initial_bytes=1 << 20):
        self.b = flatbuffers.Builder(initial_bytes)
        self.constants = []   # offsets of Constant tables
        self.layers = []      # (name, layer type, table offset) per step
        self.inputs, self.outputs = [], []

    # Values.

    def ref(self, value):
        """An array reference as the executor took it: an int (arena offset), an array
        (becomes a constant) or None."""
        if value is None:
            return _Ref((REF_NONE, 0))
        if isinstance(value, (int, np.integer)):
            return _Ref((REF_ARENA, int(value)))
        return _Ref((REF_CONSTANT, self.constant(value)))

    def constant(self, array):
        data = np.ascontiguousarray(np.asarray(array, np.float32).reshape(-1)).astype("<f4")
        b = self.b
        vector = self._raw_vector(data, CONSTANT_ALIGNMENT)
        Constant.Start(b)
        Constant.AddData(b, vector)
        self.constants.append(Constant.End(b))
        return len(self.constants) - 1

    def _raw_vector(self, data, alignment):
        """A vector of `data`'s little-endian elements, its first element `alignment`-aligned
        (copied as one block: weights are megabytes)."""
        b = self.b
        raw = data.tobytes()
        b.StartVector(data.itemsize, data.size, alignment)
        b.head = b.head - len(raw)
        b.Bytes[b.head:b.head + len(raw)] = raw
        b.vectorNumElems = data.size
        return b.EndVector()

    def _write(self, value):
        """Writes a vector (or other out-of-line value) before its table starts."""
        b = self.b
        if isinstance(value, _Ulongs):
            return self._raw_vector(np.asarray(value, "<u8").reshape(-1), 8)
        if isinstance(value, _Floats):
            return self._raw_vector(np.asarray(value, "<f4").reshape(-1), 4)
        if isinstance(value, _Bools):
            return self._raw_vector(np.asarray(value, np.uint8).reshape(-1), 1)
        if isinstance(value, _Refs):
            b.StartVector(16, len(value), 8)
            for kind, index in reversed(value):
                CreateRef(b, kind, index)
            return b.EndVector()
        if isinstance(value, str):
            return b.CreateString(value)
        raise TypeError(f"cannot write {type(value).__name__}")

    def _table(self, module, **fields):
        """Writes a table of the generated `module`: out-of-line values first, then the table
        with structs inline; returns its offset."""
        b = self.b
        written = {}
        for key, value in fields.items():
            if isinstance(value, (_Ulongs, _Floats, _Bools, _Refs, str)):
                written[key] = self._write(value)
        module.Start(b)
        for key, value in fields.items():
            if value is None:
                continue
            add = getattr(module, "Add" + camel(key))
            if key in written:
                add(b, written[key])
            elif isinstance(value, _Ref):
                add(b, CreateRef(b, *value))
            elif isinstance(value, _Struct):
                add(b, value.create(b, *value.values))
            else:
                add(b, value)
        return module.End(b)

    def _step(self, name, layer, module, **fields):
        self.layers.append((name, layer, self._table(module, **fields)))

    def _desc(self, d):
        sizes = [d["src_c"], d["src_h"], d["src_w"], d["dst_c"], d["dst_h"], d["dst_w"],
                 *d["kernel"], *d["stride"], *d["dilation"], *d["pad"], d["group"]]
        if len(sizes) != 17:
            raise ValueError("kernel, stride and dilation need 2 values, pad 4")
        return _Struct(CreateConvolutionDesc, *[int(v) for v in sizes], int(d["activation"]),
                       FORMATS[d["format"]], TYPES[d.get("src_type", "float32")],
                       TYPES[d.get("dst_type", "float32")])

    @staticmethod
    def _pooling_shape(s):
        if len(s) != 12:
            raise ValueError("pooling shape needs 12 values")
        return _Struct(CreatePoolingShape, *[int(v) for v in s])

    # Steps (the executor's methods, as _onnx_emit calls them).

    def convolution(self, name, batch, desc, weight, bias, params, src, dst, add=None):
        """`add`: None, or the residual added before the activation (not overlapping dst)."""
        self._step(name, Layer.Layer.Convolution, Convolution, batch=batch,
                   desc=self._desc(desc), weight=self.ref(weight), bias=self.ref(bias),
                   params=self.ref(params), src=self.ref(src), dst=self.ref(dst),
                   add=self.ref(add))

    def convolution8i(self, name, batch, desc, weight, bias, params, stats, compatibility, src,
                      dst):
        if len(stats) != 4:
            raise ValueError("stats needs 4 arrays")
        self._step(name, Layer.Layer.Convolution8i, Convolution8i, batch=batch,
                   desc=self._desc(desc), weight=self.ref(weight), bias=self.ref(bias),
                   params=self.ref(params), stats=_Refs(self.ref(s) for s in stats),
                   compatibility=int(compatibility), src=self.ref(src), dst=self.ref(dst))

    def merged_convolution(self, name, batch, descs, weights, biases, params, add, src, dst):
        b = self.b
        weights = _Refs(self.ref(w) for w in weights)
        biases = _Refs(self.ref(v) for v in biases)
        params = _Refs(self.ref(p) for p in params)
        b.StartVector(144, len(descs), 8)
        for d in reversed(descs):
            s = self._desc(d)
            s.create(b, *s.values)
        descs_vector = b.EndVector()
        written = [self._write(v) for v in (weights, biases, params)]
        MergedConvolution.Start(b)
        MergedConvolution.AddBatch(b, batch)
        MergedConvolution.AddDescs(b, descs_vector)
        MergedConvolution.AddWeights(b, written[0])
        MergedConvolution.AddBiases(b, written[1])
        MergedConvolution.AddParams(b, written[2])
        MergedConvolution.AddAdd(b, bool(add))
        MergedConvolution.AddSrc(b, CreateRef(b, *self.ref(src)))
        MergedConvolution.AddDst(b, CreateRef(b, *self.ref(dst)))
        self.layers.append((name, Layer.Layer.MergedConvolution, MergedConvolution.End(b)))

    def deconvolution(self, name, batch, desc, weight, bias, params, src, dst):
        self._step(name, Layer.Layer.Deconvolution, Deconvolution, batch=batch,
                   desc=self._desc(desc), weight=self.ref(weight), bias=self.ref(bias),
                   params=self.ref(params), src=self.ref(src), dst=self.ref(dst))

    def pooling(self, name, kind, shape, src, dst):
        self._step(name, Layer.Layer.Pooling, Pooling, kind=POOLING.get(kind, 2),
                   shape=self._pooling_shape(shape), src=self.ref(src), dst=self.ref(dst))

    def dilated_max_pooling(self, name, shape, dilations, src, dst):
        if len(dilations) != 2:
            raise ValueError("dilations needs 2 values")
        self._step(name, Layer.Layer.DilatedMaxPooling, DilatedMaxPooling,
                   shape=self._pooling_shape(shape), dilation_y=int(dilations[0]),
                   dilation_x=int(dilations[1]), src=self.ref(src), dst=self.ref(dst))

    def scale(self, name, src, scale, bias, channels, spatial, images, scale_stride,
              bias_stride, fmt, relu, dst):
        self._step(name, Layer.Layer.Scale, Scale, src=self.ref(src), scale=self.ref(scale),
                   bias=self.ref(bias), channels=channels, spatial=spatial, images=images,
                   scale_stride=scale_stride, bias_stride=bias_stride, format=FORMATS[fmt],
                   relu=bool(relu), dst=self.ref(dst))

    def concat_scale_relu(self, name, src0, channels0, src1, channels1, spatial, scale, bias,
                          dst0, dst1):
        self._step(name, Layer.Layer.ConcatScaleRelu, ConcatScaleRelu, src0=self.ref(src0),
                   channels0=channels0, src1=self.ref(src1), channels1=channels1,
                   spatial=spatial, scale=self.ref(scale), bias=self.ref(bias),
                   dst0=self.ref(dst0), dst1=self.ref(dst1))

    def eltwise(self, name, op_type, sources, weights, size, dst, activation, params):
        fields = dict(type=int(op_type), sources=_Refs(self.ref(s) for s in sources),
                      weights=_Floats(weights) if len(weights) else None, size=size,
                      dst=self.ref(dst))
        if activation:
            fields.update(has_activation=True,
                          activation=enum_value(ActivationKind.ActivationKind, activation),
                          params=_Floats(params) if len(params) else None)
        self._step(name, Layer.Layer.Eltwise, Eltwise, **fields)

    def activation(self, name, kind, params, src, size, dst):
        self._step(name, Layer.Layer.Activation, Activation,
                   kind=enum_value(ActivationKind.ActivationKind, kind),
                   params=_Floats(params) if len(params) else None, src=self.ref(src),
                   size=size, dst=self.ref(dst))

    def prelu(self, name, src, slope, channels, spatial, images, fmt, dst):
        self._step(name, Layer.Layer.Prelu, Prelu, src=self.ref(src), slope=self.ref(slope),
                   channels=channels, spatial=spatial, images=images, format=FORMATS[fmt],
                   dst=self.ref(dst))

    def softmax(self, name, src, outer, count, inner, dst, log=False):
        self._step(name, Layer.Layer.Softmax, Softmax, src=self.ref(src), outer=outer,
                   count=count, inner=inner, dst=self.ref(dst), log=bool(log))

    def log_softmax(self, name, src, outer, count, inner, dst):
        self.softmax(name, src, outer, count, inner, dst, log=True)

    def reduce(self, name, kind, src, shape, reduced, dst):
        self._step(name, Layer.Layer.Reduce, Reduce,
                   kind=enum_value(ReductionKind.ReductionKind, kind), src=self.ref(src),
                   shape=_Ulongs(shape), reduced=_Bools(reduced), dst=self.ref(dst))

    def tile(self, name, src, src_shape, dst_shape, dst):
        self._step(name, Layer.Layer.Tile, Tile, src=self.ref(src), src_shape=_Ulongs(src_shape),
                   dst_shape=_Ulongs(dst_shape), dst=self.ref(dst))

    def lrn(self, name, src, half, channels, spatial, k, dst):
        self._step(name, Layer.Layer.Lrn, Lrn, src=self.ref(src), half=half, channels=channels,
                   spatial=spatial, k=_Floats(k), dst=self.ref(dst))

    def normalize(self, name, version, src, batch, channels, spatial, scale, shift, eps, fmt,
                  dst):
        self._step(name, Layer.Layer.Normalize, Normalize, version=int(version),
                   src=self.ref(src), batch=batch, channels=channels, spatial=spatial,
                   scale=self.ref(scale), shift=self.ref(shift), eps=float(eps),
                   format=FORMATS[fmt], dst=self.ref(dst))

    def inner_product(self, name, src, weight, bias, rows, count, size, dst):
        self._step(name, Layer.Layer.InnerProduct, InnerProduct, src=self.ref(src),
                   weight=self.ref(weight), bias=self.ref(bias), rows=rows, count=count,
                   size=size, dst=self.ref(dst))

    def matmul(self, name, a, b, batch, m, n, k, stride_a, stride_b, dst):
        self._step(name, Layer.Layer.MatMul, MatMul, a=self.ref(a), b=self.ref(b), batch=batch,
                   m=m, n=n, k=k, stride_a=stride_a, stride_b=stride_b, dst=self.ref(dst))

    def shuffle(self, name, src0, channels0, src1, channels1, spatial, dst0, dst1):
        self._step(name, Layer.Layer.Shuffle, Shuffle, src0=self.ref(src0), channels0=channels0,
                   src1=self.ref(src1), channels1=channels1, spatial=spatial,
                   dst0=self.ref(dst0), dst1=self.ref(dst1))

    def convert_image(self, name, src, batch, channels, spatial, to_nhwc, dst):
        self._step(name, Layer.Layer.ConvertImage, ConvertImage, src=self.ref(src), batch=batch,
                   channels=channels, spatial=spatial, to_nhwc=bool(to_nhwc), dst=self.ref(dst))

    def copy(self, name, regions):
        """Each region: (src, dst, rows, length, src_stride, dst_stride)."""
        b = self.b
        refs = [(self.ref(r[0]), self.ref(r[1])) for r in regions]
        b.StartVector(64, len(regions), 8)
        for (src, dst), r in zip(reversed(refs), reversed(regions)):
            CreateCopyRegion(b, *src, *dst, *[int(v) for v in r[2:6]])
        vector = b.EndVector()
        Copy.Start(b)
        Copy.AddRegions(b, vector)
        self.layers.append((name, Layer.Layer.Copy, Copy.End(b)))

    def transpose(self, name, src, shape, perm, dst):
        self._step(name, Layer.Layer.Transpose, Transpose, src=self.ref(src),
                   shape=_Ulongs(shape), perm=_Ulongs(perm), dst=self.ref(dst))

    def pad(self, name, src, shape, before, after, mode, value, dst):
        self._step(name, Layer.Layer.Pad, Pad, src=self.ref(src), shape=_Ulongs(shape),
                   before=_Ulongs(before), after=_Ulongs(after), mode=int(mode),
                   value=float(value), dst=self.ref(dst))

    def resize_nearest(self, name, src, batch, src_h, src_w, channels, rows, cols, dst):
        self._step(name, Layer.Layer.ResizeNearest, ResizeNearest, src=self.ref(src),
                   batch=batch, src_h=src_h, src_w=src_w, channels=channels, rows=_Ulongs(rows),
                   cols=_Ulongs(cols), dst=self.ref(dst))

    def _taps(self, taps):
        first, second, w0, w1 = taps
        return self._table(LinearTaps, first=_Ulongs(first), second=_Ulongs(second),
                           first_weight=_Floats(w0), second_weight=_Floats(w1))

    def resize_linear(self, name, src, batch, src_h, src_w, channels, rows, cols, dst):
        b = self.b
        rows_table, cols_table = self._taps(rows), self._taps(cols)
        ResizeLinear.Start(b)
        ResizeLinear.AddSrc(b, CreateRef(b, *self.ref(src)))
        ResizeLinear.AddBatch(b, batch)
        ResizeLinear.AddSrcH(b, src_h)
        ResizeLinear.AddSrcW(b, src_w)
        ResizeLinear.AddChannels(b, channels)
        ResizeLinear.AddRows(b, rows_table)
        ResizeLinear.AddCols(b, cols_table)
        ResizeLinear.AddDst(b, CreateRef(b, *self.ref(dst)))
        self.layers.append((name, Layer.Layer.ResizeLinear, ResizeLinear.End(b)))

    # Inputs and outputs.

    def input(self, name, shape, perm, offset):
        self.inputs.append((name, list(shape), list(perm), int(offset)))

    def output(self, name, shape, perm, offset):
        self.outputs.append((name, list(shape), list(perm), int(offset)))

    def steps(self):
        return self.layers

    def _bindings(self, bindings):
        tables = [self._table(Binding, name=name, shape=_Ulongs(shape), perm=_Ulongs(perm),
                              offset=offset) for name, shape, perm, offset in bindings]
        return self._offsets(tables)

    def _offsets(self, tables):
        b = self.b
        b.StartVector(4, len(tables), 4)
        for t in reversed(tables):
            b.PrependUOffsetTRelative(t)
        return b.EndVector()

    def finish(self, arena_floats, step_flops):
        """The file's bytes. `step_flops`: the FLOP of each step (0 where not counted)."""
        if len(step_flops) != len(self.layers):
            raise ValueError("one FLOP count per step is needed")
        b = self.b
        steps = []
        for (name, layer, table), flops in zip(self.layers, step_flops):
            name_offset = b.CreateString(name)
            Step.Start(b)
            Step.AddName(b, name_offset)
            Step.AddLayerType(b, layer)
            Step.AddLayer(b, table)
            Step.AddFlops(b, int(flops))
            steps.append(Step.End(b))
        steps_vector = self._offsets(steps)
        constants_vector = self._offsets(self.constants)
        inputs = self._bindings(self.inputs)
        outputs = self._bindings(self.outputs)
        producer = b.CreateString(f"simd-synet {_simdsynet.version()}")
        Network.Start(b)
        Network.AddVersion(b, FORMAT_VERSION)
        Network.AddProducer(b, producer)
        Network.AddArenaFloats(b, int(arena_floats))
        Network.AddConstants(b, constants_vector)
        Network.AddSteps(b, steps_vector)
        Network.AddInputs(b, inputs)
        Network.AddOutputs(b, outputs)
        b.Finish(Network.End(b), file_identifier=FILE_IDENTIFIER)
        return b.Output()
