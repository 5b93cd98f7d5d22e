"""Pooling (§5) against the window rule, every entry point, both layouts."""

import numpy as np
import pytest

import simdsynet as ss
from reference import assert_tol, from_bf16, nchw_to, pool, to_bf16, to_nchw

RNG = np.random.default_rng(5)
X = RNG.uniform(-1, 1, (2, 5, 9, 11)).astype(np.float32)

# kernel, stride, pad, pad_end, ceil_mode, output size
GEOMETRIES = [
    ((3, 3), (2, 2), (1, 1), None, False, (5, 6)),
    ((2, 3), (2, 1), (0, 1), (1, 1), True, (5, 11)),
    ((9, 11), (1, 1), 0, None, False, (1, 1)),  # global
]


@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
@pytest.mark.parametrize("kernel,stride,pad,pad_end,ceil,size", GEOMETRIES)
def test_average(fmt, kernel, stride, pad, pad_end, ceil, size):
    pads = pad if isinstance(pad, tuple) else (pad, pad)
    for exclude in (True, False, np.bool_(True)):
        for function in (ss.pooling_average, ss.pooling_forward_average):
            out = function(nchw_to(X, fmt), kernel, stride, pad, pad_end, exclude, fmt, ceil)
            assert_tol(to_nchw(out, fmt), pool(X, kernel, stride, pads, size, "avg", exclude),
                       1e-5, 1)


@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
@pytest.mark.parametrize("kernel,stride,pad,pad_end,ceil,size", GEOMETRIES)
def test_max(fmt, kernel, stride, pad, pad_end, ceil, size):
    pads = pad if isinstance(pad, tuple) else (pad, pad)
    expected = pool(X, kernel, stride, pads, size, "max")
    src = nchw_to(X, fmt)
    for out in (ss.pooling_forward_max(src, kernel, stride, pad, pad_end, fmt, ceil),
                ss.pooling_max32f(src, kernel, stride, pad, pad_end, fmt, ceil)):
        np.testing.assert_array_equal(to_nchw(out, fmt), expected)
    b = to_bf16(X)
    out = ss.pooling_max16b(nchw_to(b, fmt), kernel, stride, pad, pad_end, fmt, ceil)
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(to_nchw(out, fmt),
                                  to_bf16(pool(from_bf16(b), kernel, stride, pads, size, "max")))
    u = RNG.integers(0, 256, X.shape, dtype=np.uint8)
    out = ss.pooling_max8u(nchw_to(u, fmt), kernel, stride, pad, pad_end, fmt, ceil)
    np.testing.assert_array_equal(to_nchw(out, fmt), pool(u, kernel, stride, pads, size, "max"))


@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
def test_max_3d(fmt):
    out = ss.pooling_max32f(nchw_to(X, fmt), 2, 2, 0, None, fmt, kernel_c=3, stride_c=2, pad_c=1)
    per_channel = pool(X, (2, 2), (2, 2), (0, 0), (4, 5), "max")
    dst_c = (5 + 1 + 1 - 3) // 2 + 1
    expected = np.stack([per_channel[:, max(0, d * 2 - 1):min(5, d * 2 - 1 + 3)].max(axis=1)
                         for d in range(dst_c)], axis=1)
    np.testing.assert_array_equal(to_nchw(out, fmt), expected)


def test_contract():
    with pytest.raises(ValueError, match="\\(N, C, H, W\\)"):
        ss.pooling_max32f(X[0], 2)
    with pytest.raises(ValueError, match="larger than the padded input"):
        ss.pooling_average(X, 12)
    with pytest.raises(ValueError, match="must be at least 1"):
        ss.pooling_average(X, 2, 0)
    with pytest.raises(ss.Error, match="SimdSynetPoolingAverage"):
        ss.pooling_average(X, 2, 1, pad=2)  # a pad of the kernel size: an empty window
    with pytest.raises(ValueError, match="shape"):
        ss.pooling_forward_max(X, 3, out=np.empty((2, 5, 9, 11), np.float32))
    with pytest.raises(TypeError, match="uint8"):
        ss.pooling_max8u(X, 2)
    with pytest.raises(ValueError, match="NCHW or NHWC"):
        ss.pooling_max8u(np.zeros((1, 1, 4, 4), np.uint8), 2, format="nchw8c")
