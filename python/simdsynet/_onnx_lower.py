"""From ONNX nodes to the runner's operations (_onnx_ir). Every supported operator has a
handler that checks its attributes, computes the output shape and adds one operation (or
none: views of constants fold away). Anything unsupported raises UnsupportedModelError naming
the node, so a model is refused at load, never at run time.

Operations keep the logical (NCHW) meaning of the ONNX operators; layouts are the planner's.
The handlers are in _onnx_ops (operators that compute) and _onnx_ops_data (data movement).
"""

import numpy as np

from . import _onnx_ops as ops
from . import _onnx_ops_data as data
from . import _onnx_patterns as patterns
from ._onnx_graph import (FOLDERS, UnsupportedModelError, branch_nodes, fold, int_attr,
                          onnx)
from ._onnx_ir import Network, Op, Tensor
from ._onnx_ops import F32, as_float


# ---------------------------------------------------------------------------------------------
# The lowering.

MAX_TENSOR_ELEMENTS = 2 ** 31  # FP32 values of one tensor (8 GiB)

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
        nodes = patterns.rewrite(nodes, self.consts, self.model.outputs)
        for node in nodes:
            try:
                self.lower_node(node)
            except UnsupportedModelError:
                raise
            except (ArithmeticError, LookupError, TypeError, ValueError) as error:
                # A malformed form that no check foresaw: still refused at load, naming the
                # node, with the error that tripped as the cause.
                node.fail(f"malformed node ({type(error).__name__}: {error})", error)

    def lower_node(self, node):
        if not node.outputs or not node.outputs[0]:
            node.fail("the first output is missing")
        if node.op != "Constant" and (not node.inputs or not node.inputs[0]):
            node.fail("the first input is missing")
        if node.op == "If":
            self.inline_if(node)
            return
        present = [i for i in node.inputs if i]
        if all(i in self.consts for i in present) and (node.op in FOLDERS or
                                                       node.op == "Dropout"):
            values = [self.consts[i] if i else None for i in node.inputs]
            result = [values[0]] if node.op == "Dropout" else fold(node, values)
            self.consts[node.outputs[0]] = result[0]
            return
        if node.op == "Shape" and (node.inputs[0] in self.values or node.inputs[0] in self.consts):
            # Of a constant too: a dynamic-batch ViT takes the shape of its class token.
            source = self.values.get(node.inputs[0])
            shape = np.array(np.shape(self.consts[node.inputs[0]]) if source is None else
                             source.shape, np.int64)
            # Out-of-range bounds clamp, as the operator says and Python slices do.
            start, end = int_attr(node, "start", 0), int_attr(node, "end", len(shape))
            self.consts[node.outputs[0]] = shape[start:end]
            return
        if node.op == "Size" and node.inputs[0] in self.values:
            self.consts[node.outputs[0]] = np.array(self.values[node.inputs[0]].size, np.int64)
            return
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
        if np.size(cond) != 1:
            node.fail(f"the condition of shape {np.shape(cond)} is not one value")
        name = "then_branch" if bool(np.asarray(cond).reshape(-1)[0]) else "else_branch"
        branch = node.attrs.get(name)
        if not isinstance(branch, onnx.GraphProto):
            node.fail(f"attribute '{name}' is not a graph")
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
        # Checked before a handler builds tables for it (a Resize by a huge scale would build
        # index lists for the whole output): no real network has a tensor of 8 GiB.
        elements = int(np.prod(np.asarray(shape, dtype=np.float64)))
        if elements > MAX_TENSOR_ELEMENTS:
            node.fail(f"output shape {tuple(shape)} holds {elements} values, more than the "
                      f"{MAX_TENSOR_ELEMENTS} a tensor may hold")
        t = Tensor(node.outputs[i], shape)
        self.values[node.outputs[i]] = t
        return t

    def emit(self, node, kind, inputs, outputs, **attrs):
        return self.net.add(Op(kind, node.name, inputs, outputs, **attrs))

    def check_unused_outputs(self, node, first):
        for name in node.outputs[first:]:
            if name:
                node.fail(f"output '{name}' (training statistics) is not supported")


HANDLERS = {
    "Conv": ops.lower_conv,
    "ConvTranspose": ops.lower_conv_transpose,
    "BatchNormalization": ops.lower_batch_norm,
    "InstanceNormalization": ops.lower_instance_norm,
    "LayerNormalization": ops.lower_layer_norm,
    patterns.LAYER_NORM: ops.lower_layer_norm_pattern,
    patterns.GELU: ops.lower_gelu,
    "Gelu": ops.lower_gelu,
    patterns.LINEAR: ops.lower_linear,
    "Erf": lambda ctx, node: node.fail("operator not supported (only inside GELU, "
                                       "x * 0.5 * (1 + erf(x / sqrt(2))))"),
    "LRN": ops.lower_lrn,
    "Relu": ops.lower_activation("relu"),
    "LeakyRelu": ops.lower_activation("leaky_relu", [("alpha", 0.01)]),
    "Elu": ops.lower_activation("elu", [("alpha", 1.0)]),
    "Selu": ops.lower_activation("selu", [("alpha", 1.67326319217681884765625),
                                      ("gamma", 1.05070102214813232421875)]),
    "Sigmoid": ops.lower_activation("sigmoid"),
    "HardSigmoid": ops.lower_activation("hard_sigmoid", [("alpha", 0.2), ("beta", 0.5)]),
    "HardSwish": ops.lower_activation("hswish"),
    "Tanh": ops.lower_activation("tanh"),
    "Softplus": ops.lower_activation("softplus"),
    "Exp": ops.lower_activation("exp"),
    "Log": ops.lower_activation("log"),
    "Abs": ops.lower_activation("abs"),
    "Neg": ops.lower_activation("neg"),
    "Sqrt": ops.lower_activation("sqrt"),
    "Clip": ops.lower_clip,
    "PRelu": ops.lower_prelu,
    "Add": ops.lower_binary("Add"),
    "Sub": ops.lower_binary("Sub"),
    "Mul": ops.lower_binary("Mul"),
    "Div": ops.lower_binary("Div"),
    "Max": lambda ctx, node: (ops.lower_binary("Max") if len(node.inputs) == 2 else
                              ops.lower_variadic("Max"))(ctx, node),
    "Min": lambda ctx, node: (ops.lower_binary("Min") if len(node.inputs) == 2 else
                              ops.lower_variadic("Min"))(ctx, node),
    "Sum": ops.lower_variadic("Sum"),
    "Mean": ops.lower_variadic("Mean"),
    "MaxPool": data.lower_pool("max"),
    "AveragePool": data.lower_pool("average"),
    "GlobalAveragePool": data.lower_global_pool("average"),
    "GlobalMaxPool": data.lower_global_pool("max"),
    "ReduceMean": data.lower_reduce("average"),
    "ReduceMax": data.lower_reduce("max"),
    "ReduceSum": data.lower_reduce("sum"),
    "ReduceMin": data.lower_reduce("min"),
    "ReduceProd": data.lower_reduce("prod"),
    "ReduceSumSquare": data.lower_reduce("sum_square"),
    "ReduceL1": data.lower_reduce("l1"),
    "ReduceL2": data.lower_reduce("l2"),
    "Expand": data.lower_expand,
    "Tile": data.lower_expand,
    "Pow": ops.lower_pow,
    "LogSoftmax": ops.lower_softmax,
    "Concat": data.lower_concat,
    "Split": data.lower_split,
    "Slice": data.lower_slice,
    "Gather": data.lower_gather,
    "Reshape": data.lower_reshape,
    "Flatten": data.lower_flatten,
    "Squeeze": data.lower_squeeze(False),
    "Unsqueeze": data.lower_squeeze(True),
    "Identity": data.lower_identity,
    "Dropout": data.lower_identity,
    "Transpose": data.lower_transpose,
    "Pad": data.lower_pad,
    "Resize": data.lower_resize,
    "Upsample": data.lower_resize,
    "Softmax": ops.lower_softmax,
    "Gemm": ops.lower_gemm,
    "MatMul": ops.lower_matmul,
}


def lower(model):
    """The runner's operations for an ONNX model (Model of _onnx_graph)."""
    return Lowering(model).run()
