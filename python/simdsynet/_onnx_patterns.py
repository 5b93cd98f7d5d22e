"""Node patterns that exporters emit for one operation, rewritten into that operation before the
lowering (_onnx_lower): layer normalization as torch writes it by hand or exports
F.layer_norm below opset 17 (ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, then
Mul by the scale and Add of the shift), and GELU (x * 0.5 * (1 + erf(x / sqrt 2)), or the tanh
approximation x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))), and a Linear layer on
more than two axes (MatMul by constant weights, Add of a constant bias).

A pattern is replaced by one node (op LAYER_NORM or GELU, named after the pattern's first node)
at the place of its last node, where every input it reads exists. Values inside a pattern must
have no reader outside it. A layer normalization that matches up to its variance and then
breaks is refused naming the node where it breaks: computing the rest apart would be slower
and is not what the model means to run. Other partial matches are left to the operators'
own handlers.
"""

import math

import numpy as np

from ._onnx_graph import FOLDERS, Node, UnsupportedModelError, fold

LAYER_NORM = "layer normalization pattern"
GELU = "GELU pattern"
LINEAR = "MatMul+Add pattern"


class Graph:
    """Producers, readers and constant values of the values of a node list."""

    def __init__(self, nodes, consts, outputs):
        self.nodes = nodes
        self.consts = consts
        self.outputs = set(outputs)
        self.producer = {}
        self.readers = {}
        for node in nodes:
            for name in node.outputs:
                self.producer[name] = node
            for name in set(node.inputs):
                if name:
                    self.readers.setdefault(name, []).append(node)
        self.memo = {}

    def static(self, name):
        """The value of `name` when it does not depend on the model's inputs (an initializer,
        a Constant or a fold of those), else None."""
        if name in self.consts:
            return self.consts[name]
        if name in self.memo:
            return self.memo[name]
        self.memo[name] = None  # no cycles through a value being evaluated
        node = self.producer.get(name)
        value = None
        if node is not None and node.op in FOLDERS and node.outputs[0] == name:
            values = [self.static(i) if i else None for i in node.inputs]
            if all(v is not None for i, v in zip(node.inputs, values) if i):
                try:
                    value = fold(node, values)[0]
                except UnsupportedModelError:
                    value = None
        self.memo[name] = value
        return value

    def scalar(self, name):
        v = self.static(name)
        if v is None or np.size(v) != 1 or not np.issubdtype(np.asarray(v).dtype, np.number):
            return None
        return float(np.asarray(v).reshape(-1)[0])

    def sole_reader(self, name, op=None):
        """The only node reading `name` (of type `op` when given), None when the value is read
        by several nodes, is a graph output or is read by another type of node."""
        readers = self.readers.get(name, [])
        if len(readers) != 1 or name in self.outputs:
            return None
        if op is not None and readers[0].op not in ((op,) if isinstance(op, str) else op):
            return None
        return readers[0]

    def other(self, node, name):
        """The input of a two-input node that is not `name` (None unless exactly one is)."""
        if len(node.inputs) != 2 or node.inputs.count(name) != 1:
            return None
        return node.inputs[1] if node.inputs[0] == name else node.inputs[0]


def close(value, target, tolerance=1e-6):
    return value is not None and abs(value - target) <= tolerance * abs(target)


# ---------------------------------------------------------------------------------------------
# Layer normalization.

def reduce_axes(g, node):
    """The axes of a ReduceMean with keepdims (an attribute or, from opset 18, an input), or
    None."""
    if node.attrs.get("keepdims", 1) != 1 or node.attrs.get("noop_with_empty_axes", 0):
        return None
    axes = node.attrs.get("axes")
    if axes is None and len(node.inputs) > 1 and node.inputs[1]:
        axes = g.static(node.inputs[1])
    if axes is None:
        return None
    axes = np.asarray(axes).reshape(-1)
    if axes.size == 0 or not np.issubdtype(axes.dtype, np.integer):
        return None
    return [int(a) for a in axes]


def match_layer_norm(g, mean):
    """(nodes of the pattern, its replacement) for a pattern starting at ReduceMean `mean`, or
    None when this is no layer normalization."""
    x = mean.inputs[0]
    axes = reduce_axes(g, mean)
    if axes is None:
        return None
    sub = g.sole_reader(mean.outputs[0], "Sub")
    if sub is None or sub.inputs != [x, mean.outputs[0]]:
        return None
    centred = sub.outputs[0]
    readers = g.readers.get(centred, [])
    square = None
    for r in readers:
        if ((r.op == "Pow" and r.inputs[0] == centred and g.scalar(r.inputs[1]) == 2.0) or
                (r.op == "Mul" and r.inputs == [centred, centred])):
            square = r
    if square is None or centred in g.outputs:
        return None
    variance = g.sole_reader(square.outputs[0], "ReduceMean")
    if variance is None or reduce_axes(g, variance) != axes:
        return None
    # From here on the nodes compute a layer normalization's variance: a form that then differs
    # is refused where it differs.
    nodes = [mean, sub, square, variance]

    def step(node, op, what):
        reader = g.sole_reader(node.outputs[0])
        if reader is None or reader.op != op:
            node.fail(f"computes part of a layer normalization, but {what} does not follow "
                      "it alone (only (x - mean) / sqrt(variance + eps) * scale + shift is "
                      "supported)")
        return reader

    add = step(variance, "Add", "an Add of epsilon")
    eps = g.scalar(g.other(add, variance.outputs[0]) or "")
    if eps is None or not eps >= 0:
        add.fail("the epsilon of the layer normalization is not one constant of at least 0")
    sqrt = step(add, "Sqrt", "Sqrt")
    div = step(sqrt, "Div", "the division of x - mean")
    if div.inputs != [centred, sqrt.outputs[0]]:
        div.fail("does not divide x - mean by the standard deviation")
    if [r for r in readers if r is not square] != [div]:
        sub.fail("x - mean is read outside the layer normalization")
    nodes += [add, sqrt, div]
    last, scale, shift = div, None, None
    mul = g.sole_reader(div.outputs[0], "Mul")
    if mul is not None and g.static(g.other(mul, div.outputs[0]) or "") is not None:
        scale = g.static(g.other(mul, div.outputs[0]))
        nodes.append(mul)
        last = mul
        add2 = g.sole_reader(mul.outputs[0], "Add")
        if add2 is not None and g.static(g.other(add2, mul.outputs[0]) or "") is not None:
            shift = g.static(g.other(add2, mul.outputs[0]))
            nodes.append(add2)
            last = add2
    node = Node(LAYER_NORM, mean.name, [x], [last.outputs[0]],
                {"axes": axes, "epsilon": eps, "scale": scale, "shift": shift})
    return nodes, node


# ---------------------------------------------------------------------------------------------
# GELU.

def match_gelu_product(g, plus_one, x, nodes):
    """The node giving x * 0.5 * (1 + f) from `plus_one` (the output of 1 + f), with the nodes
    on the way appended to `nodes`; None when the product is another."""
    mul = g.sole_reader(plus_one, "Mul")
    if mul is None:
        return None
    other = g.other(mul, plus_one)
    if other is None:
        return None
    if other == x or close(g.scalar(other), 0.5):
        # (x * (1 + f)) * 0.5 or (0.5 * (1 + f)) * x
        second = g.sole_reader(mul.outputs[0], "Mul")
        rest = second and g.other(second, mul.outputs[0])
        if rest is None or not (close(g.scalar(rest), 0.5) if other == x else rest == x):
            return None
        nodes += [mul, second]
        return second
    half = g.producer.get(other)
    if (half is not None and half.op == "Mul" and g.sole_reader(other) is mul and
            x in half.inputs and close(g.scalar(g.other(half, x) or ""), 0.5)):
        nodes += [half, mul]  # (x * 0.5) * (1 + f)
        return mul
    return None


def match_plus_one(g, node):
    add = g.sole_reader(node.outputs[0], "Add")
    if add is None or not close(g.scalar(g.other(add, node.outputs[0]) or ""), 1.0):
        return None
    return add


def match_gelu_erf(g, erf):
    scaled = g.producer.get(erf.inputs[0])
    if scaled is None or g.sole_reader(erf.inputs[0]) is not erf:
        return None
    if scaled.op == "Div" and close(g.scalar(scaled.inputs[1]), math.sqrt(2.0)):
        x = scaled.inputs[0]
    elif scaled.op == "Mul":
        x = next((i for i in scaled.inputs
                  if close(g.scalar(g.other(scaled, i) or ""), math.sqrt(0.5))), None)
        if x is None:
            return None
    else:
        return None
    add = match_plus_one(g, erf)
    if add is None:
        return None
    nodes = [scaled, erf, add]
    last = match_gelu_product(g, add.outputs[0], x, nodes)
    if last is None:
        return None
    return nodes, Node(GELU, erf.name, [x], [last.outputs[0]], {"approximate": "none"})


def cube_of(g, name):
    """x when `name` is x^3 (Pow 3, x * (x * x) or (x * x) * x) read only in the pattern, with
    the nodes computing it; else (None, None)."""
    node = g.producer.get(name)
    if node is None:
        return None, None
    if node.op == "Pow" and g.scalar(node.inputs[1]) == 3.0:
        return node.inputs[0], [node]
    if node.op != "Mul" or len(node.inputs) != 2:
        return None, None
    for x, square in (node.inputs, node.inputs[::-1]):
        inner = g.producer.get(square)
        if (inner is not None and inner.op == "Mul" and inner.inputs == [x, x] and
                g.sole_reader(square) is node):
            return x, [inner, node]
    return None, None


def match_gelu_tanh(g, tanh):
    scaled = g.producer.get(tanh.inputs[0])
    if scaled is None or scaled.op != "Mul" or g.sole_reader(tanh.inputs[0]) is not tanh:
        return None
    inner = next((i for i in scaled.inputs
                  if close(g.scalar(g.other(scaled, i) or ""), math.sqrt(2.0 / math.pi))), None)
    total = g.producer.get(inner) if inner else None
    if total is None or total.op != "Add" or g.sole_reader(inner) is not scaled:
        return None
    for x, term in (total.inputs, total.inputs[::-1]):
        weighted = g.producer.get(term)
        if weighted is None or weighted.op != "Mul" or g.sole_reader(term) is not total:
            continue
        cube = next((i for i in weighted.inputs
                     if close(g.scalar(g.other(weighted, i) or ""), 0.044715)), None)
        if cube is None or g.sole_reader(cube) is not weighted:
            continue
        base, cube_nodes = cube_of(g, cube)
        if base != x:
            continue
        add = match_plus_one(g, tanh)
        if add is None:
            return None
        nodes = cube_nodes + [weighted, total, scaled, tanh, add]
        last = match_gelu_product(g, add.outputs[0], x, nodes)
        if last is None:
            return None
        return nodes, Node(GELU, tanh.name, [x], [last.outputs[0]], {"approximate": "tanh"})
    return None


# ---------------------------------------------------------------------------------------------
# Linear layers.

def match_linear(g, matmul):
    """nn.Linear on more than two axes: MatMul by constant weights, then Add of a constant
    1-D bias (which broadcasts along the last axis). One fully connected step with its bias,
    instead of a product and an Add of a bias tiled to the whole output."""
    if len(matmul.inputs) != 2:
        return None
    weight = g.static(matmul.inputs[1])
    add = g.sole_reader(matmul.outputs[0], "Add")
    if weight is None or np.ndim(weight) != 2 or add is None:
        return None
    bias = g.static(g.other(add, matmul.outputs[0]) or "")
    if bias is None or np.ndim(bias) != 1 or np.size(bias) != np.shape(weight)[1]:
        return None
    node = Node(LINEAR, matmul.name, list(matmul.inputs), [add.outputs[0]], {"bias": bias})
    return [matmul, add], node


MATCHERS = {"ReduceMean": match_layer_norm, "Erf": match_gelu_erf, "Tanh": match_gelu_tanh,
            "MatMul": match_linear}


def rewrite(nodes, consts, outputs):
    """`nodes` with every pattern replaced by its node."""
    g = Graph(nodes, consts, outputs)
    replaced = {}  # id(last node of a pattern) -> replacement
    taken = set()
    for node in nodes:
        matcher = MATCHERS.get(node.op)
        if matcher is None or id(node) in taken:
            continue
        found = matcher(g, node)
        if found is None:
            continue
        matched, replacement = found
        if any(id(n) in taken for n in matched):
            continue
        taken.update(id(n) for n in matched)
        position = max(nodes.index(n) for n in matched)
        replaced[id(nodes[position])] = replacement
    result = []
    for node in nodes:
        if id(node) in replaced:
            result.append(replaced[id(node)])
        elif id(node) not in taken:
            result.append(node)
    return result
