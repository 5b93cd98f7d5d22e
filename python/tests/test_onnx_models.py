"""The twelve torchvision architectures (random weights and BatchNorm statistics, 32x32 inputs
to keep CI fast) through simdsynet.onnx on every Highway target this machine supports, each
output within 1e-4 of PyTorch's (eager, FP32, same input) relative to its largest magnitude;
and results that do not depend on the thread count."""

import os
import subprocess
import sys

import numpy as np
import pytest

from onnx_targets import TOLERANCE, check, supported_targets

zoo = pytest.importorskip("zoo", reason="python3-torch and python3-torchvision are needed")

import simdsynet.onnx  # noqa: E402

SIZE = 32


@pytest.fixture(scope="module")
def exported():
    return {name: zoo.export(name, SIZE) for name in zoo.ARCHITECTURES}


@pytest.fixture(scope="module")
def results(exported):
    cache = {}

    def get(target):
        if target not in cache:
            cache[target] = check(target, [(n, *exported[n]) for n in zoo.ARCHITECTURES])
        return cache[target]
    return get


@pytest.mark.parametrize("target", ["scalar", "sse4", "avx2", "avx512"])
@pytest.mark.parametrize("name", zoo.ARCHITECTURES)
def test_matches_pytorch(results, name, target):
    if target not in supported_targets():
        pytest.skip(f"the CPU has no {target}")
    differences, errors = results(target)
    assert name not in errors, errors.get(name)
    assert max(differences[name]) <= TOLERANCE, differences[name]


# Where the network files of the twelve models are written for the AArch64 suite
# (scripts/test-arm64.sh runs them there under qemu and compares with PyTorch's outputs).
ARM_FILES = os.environ.get("SIMD_SYNET_NETWORK_FILES")
# The native simdsynet-run of the build (set by ctest).
RUN_TOOL = os.environ.get("SIMD_SYNET_RUN_TOOL")


@pytest.mark.parametrize("name", zoo.ARCHITECTURES)
def test_network_file_matches_pytorch(exported, name, tmp_path):
    """The model compiled into a network file, written, read back and run by the runtime's
    loader gives PyTorch's outputs, and exactly those of the in-memory plan."""
    path, reference = exported[name]
    ref = np.load(reference)
    directory = ARM_FILES or str(tmp_path)
    os.makedirs(directory, exist_ok=True)
    file = os.path.join(directory, name + ".ssn")
    simdsynet.onnx.compile(path, file)
    outputs = simdsynet.onnx.load_compiled(file).run(ref["input"])
    direct = simdsynet.onnx.load(path).run(ref["input"])
    for k, y in enumerate(outputs):
        expected = ref[f"output{k}"]
        assert float(np.abs(y - expected).max()) <= TOLERANCE * float(np.abs(expected).max())
        assert np.array_equal(y, direct[k])
    if ARM_FILES:
        np.savez(os.path.join(directory, name + ".npz"), **dict(ref))
    if RUN_TOOL:
        # The native tool (C++ over the runtime's C API) on the same file and input.
        x = os.path.join(str(tmp_path), "input.npy")
        np.save(x, ref["input"])
        subprocess.run([RUN_TOOL, file, "--input", x, "--output-dir", str(tmp_path)],
                       check=True, capture_output=True)
        for k, y in enumerate(outputs):
            assert np.array_equal(np.load(os.path.join(str(tmp_path), f"output{k}.npy")), y)


@pytest.mark.parametrize("name", zoo.ARCHITECTURES)
def test_no_step_writes_outside_its_tensors(exported, name):
    """The plan without memory reuse and with a guard zone after every tensor (and the shared
    scratch), checked after every step: a step given a wrong size fails here."""
    path, reference = exported[name]
    ref = np.load(reference)
    outputs = simdsynet.onnx.Network(path, guard=64).run(ref["input"])
    for k, y in enumerate(outputs):
        expected = ref[f"output{k}"]
        assert float(np.abs(y - expected).max()) <= TOLERANCE * float(np.abs(expected).max())


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "shufflenet_v2_x1_0"])
def test_threads_give_identical_results(exported, name):
    path, reference = exported[name]
    x = np.load(reference)["input"]
    net = simdsynet.onnx.load(path, threads=1)
    one = net.run(x)
    net.threads = 2
    two = net.run(x)
    assert all(np.array_equal(a, b) for a, b in zip(one, two))


def _pin_all_threads(cpus):
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:
            pass  # a thread that just ended


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity")
@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "mnasnet1_0"])
def test_threads_give_identical_results_oversubscribed(exported, name):
    """A budget of 4 threads on one core that two busy processes also want: the pool's workers
    run late or not at all, parts are claimed by whoever comes, and the outputs are still those
    of one thread (timing is for the model benchmark's --busy)."""
    path, reference = exported[name]
    x = np.load(reference)["input"]
    net = simdsynet.onnx.load(path, threads=1)
    one = net.run(x)
    cpus = sorted(os.sched_getaffinity(0))
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        _pin_all_threads(cpus[:1])
        for p in busy:
            os.sched_setaffinity(p.pid, cpus[:1])
        net.threads = 4
        for _ in range(3):
            assert all(np.array_equal(a, b) for a, b in zip(one, net.run(x)))
    finally:
        for p in busy:
            p.kill()
            p.wait()
        _pin_all_threads(cpus)


def test_outputs_are_informative(exported):
    """Random weights must not give degenerate outputs (a constant vector would hide errors)."""
    for name, (_, reference) in exported.items():
        y = np.load(reference)["output0"]
        assert np.std(y) > 1e-3 * np.abs(y).max() > 0, name
