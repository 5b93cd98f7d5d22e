"""simdsynet.onnx on the layers of ConvNeXt and vision transformers, against PyTorch on every
supported target: layer normalization in each form torch exports (ConvNeXt's channel-first
LayerNorm2d written out in nodes, nn.LayerNorm over the last axis of channel-last images and of
[N, T, C] tokens below opset 17, and opset 17's LayerNormalization), GELU in both forms (erf and
tanh), small blocks of our own and convnext_tiny at 32x32; the rewrites into one step each and
the refusals of forms that only nearly match."""

import hashlib
import io
import os
import tempfile
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_targets import TOLERANCE, check, supported_targets

torch = pytest.importorskip("torch", reason="python3-torch is needed")
zoo = pytest.importorskip("zoo", reason="python3-torchvision is needed")
nn, F = torch.nn, torch.nn.functional

import simdsynet.onnx  # noqa: E402
from simdsynet.onnx import UnsupportedModelError  # noqa: E402

VERSION = 1  # bump when a model below changes, so cached exports are not reused
TARGETS = ["scalar", "sse4", "avx2", "avx512"]


def export(name, build, shape, opset, seed=0):
    """(onnx path, npz path) of a model (built by `build`, randomized) exported at `shape`,
    cached as zoo.py caches its models."""
    torch.manual_seed(seed)
    model = zoo.randomize_parameters(build(), seed + 1)
    key = f"tf-{name}-{'x'.join(map(str, shape))}-opset{opset}-torch{torch.__version__}-v{VERSION}"
    stem = os.path.join(zoo.default_cache(), key)
    paths = stem + ".onnx", stem + ".npz"
    if all(os.path.exists(p) for p in paths):
        return paths
    x = torch.randn(shape, generator=torch.Generator().manual_seed(
        int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)))
    with torch.no_grad():
        outputs = model(x)
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, x, buffer, opset_version=opset, input_names=["input"],
                          output_names=[f"output{i}" for i in range(len(outputs))])
    arrays = {"input": x.numpy(), **{f"output{i}": o.numpy() for i, o in enumerate(outputs)}}
    os.makedirs(os.path.dirname(stem), exist_ok=True)
    for path, write in ((paths[0], lambda f: f.write(buffer.getvalue())),
                        (paths[1], lambda f: np.savez(f, **arrays))):
        fd, temp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".part")
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(temp, path)
    return paths


# ---------------------------------------------------------------------------------------------
# Small models.

class LayerNorm2d(nn.Module):
    """ConvNeXt's channel-first layer norm as its authors wrote it (facebookresearch/ConvNeXt):
    exported as ReduceMean over axis 1, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add."""

    def __init__(self, channels, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.eps = eps

    def forward(self, x):
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


class ChannelFirstBlock(nn.Module):
    """A ConvNeXt block in the original's channel-first form: 7x7 depthwise, LayerNorm2d,
    1x1 convolutions around an exact GELU, layer scale and the residual; an unscaled layer
    norm (no Mul, no Add) at the end."""

    def __init__(self, c=20):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.norm = LayerNorm2d(c)
        self.pw1 = nn.Conv2d(c, 3 * c, 1)
        self.pw2 = nn.Conv2d(3 * c, c, 1)
        self.gamma = nn.Parameter(torch.ones(c, 1, 1))

    def forward(self, x):
        y = x + self.gamma * self.pw2(F.gelu(self.pw1(self.norm(self.dw(x)))))
        u = y.mean(1, keepdim=True)
        return (y - u) / torch.sqrt((y - u).pow(2).mean(1, keepdim=True) + 1e-5)


class ChannelLastBlock(nn.Module):
    """torchvision's ConvNeXt block: permute to channel-last, nn.LayerNorm over the last axis,
    Linear, GELU (`approximate`), Linear, permute back, layer scale, residual."""

    def __init__(self, c=24, approximate="none"):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.norm = nn.LayerNorm(c, eps=1e-6)
        self.fc1 = nn.Linear(c, 4 * c)
        self.fc2 = nn.Linear(4 * c, c)
        self.scale = nn.Parameter(torch.ones(c, 1, 1))
        self.approximate = approximate

    def forward(self, x):
        y = self.norm(self.dw(x).permute(0, 2, 3, 1))
        y = self.fc2(F.gelu(self.fc1(y), approximate=self.approximate)).permute(0, 3, 1, 2)
        return x + self.scale * y


class Tokens(nn.Module):
    """[N, T, C] tokens: a layer norm over C (ViT's), an MLP with GELU and a residual."""

    def __init__(self, c=33, approximate="none"):
        super().__init__()
        self.norm = nn.LayerNorm(c)
        self.fc1 = nn.Linear(c, 2 * c)
        self.fc2 = nn.Linear(2 * c, c)
        self.approximate = approximate

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x)), approximate=self.approximate))


class Gelus(nn.Module):
    """Both GELU forms on a convolution's output and on their own, and the erf form written
    the way Hugging Face models write it: x * 0.5 * (1 + erf(x * (1/sqrt 2)))."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 9, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        hf = y * 0.5 * (1.0 + torch.erf(y * 0.7071067811865476))
        return [F.gelu(y), F.gelu(y, approximate="tanh"), hf, F.gelu(x * 3.0)]


class Attention(nn.Module):
    """Multi-head self-attention written out: per-head Q*K^T on [N, H, T, D] tensors (rank 4,
    both operands computed), softmax over the last axis, weights*V, heads merged back; a class
    token prepended from a parameter and a position embedding added; the class token read
    back with Gather."""

    def __init__(self, c=24, heads=4, tokens=7):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(c, 3 * c)
        self.out = nn.Linear(c, c)
        self.cls = nn.Parameter(torch.zeros(1, 1, c))
        self.pos = nn.Parameter(torch.zeros(1, tokens + 1, c))

    def forward(self, x):
        n, t, c = x.shape
        x = torch.cat([self.cls.expand(n, -1, -1), x], 1) + self.pos
        q, k, v = self.qkv(x).reshape(n, t + 1, 3, self.heads, c // self.heads).permute(
            2, 0, 3, 1, 4)
        w = torch.softmax(q @ k.transpose(-2, -1) / (c // self.heads) ** 0.5, -1)
        y = x + self.out((w @ v).transpose(1, 2).reshape(n, t + 1, c))
        return y, y[:, 0]


def small_vit():
    import torchvision
    return torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                                num_heads=2, hidden_dim=32, mlp_dim=64,
                                                num_classes=10)


SMALL = {
    "channel_first_block": (ChannelFirstBlock, (2, 20, 9, 9), 14),
    "channel_last_block": (ChannelLastBlock, (1, 24, 7, 6), 14),
    "channel_last_block_tanh": (lambda: ChannelLastBlock(17, "tanh"), (1, 17, 5, 5), 14),
    "channel_last_block_opset17": (ChannelLastBlock, (1, 24, 7, 6), 17),
    "tokens": (Tokens, (2, 9, 33), 14),
    "tokens_tanh": (lambda: Tokens(16, "tanh"), (1, 5, 16), 14),
    "tokens_opset17": (Tokens, (2, 9, 33), 17),
    "gelus": (Gelus, (1, 3, 11, 13), 14),
    "attention": (Attention, (2, 7, 24), 14),
    "attention_2_heads": (lambda: Attention(16, 2, 5), (1, 5, 16), 14),
    "vit_small": (small_vit, (1, 3, 32, 32), 14),
    "vit_small_opset17": (small_vit, (1, 3, 32, 32), 17),
}


def convnext_tiny():
    import torchvision
    return torchvision.models.convnext_tiny(weights=None)


MODELS = dict(SMALL, convnext_tiny=(convnext_tiny, (1, 3, 32, 32), 14))


@pytest.fixture(scope="module")
def results():
    exported = {name: export(name, *spec) for name, spec in MODELS.items()}
    cache = {}

    def get(target):
        if target not in cache:
            cache[target] = check(target, [(n, *exported[n]) for n in MODELS])
        return cache[target]
    return get


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", list(MODELS))
def test_matches_pytorch(results, name, target):
    if target not in supported_targets():
        pytest.skip(f"the CPU has no {target}")
    differences, errors = results(target)
    assert name not in errors, errors.get(name)
    assert max(differences[name]) <= TOLERANCE, differences[name]


def test_outputs_are_informative():
    """Random weights must reach the outputs through every block (ConvNeXt's layer scale of
    1e-6 would hide the block behind its residual)."""
    for name, spec in MODELS.items():
        ref = np.load(export(name, *spec)[1])
        for k in range(len(ref.files) - 1):
            y = ref[f"output{k}"]
            assert np.std(y) > 1e-3 * np.abs(y).max() > 0, (name, k)


@pytest.mark.parametrize("name", list(SMALL))
def test_no_step_writes_outside_its_tensors(name):
    path, reference = export(name, *SMALL[name])
    ref = np.load(reference)
    for k, y in enumerate(simdsynet.onnx.Network(path, guard=64).run(ref["input"])):
        expected = ref[f"output{k}"]
        assert float(np.abs(y - expected).max()) <= TOLERANCE * float(np.abs(expected).max())


def kinds(name):
    return [s[1] for s in simdsynet.onnx.load(export(name, *MODELS[name])[0]).steps()]


@pytest.mark.parametrize("name,norms", [("channel_first_block", 2), ("channel_last_block", 1),
                                        ("channel_last_block_opset17", 1), ("tokens", 1)])
def test_each_layer_norm_is_one_step(name, norms):
    steps = kinds(name)
    assert steps.count("layer normalization") == norms, steps
    assert not any("pool" in k for k in steps), steps  # no reduction of the pattern is left


@pytest.mark.parametrize("name,products,adds", [("tokens", 2, 1), ("attention", 2, 2),
                                                ("vit_small", 9, 5)])
def test_linear_layers_carry_their_bias(name, products, adds):
    """A Linear on tokens (MatMul, then Add of its bias) is one fully connected step with the
    bias (on several rows a 1x1 convolution over the rows, whose weights are packed once); the
    Adds left are the residuals and position embeddings."""
    steps = simdsynet.onnx.load(export(name, *MODELS[name])[0]).steps()
    linear = [s for s in steps if s[1] == "inner product" or
              (s[1] == "convolution" and not s[0].endswith("/Conv"))]
    assert len(linear) == products, steps
    assert [s[1] for s in steps].count("eltwise") == adds, steps


class Gelu(nn.Module):
    def __init__(self, approximate):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_form_is_the_exported_one(approximate):
    """On [-4, -0.5] the two forms differ by more than 1e-3 of the largest output, so each
    must run as the form the model has (a model test cannot tell them apart)."""
    x = -np.linspace(0.5, 4.0, 301, dtype=np.float32).reshape(1, 301)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Gelu(approximate), torch.from_numpy(x), buffer, opset_version=14)
    y, = simdsynet.onnx.load(buffer.getvalue()).run(x)
    t = torch.from_numpy(x.astype(np.float64))
    expected = F.gelu(t, approximate=approximate).numpy()
    other = F.gelu(t, approximate="tanh" if approximate == "none" else "none").numpy()
    scale = np.abs(expected).max()
    assert np.abs(other - expected).max() > 1e-3 * scale
    assert np.abs(y - expected).max() <= 1e-5 * scale


def test_each_gelu_is_one_step():
    steps = simdsynet.onnx.load(export("gelus", *SMALL["gelus"])[0]).steps()
    activations = [s for s in steps if s[1] == "activation"]
    assert len(activations) == 4, steps
    assert all(s[1] in ("convolution", "activation", "scale") or s[1].startswith("convert")
               for s in steps), steps


# ---------------------------------------------------------------------------------------------
# Hand-built forms that only nearly match.

def graph(nodes, shape=(1, 4, 3, 3), initializers=(), opset=14):
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in initializers])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def variance_nodes(axes=(1,)):
    return [helper.make_node("ReduceMean", ["x"], ["m"], "mean", axes=list(axes)),
            helper.make_node("Sub", ["x", "m"], ["c"], "centre"),
            helper.make_node("Pow", ["c", "two"], ["s"], "square"),
            helper.make_node("ReduceMean", ["s"], ["v"], "variance", axes=list(axes))]


CONSTS = [("two", np.float32(2.0)), ("eps", np.float32(1e-5))]


def layer_norm(x, axis, eps=1e-5):
    m = x.mean(axis, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(axis, keepdims=True) + eps)


@pytest.mark.parametrize("spread", [3.0, 1e-3])  # 1e-3: a variance below epsilon
@pytest.mark.parametrize("axes,shape", [((1,), (1, 4, 3, 3)), ((-1,), (1, 4, 3, 5)),
                                        ((2,), (2, 3, 7)), ((-1,), (3, 17))])
def test_unscaled_layer_norm_matches(axes, shape, spread):
    nodes = variance_nodes(axes) + [helper.make_node("Add", ["v", "eps"], ["a"], "add"),
                                    helper.make_node("Sqrt", ["a"], ["r"], "sqrt"),
                                    helper.make_node("Div", ["c", "r"], ["y"], "div")]
    x = (np.random.default_rng(3).standard_normal(shape) * spread + 1).astype(np.float32)
    net = simdsynet.onnx.load(graph(nodes, shape, CONSTS))
    assert [s[1] for s in net.steps() if not s[1].startswith("convert")] == [
        "layer normalization"]
    y, = net.run(x)
    expected = layer_norm(x.astype(np.float64), axes[0])
    assert np.abs(y - expected).max() <= 1e-5 * np.abs(expected).max()


@pytest.mark.parametrize("tail,node,fragment", [
    ([helper.make_node("Sqrt", ["v"], ["y"], "sqrt")], "variance", "Add of epsilon"),
    ([helper.make_node("Add", ["v", "eps"], ["a"], "add"),
      helper.make_node("Sqrt", ["a"], ["r"], "sqrt"),
      helper.make_node("Mul", ["c", "r"], ["y"], "times")], "sqrt", "division"),
    ([helper.make_node("Add", ["v", "v"], ["a"], "add"),
      helper.make_node("Sqrt", ["a"], ["r"], "sqrt"),
      helper.make_node("Div", ["c", "r"], ["y"], "div")], "add", "epsilon"),
    ([helper.make_node("Add", ["v", "eps"], ["a"], "add"),
      helper.make_node("Sqrt", ["a"], ["r"], "sqrt"),
      helper.make_node("Div", ["x", "r"], ["y"], "div")], "div", "x - mean"),
])
def test_nearly_a_layer_norm_is_refused_naming_the_node(tail, node, fragment):
    with pytest.raises(UnsupportedModelError, match=f"node '{node}'.*{fragment}"):
        simdsynet.onnx.load(graph(variance_nodes() + tail, initializers=CONSTS))


def test_layer_norm_over_axes_that_are_not_contiguous_is_refused():
    nodes = variance_nodes((1, 3)) + [helper.make_node("Add", ["v", "eps"], ["a"], "add"),
                                      helper.make_node("Sqrt", ["a"], ["r"], "sqrt"),
                                      helper.make_node("Div", ["c", "r"], ["y"], "div")]
    with pytest.raises(UnsupportedModelError, match="node 'mean'.*not contiguous"):
        simdsynet.onnx.load(graph(nodes, initializers=CONSTS))


def test_scale_varying_outside_the_normalized_axes_is_refused():
    nodes = variance_nodes() + [helper.make_node("Add", ["v", "eps"], ["a"], "add"),
                                helper.make_node("Sqrt", ["a"], ["r"], "sqrt"),
                                helper.make_node("Div", ["c", "r"], ["d"], "div"),
                                helper.make_node("Mul", ["d", "w"], ["y"], "scale")]
    w = np.ones((1, 1, 3, 1), np.float32)
    with pytest.raises(UnsupportedModelError, match="node 'mean'.*scale of shape"):
        simdsynet.onnx.load(graph(nodes, initializers=CONSTS + [("w", w)]))


def test_erf_outside_gelu_is_refused():
    nodes = [helper.make_node("Erf", ["x"], ["e"], "erf"),
             helper.make_node("Add", ["e", "one"], ["y"], "plus")]
    with pytest.raises(UnsupportedModelError, match="node 'erf'.*GELU"):
        simdsynet.onnx.load(graph(nodes, initializers=[("one", np.float32(1))]))


def test_gelu_read_inside_is_not_rewritten():
    """x / sqrt 2 also read by another node: the pattern's values must have no other reader,
    so the Erf stays and is refused."""
    nodes = [helper.make_node("Div", ["x", "sqrt2"], ["s"], "scaled"),
             helper.make_node("Erf", ["s"], ["e"], "erf"),
             helper.make_node("Add", ["e", "one"], ["p"], "plus"),
             helper.make_node("Mul", ["x", "p"], ["m"], "times"),
             helper.make_node("Mul", ["m", "half"], ["h"], "half"),
             helper.make_node("Add", ["h", "s"], ["y"], "leak")]
    inits = [("sqrt2", np.float32(np.sqrt(2))), ("one", np.float32(1)), ("half", np.float32(0.5))]
    with pytest.raises(UnsupportedModelError, match="node 'erf'"):
        simdsynet.onnx.load(graph(nodes, initializers=inits))


def two_input_matmul(a_shape, b_shape):
    g = helper.make_graph(
        [helper.make_node("Relu", ["b"], ["r"], "relu"),  # b computed, not a constant
         helper.make_node("MatMul", ["a", "r"], ["y"], "product")], "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, a_shape),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, b_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]).SerializeToString()


@pytest.mark.parametrize("a_shape,b_shape", [((2, 3, 4, 5), (5, 6)), ((2, 3, 4, 5), (1, 1, 5, 6)),
                                             ((3, 1, 7), (3, 7, 2)), ((1, 4, 5), (2, 3, 5, 1)),
                                             ((17, 33), (33, 16))])
def test_product_of_computed_tensors(a_shape, b_shape):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    net = simdsynet.onnx.load(two_input_matmul(a_shape, b_shape))
    y, = net.run({"a": a, "b": b})
    expected = np.matmul(a.astype(np.float64), np.maximum(b, 0).astype(np.float64))
    assert y.shape == expected.shape
    assert np.abs(y - expected).max() <= 1e-5 * np.abs(expected).max()


@pytest.mark.parametrize("a_shape,b_shape,fragment", [
    ((2, 3, 4, 5), (3, 5, 6), "batch axes"), ((2, 4, 5), (4, 6), "matching inner extent"),
    ((5,), (5, 6), "matching inner extent")])
def test_product_of_computed_tensors_refused(a_shape, b_shape, fragment):
    with pytest.raises(UnsupportedModelError, match=f"node 'product'.*{fragment}"):
        simdsynet.onnx.load(two_input_matmul(a_shape, b_shape))


def test_threads_give_identical_results():
    path, reference = export("vit_small", *SMALL["vit_small"])
    x = np.load(reference)["input"]
    net = simdsynet.onnx.load(path, threads=1)
    one = net.run(x)
    net.threads = 2
    assert all(np.array_equal(a, b) for a, b in zip(one, net.run(x)))


@pytest.mark.parametrize("shape,axis,indices", [((2, 5, 3), 1, 0), ((2, 5, 3), 1, -1),
                                                ((2, 5, 3), -1, [1, 2]), ((1, 4, 3, 6), 1, 2),
                                                ((1, 4, 3, 6), 3, [0, 1, 2, 3, 4, 5])])
def test_gather_of_constant_indices(shape, axis, indices):
    nodes = [helper.make_node("Relu", ["x"], ["r"], "relu"),
             helper.make_node("Gather", ["r", "i"], ["y"], "gather", axis=axis)]
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    y, = simdsynet.onnx.load(graph(nodes, shape, [("i", np.array(indices, np.int64))])).run(x)
    np.testing.assert_array_equal(y, np.take(np.maximum(x, 0), indices, axis=axis))


@pytest.mark.parametrize("indices,fragment", [([0, 2], "not consecutive"), (5, "out of range"),
                                              ([[0]], "not supported")])
def test_gather_refusals(indices, fragment):
    nodes = [helper.make_node("Relu", ["x"], ["r"], "relu"),
             helper.make_node("Gather", ["r", "i"], ["y"], "gather", axis=1)]
    with pytest.raises(UnsupportedModelError, match=f"node 'gather'.*{fragment}"):
        simdsynet.onnx.load(graph(nodes, (2, 5, 3), [("i", np.array(indices, np.int64))]))


@pytest.mark.parametrize("approximate", [None, "none", "tanh"])
def test_opset20_gelu(approximate):
    attrs = {} if approximate is None else {"approximate": approximate}
    nodes = [helper.make_node("Gelu", ["x"], ["y"], "gelu", **attrs)]
    x = np.linspace(-6, 6, 2 * 3 * 17, dtype=np.float32).reshape(2, 3, 17)
    y, = simdsynet.onnx.load(graph(nodes, x.shape, opset=20)).run(x)
    expected = F.gelu(torch.from_numpy(x.astype(np.float64)),
                      approximate=approximate or "none").numpy()
    assert np.abs(y - expected).max() <= 1e-5 * np.abs(expected).max()


def test_opset20_gelu_with_another_approximation_is_refused():
    nodes = [helper.make_node("Gelu", ["x"], ["y"], "gelu", approximate="fast")]
    with pytest.raises(UnsupportedModelError, match="node 'gelu'.*approximate"):
        simdsynet.onnx.load(graph(nodes, opset=20))


@pytest.mark.parametrize("name", ["channel_first_block", "tokens", "vit_small"])
def test_dynamic_batch(name):
    """Exported with a dynamic batch, run at batches 1, 3 and 8 in one session (the ViT takes
    the shape of its class token, a constant, for the Expand to the batch)."""
    build, shape, opset = SMALL[name]
    torch.manual_seed(0)
    model = zoo.randomize_parameters(build(), 1)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, torch.randn(shape), buffer, opset_version=opset,
                          input_names=["input"], output_names=["y"],
                          dynamic_axes={"input": {0: "n"}, "y": {0: "n"}})
    net = simdsynet.onnx.load(buffer.getvalue())
    g = torch.Generator().manual_seed(4)
    for batch in (1, 3, 8):
        x = torch.randn((batch,) + tuple(shape[1:]), generator=g)
        with torch.no_grad():
            expected = model(x)
        expected = (expected[0] if isinstance(expected, (tuple, list)) else expected).numpy()
        y = net.run(x.numpy())[0]
        assert y.shape == expected.shape
        assert np.abs(y - expected).max() <= TOLERANCE * np.abs(expected).max(), batch
