"""python3 -m simdsynet.run: outputs (shape, top-5 of classifier outputs), inputs from .npy
files, the per-step profile, and the message for a model it refuses."""

import os
import subprocess
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def write_classifier(path):
    """x (1, 3, 4, 4) -> conv -> relu -> global pooling -> flatten -> gemm (1, 8)."""
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(rng.standard_normal((6, 3, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal((8, 6)).astype(np.float32), "fc")]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
             helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
             helper.make_node("Gemm", ["f", "fc"], ["y"], name="classifier", transB=1)]
    graph = helper.make_graph(nodes, "classifier",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, 3, 4, 4))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 8))],
                              inits)
    path.write_bytes(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 14)]).SerializeToString())


def run(*args):
    return subprocess.run([sys.executable, "-m", "simdsynet.run", *map(str, args)],
                          capture_output=True, text=True, env=dict(os.environ))


def test_outputs_and_profile(tmp_path):
    model = tmp_path / "classifier.onnx"
    write_classifier(model)
    x = np.random.default_rng(4).standard_normal((1, 3, 4, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = run(model, "--input", tmp_path / "x.npy", "--profile", "--runs", "2", "--threads", "2")
    assert out.returncode == 0, out.stderr
    import simdsynet.onnx
    y = simdsynet.onnx.load(str(model)).run(x)[0][0]
    top = np.argsort(-y, kind="stable")[:5]
    expected = ", ".join(f"{int(i)} ({y[i]:.5g})" for i in top)
    assert f"item 0 top-5: {expected}" in out.stdout
    assert "output 'y': shape (1, 8)" in out.stdout
    assert "2 thread(s)" in out.stdout
    for kind in ("convolution", "average pooling", "inner product"):
        assert kind in out.stdout
    assert "outside the kernels" in out.stdout


def test_named_inputs_and_random_input(tmp_path):
    model = tmp_path / "add.onnx"
    graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"], name="add")], "add",
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, (2, 3))
                               for n in "ab"],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, (2, 3))])
    model.write_bytes(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 14)]).SerializeToString())
    a = np.full((2, 3), 1.5, np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", a * 2)
    out = run(model, "--input", f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}")
    assert out.returncode == 0, out.stderr
    assert "output 'y': shape (2, 3), min 4.5, max 4.5" in out.stdout
    random = run(model)  # no --input: random inputs (seed 0) for both
    assert random.returncode == 0 and "output 'y': shape (2, 3)" in random.stdout


def write_refused(path):
    """A model the runner refuses: an Erf node named the_erf."""
    graph = helper.make_graph([helper.make_node("Erf", ["x"], ["y"], name="the_erf")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, 2))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 2))])
    path.write_bytes(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 14)]).SerializeToString())


def test_refused_model(tmp_path):
    model = tmp_path / "erf.onnx"
    write_refused(model)
    out = run(model)
    assert out.returncode != 0
    assert "the_erf" in out.stderr and "not supported" in out.stderr
