"""Quantization (§7.4, §7.5), set_input (§7.3), image and filter layouts (§7.1, §7.2)."""

import numpy as np
import pytest

import simdsynet as ss
from reference import assert_tol, nchw_to, to_nchw

RNG = np.random.default_rng(4)


@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
def test_convert_32f_to_8u(fmt):
    x = RNG.uniform(-50, 300, (2, 3, 4, 5)).astype(np.float32)
    x[0, 0, 0, :5] = [2.5, 3.5, -0.5, np.nan, np.inf]
    scale = np.array([1.0, 0.5, 2.0], np.float32)
    shift = np.array([0.0, 10.0, -3.0], np.float32)
    v = x * scale.reshape(1, -1, 1, 1) + shift.reshape(1, -1, 1, 1)  # FP32 product, FP32 sum
    for flags, upper in ((0, 255), (ss.Compatibility.INT8_NARROWED, 180)):
        r = np.nan_to_num(np.rint(v), nan=0.0, posinf=1e9, neginf=-1e9)
        expected = np.clip(r, 0, upper).astype(np.uint8)
        out = ss.convert_32f_to_8u(nchw_to(x, fmt), scale, shift, fmt,
                                   flags | ss.Compatibility.FMA_AVOID)
        assert out.dtype == np.uint8
        np.testing.assert_array_equal(to_nchw(out, fmt), expected)
    assert list(expected[0, 0, 0, :5]) == [2, 4, 0, 0, 180]


@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
def test_convert_8u_to_32f(fmt):
    x = RNG.integers(0, 256, (2, 3, 4, 5), dtype=np.uint8)
    scale = np.array([0.1, 0.5, 2.0], np.float32)
    shift = np.array([0.0, -10.0, 3.0], np.float32)
    out = ss.convert_8u_to_32f(nchw_to(x, fmt), scale, shift, fmt)
    expected = x * scale.reshape(1, -1, 1, 1).astype(np.float64) + shift.reshape(1, -1, 1, 1)
    assert_tol(to_nchw(out, fmt), expected, 1e-5, 1)


def gray(b, g, r):
    return (1868 * b.astype(np.int64) + 9617 * g + 4899 * r + 8192) >> 14


@pytest.mark.parametrize("pixel", ["gray8", "bgr24", "bgra32", "rgb24", "rgba32"])
@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
def test_set_input(pixel, fmt):
    bpp = {"gray8": 1, "bgr24": 3, "bgra32": 4, "rgb24": 3, "rgba32": 4}[pixel]
    big = RNG.integers(0, 256, (9, 13, bpp), dtype=np.uint8)
    image = big[2:7, 3:11]  # a crop: rows apart
    if bpp == 1:
        image = image[:, :, 0]
    lower = [-1.0, 0.0, 0.5]
    upper = [1.0, 2.0, 1.5]
    out3 = ss.set_input(image, lower, upper, 3, fmt, pixel)
    px = image.reshape(5, 8, bpp).astype(np.int64)
    if pixel == "gray8":
        bgr = [px[..., 0]] * 3
    elif pixel.startswith("bgr"):
        bgr = [px[..., 0], px[..., 1], px[..., 2]]
    else:
        bgr = [px[..., 2], px[..., 1], px[..., 0]]
    k = (np.float32(upper) - np.float32(lower)) / np.float32(255)
    expected = np.stack([bgr[c] * np.float64(k[c]) + lower[c] for c in range(3)])[None]
    assert_tol(to_nchw(out3, fmt), expected, 1e-6, 1)
    out1 = ss.set_input(image, lower[:1], upper[:1], 1, fmt, pixel)
    g = bgr[0] if pixel == "gray8" else gray(*bgr)
    assert_tol(out1.reshape(5, 8), g * np.float64(k[0]) + lower[0], 1e-6, 1)


def test_set_input_contract():
    image = RNG.integers(0, 256, (4, 6, 3), dtype=np.uint8)
    assert ss.set_input(image, [0, 0, 0], [1, 1, 1]).shape == (1, 3, 4, 6)  # BGR24 inferred
    with pytest.raises(ValueError, match="bytes per pixel"):
        ss.set_input(image, [0, 0, 0], [1, 1, 1], pixel_format="bgra32")
    with pytest.raises(ValueError, match="contiguously"):
        ss.set_input(image[:, ::2], [0, 0, 0], [1, 1, 1])
    with pytest.raises(ss.Error, match="pixel format 2 is not Gray8"):
        ss.set_input(image, [0, 0, 0], [1, 1, 1], pixel_format="uv16")
    with pytest.raises(ss.Error, match="channels must be 1 or 3"):
        ss.set_input(image, [0, 0], [1, 1], channels=2)
    with pytest.raises(ValueError, match="lower must hold 3 values"):
        ss.set_input(image, [0, 0], [1, 1, 1])


@pytest.mark.parametrize("src_fmt,src_block", [("nchw", None), ("nhwc", None), ("nchw8c", 8)])
@pytest.mark.parametrize("dst_fmt,dst_block", [("nchw", None), ("nhwc", None), ("nchw4c", 4),
                                               ("nchw16c", 16)])
def test_convert_image(src_fmt, src_block, dst_fmt, dst_block):
    c = 5
    x = RNG.uniform(-1, 1, (2, c, 3, 4)).astype(np.float32)
    src = nchw_to(x, src_fmt, src_block)
    if src_block and dst_block and src_fmt != dst_fmt:
        with pytest.raises(ss.Error, match="SimdSynetConvertImage"):
            ss.convert_image(src, src_fmt, dst_fmt, channels=c)
        return
    out = ss.convert_image(src, src_fmt, dst_fmt, channels=c)
    np.testing.assert_array_equal(out, nchw_to(x, dst_fmt, dst_block))  # padded lanes zero


def test_convert_image_channels_check():
    src = nchw_to(RNG.uniform(-1, 1, (1, 5, 2, 2)).astype(np.float32), "nchw8c", 8)
    assert ss.convert_image(src, "nchw8c", "nchw").shape == (1, 8, 2, 2)
    with pytest.raises(ValueError, match="does not match"):
        ss.convert_image(src, "nchw8c", "nchw", channels=9)


def filter_to(w, fmt, block=None):
    """w (O, I, KY, KX) in OIYX -> fmt."""
    if fmt == "oiyx":
        return w
    if fmt == "yxio":
        return np.ascontiguousarray(w.transpose(2, 3, 1, 0))
    o = w.shape[0]
    ob = -(-o // block)
    padded = np.zeros((ob * block,) + w.shape[1:], w.dtype)
    padded[:o] = w
    blocked = padded.reshape((ob, block) + w.shape[1:])  # (OB, b, I, KY, KX)
    return np.ascontiguousarray(blocked.transpose(0, 3, 4, 2, 1))  # (OB, KY, KX, I, b)


@pytest.mark.parametrize("src_fmt,src_block", [("oiyx", None), ("yxio", None), ("oyxi4o", 4)])
@pytest.mark.parametrize("dst_fmt,dst_block", [("oiyx", None), ("yxio", None), ("oyxi8o", 8)])
def test_convert_filter(src_fmt, src_block, dst_fmt, dst_block):
    w = RNG.uniform(-1, 1, (6, 3, 2, 3)).astype(np.float32)
    src = filter_to(w, src_fmt, src_block)
    if src_block and dst_block:
        with pytest.raises(ss.Error, match="SimdSynetConvertFilter"):
            ss.convert_filter(src, src_fmt, dst_fmt, output=6)
        return
    out = ss.convert_filter(src, src_fmt, dst_fmt, output=6)
    np.testing.assert_array_equal(out, filter_to(w, dst_fmt, dst_block))


def test_format_contract():
    x = np.zeros((1, 2, 3, 4), np.float32)
    with pytest.raises(ValueError, match="NCHW or NHWC"):
        ss.convert_32f_to_8u(x, np.ones(2, np.float32), np.zeros(2, np.float32), "nchw8c")
    with pytest.raises(ValueError, match="OIYX, YXIO"):
        ss.convert_filter(x, "nchw", "oiyx")
