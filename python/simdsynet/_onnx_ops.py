"""Handlers of the ONNX operators that compute (convolutions, normalizations, element-wise
operators, softmax, fully connected layers) for _onnx_lower, and the shape helpers shared with
_onnx_ops_data. A handler checks the node's attributes, computes the output shape and adds the
runner's operation; anything unsupported raises UnsupportedModelError naming the node."""

import numpy as np

from ._onnx_graph import Node, axis_attr, axis_list, float_attr, int_attr, int_list_attr
from ._onnx_ir import Tensor

F32 = np.float32


def as_float(a):
    return np.ascontiguousarray(np.asarray(a, dtype=F32))


# ---------------------------------------------------------------------------------------------
# Shapes.

def conv_pads(node, spatial, kernel, strides, dilations, transposed=False):
    """(top, left, bottom, right) of a Conv/Pool/ConvTranspose from `pads` or `auto_pad`."""
    auto = node.attrs.get("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        return int_list_attr(node, "pads", 4, 0, [0] * 4)
    if auto == "VALID":
        return [0, 0, 0, 0]
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        node.fail(f"auto_pad {auto} is not supported")
    begin, end = [], []
    for n, k, s, d in zip(spatial, kernel, strides, dilations):
        extent = (k - 1) * d + 1
        if transposed:
            total = max(s * (n - 1) + extent - n * s, 0)
        else:
            out = -(-n // s)
            total = max((out - 1) * s + extent - n, 0)
        small, large = total // 2, total - total // 2
        begin.append(small if auto == "SAME_UPPER" else large)
        end.append(large if auto == "SAME_UPPER" else small)
    return [begin[0], begin[1], end[0], end[1]]


def taps_inside(src, before, kernel, dilation, stride, dst):
    """The first and last taps along one axis that fall inside the image for some output index,
    or None when none does: o*stride + k*dilation - before in [0, src) for some o < dst."""
    inside = []
    for k in range(kernel):
        lo = max(0, before - k * dilation)
        hi = min((dst - 1) * stride, before - k * dilation + src - 1)
        if lo <= hi and -(-lo // stride) * stride <= hi:
            inside.append(k)
    return (inside[0], inside[-1]) if inside else None


def prune_padding_taps(w, pads, dilations, strides, spatial, out):
    """A convolution whose outer kernel rows or columns read only the zero padding (a dilated
    kernel on a small map: DeepLab's atrous rates 24 and 36 on a 20x20 map leave the centre
    tap alone) as the same convolution without them: the weights sliced, the pads reduced by
    the taps removed (when they stay >= 0), a kernel of one tap undilated. The output size and
    every output value stay the same, zero-padded products dropped."""
    w, pads, dilations = w, list(pads), list(dilations)
    for axis in (0, 1):
        kernel, d = w.shape[2 + axis], dilations[axis]
        taps = taps_inside(spatial[axis], pads[axis], kernel, d, strides[axis], out[axis])
        if taps is None or taps == (0, kernel - 1):
            continue
        first, last = taps
        before = pads[axis] - first * d
        after = pads[axis + 2] - (kernel - 1 - last) * d
        if before < 0 or after < 0:
            continue
        index = [slice(None)] * 4
        index[2 + axis] = slice(first, last + 1)
        w = w[tuple(index)]
        pads[axis], pads[axis + 2] = before, after
        if last == first:
            dilations[axis] = 1
    return w, pads, dilations


def broadcast_shape(a, b):
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(out)


def channel_vector(const, shape):
    """A constant that broadcast onto a tensor of `shape` varies only along axis 1 (or is one
    value): its values along that axis (length shape[1], or 1), else None."""
    c = np.asarray(const)
    if c.ndim > len(shape):
        return None
    full = (1,) * (len(shape) - c.ndim) + c.shape
    if broadcast_shape(full, shape) != tuple(shape):
        return None
    if c.size == 1:
        return c.reshape(1)
    if len(shape) < 2 or any(d != 1 for i, d in enumerate(full) if i != 1) or full[1] != shape[1]:
        return None
    return c.reshape(-1)


def need_rank(node, x, ranks):
    if x.rank not in ranks:
        node.fail(f"input of rank {x.rank} is not supported (rank {' or '.join(map(str, ranks))})")


def known_attrs(node, *names):
    for name in node.attrs:
        if name not in names:
            node.fail(f"attribute '{name}' is not supported")


# ---------------------------------------------------------------------------------------------
# 1-D signals: a rank-3 tensor (N, C, L) is an image of height 1, run on the 2-D layers.

LIFTED = {"kernel_shape": 1, "strides": 1, "dilations": 1, "output_padding": 0}


def lift_1d(ctx, node, x):
    """For a node over a rank-3 input: the node with its 1-D attributes as 2-D ones (height 1:
    kernel 1, stride 1, dilation 1, no padding) and x viewed as (N, C, 1, L)."""
    attrs = dict(node.attrs)
    for name, height in LIFTED.items():
        if name in attrs:
            attrs[name] = [height] + int_list_attr(node, name, 1, height)
    if "pads" in attrs:
        begin, end = int_list_attr(node, "pads", 2, 0)
        attrs["pads"] = [0, begin, 0, end]
    if "output_shape" in attrs:
        shape = int_list_attr(node, "output_shape", None, 1)
        if len(shape) not in (1, 3):
            node.fail(f"output_shape {shape} is neither (L) nor (N, C, L)")
        attrs["output_shape"] = [1, shape[-1]]
    n, c, length = x.shape
    image = Tensor(f"{node.outputs[0]}/{x.name}/2d", (n, c, 1, length))
    ctx.emit(node, "view", [x], [image])
    return Node(node.op, node.name, node.inputs, node.outputs, attrs), image


def out_2d(ctx, node, shape, lifted):
    """The output of a 2-D layer: the node's output, or for a lifted 1-D node a 2-D tensor that
    a view makes the (N, C, L) output."""
    if not lifted:
        return ctx.out(node, shape), None
    image = Tensor(f"{node.outputs[0]}/2d", shape)
    return image, (image, (shape[0], shape[1], shape[3]))


def finish_1d(ctx, node, pending):
    if pending is not None:
        image, shape = pending
        ctx.emit(node, "view", [image], [ctx.out(node, shape)])


def spatial_input(ctx, node, kind):
    """The input of a convolution or pooling, 2-D or (lifted) 1-D: (node, x, lifted)."""
    x = ctx.tensor(node)
    if x.rank == 3:
        lifted, x = lift_1d(ctx, node, x)
        return lifted, x, True
    if x.rank != 4:
        node.fail(f"input of rank {x.rank} is not supported (1-D and 2-D {kind}: rank 3 or 4)")
    return node, x, False


# ---------------------------------------------------------------------------------------------
# Convolutions.

def conv_geometry(node, w):
    """group, strides and dilations of a 2-D Conv or ConvTranspose with weights `w`; the
    kernel is the weights', so a kernel_shape that says otherwise is refused, not ignored."""
    if w.size == 0:
        node.fail(f"weights of shape {w.shape} are empty")
    kernel = list(w.shape[2:])
    if int_list_attr(node, "kernel_shape", 2, 1, kernel) != kernel:
        node.fail(f"kernel_shape {node.attrs['kernel_shape']} contradicts the weights of shape "
                  f"{w.shape}")
    return (int_attr(node, "group", 1, 1), int_list_attr(node, "strides", 2, 1, [1, 1]),
            int_list_attr(node, "dilations", 2, 1, [1, 1]))


def check_bias(node, b, count):
    if b is not None and b.shape != (count,):
        node.fail(f"bias of shape {b.shape} is not one value per output channel ({count})")


def conv_weights(ctx, node, rank):
    w = ctx.weight(node, 1)
    if w.ndim not in (3, 4):
        node.fail("only 1-D and 2-D convolutions are supported")
    if w.ndim != rank:
        node.fail(f"weights of shape {w.shape} do not fit an input of rank {rank}")
    return w if w.ndim == 4 else w.reshape(w.shape[0], w.shape[1], 1, w.shape[2])


def lower_conv(ctx, node):
    known_attrs(node, "auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")
    rank = ctx.tensor(node).rank
    w = conv_weights(ctx, node, rank)
    node, x, lifted = spatial_input(ctx, node, "convolutions")
    b = ctx.weight(node, 2, required=False)
    group, strides, dilations = conv_geometry(node, w)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    if c != cg * group or o % group:
        node.fail(f"weights {w.shape} do not fit {c} input channels in {group} groups")
    check_bias(node, b, o)
    pads = conv_pads(node, (h, wd), (kh, kw), strides, dilations)
    oh = (h + pads[0] + pads[2] - ((kh - 1) * dilations[0] + 1)) // strides[0] + 1
    ow = (wd + pads[1] + pads[3] - ((kw - 1) * dilations[1] + 1)) // strides[1] + 1
    y, pending = out_2d(ctx, node, (n, o, oh, ow), lifted)
    w, pads, dilations = prune_padding_taps(w, pads, dilations, strides, (h, wd), (oh, ow))
    ctx.emit(node, "conv", [x], [y], weight=as_float(w),
             bias=None if b is None else as_float(b), group=group, strides=strides,
             pads=pads, dilations=dilations, act="identity", act_params=None)
    finish_1d(ctx, node, pending)


def lower_conv_transpose(ctx, node):
    known_attrs(node, "auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                "output_shape", "pads", "strides")
    rank = ctx.tensor(node).rank
    w = conv_weights(ctx, node, rank)
    node, x, lifted = spatial_input(ctx, node, "transposed convolutions")
    b = ctx.weight(node, 2, required=False)
    group, strides, dilations = conv_geometry(node, w)
    n, c, h, wd = x.shape
    ci, og, kh, kw = w.shape
    if ci != c or c % group:
        node.fail(f"weights {w.shape} do not fit {c} input channels in {group} groups")
    check_bias(node, b, og * group)
    extra = int_list_attr(node, "output_padding", 2, 0, [0, 0])
    if any(e >= max(s, d) for e, s, d in zip(extra, strides, dilations)):
        node.fail(f"output_padding {extra} is not below the strides {strides} or the dilations "
                  f"{dilations}")
    full = [s * (i - 1) + (k - 1) * d + 1 for s, i, k, d in
            zip(strides, (h, wd), (kh, kw), dilations)]
    if "output_shape" in node.attrs:
        target = int_list_attr(node, "output_shape", None, 1)
        if len(target) not in (2, 4):
            node.fail(f"output_shape {target} is neither (H, W) nor (N, C, H, W)")
        target = target[-2:]
        pads = [0] * 4
        for a in range(2):
            total = full[a] + extra[a] - target[a]
            if total < 0:
                node.fail(f"output_shape {target} is larger than the transposed convolution")
            small = total // 2
            upper = node.attrs.get("auto_pad", "NOTSET") != "SAME_LOWER"
            pads[a], pads[a + 2] = (small, total - small) if upper else (total - small, small)
    else:
        pads = conv_pads(node, (h, wd), (kh, kw), strides, dilations, transposed=True)
    # The library crops pads from the full output; output_padding adds rows at the bottom/right,
    # which is cropping that much less there.
    lib_pads = [pads[0], pads[1], pads[2] - extra[0], pads[3] - extra[1]]
    if min(lib_pads) < 0:
        node.fail(f"output_padding {extra} larger than the end pads {pads[2:]} is not supported")
    oh = full[0] - lib_pads[0] - lib_pads[2]
    ow = full[1] - lib_pads[1] - lib_pads[3]
    y, pending = out_2d(ctx, node, (n, og * group, oh, ow), lifted)
    ctx.emit(node, "deconv", [x], [y], weight=as_float(w),
             bias=None if b is None else as_float(b), group=group, strides=strides,
             pads=lib_pads, dilations=dilations, act="identity", act_params=None)
    finish_1d(ctx, node, pending)


# ---------------------------------------------------------------------------------------------
# Normalizations.

def lower_batch_norm(ctx, node):
    known_attrs(node, "epsilon", "momentum", "training_mode", "spatial")
    if int_attr(node, "training_mode", 0, 0, 1):
        node.fail("training_mode=1 is not supported (export the model in eval mode)")
    ctx.check_unused_outputs(node, 1)
    x = ctx.tensor(node)
    if x.rank < 2:
        node.fail("the input needs a channel axis")
    gamma, beta, mean, var = (channel_values(ctx, node, i, x.shape[1]) for i in range(1, 5))
    eps = float_attr(node, "epsilon", 1e-5)
    scale = gamma / np.sqrt(var + eps)
    shift = beta - mean * scale
    y = ctx.out(node, x.shape)
    ctx.emit(node, "scale", [x], [y], scale=scale, bias=shift, act="identity")


def channel_values(ctx, node, i, channels):
    """The constant input i of a normalization, one value per channel, as float64."""
    c = ctx.weight(node, i)
    if c.shape != (channels,):
        node.fail(f"input '{node.inputs[i]}' of shape {c.shape} is not one value per channel "
                  f"({channels})")
    return np.asarray(c, np.float64)


def lower_instance_norm(ctx, node):
    known_attrs(node, "epsilon")
    x = ctx.tensor(node)
    need_rank(node, x, (4,))
    scale, shift = (as_float(channel_values(ctx, node, i, x.shape[1])) for i in (1, 2))
    y = ctx.out(node, x.shape)
    ctx.emit(node, "instance_norm", [x], [y], scale=scale, shift=shift,
             eps=float_attr(node, "epsilon", 1e-5))


def lower_layer_norm(ctx, node):
    known_attrs(node, "axis", "epsilon", "stash_type")
    ctx.check_unused_outputs(node, 1)
    x = ctx.tensor(node)
    axis = axis_attr(node, "axis", -1, x.rank)
    normalized = x.shape[axis:]
    scale, b = ctx.weight(node, 1), ctx.weight(node, 2, required=False)
    for c in (scale, b):
        if c is not None and broadcast_shape(c.shape, normalized) != normalized:
            node.fail(f"scale or bias of shape {c.shape} does not broadcast to the normalized "
                      f"shape {normalized}")
    scale = np.broadcast_to(scale, normalized)
    shift = np.zeros(normalized, F32) if b is None else np.broadcast_to(b, normalized)
    y = ctx.out(node, x.shape)
    ctx.emit(node, "layer_norm", [x], [y], axis=axis, end=x.rank, scale=as_float(scale),
             shift=as_float(shift), eps=float_attr(node, "epsilon", 1e-5))


def lower_layer_norm_pattern(ctx, node):
    """A layer normalization written out in nodes (_onnx_patterns): over contiguous axes,
    with a scale and shift that vary along those axes only."""
    x = ctx.tensor(node)
    axes = sorted(axis_list(node, "axes", node.attrs["axes"], x.rank))
    first, end = axes[0], axes[-1] + 1
    if axes != list(range(first, end)):
        node.fail(f"normalization over axes {axes} that are not contiguous is not supported")
    normalized = x.shape[first:end]
    values = []
    for what, c, default in (("scale", node.attrs["scale"], 1.0),
                             ("shift", node.attrs["shift"], 0.0)):
        if c is None:
            values.append(np.full(normalized, default, F32))
            continue
        c = np.asarray(c)
        if c.dtype != F32:
            node.fail(f"the {what} has data type {c.dtype} (float32 only)")
        full = (1,) * (x.rank - c.ndim) + c.shape if c.ndim <= x.rank else None
        if (full is None or broadcast_shape(full, x.shape) != x.shape or
                any(d != 1 for a, d in enumerate(full) if not first <= a < end)):
            node.fail(f"the {what} of shape {c.shape} does not vary along the normalized axes "
                      f"{axes} of {x.shape} only")
        values.append(np.broadcast_to(c.reshape(full[first:end]), normalized))
    y = ctx.out(node, x.shape)
    ctx.emit(node, "layer_norm", [x], [y], axis=first, end=end, scale=as_float(values[0]),
             shift=as_float(values[1]), eps=node.attrs["epsilon"])


def lower_gelu(ctx, node):
    """GELU: the node of the pattern (_onnx_patterns) or opset 20's Gelu."""
    if node.op == "Gelu":
        known_attrs(node, "approximate")
        node.attrs.setdefault("approximate", "none")
        if node.attrs["approximate"] not in ("none", "tanh"):
            node.fail(f"approximate {node.attrs['approximate']!r} is neither 'none' nor 'tanh'")
    x = ctx.tensor(node)
    y = ctx.out(node, x.shape)
    kind = "gelu" if node.attrs["approximate"] == "none" else "gelu_tanh"
    ctx.emit(node, "act", [x], [y], act=kind, params=[])


def lower_lrn(ctx, node):
    known_attrs(node, "alpha", "beta", "bias", "size")
    x = ctx.tensor(node)
    need_rank(node, x, (4,))
    size = int_attr(node, "size", None, 1)
    if size % 2 == 0:
        node.fail(f"size {size} is even (the library's window is symmetric: odd sizes only)")
    y = ctx.out(node, x.shape)
    ctx.emit(node, "lrn", [x], [y], size=size, alpha=float_attr(node, "alpha", 1e-4),
             beta=float_attr(node, "beta", 0.75), bias=float_attr(node, "bias", 1.0))


# ---------------------------------------------------------------------------------------------
# Element-wise operators.

def lower_activation(kind, defaults=()):
    def lower(ctx, node):
        names = [name for name, _ in defaults]
        known_attrs(node, *names)
        params = [float_attr(node, name, value) for name, value in defaults]
        x = ctx.tensor(node)
        y = ctx.out(node, x.shape)
        ctx.emit(node, "act", [x], [y], act=kind, params=params)
    return lower


def lower_clip(ctx, node):
    known_attrs(node, "min", "max")
    x = ctx.tensor(node)
    bounds = [float_attr(node, "min", -np.inf), float_attr(node, "max", np.inf)]
    for i in (1, 2):
        if len(node.inputs) > i and node.inputs[i]:
            c = ctx.weight(node, i)
            if c.size != 1:
                node.fail(f"input '{node.inputs[i]}' of shape {c.shape} is not one value")
            bounds[i - 1] = float(c.reshape(-1)[0])
    lo, hi = bounds
    if lo > hi:
        node.fail(f"min {lo} > max {hi}")
    y = ctx.out(node, x.shape)
    ctx.emit(node, "act", [x], [y], act="clip", params=[lo, hi])


def lower_prelu(ctx, node):
    known_attrs(node)
    x = ctx.tensor(node)
    slope = ctx.weight(node, 1)
    v = channel_vector(slope, x.shape)
    if v is None:
        if slope.ndim > x.rank or broadcast_shape(slope.shape, x.shape) != x.shape:
            node.fail(f"slope of shape {slope.shape} does not broadcast to the input {x.shape}")
        # A slope that varies along trailing axes (from the first one it does not broadcast
        # along): one value per element of that trailing block, as the library's channels of
        # an NHWC tensor whose pixels are the leading axes.
        full = (1,) * (x.rank - slope.ndim) + slope.shape
        first = next(a for a, d in enumerate(full) if d != 1)
        block = np.broadcast_to(slope.reshape(full[first:]), x.shape[first:]).reshape(-1)
        y = ctx.out(node, x.shape)
        ctx.emit(node, "prelu_trailing", [x], [y], slope=as_float(block))
        return
    y = ctx.out(node, x.shape)
    if v.size == 1:
        ctx.emit(node, "act", [x], [y], act="leaky_relu", params=[float(v[0])])
    else:
        ctx.emit(node, "prelu", [x], [y], slope=as_float(v))


def lower_pow(ctx, node):
    """x ** e for a constant e of one value: the product x*x (x*x*x), the square root, the
    identity, or std::pow per element for other exponents."""
    known_attrs(node)
    if ctx.is_const(node, 0) or not ctx.is_const(node, 1):
        node.fail("only a computed base with a constant exponent is supported")
    x = ctx.tensor(node)
    e = np.asarray(ctx.const(node, 1))
    if not np.issubdtype(e.dtype, np.number) or e.size == 0:
        node.fail(f"exponent of type {e.dtype} and shape {e.shape} is not a number")
    if e.ndim > x.rank or broadcast_shape(e.shape, x.shape) != x.shape:
        node.fail(f"exponent of shape {e.shape} broadcasts the input {x.shape} to a larger shape")
    values = np.unique(e.astype(np.float64))
    if values.size != 1:
        node.fail("exponents that differ between elements are not supported")
    exponent = float(values[0])
    y = ctx.out(node, x.shape)
    if exponent == 1.0:
        ctx.emit(node, "view", [x], [y])
    elif exponent in (2.0, 3.0):
        ctx.emit(node, "eltwise", [x] * int(exponent), [y], op="product",
                 weights=[1.0] * int(exponent), act="identity")
    elif exponent == 0.5:
        ctx.emit(node, "act", [x], [y], act="sqrt", params=[])
    else:
        ctx.emit(node, "act", [x], [y], act="pow", params=[exponent])


def lower_binary(op):
    def lower(ctx, node):
        known_attrs(node)
        if len(node.inputs) != 2:
            node.fail("expects two inputs")
        consts = [ctx.is_const(node, i) for i in range(2)]
        if not any(consts):
            lower_binary_computed(ctx, node, op)
            return
        xi = 0 if not consts[0] else 1
        x, c = ctx.tensor(node, xi), np.asarray(ctx.weight(node, 1 - xi), np.float64)
        shape = broadcast_shape(x.shape, c.shape)
        if shape != x.shape:
            node.fail(f"the constant of shape {c.shape} broadcasts the computed tensor "
                      f"{x.shape} to {shape}")
        v = channel_vector(c, x.shape)
        y = ctx.out(node, x.shape)
        if v is not None:
            lower_scale_like(ctx, node, op, x, v, xi, y)
            return
        # A full-size constant: the eltwise layer with the constant as one operand.
        full = np.broadcast_to(c, x.shape)
        if op == "Div":
            if xi != 0:
                node.fail("division of a constant by a computed tensor is not supported")
            full = 1.0 / full
        ct = Tensor(node.inputs[1 - xi] + "/broadcast", x.shape, const=as_float(full))
        kind = {"Add": "sum", "Sub": "sum", "Mul": "product", "Div": "product", "Max": "max",
                "Min": "min"}[op]
        weights = [1.0, -1.0] if op == "Sub" else [1.0, 1.0]
        inputs = [x, ct] if xi == 0 else [ct, x]
        ctx.emit(node, "eltwise", inputs, [y], op=kind, weights=weights, act="identity")
    return lower


def lower_scale_like(ctx, node, op, x, v, xi, y):
    """x (op) a per-channel or scalar constant v as the scale layer (or a clamp for Max/Min)."""
    if op in ("Max", "Min"):
        if v.size != 1:
            node.fail(f"{op} with a per-channel constant is not supported")
        lo, hi = (float(v[0]), np.inf) if op == "Max" else (-np.inf, float(v[0]))
        ctx.emit(node, "act", [x], [y], act="clip", params=[lo, hi])
        return
    if op == "Add":
        scale, bias = None, v
    elif op == "Sub":
        scale, bias = (None, -v) if xi == 0 else (-np.ones_like(v), v)
    elif op == "Mul":
        scale, bias = v, None
    else:
        if xi != 0:
            node.fail("division of a constant by a computed tensor is not supported")
        scale, bias = 1.0 / v, None
    ctx.emit(node, "scale", [x], [y], scale=scale, bias=bias, act="identity")


def lower_binary_computed(ctx, node, op):
    a, b = ctx.tensor(node, 0), ctx.tensor(node, 1)
    if a.shape == b.shape:
        if op == "Div":
            node.fail("division of two computed tensors is not supported")
        y = ctx.out(node, a.shape)
        kind = {"Add": "sum", "Sub": "sum", "Mul": "product", "Max": "max", "Min": "min"}[op]
        ctx.emit(node, "eltwise", [a, b], [y], op=kind,
                 weights=[1.0, -1.0] if op == "Sub" else [1.0, 1.0], act="identity")
        return
    # A per-channel tensor the network computed ([N, C, 1, 1], squeeze-and-excitation) times or
    # plus a 4-D tensor.
    for x, s in ((a, b), (b, a)):
        if (op in ("Mul", "Add") and x.rank == 4 and s.rank == 4 and s.shape[2:] == (1, 1)
                and s.shape[:2] == x.shape[:2]):
            y = ctx.out(node, x.shape)
            ctx.emit(node, "scale_by", [x, s], [y], role="scale" if op == "Mul" else "bias")
            return
    node.fail(f"broadcasting between computed tensors of shapes {a.shape} and {b.shape} is "
              "not supported")


def lower_variadic(op):
    def lower(ctx, node):
        known_attrs(node)
        if not node.inputs:
            node.fail("there are no inputs")
        tensors = [ctx.tensor(node, i) for i in range(len(node.inputs))]
        if len(tensors) == 1:
            y = ctx.out(node, tensors[0].shape)
            ctx.emit(node, "view", tensors, [y])
            return
        if any(t.shape != tensors[0].shape for t in tensors):
            node.fail("inputs of different shapes are not supported")
        y = ctx.out(node, tensors[0].shape)
        weights = [1.0 / len(tensors)] * len(tensors) if op == "Mean" else [1.0] * len(tensors)
        kind = {"Sum": "sum", "Mean": "sum", "Max": "max", "Min": "min"}[op]
        ctx.emit(node, "eltwise", tensors, [y], op=kind, weights=weights, act="identity")
    return lower


# ---------------------------------------------------------------------------------------------
# Layers.

def lower_softmax(ctx, node):
    """Softmax, and LogSoftmax (log=True on the operation: its own step)."""
    known_attrs(node, "axis")
    x = ctx.tensor(node)
    if ctx.model.opset >= 13:
        axis, span = axis_attr(node, "axis", -1, x.rank), 1
    else:
        axis = axis_attr(node, "axis", 1, x.rank)
        span = x.rank - axis  # softmax over the input flattened from `axis` on
    y = ctx.out(node, x.shape)
    ctx.emit(node, "softmax", [x], [y], axis=axis, span=span, log=node.op == "LogSoftmax")


def lower_gemm(ctx, node):
    known_attrs(node, "alpha", "beta", "transA", "transB")
    if int_attr(node, "transA", 0, 0, 1):
        node.fail("transA=1 is not supported")
    x = ctx.tensor(node)
    need_rank(node, x, (2,))
    b = ctx.weight(node, 1)
    if b.ndim != 2:
        node.fail(f"weights of shape {b.shape} are not a matrix")
    weight = b if int_attr(node, "transB", 0, 0, 1) else b.T
    alpha = float_attr(node, "alpha", 1.0)
    if alpha != 1.0:
        weight = weight * np.float32(alpha)
    count, size = weight.shape
    if size != x.shape[1]:
        node.fail(f"weights {b.shape} do not fit an input of {x.shape}")
    c = ctx.weight(node, 2, required=False)
    bias = None
    if c is not None:
        c = np.asarray(c, np.float64) * float_attr(node, "beta", 1.0)
        if c.size == 1:
            bias = np.full(count, c.reshape(-1)[0])
        elif c.size == count and broadcast_shape(c.shape, (1, count)) == (1, count):
            bias = c.reshape(-1)
        else:
            node.fail(f"bias of shape {c.shape} is not one value per output")
    y = ctx.out(node, (x.shape[0], count))
    ctx.emit(node, "gemm", [x], [y], weight=as_float(weight),
             bias=None if bias is None else as_float(bias))


def lower_matmul(ctx, node):
    known_attrs(node)
    if not ctx.is_const(node, 1):
        if ctx.is_const(node, 0):
            node.fail("a constant times a computed tensor is not supported")
        lower_matmul_computed(ctx, node)
        return
    lower_linear(ctx, node)


def lower_linear(ctx, node):
    """x times constant weights [K, N] (MatMul), plus a constant bias of N values when the node
    is the pattern of a Linear layer (_onnx_patterns): rows of x through the fully connected
    step."""
    x = ctx.tensor(node)
    b = ctx.weight(node, 1)
    if b.ndim != 2 or x.rank < 2 or x.shape[-1] != b.shape[0]:
        node.fail(f"shapes {x.shape} and {b.shape} are not supported")
    bias = node.attrs.get("bias")
    if bias is not None and np.asarray(bias).dtype != F32:
        node.fail(f"the bias has data type {np.asarray(bias).dtype} (float32 only)")
    rows = int(np.prod(x.shape[:-1], dtype=np.int64))
    flat = Tensor(node.outputs[0] + "/rows", (rows, x.shape[-1]))
    ctx.emit(node, "view", [x], [flat])
    out = Tensor(node.outputs[0] + "/product", (rows, b.shape[1]))
    ctx.emit(node, "gemm", [flat], [out], weight=as_float(b.T),
             bias=None if bias is None else as_float(bias))
    ctx.emit(node, "view", [out], [ctx.out(node, x.shape[:-1] + (b.shape[1],))])


def lower_matmul_computed(ctx, node):
    """A product of two computed tensors (attention's Q*K^T and weights*V): matrices in the
    last two axes, batch axes equal or one side's all 1 (one matrix for every item)."""
    a, b = ctx.tensor(node, 0), ctx.tensor(node, 1)
    if a.rank < 2 or b.rank < 2 or a.shape[-1] != b.shape[-2]:
        node.fail(f"shapes {a.shape} and {b.shape} are not supported (matrices of matching "
                  "inner extent)")
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    batch = broadcast_shape(a.shape[:-2], b.shape[:-2])
    rank = len(batch) if batch is not None else 0
    strides = []
    for t in (a, b):
        own = (1,) * (rank - (t.rank - 2)) + t.shape[:-2]
        if batch is None or (own != batch and any(d != 1 for d in own)):
            node.fail(f"batch axes of {a.shape} and {b.shape} neither match nor are all 1")
        strides.append(0 if own != batch else t.shape[-2] * t.shape[-1])
    y = ctx.out(node, batch + (m, n))
    ctx.emit(node, "matmul", [a, b], [y], batch=int(np.prod(batch, dtype=np.int64)), m=m, n=n,
             k=k, strides=strides)
