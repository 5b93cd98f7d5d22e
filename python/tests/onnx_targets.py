"""Helpers of the ONNX tests: models/ (zoo.py, accuracy.py) on the import path, the Highway
targets this machine supports, and the check of a list of models on one target (a process
per target, SIMD_SYNET_MAX_ISA set; models/accuracy.py)."""

import functools
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))

import accuracy  # noqa: E402

TOLERANCE = 1e-4  # relative to the output's largest magnitude
supported_targets = functools.lru_cache(maxsize=None)(accuracy.supported_targets)


def check(target, models):
    """{name: [relative difference per output]} and {name: error} of `models`, a list of
    (name, onnx path, npz path), run on `target`."""
    return accuracy.check_on(target, models)


def check_runs(target, models):
    """check for models run at several shapes in one session (zoo.export_runs): {name:
    [relative difference per output and run]} and {name: error}."""
    return accuracy.check_on(target, models, runs=True)
