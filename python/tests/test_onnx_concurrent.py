"""One network run by several Python threads at once (run() releases the GIL and each run takes
a workspace of its own from the executor's pool): every result bit-identical to a lone run of
the same input, at a thread budget of 1 and 2, with the guard zones checked per workspace, and
the profile counting every run."""

import threading

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_targets  # noqa: F401 (puts models/ on the import path)

zoo = pytest.importorskip("zoo", reason="python3-torch and python3-torchvision are needed")

import simdsynet.onnx  # noqa: E402

BATCH, SIZE = 4, 32  # the shapes test_onnx_nan exports too
THREADS = 4
ROUNDS = 3


def inputs(shape, count, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(count)]


def run_concurrently(net, xs, threads, rounds=ROUNDS, profile=False):
    """Thread t runs xs[t], xs[t + threads], ... `rounds` times, all threads released at once;
    returns {index of x: [outputs of each run]}."""
    results = {i: [] for i in range(len(xs))}
    errors = []
    start = threading.Barrier(threads)

    def work(t):
        try:
            start.wait()
            for _ in range(rounds):
                for i in range(t, len(xs), threads):
                    results[i].append(net.run(xs[i], profile=profile))
        except BaseException as error:  # noqa: B036 (reported by the main thread)
            errors.append(error)

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors
    return results


def assert_identical(expected, results):
    for i, runs in results.items():
        assert runs, i
        for outputs in runs:
            assert len(outputs) == len(expected[i])
            for a, b in zip(outputs, expected[i]):
                assert np.array_equal(a, b, equal_nan=True), i


# resnet18: convolutions, max pooling, residual Add + ReLU; mobilenet_v3_large: merged
# depthwise convolutions, hard swish, squeeze-excitation (a scale by a computed tensor).
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v3_large"])
def test_architecture_concurrent_runs_match_lone_runs(name, threads):
    path, _ = zoo.export(name, SIZE, batch=BATCH)
    net = simdsynet.onnx.load(path, threads=threads)
    xs = inputs((BATCH, 3, SIZE, SIZE), 2 * THREADS, 21)
    expected = [net.run(x) for x in xs]
    assert_identical(expected, run_concurrently(net, xs, THREADS))
    # The workspaces the concurrent runs left in the pool serve lone runs as the first did.
    assert_identical(expected, {i: [net.run(x)] for i, x in enumerate(xs)})


def write_glue(path):
    """x (2, 3, 6, 5) through the glue steps that keep temporaries (reductions, padding,
    bilinear resizing, log-softmax in the scratch), tiling and a concatenation."""
    rng = np.random.default_rng(5)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    scales = numpy_helper.from_array(np.array([1, 1, 2, 0.625], np.float32), "scales")
    reps = numpy_helper.from_array(np.array([1, 1, 1, 8], np.int64), "reps")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Pad", ["c", "pads"], ["p"], mode="reflect"),  # (2, 4, 9, 8)
        helper.make_node("ReduceMean", ["p"], ["m"], axes=[2, 3], keepdims=1),
        helper.make_node("ReduceMax", ["p"], ["mx"], axes=[3], keepdims=1),
        helper.make_node("Tile", ["mx", "reps"], ["t"]),
        helper.make_node("Mul", ["p", "m"], ["pm"]),
        helper.make_node("Add", ["pm", "t"], ["s"]),
        helper.make_node("Resize", ["s", "", "scales"], ["r"], mode="linear"),
        helper.make_node("Concat", ["r", "c"], ["cc"], axis=2),
        helper.make_node("LogSoftmax", ["cc"], ["y"], axis=1),
        helper.make_node("ReduceSum", ["cc"], ["z"], axes=[1, 2], keepdims=0),
    ]
    pads = numpy_helper.from_array(np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64), "pads")
    graph = helper.make_graph(
        nodes, "glue", [helper.make_tensor_value_info("x", TensorProto.FLOAT, (2, 3, 6, 5))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        [w, scales, reps, pads])
    path.write_bytes(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())


@pytest.mark.parametrize("threads", [1, 2])
def test_glue_concurrent_runs_match_lone_runs(tmp_path, threads):
    model = tmp_path / "glue.onnx"
    write_glue(model)
    net = simdsynet.onnx.load(str(model), threads=threads)
    kinds = {kind for _, kind, _, _ in net.steps()}
    assert {"reduce", "pad", "tile", "resize linear", "log softmax"} <= kinds, kinds
    xs = inputs((2, 3, 6, 5), 2 * THREADS, 22)
    expected = [net.run(x) for x in xs]
    assert_identical(expected, run_concurrently(net, xs, THREADS, rounds=20))


def test_guarded_concurrent_runs(tmp_path):
    """guard: every tensor of the plan followed by a zone checked after every step, in the
    workspace of the run that took it."""
    path, _ = zoo.export("resnet18", SIZE, batch=BATCH)
    net = simdsynet.onnx.Network(path, guard=16)
    xs = inputs((BATCH, 3, SIZE, SIZE), 4, 23)
    expected = [net.run(x) for x in xs]
    assert_identical(expected, run_concurrently(net, xs, 2))
    model = tmp_path / "glue.onnx"
    write_glue(model)
    glue = simdsynet.onnx.Network(str(model), guard=16)
    xs = inputs((2, 3, 6, 5), 4, 24)
    expected = [glue.run(x) for x in xs]
    assert_identical(expected, run_concurrently(glue, xs, 2, rounds=20))


def test_profile_counts_concurrent_runs():
    path, _ = zoo.export("resnet18", SIZE, batch=BATCH)
    net = simdsynet.onnx.load(path)
    xs = inputs((BATCH, 3, SIZE, SIZE), THREADS, 25)
    expected = [net.run(x) for x in xs]
    executor = net._current().executor
    executor.reset_profile()
    assert_identical(expected, run_concurrently(net, xs, THREADS, rounds=2, profile=True))
    p = executor.profile()
    assert p["runs"] == 2 * THREADS
    assert len(p["steps"]) == len(net.steps())
    assert all(0 <= f <= s for f, s in zip(p["fastest"], p["steps"]))
    assert p["total"] >= sum(p["steps"]) > 0
