"""The models simdsynet.onnx is checked and measured on: twelve torchvision architectures and
small models of our own that cover the operators those do not use. No weights are downloaded:
every model gets random weights from a fixed seed, and random BatchNorm statistics and affine
parameters (so that folding them into the convolutions is exercised), and is exported with
torch.onnx.export at a fixed input shape.

Exports are cached in a folder (one .onnx and one .npz with the input and PyTorch's eager
outputs per model, size and torch version), written atomically so that parallel test
processes can share the folder.

Opset 14: the lowest that has HardSwish as one operator (13 exports it as HardSigmoid + Mul);
15 and 16 export these models identically. LayerNormalization only exists from opset 17,
so the model that covers it is exported at 17.
"""

import hashlib
import io
import os
import tempfile
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OPSET = 14
ZOO_VERSION = 2  # bump when a builder changes, so caches are not reused

ARCHITECTURES = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large", "squeezenet1_1",
                 "shufflenet_v2_x1_0", "googlenet", "efficientnet_b0", "densenet121", "vgg16",
                 "regnet_x_400mf", "mnasnet1_0"]

# The newer networks of the model benchmark's second table, each at the size it is used at: a
# ConvNeXt, a vision transformer (any multiple of its 16-pixel patches; 224 is its own) and a
# segmentation network (its per-pixel class scores are the output).
EXTRA_ARCHITECTURES = {"convnext_tiny": 224, "vit_b_16": 224, "deeplabv3_mobilenet_v3_large": 320}


class SegmentationScores(nn.Module):
    """torchvision's segmentation models return a dict; the runner and the peers compare the
    'out' scores."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def randomize_batch_norms(model, generator):
    """Random running statistics and affine parameters for every BatchNorm (torchvision
    initializes them to the identity, which would leave folding untested)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(n, generator=generator) * 0.1)


def randomize_parameters(model, seed):
    """Random weights everywhere, layer norm scales and ConvNeXt's layer scales included (their
    initial 1 and 1e-6, and ViT's zero head, would leave those paths untested or the output
    degenerate)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                p.copy_(torch.randn(p.shape, generator=g) / max(p[0].numel(), 1) ** 0.5)
            elif name.endswith("weight"):
                p.copy_(1 + 0.3 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.2 * torch.randn(p.shape, generator=g))
    return model.eval()


def architecture(name, size):
    """A torchvision model with random weights (seed 0), in eval mode. vgg16's classifier
    expects 7x7 features: below 224x224 its adaptive average pooling (which torch cannot
    export when 7 is not a multiple of the feature size) is replaced by the nearest upsampling
    it equals for 1x1 features."""
    torch.manual_seed(0)
    if name.startswith("deeplabv3"):
        model = SegmentationScores(getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None, aux_loss=False))
        randomize_batch_norms(model, torch.Generator().manual_seed(1))
        return model.eval()
    kwargs = dict(aux_logits=False, init_weights=True) if name == "googlenet" else {}
    if name.startswith("vit_"):
        kwargs = dict(image_size=size)  # its position embeddings are made for this size
    model = getattr(torchvision.models, name)(weights=None, **kwargs)
    if name.startswith(("vit_", "convnext_")):
        return randomize_parameters(model, 1)
    if name == "vgg16" and size % 224:
        if size != 32:
            raise ValueError("vgg16 is exported at 224x224 (or 32x32 for tests)")
        model.avgpool = nn.Upsample(scale_factor=7, mode="nearest")
    randomize_batch_norms(model, torch.Generator().manual_seed(1))
    return model.eval()


# ---------------------------------------------------------------------------------------------
# Operators the architectures do not use, in small models of our own.

class Lrn(torch.autograd.Function):
    """torch exports nn.LocalResponseNorm as a dozen primitive nodes; this emits ONNX's LRN
    and computes torch's local_response_norm, the reference."""

    @staticmethod
    def forward(ctx, x, size, alpha, beta, k):
        return F.local_response_norm(x, size, alpha, beta, k)

    @staticmethod
    def symbolic(g, x, size, alpha, beta, k):
        return g.op("LRN", x, size_i=size, alpha_f=alpha, beta_f=beta, bias_f=k)


class Normalizations(nn.Module):
    """LRN, instance normalization; layer normalization (opset 17) over the channels of a
    channel-last view and over the last axis."""

    def __init__(self, layer_norm):
        super().__init__()
        self.conv = nn.Conv2d(3, 12, 3, padding=1)
        self.instance = nn.InstanceNorm2d(12, affine=True)
        self.layer_norm = layer_norm
        self.ln_channels = nn.LayerNorm(12)
        self.ln_width = nn.LayerNorm(9)

    def forward(self, x):
        y = self.conv(x)
        a = Lrn.apply(y, 5, 1e-2, 0.75, 2.0)
        b = self.instance(y)
        out = [a, b]
        if self.layer_norm:
            c = self.ln_channels(y.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            out += [c + b, self.ln_width(y)]
        return out


class Deconvolutions(nn.Module):
    """ConvTranspose with groups, padding and output padding; one group (NHWC path) with a fused
    activation."""

    def __init__(self):
        super().__init__()
        self.a = nn.ConvTranspose2d(6, 8, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.b = nn.ConvTranspose2d(8, 5, 4, stride=2, padding=1)
        self.c = nn.ConvTranspose2d(5, 4, 3, stride=1, padding=1, dilation=1, bias=False)

    def forward(self, x):
        return self.c(F.leaky_relu(self.b(self.a(x)), 0.2))


class Activations(nn.Module):
    """Every activation, fused into a convolution where the framework has it and standalone."""

    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(4, 4, 3, padding=1) for _ in range(9)])
        self.prelu = nn.PReLU(4)
        self.prelu1 = nn.PReLU(1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        c = self.convs
        fused = [F.relu(c[0](x)), F.leaky_relu(c[1](x), 0.1), F.hardtanh(c[2](x), -0.5, 0.5),
                 self.prelu(c[3](x)), F.elu(c[4](x), 0.7), F.hardswish(c[5](x)),
                 F.mish(c[6](x)), F.silu(c[7](x)), F.hardsigmoid(c[8](x))]
        y = self.bn(x)  # a standalone BatchNormalization (the scale layer)
        standalone = [F.relu6(y), F.leaky_relu(y, 0.3), self.prelu(y), self.prelu1(y),
                      F.elu(y), F.selu(y), torch.sigmoid(y), F.hardsigmoid(y), F.hardswish(y),
                      torch.tanh(y), F.softplus(y), torch.exp(y), torch.log(y.abs() + 0.5),
                      torch.abs(y), -y, torch.sqrt(y.abs()), F.relu(self.bn(x))]
        return fused + standalone


class Shapes(nn.Module):
    """Pad (three modes), nearest resizing, softmax on inner axes, concatenation and slices on
    spatial axes, transposes, reshapes, squeeze/unsqueeze, split, element-wise arithmetic with
    constants and per-channel broadcasts, max/min, pooling variants, fully connected layers
    (Gemm after an NHWC flatten, MatMul on 3-D)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, 10)
        self.mm = nn.Linear(8, 6, bias=False)
        self.gamma = nn.Parameter(torch.randn(1, 8, 1, 1))

    def forward(self, x):
        y = self.conv(x)                                     # 8 x 8 x 8
        out = [F.pad(y, (1, 2, 0, 1)), F.pad(y, (2, 1, 1, 2), mode="reflect"),
               F.pad(y, (1, 1, 2, 0), mode="replicate"),
               F.interpolate(y, scale_factor=2, mode="nearest"),
               F.interpolate(y, size=(5, 11), mode="nearest"),
               torch.softmax(y, 1), torch.softmax(y, 2), torch.softmax(y, 3)]
        a, b = torch.split(y, [3, 5], dim=1)
        out += [torch.cat([b, a], 1), torch.cat([y, y[:, :, 2:5]], 2), y[:, 1:6, :, 3:7],
                y.permute(0, 2, 3, 1).reshape(1, 64, 8), y.transpose(2, 3),
                y.flatten(2).unsqueeze(1).squeeze(1)]
        out += [y * self.gamma + 0.5, y / 3.0 - self.gamma, 2.0 - y, torch.maximum(y, y * 0.3 - 0.1),
                torch.minimum(y, y * 0.5), torch.clamp(y, min=-0.2)]
        out += [F.max_pool2d(y, 3, 2, 1, ceil_mode=True), F.avg_pool2d(y, 3, 2, 1),
                F.avg_pool2d(y, 3, 2, 1, count_include_pad=False, ceil_mode=True),
                F.adaptive_max_pool2d(y, 1), y.mean((2, 3))]
        z = F.max_pool2d(y, 2)                               # 8 x 4 x 4
        out += [self.fc(z.flatten(1)), self.fc(torch.relu(z.flatten(1)) * 0.5),
                self.mm(z.permute(0, 2, 3, 1)),
                torch.softmax(self.fc(torch.relu(z).flatten(1)), 1)]
        return out


class Batched(nn.Module):
    """A batch of two through convolutions, squeeze-and-excitation, a residual and a fully
    connected layer."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.pw = nn.Conv2d(16, 16, 1)
        self.se1 = nn.Conv2d(16, 4, 1)
        self.se2 = nn.Conv2d(4, 16, 1)
        self.fc = nn.Linear(16, 7)

    def forward(self, x):
        y = F.relu(self.conv(x))
        z = self.pw(F.relu(self.dw(y)))
        s = torch.sigmoid(self.se2(F.relu(self.se1(F.adaptive_avg_pool2d(z, 1)))))
        z = z * s + y
        return self.fc(F.adaptive_avg_pool2d(z, 1).flatten(1))


def channel_shuffle(x, groups=2):
    n, c, h, w = x.shape
    return x.view(n, groups, c // groups, h, w).transpose(1, 2).reshape(n, c, h, w)


class Shuffles(nn.Module):
    """ShuffleNet-v2 blocks (concat, channel shuffle, chunk) deeper than torchvision's stages;
    with `expose`, a shuffled tensor is also an output (read by no convolution, so the runner
    keeps the plain transposes instead of the shuffle layer)."""

    def __init__(self, expose):
        super().__init__()
        self.expose = expose
        self.stem = nn.Conv2d(3, 12, 3, stride=2, padding=1)
        self.left = nn.Conv2d(12, 12, 1)
        self.right = nn.Conv2d(12, 12, 1)
        self.branches = nn.ModuleList(nn.Sequential(
            nn.Conv2d(12, 12, 1), nn.ReLU(), nn.Conv2d(12, 12, 3, padding=1, groups=12),
            nn.Conv2d(12, 12, 1), nn.ReLU()) for _ in range(7))
        self.head = nn.Conv2d(24, 5, 1)

    def forward(self, x):
        x = F.relu(self.stem(x))
        y = channel_shuffle(torch.cat([self.left(x), self.right(x)], 1))
        for branch in self.branches:
            a, b = y.chunk(2, dim=1)
            y = channel_shuffle(torch.cat([a, branch(b)], 1))
        out = self.head(y)
        return [out, y] if self.expose else out


class Residuals(nn.Module):
    """Residual Adds followed by an activation: convolution + identity -> ReLU (a ResNet
    block's end), convolution + convolution (a downsampling block), and Adds of operands that
    are not convolutions, each followed by another of the activations the runner fuses. 12
    channels of 19x19 give tensors of 4332 floats: more than one chunk of the executor's fused
    eltwise step, with a tail shorter than a vector."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 12, 3, padding=1)
        self.convs = nn.ModuleList([nn.Conv2d(12, 12, 3 if i % 2 else 1, padding=i % 2)
                                    for i in range(10)])
        self.bn = nn.BatchNorm2d(12)

    def forward(self, x):
        c = self.convs
        x = F.relu(self.stem(x))
        a = F.relu(c[1](F.relu(c[0](x))) + x)           # ResNet: conv -> Add -> Relu
        b = F.relu(c[2](a) + c[3](a))                    # both operands convolutions
        outs = [a, b]
        acts = [F.hardswish, lambda t: F.leaky_relu(t, 0.2), lambda t: F.elu(t, 0.7),
                lambda t: torch.clamp(t, -0.5, 0.5), torch.sigmoid, F.hardsigmoid]
        y = b
        for k, act in enumerate(acts):
            y = act(c[4 + k](y) + y)
            outs.append(y)
        pooled = F.max_pool2d(a, 3, 1, 1) + F.avg_pool2d(b, 3, 1, 1)  # no convolution
        outs.append(torch.tanh(pooled))
        outs.append(F.relu(self.bn(a) - b))                            # Sub of a scale layer
        outs.append(F.relu(a + b + y))                                 # two Adds in a row
        shared = a + y                                                 # read twice: no fusion
        outs += [F.relu(shared), shared * 2.0]
        return outs


class Segmentation(nn.Module):
    """A DeepLab-v3 head in small: dilated convolutions, ASPP with its image-pooling branch
    (global average pooling, 1x1 convolution, bilinear resize back onto the map), the
    classifier bilinearly resized to the input's odd size (a ratio that is not an integer), and
    bilinear resizing with align_corners and by a non-integer scale factor."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16),
                                  nn.ReLU(), nn.Conv2d(16, 24, 3, stride=2, padding=1),
                                  nn.BatchNorm2d(24), nn.ReLU())
        self.dilated = nn.Conv2d(24, 24, 3, padding=2, dilation=2)
        self.branch1 = nn.Sequential(nn.Conv2d(24, 16, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.branch3 = nn.Sequential(nn.Conv2d(24, 16, 3, padding=3, dilation=3),
                                     nn.BatchNorm2d(16), nn.ReLU())
        self.pooling = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(24, 16, 1),
                                     nn.BatchNorm2d(16), nn.ReLU())
        self.project = nn.Sequential(nn.Conv2d(48, 16, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.classifier = nn.Conv2d(16, 5, 1)

    def forward(self, x):
        f = F.relu(self.dilated(self.stem(x)))
        pooled = F.interpolate(self.pooling(f), size=f.shape[-2:], mode="bilinear",
                               align_corners=False)
        y = self.project(torch.cat([self.branch1(f), self.branch3(f), pooled], 1))
        logits = self.classifier(y)
        return [F.interpolate(logits, size=x.shape[-2:], mode="bilinear", align_corners=False),
                F.interpolate(y, scale_factor=1.5, mode="bilinear", align_corners=True),
                F.interpolate(y, scale_factor=0.6, mode="bilinear", align_corners=False)]


class Signals(nn.Module):
    """1-D signals (rank-3 tensors): convolutions with stride, padding, dilation and groups,
    BatchNorm1d, transposed convolutions with output padding and groups, max and average
    pooling (ceil mode, padding), global pooling."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 12, 5, stride=2, padding=2)
        self.bn = nn.BatchNorm1d(12)
        self.dilated = nn.Conv1d(12, 12, 3, padding=2, dilation=2, groups=3)
        self.up = nn.ConvTranspose1d(12, 8, 4, stride=2, padding=1)
        self.up_grouped = nn.ConvTranspose1d(12, 6, 3, stride=2, padding=1, output_padding=1,
                                             groups=2)
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        y = F.relu(self.bn(self.conv(x)))
        z = F.relu(self.dilated(y))
        pooled = F.max_pool1d(z, 3, 2, 1, ceil_mode=True)
        return [self.up(z), self.up_grouped(y), pooled,
                F.avg_pool1d(z, 4, 3, 1, count_include_pad=False),
                self.fc(F.adaptive_avg_pool1d(z, 1).flatten(1)),
                F.adaptive_max_pool1d(pooled, 1)]


COVERAGE = {
    "normalizations": (lambda: Normalizations(False), (1, 3, 9, 9), OPSET),
    "layer_norm": (lambda: Normalizations(True), (1, 3, 9, 9), 17),
    "deconvolutions": (Deconvolutions, (1, 6, 5, 7), OPSET),
    "activations": (Activations, (1, 4, 6, 7), OPSET),
    "shapes": (Shapes, (1, 3, 8, 8), OPSET),
    "batched": (Batched, (2, 3, 12, 12), OPSET),
    "shuffles": (lambda: Shuffles(False), (1, 3, 10, 10), OPSET),
    "shuffles_exposed": (lambda: Shuffles(True), (1, 3, 10, 10), OPSET),
    "residuals": (Residuals, (1, 3, 19, 19), OPSET),
    "segmentation": (Segmentation, (1, 3, 37, 29), OPSET),
    "signals": (Signals, (2, 3, 41), OPSET),
}


def coverage(name):
    """A coverage model (random weights, seed 0), its input shape and opset."""
    builder, shape, opset = COVERAGE[name]
    torch.manual_seed(0)
    model = builder()
    randomize_batch_norms(model, torch.Generator().manual_seed(1))
    return model.eval(), shape, opset


# ---------------------------------------------------------------------------------------------
# Export.

def default_cache():
    return os.environ.get("SIMD_SYNET_MODEL_CACHE",
                          os.path.join(os.path.dirname(__file__), "..", "..", "build", "models"))


def _atomic_write(path, write):
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=folder, suffix=".part")
    os.close(fd)
    try:
        write(temp)
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.remove(temp)


def export(name, size=224, cache=None, batch=1):
    """(path of the .onnx, path of the .npz with 'input' and 'output<i>') for an architecture
    at size x size, or a coverage model (its own shape); exported on first use."""
    cache = cache or default_cache()
    if name in COVERAGE:
        model, shape, opset = coverage(name)
    else:
        model, shape, opset = architecture(name, size), (batch, 3, size, size), OPSET
    key = f"{name}-{'x'.join(map(str, shape))}-opset{opset}-torch{torch.__version__}-v{ZOO_VERSION}"
    stem = os.path.join(cache, key)
    onnx_path, npz_path = stem + ".onnx", stem + ".npz"
    if os.path.exists(onnx_path) and os.path.exists(npz_path):
        return onnx_path, npz_path
    seed = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)
    x = torch.randn(shape, generator=torch.Generator().manual_seed(seed))
    if name == "activations":
        x = x + 0.1  # keep log/sqrt inputs away from 0 where the reference is steepest
    with torch.no_grad():
        outputs = model(x)
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]

    def write_onnx(path):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            # torch's exporter warns about its own constant folding and shape inference.
            warnings.simplefilter("ignore")
            torch.onnx.export(model, x, buffer, opset_version=opset, input_names=["input"],
                              output_names=[f"output{i}" for i in range(len(outputs))],
                              training=torch.onnx.TrainingMode.PRESERVE,
                              do_constant_folding=True)
        with open(path, "wb") as f:
            f.write(buffer.getvalue())

    def write_npz(path):
        with open(path, "wb") as f:
            np.savez(f, input=x.numpy(), **{f"output{i}": o.numpy() for i, o in
                                            enumerate(outputs)})

    _atomic_write(onnx_path, write_onnx)
    _atomic_write(npz_path, write_npz)
    return onnx_path, npz_path


def export_runs(model, path_stem, inputs, dynamic_axes, opset=OPSET):
    """Exports `model` (one input) with `dynamic_axes` (torch.onnx.export's, for 'input' and
    the outputs 'output<i>') and PyTorch's outputs for each of `inputs`, to be run in this
    order in one session: (path of the .onnx, path of the .npz with 'runs' and 'input<r>',
    'output<i>_<r>' per run r)."""
    onnx_path, npz_path = path_stem + ".onnx", path_stem + ".npz"
    if os.path.exists(onnx_path) and os.path.exists(npz_path):
        return onnx_path, npz_path
    arrays = {"runs": np.array(len(inputs))}
    with torch.no_grad():
        for r, x in enumerate(inputs):
            outputs = model(x)
            outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
            arrays[f"input{r}"] = x.numpy()
            arrays.update({f"output{i}_{r}": o.numpy() for i, o in enumerate(outputs)})
    names = [f"output{i}" for i in range(len(outputs))]

    def write_onnx(path):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, inputs[0], buffer, opset_version=opset,
                              input_names=["input"], output_names=names,
                              dynamic_axes=dynamic_axes, do_constant_folding=True)
        with open(path, "wb") as f:
            f.write(buffer.getvalue())

    def write_npz(path):
        with open(path, "wb") as f:
            np.savez(f, **arrays)

    _atomic_write(onnx_path, write_onnx)
    _atomic_write(npz_path, write_npz)
    return onnx_path, npz_path


def export_dynamic_batch(name, size, batches, cache=None):
    """An architecture exported with a dynamic batch (dim_param 'batch' on the input and every
    output) and runs at `batches` (export_runs)."""
    cache = cache or default_cache()
    model = architecture(name, size)
    seed = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)
    generator = torch.Generator().manual_seed(seed)
    inputs = [torch.randn((b, 3, size, size), generator=generator) for b in batches]
    key = (f"{name}-dynbatch{'_'.join(map(str, batches))}x3x{size}x{size}-opset{OPSET}-"
           f"torch{torch.__version__}-v{ZOO_VERSION}")
    with torch.no_grad():
        outputs = model(inputs[0])
    count = len(outputs) if isinstance(outputs, (list, tuple)) else 1
    axes = {"input": {0: "batch"}, **{f"output{i}": {0: "batch"} for i in range(count)}}
    return export_runs(model, os.path.join(cache, key), inputs, axes)


def relative_difference(actual, expected):
    """max |actual - expected| / max |expected| (the measure the checks use)."""
    scale = float(np.abs(expected).max())
    return float(np.abs(actual - expected).max()) / (scale if scale > 0 else 1.0)
