"""Runs an ONNX model on simd-synet and prints its outputs.

    python3 -m simdsynet.run MODEL.onnx [--input x.npy] [--shape DIMS] [--threads N] [--profile]
                             [--int8]

Prints each output's shape and, for classifier outputs (N x K), the top-5 classes and scores
of every batch item. --input takes a .npy file (or NAME=FILE per input of a model with
several); without it the input is random (seed 0), of the declared shape, or of --shape (DIMS
or NAME=DIMS, e.g. 8x3x224x224) where the model has dimensions known only at run time (a
dynamic batch is 1 by default). --profile adds the time of every step of the plan, averaged
over --runs runs, how much of the total is spent outside the library's compute kernels and
how long compiling the plan for the input's shapes took. --int8 runs the convolutions on the
INT8 framework, calibrated on random inputs (simdsynet.onnx.load(..., int8=True)), and
compares the outputs with the FP32 plan's: the largest difference relative to the FP32
output's largest magnitude and, for classifier outputs, how many items keep their top-1 class.
"""

import argparse
import sys

import numpy as np

from . import isa
from .onnx import UnsupportedModelError, load


def parse_shapes(net, specs):
    """--shape values (DIMS, or NAME=DIMS per input; DIMS like 8x3x224x224) as a dict."""
    shapes = {}
    for spec in specs:
        name, _, dims = spec.rpartition("=")
        if not name:
            if len(net.inputs) != 1:
                sys.exit(f"the model has {len(net.inputs)} inputs: give NAME=DIMS for each")
            name = net.inputs[0][0]
        try:
            shapes[name] = tuple(int(d) for d in dims.lower().split("x"))
        except ValueError:
            sys.exit(f"--shape {spec}: the dimensions are not integers separated by 'x'")
    return shapes


def random_shapes(net, shapes):
    """The shapes of random inputs: --shape where given, else the declared shape with a dynamic
    first dimension (the batch) taken as 1; other dynamic dimensions need --shape."""
    result = {}
    for name, declared in net.inputs:
        if name in shapes:
            result[name] = shapes[name]
            continue
        shape = tuple(1 if d is None and i == 0 else d for i, d in enumerate(declared))
        if None in shape:
            sys.exit(f"input '{name}' has dimensions known only at run time {declared}: give "
                     "its shape with --shape")
        result[name] = shape
    return result


def read_inputs(net, specs, shapes=None):
    if not specs:
        rng = np.random.default_rng(0)
        return {name: rng.standard_normal(shape).astype(np.float32)
                for name, shape in random_shapes(net, shapes or {}).items()}
    if len(specs) == 1 and "=" not in specs[0]:
        if len(net.inputs) != 1:
            sys.exit(f"the model has {len(net.inputs)} inputs: give NAME=FILE for each")
        return {net.inputs[0][0]: np.load(specs[0])}
    arrays = {}
    for spec in specs:
        name, _, path = spec.partition("=")
        arrays[name] = np.load(path)
    return arrays


def print_outputs(net, outputs):
    for name, y in zip(net.outputs, outputs):
        print(f"output '{name}': shape {tuple(y.shape)}, min {y.min():.6g}, max {y.max():.6g}")
        if y.ndim == 2 and y.shape[1] >= 5:
            for b, row in enumerate(y):
                top = np.argsort(-row, kind="stable")[:5]
                classes = ", ".join(f"{int(i)} ({row[i]:.5g})" for i in top)
                print(f"  item {b} top-5: {classes}")


def print_agreement(net, int8, fp32):
    for name, a, b in zip(net.outputs, int8, fp32):
        scale = float(np.abs(b).max()) or 1.0
        line = (f"output '{name}' INT8 vs FP32: relative difference "
                f"{float(np.abs(a - b).max()) / scale:.3g}")
        if a.ndim == 2 and a.shape[1] >= 5:
            same = int((a.argmax(axis=1) == b.argmax(axis=1)).sum())
            line += f", top-1 the same for {same} of {a.shape[0]} item(s)"
        print(line)


def print_profile(p, width=60):
    total = p["total_ms"]
    print(f"\n{'#':>4} {'ms':>8} {'min ms':>8} {'%':>6} {'GFLOP/s':>8}  {'kind':<20} "
          f"{'algorithm':<28} step")
    for i, s in enumerate(p["steps"]):
        name = s["name"] if len(s["name"]) <= width else "..." + s["name"][-width + 3:]
        rate = f"{s['flops'] / s['min_ms'] / 1e6:8.1f}" if s["flops"] and s["min_ms"] else " " * 8
        print(f"{i:4d} {s['ms']:8.3f} {s['min_ms']:8.3f} {100 * s['ms'] / total:6.2f} {rate}  "
              f"{s['kind']:<20} {s['info']:<28} {name}")
    kinds = {}
    for s in p["steps"]:
        kinds[s["kind"]] = kinds.get(s["kind"], 0.0) + s["ms"]
    print("\nby kind: " + ", ".join(f"{k} {v:.3f} ms" for k, v in
                                    sorted(kinds.items(), key=lambda kv: -kv[1])))
    print(f"total {total:.3f} ms per run (unprofiled: {p['plain_ms']:.3f} ms); library kernels "
          f"{p['kernel_ms']:.3f} ms; outside the kernels {p['outside_ms']:.3f} ms "
          f"({100 * p['outside_ms'] / total:.2f}%: layout conversions {p['layout_ms']:.3f}, "
          f"glue {p['glue_ms']:.3f}, executor {p['outside_ms'] - p['layout_ms'] - p['glue_ms']:.3f})")
    shapes = ", ".join(f"'{name}' {tuple(shape)}" for name, shape in p["shapes"].items())
    print(f"compiling the plan for {shapes}: {p['compile_ms']:.1f} ms")
    fastest = p["min_kernel_ms"] + p["min_outside_ms"]
    print(f"fastest runs of each step: kernels {p['min_kernel_ms']:.3f} ms, layout and glue "
          f"{p['min_outside_ms']:.3f} ms ({100 * p['min_outside_ms'] / fastest:.2f}%)")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m simdsynet.run", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("model", help="the ONNX model")
    parser.add_argument("--input", action="append", default=[],
                        help="a .npy file, or NAME=FILE per input (default: random)")
    parser.add_argument("--threads", type=int, default=1, help="library threads (default 1)")
    parser.add_argument("--profile", action="store_true", help="print the time of every step")
    parser.add_argument("--runs", type=int, default=10, help="profiled runs (default 10)")
    parser.add_argument("--int8", action="store_true",
                        help="INT8 convolutions (calibrated on random inputs), compared with FP32")
    parser.add_argument("--shape", action="append", default=[],
                        help="random inputs of this shape, DIMS or NAME=DIMS (e.g. 8x3x224x224) "
                        "for models with dimensions known only at run time (default: batch 1)")
    args = parser.parse_args(argv)
    try:
        net = load(args.model, threads=args.threads, int8=True if args.int8 else None)
    except UnsupportedModelError as error:
        sys.exit(f"{args.model}: {error}")
    inputs = read_inputs(net, args.input, parse_shapes(net, args.shape))
    try:
        outputs = net.run(inputs)
    except (UnsupportedModelError, ValueError) as error:
        sys.exit(f"{args.model}: {error}")
    print(f"{args.model}: {len(net.steps())} steps, {net.flops / 1e9:.3f} GFLOP, {isa()}, "
          f"{args.threads} thread(s){', INT8 convolutions' if args.int8 else ''}")
    for name, shape in net.inputs:
        given = tuple(np.shape(inputs[name]))
        line = f"input '{name}': shape {given}"
        if net.dynamic:
            line += f" (declared {net.declared(name)})"
        print(line)
    print_outputs(net, outputs)
    if args.int8:
        print_agreement(net, outputs, load(args.model, threads=args.threads).run(inputs))
    if args.profile:
        print_profile(net.profile(inputs, runs=args.runs))


if __name__ == "__main__":
    main()
