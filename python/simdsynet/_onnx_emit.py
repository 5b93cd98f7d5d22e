"""The executor steps of a planned network: each operation, with its tensors' layouts and arena
offsets known, becomes one or more calls of simdsynet._executor.Executor."""

import numpy as np

from . import _simdsynet
from ._onnx_fuse import ACTIVATION_CODES
from ._onnx_plan import Layouts, offset, physical_order, physical_shape, product, ref

F32 = np.float32


def f32(a):
    return None if a is None else np.ascontiguousarray(np.asarray(a, F32))


def aligned(shape):
    """A float32 array in 64-byte aligned memory (SimdAllocate) that the executor keeps and
    reads in place once it is made read-only, instead of copying it."""
    return _simdsynet.empty(shape, "float32", 64)


def describe(x, y, op, fmt, kernel):
    n, c, h, w = x.shape
    _, oc, oh, ow = y.shape
    return dict(src_c=c, src_h=h, src_w=w, dst_c=oc, dst_h=oh, dst_w=ow, kernel=kernel,
                stride=tuple(op["strides"]), dilation=tuple(op["dilations"]),
                pad=tuple(op["pads"]), group=op["group"],
                activation=ACTIVATION_CODES[op["act"]], format=fmt)


def activation_params(op):
    p = op.get("act_params")
    return None if p is None else f32(p)


# The executor's element-wise function and parameters of each act kind.
def act_step(kind, params):
    p = list(params)
    table = {
        "relu": ("relu", [0.0]),
        "leaky_relu": ("relu", p[:1]),
        "clip": ("restrict_range", p[:2]),
        "elu": ("elu", p[:1]),
        "selu": ("selu", p[:2]),
        "sigmoid": ("sigmoid", [1.0]),
        "hard_sigmoid": ("hard_sigmoid", p[:2]),
        "hswish": ("hswish", [3.0, 1.0 / 6.0]),
        "tanh": ("tanh", [1.0]),
        "softplus": ("softplus", [1.0, 20.0]),
        "exp": ("exp", []),
        "log": ("log", []),
        "abs": ("abs", []),
        "neg": ("neg", []),
        "sqrt": ("sqrt", []),
        "pow": ("pow", p[:1]),
        "gelu": ("gelu", []),
        "gelu_tanh": ("gelu_tanh", []),
    }
    return table[kind]


ELTWISE_CODES = {"product": 0, "sum": 1, "max": 2, "min": 3}


class Emitter:
    def __init__(self, net, executor):
        self.net, self.ex = net, executor

    def run(self):
        """Adds the steps; returns the FLOP of each step (multiply-adds of convolutions and
        fully connected layers count 2, other work 0)."""
        for t in self.net.inputs:
            self.ex.input(t.name, list(t.shape), list(physical_order(t)), offset(t))
        flops = []
        for op in self.net.ops:
            if op.kind != "view":
                getattr(self, "emit_" + op.kind)(op)
                added = len(self.ex.steps()) - len(flops)
                flops += [op_flops(op)] + [0] * (added - 1)
        for t in self.net.outputs:
            self.ex.output(t.name, list(t.shape), list(physical_order(t)), offset(t))
        return flops

    # Convolutions.

    def emit_conv(self, op):
        x, y = op.inputs[0], op.outputs[0]
        w = op["weight"]
        desc = describe(x, y, op, "nhwc", w.shape[2:])
        int8 = op.get("int8")
        if int8 is None:
            # A second input: the residual (_onnx_fuse.fuse_residual_adds).
            add = ref(op.inputs[1]) if len(op.inputs) > 1 else None
            self.ex.convolution(op.name, x.shape[0], desc, f32(w),
                                f32(op["bias"]), activation_params(op), offset(x), offset(y),
                                add)
            return
        # INT8 (_onnx_int8): the output statistics only matter for a uint8 output.
        desc.update(src_type=int8["src_type"], dst_type=int8["dst_type"])
        stats = [f32(a) for a in int8["stats"]]
        self.ex.convolution8i(op.name, x.shape[0], desc, f32(w), f32(op["bias"]),
                              activation_params(op), stats, int8["compatibility"], offset(x),
                              offset(y))

    def emit_deconv(self, op):
        x, y = op.inputs[0], op.outputs[0]
        w = op["weight"]  # [srcC][dstC/group][kY][kX]
        if op["group"] == 1 and x.layout == "nhwc":
            desc = describe(x, y, op, "nhwc", w.shape[2:])
            weight = w.transpose(0, 2, 3, 1)
        else:
            desc = describe(x, y, op, "nchw", w.shape[2:])
            weight = w
        self.ex.deconvolution(op.name, x.shape[0], desc, f32(weight), f32(op["bias"]),
                              activation_params(op), offset(x), offset(y))

    def emit_merged(self, op):
        x, y = op.inputs[0], op.outputs[0]
        descs, weights, biases, params = [], [], [], []
        shape = x.shape
        for stage in op["stages"]:
            w = stage["weight"]
            n, c, h, wd = shape
            k = w.shape[2:]
            oh = (h + stage["pads"][0] + stage["pads"][2] - k[0]) // stage["strides"][0] + 1
            ow = (wd + stage["pads"][1] + stage["pads"][3] - k[1]) // stage["strides"][1] + 1
            out = (n, w.shape[0], oh, ow)
            descs.append(dict(src_c=c, src_h=h, src_w=wd, dst_c=out[1], dst_h=oh, dst_w=ow,
                              kernel=tuple(k), stride=tuple(stage["strides"]), dilation=(1, 1),
                              pad=tuple(stage["pads"]), group=stage["group"],
                              activation=ACTIVATION_CODES[stage["act"]], format="nhwc"))
            weights.append(f32(w))
            biases.append(f32(stage["bias"]))
            params.append(activation_params(stage))
            shape = out
        self.ex.merged_convolution(op.name, x.shape[0], descs, weights, biases, params,
                                   op["add"], offset(x), offset(y))

    # Layers.

    def emit_pool(self, op):
        x, y = op.inputs[0], op.outputs[0]
        n, c, h, w = x.shape
        shape = [n, c, h, w, *op["kernel"], *op["strides"], *op["pads"], y.shape[2], y.shape[3]]
        self.ex.pooling(op.name, op["mode"], shape, offset(x), offset(y))

    def emit_dilated_max_pool(self, op):
        x, y = op.inputs[0], op.outputs[0]
        n, c, h, w = x.shape
        shape = [n, c, h, w, *op["kernel"], *op["strides"], *op["pads"], y.shape[2], y.shape[3]]
        self.ex.dilated_max_pooling(op.name, shape, op["dilations"], offset(x), offset(y))

    def channel_geometry(self, t):
        """(channels, spatial, images, format) of a tensor for the per-channel functions
        (channel axis 1)."""
        if t.layout == "nhwc":
            return t.shape[1], t.shape[2] * t.shape[3], t.shape[0], "nhwc"
        if t.rank == 1:
            return 1, t.shape[0], 1, "nhwc"
        if t.rank == 2:
            return t.shape[1], 1, t.shape[0], "nhwc"
        return t.shape[1], product(t.shape[2:]), t.shape[0], "nchw"

    def emit_scale(self, op):
        x, y = op.inputs[0], op.outputs[0]
        channels, spatial, images, fmt = self.channel_geometry(x)
        scale, bias = op["scale"], op["bias"]
        if scale is not None and np.asarray(scale).size == 1 or \
                scale is None and bias is not None and np.asarray(bias).size == 1:
            # One value for the whole tensor: one channel.
            channels, spatial, images, fmt = 1, x.size, 1, "nhwc"
        scale = np.ones(channels) if scale is None else np.broadcast_to(scale, (channels,))
        relu = op.get("act") == "relu"
        if bias is None and relu:
            bias = np.zeros(channels)
        if bias is not None:
            bias = np.broadcast_to(bias, (channels,))
        self.ex.scale(op.name, offset(x), f32(scale), f32(bias), channels, spatial, images, 0, 0,
                      fmt, relu, offset(y))

    def emit_scale_by(self, op):
        x, s, y = op.inputs[0], op.inputs[1], op.outputs[0]
        n, c, h, w = x.shape
        if op["role"] == "scale":
            self.ex.scale(op.name, offset(x), offset(s), None, c, h * w, n, c, 0, "nhwc", False,
                          offset(y))
        else:
            self.ex.scale(op.name, offset(x), f32(np.ones(c)), offset(s), c, h * w, n, 0, c,
                          "nhwc", False, offset(y))

    def emit_prelu(self, op):
        x, y = op.inputs[0], op.outputs[0]
        channels, spatial, images, fmt = self.channel_geometry(x)
        self.ex.prelu(op.name, offset(x), f32(op["slope"]), channels, spatial, images, fmt,
                      offset(y))

    def emit_concat_scale_relu(self, op):
        a, b = op.inputs
        y = op.outputs[0]
        plain = op.outputs[1] if len(op.outputs) > 1 else None
        n, _, h, w = y.shape
        self.ex.concat_scale_relu(op.name, ref(a), a.shape[1], ref(b), b.shape[1], n * h * w,
                                  f32(op["scale"]), f32(op["bias"]), offset(y),
                                  None if plain is None else offset(plain))

    def emit_eltwise(self, op):
        y = op.outputs[0]
        kind, params = "", []
        if op.get("act", "identity") != "identity":
            kind, params = act_step(op["act"], op.get("act_params", []))
        self.ex.eltwise(op.name, ELTWISE_CODES[op["op"]], [ref(t) for t in op.inputs],
                        [float(v) for v in op["weights"]], y.size, offset(y), kind,
                        [float(p) for p in params])

    def emit_act(self, op):
        x, y = op.inputs[0], op.outputs[0]
        kind, params = act_step(op["act"], op.get("params", []))
        self.ex.activation(op.name, kind, [float(p) for p in params], offset(x), x.size,
                           offset(y))

    def emit_softmax(self, op):
        x, y = op.inputs[0], op.outputs[0]
        order, shape = physical_order(x), physical_shape(x)
        first = order.index(op["axis"])
        last = first + op["span"]
        step = self.ex.log_softmax if op.get("log") else self.ex.softmax
        step(op.name, offset(x), product(shape[:first]), product(shape[first:last]),
             product(shape[last:]), offset(y))

    def emit_reduce(self, op):
        x, y = op.inputs[0], op.outputs[0]
        order = physical_order(x)
        reduced = [order[p] in op["axes"] for p in range(x.rank)]
        self.ex.reduce(op.name, op["reduction"], ref(x), list(physical_shape(x)), reduced,
                       offset(y))

    def emit_tile(self, op):
        x, y = op.inputs[0], op.outputs[0]
        self.ex.tile(op.name, ref(x), list(physical_shape(x)), list(physical_shape(y)),
                     offset(y))

    def emit_prelu_trailing(self, op):
        x, y = op.inputs[0], op.outputs[0]
        slope = op["slope"]
        self.ex.prelu(op.name, offset(x), f32(slope), slope.size, x.size // slope.size, 1,
                      "nhwc", offset(y))

    def emit_lrn(self, op):
        x, y = op.inputs[0], op.outputs[0]
        n, c, h, w = x.shape
        size = op["size"]
        k = [op["bias"], op["alpha"] / size, -op["beta"]]
        self.ex.lrn(op.name, offset(x), (size - 1) // 2, c, n * h * w, k, offset(y))

    def emit_instance_norm(self, op):
        x, y = op.inputs[0], op.outputs[0]
        n, c, h, w = x.shape
        self.ex.normalize(op.name, 3, offset(x), n, c, h * w, f32(op["scale"]),
                          f32(op["shift"]), op["eps"], "nhwc", offset(y))

    def emit_layer_norm(self, op):
        x, y = op.inputs[0], op.outputs[0]
        first, end = Layouts.layer_norm_block(x.layout, x.rank, op["axis"], op["end"])
        order, shape = physical_order(x), physical_shape(x)
        # The normalized axes in physical order: the scale and shift follow it.
        axes = [a - op["axis"] for a in order[first:end]]
        scale = np.transpose(op["scale"], axes).reshape(-1)
        shift = np.transpose(op["shift"], axes).reshape(-1)
        outer, count, inner = product(shape[:first]), product(shape[first:end]), product(shape[end:])
        if inner == 1:
            # Tokens (or pixels) of `count` channels each: one channel-last image of `outer`
            # pixels, the library's layer norm over channels.
            self.ex.normalize(op.name, 2, offset(x), 1, count, outer, f32(scale), f32(shift),
                              op["eps"], "nhwc", offset(y))
            return
        self.ex.normalize(op.name, 2, offset(x), outer, count, inner, f32(scale), f32(shift),
                          op["eps"], "nchw", offset(y))

    def emit_gemm(self, op):
        x, y = op.inputs[0], op.outputs[0]
        w = f32(op["weight"])
        count, size = w.shape
        weight = aligned((count, size))
        if x.layout == "flat":
            # The input is an NHWC image flattened: each row of weights [C][H][W] becomes
            # [H][W][C] (the library's NCHW -> NHWC conversion, a row per output).
            c, h, wd = x.flat_shape
            _simdsynet.convert_image(w.reshape(count, c, h, wd), "nchw", "nhwc",
                                     out=weight.reshape(count, h, wd, c))
        else:
            weight[...] = w
        weight.flags.writeable = False
        rows = x.shape[0]
        if rows > 1:
            # Several rows (a batch, a transformer's tokens): a 1x1 convolution over a
            # rows x 1 NHWC image, whose context packs the weights once at load, where a
            # GEMM per run would pack them at every run (vit_b_16's token layers).
            desc = dict(src_c=size, src_h=rows, src_w=1, dst_c=count, dst_h=rows, dst_w=1,
                        kernel=(1, 1), stride=(1, 1), dilation=(1, 1), pad=(0, 0, 0, 0),
                        group=1, activation=0, format="nhwc")
            self.ex.convolution(op.name, 1, desc, weight.reshape(count, size, 1, 1),
                                f32(op["bias"]), None, offset(x), offset(y))
            return
        self.ex.inner_product(op.name, offset(x), weight, f32(op["bias"]), rows, count, size,
                              offset(y))

    def emit_matmul(self, op):
        a, b = op.inputs
        self.ex.matmul(op.name, ref(a), ref(b), op["batch"], op["m"], op["n"], op["k"],
                       *op["strides"], offset(op.outputs[0]))

    # Data movement.

    def emit_convert(self, op):
        x, y = op.inputs[0], op.outputs[0]
        if x.layout == "flat":
            c, h, w = x.flat_shape
            self.ex.convert_image(op.name, offset(x), x.shape[0], c, h * w, False, offset(y))
            return
        n, c, h, w = x.shape
        self.ex.convert_image(op.name, offset(x), n, c, h * w, y.layout == "nhwc", offset(y))

    def axis_geometry(self, t, axis):
        """(outer, extent, inner) of logical `axis` in the physical order of t."""
        order, shape = physical_order(t), physical_shape(t)
        p = order.index(axis)
        return product(shape[:p]), shape[p], product(shape[p + 1:])

    def emit_concat(self, op):
        y = op.outputs[0]
        outer, total, inner = self.axis_geometry(y, op["axis"])
        regions, start = [], 0
        for t in op.inputs:
            _, extent, _ = self.axis_geometry(t, op["axis"])
            regions.append((ref(t), offset(y) + start * inner, outer, extent * inner,
                            extent * inner, total * inner))
            start += extent
        self.ex.copy(op.name, regions)

    def emit_split(self, op):
        x = op.inputs[0]
        outer, total, inner = self.axis_geometry(x, op["axis"])
        regions, start = [], 0
        for t, size in zip(op.outputs, op["sizes"]):
            regions.append((offset(x) + start * inner, offset(t), outer, size * inner,
                            total * inner, size * inner))
            start += size
        self.ex.copy(op.name, regions)

    def emit_slice(self, op):
        x, y = op.inputs[0], op.outputs[0]
        (axis, start, stop), = op["ranges"]
        outer, total, inner = self.axis_geometry(x, axis)
        size = stop - start
        self.ex.copy(op.name, [(offset(x) + start * inner, offset(y), outer, size * inner,
                                total * inner, size * inner)])

    def emit_transpose(self, op):
        x, y = op.inputs[0], op.outputs[0]
        self.ex.transpose(op.name, offset(x), list(x.shape), list(op["perm"]), offset(y))

    def emit_pad(self, op):
        x, y = op.inputs[0], op.outputs[0]
        order = physical_order(x)
        before = [op["before"][a] for a in order]
        after = [op["after"][a] for a in order]
        mode = {"constant": 0, "reflect": 1, "edge": 2}[op["mode"]]
        self.ex.pad(op.name, offset(x), list(physical_shape(x)), before, after, mode,
                    float(op["value"]), offset(y))

    def emit_resize(self, op):
        x, y = op.inputs[0], op.outputs[0]
        n, c, h, w = x.shape
        if op["mode"] == "nearest":
            self.ex.resize_nearest(op.name, offset(x), n, h, w, c, op["rows"], op["cols"],
                                   offset(y))
            return
        rows, cols = ([list(t[0]), list(t[1]), f32(t[2]), f32(t[3])] for t in
                      (op["rows"], op["cols"]))
        self.ex.resize_linear(op.name, offset(x), n, h, w, c, rows, cols, offset(y))

    def emit_shuffle(self, op):
        a, b = op.inputs
        d0, d1 = op.outputs
        n, _, h, w = a.shape
        self.ex.shuffle(op.name, offset(a), a.shape[1], offset(b), b.shape[1], n * h * w,
                        offset(d0), offset(d1))


def op_flops(op):
    """2 per multiply-add of a convolution, deconvolution, merged convolution or fully
    connected layer (the usual measure of a model's size); 0 for other operations."""
    if op.kind == "gemm":
        return 2 * op.inputs[0].shape[0] * op["weight"].size
    if op.kind == "matmul":
        return 2 * op["batch"] * op["m"] * op["n"] * op["k"]
    if op.kind == "deconv":
        return 2 * product(op.inputs[0].shape) * op["weight"][0].size
    if op.kind == "conv":
        n, _, h, w = op.outputs[0].shape
        return 2 * n * h * w * op["weight"].size
    if op.kind == "merged":
        total, (n, _, h, w) = 0, op.inputs[0].shape
        for stage in op["stages"]:
            k, s, p = stage["weight"].shape[2:], stage["strides"], stage["pads"]
            h = (h + p[0] + p[2] - k[0]) // s[0] + 1
            w = (w + p[1] + p[3] - k[1]) // s[1] + 1
            total += 2 * n * h * w * stage["weight"].size
        return total
    return 0


def emit(net, executor):
    """Adds the network's steps to the executor; returns the FLOP of each step."""
    return Emitter(net, executor).run()
