"""From ONNX nodes to the runner's operations (_onnx_ir). Every supported operator has a
handler that checks its attributes, computes the output shape and adds one operation (or
none: views of constants fold away). Anything unsupported raises UnsupportedModelError naming
the node, so a model is refused at load, never at run time.

Operations keep the logical (NCHW) meaning of the ONNX operators; layouts are the planner's.
"""

import math

import numpy as np

from ._onnx_graph import (FOLDERS, UnsupportedModelError, branch_nodes, fold, slice_arguments,
                          slice_indices)
from ._onnx_ir import Network, Op, Tensor

F32 = np.float32


def as_float(a):
    return np.ascontiguousarray(np.asarray(a, dtype=F32))


# ---------------------------------------------------------------------------------------------
# Shapes.

def conv_pads(node, spatial, kernel, strides, dilations, transposed=False):
    """(top, left, bottom, right) of a Conv/Pool/ConvTranspose from `pads` or `auto_pad`."""
    auto = node.attrs.get("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        pads = list(node.attrs.get("pads", [0] * 4))
        if len(pads) != 4:
            node.fail(f"pads {pads} are not those of a 2-D operator")
        if min(pads) < 0:
            node.fail(f"negative pads {pads} are not supported")
        return pads
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


# ---------------------------------------------------------------------------------------------
# The lowering.

class Lowering:
    def __init__(self, model):
        self.model = model
        self.net = Network()
        self.values = {}  # ONNX value name -> Tensor (computed values)
        self.consts = dict(model.constants)

    def run(self):
        for name, shape in self.model.inputs:
            t = Tensor(name, shape)
            self.values[name] = t
            self.net.inputs.append(t)
        self.process(self.model.nodes)
        for name in self.model.outputs:
            if name in self.values:
                self.net.outputs.append(self.values[name])
            elif name in self.consts:
                raise UnsupportedModelError(
                    f"output '{name}' is a constant (it does not depend on the inputs)")
            else:
                raise UnsupportedModelError(f"output '{name}' is computed by no node")
        return self.net

    def process(self, nodes):
        for node in nodes:
            if node.op == "If":
                self.inline_if(node)
                continue
            present = [i for i in node.inputs if i]
            if all(i in self.consts for i in present) and (node.op in FOLDERS or
                                                           node.op == "Dropout"):
                values = [self.consts[i] if i else None for i in node.inputs]
                result = [values[0]] if node.op == "Dropout" else fold(node, values)
                self.consts[node.outputs[0]] = result[0]
                continue
            if node.op == "Shape" and node.inputs[0] in self.values:
                shape = np.array(self.values[node.inputs[0]].shape, np.int64)
                start, end = node.attrs.get("start", 0), node.attrs.get("end", None)
                self.consts[node.outputs[0]] = shape[start:end]
                continue
            if node.op == "Size" and node.inputs[0] in self.values:
                self.consts[node.outputs[0]] = np.array(self.values[node.inputs[0]].size, np.int64)
                continue
            handler = HANDLERS.get(node.op)
            if handler is None:
                node.fail("operator not supported")
            for name in present:
                if name not in self.consts and name not in self.values:
                    node.fail(f"input '{name}' is computed by no earlier node")
            handler(self, node)

    def inline_if(self, node):
        cond = self.consts.get(node.inputs[0])
        if cond is None:
            node.fail("the condition depends on the inputs (only constant conditions fold)")
        branch = node.attrs["then_branch" if bool(np.asarray(cond).reshape(-1)[0]) else
                            "else_branch"]
        nodes, constants = branch_nodes(node, branch, "branch_")
        self.consts.update(constants)
        self.process(nodes)

    # Helpers for the handlers.

    def tensor(self, node, i=0):
        """The computed tensor at input i (a constant there is materialized as a tensor)."""
        name = node.inputs[i]
        if name in self.values:
            return self.values[name]
        if name in self.consts:
            c = self.consts[name]
            if c.dtype != F32:
                node.fail(f"input '{name}' has data type {c.dtype} (float32 only)")
            t = Tensor(name, c.shape, const=as_float(c))
            self.values[name] = t
            return t
        node.fail(f"input '{name}' is missing")

    def const(self, node, i, required=True):
        """The constant at input i, None when the input is omitted (and not required)."""
        if i >= len(node.inputs) or not node.inputs[i]:
            if required:
                node.fail(f"input {i} is required")
            return None
        name = node.inputs[i]
        if name not in self.consts:
            node.fail(f"input '{name}' must be a constant (it is computed from the inputs)")
        return self.consts[name]

    def weight(self, node, i, required=True):
        """A constant the computation reads as float32 data (weights, biases, statistics,
        operands); other data types are refused."""
        c = self.const(node, i, required)
        if c is not None and c.dtype != F32:
            node.fail(f"input '{node.inputs[i]}' has data type {c.dtype} (float32 only)")
        return c

    def is_const(self, node, i):
        return i < len(node.inputs) and node.inputs[i] in self.consts

    def out(self, node, shape, i=0):
        if any(d <= 0 for d in shape):
            node.fail(f"output shape {tuple(shape)} has an empty dimension")
        t = Tensor(node.outputs[i], shape)
        self.values[node.outputs[i]] = t
        return t

    def emit(self, node, kind, inputs, outputs, **attrs):
        return self.net.add(Op(kind, node.name, inputs, outputs, **attrs))

    def check_unused_outputs(self, node, first):
        for name in node.outputs[first:]:
            if name:
                node.fail(f"output '{name}' (training statistics) is not supported")


def need_rank(node, x, ranks):
    if x.rank not in ranks:
        node.fail(f"input of rank {x.rank} is not supported (rank {' or '.join(map(str, ranks))})")


def known_attrs(node, *names):
    for name in node.attrs:
        if name not in names:
            node.fail(f"attribute '{name}' is not supported")


# ---------------------------------------------------------------------------------------------
# Convolutions.

def lower_conv(ctx, node):
    known_attrs(node, "auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")
    x = ctx.tensor(node)
    need_rank(node, x, (4,))
    w = ctx.weight(node, 1)
    if w.ndim != 4:
        node.fail("only 2-D convolutions are supported")
    b = ctx.weight(node, 2, required=False)
    group = int(node.attrs.get("group", 1))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    if c != cg * group or o % group:
        node.fail(f"weights {w.shape} do not fit {c} input channels in {group} groups")
    strides = list(node.attrs.get("strides", [1, 1]))
    dilations = list(node.attrs.get("dilations", [1, 1]))
    pads = conv_pads(node, (h, wd), (kh, kw), strides, dilations)
    oh = (h + pads[0] + pads[2] - ((kh - 1) * dilations[0] + 1)) // strides[0] + 1
    ow = (wd + pads[1] + pads[3] - ((kw - 1) * dilations[1] + 1)) // strides[1] + 1
    y = ctx.out(node, (n, o, oh, ow))
    ctx.emit(node, "conv", [x], [y], weight=as_float(w),
             bias=None if b is None else as_float(b), group=group, strides=strides,
             pads=pads, dilations=dilations, act="identity", act_params=None)


def lower_conv_transpose(ctx, node):
    known_attrs(node, "auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                "output_shape", "pads", "strides")
    x = ctx.tensor(node)
    need_rank(node, x, (4,))
    w = ctx.weight(node, 1)
    if w.ndim != 4:
        node.fail("only 2-D transposed convolutions are supported")
    b = ctx.weight(node, 2, required=False)
    group = int(node.attrs.get("group", 1))
    n, c, h, wd = x.shape
    ci, og, kh, kw = w.shape
    if ci != c or c % group:
        node.fail(f"weights {w.shape} do not fit {c} input channels in {group} groups")
    strides = list(node.attrs.get("strides", [1, 1]))
    dilations = list(node.attrs.get("dilations", [1, 1]))
    extra = list(node.attrs.get("output_padding", [0, 0]))
    full = [s * (i - 1) + (k - 1) * d + 1 for s, i, k, d in
            zip(strides, (h, wd), (kh, kw), dilations)]
    if "output_shape" in node.attrs:
        target = list(node.attrs["output_shape"])[-2:]
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
    y = ctx.out(node, (n, og * group, oh, ow))
    ctx.emit(node, "deconv", [x], [y], weight=as_float(w),
             bias=None if b is None else as_float(b), group=group, strides=strides,
             pads=lib_pads, dilations=dilations, act="identity", act_params=None)


# ---------------------------------------------------------------------------------------------
# Normalizations.

def lower_batch_norm(ctx, node):
    known_attrs(node, "epsilon", "momentum", "training_mode", "spatial")
    if node.attrs.get("training_mode", 0):
        node.fail("training_mode=1 is not supported (export the model in eval mode)")
    ctx.check_unused_outputs(node, 1)
    x = ctx.tensor(node)
    if x.rank < 2:
        node.fail("the input needs a channel axis")
    gamma, beta, mean, var = (np.asarray(ctx.weight(node, i), np.float64) for i in range(1, 5))
    eps = float(node.attrs.get("epsilon", 1e-5))
    scale = gamma / np.sqrt(var + eps)
    shift = beta - mean * scale
    y = ctx.out(node, x.shape)
    ctx.emit(node, "scale", [x], [y], scale=scale, bias=shift, act="identity")


def lower_instance_norm(ctx, node):
    known_attrs(node, "epsilon")
    x = ctx.tensor(node)
    need_rank(node, x, (4,))
    y = ctx.out(node, x.shape)
    ctx.emit(node, "instance_norm", [x], [y], scale=as_float(ctx.weight(node, 1)),
             shift=as_float(ctx.weight(node, 2)), eps=float(node.attrs.get("epsilon", 1e-5)))


def lower_layer_norm(ctx, node):
    known_attrs(node, "axis", "epsilon", "stash_type")
    ctx.check_unused_outputs(node, 1)
    x = ctx.tensor(node)
    axis = int(node.attrs.get("axis", -1)) % x.rank
    normalized = x.shape[axis:]
    scale = np.broadcast_to(ctx.weight(node, 1), normalized)
    b = ctx.weight(node, 2, required=False)
    shift = np.zeros(normalized, F32) if b is None else np.broadcast_to(b, normalized)
    y = ctx.out(node, x.shape)
    ctx.emit(node, "layer_norm", [x], [y], axis=axis, scale=as_float(scale),
             shift=as_float(shift), eps=float(node.attrs.get("epsilon", 1e-5)))


def lower_lrn(ctx, node):
    known_attrs(node, "alpha", "beta", "bias", "size")
    x = ctx.tensor(node)
    need_rank(node, x, (4,))
    size = int(node.attrs["size"])
    if size % 2 == 0:
        node.fail(f"size {size} is even (the library's window is symmetric: odd sizes only)")
    y = ctx.out(node, x.shape)
    ctx.emit(node, "lrn", [x], [y], size=size, alpha=float(node.attrs.get("alpha", 1e-4)),
             beta=float(node.attrs.get("beta", 0.75)), bias=float(node.attrs.get("bias", 1.0)))


# ---------------------------------------------------------------------------------------------
# Element-wise operators.

def lower_activation(kind, defaults=()):
    def lower(ctx, node):
        names = [name for name, _ in defaults]
        known_attrs(node, *names)
        params = [float(node.attrs.get(name, value)) for name, value in defaults]
        x = ctx.tensor(node)
        y = ctx.out(node, x.shape)
        ctx.emit(node, "act", [x], [y], act=kind, params=params)
    return lower


def lower_clip(ctx, node):
    known_attrs(node, "min", "max")
    x = ctx.tensor(node)
    lo = node.attrs.get("min", -np.inf)
    hi = node.attrs.get("max", np.inf)
    if len(node.inputs) > 1 and node.inputs[1]:
        lo = ctx.const(node, 1)
    if len(node.inputs) > 2 and node.inputs[2]:
        hi = ctx.const(node, 2)
    lo, hi = float(np.asarray(lo).reshape(-1)[0]), float(np.asarray(hi).reshape(-1)[0])
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
        node.fail(f"slope of shape {slope.shape} is neither one value nor one per channel")
    y = ctx.out(node, x.shape)
    if v.size == 1:
        ctx.emit(node, "act", [x], [y], act="leaky_relu", params=[float(v[0])])
    else:
        ctx.emit(node, "prelu", [x], [y], slope=as_float(v))


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
# Pooling.

def lower_pool(kind):
    def lower(ctx, node):
        known_attrs(node, "auto_pad", "ceil_mode", "count_include_pad", "dilations",
                    "kernel_shape", "pads", "strides", "storage_order")
        if len(node.outputs) > 1 and node.outputs[1]:
            node.fail("the indices output is not supported")
        if node.attrs.get("storage_order", 0):
            node.fail("storage_order=1 is not supported")
        if any(d != 1 for d in node.attrs.get("dilations", [1, 1])):
            node.fail("dilated pooling is not supported")
        x = ctx.tensor(node)
        need_rank(node, x, (4,))
        kernel = list(node.attrs["kernel_shape"])
        if len(kernel) != 2:
            node.fail("only 2-D pooling is supported")
        strides = list(node.attrs.get("strides", [1, 1]))
        n, c, h, w = x.shape
        pads = conv_pads(node, (h, w), kernel, strides, (1, 1))
        ceil = bool(node.attrs.get("ceil_mode", 0))
        out = []
        for a, size in enumerate((h, w)):
            span = size + pads[a] + pads[a + 2] - kernel[a]
            o = (-(-span // strides[a]) if ceil else span // strides[a]) + 1
            if ceil and (o - 1) * strides[a] >= size + pads[a]:
                o -= 1  # the last window would start in the end padding
            out.append(o)
            if pads[a] >= kernel[a]:
                node.fail(f"pads {pads} as large as the kernel {kernel} are not supported")
        include = bool(node.attrs.get("count_include_pad", 0))
        mode = kind
        if kind == "average":
            mode = "average" if include else "average_exclude"
            if include:
                for a, size in enumerate((h, w)):
                    if (out[a] - 1) * strides[a] + kernel[a] > size + pads[a] + pads[a + 2]:
                        node.fail("count_include_pad with windows past the end padding "
                                  "(ceil_mode) is not supported")
        y = ctx.out(node, (n, c, out[0], out[1]))
        ctx.emit(node, "pool", [x], [y], mode=mode, kernel=kernel, strides=strides,
                 pads=pads[:2])
    return lower


def lower_global_pool(kind):
    def lower(ctx, node):
        known_attrs(node)
        x = ctx.tensor(node)
        need_rank(node, x, (4,))
        n, c, h, w = x.shape
        y = ctx.out(node, (n, c, 1, 1))
        ctx.emit(node, "pool", [x], [y], mode=kind, kernel=[h, w], strides=[1, 1], pads=[0, 0])
    return lower


def lower_reduce(kind):
    def lower(ctx, node):
        known_attrs(node, "axes", "keepdims", "noop_with_empty_axes")
        x = ctx.tensor(node)
        axes = node.attrs.get("axes")
        if axes is None and len(node.inputs) > 1 and node.inputs[1]:
            axes = ctx.const(node, 1)
        axes = sorted(int(a) % x.rank for a in axes) if axes is not None else None
        if x.rank != 4 or axes != [2, 3]:
            node.fail(f"reduction over axes {axes} of a rank-{x.rank} tensor is not supported "
                      "(only the spatial axes of a 4-D tensor)")
        n, c, h, w = x.shape
        keep = bool(node.attrs.get("keepdims", 1))
        pooled = Tensor(node.outputs[0] + ("" if keep else "/pooled"), (n, c, 1, 1))
        ctx.emit(node, "pool", [x], [pooled], mode=kind, kernel=[h, w], strides=[1, 1],
                 pads=[0, 0])
        if keep:
            ctx.values[node.outputs[0]] = pooled
        else:
            y = ctx.out(node, (n, c))
            ctx.emit(node, "view", [pooled], [y])
    return lower


# ---------------------------------------------------------------------------------------------
# Data movement.

def lower_concat(ctx, node):
    known_attrs(node, "axis")
    tensors = [ctx.tensor(node, i) for i in range(len(node.inputs))]
    rank = tensors[0].rank
    axis = int(node.attrs["axis"]) % rank
    for t in tensors:
        if t.rank != rank or any(t.shape[a] != tensors[0].shape[a] for a in range(rank) if a != axis):
            node.fail("inputs differ in shape outside the concatenation axis")
    shape = list(tensors[0].shape)
    shape[axis] = sum(t.shape[axis] for t in tensors)
    y = ctx.out(node, shape)
    ctx.emit(node, "concat" if len(tensors) > 1 else "view", tensors, [y], axis=axis)


def lower_split(ctx, node):
    known_attrs(node, "axis", "split", "num_outputs")
    x = ctx.tensor(node)
    axis = int(node.attrs.get("axis", 0)) % x.rank
    sizes = node.attrs.get("split")
    if sizes is None and len(node.inputs) > 1 and node.inputs[1]:
        sizes = ctx.const(node, 1)
    n = x.shape[axis]
    count = len(node.outputs)
    if sizes is None:
        part = -(-n // count)
        sizes = [min(part, n - i * part) for i in range(count)]
    sizes = [int(s) for s in sizes]
    if sum(sizes) != n or len(sizes) != count:
        node.fail(f"split sizes {sizes} do not cover {n} elements in {count} outputs")
    outs = []
    for i, size in enumerate(sizes):
        shape = list(x.shape)
        shape[axis] = size
        outs.append(ctx.out(node, shape, i))
    ctx.emit(node, "split", [x], outs, axis=axis, sizes=sizes)


def lower_slice(ctx, node):
    x = ctx.tensor(node)
    values = [None] + [ctx.const(node, i) if i < len(node.inputs) and node.inputs[i] else None
                       for i in range(1, len(node.inputs))]
    ranges = []
    shape = list(x.shape)
    for start, end, axis, step in zip(*slice_arguments(node, values)):
        axis %= x.rank
        idx = slice_indices(x.shape[axis], start, end, step)
        if idx.size == 0:
            node.fail("the slice is empty")
        if idx.size != x.shape[axis]:
            if step != 1:
                node.fail(f"slice step {step} is not supported")
            ranges.append((axis, int(idx[0]), int(idx[-1]) + 1))
            shape[axis] = idx.size
    y = ctx.out(node, shape)
    if not ranges:
        ctx.emit(node, "view", [x], [y])
        return
    # One axis per copy step: a slice of several axes is a chain.
    current = list(x.shape)
    for i, (axis, start, stop) in enumerate(ranges):
        current[axis] = stop - start
        t = y if i == len(ranges) - 1 else Tensor(f"{node.outputs[0]}/axis{axis}", current)
        ctx.emit(node, "slice", [x], [t], ranges=[(axis, start, stop)])
        x = t


def reshape_target(node, x, target, allowzero=0):
    target = [int(d) for d in target]
    shape = []
    for i, d in enumerate(target):
        shape.append(x.shape[i] if d == 0 and not allowzero else d)
    if shape.count(-1) > 1:
        node.fail(f"reshape {target} has several -1")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or x.size % known:
            node.fail(f"cannot reshape {x.shape} to {target}")
        shape[shape.index(-1)] = x.size // known
    if int(np.prod(shape, dtype=np.int64)) != x.size:
        node.fail(f"cannot reshape {x.shape} to {target}")
    return shape


def lower_reshape(ctx, node):
    known_attrs(node, "allowzero")
    x = ctx.tensor(node)
    shape = reshape_target(node, x, ctx.const(node, 1), node.attrs.get("allowzero", 0))
    ctx.emit(node, "view", [x], [ctx.out(node, shape)])


def lower_flatten(ctx, node):
    known_attrs(node, "axis")
    x = ctx.tensor(node)
    axis = int(node.attrs.get("axis", 1)) % (x.rank + 1) if x.rank else 0
    shape = (int(np.prod(x.shape[:axis], dtype=np.int64)), int(np.prod(x.shape[axis:], dtype=np.int64)))
    ctx.emit(node, "view", [x], [ctx.out(node, shape)])


def lower_squeeze(unsqueeze):
    def lower(ctx, node):
        known_attrs(node, "axes")
        x = ctx.tensor(node)
        axes = node.attrs.get("axes")
        if axes is None and len(node.inputs) > 1 and node.inputs[1]:
            axes = ctx.const(node, 1)
        shape = list(x.shape)
        if unsqueeze:
            rank = x.rank + len(axes)
            for a in sorted(int(a) % rank for a in axes):
                shape.insert(a, 1)
        else:
            axes = [a for a in range(x.rank) if shape[a] == 1] if axes is None else \
                [int(a) % x.rank for a in axes]
            if any(shape[a] != 1 for a in axes):
                node.fail(f"squeezed axes {axes} of {x.shape} are not of extent 1")
            shape = [d for a, d in enumerate(shape) if a not in axes]
        ctx.emit(node, "view", [x], [ctx.out(node, shape)])
    return lower


def lower_identity(ctx, node):
    x = ctx.tensor(node)
    if node.op == "Dropout":
        known_attrs(node, "seed", "ratio", "is_test")
        if len(node.inputs) > 2 and node.inputs[2] and bool(ctx.const(node, 2)):
            node.fail("training_mode=True is not supported")
        ctx.check_unused_outputs(node, 1)
    ctx.emit(node, "view", [x], [ctx.out(node, x.shape)])


def lower_transpose(ctx, node):
    known_attrs(node, "perm")
    x = ctx.tensor(node)
    perm = [int(p) for p in node.attrs.get("perm", range(x.rank - 1, -1, -1))]
    if sorted(perm) != list(range(x.rank)):
        node.fail(f"perm {perm} is not a permutation of the axes")
    y = ctx.out(node, [x.shape[p] for p in perm])
    ctx.emit(node, "transpose", [x], [y], perm=perm)


def lower_pad(ctx, node):
    known_attrs(node, "mode", "pads", "value")
    x = ctx.tensor(node)
    mode = node.attrs.get("mode", "constant")
    if mode not in ("constant", "reflect", "edge"):
        node.fail(f"mode {mode} is not supported")
    if "pads" in node.attrs:
        pads, value = list(node.attrs["pads"]), float(node.attrs.get("value", 0.0))
    else:
        pads = [int(p) for p in ctx.const(node, 1)]
        c = ctx.const(node, 2, required=False)
        value = 0.0 if c is None or np.asarray(c).size == 0 else float(np.asarray(c).reshape(-1)[0])
        if len(node.inputs) > 3 and node.inputs[3]:
            node.fail("the axes input is not supported")
    if len(pads) != 2 * x.rank or min(pads) < 0:
        node.fail(f"pads {pads} are not supported (non-negative, two per axis)")
    before, after = pads[:x.rank], pads[x.rank:]
    if mode == "reflect" and any(max(b, a) >= d for b, a, d in zip(before, after, x.shape)):
        node.fail("reflect pads as large as the axis are not supported")
    shape = [d + b + a for d, b, a in zip(x.shape, before, after)]
    y = ctx.out(node, shape)
    if not any(pads):
        ctx.emit(node, "view", [x], [y])
    else:
        ctx.emit(node, "pad", [x], [y], before=before, after=after, mode=mode, value=value)


def nearest_indices(node, n_in, n_out, scale, transform, rounding):
    """The input index of each output index along one axis (ONNX Resize, mode nearest)."""
    idx = []
    for o in range(n_out):
        if transform == "half_pixel":
            x = (o + 0.5) / scale - 0.5
        elif transform == "pytorch_half_pixel":
            x = (o + 0.5) / scale - 0.5 if n_out > 1 else 0.0
        elif transform == "align_corners":
            x = o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        elif transform == "asymmetric":
            x = o / scale
        elif transform == "tf_half_pixel_for_nn":
            x = (o + 0.5) / scale
        else:
            node.fail(f"coordinate_transformation_mode {transform} is not supported")
        if rounding == "round_prefer_floor":
            i = math.ceil(x - 0.5)
        elif rounding == "round_prefer_ceil":
            i = math.floor(x + 0.5)
        elif rounding == "floor":
            i = math.floor(x)
        elif rounding == "ceil":
            i = math.ceil(x)
        else:
            node.fail(f"nearest_mode {rounding} is not supported")
        idx.append(min(max(int(i), 0), n_in - 1))
    return idx


def lower_resize(ctx, node):
    known_attrs(node, "mode", "coordinate_transformation_mode", "nearest_mode",
                "cubic_coeff_a", "exclude_outside", "extrapolation_value")
    x = ctx.tensor(node)
    need_rank(node, x, (4,))
    mode = node.attrs.get("mode", "nearest")
    if mode != "nearest":
        node.fail(f"mode {mode} is not supported (nearest only)")
    if node.op == "Upsample":
        scales = ctx.const(node, 1) if len(node.inputs) > 1 else node.attrs.get("scales")
        sizes = None
        transform, rounding = "asymmetric", "floor"
    else:
        transform = node.attrs.get("coordinate_transformation_mode", "half_pixel")
        rounding = node.attrs.get("nearest_mode", "round_prefer_floor")
        first = 1 if ctx.model.opset < 11 else 2
        scales = ctx.const(node, first, required=False)
        sizes = ctx.const(node, first + 1, required=False)
        if scales is not None and np.asarray(scales).size == 0:
            scales = None
    if sizes is not None and np.asarray(sizes).size:
        sizes = [int(s) for s in sizes]
        scales = [o / i for o, i in zip(sizes, x.shape)]
    elif scales is not None:
        scales = [float(s) for s in scales]
        sizes = [int(math.floor(d * s)) for d, s in zip(x.shape, scales)]
    else:
        node.fail("neither scales nor sizes are given")
    if sizes[0] != x.shape[0] or sizes[1] != x.shape[1]:
        node.fail("resizing the batch or channel axis is not supported")
    rows = nearest_indices(node, x.shape[2], sizes[2], scales[2], transform, rounding)
    cols = nearest_indices(node, x.shape[3], sizes[3], scales[3], transform, rounding)
    y = ctx.out(node, sizes)
    ctx.emit(node, "resize", [x], [y], rows=rows, cols=cols)


# ---------------------------------------------------------------------------------------------
# Layers.

def lower_softmax(ctx, node):
    known_attrs(node, "axis")
    x = ctx.tensor(node)
    if ctx.model.opset >= 13:
        axis, span = int(node.attrs.get("axis", -1)) % x.rank, 1
    else:
        axis = int(node.attrs.get("axis", 1)) % x.rank
        span = x.rank - axis  # softmax over the input flattened from `axis` on
    y = ctx.out(node, x.shape)
    ctx.emit(node, "softmax", [x], [y], axis=axis, span=span)


def lower_gemm(ctx, node):
    known_attrs(node, "alpha", "beta", "transA", "transB")
    if node.attrs.get("transA", 0):
        node.fail("transA=1 is not supported")
    x = ctx.tensor(node)
    need_rank(node, x, (2,))
    b = ctx.weight(node, 1)
    weight = b if node.attrs.get("transB", 0) else b.T
    alpha = float(node.attrs.get("alpha", 1.0))
    if alpha != 1.0:
        weight = weight * np.float32(alpha)
    count, size = weight.shape
    if size != x.shape[1]:
        node.fail(f"weights {b.shape} do not fit an input of {x.shape}")
    c = ctx.weight(node, 2, required=False)
    bias = None
    if c is not None:
        c = np.asarray(c, np.float64) * float(node.attrs.get("beta", 1.0))
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
        node.fail("the second operand must be a constant (a product of two computed tensors is "
                  "not supported)")
    x = ctx.tensor(node)
    b = ctx.weight(node, 1)
    if b.ndim != 2 or x.rank < 2 or x.shape[-1] != b.shape[0]:
        node.fail(f"shapes {x.shape} and {b.shape} are not supported")
    rows = int(np.prod(x.shape[:-1], dtype=np.int64))
    flat = Tensor(node.outputs[0] + "/rows", (rows, x.shape[-1]))
    ctx.emit(node, "view", [x], [flat])
    out = Tensor(node.outputs[0] + "/product", (rows, b.shape[1]))
    ctx.emit(node, "gemm", [flat], [out], weight=as_float(b.T), bias=None)
    ctx.emit(node, "view", [out], [ctx.out(node, x.shape[:-1] + (b.shape[1],))])


HANDLERS = {
    "Conv": lower_conv,
    "ConvTranspose": lower_conv_transpose,
    "BatchNormalization": lower_batch_norm,
    "InstanceNormalization": lower_instance_norm,
    "LayerNormalization": lower_layer_norm,
    "LRN": lower_lrn,
    "Relu": lower_activation("relu"),
    "LeakyRelu": lower_activation("leaky_relu", [("alpha", 0.01)]),
    "Elu": lower_activation("elu", [("alpha", 1.0)]),
    "Selu": lower_activation("selu", [("alpha", 1.67326319217681884765625),
                                      ("gamma", 1.05070102214813232421875)]),
    "Sigmoid": lower_activation("sigmoid"),
    "HardSigmoid": lower_activation("hard_sigmoid", [("alpha", 0.2), ("beta", 0.5)]),
    "HardSwish": lower_activation("hswish"),
    "Tanh": lower_activation("tanh"),
    "Softplus": lower_activation("softplus"),
    "Exp": lower_activation("exp"),
    "Log": lower_activation("log"),
    "Abs": lower_activation("abs"),
    "Neg": lower_activation("neg"),
    "Sqrt": lower_activation("sqrt"),
    "Clip": lower_clip,
    "PRelu": lower_prelu,
    "Add": lower_binary("Add"),
    "Sub": lower_binary("Sub"),
    "Mul": lower_binary("Mul"),
    "Div": lower_binary("Div"),
    "Max": lambda ctx, node: (lower_binary("Max") if len(node.inputs) == 2 else
                              lower_variadic("Max"))(ctx, node),
    "Min": lambda ctx, node: (lower_binary("Min") if len(node.inputs) == 2 else
                              lower_variadic("Min"))(ctx, node),
    "Sum": lower_variadic("Sum"),
    "Mean": lower_variadic("Mean"),
    "MaxPool": lower_pool("max"),
    "AveragePool": lower_pool("average"),
    "GlobalAveragePool": lower_global_pool("average"),
    "GlobalMaxPool": lower_global_pool("max"),
    "ReduceMean": lower_reduce("average"),
    "ReduceMax": lower_reduce("max"),
    "Concat": lower_concat,
    "Split": lower_split,
    "Slice": lower_slice,
    "Reshape": lower_reshape,
    "Flatten": lower_flatten,
    "Squeeze": lower_squeeze(False),
    "Unsqueeze": lower_squeeze(True),
    "Identity": lower_identity,
    "Dropout": lower_identity,
    "Transpose": lower_transpose,
    "Pad": lower_pad,
    "Resize": lower_resize,
    "Upsample": lower_resize,
    "Softmax": lower_softmax,
    "Gemm": lower_gemm,
    "MatMul": lower_matmul,
}


def lower(model):
    """The runner's operations for an ONNX model (Model of _onnx_graph)."""
    return Lowering(model).run()
