"""Rewrites of the runner's operations before planning: BatchNormalization folded into the
preceding convolution, activation patterns recognised (x*sigmoid(x) = swish, x*hardsigmoid(x) =
hard swish, x*tanh(softplus(x)) = mish), activations fused into the convolution that produces
their input, a ReLU after a scale layer and an activation after an eltwise layer carried by
that layer, DenseNet's growing concatenations turned into one concatenation of two tensors per
layer, and chains of 1-D layers kept on their (N, C, 1, L) images.
"""

import numpy as np

from ._onnx_ir import Op, Tensor

F32 = np.float32

# The framework's activation code of each activation the convolution-like contexts can apply
# (SimdConvolutionActivationType).
ACTIVATION_CODES = {"identity": 0, "relu": 1, "leaky_relu": 2, "restrict_range": 3, "prelu": 4,
                    "elu": 5, "hswish": 6, "mish": 7, "hard_sigmoid": 8, "swish": 9, "gelu": 10}

# torch's Mish switches to the identity above 20 (its softplus threshold); exp makes the two
# equal in FP32 long before.
MISH_THRESHOLD = 20.0

# Activations the runner has only as a convolution's (recognise_activations makes them only
# there); every other act kind has an executor function of its own.
CONVOLUTION_ONLY = {"swish", "mish"}


def conv_activation(op):
    """The (framework activation, parameters) that computes act op `op`, or None."""
    kind, p = op.kind, op.get("params", [])
    if kind == "prelu":
        return "prelu", op["slope"]
    if kind != "act":
        return None
    a = op["act"]
    if a == "relu":
        return "relu", None
    if a == "leaky_relu":
        return "leaky_relu", [p[0]]
    if a == "clip":
        if p[0] == 0 and p[1] == np.inf:
            return "relu", None
        return "restrict_range", [p[0], p[1]]
    if a == "elu":
        return "elu", [p[0]]
    if a == "hswish":
        return "hswish", [3.0, 1.0 / 6.0]
    if a == "hard_sigmoid":
        return "hard_sigmoid", [p[0], p[1]]
    if a == "swish":
        return "swish", [1.0]
    if a == "mish":
        return "mish", [MISH_THRESHOLD]
    if a == "gelu":
        return "gelu", None
    return None


def fold_scales_into_convolutions(net):
    """conv -> scale (BatchNormalization, constant per-channel affine) becomes one conv."""
    for op in list(net.ops):
        if op.kind != "scale" or op.get("act") != "identity" or len(op.inputs) != 1:
            continue
        x = op.inputs[0]
        conv = x.producer
        if conv is None or conv.kind not in ("conv", "deconv") or conv["act"] != "identity":
            continue
        if net.sole_consumer(x) is not op:
            continue
        out_channels = x.shape[1]
        # FP32 products, one rounding each, as an exporter folding them would give.
        scale = np.ones(out_channels, F32) if op["scale"] is None else \
            np.broadcast_to(np.asarray(op["scale"], F32), (out_channels,))
        shift = np.zeros(out_channels, F32) if op["bias"] is None else \
            np.broadcast_to(np.asarray(op["bias"], F32), (out_channels,))
        w = conv["weight"]
        if conv.kind == "conv":
            w = w * scale[:, None, None, None]
        else:
            # [srcC][dstC/group][kY][kX]: output channel g*Dg + d of input channel i in group g.
            group = conv["group"]
            cg, dg = w.shape[0] // group, w.shape[1]
            w = w.reshape(group, cg, dg, *w.shape[2:]) * scale.reshape(group, 1, dg, 1, 1)
            w = w.reshape(group * cg, dg, *w.shape[3:])
        b = np.zeros(out_channels, F32) if conv["bias"] is None else conv["bias"]
        conv.attrs["weight"] = np.ascontiguousarray(w, F32)
        conv.attrs["bias"] = np.ascontiguousarray(b * scale + shift, F32)
        conv.name = f"{conv.name}+{op.name}"
        y = op.outputs[0]
        net.remove(op)
        conv.outputs = [y]
        y.producer = conv


def _product_of(net, op, gate_act):
    """When `op` (an act of kind gate_act on x) feeds only a product x*op(x), that product."""
    if op.kind != "act" or op["act"] != gate_act:
        return None
    x, g = op.inputs[0], op.outputs[0]
    mul = net.sole_consumer(g)
    if (mul is None or mul.kind != "eltwise" or mul["op"] != "product" or len(mul.inputs) != 2
            or mul.get("act") != "identity"):
        return None
    if {id(t) for t in mul.inputs} != {id(x), id(g)}:
        return None
    return mul


def recognise_activations(net):
    """x*sigmoid(x) -> swish, x*hardsigmoid(x) (1/6, 1/2) -> hard swish,
    x*tanh(softplus(x)) -> mish."""
    for op in list(net.ops):
        if op not in net.ops or op.kind != "act":
            continue
        kind = None
        if op["act"] == "sigmoid":
            mul, first, kind = _product_of(net, op, "sigmoid"), op, "swish"
        elif op["act"] == "hard_sigmoid" and np.allclose(op["params"], [1 / 6, 0.5]):
            mul, first, kind = _product_of(net, op, "hard_sigmoid"), op, "hswish"
        elif op["act"] == "softplus":
            t = op.outputs[0]
            tanh = net.sole_consumer(t)
            if tanh is None or tanh.kind != "act" or tanh["act"] != "tanh":
                continue
            mul = net.sole_consumer(tanh.outputs[0])
            x = op.inputs[0]
            if (mul is None or mul.kind != "eltwise" or mul["op"] != "product" or
                    {id(i) for i in mul.inputs} != {id(x), id(tanh.outputs[0])}):
                continue
            first, kind = op, "mish"
        else:
            continue
        if mul is None:
            continue
        # Only where a convolution can take the activation: there is no standalone swish or
        # mish function, and the two steps remain as they are.
        x, y = first.inputs[0], mul.outputs[0]
        producer = x.producer
        if (producer is None or producer.kind not in ("conv", "deconv") or
                producer["act"] != "identity" or len(x.consumers) != 2 or net.is_output(x)):
            continue
        if kind == "mish":
            net.remove(tanh)
        index = net.ops.index(mul)
        name = f"{first.name}+{mul.name}"
        net.remove(first)
        net.remove(mul)
        net.add(Op("act", name, [x], [y], act=kind, params=[]), index - 1)


def fuse_activations(net):
    """conv/deconv -> activation becomes one context with that activation; scale -> relu
    carries the ReLU; eltwise -> any element-wise activation carries it (the executor applies
    it chunk by chunk while the sum is in cache: a residual Add and its ReLU in one pass)."""
    for op in list(net.ops):
        if op not in net.ops or not op.outputs:
            continue
        y = op.outputs[0]
        nxt = net.sole_consumer(y)
        if nxt is None or len(nxt.inputs) != 1:
            continue
        if op.kind in ("conv", "deconv") and op["act"] == "identity":
            act = conv_activation(nxt)
            if act is None:
                continue
            op.attrs["act"], params = act
            op.attrs["act_params"] = None if params is None else np.asarray(params, F32)
        elif op.kind == "scale" and op["act"] == "identity" and \
                conv_activation(nxt) == ("relu", None):
            op.attrs["act"] = "relu"
        elif op.kind == "eltwise" and op["act"] == "identity" and nxt.kind == "act" and \
                nxt["act"] not in CONVOLUTION_ONLY:
            # A ReLU in any of its forms stays the plain ReLU it became before the other
            # activations were fused here, so that no plan changes a bit.
            if conv_activation(nxt) == ("relu", None):
                op.attrs["act"], op.attrs["act_params"] = "relu", []
            else:
                op.attrs["act"], op.attrs["act_params"] = nxt["act"], list(nxt.get("params", []))
        else:
            continue
        z = nxt.outputs[0]
        op.name = f"{op.name}+{nxt.name}"
        net.remove(nxt)
        op.outputs = [z]
        z.producer = op


def split_growing_concatenations(net):
    """DenseNet concatenates all earlier outputs of a block at every layer: concat(x0..xk).
    When concat(x0..x(k-1)) is another tensor of the network, this one is concat(that, xk), so
    each layer copies its new channels once instead of the whole block."""
    concats = [op for op in net.ops if op.kind == "concat"]
    by_inputs = {}
    for op in concats:
        by_inputs[tuple(id(t) for t in op.inputs) + (op["axis"],)] = op
    for op in concats:
        if len(op.inputs) < 3:
            continue
        key = tuple(id(t) for t in op.inputs[:-1]) + (op["axis"],)
        prefix = by_inputs.get(key)
        if prefix is None or net.ops.index(prefix) > net.ops.index(op):
            continue
        last = op.inputs[-1]
        for t in op.inputs:
            t.consumers.remove(op)
        op.inputs = [prefix.outputs[0], last]
        for t in op.inputs:
            t.consumers.append(op)


def fuse_concat_scale_relu(net):
    """concat(a, b) along the channels -> scale + ReLU (DenseNet's BatchNorm + ReLU after its
    concatenations) becomes one pass of SimdSynetFusedLayerForward9, which also writes the
    plain concatenation when something else reads it (the next layer's concatenation)."""
    for op in list(net.ops):
        if op.kind != "scale" or op.get("act") != "relu" or len(op.inputs) != 1:
            continue
        x = op.inputs[0]
        concat = x.producer
        if (concat is None or concat.kind != "concat" or concat["axis"] != 1 or x.rank != 4 or
                len(concat.inputs) != 2 or any(t.const is not None for t in concat.inputs)):
            continue
        channels = x.shape[1]
        scale = np.ones(channels) if op["scale"] is None else \
            np.broadcast_to(op["scale"], (channels,))
        bias = np.zeros(channels) if op["bias"] is None else \
            np.broadcast_to(op["bias"], (channels,))
        y = op.outputs[0]
        keep = len(x.consumers) > 1 or net.is_output(x)
        index = net.ops.index(op)
        a, b = concat.inputs
        name = f"{concat.name}+{op.name}"
        net.remove(op)
        net.remove(concat)
        net.add(Op("concat_scale_relu", name, [a, b], [y, x] if keep else [y],
                   scale=np.asarray(scale, F32), bias=np.asarray(bias, F32)), index - 1)


def pool_before_pointwise(net):
    """conv 1x1 (no activation) -> average pooling with the kernel as stride and no padding
    (DenseNet's transitions): both are linear and the pooling averages whole windows, so
    pooling first gives the same result with a convolution over a quarter of the pixels."""
    for op in list(net.ops):
        if op.kind != "pool" or op["mode"] not in ("average", "average_exclude"):
            continue
        x = op.inputs[0]
        conv = x.producer
        if (conv is None or conv.kind != "conv" or conv["act"] != "identity" or
                conv["weight"].shape[2:] != (1, 1) or conv["group"] != 1 or
                tuple(conv["strides"]) != (1, 1) or any(conv["pads"]) or
                net.sole_consumer(x) is not op):
            continue
        kernel, strides = tuple(op["kernel"]), tuple(op["strides"])
        n, c, h, w = x.shape
        if kernel != strides or any(op["pads"]) or h % kernel[0] or w % kernel[1]:
            continue
        source, y = conv.inputs[0], op.outputs[0]
        pooled = Tensor(f"{source.name}/pooled", (n, source.shape[1], y.shape[2], y.shape[3]))
        index = net.ops.index(conv)
        net.remove(op)
        net.remove(conv)
        net.add(Op("pool", op.name, [source], [pooled], **op.attrs), index)
        conv.inputs, conv.outputs = [pooled], [y]
        conv.name = f"{conv.name} (after {op.name})"
        net.add(conv, index + 1)


def _is_signal_view(x, y):
    """y is the (N, C, L) view of the (N, C, 1, L) image x of a 1-D layer."""
    return x.rank == 4 and x.shape[2] == 1 and y.shape == (x.shape[0], x.shape[1], x.shape[3])


def _move_per_channel_before_views(net):
    for op in list(net.ops):
        if op.kind != "view" or op not in net.ops or not _is_signal_view(*op.inputs,
                                                                          *op.outputs):
            continue
        x, y = op.inputs[0], op.outputs[0]
        while True:
            nxt = net.sole_consumer(y)
            if (nxt is None or nxt.kind not in ("scale", "act", "prelu") or
                    len(nxt.inputs) != 1 or len(nxt.outputs) != 1):
                break
            z = nxt.outputs[0]
            image = Tensor(z.name + "/2d", x.shape)
            index = net.ops.index(op)
            net.remove(op)
            net.remove(nxt)
            nxt.inputs, nxt.outputs = [x], [image]
            op.inputs, op.outputs = [image], [z]
            net.add(nxt, index)
            net.add(op, index + 1)
            x, y = image, z


def _eltwise_on_images(net):
    """An eltwise layer whose operands are all signal views of images adds the images, and
    its output becomes a view of the image sum (the views stay for their other readers)."""
    for op in list(net.ops):
        if op.kind != "eltwise" or len(op.outputs) != 1:
            continue
        views = [t.producer for t in op.inputs]
        if not all(v is not None and v.kind == "view" and _is_signal_view(*v.inputs, *v.outputs)
                   for v in views):
            continue
        images = [v.inputs[0] for v in views]
        if any(t.shape != images[0].shape for t in images):
            continue
        z = op.outputs[0]
        image = Tensor(z.name + "/2d", images[0].shape)
        index = net.ops.index(op)
        net.remove(op)
        op.inputs, op.outputs = images, [image]
        net.add(op, index)
        net.add(Op("view", op.name, [image], [z]), index + 1)


def keep_signals_as_images(net):
    """1-D layers run on (N, C, 1, L) images between views from and to (N, C, L) signals. A
    per-channel operation (BatchNorm's scale, an activation, PReLU) after the view to a signal
    moves before it, onto the image, as does an eltwise layer of such views (a residual add),
    and the view of such a signal back to the image is the image itself. A chain of 1-D
    convolutions, BatchNorms, activations and residual adds then stays one NHWC image,
    BatchNorms and activations fuse into the convolutions, and the layouts convert at the
    chain's ends only instead of at every view."""
    _move_per_channel_before_views(net)
    _eltwise_on_images(net)
    _move_per_channel_before_views(net)
    for op in list(net.ops):
        if op.kind != "view" or op not in net.ops:
            continue
        y, first = op.outputs[0], op.inputs[0].producer
        if (first is None or first.kind != "view" or first not in net.ops or
                not _is_signal_view(first.inputs[0], op.inputs[0]) or
                y.shape != first.inputs[0].shape or net.is_output(y)):
            continue
        net.remove(op)
        net.replace_uses(y, first.inputs[0])
    # Views to signals that nothing reads any more.
    for op in list(net.ops):
        if (op.kind == "view" and _is_signal_view(*op.inputs, *op.outputs) and
                not op.outputs[0].consumers and not net.is_output(op.outputs[0])):
            net.remove(op)


def drop_identities(net):
    """Views that keep the shape (Identity, Dropout, a Pad of zeros, ...) are dropped, so
    that the patterns below see the operations on both sides of them."""
    for op in list(net.ops):
        if op.kind == "view" and op.inputs[0].shape == op.outputs[0].shape and \
                not net.is_output(op.outputs[0]):
            net.remove(op)
            net.replace_uses(op.outputs[0], op.inputs[0])


def _residual_add(net, conv):
    """The eltwise sum conv's output alone feeds, when the convolution can add its other operand
    as a residual (SimdSynetConvolution32fForwardAdd): (sum, residual), else None."""
    if conv.kind != "conv" or conv["act"] != "identity" or conv.get("int8") is not None or \
            len(conv.inputs) != 1:
        return None
    y = conv.outputs[0]
    e = net.sole_consumer(y)
    if (e is None or e.kind != "eltwise" or e["op"] != "sum" or len(e.inputs) != 2 or
            [float(w) for w in e["weights"]] != [1.0, 1.0] or
            e.get("act", "identity") not in ("identity", "relu")):
        return None
    other = e.inputs[1] if e.inputs[0] is y else e.inputs[0]
    if other is y or other.const is not None or other.shape != y.shape or \
            e.outputs[0].shape != y.shape:
        return None
    return e, other


def fuse_residual_adds(net):
    """conv -> Add(conv output, r) [-> ReLU, already carried by the Add] becomes one convolution
    that adds r before its activation: the sum is made in the convolution's store instead of a
    pass that reads the output back (at 2 threads from the other core's cache: resnet50's 16
    Adds took 2 ms of its 25). Of two convolutions feeding one Add (a downsampling block), the
    later one takes it; a convolution before the other operand's producer moves to the Add's
    place, where everything it reads is computed."""
    for e in [op for op in net.ops if op.kind == "eltwise"]:
        if e not in net.ops or len(e.inputs) != 2:
            continue
        candidates = [t.producer for t in e.inputs if t.producer in net.ops]
        candidates.sort(key=net.ops.index, reverse=True)
        for conv in candidates:
            found = _residual_add(net, conv)
            if found is None or found[0] is not e:
                continue
            other = found[1]
            z = e.outputs[0]
            act = e.get("act", "identity")
            index = net.ops.index(e)
            net.remove(conv)
            net.remove(e)
            conv.inputs = [conv.inputs[0], other]
            conv.outputs = [z]
            conv.attrs["act"] = act
            conv.attrs["act_params"] = None
            conv.name = f"{conv.name}+{e.name}"
            net.add(conv, index - 1)
            break


def fuse(net):
    keep_signals_as_images(net)
    drop_identities(net)
    fold_scales_into_convolutions(net)
    recognise_activations(net)
    fuse_activations(net)
    split_growing_concatenations(net)
    fuse_concat_scale_relu(net)
    pool_before_pointwise(net)
    return net
