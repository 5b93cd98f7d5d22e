"""Runs ONNX models through simdsynet.onnx and compares them with PyTorch's outputs stored by
models/zoo.py. Run as a separate process so that SIMD_SYNET_MAX_ISA (read when the library
loads) picks the instruction set:

    SIMD_SYNET_MAX_ISA=sse4 python3 onnx_check.py NAME MODEL.onnx REFERENCE.npz [NAME ...]

prints one JSON object: {"isa": ..., "differences": {NAME: [relative difference per output]},
"errors": {NAME: message}}. The relative difference is max |ours - torch| / max |torch|.
"""

import json
import sys

import numpy as np

import simdsynet
import simdsynet.onnx


def main(arguments):
    differences, errors = {}, {}
    for i in range(0, len(arguments), 3):
        name, model, reference = arguments[i:i + 3]
        try:
            ref = np.load(reference)
            net = simdsynet.onnx.load(model)
            outputs = net.run(ref["input"])
            diffs = []
            for k, y in enumerate(outputs):
                expected = ref[f"output{k}"]
                if y.shape != expected.shape:
                    raise ValueError(f"output {k} has shape {y.shape}, not {expected.shape}")
                scale = float(np.abs(expected).max()) or 1.0
                diffs.append(float(np.abs(y - expected).max()) / scale)
            differences[name] = diffs
        except Exception as error:  # reported per model, the others still run
            errors[name] = f"{type(error).__name__}: {error}"
    print(json.dumps({"isa": simdsynet.isa(), "differences": differences, "errors": errors}))


if __name__ == "__main__":
    main(sys.argv[1:])
