"""Helpers of the ONNX tests: the Highway targets this machine supports, and runs of
onnx_check.py on one of them (a process per target, SIMD_SYNET_MAX_ISA set)."""

import functools
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))

TARGETS = ["scalar", "sse4", "avx2", "avx512"]
TOLERANCE = 1e-4  # relative to the output's largest magnitude


def environment(target):
    env = dict(os.environ)
    env["SIMD_SYNET_MAX_ISA"] = target
    return env


@functools.lru_cache(maxsize=None)
def supported_targets():
    """The targets whose cap the library honours here (the CPU has them)."""
    found = []
    for target in TARGETS:
        out = subprocess.run([sys.executable, "-c", "import simdsynet; print(simdsynet.isa())"],
                             env=environment(target), capture_output=True, text=True, check=True)
        if out.stdout.strip() == target:
            found.append(target)
    return found


def check(target, models):
    """{name: [relative difference per output]} and {name: error} of `models`, a list of
    (name, onnx path, npz path), run on `target`."""
    arguments = [item for entry in models for item in entry]
    out = subprocess.run([sys.executable, os.path.join(HERE, "onnx_check.py"), *arguments],
                         env=environment(target), capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"onnx_check.py failed on {target}:\n{out.stderr[-4000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["isa"] == target, f"asked for {target}, ran on {result['isa']}"
    return result["differences"], result["errors"]
