"""Activations, unary operations and the array contract every function follows."""

import math

import numpy as np
import pytest

import simdsynet as ss
from reference import activate, assert_tol

RNG = np.random.default_rng(1)
X = (RNG.standard_normal((2, 3, 17)) * 4).astype(np.float32)

CASES = [
    (lambda x: ss.relu32f(x, 0.25), lambda x: activate(x, "leaky_relu", [0.25]), 1e-6),
    (lambda x: ss.restrict_range32f(x, -1.5, 2.0),
     lambda x: activate(x, "restrict_range", [-1.5, 2.0]), 0),
    (lambda x: ss.hswish32f(x), lambda x: activate(x, "hswish", [3.0, 1 / 6]), 1e-5),
    (lambda x: ss.elu32f(x, 0.7), lambda x: activate(x, "elu", [0.7]), 1e-5),
    (lambda x: ss.sigmoid32f(x, 1.5), lambda x: 1 / (1 + np.exp(-1.5 * x.astype(np.float64))),
     1e-5),
    (lambda x: ss.softplus32f(x, 2.0, 3.0),
     lambda x: np.where(x > 3.0, x, np.logaddexp(0, 2.0 * x.astype(np.float64)) / 2.0), 1e-5),
    (lambda x: ss.tanh32f(x, 0.5), lambda x: np.tanh(0.5 * x.astype(np.float64)), 1e-5),
    (lambda x: ss.gelu32f(x), lambda x: _gelu(x, False), 1e-5),
    (lambda x: ss.gelu32f(x, True), lambda x: _gelu(x, True), 1e-5),
]


def _gelu(x, approximate):
    x = x.astype(np.float64)
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


@pytest.mark.parametrize("function,reference,tol", CASES)
def test_activations(function, reference, tol):
    assert_tol(function(X), reference(X), tol)


UNARY = {
    "abs": np.abs, "exp": np.exp, "log": np.log, "neg": np.negative,
    "rsqrt": lambda x: 1 / np.sqrt(x), "sqrt": np.sqrt, "tanh": np.tanh,
    "zero": np.zeros_like,
}


@pytest.mark.parametrize("op", list(UNARY))
def test_unary_operations(op):
    x = np.abs(X) + 0.1 if op in ("log", "rsqrt", "sqrt") else X
    exact = op not in ("exp", "log", "rsqrt", "tanh")  # EXACT: the float32 operation itself
    expected = UNARY[op](x if exact else x.astype(np.float64))
    assert_tol(ss.unary_operation32f_layer_forward(x, op), expected, 0 if exact else 1e-5)


def test_in_place_and_out():
    x = X.copy()
    y = ss.relu32f(x, 0.0, out=x)
    assert y is x and (x >= 0).all()
    out = np.empty_like(X)
    assert ss.tanh32f(X, out=out) is out
    out = np.empty((2, 3, 17), np.float32)[:, :, :]
    ss.elu32f(X, out=out)


def test_array_contract():
    with pytest.raises(TypeError, match="float32"):
        ss.relu32f(X.astype(np.float64))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        ss.relu32f([1.0, 2.0])
    with pytest.raises(TypeError, match="float32"):
        ss.relu32f(X.astype(">f4"))  # not native byte order
    with pytest.raises(ValueError, match="C-contiguous"):
        ss.relu32f(X[:, :, ::2])
    with pytest.raises(ValueError, match="C-contiguous"):
        ss.relu32f(np.asfortranarray(X))
    with pytest.raises(ValueError, match="shape"):
        ss.relu32f(X, out=np.empty((2, 3, 16), np.float32))
    with pytest.raises(ValueError, match="shape"):
        ss.relu32f(X, out=np.empty(X.size, np.float32))
    with pytest.raises(TypeError, match="float32"):
        ss.relu32f(X, out=np.empty(X.shape, np.float64))
    read_only = np.empty_like(X)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ss.relu32f(X, out=read_only)
    unaligned = np.zeros(4 * X.size + 4, np.uint8)[1:1 + 4 * X.size].view(np.float32)
    assert not unaligned.flags.aligned
    with pytest.raises(ValueError, match="aligned"):
        ss.relu32f(unaligned)


def test_partial_overlap_is_rejected():
    buffer = np.zeros(40, np.float32)
    with pytest.raises(ValueError, match="in place"):
        ss.relu32f(buffer[:30], out=buffer[5:35])
    ss.relu32f(buffer[:20], out=buffer[20:])  # disjoint halves are fine


def test_library_errors():
    with pytest.raises(ss.Error, match="SimdSynetRestrictRange32f: lower must not exceed upper"):
        ss.restrict_range32f(X, 1.0, -1.0)
    with pytest.raises(ss.Error, match="SimdSynetSoftplus32f"):
        ss.softplus32f(X, 0.0)


def test_empty_arrays():
    e = np.empty((0, 3), np.float32)
    assert ss.sigmoid32f(e).shape == (0, 3)
    assert ss.restrict_range32f(np.array(2.0, np.float32), 0, 1) == 1.0  # 0-d
