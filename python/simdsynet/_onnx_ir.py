"""The intermediate form of a model in simdsynet.onnx: tensors (logical ONNX shapes) and the
operations of the runner between them, in execution order. The lowering (_onnx_lower) builds it
from the ONNX nodes, the fusions (_onnx_fuse) rewrite it, the planner (_onnx_plan) gives every
tensor a layout and a place in the arena and hands the operations to the executor.
"""

import numpy as np


class Tensor:
    """A value of the network. `shape` is the logical (ONNX) shape; `const` holds the data of
    a constant that an operation reads as a tensor. The planner sets `layout` ("nhwc": a 4D
    tensor stored N, H, W, C; "plain": the logical C order; "flat": an N x (C*H*W) flattening
    of an NHWC tensor stored as N, H, W, C, whose `flat_shape` is (C, H, W)), `view_of` (the
    tensor whose memory a view shares) and `offset` (in floats, in the arena). `dtype` is
    "float32", or "uint8" for a tensor passed between INT8 convolutions (_onnx_int8), whose
    bytes start at its float offset."""

    def __init__(self, name, shape, const=None):
        self.name = name
        self.shape = tuple(int(d) for d in shape)
        self.const = const
        self.producer = None
        self.consumers = []
        self.layout = None
        self.flat_shape = None
        self.view_of = None
        self.offset = None
        self.dtype = "float32"

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def floats(self):
        """Arena floats the tensor occupies."""
        return self.size if self.dtype == "float32" else -(-self.size // 4)

    @property
    def rank(self):
        return len(self.shape)

    def __repr__(self):
        return f"Tensor({self.name}, {self.shape}, {self.layout})"


class Op:
    """One operation: `kind`, the ONNX node names it runs (`name`), input and output tensors
    and the kind's attributes (logical NCHW semantics)."""

    def __init__(self, kind, name, inputs, outputs, **attrs):
        self.kind = kind
        self.name = name
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.attrs = attrs

    def __getitem__(self, key):
        return self.attrs[key]

    def get(self, key, default=None):
        return self.attrs.get(key, default)

    def __repr__(self):
        return f"Op({self.kind}, {self.name})"


class Network:
    """The operations in execution order, with producer/consumer links kept up to date."""

    def __init__(self):
        self.ops = []
        self.inputs = []   # graph input tensors, in order
        self.outputs = []  # graph output tensors, in order

    def add(self, op, index=None):
        for t in op.inputs:
            t.consumers.append(op)
        for t in op.outputs:
            t.producer = op
        if index is None:
            self.ops.append(op)
        else:
            self.ops.insert(index, op)
        return op

    def remove(self, op):
        self.ops.remove(op)
        for t in op.inputs:
            t.consumers.remove(op)
        for t in op.outputs:
            if t.producer is op:
                t.producer = None

    def set_input(self, op, i, tensor):
        op.inputs[i].consumers.remove(op)
        op.inputs[i] = tensor
        tensor.consumers.append(op)

    def replace_uses(self, old, new):
        """Every consumer of `old` (and the graph outputs) reads `new` instead."""
        for op in list(old.consumers):
            for i, t in enumerate(op.inputs):
                if t is old:
                    self.set_input(op, i, new)
        self.outputs = [new if t is old else t for t in self.outputs]

    def is_output(self, tensor):
        return any(t is tensor for t in self.outputs)

    def sole_consumer(self, tensor):
        """The only operation reading `tensor`, when it is not a graph output; else None."""
        if len(tensor.consumers) == 1 and not self.is_output(tensor):
            return tensor.consumers[0]
        return None
