"""Normalization (§6), softmax (§4.9), LRN (§4.7) and the inner product (§4.6)."""

import numpy as np
import pytest

import simdsynet as ss
from reference import assert_tol, from_bf16, nchw_to, to_bf16, to_nchw

RNG = np.random.default_rng(6)
N, C, H, W = 2, 6, 3, 4
X = RNG.uniform(-2, 2, (N, C, H, W)).astype(np.float32)
SCALE = RNG.uniform(0.5, 1.5, C).astype(np.float32)
SHIFT = RNG.uniform(-1, 1, C).astype(np.float32)
EPS = 1e-3


def col(v):
    return v.astype(np.float64).reshape(1, -1, 1, 1)


def v2(x):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * col(SCALE) + col(SHIFT)


@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
def test_normalization(fmt):
    x = X.astype(np.float64)
    src = nchw_to(X, fmt)
    out = ss.normalize_layer_forward(src, SCALE, EPS, False, fmt)
    assert_tol(to_nchw(out, fmt),
               x * col(SCALE) / np.sqrt(EPS + (x ** 2).sum(axis=1, keepdims=True)), 1e-4)
    out = ss.normalize_layer_forward(src, SCALE, EPS, True, fmt)
    assert_tol(to_nchw(out, fmt),
               x * col(SCALE) / np.sqrt(EPS + (x ** 2).sum(axis=(1, 2, 3), keepdims=True)), 1e-4)
    assert_tol(to_nchw(ss.normalize_layer_forward_v2(src, SCALE, SHIFT, EPS, fmt), fmt), v2(x),
               1e-4)
    mean = x.mean(axis=(2, 3), keepdims=True)
    var = ((x - mean) ** 2).mean(axis=(2, 3), keepdims=True)
    assert_tol(to_nchw(ss.normalize_layer_forward_v3(src, SCALE, SHIFT, EPS, fmt), fmt),
               (x - mean) / np.sqrt(var + EPS) * col(SCALE) + col(SHIFT), 1e-4)
    norms = np.sqrt((x ** 2).sum(axis=(2, 3), keepdims=True))
    r = 1 / (norms.mean(axis=1, keepdims=True) + EPS)
    assert_tol(to_nchw(ss.normalize_layer_forward_v4(src, SCALE, SHIFT, EPS, fmt), fmt),
               x * (1 + col(SCALE) * norms * r) + col(SHIFT), 1e-4)
    y = src.copy()
    assert ss.normalize_layer_forward_v2(y, SCALE, SHIFT, EPS, fmt, out=y) is y


def test_normalization16b():
    b = to_bf16(nchw_to(X, "nhwc"))
    out = ss.normalize_layer_forward16b_v2(b, SCALE, SHIFT, EPS)
    assert out.dtype == np.uint16
    expected = v2(to_nchw(from_bf16(b), "nhwc").astype(np.float64))
    got = to_nchw(from_bf16(out), "nhwc")
    assert_tol(got, expected, 8e-3, 1)
    with pytest.raises(ss.Error, match="16bV2"):
        ss.normalize_layer_forward16b_v2(to_bf16(X), SCALE, SHIFT, EPS, "nchw")


@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_softmax(axis):
    x = RNG.uniform(-30, 30, (3, 4, 5)).astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    out = ss.softmax_layer_forward(x.astype(np.float32), axis)
    assert_tol(out, e / e.sum(axis=axis, keepdims=True), 1e-5)
    with pytest.raises(ValueError, match="out of range"):
        ss.softmax_layer_forward(x.astype(np.float32), 3)


@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
def test_lrn(fmt):
    half, k = 2, (1.0, 1e-1 / 5, -0.75)
    x = X.astype(np.float64)
    sq = x ** 2
    expected = np.empty_like(x)
    for c in range(C):
        s = sq[:, max(0, c - half):min(C, c + half + 1)].sum(axis=1)
        expected[:, c] = x[:, c] * (k[0] + k[1] * s) ** k[2]
    out = ss.lrn_layer_cross_channels(nchw_to(X, fmt), half, k, fmt)
    assert_tol(to_nchw(out, fmt), expected, 1e-4)
    with pytest.raises(ValueError, match="k must hold 3 values"):
        ss.lrn_layer_cross_channels(X, half, (1.0, 2.0))


def test_inner_product():
    x = RNG.uniform(-1, 1, (2, 3, 19)).astype(np.float32)
    w = RNG.uniform(-1, 1, (7, 19)).astype(np.float32)
    b = RNG.uniform(-1, 1, 7).astype(np.float32)
    expected = x.astype(np.float64) @ w.T.astype(np.float64)
    assert_tol(ss.inner_product_layer_forward(x, w, b), expected + b, 2e-3)
    out = ss.inner_product_layer_forward(x[0, 0], w)
    assert out.shape == (7,)
    assert_tol(out, expected[0, 0], 2e-3)
    with pytest.raises(ValueError, match="src must have shape \\(\\.\\.\\., 19\\)"):
        ss.inner_product_layer_forward(x[..., :5].copy(), w)
