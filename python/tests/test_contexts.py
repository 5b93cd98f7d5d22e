"""Convolution, deconvolution (FP32, BF16) and merged-convolution contexts (§8-§10): results
against direct references, and the life cycle: context manager, close, errors, buffers,
threads."""

import threading

import numpy as np
import pytest

import simdsynet as ss
from reference import (activate, assert_tol, convolution, deconvolution, from_bf16, nchw_to,
                       to_bf16, to_nchw)

RNG = np.random.default_rng(9)

PARAMS = {"identity": None, "relu": None, "leaky_relu": [0.1], "restrict_range": [-0.5, 0.7],
          "prelu": "per-channel", "elu": [0.8], "hswish": [3.0, 1 / 6], "mish": [20.0],
          "hard_sigmoid": [0.2, 0.5], "swish": [1.3], "gelu": None}


def params_for(activation, dst_c):
    p = PARAMS[activation]
    return RNG.uniform(0, 0.5, dst_c).astype(np.float32) if p == "per-channel" else p


def uniform(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def conv_weight_to(w, fmt):
    """(D, C/g, KY, KX) OIYX -> the context's layout."""
    return w if fmt == "nchw" else np.ascontiguousarray(w.transpose(2, 3, 1, 0))


CONVOLUTIONS = [
    dict(src_c=4, src_h=7, src_w=9, dst_c=6, kernel=(3, 2), stride=(2, 1), dilation=(1, 2),
         pad=(1, 0, 2, 1), group=2, format="nchw", activation="leaky_relu", batch=2),
    dict(src_c=5, src_h=6, src_w=6, dst_c=5, kernel=3, pad=1, group=5, format="nhwc",
         activation="prelu"),
    dict(src_c=3, src_h=5, src_w=4, dst_c=7, kernel=1, format="nhwc", activation="hswish",
         batch=3),
    dict(src_c=3, src_h=8, src_w=8, dst_c=16, kernel=3, stride=2, pad=(0, 1), format="nchw",
         activation="elu"),
]


def normalize(kw):
    pair = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    pad = kw.get("pad", 0)
    pad = (pad,) * 4 if isinstance(pad, int) else (pad * 2 if len(pad) == 2 else tuple(pad))
    return (pair(kw.get("stride", 1)), pair(kw.get("dilation", 1)), pad, kw.get("group", 1),
            pair(kw["kernel"]))


@pytest.mark.parametrize("kw", CONVOLUTIONS)
@pytest.mark.parametrize("gemm", [None, ss.gemm32f_nn])
def test_convolution(kw, gemm):
    stride, dilation, pad, group, kernel = normalize(kw)
    fmt, batch = kw["format"], kw.get("batch", 1)
    w = uniform(kw["dst_c"], kw["src_c"] // group, *kernel)
    bias = uniform(kw["dst_c"])
    p = params_for(kw["activation"], kw["dst_c"])
    x = uniform(batch, kw["src_c"], kw["src_h"], kw["src_w"])
    expected = activate(convolution(x, w, bias, stride, dilation, pad, group), kw["activation"],
                        p if p is not None else ())
    with ss.Convolution32f(**kw, gemm=gemm) as c:
        assert c.src_shape == nchw_to(x, fmt).shape
        assert c.dst_shape == nchw_to(expected, fmt).shape
        assert c.parameters["dst_h"] == expected.shape[2]
        c.set_params(conv_weight_to(w, fmt), bias, p)
        y = c.forward(nchw_to(x, fmt))
        assert_tol(to_nchw(y, fmt), expected, 1e-4, 1)
        assert "::" in c.info()


@pytest.mark.parametrize("kw", CONVOLUTIONS)
@pytest.mark.parametrize("activation", ["relu", "identity", None])
def test_convolution_forward_add(kw, activation):
    """forward_add: the residual joins the sum before the activation (None: the shape's own)."""
    kw = dict(kw, activation=activation or kw["activation"])
    stride, dilation, pad, group, kernel = normalize(kw)
    fmt, batch = kw["format"], kw.get("batch", 1)
    w, bias = uniform(kw["dst_c"], kw["src_c"] // group, *kernel), uniform(kw["dst_c"])
    p = params_for(kw["activation"], kw["dst_c"])
    x = uniform(batch, kw["src_c"], kw["src_h"], kw["src_w"])
    plain = convolution(x, w, bias, stride, dilation, pad, group)
    r = uniform(*plain.shape)
    expected = activate(plain + r, kw["activation"], p if p is not None else ())
    with ss.Convolution32f(**kw) as c:
        c.set_params(conv_weight_to(w, fmt), bias, p)
        add = nchw_to(r, fmt)
        kept = add.copy()
        y = c.forward_add(nchw_to(x, fmt), add)
        assert_tol(to_nchw(y, fmt), expected, 1e-4, 1)
        np.testing.assert_array_equal(add, kept)
        out = np.empty(c.dst_shape, np.float32)
        buf = np.empty(c.external_buffer_size, np.float32)
        assert c.forward_add(nchw_to(x, fmt), add, out=out, buf=buf) is out
        np.testing.assert_array_equal(out, y)
        with pytest.raises(ValueError, match="add must have shape"):
            c.forward_add(nchw_to(x, fmt), np.ascontiguousarray(add[:, :1]))
        with pytest.raises(ValueError, match="out must not overlap add"):
            c.forward_add(nchw_to(x, fmt), add, out=add)


@pytest.mark.parametrize("activation", list(PARAMS))
def test_every_activation(activation):
    kw = dict(src_c=3, src_h=4, src_w=5, dst_c=4, kernel=3, pad=1, activation=activation)
    w, bias, x = uniform(4, 3, 3, 3), uniform(4), uniform(1, 3, 4, 5) * 3
    p = params_for(activation, 4)
    with ss.Convolution32f(**kw) as c:
        c.set_params(w, bias, p)
        expected = activate(convolution(x, w, bias, (1, 1), (1, 1), (1, 1, 1, 1), 1), activation,
                            p if p is not None else ())
        assert_tol(c.forward(x), expected, 1e-4, 1)


DECONVOLUTIONS = [
    dict(src_c=4, src_h=5, src_w=4, dst_c=6, kernel=3, stride=2, pad=(1, 1, 0, 0), group=2,
         format="nchw", activation="relu", batch=2),
    dict(src_c=3, src_h=4, src_w=6, dst_c=5, kernel=(2, 3), stride=(2, 1), dilation=(1, 2),
         pad=(0, 1, 1, 0), format="nhwc", activation="restrict_range"),
]


def deconv_weight_to(w, fmt):
    """(C, D/g, KY, KX) -> the context's layout."""
    return w if fmt == "nchw" else np.ascontiguousarray(w.transpose(0, 2, 3, 1))


@pytest.mark.parametrize("kw", DECONVOLUTIONS)
def test_deconvolution(kw):
    stride, dilation, pad, group, kernel = normalize(kw)
    fmt, batch = kw["format"], kw.get("batch", 1)
    w = uniform(kw["src_c"], kw["dst_c"] // group, *kernel)
    bias = uniform(kw["dst_c"])
    p = params_for(kw["activation"], kw["dst_c"])
    x = uniform(batch, kw["src_c"], kw["src_h"], kw["src_w"])
    full = deconvolution(x, w, bias, stride, dilation, pad, group)
    expected = activate(full, kw["activation"], p if p is not None else ())
    with ss.Deconvolution32f(**kw) as d:
        d.set_params(deconv_weight_to(w, fmt), bias, p)
        assert_tol(to_nchw(d.forward(nchw_to(x, fmt)), fmt), expected, 1e-4, 1)
    for src_type in ("float32", "bf16"):
        for dst_type in ("float32", "bf16"):
            with ss.Deconvolution16b(**kw, src_type=src_type, dst_type=dst_type) as d:
                d.set_params(deconv_weight_to(w, fmt), bias, p)
                src = nchw_to(x, fmt)
                y = d.forward(to_bf16(src) if src_type == "bf16" else src)
                assert y.dtype == (np.uint16 if dst_type == "bf16" else np.float32)
                xb, wb = from_bf16(to_bf16(x)), from_bf16(to_bf16(w))
                ref = activate(deconvolution(xb, wb, bias, stride, dilation, pad, group),
                               kw["activation"], p if p is not None else ())
                got = to_nchw(from_bf16(y) if dst_type == "bf16" else y, fmt)
                assert_tol(got, ref, 8e-3 if dst_type == "bf16" else 1e-4, 1)


def test_merged_convolution():
    src_c, h, w = 4, 8, 8
    x = uniform(2, src_c, h, w)
    wp, wd, wq = uniform(1, 1, 4, 8), uniform(3, 3, 1, 8), uniform(1, 1, 8, 4)
    bp, bq = uniform(8), uniform(4)
    convs = [dict(src_c=src_c, src_h=h, src_w=w, dst_c=8, kernel=1, activation="relu"),
             dict(dst_c=8, kernel=3, pad=1, group=8, activation="restrict_range"),
             dict(dst_c=4, kernel=1)]
    with ss.MergedConvolution32f(convs, add=True, batch=2) as m:
        assert m.src_shape == (2, h, w, src_c) and m.dst_shape == (2, h, w, 4)
        assert len(m.parameters) == 3 and m.parameters[1]["src_c"] == 8
        m.set_params([wp, wd, wq], [bp, None, bq], [None, [0.0, 6.0], None])
        y = m.forward(nchw_to(x, "nhwc"))
    nchw = lambda w: w.transpose(3, 2, 0, 1)
    t = activate(convolution(x, nchw(wp), bp, (1, 1), (1, 1), (0,) * 4, 1), "relu")
    t = activate(convolution(t, nchw(wd), None, (1, 1), (1, 1), (1,) * 4,
                             8), "restrict_range", [0.0, 6.0])
    t = convolution(t, nchw(wq), bq, (1, 1), (1, 1), (0,) * 4, 1) + x
    assert_tol(to_nchw(y, "nhwc"), t, 1e-4, 1)


def test_merged_two_convolutions():
    convs = [dict(src_c=3, src_h=9, src_w=9, dst_c=6, kernel=3, pad=1),
             dict(dst_c=6, kernel=5, stride=2, pad=2, group=6)]
    with ss.MergedConvolution32f(convs) as m:
        m.set_params([uniform(3, 3, 3, 6), uniform(5, 5, 1, 6)])
        assert m.forward(uniform(1, 9, 9, 3)).shape == (1, 5, 5, 6)
    with pytest.raises(ss.Error, match="convs\\[1\\]"):
        ss.MergedConvolution32f([convs[0], dict(dst_c=6, kernel=4, group=6)])
    with pytest.raises(TypeError, match="unexpected keyword 'kernal'"):
        ss.MergedConvolution32f([convs[0], dict(dst_c=6, kernal=3)])
    with pytest.raises(ValueError, match="weights must hold 2"):
        with ss.MergedConvolution32f(convs) as m:
            m.set_params([uniform(3, 3, 3, 6)])


def small():
    return ss.Convolution32f(src_c=2, src_h=4, src_w=4, dst_c=3, kernel=3, pad=1)


def test_life_cycle():
    w, x = uniform(3, 2, 3, 3), uniform(1, 2, 4, 4)
    with small() as c:
        assert not c.closed
        with pytest.raises(ss.Error, match="SetParams was not called"):
            c.forward(x)
        c.set_params(w)
        y = c.forward(x)
        assert "Convolution32f" in repr(c)
    assert c.closed
    assert "closed" in repr(c)
    for use in (lambda: c.forward(x), c.info, lambda: c.set_params(w),
                lambda: c.external_buffer_size):
        with pytest.raises(ValueError, match="closed"):
            use()
    c.close()  # again: nothing
    c = small()
    c.set_params(w)
    np.testing.assert_array_equal(c.forward(x), y)
    c.close()
    assert c.closed


def test_init_errors():
    with pytest.raises(ss.Error, match="SimdSynetConvolution32fInit: group does not divide"):
        ss.Convolution32f(src_c=4, src_h=4, src_w=4, dst_c=6, kernel=3, group=3)
    with pytest.raises(ss.Error, match="SimdSynetConvolution32fInit"):
        ss.Convolution32f(src_c=4, src_h=2, src_w=2, dst_c=6, kernel=3)  # no output
    with pytest.raises(ss.Error, match="group must be 1 for Nhwc"):
        ss.Deconvolution32f(src_c=4, src_h=2, src_w=2, dst_c=4, kernel=2, group=2, format="nhwc")
    with pytest.raises(ss.Error, match="srcT is not 32f or 16b"):
        ss.Deconvolution16b(src_c=4, src_h=2, src_w=2, dst_c=4, kernel=2, src_type="uint8")
    with pytest.raises(TypeError, match="gemm must be None"):
        ss.Convolution32f(src_c=2, src_h=4, src_w=4, dst_c=3, kernel=3, gemm=lambda *a: None)
    with pytest.raises(TypeError):
        ss.Convolution32f(2, 4, 4, 3, 3)  # keywords only
    with pytest.raises(ValueError, match="not a Activation"):
        ss.Convolution32f(src_c=2, src_h=4, src_w=4, dst_c=3, kernel=3, activation="relu7")


def test_set_params_and_forward_contract():
    with ss.Convolution32f(src_c=2, src_h=4, src_w=4, dst_c=3, kernel=3,
                           activation="leaky_relu") as c:
        with pytest.raises(ValueError, match="weight must have shape \\(3, 2, 3, 3\\)"):
            c.set_params(uniform(3, 2, 3, 2))
        with pytest.raises(ss.Error, match="params is NULL"):
            c.set_params(uniform(3, 2, 3, 3))
        with pytest.raises(ValueError, match="params must hold 1 value"):
            c.set_params(uniform(3, 2, 3, 3), None, [0.1, 0.2])
        c.set_params(uniform(3, 2, 3, 3), uniform(3), [0.1])
        with pytest.raises(ValueError, match="src must have shape \\(1, 2, 4, 4\\)"):
            c.forward(uniform(1, 4, 4, 2))
        with pytest.raises(ValueError, match="out must have shape \\(1, 3, 2, 2\\)"):
            c.forward(uniform(1, 2, 4, 4), out=uniform(1, 3, 4, 4))
        x = uniform(1, 2, 4, 4)
        y = c.forward(x)
        buf = np.empty(c.external_buffer_size, np.float32)
        np.testing.assert_array_equal(c.forward(x, buf=buf), y)
        if c.external_buffer_size > 1:
            with pytest.raises(ValueError, match="buf holds"):
                c.forward(x, buf=buf[:-1])
        with pytest.raises(TypeError, match="buf must have dtype float32"):
            c.forward(x, buf=np.empty(100, np.uint8))
        assert c.internal_buffer_size > 0


def test_threads_share_a_context_with_their_own_buffers():
    kw = dict(src_c=8, src_h=12, src_w=12, dst_c=8, kernel=3, pad=1, format="nhwc")
    with ss.Convolution32f(**kw) as c:
        c.set_params(uniform(3, 3, 8, 8))
        inputs = [uniform(1, 12, 12, 8) for _ in range(4)]
        expected = [c.forward(x) for x in inputs]
        results = [None] * 4
        errors = []

        def work(i):
            try:
                buf = np.empty(c.external_buffer_size, np.float32)
                for _ in range(20):
                    results[i] = c.forward(inputs[i], buf=buf if i % 2 else None)
            except Exception as e:  # noqa: BLE001 (reported below)
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        for r, e in zip(results, expected):
            np.testing.assert_array_equal(r, e)


def test_close_while_another_thread_runs():
    kw = dict(src_c=16, src_h=32, src_w=32, dst_c=16, kernel=3, pad=1)
    c = ss.Convolution32f(**kw)
    c.set_params(uniform(16, 16, 3, 3))
    x = uniform(1, 16, 32, 32)
    outcomes = []

    def run():
        for _ in range(100000):
            try:
                c.forward(x)
                outcomes.append("ran")
            except ValueError:
                outcomes.append("closed")
                return

    t = threading.Thread(target=run)
    t.start()
    c.close()
    t.join()
    assert c.closed and all(o in ("ran", "closed") for o in outcomes)
    assert outcomes[-1] == "closed"


def test_bf16_buffer_in_bytes():
    with ss.Deconvolution16b(src_c=2, src_h=3, src_w=3, dst_c=2, kernel=2, stride=2,
                             src_type="bf16") as d:
        d.set_params(uniform(2, 2, 2, 2))
        x = to_bf16(uniform(1, 2, 3, 3))
        with pytest.raises(TypeError, match="src must have dtype uint16"):
            d.forward(from_bf16(x))
        y = d.forward(x)
        buf = np.empty(max(d.external_buffer_size, 1), np.uint8)
        np.testing.assert_array_equal(d.forward(x, buf=buf), y)
