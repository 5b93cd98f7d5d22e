"""Depthwise/pointwise chains onto the merged convolution (SimdSynetMergedConvolution32f): an
expansion P (group 1, kernel 1 or 3) -> depthwise D (kernel 3, 5 or 7) -> projection Q (1x1),
or P -> D, or D -> Q, each stage with its activation; with P -> D -> Q, a residual Add of the
chain's input becomes the context's `add`. The intermediate tensors then stay in cache-sized
row bands instead of memory."""

from ._onnx_ir import Op


def _square(values, allowed):
    return values[0] == values[1] and values[0] in allowed


def _plain(op):
    """A 2-D convolution with equal strides 1-3, no dilation."""
    return (op is not None and op.kind == "conv" and _square(op["strides"], (1, 2, 3)) and
            tuple(op["dilations"]) == (1, 1))


def is_depthwise(op):
    if not _plain(op):
        return False
    c = op.inputs[0].shape[1]
    return (op["group"] == c and op["weight"].shape[0] == c and
            _square(op["weight"].shape[2:], (3, 5, 7)))


def is_expansion(op):
    return _plain(op) and op["group"] == 1 and _square(op["weight"].shape[2:], (1, 3))


def is_projection(op):
    return (_plain(op) and op["group"] == 1 and tuple(op["weight"].shape[2:]) == (1, 1) and
            tuple(op["strides"]) == (1, 1) and not any(op["pads"]))


def _stage(op):
    return dict(weight=op["weight"], bias=op["bias"], group=op["group"], strides=op["strides"],
                pads=op["pads"], act=op["act"], act_params=op.get("act_params"))


def merge_convolutions(net, accept=None):
    """Rewrites the chains in place. `accept(stages, add)` may veto a chain (a rule measured
    per shape); None accepts every chain the library supports."""
    for op in list(net.ops):
        if op not in net.ops or not is_depthwise(op):
            continue
        x = op.inputs[0]
        p = x.producer if x.producer in net.ops and is_expansion(x.producer) and \
            net.sole_consumer(x) is op else None
        q = net.sole_consumer(op.outputs[0])
        q = q if is_projection(q) else None
        if p is None and q is None:
            continue
        chain = [s for s in (p, op, q) if s is not None]
        last, add = chain[-1], False
        if p is not None and q is not None:
            e = net.sole_consumer(q.outputs[0])
            source = p.inputs[0]
            if (e is not None and e.kind == "eltwise" and e["op"] == "sum" and
                    e["act"] == "identity" and len(e.inputs) == 2 and
                    list(e["weights"]) == [1.0, 1.0] and source.const is None and
                    any(t is source for t in e.inputs) and source.shape == e.outputs[0].shape):
                add, last = True, e
        stages = [_stage(s) for s in chain]
        if accept is not None and not accept(stages, add, chain):
            continue
        removed = chain + ([last] if add else [])
        index = net.ops.index(removed[-1]) - (len(removed) - 1)
        y = last.outputs[0]
        source = chain[0].inputs[0]
        name = "+".join(s.name for s in removed)
        for s in removed:
            net.remove(s)
        net.add(Op("merged", name, [source], [y], stages=stages, add=add), index)
