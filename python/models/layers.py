"""Layer by layer: every convolution of a model as simdsynet.onnx plans it (BatchNorm folded,
activation fused, NHWC, merged chains as one step) timed alone, next to the same layer(s) on
oneDNN through PyTorch (torch.utils.mkldnn modules on oneDNN tensors, so no layout
conversions are counted), fastest of --repeat alternating runs each. Lists the layers where
the library is slowest relative to oneDNN: the kernel work a model needs.

    PYTHONPATH=build/python python3 python/models/layers.py MODEL.onnx [--repeat 20] [--top 15]
"""

import argparse
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.utils.mkldnn

from simdsynet import _executor
from simdsynet._onnx_emit import Emitter
from simdsynet._onnx_fuse import fuse
from simdsynet._onnx_graph import Model
from simdsynet._onnx_ir import Network, Op, Tensor
from simdsynet._onnx_lower import lower
from simdsynet._onnx_merge import merge_convolutions
from simdsynet._onnx_plan import Layouts, plan_memory
from simdsynet.onnx import _read

def stages_of(op):
    return op["stages"] if op.kind == "merged" else [op.attrs]


def torch_layer(op):
    """The op's convolutions as oneDNN modules. Activations other than ReLU are left out (oneDNN
    tensors have no kernels for them here): the comparison leans towards oneDNN there."""
    modules = []
    for stage in stages_of(op):
        w = torch.from_numpy(np.asarray(stage["weight"]))
        o, cg, kh, kw = w.shape
        pads = stage["pads"]
        conv = nn.Conv2d(cg * stage["group"], o, (kh, kw), tuple(stage["strides"]),
                         (pads[0], pads[1]), tuple(stage.get("dilations", (1, 1))),
                         stage["group"], bias=True)
        with torch.no_grad():
            conv.weight.copy_(w)
            conv.bias.zero_()
        modules.append((torch.utils.mkldnn.to_mkldnn(conv.eval()), stage["act"] == "relu"))

    def run(x):
        for conv, relu in modules:
            x = conv(x)
            if relu:
                x = torch.relu(x)
        return x
    return run


def single_step(op, x_shape):
    """An executor with `op` alone, its input at offset 0."""
    net = Network()
    x = Tensor("x", x_shape)
    y = Tensor("y", op.outputs[0].shape)
    net.inputs = [x]
    net.add(Op(op.kind, op.name, [x], [y], **op.attrs))
    net.outputs = [y]
    Layouts(net).run()
    arena, _ = plan_memory(net)
    ex = _executor.Executor()
    Emitter(net, ex).run()
    ex.finalize(arena)
    return ex


def fastest(function, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    net = lower(Model(_read(args.model)))
    fuse(net)
    merge_convolutions(net)
    rows = []
    rng = np.random.default_rng(0)
    for op in net.ops:
        if op.kind not in ("conv", "merged") or op.inputs[0].rank != 4:
            continue
        shape = op.inputs[0].shape
        x = rng.standard_normal(shape).astype(np.float32)
        ex = single_step(op, shape)
        layer = torch_layer(op)
        xm = torch.from_numpy(x).to_mkldnn()
        ours, theirs = float("inf"), float("inf")
        with torch.no_grad():
            for _ in range(2):
                ex.run([x])
                layer(xm)
            for _ in range(args.repeat):
                ours = min(ours, fastest(lambda: ex.run([x]), 1))
                theirs = min(theirs, fastest(lambda: layer(xm), 1))
        flops = 0
        h, w = shape[2], shape[3]
        for stage in stages_of(op):
            k, s, p = stage["weight"].shape[2:], stage["strides"], stage["pads"]
            h = (h + p[0] + p[2] - k[0]) // s[0] + 1
            w = (w + p[1] + p[3] - k[1]) // s[1] + 1
            flops += 2 * shape[0] * h * w * stage["weight"].size
        desc = " -> ".join(
            f"{st['weight'].shape[1] * st['group']}->{st['weight'].shape[0]} "
            f"k{st['weight'].shape[2]} s{st['strides'][0]}" + (f" g{st['group']}"
                                                               if st["group"] > 1 else "")
            for st in stages_of(op))
        rows.append(dict(name=op.name, desc=f"{shape[2]}x{shape[3]} {desc}",
                         info=ex.steps()[0][3], ours=ours, onednn=theirs, flops=flops))
        print(f"{rows[-1]['desc']:<48} {rows[-1]['info']:<30} ours {ours:7.3f} ms  oneDNN "
              f"{theirs:7.3f} ms  x{theirs / ours:5.2f}  {flops / ours / 1e6:6.1f} GFLOP/s",
              flush=True)
    total_ours = sum(r["ours"] for r in rows)
    total_theirs = sum(r["onednn"] for r in rows)
    print(f"\nconvolutions: ours {total_ours:.3f} ms, oneDNN {total_theirs:.3f} ms "
          f"(x{total_theirs / total_ours:.2f})")
    print("\nlayers losing the most time to oneDNN:")
    for r in sorted(rows, key=lambda r: r["onednn"] - r["ours"])[:args.top]:
        if r["ours"] <= r["onednn"]:
            break
        print(f"  {r['desc']:<48} {r['info']:<30} {r['ours']:.3f} vs {r['onednn']:.3f} ms "
              f"({r['flops'] / r['ours'] / 1e6:.0f} vs {r['flops'] / r['onednn'] / 1e6:.0f} "
              "GFLOP/s)")


if __name__ == "__main__":
    sys.exit(main())
