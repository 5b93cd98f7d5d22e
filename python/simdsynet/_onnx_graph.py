"""Reading an ONNX model for simdsynet.onnx: the graph's nodes with decoded attributes (and
the checked reading of their values), its initializers as numpy arrays, and constant folding.

Exporters compute shapes inside the graph (Shape -> Gather -> Concat -> Reshape, the slice
bounds of torch.chunk, the pads of a reflection pad ...). With the input shapes fixed, all of it
is constant: `fold` evaluates such nodes with numpy at load time, so the plan only holds the
nodes that compute on the network's data.
"""

import copy

import numpy as np

try:
    import onnx
    from onnx import numpy_helper
except ImportError as error:  # pragma: no cover - depends on the machine
    raise ImportError(
        "simdsynet.onnx needs the onnx package for Debian's /usr/bin/python3 "
        "(apt-get install python3-onnx)") from error


class UnsupportedModelError(ValueError):
    """The model holds something the runner does not support (an operator, an attribute, a
    data type). Raised at load, or for a model with dimensions known only at run time, where it
    depends on the shapes, at the first run with those shapes; the message names the node and
    the reason."""


class Node:
    """One ONNX node: op type, name, input/output value names ("" for an omitted optional
    input) and attributes decoded to Python values."""

    __slots__ = ("op", "name", "inputs", "outputs", "attrs")

    def __init__(self, op, name, inputs, outputs, attrs):
        self.op, self.name, self.inputs, self.outputs, self.attrs = op, name, inputs, outputs, attrs

    def __repr__(self):
        return f"{self.op} '{self.name}'"

    def fail(self, reason, cause=None):
        raise UnsupportedModelError(f"node '{self.name}' ({self.op}): {reason}") from cause


# ---------------------------------------------------------------------------------------------
# Attributes and constant arguments, checked before a handler computes with them: a malformed
# model is refused naming the node, never left to fail in arithmetic (strides 0) or to run with
# a value the model did not mean. A `default` of None makes the attribute required.

def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def int_attr(node, name, default=None, minimum=None, maximum=None):
    value = node.attrs.get(name, default)
    if value is None:
        node.fail(f"attribute '{name}' is required")
    if not _is_int(value):
        node.fail(f"attribute '{name}' is {value!r}, not an integer")
    if minimum is not None and value < minimum:
        node.fail(f"{name} {value} is below {minimum}")
    if maximum is not None and value > maximum:
        node.fail(f"{name} {value} is above {maximum}")
    return int(value)


def float_attr(node, name, default):
    value = node.attrs.get(name, default)
    if not (_is_int(value) or isinstance(value, (float, np.floating))):
        node.fail(f"attribute '{name}' is {value!r}, not a number")
    return float(value)


def int_list(node, what, value, length=None, minimum=None):
    """`value`, an attribute's list or a constant input (a 1-D integer array), as integers:
    `length` of them (any number when None), none below `minimum`."""
    if isinstance(value, np.ndarray):
        if value.ndim > 1 or not np.issubdtype(value.dtype, np.integer):
            node.fail(f"{what} of shape {value.shape} and type {value.dtype} are not a list "
                      "of integers")
        value = value.reshape(-1).tolist()
    if not isinstance(value, (list, tuple)) or not all(_is_int(v) for v in value):
        node.fail(f"{what} {value!r} are not a list of integers")
    value = [int(v) for v in value]
    if length is not None and len(value) != length:
        node.fail(f"{what} {value} are {len(value)} values where {length} are expected")
    if minimum is not None and any(v < minimum for v in value):
        node.fail(f"{what} {value} hold a value below {minimum}")
    return value


def int_list_attr(node, name, length=None, minimum=None, default=None):
    value = node.attrs.get(name, default)
    if value is None:
        node.fail(f"attribute '{name}' is required")
    return int_list(node, name, value, length, minimum)


def axis_list(node, what, value, rank):
    """Axes of a tensor of rank `rank` (negative ones counting from the end) in [0, rank),
    refused when out of range or repeated."""
    axes = int_list(node, what, value)
    if any(not -rank <= a < rank for a in axes):
        node.fail(f"{what} {axes} are out of range for rank {rank}")
    axes = [a % rank for a in axes]
    if len(set(axes)) != len(axes):
        node.fail(f"{what} {axes} repeat an axis")
    return axes


def axis_attr(node, name, default, rank):
    return int_attr(node, name, default, -rank, rank - 1) % rank


def decode_node(proto, index):
    attrs = {}
    for a in proto.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            attrs[a.name] = a.g
        else:
            value = onnx.helper.get_attribute_value(a)
            if isinstance(value, bytes):
                value = value.decode()
            elif a.type == onnx.AttributeProto.TENSOR:
                value = numpy_helper.to_array(value)
            attrs[a.name] = value
    name = proto.name or f"{proto.op_type}_{index}"
    return Node(proto.op_type, name, list(proto.input), list(proto.output), attrs)


# ---------------------------------------------------------------------------------------------
# Constant folding: numpy implementations of the operators exporters use on constants.

def _axes(node, values, position=1):
    """The `axes` of Squeeze/Unsqueeze/Reduce*: an attribute before opset 13, an input after."""
    if "axes" in node.attrs:
        return [int(a) for a in node.attrs["axes"]]
    if len(values) > position and values[position] is not None:
        return [int(a) for a in values[position]]
    return None


def slice_indices(n, start, end, step):
    """The indices ONNX Slice takes along an axis of extent n (bounds clamped as the operator
    defines, INT64 extremes meaning "to the end")."""
    start, end, step = int(start), int(end), int(step)
    if step == 0:
        raise ValueError("slice step 0")
    if start < 0:
        start += n
    if end < 0:
        end += n
    if step > 0:
        start, end = min(max(start, 0), n), min(max(end, 0), n)
    else:
        start, end = min(max(start, -1), n - 1), min(max(end, -1), n - 1)
    return np.arange(start, end, step)


def slice_arguments(node, values, rank):
    """(starts, ends, axes, steps) of a Slice of a tensor of rank `rank`: attributes before
    opset 10, inputs after; axes in [0, rank)."""
    if "starts" in node.attrs:
        starts, ends = int_list_attr(node, "starts"), int_list_attr(node, "ends")
        axes, steps = node.attrs.get("axes"), None
    else:
        if len(values) < 3 or values[1] is None or values[2] is None:
            node.fail("the starts and ends inputs are required")
        starts, ends = int_list(node, "starts", values[1]), int_list(node, "ends", values[2])
        axes = values[3] if len(values) > 3 else None
        steps = values[4] if len(values) > 4 else None
    axes = axis_list(node, "axes", list(range(len(starts))) if axes is None else axes, rank)
    steps = [1] * len(starts) if steps is None else int_list(node, "steps", steps)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        node.fail(f"starts {starts}, ends {ends}, axes {axes} and steps {steps} differ in length")
    if 0 in steps:
        node.fail(f"steps {steps} hold a 0")
    return starts, ends, axes, steps


def _slice(node, values):
    x = values[0]
    for start, end, axis, step in zip(*slice_arguments(node, values, x.ndim)):
        x = np.take(x, slice_indices(x.shape[axis], start, end, step), axis=axis)
    return x


def _reshape(x, shape, allowzero=0):
    shape = [int(s) for s in shape]
    if not allowzero:
        shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return x.reshape(shape)


def _cast(x, to):
    return x.astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[to])


def _div(a, b):
    if np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer):
        return np.trunc(a / b).astype(np.result_type(a, b))
    return (a / b).astype(np.result_type(a, b))


def _constant(node, values):
    a = node.attrs
    if "value" in a:
        return a["value"]
    if "value_float" in a:
        return np.array(a["value_float"], np.float32)
    if "value_floats" in a:
        return np.array(a["value_floats"], np.float32)
    if "value_int" in a:
        return np.array(a["value_int"], np.int64)
    if "value_ints" in a:
        return np.array(a["value_ints"], np.int64)
    node.fail("constant without a tensor value")


def _unsqueeze(x, axes):
    rank = x.ndim + len(axes)
    for axis in sorted(a % rank for a in axes):
        x = np.expand_dims(x, axis)
    return x


def _squeeze(x, axes):
    if axes is None:
        return np.squeeze(x)
    return np.squeeze(x, axis=tuple(a % x.ndim for a in axes))


def _reduce(function):
    def reduce(node, values):
        axes = _axes(node, values)
        keep = bool(node.attrs.get("keepdims", 1))
        return function(values[0], axis=None if axes is None else tuple(axes), keepdims=keep)
    return reduce


FOLDERS = {
    "Constant": _constant,
    "Identity": lambda n, v: v[0],
    "Cast": lambda n, v: _cast(v[0], n.attrs["to"]),
    "Gather": lambda n, v: np.take(v[0], v[1].astype(np.int64), axis=n.attrs.get("axis", 0)),
    "Unsqueeze": lambda n, v: _unsqueeze(v[0], _axes(n, v)),
    "Squeeze": lambda n, v: _squeeze(v[0], _axes(n, v)),
    "Concat": lambda n, v: np.concatenate(v, axis=n.attrs["axis"]),
    "Reshape": lambda n, v: _reshape(v[0], v[1], n.attrs.get("allowzero", 0)),
    "Flatten": lambda n, v: v[0].reshape(int(np.prod(v[0].shape[:n.attrs.get("axis", 1)])), -1),
    "Transpose": lambda n, v: np.transpose(v[0], n.attrs.get("perm")),
    "Slice": _slice,
    "ConstantOfShape": lambda n, v: np.full([int(s) for s in v[0]],
                                            n.attrs["value"].reshape(-1)[0] if "value" in n.attrs
                                            else np.float32(0)),
    "Range": lambda n, v: np.arange(v[0], v[1], v[2]).astype(v[0].dtype),
    "Expand": lambda n, v: v[0] * np.ones([int(s) for s in v[1]], v[0].dtype),
    "Tile": lambda n, v: np.tile(v[0], [int(s) for s in v[1]]),
    "Where": lambda n, v: np.where(v[0], v[1], v[2]),
    "Add": lambda n, v: v[0] + v[1],
    "Sub": lambda n, v: v[0] - v[1],
    "Mul": lambda n, v: v[0] * v[1],
    "Div": lambda n, v: _div(v[0], v[1]),
    "Pow": lambda n, v: np.power(v[0], v[1]).astype(v[0].dtype),
    "Neg": lambda n, v: -v[0],
    "Abs": lambda n, v: np.abs(v[0]),
    "Sqrt": lambda n, v: np.sqrt(v[0]),
    "Reciprocal": lambda n, v: (1 / v[0]).astype(v[0].dtype),
    "Floor": lambda n, v: np.floor(v[0]),
    "Ceil": lambda n, v: np.ceil(v[0]),
    "Equal": lambda n, v: np.equal(v[0], v[1]),
    "Less": lambda n, v: np.less(v[0], v[1]),
    "Greater": lambda n, v: np.greater(v[0], v[1]),
    "Not": lambda n, v: np.logical_not(v[0]),
    "And": lambda n, v: np.logical_and(v[0], v[1]),
    "Or": lambda n, v: np.logical_or(v[0], v[1]),
    "Min": lambda n, v: np.minimum.reduce(v),
    "Max": lambda n, v: np.maximum.reduce(v),
    "Size": lambda n, v: np.array(v[0].size, np.int64),
    "ReduceProd": _reduce(np.prod),
    "ReduceSum": _reduce(np.sum),
    "ReduceMax": _reduce(np.max),
    "ReduceMin": _reduce(np.min),
}


def fold(node, values):
    """The outputs of `node` evaluated on constant inputs (None for omitted optional inputs),
    or None when the operator is not one folded here."""
    folder = FOLDERS.get(node.op)
    if folder is None:
        return None
    try:
        result = folder(node, values)
    except UnsupportedModelError:
        raise
    except Exception as error:
        node.fail(f"cannot evaluate on constant inputs ({error})")
    return [np.asarray(result)]


# ---------------------------------------------------------------------------------------------
# The model.

FLOAT = onnx.TensorProto.FLOAT


class Model:
    """An ONNX model read for planning: `nodes` in graph order (If nodes with a constant
    condition are expanded by the planner), `constants` (initializers and Constant outputs),
    `inputs` [(name, shape)] and `outputs` [name]. A shape holds None for a dimension that is
    only known at run time (`dynamic`); `with_shapes` gives the model with every input shape
    concrete, which is what the lowering needs."""

    def __init__(self, proto):
        graph = proto.graph
        self.opset = next((o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")),
                          None)
        if self.opset is None:
            raise UnsupportedModelError("the model imports no version of the default ONNX domain")
        for o in proto.opset_import:
            if o.domain not in ("", "ai.onnx"):
                used = [n for n in graph.node if n.domain == o.domain]
                if used:
                    raise UnsupportedModelError(
                        f"node '{used[0].name}' ({used[0].op_type}): operator domain "
                        f"'{o.domain}' is not supported")
        self.constants = {}
        for init in graph.initializer:
            self.constants[init.name] = numpy_helper.to_array(init)
        self.inputs = []  # (name, shape): None for a dimension known only at run time
        self.dim_names = {}  # (input name, axis) -> the dim_param of a dynamic dimension
        for value in graph.input:
            if value.name in self.constants:
                continue
            t = value.type.tensor_type
            if not value.type.HasField("tensor_type"):
                raise UnsupportedModelError(f"input '{value.name}': only tensors are supported")
            if t.elem_type != FLOAT:
                raise UnsupportedModelError(
                    f"input '{value.name}': data type "
                    f"{onnx.TensorProto.DataType.Name(t.elem_type)} is not supported (float32 "
                    "only)")
            if not t.HasField("shape"):
                raise UnsupportedModelError(f"input '{value.name}': the shape is not declared")
            shape = []
            for i, d in enumerate(t.shape.dim):
                if d.HasField("dim_value") and d.dim_value > 0:
                    shape.append(int(d.dim_value))
                else:
                    # Known only at run time: the plan is compiled per input shape.
                    shape.append(None)
                    if d.HasField("dim_param") and d.dim_param:
                        self.dim_names[(value.name, i)] = d.dim_param
            self.inputs.append((value.name, tuple(shape)))
        self.outputs = []
        for value in graph.output:
            t = value.type.tensor_type
            if value.type.HasField("tensor_type") and t.elem_type not in (0, FLOAT):
                raise UnsupportedModelError(
                    f"output '{value.name}': data type "
                    f"{onnx.TensorProto.DataType.Name(t.elem_type)} is not supported (float32 "
                    "only)")
            self.outputs.append(value.name)
        self.nodes = [decode_node(n, i) for i, n in enumerate(graph.node)]
        for n in graph.node:
            if n.domain not in ("", "ai.onnx"):
                raise UnsupportedModelError(
                    f"node '{n.name}' ({n.op_type}): operator domain '{n.domain}' is not "
                    "supported")


    @property
    def dynamic(self):
        return any(d is None for _, shape in self.inputs for d in shape)

    def with_shapes(self, shapes):
        """This model with the input shapes `shapes` ({name: tuple of ints}, checked by the
        caller against the declared ones). Nodes and constants are shared: the lowering reads
        them and never changes them."""
        concrete = copy.copy(self)
        concrete.inputs = [(name, tuple(int(d) for d in shapes[name])) for name, _ in self.inputs]
        concrete.dim_names = {}
        return concrete

    def unsupported_operators(self):
        """The first node (with If branches) whose operator the runner neither lowers nor folds,
        or None: what a dynamic model can be checked for before its shapes are known."""
        from ._onnx_lower import HANDLERS  # the lowering imports this module

        known = set(HANDLERS) | set(FOLDERS) | {"Shape", "Size"}

        def find(nodes):
            for node in nodes:
                if node.op == "If":
                    for name in ("then_branch", "else_branch"):
                        branch = node.attrs.get(name)
                        if isinstance(branch, onnx.GraphProto):
                            found = find(branch_nodes(node, branch, "branch_")[0])
                            if found is not None:
                                return found
                elif node.op not in known:
                    return node
            return None
        return find(self.nodes)


def branch_nodes(node, graph_proto, prefix):
    """The nodes of an If branch, decoded, with an Identity per branch output so that the If's
    outputs get their values."""
    nodes = [decode_node(n, f"{prefix}{i}") for i, n in enumerate(graph_proto.node)]
    for i, n in enumerate(nodes):
        n.name = f"{node.name}/{n.name}"
    for inner, outer in zip(graph_proto.output, node.outputs):
        nodes.append(Node("Identity", f"{node.name}/output_{outer}", [inner.name], [outer], {}))
    constants = {init.name: numpy_helper.to_array(init) for init in graph_proto.initializer}
    return nodes, constants
