"""simdsynet.onnx on the operator forms of segmentation heads, 1-D signals and reductions
(issue 35): bilinear Resize in every coordinate mode, global pooling broadcast back onto the
map, and the rest, in hand-built graphs against references written from the operators'
definitions (checked against PyTorch where PyTorch has the operation) and in small models of
our own exported by PyTorch (models/zoo.py), on every supported target; the forms still refused,
each naming the node."""

import math

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_targets import TOLERANCE, check, supported_targets

import simdsynet.onnx
from simdsynet.onnx import UnsupportedModelError

torch = pytest.importorskip("torch", reason="python3-torch is needed for the references")
F = torch.nn.functional
zoo = pytest.importorskip("zoo", reason="python3-torch is needed for the coverage models")

RNG = np.random.default_rng(35)
TARGETS = ["scalar", "sse4", "avx2", "avx512"]


def model(nodes, inputs, outputs, initializers=(), opset=14):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def uniform(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def ints(*values):
    return np.array(values, np.int64)


def floats(*values):
    return np.array(values, np.float32)


# Hand-built cases: name -> (model, input, expected outputs). Each graph has one input, "input",
# so that models/accuracy.py runs it on every target as it runs the exported models.
CASES = {}


def case(name, nodes, x, expected, initializers=(), opset=14):
    outputs = [f"output{i}" for i in range(len(expected))]
    proto = model(nodes, [("input", x.shape)], outputs, initializers, opset)
    CASES[name] = (proto, x, [np.asarray(e, np.float32) for e in expected])


# ---------------------------------------------------------------------------------------------
# Resize, mode linear.

def linear_matrix(n_in, n_out, scale, transform):
    """The (n_out x n_in) matrix of linear resizing along one axis, from the operator's
    definition: the source coordinate of each output index, clamped to the input (the
    reference implementation pads with the edge values), blended between its two neighbours."""
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        if transform == "align_corners":
            x = o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        elif transform == "asymmetric":
            x = o / scale
        elif transform == "pytorch_half_pixel" and n_out == 1:
            x = 0.0
        elif transform == "half_pixel_symmetric":
            # half_pixel about the input's centre, shifted when n_in * scale is not an integer
            centre_shift = n_in / 2 * (1 - n_out / (scale * n_in))
            x = centre_shift + (o + 0.5) / scale - 0.5
        else:  # half_pixel and pytorch_half_pixel
            x = (o + 0.5) / scale - 0.5
        x = min(max(x, 0.0), n_in - 1)
        i = int(math.floor(x))
        m[o, i] += 1 - (x - i)
        m[o, min(i + 1, n_in - 1)] += x - i
    return m


def resize_linear(x, sizes, scales, transform):
    mh = linear_matrix(x.shape[2], sizes[0], scales[0], transform)
    mw = linear_matrix(x.shape[3], sizes[1], scales[1], transform)
    return np.einsum("oh,nchw,pw->ncop", mh, x.astype(np.float64), mw)


def resize_case(name, x, transform, scales=None, sizes=None, opset=14, op="Resize"):
    n, c, h, w = x.shape
    if sizes is None:
        sizes = [int(math.floor(h * scales[0])), int(math.floor(w * scales[1]))]
        inputs, inits = ["input", "", "scales"], [("scales", floats(1, 1, *scales))]
    else:
        scales = [sizes[0] / h, sizes[1] / w]
        inputs, inits = ["input", "", "", "sizes"], [("sizes", ints(n, c, *sizes))]
    attrs = dict(mode="linear", coordinate_transformation_mode=transform)
    if opset < 11:
        inputs, attrs = ["input", "scales"], dict(mode="linear")
    node = helper.make_node(op, inputs, ["output0"], name=name, **attrs)
    case(name, [node], x, [resize_linear(x, sizes, scales, transform)], inits, opset)


MODES = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"]
for mode in MODES:
    image = uniform(2, 3, 5, 6)
    resize_case(f"resize_{mode}_up_x2", image, mode, scales=[2.0, 2.0])
    resize_case(f"resize_{mode}_down_x0.5", uniform(1, 4, 8, 10), mode, scales=[0.5, 0.5])
    resize_case(f"resize_{mode}_up_non_integer", image, mode, scales=[1.7, 2.3])
    resize_case(f"resize_{mode}_down_non_integer", uniform(1, 3, 9, 11), mode,
                scales=[0.7, 0.45])
    resize_case(f"resize_{mode}_sizes", image, mode, sizes=[11, 4])
    resize_case(f"resize_{mode}_sizes_to_one", image, mode, sizes=[1, 3])
# Many channels (the x loop's vectors) and one channel; a 1x1 map broadcast onto 9x7.
resize_case("resize_half_pixel_19_channels", uniform(1, 19, 4, 5), "half_pixel",
            scales=[2.5, 1.5])
resize_case("resize_align_corners_1_channel", uniform(2, 1, 6, 5), "align_corners",
            sizes=[13, 3])
resize_case("resize_1x1_onto_map", uniform(1, 7, 1, 1), "pytorch_half_pixel", sizes=[9, 7])
# 1-D signals (rank 3): linear and nearest along the one axis, against PyTorch.
signal = uniform(2, 5, 13)
for align, transform in ((False, "pytorch_half_pixel"), (True, "align_corners")):
    for length in (29, 6):
        node = helper.make_node("Resize", ["input", "", "", "sizes"], ["output0"], name="r",
                                mode="linear", coordinate_transformation_mode=transform)
        case(f"resize_1d_{transform}_{length}", [node], signal,
             [F.interpolate(torch.from_numpy(signal), size=length, mode="linear",
                            align_corners=align).numpy()], [("sizes", ints(2, 5, length))])
case("resize_1d_nearest", [helper.make_node("Resize", ["input", "", "scales"], ["output0"],
                                            name="r", coordinate_transformation_mode="asymmetric",
                                            nearest_mode="floor")],
     signal, [signal.repeat(3, 2)], [("scales", floats(1, 1, 3))])
# Opset 18's half_pixel_symmetric, where the floored size moves the centre.
resize_case("resize_half_pixel_symmetric_up", uniform(1, 3, 5, 7), "half_pixel_symmetric",
            scales=[1.7, 2.0], opset=18)
resize_case("resize_half_pixel_symmetric_down", uniform(1, 3, 9, 7), "half_pixel_symmetric",
            scales=[0.6, 0.5], opset=18)
# Resize-10 and Upsample-9: no coordinate transformation attribute; theirs is asymmetric.
resize_case("resize_opset10", uniform(1, 2, 4, 5), "asymmetric", scales=[2.0, 1.5], opset=10)
resize_case("upsample_opset9", uniform(1, 2, 4, 5), "asymmetric", scales=[3.0, 2.0], opset=9,
            op="Upsample")


@pytest.mark.parametrize("transform,align", [("pytorch_half_pixel", False),
                                             ("half_pixel", False), ("align_corners", True)])
@pytest.mark.parametrize("sizes", [(11, 13), (3, 4), (7, 3)])
def test_linear_reference_is_pytorchs(transform, align, sizes):
    """The reference above is PyTorch's bilinear interpolation where both define the same thing
    (PyTorch has no asymmetric mode, and for an output of one pixel its half-pixel rule is
    half_pixel, not pytorch_half_pixel, which takes the first pixel there)."""
    x = uniform(2, 3, 5, 6)
    scales = [sizes[0] / 5, sizes[1] / 6]
    expected = F.interpolate(torch.from_numpy(x), size=sizes, mode="bilinear",
                             align_corners=align).numpy()
    np.testing.assert_allclose(resize_linear(x, sizes, scales, transform), expected, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# Pooling: dilated max pooling (2-D and 1-D), pooling and convolutions of rank 3 in forms the
# exported model below does not have.

def torch_of(function, x, *args, **kwargs):
    return function(torch.from_numpy(x), *args, **kwargs).numpy()


def pool_case(name, x, expected, op="MaxPool", **attrs):
    case(name, [helper.make_node(op, ["input"], ["output0"], name=name, **attrs)], x, [expected])


image = uniform(2, 5, 11, 13)
pool_case("maxpool_dilated", image, torch_of(F.max_pool2d, image, 3, 1, 0, 2),
          kernel_shape=[3, 3], dilations=[2, 2])
pool_case("maxpool_dilated_strided_padded", image,
          torch_of(F.max_pool2d, image, (5, 2), (2, 3), (2, 1), (2, 3)),
          kernel_shape=[5, 2], strides=[2, 3], pads=[2, 1, 2, 1], dilations=[2, 3])
pool_case("maxpool_dilated_ceil", image,
          torch_of(F.max_pool2d, image, 2, 2, 1, 3, ceil_mode=True),
          kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], dilations=[3, 3], ceil_mode=1)
signal = uniform(2, 6, 23)
pool_case("maxpool_1d_dilated", signal, torch_of(F.max_pool1d, signal, 3, 2, 1, 4),
          kernel_shape=[3], strides=[2], pads=[1, 1], dilations=[4])
pool_case("averagepool_1d_include_pad", signal,
          torch_of(F.avg_pool1d, signal, 5, 3, 2, count_include_pad=True),
          op="AveragePool", kernel_shape=[5], strides=[3], pads=[2, 2], count_include_pad=1)
pool_case("global_maxpool_1d", signal, signal.max(2, keepdims=True), op="GlobalMaxPool")
weights = uniform(4, 6, 3)
case("conv_1d_same_upper", [helper.make_node("Conv", ["input", "w"], ["output0"], name="conv",
                                             auto_pad="SAME_UPPER", strides=[2])],
     signal, [torch_of(F.conv1d, signal, torch.from_numpy(weights), stride=2, padding=1)],
     [("w", weights)])
case("conv_transpose_1d_output_shape",
     [helper.make_node("ConvTranspose", ["input", "w"], ["output0"], name="deconv",
                       strides=[3], output_shape=[68])],
     signal, [torch_of(F.conv_transpose1d, signal, torch.from_numpy(weights.transpose(1, 0, 2)),
                       stride=3)[:, :, :68]], [("w", weights.transpose(1, 0, 2).copy())])


# ---------------------------------------------------------------------------------------------
# LogSoftmax, reductions, PRelu with trailing slopes, Pow, Expand and Tile.

def log_softmax(x, axis):
    t = torch.from_numpy(x)
    return torch.log_softmax(t, axis).numpy()


def one_node(name, op, x, expected, inits=(), opset=14, **attrs):
    inputs = ["input"] + [n for n, _ in inits]
    case(name, [helper.make_node(op, inputs, ["output0"], name=name, **attrs)], x, [expected],
         inits, opset)


image = uniform(2, 6, 5, 7)
logits = (uniform(3, 40) * 60).astype(np.float32)  # exp underflows far from the maximum
one_node("log_softmax_channels", "LogSoftmax", image, log_softmax(image, 1), axis=1)
one_node("log_softmax_last", "LogSoftmax", image, log_softmax(image, -1), axis=-1)
one_node("log_softmax_wide_logits", "LogSoftmax", logits, log_softmax(logits, 1), axis=1)
one_node("log_softmax_opset11_flattens", "LogSoftmax", image,
         log_softmax(image.reshape(2, -1), 1).reshape(image.shape), opset=11, axis=1)

REDUCTIONS = {"ReduceSum": np.sum, "ReduceMean": np.mean, "ReduceMax": np.max,
              "ReduceMin": np.min, "ReduceProd": np.prod,
              "ReduceSumSquare": lambda a, **k: np.sum(a * a, **k),
              "ReduceL1": lambda a, **k: np.sum(np.abs(a), **k),
              "ReduceL2": lambda a, **k: np.sqrt(np.sum(a * a, **k))}
tokens = uniform(2, 9, 16)
for op, reference in REDUCTIONS.items():
    for axes, keep, x in [((1,), 1, image), ((1,), 0, image), ((0, 3), 1, image),
                          ((2, 3), 0, image), ((-1,), 0, tokens), ((0, 1, 2), 0, tokens)]:
        if op == "ReduceProd":
            x = (1 + 0.2 * x).astype(np.float32)  # products of many values near 1
        expected = reference(x.astype(np.float64), axis=axes, keepdims=bool(keep))
        name = f"{op}_{'_'.join(map(str, axes))}_keep{keep}_rank{x.ndim}"
        if op == "ReduceSum":  # axes as an input from opset 13
            one_node(name, op, x, expected, [("axes", ints(*axes))], opset=13, keepdims=keep)
        else:
            one_node(name, op, x, expected, axes=list(axes), keepdims=keep)
one_node("ReduceMean_all_axes", "ReduceMean", image, image.mean(keepdims=True))
one_node("ReduceSum_all_axes_scalar", "ReduceSum", tokens, tokens.sum(), keepdims=0)
one_node("ReduceSum_empty_axes_noop", "ReduceSum", tokens, tokens, [("axes", ints())],
         opset=13, noop_with_empty_axes=1)


def prelu(x, slope):
    return np.where(x > 0, x, x * slope)


for name, x, slope in [("prelu_width", image, uniform(7)), ("prelu_height_width", image,
                                                             uniform(5, 7)),
                       ("prelu_channels_width", image, uniform(6, 1, 7)),
                       ("prelu_tokens", tokens, uniform(16)),
                       ("prelu_rank_4_slope", image, uniform(1, 6, 5, 7))]:
    one_node(name, "PRelu", x, prelu(x, slope), [("slope", slope)])

positive = (0.1 + np.abs(uniform(2, 3, 4, 5))).astype(np.float32)
for name, x, exponent in [("pow_2", image, floats(2)), ("pow_3_int", image, ints(3)),
                          ("pow_half", positive, floats(0.5)), ("pow_one", image, floats(1)),
                          ("pow_minus_1", positive, floats(-1)),
                          ("pow_1.7", positive, floats(1.7)),
                          ("pow_0", image, floats(0)),
                          ("pow_2_per_channel", image, np.full((6, 1, 1), 2, np.float32))]:
    one_node(name, "Pow", x, np.power(x.astype(np.float64), exponent.astype(np.float64)),
             [("exponent", exponent)])

vector = uniform(2, 6, 1, 1)
one_node("expand_pooled_onto_map", "Expand", vector, np.broadcast_to(vector, (2, 6, 5, 7)),
         [("shape", ints(2, 6, 5, 7))])
column = uniform(6, 1)
one_node("expand_adds_axes", "Expand", column, np.broadcast_to(column, (3, 6, 4)),
         [("shape", ints(3, 1, 4))])
one_node("expand_keeps_larger_extents", "Expand", tokens, np.broadcast_to(tokens, (3, 2, 9, 16)),
         [("shape", ints(3, 1, 1, 1))])
one_node("tile_image", "Tile", image, np.tile(image, (1, 2, 3, 2)), [("repeats", ints(1, 2, 3, 2))])
one_node("tile_tokens", "Tile", tokens, np.tile(tokens, (3, 1, 2)), [("repeats", ints(3, 1, 2))])
# DeepLab's image pooling broadcast back by Expand instead of Resize, concatenated with the map.
case("global_pool_expand_concat",
     [helper.make_node("GlobalAveragePool", ["input"], ["pooled"], name="pool"),
      helper.make_node("Relu", ["pooled"], ["act"], name="relu"),
      helper.make_node("Expand", ["act", "shape"], ["broadcast"], name="expand"),
      helper.make_node("Concat", ["input", "broadcast"], ["output0"], name="concat", axis=1)],
     image, [np.concatenate([image, np.broadcast_to(np.maximum(image.mean((2, 3), keepdims=True),
                                                               0), image.shape)], 1)],
     [("shape", ints(*image.shape))])


# ---------------------------------------------------------------------------------------------
# Every case and the coverage models of this file on every target.

MODELS = ["segmentation", "signals"]  # zoo.COVERAGE models exported by PyTorch
DEEPLAB = "deeplabv3_mobilenet_v3_large"


def export_deeplab(size=96):
    """torchvision's deeplabv3_mobilenet_v3_large (issue 35's segmentation network) with random
    weights and BatchNorm statistics, exported at size x size (cached next to the zoo's)."""
    import io
    import os
    import tempfile
    import warnings
    import torchvision
    stem = os.path.join(zoo.default_cache(), f"{DEEPLAB}-{size}-opset{zoo.OPSET}-"
                        f"torch{torch.__version__}-v1")
    paths = stem + ".onnx", stem + ".npz"
    if all(os.path.exists(p) for p in paths):
        return paths
    torch.manual_seed(0)
    net = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, aux_loss=False)
    zoo.randomize_batch_norms(net, torch.Generator().manual_seed(1))
    net = net.eval()
    x = torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        out = net(x)["out"]
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, x, buffer, opset_version=zoo.OPSET, input_names=["input"],
                          output_names=["output0"])
    os.makedirs(zoo.default_cache(), exist_ok=True)
    for path, write in ((paths[1], lambda f: np.savez(f, input=x.numpy(), output0=out.numpy())),
                        (paths[0], lambda f: f.write(buffer.getvalue()))):
        fd, temp = tempfile.mkstemp(dir=zoo.default_cache(), suffix=".part")
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(temp, path)
    return paths


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("operators_more")
    entries = []
    for name, (proto, x, expected) in CASES.items():
        onnx_path, npz_path = folder / f"{name}.onnx", folder / f"{name}.npz"
        onnx_path.write_bytes(proto.SerializeToString())
        np.savez(npz_path, input=x, **{f"output{i}": e for i, e in enumerate(expected)})
        entries.append((name, str(onnx_path), str(npz_path)))
    entries += [(name, *zoo.export(name)) for name in MODELS]
    entries.append((DEEPLAB, *export_deeplab()))
    cache = {}

    def get(target):
        if target not in cache:
            cache[target] = check(target, entries)
        return cache[target]
    return get


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", list(CASES) + MODELS + [DEEPLAB])
def test_matches_reference(results, name, target):
    if target not in supported_targets():
        pytest.skip(f"the CPU has no {target}")
    differences, errors = results(target)
    assert name not in errors, errors.get(name)
    assert max(differences[name]) <= TOLERANCE, differences[name]


@pytest.mark.parametrize("name", list(CASES))
def test_steps_write_only_their_tensors(name):
    """Each case again with guard zones after every tensor and the scratch (the executor checks
    them after each step) and no memory reuse: the same outputs, nothing written outside."""
    proto, x, expected = CASES[name]
    net = simdsynet.onnx.Network(proto.SerializeToString(), guard=64)
    for y, e in zip(net.run(x), expected):
        assert y.shape == e.shape
        assert np.abs(y - e).max() <= TOLERANCE * max(np.abs(e).max(), 1e-30)


def run(proto, x):
    return simdsynet.onnx.load(proto.SerializeToString()).run(x)


def test_resize_linear_spreads_nan_as_pytorch():
    """A NaN reaches every output pixel whose taps include it, a weight of 0 included (PyTorch
    multiplies it too); the other pixels stay finite."""
    x = uniform(1, 2, 4, 4)
    x[0, 1, 1, 2] = np.nan
    node = helper.make_node("Resize", ["input", "", "scales"], ["y"], name="r", mode="linear",
                            coordinate_transformation_mode="pytorch_half_pixel")
    proto = model([node], [("input", x.shape)], ["y"], [("scales", floats(1, 1, 2, 2))])
    y = run(proto, x)[0]
    expected = F.interpolate(torch.from_numpy(x), scale_factor=2, mode="bilinear",
                             align_corners=False).numpy()
    np.testing.assert_array_equal(np.isnan(y), np.isnan(expected))
    assert np.isnan(y[0, 1]).any() and not np.isnan(y[0, 0]).any()


def test_resize_linear_runs_as_one_glue_step():
    proto = model([helper.make_node("Resize", ["input", "", "scales"], ["y"], name="r",
                                    mode="linear")],
                  [("input", (1, 8, 5, 5))], ["y"], [("scales", floats(1, 1, 2, 2))])
    kinds = [s[1] for s in simdsynet.onnx.load(proto.SerializeToString()).steps()]
    assert "resize linear" in kinds


def test_dilated_max_pooling_propagates_nan():
    x = uniform(1, 3, 9, 9)
    x[0, 2, 4, 4] = np.nan
    node = helper.make_node("MaxPool", ["input"], ["y"], name="p", kernel_shape=[3, 3],
                            dilations=[2, 2])
    y = run(model([node], [("input", x.shape)], ["y"]), x)[0]
    expected = torch_of(F.max_pool2d, x, 3, 1, 0, 2)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(expected))
    assert np.isnan(y).sum() == 9  # the 3x3 outputs whose dilated windows hold the NaN


def test_reductions_and_log_softmax_propagate_nan():
    """A NaN makes its ReduceMax/ReduceMin/ReduceSum output NaN and its LogSoftmax row NaN, as
    in PyTorch; the other outputs stay finite."""
    x = uniform(2, 3, 4)
    x[1, 2, 0] = np.nan
    for op, axis in [("ReduceMax", 2), ("ReduceMin", 2), ("ReduceSum", 2), ("ReduceMax", 0)]:
        node = helper.make_node(op, ["input"], ["y"], name="r", axes=[axis], keepdims=0)
        y = run(model([node], [("input", x.shape)], ["y"], opset=11), x)[0]
        expected = getattr(torch, op[6:].lower())(torch.from_numpy(x), axis)
        expected = (expected[0] if isinstance(expected, tuple) else expected).numpy()
        np.testing.assert_array_equal(np.isnan(y), np.isnan(expected))
        assert np.isnan(y).sum() == 1
    node = helper.make_node("LogSoftmax", ["input"], ["y"], name="ls", axis=1)
    y = run(model([node], [("input", x.shape)], ["y"]), x)[0]
    np.testing.assert_array_equal(np.isnan(y), np.isnan(log_softmax(x, 1)))
    assert np.isnan(y[1, :, 0]).all() and np.isnan(y).sum() == 3


def test_image_pooling_broadcast_is_one_tile_step():
    """GlobalAveragePool -> Expand onto the map is the pooling and one tiling step in NHWC: no
    layout conversion between them."""
    proto, _, _ = CASES["expand_pooled_onto_map"]
    kinds = [s[1] for s in simdsynet.onnx.load(proto.SerializeToString()).steps()]
    assert kinds.count("tile") == 1 and kinds.count("layout") <= 1, kinds


def test_signal_chains_stay_images():
    """Conv1d -> BatchNorm1d -> ReLU -> Conv1d runs as convolutions on one NHWC image, the
    BatchNorm and ReLU fused into the first: no scale step, and layout conversions only where
    a chain meets a layer that needs another layout (12 before, one per view)."""
    kinds = [s[1] for s in simdsynet.onnx.load(zoo.export("signals")[0]).steps()]
    assert kinds[:3] == ["layout", "convolution", "convolution"], kinds
    assert not any(k.startswith("scale") or k == "activation" for k in kinds), kinds
    assert kinds.count("layout") <= 5, kinds


class SignalResidual(torch.nn.Module):
    """A 1-D residual block (Conv1d, BatchNorm1d, ReLU, Conv1d, ReLU, Conv1d, Add, ReLU) whose
    input is also read outside the chain."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.a, self.bn = nn.Conv1d(4, 8, 3, padding=1), nn.BatchNorm1d(8)
        self.b, self.c = nn.Conv1d(8, 8, 3, padding=1), nn.Conv1d(8, 8, 5, padding=2)

    def forward(self, x):
        y = F.relu(self.bn(self.a(x)))
        z = F.relu(self.c(F.relu(self.b(y))) + y)
        return [z, z.mean(2), y + 1]


def run_against_torch(block, x):
    """Exports the module, loads it and checks its outputs against PyTorch's; returns the
    network."""
    import io
    import warnings
    with torch.no_grad():
        expected = [t.numpy() for t in block(x)]
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(block, x, buffer, opset_version=zoo.OPSET)
    net = simdsynet.onnx.load(buffer.getvalue())
    for y, e in zip(net.run(x.numpy()), expected):
        assert y.shape == e.shape
        assert np.abs(y - e).max() <= TOLERANCE * np.abs(e).max()
    return net


def test_signal_residuals_stay_images():
    torch.manual_seed(0)
    block = SignalResidual().eval()
    zoo.randomize_batch_norms(block, torch.Generator().manual_seed(1))
    net = run_against_torch(block, torch.randn(2, 4, 17))
    kinds = [s[1] for s in net.steps()]
    assert kinds[:5] == ["layout", "convolution", "layout", "convolution", "convolution+add"], \
        kinds
    assert "eltwise+relu" not in kinds and kinds.count("layout") == 3, kinds


class ResidualBlocks(torch.nn.Module):
    """Residual forms the compiler fuses into the convolution before the Add: a basic block
    whose shortcut is the block's input (Add then ReLU), a downsampling one whose shortcut is a
    strided 1x1 convolution exported after the main branch (so the main branch's last
    convolution moves to the Add), and plain Adds without ReLU, the last one's sum an output."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.a1, self.a2 = nn.Conv2d(8, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)
        self.b1 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.b2, self.down = nn.Conv2d(16, 16, 3, padding=1), nn.Conv2d(8, 16, 1, stride=2)
        self.c, self.d = nn.Conv2d(16, 16, 1), nn.Conv2d(16, 16, 1)

    def forward(self, x):
        y = F.relu(self.a2(F.relu(self.a1(x))) + x)
        z = F.relu(self.b2(F.relu(self.b1(y))) + self.down(y))
        u = self.c(z) + z
        v = self.d(u) + u
        return [v.mean((2, 3)), v]


def test_residual_adds_fuse_into_convolutions():
    torch.manual_seed(3)
    net = run_against_torch(ResidualBlocks().eval(), torch.randn(2, 8, 13, 11))
    kinds = [s[1] for s in net.steps()]
    # Every Add fused (the last sum becomes the convolution's output); no eltwise step left.
    assert kinds.count("convolution+add") == 4, kinds
    assert not any(k.startswith("eltwise") for k in kinds), kinds


# ---------------------------------------------------------------------------------------------
# Refusals left: at load, naming the node and the reason.

def refused(proto, *fragments):
    with pytest.raises(UnsupportedModelError) as info:
        simdsynet.onnx.load(proto.SerializeToString())
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


@pytest.mark.parametrize("attrs,fragments", [
    (dict(mode="cubic"), ["mode cubic", "nearest and linear"]),
    (dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize"),
     ["tf_crop_and_resize"]),
    (dict(mode="linear", coordinate_transformation_mode="tf_half_pixel_for_nn"),
     ["tf_half_pixel_for_nn", "nearest only"]),
    (dict(mode="linear", antialias=1), ["antialias"]),
    (dict(mode="linear", keep_aspect_ratio_policy="not_larger"), ["not_larger"]),
])
def test_refuses_resize_forms(attrs, fragments):
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="the_resize", **attrs)
    proto = model([node], [("x", (1, 3, 4, 4))], ["y"], [("scales", floats(1, 1, 2, 2))],
                  opset=18 if "antialias" in attrs or "keep_aspect_ratio_policy" in attrs
                  else 14)
    refused(proto, "'the_resize'", *fragments)


def test_refuses_a_resize_to_a_huge_tensor():
    """Refused before its index tables are built (they would take the whole output's size)."""
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="the_resize",
                            mode="linear")
    proto = model([node], [("x", (1, 3, 4, 4))], ["y"], [("scales", floats(1, 1, 1e6, 1e6))])
    refused(proto, "'the_resize'", "more than the 2147483648")


def test_refuses_resizing_channels_linearly():
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="the_resize",
                            mode="linear")
    proto = model([node], [("x", (1, 3, 4, 4))], ["y"], [("scales", floats(1, 2, 2, 2))])
    refused(proto, "'the_resize'", "channel axis")


@pytest.mark.parametrize("op,shape,attrs,inits,fragments", [
    ("AveragePool", (1, 3, 8, 8), dict(kernel_shape=[2, 2], dilations=[2, 2]), [],
     ["dilated average pooling"]),
    ("MaxPool", (1, 3, 8, 8), dict(kernel_shape=[3, 3], dilations=[4, 4]), [],
     ["larger than the padded input"]),
    ("MaxPool", (1, 3, 8), dict(kernel_shape=[2, 2]), [], ["kernel_shape", "where 1"]),
    ("MaxPool", (1, 3, 8, 8, 8), dict(kernel_shape=[2, 2, 2]), [], ["rank 5", "rank 3 or 4"]),
    ("Conv", (1, 3, 8), {}, [("w", np.ones((2, 3, 1, 1), np.float32))],
     ["(2, 3, 1, 1)", "rank 3"]),
    ("Conv", (1, 3, 8), dict(pads=[1, 1, 1, 1]), [("w", np.ones((2, 3, 3), np.float32))],
     ["pads", "where 2"]),
    ("ConvTranspose", (1, 3, 8), dict(strides=[0]), [("w", np.ones((3, 2, 3), np.float32))],
     ["strides", "below 1"]),
])
def test_refuses_1d_and_pooling_forms(op, shape, attrs, inits, fragments):
    inputs = ["x"] + [n for n, _ in inits]
    node = helper.make_node(op, inputs, ["y"], name="the_node", **attrs)
    refused(model([node], [("x", shape)], ["y"], inits), "'the_node'", *fragments)


@pytest.mark.parametrize("op,inputs,inits,attrs,fragments", [
    ("Pow", ["x", "e"], [("e", floats(2, 3, 2, 3))], {}, ["exponents that differ"]),
    ("Pow", ["e", "x"], [("e", floats(2))], {}, ["computed base with a constant exponent"]),
    ("Pow", ["x", "x"], [], {}, ["computed base with a constant exponent"]),
    ("Pow", ["x", "e"], [("e", np.full((2, 1, 1, 1, 1), 2, np.float32))], {},
     ["broadcasts the input"]),
    ("PRelu", ["x", "s"], [("s", uniform(3))], {}, ["does not broadcast"]),
    ("Expand", ["x", "s"], [("s", ints(1, 3, 4, 3))], {}, ["does not broadcast"]),
    ("Tile", ["x", "r"], [("r", ints(1, 2))], {}, ["repeats", "where 4"]),
    ("ReduceMax", ["x"], [], dict(axes=[1, 1]), ["axes", "repeat"]),
    ("ReduceLogSumExp", ["x"], [], dict(axes=[1]), ["ReduceLogSumExp", "not supported"]),
])
def test_refuses_operator_forms(op, inputs, inits, attrs, fragments):
    node = helper.make_node(op, inputs, ["y"], name="the_node", **attrs)
    refused(model([node], [("x", (1, 3, 4, 4))], ["y"], inits), "'the_node'", *fragments)
