"""Depthwise/pointwise chains onto the merged convolution (SimdSynetMergedConvolution32f): an
expansion P (group 1, 1x1) -> depthwise D (kernel 3, 5 or 7) -> projection Q (1x1),
or P -> D, or D -> Q, each stage with its activation; with P -> D -> Q, a residual Add of the
chain's input becomes the context's `add`. The intermediate tensors then stay in cache-sized
row bands instead of memory.

The rule (measured, not timed at load): every chain the library accepts, except with a 3x3
expansion. Measured chain by chain against the same stages as separate contexts (224x224, one
thread, AVX-512, fastest of 15 alternating runs): of the 84 chains of mobilenet_v2,
mobilenet_v3_large, efficientnet_b0, mnasnet1_0 and shufflenet_v2_x1_0, the 81 with a 1x1 (or
no) expansion ran 1.00-1.72x faster merged (two at 0.94 and 0.97, within the noise of the
machine); the three whose P is the 3x3 stem convolution of the RGB input ran 0.75-0.83x
(mobilenet_v2 0.642 vs 0.535 ms): that convolution stays on its own and its depthwise/pointwise
successors form a D -> Q chain."""

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
    return _plain(op) and op["group"] == 1 and tuple(op["weight"].shape[2:]) == (1, 1)


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
