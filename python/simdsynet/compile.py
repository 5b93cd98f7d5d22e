"""Compiles an ONNX model into a network file (.ssn) that runs without Python.

    python3 -m simdsynet.compile MODEL.onnx -o MODEL.ssn [--shape DIMS] [--int8]

The file holds the whole plan: steps and their parameters, folded weights, the buffer plan,
input and output names and shapes (simdsynet.onnx.compile). Run it with the native tools
(simdsynet-run, simdsynet-bench), the C API of SimdSynetRuntime.h, or
simdsynet.onnx.load_compiled. It records no instruction set: a file compiled on x86 runs on
Arm. --shape (DIMS or NAME=DIMS, e.g. 8x3x224x224) fixes the input shapes of a model with
dimensions known only at run time (a dynamic batch is 1 by default); --int8 compiles the INT8
plan, calibrated on random inputs (simdsynet.onnx.load(..., int8=True)).
"""

import argparse
import os
import sys
import time

from ._onnx_graph import Model
from .onnx import UnsupportedModelError, _read, compile as compile_model
from .run import parse_shapes, random_shapes


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m simdsynet.compile",
                                     description="Compiles an ONNX model into a network file.")
    parser.add_argument("model", help="the ONNX model")
    parser.add_argument("-o", "--output", required=True, help="the network file to write")
    parser.add_argument("--shape", action="append", default=[],
                        help="input shape DIMS or NAME=DIMS (e.g. 8x3x224x224) for models with "
                        "dimensions known only at run time (default: batch 1)")
    parser.add_argument("--int8", action="store_true",
                        help="INT8 convolutions, calibrated on random inputs")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        proto = _read(args.model)
        model = Model(proto)
        shapes = None
        if model.dynamic:
            shapes = random_shapes(model, parse_shapes(model, args.shape))
        elif args.shape:
            sys.exit("--shape: the model's input shapes are fixed")
        data = compile_model(proto, args.output, int8=True if args.int8 else None,
                             shapes=shapes)
    except UnsupportedModelError as error:
        sys.exit(f"{args.model}: {error}")
    seconds = time.perf_counter() - start
    print(f"{args.output}: {len(data)} bytes ({os.path.getsize(args.output) / 2**20:.1f} MiB), "
          f"compiled in {seconds:.2f} s")


if __name__ == "__main__":
    main()
