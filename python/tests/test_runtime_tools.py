"""The native side of network files (runtime/tools/, examples/classify): a model compiled with
`python3 -m simdsynet.compile` runs in simdsynet-run, simdsynet-bench, the classify example and
the test of SimdSynetRuntime.hpp, and gives the Python runner's outputs bit for bit (the same
plan on the same library). ctest gives the programs' paths in SIMD_SYNET_RUN_TOOL,
SIMD_SYNET_BENCH_TOOL, SIMD_SYNET_CLASSIFY and SIMD_SYNET_HPP_TEST."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import simdsynet.onnx

SIZE = 8
CLASSES = 10


def tool(variable):
    path = os.environ.get(variable)
    if not path:
        pytest.skip(f"{variable} is not set (ctest sets it to the built program)")
    return path


def run(*args):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True)


def write_classifier(path, output="logits/y:0"):
    """x (1, 3, 8, 8) -> conv -> relu -> global pooling -> flatten -> gemm (1, 10); the
    output's name holds characters a file name must not."""
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(rng.standard_normal((6, 3, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal((CLASSES, 6)).astype(np.float32), "fc")]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
             helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
             helper.make_node("Gemm", ["f", "fc"], [output], name="classifier", transB=1)]
    graph = helper.make_graph(
        nodes, "classifier",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, 3, SIZE, SIZE))],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, (1, CLASSES))], inits)
    path.write_bytes(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 14)]).SerializeToString())


def compile_model(onnx_path):
    """The README's command."""
    ssn = onnx_path.with_suffix(".ssn")
    out = run(sys.executable, "-m", "simdsynet.compile", onnx_path, "-o", ssn)
    assert out.returncode == 0, out.stderr
    return ssn


@pytest.fixture(scope="module")
def classifier(tmp_path_factory):
    folder = tmp_path_factory.mktemp("classifier")
    model = folder / "classifier.onnx"
    write_classifier(model)
    return model, compile_model(model)


def top5_line(row):
    top = np.argsort(-row, kind="stable")[:5]
    return "top-5: " + ", ".join(f"{int(i)} ({row[i]:.5g})" for i in top)


def test_run_writes_the_python_outputs(classifier, tmp_path):
    model, ssn = classifier
    x = np.random.default_rng(4).standard_normal((1, 3, SIZE, SIZE)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = run(tool("SIMD_SYNET_RUN_TOOL"), ssn, "--input", tmp_path / "x.npy",
              "--output-dir", tmp_path / "out", "--threads", "2")
    assert out.returncode == 0, out.stderr
    expected = simdsynet.onnx.load(str(model)).run(x)[0]
    written = np.load(tmp_path / "out" / "logits_y_0.npy")
    assert written.dtype == np.float32 and written.shape == (1, CLASSES)
    assert np.array_equal(written, expected)
    assert np.array_equal(written, simdsynet.onnx.load_compiled(str(ssn)).run(x)[0])
    assert "2 thread(s)" in out.stdout
    assert f"output 'logits/y:0': shape (1, {CLASSES})" in out.stdout
    assert "item 0 " + top5_line(expected[0]) in out.stdout
    # Named input; random inputs are the same every time.
    named = run(tool("SIMD_SYNET_RUN_TOOL"), ssn, "--input", f"x={tmp_path / 'x.npy'}")
    assert named.returncode == 0 and "item 0 " + top5_line(expected[0]) in named.stdout
    first, second = (run(tool("SIMD_SYNET_RUN_TOOL"), ssn) for _ in range(2))
    assert first.returncode == 0 and "random" in first.stdout and first.stdout == second.stdout


def test_run_several_inputs_and_name_clashes(tmp_path):
    """a + b with outputs 'y/1' and 'y:1' (both y_1 as files) and a 1-D and 0-D shape."""
    model = tmp_path / "add.onnx"
    nodes = [helper.make_node("Add", ["a", "b"], ["y/1"], name="add"),
             helper.make_node("Mul", ["a", "b"], ["y:1"], name="mul")]
    graph = helper.make_graph(
        nodes, "add", [helper.make_tensor_value_info(n, TensorProto.FLOAT, (2, 3)) for n in "ab"],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, (2, 3)) for n in ("y/1", "y:1")])
    model.write_bytes(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 14)]).SerializeToString())
    ssn = compile_model(model)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.full((2, 3), -1.5, np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    out = run(tool("SIMD_SYNET_RUN_TOOL"), ssn, "--input", f"b={tmp_path / 'b.npy'}",
              "--input", f"a={tmp_path / 'a.npy'}", "--output-dir", tmp_path / "out")
    assert out.returncode == 0, out.stderr
    assert np.array_equal(np.load(tmp_path / "out" / "y_1.npy"), a + b)
    assert np.array_equal(np.load(tmp_path / "out" / "y_1_1.npy"), a * b)
    missing = run(tool("SIMD_SYNET_RUN_TOOL"), ssn, "--input", f"a={tmp_path / 'a.npy'}")
    assert missing.returncode != 0 and "input 'b' not given" in missing.stderr
    unnamed = run(tool("SIMD_SYNET_RUN_TOOL"), ssn, "--input", tmp_path / "a.npy")
    assert unnamed.returncode != 0 and "NAME=FILE" in unnamed.stderr
    twice = run(tool("SIMD_SYNET_RUN_TOOL"), ssn, "--input", f"a={tmp_path / 'a.npy'}",
                "--input", f"a={tmp_path / 'a.npy'}")
    assert twice.returncode != 0 and "given twice" in twice.stderr


@pytest.mark.parametrize("array, message", [
    (np.zeros((1, 3, SIZE, SIZE)), "dtype '<f8' is not float32"),
    (np.zeros((1, 3, SIZE, SIZE), ">f4"), "dtype '>f4' is not float32"),
    (np.asfortranarray(np.zeros((1, 3, SIZE, SIZE), np.float32)), "Fortran order"),
    (np.zeros((1, 3, SIZE, SIZE + 1), np.float32),
     f"input 'x': BAD has shape (1, 3, {SIZE}, {SIZE + 1}), the network takes (1, 3, {SIZE}, "
     f"{SIZE})"),
    (np.zeros(5, np.float32), "has shape (5,)"),
])
def test_run_refuses_other_arrays(classifier, tmp_path, array, message):
    path = tmp_path / "bad.npy"
    np.save(path, array)
    out = run(tool("SIMD_SYNET_RUN_TOOL"), classifier[1], "--input", path)
    assert out.returncode != 0
    assert message.replace("BAD", str(path)) in out.stderr


def test_run_refuses_bad_files_and_options(classifier, tmp_path):
    ssn = classifier[1]
    cut = tmp_path / "cut.npy"
    cut.write_bytes(np.lib.format.magic(1, 0) + b"\x20\x00{'descr': '<f4'")
    partial = tmp_path / "partial.npy"
    partial.write_bytes(np.lib.format.magic(1, 0) + b"\x10\x00{'descr': '<f4'}")
    data = tmp_path / "short.npy"
    np.save(data, np.zeros((1, 3, SIZE, SIZE), np.float32))
    data.write_bytes(data.read_bytes()[:-4])
    for args, message in [
            ((ssn, "--input", tmp_path / "none.npy"), "none.npy: cannot open"),
            ((ssn, "--input", ssn), "not a .npy file"),
            ((ssn, "--input", cut), "the .npy header is cut short"),
            ((ssn, "--input", partial), "not a valid .npy header (the header lacks"),
            ((ssn, "--input", data), "bytes of data"),
            ((tmp_path / "none.ssn",), "none.ssn"),
            ((classifier[0],), "not a simd-synet network file"),
            ((ssn, "--threads", "0"), "--threads 0"),
            ((ssn, "--frobnicate"), "unknown option --frobnicate"),
            ((), "no network file given")]:
        out = run(tool("SIMD_SYNET_RUN_TOOL"), *args)
        assert out.returncode != 0 and message in out.stderr, (args, out.stderr)
    assert run(tool("SIMD_SYNET_RUN_TOOL"), "--help").returncode == 0


def test_npy_files_numpy_reads_and_writes(classifier, tmp_path):
    """The writer's header is NumPy's (version 1.0, 64-byte aligned data); the reader takes
    version 2.0 files too."""
    x = np.random.default_rng(6).standard_normal((1, 3, SIZE, SIZE)).astype(np.float32)
    with open(tmp_path / "x.npy", "wb") as f:
        np.lib.format.write_array(f, x, version=(2, 0))
    out = run(tool("SIMD_SYNET_RUN_TOOL"), classifier[1], "--input", tmp_path / "x.npy",
              "--output-dir", tmp_path)
    assert out.returncode == 0, out.stderr
    raw = (tmp_path / "logits_y_0.npy").read_bytes()
    assert raw[:8] == np.lib.format.magic(1, 0)
    header_length = int.from_bytes(raw[8:10], "little")
    assert (10 + header_length) % 64 == 0 and raw[10 + header_length - 1:10 + header_length] == b"\n"
    with open(tmp_path / "logits_y_0.npy", "rb") as f:
        np.lib.format.read_magic(f)
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    assert shape == (1, CLASSES) and not fortran and dtype == np.dtype("<f4")
    expected = simdsynet.onnx.load(str(classifier[0])).run(x)[0]
    assert np.array_equal(np.load(tmp_path / "logits_y_0.npy"), expected)


def test_bench_table_and_profile(classifier, tmp_path):
    ssn = classifier[1]
    out = run(tool("SIMD_SYNET_BENCH_TOOL"), "--threads", "1,2", "--runs", "3", "--warmup", "1",
              "--profile", ssn, ssn)
    assert out.returncode == 0, out.stderr
    rows = re.findall(r"^(\S*classifier\.ssn)\s+(\d+)\s+([\d.]+)\s+([\d.]+)$", out.stdout, re.M)
    assert [int(r[1]) for r in rows] == [1, 2, 1, 2]
    assert all(float(median) >= float(fastest) > 0 for _, _, median, fastest in rows)
    assert "3 run(s) after 1 warm-up run(s)" in out.stdout
    for kind in ("convolution", "average pooling", "inner product"):
        assert kind in out.stdout
    shares = [float(m.group(1)) for m in re.finditer(r"^\s+\d+\s+[\d.]+\s+([\d.]+)\s+", out.stdout,
                                                     re.M)]
    assert len(shares) == 4 * 3 and abs(sum(shares[:3]) - 100) < 0.1
    # A file that fails is reported; the others are still timed.
    bad = run(tool("SIMD_SYNET_BENCH_TOOL"), "--runs", "1", tmp_path / "none.ssn", ssn)
    assert bad.returncode != 0 and "none.ssn" in bad.stderr and "classifier.ssn" in bad.stdout
    for args, message in [(("--threads", "1,x", ssn), "--threads 1,x"),
                          (("--runs", "0", ssn), "--runs 0"), (("--runs",), "needs a value"),
                          (("--profile",), "no network file given")]:
        out = run(tool("SIMD_SYNET_BENCH_TOOL"), *args)
        assert out.returncode != 0 and message in out.stderr, (args, out.stderr)


def reference_preprocess(image, height, width):
    """examples/classify's resize (bilinear, half-pixel centres) and ImageNet normalisation."""
    rgb = image.astype(np.float32) / np.float32(255)
    h, w = rgb.shape[:2]

    def axis(n_out, n_in):
        f = np.maximum(np.float32(0), (np.arange(n_out, dtype=np.float32) + np.float32(0.5))
                       * np.float32(n_in / n_out) - np.float32(0.5))
        i0 = np.minimum(f.astype(np.int64), n_in - 1)
        return i0, np.minimum(i0 + 1, n_in - 1), (f - i0).astype(np.float32)

    y0, y1, wy = axis(height, h)
    x0, x1, wx = axis(width, w)
    wx = wx[None, :, None]
    top = rgb[y0][:, x0] + (rgb[y0][:, x1] - rgb[y0][:, x0]) * wx
    bottom = rgb[y1][:, x0] + (rgb[y1][:, x1] - rgb[y1][:, x0]) * wx
    v = top + (bottom - top) * wy[:, None, None]
    mean = np.array([0.485, 0.456, 0.406], np.float32)
    std = np.array([0.229, 0.224, 0.225], np.float32)
    return ((v - mean) / std).transpose(2, 0, 1)[None].astype(np.float32)


def test_classify_example(classifier, tmp_path):
    model, ssn = classifier
    image = np.random.default_rng(5).integers(0, 256, (11, 13, 3), dtype=np.uint8)
    ppm = tmp_path / "image.ppm"
    ppm.write_bytes(b"P6\n# a comment\n13 11\n255\n" + image.tobytes())
    out = run(tool("SIMD_SYNET_CLASSIFY"), ssn, ppm, "--threads", "2")
    assert out.returncode == 0, out.stderr
    assert f"13x11 resized to {SIZE}x{SIZE}, output 'logits/y:0'" in out.stdout
    found = re.findall(r"^top-(\d): class (\d+) score (\S+)$", out.stdout, re.M)
    assert [int(rank) for rank, _, _ in found] == [1, 2, 3, 4, 5]
    scores = simdsynet.onnx.load(str(model)).run(reference_preprocess(image, SIZE, SIZE))[0][0]
    expected = np.argsort(-scores, kind="stable")[:5]
    assert [int(c) for _, c, _ in found] == expected.tolist()
    np.testing.assert_allclose([float(s) for _, _, s in found], scores[expected], rtol=1e-4,
                               atol=1e-4)
    p3 = tmp_path / "plain.ppm"
    p3.write_bytes(b"P3\n1 1\n255\n0 0 0\n")
    for args, message in [((ssn, p3), "not a binary PPM image"),
                          ((ssn, tmp_path / "none.ppm"), "none.ppm: cannot open"),
                          ((tmp_path / "none.ssn", ppm), "none.ssn"), ((ssn,), "usage")]:
        bad = run(tool("SIMD_SYNET_CLASSIFY"), *args)
        assert bad.returncode != 0 and message in bad.stderr, (args, bad.stderr)


def test_runtime_hpp(classifier):
    out = run(tool("SIMD_SYNET_HPP_TEST"), classifier[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok: 3 steps, output 'logits/y:0' 10 values")
