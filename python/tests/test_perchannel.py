"""PReLU, bias, scale and the fused layers in every image layout, against §4 formulas."""

import numpy as np
import pytest

import simdsynet as ss
from reference import assert_tol, nchw_to, to_nchw

RNG = np.random.default_rng(2)
LAYOUTS = [("nchw", None), ("nhwc", None), ("nchw4c", 4), ("nchw8c", 8), ("nchw16c", 16)]
N, C, H, W = 2, 7, 3, 5


def tensor(c=C):
    return RNG.uniform(-2, 2, (N, c, H, W)).astype(np.float32)


def per_channel(array_channels, c=C):
    """Per-channel values for an array of array_channels (padded) channels; the first c real."""
    return RNG.uniform(-1, 1, array_channels).astype(np.float32)


def channels_of(fmt, block, c=C):
    return c if block is None else -(-c // block) * block


def bcast(v, c=C):
    return v[:c].astype(np.float64).reshape(1, -1, 1, 1)


def check(result, expected, fmt, tol=1e-5):
    assert_tol(to_nchw(result, fmt, expected.shape[1]), expected, tol, scale=4)


@pytest.mark.parametrize("fmt,block", LAYOUTS)
def test_prelu_bias_scale(fmt, block):
    x = tensor()
    a = nchw_to(x, fmt, block)
    ca = channels_of(fmt, block)
    slope, bias, scale = per_channel(ca), per_channel(ca), per_channel(ca)
    xd = x.astype(np.float64)
    check(ss.prelu_layer_forward(a, slope, fmt),
          np.maximum(xd, 0) + bcast(slope) * np.minimum(xd, 0), fmt)
    check(ss.scale_layer_forward(a, scale, bias, fmt), xd * bcast(scale) + bcast(bias), fmt)
    check(ss.scale_layer_forward(a, scale, None, fmt), xd * bcast(scale), fmt)
    b = a.copy()
    assert ss.add_bias(b, bias, fmt) is b
    check(b, xd + bcast(bias), fmt)


@pytest.mark.parametrize("fmt,block", LAYOUTS)
def test_fused_layers(fmt, block):
    x = tensor()
    a = nchw_to(x, fmt, block)
    ca = channels_of(fmt, block)
    p0, p1, p2 = per_channel(ca), per_channel(ca), per_channel(ca)
    xd = x.astype(np.float64)
    v = xd + bcast(p0)
    check(ss.fused_layer_forward0(a, p0, p1, fmt), (v - np.abs(v)) * bcast(p1) + np.maximum(0, v),
          fmt)
    check(ss.fused_layer_forward1(a, p0, p1, p2, fmt),
          np.maximum(0, -v) * bcast(p1) + bcast(p2) + np.maximum(0, v), fmt)
    u = xd * bcast(p0) + bcast(p1)
    check(ss.fused_layer_forward2(a, p0, p1, 0.3, fmt), np.maximum(0, u) + np.minimum(0, u) * 0.3,
          fmt)
    check(ss.fused_layer_forward3(a, p0, p1, fmt),
          np.maximum(0, v) + np.minimum(0, v) * bcast(p1), fmt)
    y = tensor()
    check(ss.fused_layer_forward8(a, nchw_to(y, fmt, block), p2, fmt),
          xd + y.astype(np.float64) * bcast(p2), fmt)


@pytest.mark.parametrize("fmt,block", LAYOUTS)
def test_fused4(fmt, block):
    c = 8 if block in (4, 8) else (16 if block == 16 else 5)  # blocked: a multiple of the block
    x = tensor(c)
    bias0 = per_channel(c, c)
    out = ss.fused_layer_forward4(nchw_to(x, fmt, block), bias0, 0.5, -0.25, fmt)
    v = x.astype(np.float64) + bcast(bias0, c)
    expected = np.concatenate([np.maximum(0, v), np.maximum(0, v * 0.5 - 0.25)], axis=1)
    check(out, expected, fmt)


@pytest.mark.parametrize("fmt,block", LAYOUTS)
def test_fused9(fmt, block):
    c0 = 8 if block in (4, 8) else (16 if block == 16 else 3)
    c1 = 5
    x0, x1 = tensor(c0), tensor(c1)
    a0, a1 = nchw_to(x0, fmt, block), nchw_to(x1, fmt, block)
    ct = c0 + (channels_of(fmt, block, c1))
    scale, bias = per_channel(ct), per_channel(ct)
    out0, out1 = ss.fused_layer_forward9(a0, a1, scale, bias, fmt, concat=True)
    # Blocked: the padded lanes of src1's last block map onto padded output lanes.
    cat = np.concatenate([to_nchw(a0, fmt), to_nchw(a1, fmt)], axis=1).astype(np.float64)
    check(out1, cat, fmt, 0)
    check(out0, np.maximum(0, cat * bcast(scale, ct) + bcast(bias, ct)), fmt)
    only0, none = ss.fused_layer_forward9(a0, a1, scale, bias, fmt)
    assert none is None
    np.testing.assert_array_equal(only0, out0)


def test_in_place_and_contract():
    x = tensor()
    bias, slope = per_channel(C), per_channel(C)
    y = x.copy()
    assert ss.fused_layer_forward3(y, bias, slope, out=y) is y
    with pytest.raises(ValueError, match="bias must have shape \\(7,\\)"):
        ss.add_bias(x, bias[:5])
    buffer = np.zeros(3 * x.size, np.float32)
    src = buffer[:x.size].reshape(x.shape)
    overlapping = buffer[x.size // 2:x.size // 2 + 2 * x.size].reshape(N, 2 * C, H, W)
    with pytest.raises(ValueError, match="out must not overlap src"):
        ss.fused_layer_forward4(src, bias, 1.0, 0.0, out=overlapping)
    with pytest.raises(ValueError, match="out must not overlap slope"):
        ss.prelu_layer_forward(y, y.reshape(-1)[:C], out=y)
    with pytest.raises(ValueError, match="NCHW, NHWC, NCHW4C"):
        ss.add_bias(x, bias, "oiyx")
    with pytest.raises(ValueError, match="N, C/8"):
        ss.add_bias(x, bias, "nchw8c")
    read_only = x.copy()
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="dst is read-only"):
        ss.add_bias(read_only, bias)
