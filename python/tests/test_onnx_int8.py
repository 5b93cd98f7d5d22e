"""simdsynet.onnx with INT8 convolutions (load(..., int8=...)): resnet18 and mobilenet_v2 at
32x32 on every Highway target this machine supports, against the FP32 plan; the UINT8 tensors
between convolutions change no result; no step writes outside its tensors; the thread count
changes nothing; the refusal rules and the command line.

The bound: a tensor quantized to 8 bits is off by at most half a step, 1/254 of its range when
signed (zero point 128). The per-layer error bound of test_convolution8i.py (input and weight
rounding over the window) measures a few steps per convolution on these random layers, and
the roundings of successive layers are independent, so they add in quadrature rather than
linearly: about sqrt(L) x 2-3 steps of 1/127 for L convolutions on the longest path
(resnet18: L = 18 -> ~0.08; mobilenet_v2's narrow, residual blocks measure far less).
MAX_DIFFERENCE = 0.15 (19 steps of 1/127) leaves room for that and still fails for a wrong
scale, layout or statistic, which gives differences of order 1 (0.62 on resnet18 when the
calibration's dead channels set the weight scales)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from onnx_targets import supported_targets

zoo = pytest.importorskip("zoo", reason="python3-torch and python3-torchvision are needed")

import simdsynet.onnx  # noqa: E402
from simdsynet import _onnx_int8  # noqa: E402

SIZE = 32
MODELS = ["resnet18", "mobilenet_v2"]
MAX_DIFFERENCE = 0.15
INPUTS = 4  # random test inputs per model and target

# Run in a process capped at one target: prints {"isa", model: {"difference", "top1", "steps",
# "infos"}}.
CHECK = """
import json, sys
import numpy as np
import simdsynet, simdsynet.onnx
result = {"isa": simdsynet.isa()}
for path in sys.argv[2:]:
    fp32 = simdsynet.onnx.load(path)
    int8 = simdsynet.onnx.load(path, int8=True)
    differences, top1 = [], 0
    for i in range(int(sys.argv[1])):
        x = np.random.default_rng(100 + i).standard_normal(fp32.inputs[0][1]).astype(np.float32)
        a, b = int8.run(x)[0], fp32.run(x)[0]
        differences.append(float(np.abs(a - b).max() / np.abs(b).max()))
        top1 += int(a.argmax() == b.argmax())
    steps = [s for s in int8.steps() if s[1] == "int8 convolution"]
    result[path] = dict(difference=max(differences), top1=top1, steps=len(steps),
                        infos=sorted({s[3] for s in steps}),
                        convolutions=sum(s[1] == "convolution" for s in int8.steps()))
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def exported():
    return {name: zoo.export(name, SIZE)[0] for name in MODELS}


@pytest.fixture(scope="module")
def results(exported):
    cache = {}

    def get(target):
        if target not in cache:
            env = dict(os.environ, SIMD_SYNET_MAX_ISA=target)
            out = subprocess.run([sys.executable, "-c", CHECK, str(INPUTS),
                                  *exported.values()], env=env, capture_output=True, text=True)
            assert out.returncode == 0, out.stderr[-4000:]
            cache[target] = json.loads(out.stdout.strip().splitlines()[-1])
            assert cache[target]["isa"] == target
        return cache[target]
    return get


@pytest.mark.parametrize("target", ["scalar", "sse4", "avx2", "avx512"])
@pytest.mark.parametrize("name", MODELS)
def test_int8_plan_close_to_fp32(results, exported, name, target):
    if target not in supported_targets():
        pytest.skip(f"the CPU has no {target}")
    r = results(target)[exported[name]]
    assert r["steps"] > 10 and r["convolutions"] == 0  # every convolution on INT8
    assert all(info.startswith(target + "::") for info in r["infos"]), r["infos"]
    assert 0 < r["difference"] <= MAX_DIFFERENCE, r["difference"]


def random_input(net, seed):
    return np.random.default_rng(seed).standard_normal(net.inputs[0][1]).astype(np.float32)


@pytest.mark.parametrize("name", MODELS)
def test_uint8_between_convolutions_changes_nothing(exported, name, monkeypatch):
    net = simdsynet.onnx.load(exported[name], int8=True)
    monkeypatch.setattr(_onnx_int8, "UINT8_BETWEEN_CONVOLUTIONS", False)
    plain = simdsynet.onnx.load(exported[name], int8=True)
    assert net.uint8_tensors > 0 and plain.uint8_tensors == 0
    x = random_input(net, 5)
    np.testing.assert_array_equal(net.run(x)[0], plain.run(x)[0])


def test_guarded_plan_threads_and_calibration_inputs(exported):
    path = exported["mobilenet_v2"]
    net = simdsynet.onnx.load(path, int8=True)
    x = random_input(net, 6)
    y = net.run(x)[0]
    # No memory reuse and a guard zone after every tensor, checked after every step.
    guarded = simdsynet.onnx.Network(path, guard=64, int8=True)
    np.testing.assert_array_equal(guarded.run(x)[0], y)
    net.threads = 2
    np.testing.assert_array_equal(net.run(x)[0], y)
    # Calibration inputs given as arrays, or as dicts: the same statistics, the same plan.
    samples = _onnx_int8.calibration_inputs(net.inputs, True)
    arrays = simdsynet.onnx.load(path, int8=[s["input"] for s in samples])
    np.testing.assert_array_equal(arrays.run(x)[0], y)
    dicts = simdsynet.onnx.load(path, int8=samples[:2])
    assert not np.array_equal(dicts.run(x)[0], y)  # fewer inputs: other statistics
    with pytest.raises(ValueError, match="at least one calibration input"):
        simdsynet.onnx.load(path, int8=[])


@pytest.mark.parametrize("name", MODELS)
def test_int8_network_file(exported, name, tmp_path):
    """An INT8 plan compiled into a file (its statistics and UINT8 tensors included) and read
    back by the loader runs exactly as the plan in memory, also through the command line."""
    net = simdsynet.onnx.load(exported[name], int8=True)
    x = random_input(net, 7)
    file = tmp_path / (name + ".ssn")
    simdsynet.onnx.compile(exported[name], str(file), int8=True)
    np.testing.assert_array_equal(simdsynet.onnx.load_compiled(str(file)).run(x)[0],
                                  net.run(x)[0])
    cli = tmp_path / "cli.ssn"
    out = subprocess.run([sys.executable, "-m", "simdsynet.compile", exported[name], "-o",
                          str(cli), "--int8"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert cli.read_bytes() == file.read_bytes()


def test_refusals_unchanged(tmp_path):
    from test_onnx_run import write_refused
    model = tmp_path / "erf.onnx"
    write_refused(model)
    for int8 in (None, True):
        with pytest.raises(simdsynet.onnx.UnsupportedModelError, match="the_erf"):
            simdsynet.onnx.load(str(model), int8=int8)


def test_command_line(tmp_path):
    from test_onnx_run import run, write_classifier
    model = tmp_path / "classifier.onnx"
    write_classifier(model)
    out = run(model, "--int8", "--profile", "--runs", "2")
    assert out.returncode == 0, out.stderr
    assert "INT8 convolutions" in out.stdout and "int8 convolution" in out.stdout
    assert "output 'y' INT8 vs FP32: relative difference" in out.stdout
    assert "top-1 the same for" in out.stdout
