"""Planning: the layout of every tensor, the conversions between layouts, where each tensor
lives in the arena, and the executor steps.

Layouts: 4-D tensors are NHWC inside the network (the convolution framework is fastest there
and the merged convolution has no other layout); the inputs and outputs keep the NCHW of the
model (the executor converts at the edges). A tensor whose consumer needs another layout gets a
converted copy (one per layout, shared by the consumers). Views (Reshape, Flatten, Squeeze,
...) share their input's memory where the layouts allow it; flattening an NHWC tensor for a
fully connected layer is a view, and that layer's weights are permuted at load to match.

Memory: tensors get offsets in one arena by liveness (a buffer is reused once its last reader
has run); element-wise steps write in place when their input dies there.
"""

import numpy as np

from ._onnx_ir import Op, Tensor

F32 = np.float32
NHWC = (0, 2, 3, 1)   # physical axis i holds logical axis NHWC[i]
ALIGN = 16            # floats: every buffer starts on a 64-byte boundary


def product(values):
    return int(np.prod(values, dtype=np.int64))


def physical_order(t):
    if t.layout == "nhwc":
        return NHWC
    return tuple(range(t.rank))


def physical_shape(t):
    if t.layout == "flat":
        c, h, w = t.flat_shape
        return (t.shape[0], h, w, c)
    return tuple(t.shape[a] for a in physical_order(t))


def nhwc_is_plain(shape):
    """NHWC and NCHW orders coincide when at most one of C and H*W exceeds 1."""
    return len(shape) == 4 and (shape[1] == 1 or shape[2] * shape[3] == 1)


# ---------------------------------------------------------------------------------------------
# Layouts.

class Layouts:
    def __init__(self, net):
        self.net = net
        self.converted = {}  # (id(tensor), layout) -> converted tensor

    def run(self):
        for t in self.net.inputs:
            t.layout = "nhwc" if t.rank == 4 else "plain"
        for op in list(self.net.ops):
            self.assign(op)
        # Outputs must be plain or NHWC (the bindings undo NHWC).
        outputs = []
        for t in self.net.outputs:
            if t.layout == "flat":
                t = self.convert(t, "plain", before=None)
            outputs.append(t)
        self.net.outputs = outputs

    def convert(self, t, layout, before):
        """t in `layout`: t itself, or a copy made by a conversion placed before op `before`
        (None: at the end)."""
        if t.layout == layout or (t.rank == 4 and nhwc_is_plain(t.shape) and
                                  {t.layout, layout} <= {"nhwc", "plain"}):
            return t
        if t.const is not None:
            c = Tensor(t.name + f"/{layout}", t.shape, const=t.const)
            c.layout = layout
            return c
        key = (id(t), layout)
        if key in self.converted:
            return self.converted[key]
        c = Tensor(t.name + f"/{layout}", t.shape)
        c.layout = layout
        op = Op("convert", f"{t.name} to {layout}", [t], [c])
        index = len(self.net.ops) if before is None else self.net.ops.index(before)
        producer_index = self.net.ops.index(t.producer) if t.producer in self.net.ops else -1
        index = max(index, producer_index + 1)
        self.net.add(op, index)
        self.converted[key] = c
        return c

    def need(self, op, i, layout):
        t = op.inputs[i]
        c = self.convert(t, layout, op)
        if c is not t:
            self.net.set_input(op, i, c)

    def assign(self, op):
        k = op.kind
        ins = op.inputs
        image = lambda t: "nhwc" if t.rank == 4 else "plain"
        if k in ("conv", "pool", "dilated_max_pool", "lrn", "instance_norm", "resize",
                 "concat_scale_relu", "scale_by", "merged", "shuffle") or \
                (k == "deconv" and op["group"] == 1):
            for i in range(len(ins)):
                self.need(op, i, "nhwc" if ins[i].rank == 4 else "plain")
            out = "nhwc"
        elif k == "deconv":
            self.need(op, 0, "plain")  # NCHW: the library runs grouped ones in NCHW only
            out = "plain"
        elif k == "act":
            # Element by element: any layout, a flattening included.
            for y in op.outputs:
                y.layout, y.flat_shape = ins[0].layout, ins[0].flat_shape
            return
        elif k in ("prelu_trailing", "reduce") and not (
                k == "reduce" and ins[0].layout == "nhwc" and op["keepdims"]):
            # The logical order (a reduction keeping its axes reads NHWC in its own order).
            self.need(op, 0, "plain")
            out = "plain"
        elif k == "reduce":
            out = "nhwc"
        elif k == "tile":
            layout = "nhwc" if ins[0].rank == 4 else "plain"
            self.need(op, 0, layout)
            out = layout
        elif k in ("scale", "prelu", "pad"):
            if ins[0].layout == "flat":
                self.need(op, 0, "plain")
            out = ins[0].layout
        elif k == "eltwise":
            computed = [t for t in ins if t.const is None]
            layout = computed[0].layout
            if layout == "flat" or any(t.layout != layout for t in computed):
                layout = image(computed[0])
            for i in range(len(ins)):
                self.need(op, i, layout)
            out = layout
        elif k in ("concat", "split", "slice"):
            layout = image(ins[0])
            for i in range(len(ins)):
                self.need(op, i, layout)
            out = layout
        elif k == "softmax":
            if ins[0].layout == "flat" or (ins[0].layout == "nhwc" and op["span"] > 1):
                self.need(op, 0, "plain")
            out = ins[0].layout
        elif k == "layer_norm":
            if ins[0].layout == "flat" or self.layer_norm_block(
                    ins[0].layout, ins[0].rank, op["axis"], op["end"]) is None:
                self.need(op, 0, "plain")
            out = ins[0].layout
        elif k == "matmul":
            for i in range(len(ins)):
                self.need(op, i, "plain")
            out = "plain"
        elif k == "gemm":
            if ins[0].layout not in ("plain", "flat"):
                self.need(op, 0, "plain")
            out = "plain"
        elif k == "transpose":
            x, perm = ins[0], tuple(op["perm"])
            if x.layout == "nhwc" and perm == NHWC:
                op.kind, out = "view", "plain"   # NCHW -> NHWC of NHWC data: the data itself
            elif x.layout == "plain" and x.rank == 4 and perm == (0, 3, 1, 2):
                op.kind, out = "view", "nhwc"
            else:
                self.need(op, 0, "plain")
                out = "plain"
        elif k == "view":
            x, y = ins[0], op.outputs[0]
            if x.layout == "nhwc" and not nhwc_is_plain(x.shape):
                if y.rank == 2 and y.shape[0] == x.shape[0]:
                    y.layout, y.flat_shape = "flat", x.shape[1:]
                    return
                if y.rank == 4 and y.shape == x.shape:
                    out = "nhwc"
                else:
                    self.need(op, 0, "plain")
                    out = "plain"
            elif x.layout == "flat":
                if y.shape == x.shape:
                    y.layout, y.flat_shape = "flat", x.flat_shape
                    return
                self.need(op, 0, "plain")
                out = "plain"
            else:
                out = "plain"
        elif k == "convert":
            return
        else:
            raise AssertionError(f"no layout rule for {k}")
        for y in op.outputs:
            y.layout = out

    @staticmethod
    def layer_norm_block(layout, rank, axis, end):
        """(first, end) physical positions when the normalized logical axes [axis, end) are
        one contiguous block of the physical order, in logical order."""
        order = NHWC if layout == "nhwc" else tuple(range(rank))
        positions = [order.index(a) for a in range(axis, end)]
        if positions != list(range(positions[0], positions[0] + len(positions))):
            return None
        return positions[0], positions[-1] + 1


# ---------------------------------------------------------------------------------------------
# Memory.

IN_PLACE = {"act", "scale", "scale_by", "eltwise", "prelu", "prelu_trailing"}


def root(t):
    while t.view_of is not None:
        t = t.view_of
    return t


class Arena:
    """First-fit allocation of aligned blocks with reuse. With `guard` floats, blocks are never
    reused and each is followed by a guard zone of that many floats (`guards`), which the
    executor checks after every step in the tests. Without `reuse` no block is reused either
    (every tensor is still there after a run: the INT8 calibration reads them)."""

    def __init__(self, guard=0, reuse=True):
        self.free = []  # (offset, size), sorted by offset
        self.end = 0
        self.guard = guard
        self.reuse = reuse and not guard
        self.guards = []  # (offset, size)

    def allocate(self, size):
        size = -(-size // ALIGN) * ALIGN
        if not self.reuse:
            offset = self.end
            self.end = offset + size
            if self.guard:
                self.guards.append((self.end, self.guard))
                self.end += self.guard
            return offset
        for i, (offset, free) in enumerate(self.free):
            if free >= size:
                if free == size:
                    del self.free[i]
                else:
                    self.free[i] = (offset + size, free - size)
                return offset
        # Grow: a free block at the end is extended.
        if self.free and self.free[-1][0] + self.free[-1][1] == self.end:
            offset = self.free.pop()[0]
        else:
            offset = self.end
        self.end = offset + size
        return offset

    def release(self, offset, size):
        if not self.reuse:
            return
        size = -(-size // ALIGN) * ALIGN
        self.free.append((offset, size))
        self.free.sort()
        merged = []
        for o, s in self.free:
            if merged and merged[-1][0] + merged[-1][1] == o:
                merged[-1] = (merged[-1][0], merged[-1][1] + s)
            else:
                merged.append((o, s))
        self.free = merged


def plan_memory(net, guard=0, reuse=True):
    """Gives every computed tensor its offset; returns the arena size in floats and the guard
    zones (none unless `guard`, see Arena; `reuse` False: no memory reuse, no step in place)."""
    ops = net.ops
    # Views share their input's memory.
    for op in ops:
        if op.kind == "view":
            x, y = op.inputs[0], op.outputs[0]
            if x.const is not None:
                y.const = x.const.reshape(y.shape)
            else:
                y.view_of = x
    last = {}  # id(root) -> index of the last op reading it
    for i, op in enumerate(ops):
        for t in op.inputs:
            if t.const is None:
                last[id(root(t))] = i
    for t in net.outputs:
        last[id(root(t))] = len(ops)
    arena = Arena(guard, reuse)
    blocks = {}  # id(root) -> (offset, size) of the live blocks

    def release_dead(tensors, i):
        for t in tensors:
            r = root(t)
            if id(r) in blocks and last.get(id(r), -1) <= i:
                arena.release(*blocks.pop(id(r)))

    for t in net.inputs:
        t.offset = arena.allocate(t.floats)
        blocks[id(t)] = (t.offset, t.floats)
    release_dead(net.inputs, -1)
    for i, op in enumerate(ops):
        if op.kind == "view":
            continue
        for y in op.outputs:
            if y.offset is not None or y.const is not None:
                continue
            reuse = None
            if op.kind in IN_PLACE and reuse:
                for x in op.inputs[:2] if op.kind == "eltwise" else op.inputs[:1]:
                    r = root(x)
                    if (x.const is None and last.get(id(r)) == i and r.size == y.size and
                            r.dtype == y.dtype and id(r) in blocks):
                        reuse = r
                        break
            if reuse is not None:
                y.offset = reuse.offset
                blocks[id(y)] = blocks.pop(id(reuse))
            else:
                y.offset = arena.allocate(y.floats)
                blocks[id(y)] = (y.offset, y.floats)
        release_dead(op.inputs + op.outputs, i)
    return arena.end, arena.guards


def offset(t):
    return root(t).offset


def ref(t, layout_of=None):
    """The executor's reference of a tensor: its arena offset, or its constant data in the
    tensor's layout."""
    if t.const is not None:
        c = np.asarray(t.const, F32).reshape(t.shape)
        if t.layout == "nhwc":
            c = c.transpose(NHWC)
        return np.ascontiguousarray(c)
    return offset(t)
