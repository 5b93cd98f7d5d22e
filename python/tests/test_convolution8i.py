"""The INT8 convolution context simdsynet.Convolution8i (SUPPLEMENT.md §11): results equal to a
numpy reference of the quantization formulas, the float32 input and uint8 output equal to the
library's own quantization (SimdSynetConvert32fTo8u) around a uint8 -> float32 context, the
agreement with the float32 convolution within the bound the quantization steps give, and the
errors."""

import numpy as np
import pytest

import simdsynet as ss
from reference import activate, convolution, nchw_to, to_nchw

RNG = np.random.default_rng(11)
F32 = np.float32

# (uMax, iMin, iMax) of each compatibility mode.
RANGES = {0: (255, -128, 127), ss.Compatibility.INT8_OVERFLOW: (255, -128, 127),
          ss.Compatibility.INT8_NARROWED: (180, -90, 90)}

LAYERS = [
    dict(src_c=5, src_h=7, src_w=6, dst_c=7, kernel=3, pad=1, format="nhwc", batch=2),
    dict(src_c=4, src_h=7, src_w=9, dst_c=6, kernel=(3, 2), stride=(2, 1), dilation=(1, 2),
         pad=(1, 0, 2, 1), group=2, format="nchw", activation="prelu"),
    dict(src_c=6, src_h=6, src_w=6, dst_c=6, kernel=3, pad=1, group=6, format="nhwc",
         activation="relu"),
    dict(src_c=17, src_h=3, src_w=5, dst_c=33, kernel=1, format="nhwc", activation="hswish"),
    dict(src_c=3, src_h=9, src_w=8, dst_c=8, kernel=3, stride=2, pad=(0, 1), format="nchw",
         activation="restrict_range", batch=3),
]
PARAMS = {"prelu": "per-channel", "hswish": [3.0, 1 / 6], "restrict_range": [-0.5, 0.7]}


def geometry(kw):
    pair = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    pad = kw.get("pad", 0)
    pad = (pad,) * 4 if isinstance(pad, int) else (pad * 2 if len(pad) == 2 else tuple(pad))
    return pair(kw.get("stride", 1)), pair(kw.get("dilation", 1)), pad, kw.get("group", 1)


def params_for(kw):
    p = PARAMS.get(kw.get("activation", "identity"))
    return RNG.uniform(0, 0.5, kw["dst_c"]).astype(F32) if p == "per-channel" else p


# --- the reference of §11, FP32 operation by operation -------------------------------------------

def quantizer(lo, hi, mode):
    """(scale, zero point) per channel: 1/q with q = max(|lo|, |hi|) / (iMax or uMax)."""
    u_max, i_min, i_max = RANGES[mode]
    signed = bool((lo < 0).any())
    q = np.maximum(np.abs(lo), np.abs(hi)).astype(F32) / F32(i_max if signed else u_max)
    q = np.where(q < F32(1e-7), F32(1), q).astype(F32)
    return F32(1) / q, (-i_min if signed else 0), q


def quantize(x, scale, zero, mode, fmt="nchw"):
    """clamp(round_half_even(x*scale[c] + z), 0, uMax), channels on axis 1 of NCHW."""
    shape = (1, -1, 1, 1) if fmt == "nchw" else (1, 1, 1, -1)
    v = (x.astype(F32) * scale.reshape(shape)).astype(F32) + F32(zero)
    return np.clip(np.rint(v), 0, RANGES[mode][0]).astype(np.uint8)


def quantize_weights(w, q_src, group, mode):
    """w (D, C/g, KY, KX) -> (w8, norm, s) per output channel."""
    _, i_min, i_max = RANGES[mode]
    d, cg = w.shape[:2]
    step = q_src.reshape(group, 1, cg)[np.arange(d) // (d // group)]  # (D, 1, Cg)
    scaled = (w.astype(F32) * step.reshape(d, cg, 1, 1)).astype(F32)
    peak = np.abs(scaled).reshape(d, -1).max(axis=1)
    s = np.where(peak < F32(1e-30), F32(1), F32(i_max) / np.where(peak > 0, peak, F32(1)))
    s = s.astype(F32)
    w8 = np.clip(np.rint((scaled * s.reshape(-1, 1, 1, 1)).astype(F32)), i_min, i_max)
    return w8.astype(np.int64), (F32(1) / s).astype(F32), s


def integer_sums(u, w8, zero, stride, dilation, pad, group, mode):
    """INT32 sums of w8 * u (padding reads the zero point). INT8_OVERFLOW: the products of
    channels 2j and 2j + 1 of a group at one tap summed with saturation to int16 first."""
    t, l, b, r = pad
    up = np.pad(u.astype(np.int64), ((0, 0), (0, 0), (t, b), (l, r)), constant_values=zero)
    if mode != ss.Compatibility.INT8_OVERFLOW:
        return np.rint(convolution(up, w8, None, stride, dilation, (0,) * 4, group)).astype(
            np.int64)
    n, c, h, wd = up.shape
    d, cg, ky, kx = w8.shape
    (sy, sx), (dy, dx) = stride, dilation
    oh = (h - (dy * (ky - 1) + 1)) // sy + 1
    ow = (wd - (dx * (kx - 1) + 1)) // sx + 1
    dg = d // group
    out = np.zeros((n, d, oh, ow), np.int64)
    for g in range(group):
        for i in range(ky):
            for j in range(kx):
                patch = up[:, g * cg:(g + 1) * cg, i * dy:i * dy + sy * (oh - 1) + 1:sy,
                           j * dx:j * dx + sx * (ow - 1) + 1:sx]
                prod = np.einsum("nchw,dc->ndchw", patch, w8[g * dg:(g + 1) * dg, :, i, j])
                for k in range(0, cg, 2):
                    pair = prod[:, :, k:k + 2].sum(axis=2)
                    out[:, g * dg:(g + 1) * dg] += np.clip(pair, -32768, 32767)
    return out


def reference8i(u, w, bias, params, stats, kw, mode, activation):
    """The FP32 output of the layer for a quantized NCHW input u."""
    stride, dilation, pad, group = geometry(kw)
    _, zero, q_src = quantizer(stats[0], stats[1], mode)
    w8, norm, s = quantize_weights(w, q_src, group, mode)
    corr = (w8.sum(axis=(1, 2, 3)) * zero).astype(F32)
    b = np.zeros(w.shape[0], F32) if bias is None else bias
    bias_q = (b - (corr / s).astype(F32)).astype(F32)
    sums = integer_sums(u, w8, zero, stride, dilation, pad, group, mode)
    y = (sums.astype(F32) * norm.reshape(1, -1, 1, 1)).astype(F32) + bias_q.reshape(1, -1, 1, 1)
    return activate(y, activation, params if params is not None else ()).astype(F32)


def weight_to(w, fmt):
    return w if fmt == "nchw" else np.ascontiguousarray(w.transpose(2, 3, 1, 0))


def layer_data(kw):
    """Weights, bias, params, an input whose channels have different ranges, and its
    statistics (per channel min/max of the input; of the FP32 output for the output ones)."""
    stride, dilation, pad, group = geometry(kw)
    k = kw["kernel"] if isinstance(kw["kernel"], tuple) else (kw["kernel"],) * 2
    w = RNG.uniform(-1, 1, (kw["dst_c"], kw["src_c"] // group, *k)).astype(F32)
    bias = RNG.uniform(-1, 1, kw["dst_c"]).astype(F32)
    x = (RNG.uniform(-1, 1, (kw.get("batch", 1), kw["src_c"], kw["src_h"], kw["src_w"])) *
         RNG.uniform(0.2, 3, (1, kw["src_c"], 1, 1))).astype(F32)
    params = params_for(kw)
    y = activate(convolution(x, w, bias, stride, dilation, pad, group),
                 kw.get("activation", "identity"), params if params is not None else ())
    stats = [x.min(axis=(0, 2, 3)), x.max(axis=(0, 2, 3)), y.min(axis=(0, 2, 3)),
             y.max(axis=(0, 2, 3))]
    return w, bias, params, x, y, [np.asarray(a, F32) for a in stats]


@pytest.mark.parametrize("mode", list(RANGES))
@pytest.mark.parametrize("kw", LAYERS)
def test_uint8_input_matches_the_reference(kw, mode):
    fmt, activation = kw["format"], kw.get("activation", "identity")
    w, bias, params, x, _, stats = layer_data(kw)
    scale, zero, _ = quantizer(stats[0], stats[1], mode)
    u = quantize(x, scale, zero, mode)
    expected = reference8i(u, w, bias, params, stats, kw, mode, activation)
    with ss.Convolution8i(**kw, src_type="uint8", compatibility=mode) as c:
        c.set_params(weight_to(w, fmt), bias, params, stats=stats)
        y = to_nchw(c.forward(nchw_to(u, fmt)), fmt)
    assert y.dtype == np.float32
    if activation in ("identity", "relu", "prelu", "restrict_range"):
        # §11: no FMA; these activations in float64 round to the FP32 result.
        np.testing.assert_array_equal(y, expected)
    else:
        # hswish's FP32 steps (§3.1) differ from the float64 reference by an ulp or two.
        np.testing.assert_allclose(y, expected, rtol=3e-7, atol=1e-7)


def test_overflow_mode_saturates_pairs():
    """Inputs at 255 and equal weights at 127: each pair of channels sums to 64770, saturated
    to 32767 in INT8_OVERFLOW; the odd last channel is added alone."""
    kw = dict(src_c=5, src_h=2, src_w=3, dst_c=2, kernel=1, format="nhwc")
    w = np.ones((2, 5, 1, 1), F32)
    stats = [np.zeros(5, F32), np.ones(5, F32)]
    u = np.full((1, 5, 2, 3), 255, np.uint8)
    results = {}
    for mode in (0, ss.Compatibility.INT8_OVERFLOW):
        expected = reference8i(u, w, None, None, stats, kw, mode, "identity")
        with ss.Convolution8i(**kw, src_type="uint8", compatibility=mode) as c:
            c.set_params(weight_to(w, "nhwc"), stats=stats + [None, None])
            results[mode] = to_nchw(c.forward(nchw_to(u, "nhwc")), "nhwc")
        np.testing.assert_array_equal(results[mode], expected)
    norm = F32(1) / (F32(127) / (F32(1) / F32(255)))
    np.testing.assert_array_equal(results[ss.Compatibility.INT8_OVERFLOW],
                                  F32(2 * 32767 + 255 * 127) * norm)
    assert (results[0] > results[ss.Compatibility.INT8_OVERFLOW]).all()


@pytest.mark.parametrize("kw", LAYERS)
def test_float_input_and_uint8_output_are_the_library_quantization(kw):
    """src float32 == convert_32f_to_8u(src) through a uint8-input context; dst uint8 ==
    convert_32f_to_8u of the float32 output with the output statistics' quantizer."""
    fmt = kw["format"]
    w, bias, params, x, _, stats = layer_data(kw)
    scale, zero, _ = quantizer(stats[0], stats[1], 0)
    out_scale, out_zero, _ = quantizer(stats[2], stats[3], 0)
    src = nchw_to(x, fmt)
    u = ss.convert_32f_to_8u(src, scale, np.full_like(scale, zero), fmt)
    np.testing.assert_array_equal(u, nchw_to(quantize(x, scale, zero, 0), fmt))
    outputs = {}
    for src_type in ("float32", "uint8"):
        for dst_type in ("float32", "uint8"):
            with ss.Convolution8i(**kw, src_type=src_type, dst_type=dst_type) as c:
                c.set_params(weight_to(w, fmt), bias, params, stats=stats)
                y = c.forward(src if src_type == "float32" else u)
                assert y.dtype == (np.uint8 if dst_type == "uint8" else np.float32)
                assert y.shape == c.dst_shape
                outputs[src_type, dst_type] = y
    np.testing.assert_array_equal(outputs["float32", "float32"], outputs["uint8", "float32"])
    np.testing.assert_array_equal(outputs["float32", "uint8"], outputs["uint8", "uint8"])
    expected = ss.convert_32f_to_8u(outputs["uint8", "float32"], out_scale,
                                    np.full_like(out_scale, out_zero), fmt)
    np.testing.assert_array_equal(outputs["uint8", "uint8"], expected)


@pytest.mark.parametrize("mode", [0, ss.Compatibility.INT8_NARROWED])
@pytest.mark.parametrize("kw", LAYERS)
def test_agrees_with_float32_within_the_quantization_steps(kw, mode):
    """With u - z = x/q + d (|d| <= 1/2, no clamping: the statistics cover x) and
    w8/s = w*q + e (|e| <= 1/(2s)), the output before the activation differs from the FP32 one
    by sum(w*q*d + e*x/q + e*d) over the window, bounded by sum(|w|*q/2 + |x|/(2*s*q) +
    1/(4*s)); the activations used are 1-Lipschitz (prelu slopes <= 0.5, hswish's slope
    reaches 1.5)."""
    fmt, activation = kw["format"], kw.get("activation", "identity")
    stride, dilation, pad, group = geometry(kw)
    w, bias, params, x, _, stats = layer_data(kw)
    _, _, q = quantizer(stats[0], stats[1], mode)
    _, _, s = quantize_weights(w, q, group, mode)
    plain = convolution(x, w, bias, stride, dilation, pad, group)
    expected = activate(plain, activation, params if params is not None else ())
    qs = q.astype(np.float64).reshape(1, -1, 1, 1)
    ones = np.ones_like(x, dtype=np.float64)
    bound = (convolution(ones * qs / 2, np.abs(w), None, stride, dilation, pad, group) +
             convolution(np.abs(x) / qs, np.ones_like(w), None, stride, dilation, pad, group) /
             (2 * s.reshape(1, -1, 1, 1)) +
             convolution(ones, np.ones_like(w), None, stride, dilation, pad, group) /
             (4 * s.reshape(1, -1, 1, 1)))
    lipschitz = 1.5 if activation == "hswish" else 1.0
    with ss.Convolution8i(**kw, compatibility=mode) as c:
        c.set_params(weight_to(w, fmt), bias, params, stats=stats)
        y = to_nchw(c.forward(nchw_to(x, fmt)), fmt)
        c32 = ss.Convolution32f(**kw)
        c32.set_params(weight_to(w, fmt), bias, params)
        y32 = to_nchw(c32.forward(nchw_to(x, fmt)), fmt)
    error = np.abs(y - expected)
    assert (error <= lipschitz * bound * (1 + 1e-5) + 1e-5).all(), float((error / bound).max())
    # The bound is not vacuous: the INT8 error is a small fraction of the range of the sums,
    # and the FP32 context is far closer.
    assert error.max() < 0.02 * np.abs(plain).max()
    assert np.abs(y32 - expected).max() < 0.01 * error.max() + 1e-5


def small(**extra):
    return ss.Convolution8i(src_c=2, src_h=4, src_w=4, dst_c=3, kernel=3, pad=1, **extra)


STATS = [[-1.0, 0.0], [1.0, 2.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]


def test_errors_carry_the_library_messages():
    with pytest.raises(ss.Error, match="SimdSynetConvolution8iInit: srcT is neither 32f nor 8u"):
        small(src_type="bf16")
    with pytest.raises(ss.Error, match="SimdSynetConvolution8iInit: dstT is neither"):
        small(dst_type="bf16")
    with pytest.raises(ss.Error, match="SimdSynetConvolution8iInit: group does not divide"):
        ss.Convolution8i(src_c=4, src_h=4, src_w=4, dst_c=6, kernel=3, group=3)
    w = RNG.uniform(-1, 1, (3, 2, 3, 3)).astype(F32)
    with small(dst_type="uint8") as c:
        with pytest.raises(ss.Error, match="SetParams was not called"):
            c.forward(np.zeros((1, 2, 4, 4), F32))
        with pytest.raises(ss.Error, match="stats or one of the arrays it needs is NULL"):
            c.set_params(w, stats=STATS[:2] + [None, None])
        with pytest.raises(ss.Error, match=r"stats\[0\]\[1\] is not <= stats\[1\]\[1\]"):
            c.set_params(w, stats=[[-1.0, 3.0], [1.0, 2.0]] + STATS[2:])
        with pytest.raises(ss.Error, match=r"stats\[2\]\[0\] is not <= stats\[3\]\[0\]"):
            c.set_params(w, stats=STATS[:2] + [[2.0, 0, 0], [1.0, 1, 1]])
        with pytest.raises(ValueError, match=r"stats\[2\] must hold 3 values"):
            c.set_params(w, stats=STATS[:2] + [[0.0], [1.0]])
        with pytest.raises(TypeError, match="stats must be a sequence of 4"):
            c.set_params(w, stats=STATS[:2])
        with pytest.raises(TypeError):
            c.set_params(w)  # stats is required
        with pytest.raises(ValueError, match=r"weight must have shape \(3, 2, 3, 3\)"):
            c.set_params(np.ascontiguousarray(w[:, :, :2]), stats=STATS)
        c.set_params(w, stats=STATS)
        with pytest.raises(TypeError, match="src must have dtype float32"):
            c.forward(np.zeros((1, 2, 4, 4), np.uint8))
        with pytest.raises(ValueError, match=r"src must have shape \(1, 2, 4, 4\)"):
            c.forward(np.zeros((1, 4, 4, 2), F32))
        with pytest.raises(TypeError, match="out must have dtype uint8"):
            c.forward(np.zeros((1, 2, 4, 4), F32), out=np.zeros((1, 3, 4, 4), F32))
        with pytest.raises(TypeError, match="buf must have dtype uint8"):
            c.forward(np.zeros((1, 2, 4, 4), F32), buf=np.zeros(4096, F32))
    with small(src_type="uint8") as c:
        c.set_params(w, stats=STATS[:2] + [None, None])  # float32 output: no output stats
        with pytest.raises(TypeError, match="src must have dtype uint8"):
            c.forward(np.zeros((1, 2, 4, 4), F32))


def test_life_cycle_buffers_and_info():
    w = RNG.uniform(-1, 1, (3, 2, 3, 3)).astype(F32)
    x = RNG.uniform(-1, 1, (1, 2, 4, 4)).astype(F32)
    with small(format="nhwc") as c:
        c.set_params(weight_to(w, "nhwc"), stats=STATS)
        y = c.forward(nchw_to(x, "nhwc"))
        buf = np.empty(c.external_buffer_size, np.uint8)  # bytes
        np.testing.assert_array_equal(c.forward(nchw_to(x, "nhwc"), buf=buf), y)
        if c.external_buffer_size > 1:
            with pytest.raises(ValueError, match="buf holds"):
                c.forward(nchw_to(x, "nhwc"), buf=buf[:-1])
        assert c.internal_buffer_size >= w.size  # bytes: at least the INT8 weights
        assert "::" in c.info()
        assert "Convolution8i" in repr(c) and c.parameters["src_type"] == ss.TensorData.FLOAT32
    assert c.closed
    with pytest.raises(ValueError, match="closed"):
        c.forward(nchw_to(x, "nhwc"))
    assert "stats" in ss.Convolution8i.set_params.__doc__
