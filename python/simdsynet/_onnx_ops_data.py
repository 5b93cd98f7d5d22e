"""Handlers of the ONNX operators that move data (pooling, concatenation, split, slice,
views, transpose, pad, nearest and linear resize) for _onnx_lower."""

import math

import numpy as np

from ._onnx_graph import (axis_attr, axis_list, float_attr, int_attr, int_list, int_list_attr,
                          slice_arguments, slice_indices)
from ._onnx_ir import Tensor
from ._onnx_ops import conv_pads, finish_1d, known_attrs, need_rank, out_2d, spatial_input

# ---------------------------------------------------------------------------------------------
# Pooling.

def lower_pool(kind):
    def lower(ctx, node):
        known_attrs(node, "auto_pad", "ceil_mode", "count_include_pad", "dilations",
                    "kernel_shape", "pads", "strides", "storage_order")
        if len(node.outputs) > 1 and node.outputs[1]:
            node.fail("the indices output is not supported")
        if int_attr(node, "storage_order", 0, 0, 1):
            node.fail("storage_order=1 is not supported")
        node, x, lifted = spatial_input(ctx, node, "pooling")
        dilations = int_list_attr(node, "dilations", 2, 1, [1, 1])
        dilated = dilations != [1, 1]
        if dilated and kind != "max":
            node.fail("dilated average pooling is not supported (max pooling only)")
        kernel = int_list_attr(node, "kernel_shape", 2, 1)
        strides = int_list_attr(node, "strides", 2, 1, [1, 1])
        n, c, h, w = x.shape
        pads = conv_pads(node, (h, w), kernel, strides, dilations)
        ceil = bool(int_attr(node, "ceil_mode", 0, 0, 1))
        extents = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
        out = []
        for a, size in enumerate((h, w)):
            span = size + pads[a] + pads[a + 2] - extents[a]
            if span < 0:
                node.fail(f"the window {extents} is larger than the padded input")
            o = (-(-span // strides[a]) if ceil else span // strides[a]) + 1
            if ceil and (o - 1) * strides[a] >= size + pads[a]:
                o -= 1  # the last window would start in the end padding
            out.append(o)
            if pads[a] >= extents[a]:
                node.fail(f"pads {pads} as large as the window {extents} are not supported")
        include = bool(int_attr(node, "count_include_pad", 0, 0, 1))
        mode = kind
        if kind == "average":
            mode = "average" if include else "average_exclude"
            if include:
                for a, size in enumerate((h, w)):
                    if (out[a] - 1) * strides[a] + kernel[a] > size + pads[a] + pads[a + 2]:
                        node.fail("count_include_pad with windows past the end padding "
                                  "(ceil_mode) is not supported")
        y, pending = out_2d(ctx, node, (n, c, out[0], out[1]), lifted)
        if dilated:
            for a, size in enumerate((h, w)):
                for o in range(out[a]):
                    start = o * strides[a] - pads[a]
                    if not any(0 <= start + k * dilations[a] < size for k in range(kernel[a])):
                        node.fail(f"window {o} along axis {a + 2} has no tap inside the input")
            ctx.emit(node, "dilated_max_pool", [x], [y], kernel=kernel, strides=strides,
                     dilations=dilations, pads=pads[:2])
        else:
            ctx.emit(node, "pool", [x], [y], mode=mode, kernel=kernel, strides=strides,
                     pads=pads[:2])
        finish_1d(ctx, node, pending)
    return lower


def lower_global_pool(kind):
    def lower(ctx, node):
        known_attrs(node)
        node, x, lifted = spatial_input(ctx, node, "pooling")
        n, c, h, w = x.shape
        y, pending = out_2d(ctx, node, (n, c, 1, 1), lifted)
        ctx.emit(node, "pool", [x], [y], mode=kind, kernel=[h, w], strides=[1, 1], pads=[0, 0])
        finish_1d(ctx, node, pending)
    return lower


def lower_reduce(kind):
    """ReduceSum/Mean/Max/Min/Prod/SumSquare/L1/L2 over any axes. The spatial axes of a 4-D
    tensor (global pooling) run on the library's pooling where it has the reduction; any other
    axes on the executor's reduction step."""
    def lower(ctx, node):
        known_attrs(node, "axes", "keepdims", "noop_with_empty_axes")
        x = ctx.tensor(node)
        axes = node.attrs.get("axes")
        if axes is None and len(node.inputs) > 1 and node.inputs[1]:
            axes = ctx.const(node, 1)
        if axes is not None:
            axes = sorted(axis_list(node, "axes", axes, x.rank))
        keep = bool(int_attr(node, "keepdims", 1, 0, 1))
        if not axes:
            if int_attr(node, "noop_with_empty_axes", 0, 0, 1):
                ctx.emit(node, "view", [x], [ctx.out(node, x.shape)])
                return
            axes = list(range(x.rank))
        kept = [d for a, d in enumerate(x.shape) if a not in axes]
        shape = [1 if a in axes else d for a, d in enumerate(x.shape)] if keep else kept
        if x.rank == 4 and axes == [2, 3] and kind in ("average", "max"):
            n, c, h, w = x.shape
            pooled = Tensor(node.outputs[0] + ("" if keep else "/pooled"), (n, c, 1, 1))
            ctx.emit(node, "pool", [x], [pooled], mode=kind, kernel=[h, w], strides=[1, 1],
                     pads=[0, 0])
            if keep:
                ctx.values[node.outputs[0]] = pooled
            else:
                ctx.emit(node, "view", [pooled], [ctx.out(node, shape)])
            return
        reduction = {"average": "mean"}.get(kind, kind)
        ctx.emit(node, "reduce", [x], [ctx.out(node, shape)], reduction=reduction, axes=axes,
                 keepdims=keep)
    return lower


def lower_expand(ctx, node):
    """Expand and Tile of a computed tensor: one tiling step (a view where nothing repeats)."""
    known_attrs(node)
    x = ctx.tensor(node)
    if node.op == "Expand":
        target = int_list(node, "shape", ctx.const(node, 1), minimum=1)
        rank = max(len(target), x.rank)
        source = (1,) * (rank - x.rank) + x.shape
        target = [1] * (rank - len(target)) + target
        shape = []
        for s, t in zip(source, target):
            if s != t and 1 not in (s, t):
                node.fail(f"shape {target} does not broadcast with the input {x.shape}")
            shape.append(max(s, t))
    else:
        repeats = int_list(node, "repeats", ctx.const(node, 1), x.rank, 1)
        source = x.shape
        shape = [d * r for d, r in zip(x.shape, repeats)]
    y = ctx.out(node, shape)
    if tuple(shape) == tuple(source):
        ctx.emit(node, "view", [x], [y])
        return
    if len(source) != x.rank:
        view = Tensor(f"{node.outputs[0]}/rank{len(source)}", source)
        ctx.emit(node, "view", [x], [view])
        x = view
    ctx.emit(node, "tile", [x], [y])


# ---------------------------------------------------------------------------------------------
# Data movement.

def lower_concat(ctx, node):
    known_attrs(node, "axis")
    if not node.inputs:
        node.fail("there are no inputs")
    tensors = [ctx.tensor(node, i) for i in range(len(node.inputs))]
    rank = tensors[0].rank
    axis = axis_attr(node, "axis", None, rank)
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
    axis = axis_attr(node, "axis", 0, x.rank)
    sizes = node.attrs.get("split")
    if sizes is None and len(node.inputs) > 1 and node.inputs[1]:
        sizes = ctx.const(node, 1)
    n = x.shape[axis]
    count = len(node.outputs)
    if int_attr(node, "num_outputs", count, 1) != count:
        node.fail(f"num_outputs {node.attrs['num_outputs']} is not the {count} outputs")
    if sizes is None:
        part = -(-n // count)
        sizes = [min(part, n - i * part) for i in range(count)]
    sizes = int_list(node, "split sizes", sizes, minimum=0)
    if sum(sizes) != n or len(sizes) != count:
        node.fail(f"split sizes {sizes} do not cover {n} elements in {count} outputs")
    outs = []
    for i, size in enumerate(sizes):
        shape = list(x.shape)
        shape[axis] = size
        outs.append(ctx.out(node, shape, i))
    ctx.emit(node, "split", [x], outs, axis=axis, sizes=sizes)


def lower_slice(ctx, node):
    known_attrs(node, "starts", "ends", "axes")
    x = ctx.tensor(node)
    values = [None] + [ctx.const(node, i) if i < len(node.inputs) and node.inputs[i] else None
                       for i in range(1, len(node.inputs))]
    ranges = []
    shape = list(x.shape)
    for start, end, axis, step in zip(*slice_arguments(node, values, x.rank)):
        idx = slice_indices(x.shape[axis], start, end, step)
        if idx.size == 0:
            node.fail("the slice is empty")
        # A negative step over the whole axis selects every index too, reversed.
        if not np.array_equal(idx, np.arange(x.shape[axis])):
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


def lower_gather(ctx, node):
    """Gather of constant indices from a computed tensor, where they are one index (a slice of
    extent 1 with that axis dropped: ViT's class token) or a run of consecutive indices (a
    slice); other index sets are refused."""
    known_attrs(node, "axis")
    x = ctx.tensor(node)
    axis = axis_attr(node, "axis", 0, x.rank)
    indices = np.asarray(ctx.const(node, 1))
    if not np.issubdtype(indices.dtype, np.integer) or indices.ndim > 1 or indices.size == 0:
        node.fail(f"indices of shape {indices.shape} and type {indices.dtype} are not supported "
                  "(one index or a run of them)")
    n = x.shape[axis]
    if np.any(indices < -n) or np.any(indices >= n):
        node.fail(f"indices {indices.tolist()} are out of range for an axis of {n}")
    flat = (indices.reshape(-1) % n).tolist()
    if flat != list(range(flat[0], flat[0] + len(flat))):
        node.fail(f"indices {indices.tolist()} are not consecutive")
    shape = list(x.shape)
    shape[axis] = len(flat)
    if indices.ndim == 0:
        sliced = Tensor(node.outputs[0] + "/slice", shape)
        del shape[axis]
    else:
        sliced = ctx.out(node, shape)
    if len(flat) == n:
        ctx.emit(node, "view", [x], [sliced])
    else:
        ctx.emit(node, "slice", [x], [sliced], ranges=[(axis, flat[0], flat[-1] + 1)])
    if indices.ndim == 0:
        ctx.emit(node, "view", [sliced], [ctx.out(node, shape)])


def reshape_target(node, x, target, allowzero=0):
    target = int_list(node, "shape", target, minimum=-1)
    if not allowzero and any(d == 0 and i >= x.rank for i, d in enumerate(target)):
        node.fail(f"shape {target} copies a dimension (0) past the input's rank {x.rank}")
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
    shape = reshape_target(node, x, ctx.const(node, 1), int_attr(node, "allowzero", 0, 0, 1))
    ctx.emit(node, "view", [x], [ctx.out(node, shape)])


def lower_flatten(ctx, node):
    known_attrs(node, "axis")
    x = ctx.tensor(node)
    # Unlike other axes, this one may be the rank itself (everything in the first dimension).
    axis = int_attr(node, "axis", 1, -x.rank, x.rank)
    axis += x.rank if axis < 0 else 0
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
            if axes is None:
                node.fail("the axes are required")
            rank = x.rank + len(int_list(node, "axes", axes))
            for a in sorted(axis_list(node, "axes", axes, rank)):
                shape.insert(a, 1)
        else:
            axes = [a for a in range(x.rank) if shape[a] == 1] if axes is None else \
                axis_list(node, "axes", axes, x.rank)
            if any(shape[a] != 1 for a in axes):
                node.fail(f"squeezed axes {axes} of {x.shape} are not of extent 1")
            shape = [d for a, d in enumerate(shape) if a not in axes]
        ctx.emit(node, "view", [x], [ctx.out(node, shape)])
    return lower


def lower_identity(ctx, node):
    x = ctx.tensor(node)
    if node.op == "Dropout":
        known_attrs(node, "seed", "ratio", "is_test")
        if len(node.inputs) > 2 and node.inputs[2] and np.any(ctx.const(node, 2)):
            node.fail("training_mode=True is not supported")
        ctx.check_unused_outputs(node, 1)
    ctx.emit(node, "view", [x], [ctx.out(node, x.shape)])


def lower_transpose(ctx, node):
    known_attrs(node, "perm")
    x = ctx.tensor(node)
    perm = int_list_attr(node, "perm", default=list(range(x.rank - 1, -1, -1)))
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
        pads, value = int_list_attr(node, "pads"), float_attr(node, "value", 0.0)
    else:
        pads = int_list(node, "pads", ctx.const(node, 1))
        c = ctx.weight(node, 2, required=False)
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


def source_coordinate(node, o, n_in, n_out, scale, transform):
    """The input coordinate of output index o along one axis (ONNX Resize's
    coordinate_transformation_mode); `scale` is the given scale, or n_out / n_in for sizes."""
    if transform == "half_pixel":
        return (o + 0.5) / scale - 0.5
    if transform == "pytorch_half_pixel":
        return (o + 0.5) / scale - 0.5 if n_out > 1 else 0.0
    if transform == "align_corners":
        return o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    if transform == "asymmetric":
        return o / scale
    if transform == "half_pixel_symmetric":
        # Opset 18: half_pixel about the centre of the image, which the floored output size
        # moves when n_in * scale is not an integer.
        adjustment = n_out / (scale * n_in)
        return n_in / 2 * (1 - adjustment) + (o + 0.5) / scale - 0.5
    if transform == "tf_half_pixel_for_nn":
        return (o + 0.5) / scale
    node.fail(f"coordinate_transformation_mode {transform} is not supported")


def nearest_indices(node, n_in, n_out, scale, transform, rounding):
    """The input index of each output index along one axis (ONNX Resize, mode nearest)."""
    idx = []
    for o in range(n_out):
        x = source_coordinate(node, o, n_in, n_out, scale, transform)
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


def linear_taps(node, n_in, n_out, scale, transform):
    """The two input indices and their weights of each output index along one axis (ONNX
    Resize, mode linear): (first indices, second indices, first weights, second weights).
    Coordinates outside the input clamp to its edges, as the operator's reference and PyTorch
    do. Like PyTorch, the second tap is the next pixel even where its weight is 0, so a NaN
    there spreads as it does in PyTorch."""
    if transform == "tf_half_pixel_for_nn":
        node.fail("coordinate_transformation_mode tf_half_pixel_for_nn is for mode nearest only")
    first, second, w_first, w_second = [], [], [], []
    for o in range(n_out):
        x = min(max(source_coordinate(node, o, n_in, n_out, scale, transform), 0.0), n_in - 1)
        lo = min(int(math.floor(x)), n_in - 1)
        hi = min(lo + 1, n_in - 1)
        fraction = x - lo if hi != lo else 0.0
        first.append(lo)
        second.append(hi)
        w_first.append(1.0 - fraction)
        w_second.append(fraction)
    return first, second, w_first, w_second


def resize_attrs(ctx, node, x):
    """(scales, sizes) of a Resize or Upsample over every axis of x: the given scales with the
    output sizes they floor to, or the given sizes with the scales they imply."""
    if node.op == "Upsample":
        scales = ctx.const(node, 1) if len(node.inputs) > 1 else node.attrs.get("scales")
        sizes = None
    else:
        first = 1 if ctx.model.opset < 11 else 2
        scales = ctx.const(node, first, required=False)
        sizes = ctx.const(node, first + 1, required=False)
        if scales is not None and np.asarray(scales).size == 0:
            scales = None
    # Opset 18: scales or sizes for the listed axes only; the others keep their extent.
    axes = axis_list(node, "axes", node.attrs["axes"], x.rank) if "axes" in node.attrs else None
    count = x.rank if axes is None else len(axes)
    if sizes is not None and np.asarray(sizes).size:
        sizes = int_list(node, "sizes", sizes, count, 1)
        if axes is not None:
            full = list(x.shape)
            for a, s in zip(axes, sizes):
                full[a] = s
            sizes = full
        scales = [o / i for o, i in zip(sizes, x.shape)]
    elif scales is not None:
        scales = np.asarray(scales)
        if (scales.shape != (count,) or not np.issubdtype(scales.dtype, np.number)
                or not np.all(np.isfinite(scales) & (scales > 0))):
            node.fail(f"scales {scales.tolist()} are not {count} positive numbers")
        scales = [float(s) for s in scales]
        if axes is not None:
            full = [1.0] * x.rank
            for a, s in zip(axes, scales):
                full[a] = s
            scales = full
        sizes = [int(math.floor(d * s)) for d, s in zip(x.shape, scales)]
    else:
        node.fail("neither scales nor sizes are given")
    return scales, sizes


def lower_resize(ctx, node):
    known_attrs(node, "mode", "coordinate_transformation_mode", "nearest_mode",
                "cubic_coeff_a", "exclude_outside", "extrapolation_value", "antialias", "axes",
                "keep_aspect_ratio_policy")
    x = ctx.tensor(node)
    need_rank(node, x, (3, 4))
    mode = node.attrs.get("mode", "nearest")
    if node.op == "Upsample" and mode == "bilinear":
        mode = "linear"  # Upsample-7's name of it
    if mode not in ("nearest", "linear"):
        node.fail(f"mode {mode} is not supported (nearest and linear only)")
    if int_attr(node, "antialias", 0, 0, 1):
        node.fail("antialias=1 is not supported")
    policy = node.attrs.get("keep_aspect_ratio_policy", "stretch")
    if policy != "stretch":
        node.fail(f"keep_aspect_ratio_policy {policy} is not supported (stretch only)")
    if node.op == "Upsample":
        transform, rounding = "asymmetric", "floor"
    else:
        transform = node.attrs.get("coordinate_transformation_mode", "half_pixel")
        rounding = node.attrs.get("nearest_mode", "round_prefer_floor")
        if mode == "linear" and ctx.model.opset < 11:
            transform = "asymmetric"  # Resize-10 has no coordinate transformation: Upsample's
    if transform == "tf_crop_and_resize":
        node.fail("coordinate_transformation_mode tf_crop_and_resize is not supported")
    scales, sizes = resize_attrs(ctx, node, x)
    if sizes[0] != x.shape[0] or sizes[1] != x.shape[1]:
        node.fail("resizing the batch or channel axis is not supported")
    if x.rank == 3:
        # A 1-D signal: an image of height 1 that keeps its height.
        y = ctx.out(node, sizes)
        image = Tensor(f"{node.outputs[0]}/{x.name}/2d", (x.shape[0], x.shape[1], 1, x.shape[2]))
        ctx.emit(node, "view", [x], [image])
        resized = Tensor(f"{node.outputs[0]}/2d", (sizes[0], sizes[1], 1, sizes[2]))
        x, scales, sizes = image, scales[:2] + [1.0] + scales[2:], list(resized.shape)
        resize_2d(ctx, node, x, resized, mode, transform, rounding, scales, sizes)
        ctx.emit(node, "view", [resized], [y])
        return
    resize_2d(ctx, node, x, ctx.out(node, sizes), mode, transform, rounding, scales, sizes)


def resize_2d(ctx, node, x, y, mode, transform, rounding, scales, sizes):
    """The resize step of 4-D x into y (`scales` and `sizes` of its four axes)."""
    if mode == "nearest":
        rows = nearest_indices(node, x.shape[2], sizes[2], scales[2], transform, rounding)
        cols = nearest_indices(node, x.shape[3], sizes[3], scales[3], transform, rounding)
        ctx.emit(node, "resize", [x], [y], mode="nearest", rows=rows, cols=cols)
    else:
        rows = linear_taps(node, x.shape[2], sizes[2], scales[2], transform)
        cols = linear_taps(node, x.shape[3], sizes[3], scales[3], transform)
        ctx.emit(node, "resize", [x], [y], mode="linear", rows=rows, cols=cols)
