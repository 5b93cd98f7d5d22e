"""Eltwise (§4.5), shuffle (§4.8) and concatenation."""

import numpy as np
import pytest

import simdsynet as ss
from reference import assert_tol, nchw_to, to_nchw

RNG = np.random.default_rng(3)
SRC = [RNG.uniform(-2, 2, (3, 37)).astype(np.float32) for _ in range(3)]


def test_operations():
    a, b, c = SRC
    d = [x.astype(np.float64) for x in SRC]
    np.testing.assert_array_equal(ss.eltwise_layer_forward(SRC, "product"), a * b * c)
    np.testing.assert_array_equal(ss.eltwise_layer_forward(SRC, ss.EltwiseOperation.MAX),
                                  np.maximum(np.maximum(a, b), c))
    np.testing.assert_array_equal(ss.eltwise_layer_forward((a, b), "min"), np.minimum(a, b))
    w = np.array([0.5, -1.0, 2.0], np.float32)
    assert_tol(ss.eltwise_layer_forward(SRC, "sum", w), 0.5 * d[0] - d[1] + 2 * d[2], 1e-5, 4)


def test_in_place_on_the_first_two_only():
    a, b, c = (x.copy() for x in SRC)
    expected = a * b * c
    assert ss.eltwise_layer_forward([a, b, c], "product", out=b) is b
    np.testing.assert_array_equal(b, expected)
    with pytest.raises(ValueError, match="src\\[2\\]"):
        ss.eltwise_layer_forward([a, b, c], "product", out=c)


def test_errors():
    a, b, c = SRC
    with pytest.raises(ss.Error, match="count must be at least 2"):
        ss.eltwise_layer_forward([a], "sum")
    with pytest.raises(ss.Error, match="count must be at least 2"):
        ss.eltwise_layer_forward([], "max")
    with pytest.raises(ss.Error, match="weight must not be NULL for Sum"):
        ss.eltwise_layer_forward([a, b], "sum")
    with pytest.raises(ValueError, match="weight must have shape \\(2,\\)"):
        ss.eltwise_layer_forward([a, b], "sum", np.ones(3, np.float32))
    with pytest.raises(ValueError, match="src\\[1\\] has shape"):
        ss.eltwise_layer_forward([a, b[:, :5].copy()], "max")
    with pytest.raises(TypeError, match="src\\[1\\]"):
        ss.eltwise_layer_forward([a, b.astype(np.float64)], "max")


@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
def test_shuffle(fmt):
    x0 = RNG.uniform(-1, 1, (2, 4, 3, 5)).astype(np.float32)
    x1 = RNG.uniform(-1, 1, (2, 6, 3, 5)).astype(np.float32)
    out0, out1 = ss.shuffle_layer_forward(nchw_to(x0, fmt), nchw_to(x1, fmt), fmt)
    cat = np.concatenate([x0, x1], axis=1)
    np.testing.assert_array_equal(to_nchw(out0, fmt), cat[:, 0::2])
    np.testing.assert_array_equal(to_nchw(out1, fmt), cat[:, 1::2])
    odd = RNG.uniform(-1, 1, (2, 3, 3, 5)).astype(np.float32)
    with pytest.raises(ss.Error, match="srcC0 and srcC1 must be even"):
        ss.shuffle_layer_forward(nchw_to(odd, fmt), nchw_to(odd, fmt), fmt)
    with pytest.raises(ValueError, match="batch and spatial"):
        ss.shuffle_layer_forward(nchw_to(x0, fmt), nchw_to(x1[:1], fmt), fmt)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_concat_is_numpy_concatenate(axis):
    shapes = [[2, 3, 5], [2, 3, 5], [2, 3, 5]]
    for i, shape in enumerate(shapes):
        shape[axis] += i
    arrays = [RNG.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    arrays[1].flat[3] = np.float32(-0.0)
    arrays[2].view(np.uint32).flat[1] = 0x7FC01234  # a NaN payload survives
    got = ss.concat_layer_forward(arrays, axis)
    want = np.concatenate(arrays, axis)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    out = np.empty_like(want)
    assert ss.concat_layer_forward(arrays, axis, out=out) is out


def test_concat_errors():
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(ss.Error, match="count must be at least 1"):
        ss.concat_layer_forward([])
    with pytest.raises(ValueError, match="only axis 1 may differ"):
        ss.concat_layer_forward([a, np.zeros((3, 3), np.float32)], 1)
    with pytest.raises(ValueError, match="out of range"):
        ss.concat_layer_forward([a], 2)
    whole = np.zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match="src\\[0\\]"):
        ss.concat_layer_forward([whole[:2], whole[2:]], 0, out=whole)
