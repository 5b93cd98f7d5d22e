"""The Winograd transforms (§12), end to end against a direct convolution, both layouts."""

import numpy as np
import pytest

import simdsynet as ss
from reference import assert_tol, convolution

RNG = np.random.default_rng(8)

# name, kernel, pads (top, left, bottom, right) inside the portable set of §12.3
VARIANTS = [
    ("kernel1x3_block1x4", (1, 3), (0, 1, 0, 1)),
    ("kernel1x5_block1x4", (1, 5), (0, 2, 0, 2)),
    ("kernel2x2_block2x2", (2, 2), (0, 0, 1, 1)),
    ("kernel2x2_block4x4", (2, 2), (1, 1, 0, 0)),
    ("kernel3x3_block2x2", (3, 3), (1, 1, 1, 1)),
    ("kernel3x3_block3x3", (3, 3), (0, 0, 0, 0)),
    ("kernel3x3_block4x4", (3, 3), (1, 0, 0, 1)),
]


@pytest.mark.parametrize("name,kernel,pad", VARIANTS)
@pytest.mark.parametrize("trans", [False, True])
def test_pipeline(name, kernel, pad, trans):
    set_filter, set_input, set_output = (getattr(ss, f"winograd_{name}_{step}")
                                         for step in ("set_filter", "set_input", "set_output"))
    src_c, dst_c, h, w = 3, 4, 7, 10
    x = RNG.uniform(-1, 1, (src_c, h, w)).astype(np.float32)
    f = RNG.uniform(-1, 1, (dst_c, src_c) + kernel).astype(np.float32)
    out_h = pad[0] + h + pad[2] - kernel[0] + 1
    out_w = pad[1] + w + pad[3] - kernel[1] + 1
    expected = convolution(x[None], f, None, (1, 1), (1, 1), pad, 1)[0]
    if not trans:
        u = set_filter(f)
        v = set_input(x, pad)
        y = set_output(np.matmul(u, v), out_h, out_w)
    else:
        u = set_filter(np.ascontiguousarray(f.transpose(2, 3, 1, 0)), True)
        v = set_input(np.ascontiguousarray(x.transpose(1, 2, 0)), pad, True)
        y = set_output(np.matmul(v, u), out_h, out_w, True).transpose(2, 0, 1)
    assert_tol(y, expected, 1e-3, 1)


def test_planes_apart():
    set_input = ss.winograd_kernel3x3_block2x2_set_input
    x = RNG.uniform(-1, 1, (2, 6, 6)).astype(np.float32)
    packed = set_input(x, 1)
    count, c, t = packed.shape
    big = np.full((count, c * t + 5), 7.0, np.float32)
    planes = big[:, :c * t].reshape(count, c, t)
    assert set_input(x, 1, out=planes) is planes
    np.testing.assert_array_equal(planes, packed)
    assert (big[:, c * t:] == 7.0).all()  # the gaps between planes are not written
    y = ss.winograd_kernel3x3_block2x2_set_output(planes, 6, 6)
    np.testing.assert_array_equal(y, ss.winograd_kernel3x3_block2x2_set_output(packed, 6, 6))
    with pytest.raises(ValueError, match="C-contiguous planes"):
        set_input(x, 1, out=np.empty((count, t, c), np.float32).transpose(0, 2, 1))


def test_contract():
    with pytest.raises(ValueError, match="\\(dstC, srcC, 3, 3\\)"):
        ss.winograd_kernel3x3_block4x4_set_filter(np.zeros((2, 2, 2, 2), np.float32))
    with pytest.raises(ValueError, match="\\(C, H, W\\)"):
        ss.winograd_kernel3x3_block4x4_set_input(np.zeros((1, 2, 5, 5), np.float32))
    with pytest.raises(ValueError, match="shape"):
        ss.winograd_kernel3x3_block4x4_set_output(np.zeros((36, 2, 3), np.float32), 8, 8)
    with pytest.raises(ValueError, match="pad must have 4 values"):
        ss.winograd_kernel3x3_block4x4_set_input(np.zeros((1, 5, 5), np.float32), (1, 1, 1))
