"""NaN in, NaN out, as in PyTorch: a NaN pixel in one image of a batch makes NaN exactly the
outputs PyTorch makes NaN (the whole row of that image for the classifiers) and leaves the
other images' outputs as they were. ReLU, clamps, max pooling and element-wise max/min all
propagate it (SimdSynet.h)."""

import io
import warnings

import numpy as np
import pytest

from onnx_targets import TOLERANCE

zoo = pytest.importorskip("zoo", reason="python3-torch and python3-torchvision are needed")
torch = pytest.importorskip("torch")
nn = torch.nn

import simdsynet.onnx  # noqa: E402

BATCH, SIZE = 4, 32


def nan_input(shape, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    x[0, 0, shape[2] // 2, shape[3] // 3] = np.nan
    return x


def compare(actual, expected):
    """Same NaN positions; the numbers within the model tests' tolerance."""
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    finite = ~np.isnan(expected)
    scale = float(np.abs(expected[finite]).max())
    assert float(np.abs(actual[finite] - expected[finite]).max()) <= TOLERANCE * scale


# resnet18: ReLU fused into convolutions, max pooling, residual Add + ReLU; mobilenet_v2: ReLU6
# (a clamp) in merged depthwise convolutions; mobilenet_v3_large: hard swish, hard sigmoid,
# squeeze-excitation; squeezenet1_1: ceil-mode max pooling and Concat.
@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "mobilenet_v3_large",
                                  "squeezenet1_1"])
def test_architecture_row_of_a_nan_image_is_nan(name):
    path, _ = zoo.export(name, SIZE, batch=BATCH)
    x = nan_input((BATCH, 3, SIZE, SIZE), 11)
    with torch.no_grad():
        expected = zoo.architecture(name, SIZE)(torch.from_numpy(x)).numpy()
    assert np.isnan(expected[0]).all() and not np.isnan(expected[1:]).any()
    (actual,) = simdsynet.onnx.load(path).run(x)
    compare(actual, expected)


class PiecewiseLinear(nn.Module):
    """Every max/min-shaped operator on pointwise layers, so that the NaN pattern of the output
    is that of the input, pixel for pixel (a spatial convolution could take a Winograd path,
    which may spread a NaN over its tile: SimdSynet.h)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 1)
        self.b = nn.Conv2d(8, 8, 1)
        self.prelu = nn.PReLU(8)

    def forward(self, x):
        y = torch.relu(self.a(x))
        z = torch.clamp(self.b(y), -0.5, 0.5)
        m = torch.maximum(y, z) + torch.minimum(y, -z)
        m = nn.functional.leaky_relu(m, 0.1) + nn.functional.hardsigmoid(m)
        m = self.prelu(nn.functional.hardswish(m))
        return nn.functional.max_pool2d(m, 3, 2, 1), nn.functional.relu6(m)


def test_piecewise_linear_operators_keep_nan_in_place(tmp_path):
    torch.manual_seed(3)
    model = PiecewiseLinear().eval()
    x = nan_input((2, 3, 9, 12), 12)
    x[1, 2, 0, 0] = np.nan  # a corner, and the last channel
    with torch.no_grad():
        expected = [y.numpy() for y in model(torch.from_numpy(x))]
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, torch.from_numpy(np.nan_to_num(x)), buffer, opset_version=13,
                          input_names=["input"], output_names=["pooled", "clamped"])
    path = tmp_path / "piecewise.onnx"
    path.write_bytes(buffer.getvalue())
    actual = simdsynet.onnx.load(str(path)).run(x)
    for a, e in zip(actual, expected):
        assert np.isnan(e).any()
        compare(a, e)
