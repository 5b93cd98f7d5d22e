"""ShuffleNet's channel shuffle onto the library's shuffle layer.

The model: y = concat(A, B) (h channels each) -> Reshape (N, 2, h, H, W) -> Transpose
(0, 2, 1, 3, 4) -> Reshape (N, 2h, H, W), so y[2i] = A[i] and y[2i + 1] = B[i]; the next block
splits y into halves y0 (passthrough) and y1 (into its branch). SimdSynetShuffleLayerForward
computes d0 = even channels and d1 = odd channels of concat(A, B): not the same channels. They
become the same up to an order of the channels inside d0 and d1: every tensor here carries a
channel permutation (physical channel k holds logical channel perm[k]), the convolutions that
read such a tensor take it into their weights, and the convolutions that write A and B write
their channels in an order chosen here.

The order: a passthrough channel must stay at an even position for as many blocks as it stays
in y0. Position q of y0's physical order survives m more blocks when q is a multiple of 2^m;
logical channel i of y0 survives m more blocks when i * 2^m < h. Both counts are ceil(h / 2^m)
for every m, so ordering positions and channels by how long they survive matches them for any
number of blocks (h must be even). Where y is read whole (the last block of a stage), the
shuffle is only a relabelling: concat(A, B) with a permutation, no shuffle step at all.
"""

import numpy as np

from ._onnx_ir import Op

DEEP = 64  # "survives every remaining block"


def _survival_of_position(q):
    if q == 0:
        return DEEP
    m = 0
    while q % 2 == 0:
        q //= 2
        m += 1
    return m


def _survival_of_channel(i, h):
    if i == 0:
        return DEEP
    m = 0
    while i * 2 ** (m + 1) < h:
        m += 1
    return m


def _match(position_depth, channel_depth):
    """perm[position] = channel, matching positions and channels of equal depth."""
    positions = sorted(range(len(position_depth)), key=lambda p: (-position_depth[p], p))
    channels = sorted(range(len(channel_depth)), key=lambda c: (-channel_depth[c], c))
    if [position_depth[p] for p in positions] != [channel_depth[c] for c in channels]:
        return None
    perm = np.empty(len(positions), np.int64)
    perm[positions] = channels
    return perm


def choose_a(h):
    """The order of A (free: written by a convolution) for a split shuffle."""
    return _match([_survival_of_position(p) for p in range(h)],
                  [_survival_of_channel(a, h) for a in range(h)])


def choose_b(h):
    """The order of B: even positions go to y0 at position h/2 + p/2, the odd ones to y1;
    channels b < h/2 go to y0 as channel 2b + 1, the others to y1."""
    position = [0 if p % 2 else 1 + _survival_of_position(h // 2 + p // 2) for p in range(h)]
    channel = [1 + _survival_of_channel(2 * b + 1, h) if b < h // 2 else 0 for b in range(h)]
    return _match(position, channel)


def shuffled(pa, pb, h):
    """(d0 order, d1 order) of the library's shuffle of A, B in orders pa, pb, or None when the
    orders do not put y0's channels at even positions."""
    even = np.concatenate([2 * pa[0::2], 2 * pb[0::2] + 1])
    odd = np.concatenate([2 * pa[1::2] - h, 2 * pb[1::2] + 1 - h])
    if even.min() < 0 or even.max() >= h or odd.min() < 0 or odd.max() >= h:
        return None
    return even, odd


# ---------------------------------------------------------------------------------------------
# The rewrite.

def _pattern(net, concat):
    """(A, B, y, removed ops) when `concat` starts the shuffle pattern, else None."""
    if concat.kind != "concat" or concat["axis"] != 1 or len(concat.inputs) != 2:
        return None
    a, b = concat.inputs
    t = concat.outputs[0]
    if t.rank != 4 or a.shape[1] != b.shape[1] or a.shape[1] % 2:
        return None
    n, c, hh, ww = t.shape
    h = c // 2
    ops = [concat]
    chain = [("view", (n, 2, h, hh, ww)), ("transpose", None), ("view", (n, c, hh, ww))]
    for kind, shape in chain:
        op = net.sole_consumer(t)
        if op is None or op.kind != kind:
            return None
        if kind == "transpose" and tuple(op["perm"]) != (0, 2, 1, 3, 4):
            return None
        if shape is not None and op.outputs[0].shape != shape:
            return None
        ops.append(op)
        t = op.outputs[0]
    return a, b, t, ops


def _halves(net, y):
    """The two slices that split y into its channel halves (first, second), else None."""
    h = y.shape[1] // 2
    if net.is_output(y) or len(y.consumers) != 2:
        return None
    found = {}
    for op in y.consumers:
        if op.kind != "slice" or len(op["ranges"]) != 1:
            return None
        axis, start, stop = op["ranges"][0]
        if axis != 1 or (start, stop) not in ((0, h), (h, 2 * h)):
            return None
        found[start] = op
    return (found[0], found[h]) if len(found) == 2 else None


def _free(net, t, concat):
    """Whether the producer of t can write it in any channel order."""
    p = t.producer
    return (p is not None and net.sole_consumer(t) is concat and
            (p.kind == "conv" or (p.kind == "merged" and not p["add"])))


def _absorbs(op):
    return (op.kind == "conv" and op["group"] == 1) or op.kind == "merged"


def _permute_stage_output(stage, perm):
    """A convolution stage (its attributes) writes output channel perm[k] at position k."""
    stage["weight"] = np.ascontiguousarray(stage["weight"][perm])
    if stage["bias"] is not None:
        stage["bias"] = np.ascontiguousarray(np.asarray(stage["bias"])[perm])
    if stage["act"] == "prelu":
        stage["act_params"] = np.ascontiguousarray(np.asarray(stage["act_params"])[perm])


def _permute_output(op, perm):
    _permute_stage_output(op.attrs if op.kind == "conv" else op["stages"][-1], perm)


def _permute_input(op, perm):
    """A consumer reads its input with channel perm[k] at position k."""
    first = op.attrs if op.kind == "conv" else op["stages"][0]
    if first["group"] == 1:
        first["weight"] = np.ascontiguousarray(first["weight"][:, perm])
        return
    # A depthwise first stage (merged) keeps the order; the stage after it takes it.
    _permute_stage_output(first, perm)
    second = op["stages"][1]
    second["weight"] = np.ascontiguousarray(second["weight"][:, perm])


def map_channel_shuffles(net):
    """Rewrites every shuffle pattern; returns how many became shuffle steps. Nothing is
    rewritten unless every pattern and every reader of a reordered tensor can be mapped."""
    found = []
    for op in net.ops:
        p = _pattern(net, op) if op.kind == "concat" else None
        if p is not None:
            found.append(p)
    if not found:
        return 0
    order = {}      # id(tensor) -> channel order
    decisions = []  # what to rewrite, once everything is known to map
    produced = set()
    for a, b, y, ops in found:
        concat, h = ops[0], a.shape[1]
        pa = order.get(id(a))
        if pa is None:
            pa = None if _free(net, a, concat) else np.arange(h)
        pb = order.get(id(b))
        if pb is None:
            pb = None if _free(net, b, concat) else np.arange(h)
        halves = _halves(net, y)
        if halves is not None:
            if pa is None:
                pa = choose_a(h)
            if pb is None:
                pb = choose_b(h)
            result = None if pa is None or pb is None else shuffled(pa, pb, h)
            if result is None:
                return 0
            first, second = halves
            order[id(first.outputs[0])], order[id(second.outputs[0])] = result
            decisions.append(("split", a, b, y, ops, pa, pb, halves))
        else:
            pa = np.arange(h) if pa is None else pa
            pb = np.arange(h) if pb is None else pb
            order[id(y)] = np.concatenate([2 * pa, 2 * pb + 1])
            decisions.append(("whole", a, b, y, ops, pa, pb, None))
        produced.update((id(a), id(b)))
    # Every reordered tensor must be read only by absorbing consumers or by a pattern.
    tensors = {id(t): t for d in decisions for t in
               ([d[7][0].outputs[0], d[7][1].outputs[0]] if d[0] == "split" else [d[3]])}
    pattern_inputs = {id(t) for d in decisions for t in (d[1], d[2])}
    for key, t in tensors.items():
        if net.is_output(t):
            return 0
        for op in t.consumers:
            if key in pattern_inputs and op.kind == "concat":
                continue
            if not _absorbs(op):
                return 0
    # Rewrite.
    for kind, a, b, y, ops, pa, pb, halves in decisions:
        for t, perm in ((a, pa), (b, pb)):
            if id(t) not in order and not np.array_equal(perm, np.arange(len(perm))):
                _permute_output(t.producer, perm)
        concat = ops[0]
        index = net.ops.index(concat)
        if kind == "split":
            first, second = halves
            for op in ops + [first, second]:
                net.remove(op)
            net.add(Op("shuffle", "+".join(o.name for o in ops), [a, b],
                       [first.outputs[0], second.outputs[0]]), index)
        else:
            for op in ops[1:]:
                net.remove(op)
            net.remove(concat)
            net.add(Op("concat", concat.name + " (shuffled)", [a, b], [y], axis=1), index)
    for key, t in tensors.items():
        for op in t.consumers:
            if op.kind != "shuffle" and op.kind != "concat":
                _permute_input(op, order[key])
    return sum(1 for d in decisions if d[0] == "split")
