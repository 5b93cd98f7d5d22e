"""Naive numpy references written from SUPPLEMENT.md's formulas (float64 unless a formula is
exact in float32), and layout helpers for the tests."""

import math

import numpy as np


# --- tolerance (SUPPLEMENT.md §0.2): |a - r| <= e or |a - r| <= e*max(|a|, |r|) -------------

def assert_tol(actual, expected, e, scale=1.0):
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    diff = np.abs(actual - expected)
    bound = np.maximum(e * scale, e * np.maximum(np.abs(actual), np.abs(expected)))
    same = (diff <= bound) | (np.isnan(actual) & np.isnan(expected)) | (actual == expected)
    if not same.all():
        i = np.flatnonzero(~same)[0]
        raise AssertionError(f"{(~same).sum()} of {same.size} differ; first at flat index {i}: "
                             f"{actual.flat[i]} vs {expected.flat[i]}")


# --- BF16 (ABI.md): round to nearest even on the upper half ------------------------------------

def to_bf16(x):
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bf16(b):
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


# --- layouts ----------------------------------------------------------------------------------

def nchw_to(x, fmt, block=None):
    """An (N, C, *spatial) array in 'nchw', 'nhwc' or a blocked layout (block = 4/8/16, padded
    channels zero)."""
    if fmt == "nchw":
        return np.ascontiguousarray(x)
    if fmt == "nhwc":
        return np.ascontiguousarray(np.moveaxis(x, 1, -1))
    n, c = x.shape[:2]
    cb = -(-c // block)
    padded = np.zeros((n, cb * block) + x.shape[2:], dtype=x.dtype)
    padded[:, :c] = x
    blocked = padded.reshape((n, cb, block) + x.shape[2:])
    return np.ascontiguousarray(np.moveaxis(blocked, 2, -1))


def to_nchw(x, fmt, channels=None):
    if fmt == "nchw":
        return x
    if fmt == "nhwc":
        return np.moveaxis(x, -1, 1)
    n, cb, block = x.shape[0], x.shape[1], x.shape[-1]
    full = np.moveaxis(x, -1, 2).reshape((n, cb * block) + x.shape[2:-1])
    return full[:, :channels] if channels is not None else full


# --- activations (§3, §3.1) -------------------------------------------------------------------

def activate(x, kind, p=(), channel_axis=1):
    x = np.asarray(x, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    if kind == "identity":
        return x
    if kind == "relu":
        return np.maximum(x, 0)
    if kind == "leaky_relu":
        return np.maximum(x, 0) + p[0] * np.minimum(x, 0)
    if kind == "restrict_range":
        return np.minimum(np.maximum(p[0], x), p[1])
    if kind == "prelu":
        shape = [1] * x.ndim
        shape[channel_axis] = -1
        return np.maximum(x, 0) + p.reshape(shape) * np.minimum(x, 0)
    if kind == "elu":
        return np.where(x >= 0, x, p[0] * np.expm1(np.minimum(x, 0)))
    if kind == "hswish":
        return np.maximum(np.minimum(x, p[0]) + p[0], 0) * p[1] * x
    if kind == "mish":
        return np.where(x > p[0], x, x * np.tanh(np.logaddexp(0, x)))
    if kind == "hard_sigmoid":
        return np.maximum(0, np.minimum(x * p[0] + p[1], 1))
    if kind == "swish":
        return x / (1 + np.exp(-p[0] * x))
    if kind == "gelu":
        erf = np.vectorize(math.erf)
        return x * (1 + erf(x / math.sqrt(2))) / 2
    raise ValueError(kind)


# --- convolution (§8.2) and deconvolution (§9.1), NCHW, float64 -----------------------------

def convolution(x, w, bias, stride, dilation, pad, group):
    """x (N, C, H, W); w (D, C/group, KY, KX); pad (top, left, bottom, right)."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n, c, h, wd = x.shape
    d, cg, ky, kx = w.shape
    (sy, sx), (dy, dx) = stride, dilation
    t, l, b, r = pad
    oh = (h + t + b - (dy * (ky - 1) + 1)) // sy + 1
    ow = (wd + l + r - (dx * (kx - 1) + 1)) // sx + 1
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)))
    dg = d // group
    out = np.zeros((n, d, oh, ow))
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(ky):
            for j in range(kx):
                patch = xs[:, :, i * dy:i * dy + sy * (oh - 1) + 1:sy,
                           j * dx:j * dx + sx * (ow - 1) + 1:sx]
                out[:, g * dg:(g + 1) * dg] += np.einsum(
                    "nchw,dc->ndhw", patch, w[g * dg:(g + 1) * dg, :, i, j])
    if bias is not None:
        out += np.asarray(bias, dtype=np.float64).reshape(1, -1, 1, 1)
    return out


def deconvolution(x, w, bias, stride, dilation, pad, group):
    """x (N, C, H, W); w (C, D/group, KY, KX); pad crops (top, left, bottom, right)."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n, c, h, wd = x.shape
    _, dg, ky, kx = w.shape
    (sy, sx), (dy, dx) = stride, dilation
    t, l, b, r = pad
    fh = sy * (h - 1) + dy * (ky - 1) + 1
    fw = sx * (wd - 1) + dx * (kx - 1) + 1
    cg = c // group
    full = np.zeros((n, dg * group, fh, fw))
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(ky):
            for j in range(kx):
                full[:, g * dg:(g + 1) * dg, i * dy:i * dy + sy * (h - 1) + 1:sy,
                     j * dx:j * dx + sx * (wd - 1) + 1:sx] += np.einsum(
                    "nchw,cd->ndhw", xs, w[g * cg:(g + 1) * cg, :, i, j])
    out = full[:, :, t:fh - b, l:fw - r]
    if bias is not None:
        out = out + np.asarray(bias, dtype=np.float64).reshape(1, -1, 1, 1)
    return out


# --- pooling (§5) -----------------------------------------------------------------------------

def pool(x, kernel, stride, pad, out_hw, op, exclude_pad=True):
    """x (N, C, H, W) -> (N, C, OH, OW) by the window rule of §5 (op: 'max' or 'avg')."""
    n, c, h, w = x.shape
    oh, ow = out_hw
    out = np.empty((n, c, oh, ow), dtype=np.float64 if op == "avg" else x.dtype)
    for i in range(oh):
        y0 = i * stride[0] - pad[0]
        y1, y0 = min(y0 + kernel[0], h), max(y0, 0)
        for j in range(ow):
            x0 = j * stride[1] - pad[1]
            x1, x0 = min(x0 + kernel[1], w), max(x0, 0)
            window = x[:, :, y0:y1, x0:x1]
            if op == "max":
                out[:, :, i, j] = window.max(axis=(2, 3))
            else:
                area = (y1 - y0) * (x1 - x0) if exclude_pad else kernel[0] * kernel[1]
                out[:, :, i, j] = window.astype(np.float64).sum(axis=(2, 3)) / area
    return out
