"""Models with dimensions known only at run time (a dynamic batch, a dynamic height and width):
against PyTorch at several shapes in one session on every Highway target this machine
supports, within 1e-4 of each output's largest magnitude; plans compiled ahead (`shapes=`),
the bounded plan cache, shapes that contradict the model, refusals at load and at the first
run, threads sharing one Network at two shapes, and the runner's --shape and --profile."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnx_targets import TOLERANCE, check_runs, supported_targets

zoo = pytest.importorskip("zoo", reason="python3-torch and python3-torchvision are needed")
torch = pytest.importorskip("torch")

import simdsynet.onnx  # noqa: E402
from simdsynet.onnx import UnsupportedModelError  # noqa: E402

SIZE = 32
BATCHES = [1, 3, 8]
ARCHITECTURES = ["resnet18", "mobilenet_v2"]
TARGETS = ["scalar", "sse4", "avx2", "avx512"]


class DynamicSpatial(torch.nn.Module):
    """Height and width known only at run time: convolutions with BatchNorm, a reshape whose
    target comes from the input's shape (Shape -> Gather -> Concat -> Reshape in the export,
    folded per shape), nearest upsampling, a concatenation and a global pooling."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)
        zoo.randomize_batch_norms(self, torch.Generator().manual_seed(4))

    def forward(self, x):
        y = torch.relu(self.bn(self.conv1(x)))
        z = self.conv2(y)
        n, c, h, w = z.shape
        z = torch.sigmoid(z.reshape(n, c, h * w)).reshape(n, c, h, w)
        up = torch.nn.functional.interpolate(z, scale_factor=2.0, mode="nearest")
        both = torch.cat([y, up[:, :, :y.shape[2], :y.shape[3]]], dim=1)
        return both, torch.nn.functional.adaptive_avg_pool2d(both, 1).flatten(1)


SPATIAL_SHAPES = [(1, 3, 16, 16), (2, 3, 12, 20), (1, 3, 9, 7), (2, 3, 16, 16)]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    models = {name: zoo.export_dynamic_batch(name, SIZE, BATCHES) for name in ARCHITECTURES}
    generator = torch.Generator().manual_seed(5)
    inputs = [torch.randn(shape, generator=generator) for shape in SPATIAL_SHAPES]
    axes = {"input": {0: "batch", 2: "height", 3: "width"},
            "output0": {0: "batch", 2: "height2", 3: "width2"}, "output1": {0: "batch"}}
    models["spatial"] = zoo.export_runs(DynamicSpatial().eval(),
                                        str(tmp_path_factory.mktemp("dynamic") / "spatial"),
                                        inputs, axes)
    return models


@pytest.fixture(scope="module")
def results(exported):
    cache = {}

    def get(target):
        if target not in cache:
            cache[target] = check_runs(target, [(n, *exported[n]) for n in exported])
        return cache[target]
    return get


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ARCHITECTURES + ["spatial"])
def test_matches_pytorch_at_every_shape(results, exported, name, target):
    if target not in supported_targets():
        pytest.skip(f"the CPU has no {target}")
    differences, errors = results(target)
    assert name not in errors, errors.get(name)
    ref = np.load(exported[name][1])
    outputs = sum(1 for key in ref.files if key.endswith("_0"))
    # One difference per output and run: every shape ran.
    assert len(differences[name]) == outputs * int(ref["runs"])
    assert max(differences[name]) <= TOLERANCE, differences[name]


def test_exports_are_dynamic(exported):
    """The checks above mean something only if the exports really leave the dimensions open."""
    for name, (path, _) in exported.items():
        net = simdsynet.onnx.load(path)
        assert net.dynamic, name
        assert net.plan_shapes() == [], name
        assert net.inputs[0][1][0] is None, name
    assert simdsynet.onnx.load(exported["spatial"][0]).inputs[0][1] == (None, 3, None, None)


def reference_outputs(npz, r):
    return [npz[f"output{k}_{r}"] for k in range(sum(1 for f in npz.files if f.endswith("_0")))]


def assert_matches(outputs, expected):
    assert len(outputs) == len(expected)
    for y, e in zip(outputs, expected):
        assert y.shape == e.shape
        assert float(np.abs(y - e).max()) <= TOLERANCE * float(np.abs(e).max())


class CountingPlans:
    """Counts the plans a Network compiles."""

    def __init__(self, monkeypatch):
        self.shapes = []
        plan = simdsynet.onnx._Plan

        def counted(model, shapes, *args, **kwargs):
            self.shapes.append(tuple(shapes[name] for name, _ in model.inputs))
            return plan(model, shapes, *args, **kwargs)
        monkeypatch.setattr(simdsynet.onnx, "_Plan", counted)


def test_fixed_shapes_compile_at_load(monkeypatch):
    plans = CountingPlans(monkeypatch)
    path, reference = zoo.export("resnet18", SIZE)
    net = simdsynet.onnx.load(path)
    assert plans.shapes == [((1, 3, SIZE, SIZE),)] and not net.dynamic
    assert net.compile_seconds > 0
    net.run(np.load(reference)["input"])
    assert len(plans.shapes) == 1
    for shape in [(2, 3, SIZE, SIZE), (1, 3, SIZE)]:
        with pytest.raises(ValueError, match="input 'input' must have shape \\(1, 3, 32, 32\\)"):
            net.run(np.zeros(shape, np.float32))
    assert len(plans.shapes) == 1


def test_shapes_compile_ahead(exported, monkeypatch):
    plans = CountingPlans(monkeypatch)
    path, reference = exported["resnet18"]
    ahead = [{"input": (3, 3, SIZE, SIZE)}, {"input": (8, 3, SIZE, SIZE)}]
    net = simdsynet.onnx.load(path, shapes=ahead)
    assert plans.shapes == [((3, 3, SIZE, SIZE),), ((8, 3, SIZE, SIZE),)]
    assert net.plan_shapes() == plans.shapes
    ref = np.load(reference)
    for r in (1, 2):  # batches 3 and 8: compiled already
        assert_matches(net.run(ref[f"input{r}"]), reference_outputs(ref, r))
    assert len(plans.shapes) == 2
    assert_matches(net.run(ref["input0"]), reference_outputs(ref, 0))  # batch 1: compiled now
    assert len(plans.shapes) == 3
    # One shape of a single-input model, and compile() after load.
    net = simdsynet.onnx.load(path, shapes=(2, 3, SIZE, SIZE))
    net.compile({"input": (4, 3, SIZE, SIZE)})
    assert net.plan_shapes() == [((2, 3, SIZE, SIZE),), ((4, 3, SIZE, SIZE),)]


def test_network_file_of_one_shape(exported, tmp_path):
    """A file holds one plan: a model with a dynamic batch compiles for the shape given
    (library call and command line), and is refused without one."""
    path, reference = exported["resnet18"]
    ref = np.load(reference)
    file = tmp_path / "batch3.ssn"
    simdsynet.onnx.compile(path, str(file), shapes={"input": (3, 3, SIZE, SIZE)})
    compiled = simdsynet.onnx.load_compiled(str(file))
    assert compiled.inputs == [("input", (3, 3, SIZE, SIZE))]
    assert_matches(compiled.run(ref["input1"]), reference_outputs(ref, 1))
    with pytest.raises(ValueError, match="one set of input shapes"):
        simdsynet.onnx.compile(path)
    cli = tmp_path / "cli.ssn"
    out = subprocess.run([sys.executable, "-m", "simdsynet.compile", path, "-o", str(cli),
                          "--shape", f"3x3x{SIZE}x{SIZE}"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert cli.read_bytes() == file.read_bytes()


def test_plan_cache_is_bounded_least_recently_run_first(exported, monkeypatch):
    plans = CountingPlans(monkeypatch)
    net = simdsynet.onnx.load(exported["spatial"][0], max_plans=2)
    rng = np.random.default_rng(0)

    def run(batch):
        net.run(rng.standard_normal((batch, 3, 8, 8)).astype(np.float32))
        return [shapes[0][0] for shapes in net.plan_shapes()]

    assert run(1) == [1]
    assert run(2) == [1, 2]
    assert run(1) == [2, 1]
    assert run(3) == [1, 3]  # batch 2 ran least recently: it went
    assert len(plans.shapes) == 3
    assert run(1) == [3, 1] and len(plans.shapes) == 3  # still cached: not compiled again
    assert run(2) == [1, 2] and len(plans.shapes) == 4  # compiled again
    for batch in range(4, 12):
        run(batch)
    assert len(net.plan_shapes()) == 2
    assert len(simdsynet.onnx.load(exported["spatial"][0]).plan_shapes()) == 0
    big = simdsynet.onnx.load(exported["spatial"][0])
    for batch in range(1, 12):
        big.run(rng.standard_normal((batch, 3, 8, 8)).astype(np.float32))
    assert len(big.plan_shapes()) == simdsynet.onnx.MAX_PLANS
    with pytest.raises(ValueError, match="max_plans"):
        simdsynet.onnx.load(exported["spatial"][0], max_plans=0)


@pytest.mark.parametrize("shape, fragments", [
    ((1, 3, SIZE), ["rank 4", "(batch, 3, 32, 32)", "not 3"]),
    ((1, 3, SIZE, SIZE, 1), ["rank 4", "not 5"]),
    ((2, 4, SIZE, SIZE), ["dimension 1 is 3, not 4"]),
    ((2, 3, SIZE, 16), ["dimension 3 is 32, not 16"]),
    ((0, 3, SIZE, SIZE), ["dimension 0 is 0"]),
])
def test_shapes_contradicting_the_model_are_refused(exported, shape, fragments):
    net = simdsynet.onnx.load(exported["resnet18"][0])
    with pytest.raises(ValueError) as error:
        net.run(np.zeros(shape, np.float32))
    assert not isinstance(error.value, UnsupportedModelError)
    for fragment in fragments:
        assert fragment in str(error.value)
    assert "'input'" in str(error.value)
    assert net.plan_shapes() == []  # nothing compiled for a refused shape
    with pytest.raises(ValueError):
        simdsynet.onnx.load(exported["resnet18"][0], shapes={"input": shape})
    # The network still runs a right shape after the refusal.
    path, reference = exported["resnet18"]
    ref = np.load(reference)
    assert_matches(net.run(ref["input1"]), reference_outputs(ref, 1))


def two_input_model(shape_a, shape_b, op="Add"):
    graph = helper.make_graph(
        [helper.make_node(op, ["a", "b"], ["y"], name="add")], "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, shape_a),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, shape_b)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def test_a_named_dimension_takes_one_value_across_inputs():
    net = simdsynet.onnx.load(two_input_model(("n", 2, 3, 3), ("n", 2, 3, 3)))
    a = np.arange(36, dtype=np.float32).reshape(2, 2, 3, 3)
    y, = net.run({"a": a, "b": a})
    np.testing.assert_array_equal(y, a + a)
    with pytest.raises(ValueError, match="dimension 'n' is 2 in input 'a'.*and 1 in input 'b'"):
        net.run({"a": a, "b": a[:1]})
    # Unnamed dynamic dimensions are independent (here they must agree for the Add anyway).
    net = simdsynet.onnx.load(two_input_model((None, 2, 3, 3), ("m", 2, 3, 3)))
    y, = net.run({"a": a[:1], "b": a[:1]})
    np.testing.assert_array_equal(y, a[:1] + a[:1])


def test_unsupported_operator_is_refused_at_load():
    with pytest.raises(UnsupportedModelError, match="node 'add' \\(NoSuchOperator\\)"):
        simdsynet.onnx.load(two_input_model(("n", 2, 3, 3), ("n", 2, 3, 3), "NoSuchOperator"))


def test_shape_dependent_refusal_comes_at_the_first_run_naming_the_node():
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="big_kernel")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, 2, "h", "w"))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("w", TensorProto.FLOAT, (2, 2, 5, 5), np.ones(100))])
    net = simdsynet.onnx.load(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 14)]))
    with pytest.raises(UnsupportedModelError, match="big_kernel"):
        net.run(np.ones((1, 2, 3, 3), np.float32))
    assert net.plan_shapes() == []
    with pytest.raises(UnsupportedModelError, match="big_kernel"):
        net.compile({"x": (1, 2, 4, 4)})
    y, = net.run(np.ones((1, 2, 6, 7), np.float32))
    np.testing.assert_allclose(y, np.full((1, 2, 2, 3), 50.0, np.float32))


def test_int8_needs_fixed_shapes(exported):
    with pytest.raises(UnsupportedModelError, match="INT8.*fixed input shapes.*'input' "
                       "\\(batch, 3, 32, 32\\)"):
        simdsynet.onnx.load(exported["resnet18"][0], int8=True)


def test_threads_give_identical_results_at_every_shape(exported):
    path, reference = exported["mobilenet_v2"]
    ref = np.load(reference)
    net = simdsynet.onnx.load(path, threads=1)
    one = [net.run(ref[f"input{r}"]) for r in range(3)]
    net.threads = 2  # the plans already compiled and those compiled from now on
    net.compile((5, 3, SIZE, SIZE))
    two = [net.run(ref[f"input{r}"]) for r in range(3)]
    for a, b in zip(one, two):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    # Results are the same for any budget, so the budget itself is checked on every plan.
    assert net.threads == 2 and len(net.plan_shapes()) == 4
    assert all(plan.executor.threads == 2 for plan in net._plans.values())


def test_threads_share_one_network_at_two_shapes(exported):
    """Two threads run one Network at batches 3 and 8 at once, starting with both plans not
    compiled: every result equals the one a lone run gives."""
    path, reference = exported["resnet18"]
    ref = np.load(reference)
    alone = simdsynet.onnx.load(path)
    expected = {r: alone.run(ref[f"input{r}"]) for r in (1, 2)}
    for r in (1, 2):
        assert_matches(expected[r], reference_outputs(ref, r))
    shared = simdsynet.onnx.load(path)
    start = threading.Barrier(2)
    failures = []

    def work(r):
        try:
            start.wait()
            for _ in range(6):
                outputs = shared.run(ref[f"input{r}"])
                if not all(np.array_equal(a, b) for a, b in zip(outputs, expected[r])):
                    failures.append(f"run {r} differs")
        except Exception as error:  # reported by the main thread
            failures.append(repr(error))

    threads = [threading.Thread(target=work, args=(r,)) for r in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert sorted(s[0][0] for s in shared.plan_shapes()) == [3, 8]


def test_runner_takes_a_shape_and_profiles_the_compile(exported):
    path, _ = exported["spatial"]
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-m", "simdsynet.run", path, "--shape", "2x3x10x12",
                          "--profile", "--runs", "1"], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "input 'input': shape (2, 3, 10, 12) (declared (batch, 3, height, width))" in out.stdout
    assert "output 'output0': shape (2, 16, 10, 12)" in out.stdout
    assert "compiling the plan for 'input' (2, 3, 10, 12):" in out.stdout
    # Without --shape the batch defaults to 1, but height and width must be given.
    out = subprocess.run([sys.executable, "-m", "simdsynet.run", path], env=env,
                         capture_output=True, text=True)
    assert out.returncode != 0 and "--shape" in out.stderr
    path, _ = exported["resnet18"]
    out = subprocess.run([sys.executable, "-m", "simdsynet.run", path], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "input 'input': shape (1, 3, 32, 32)" in out.stdout
    out = subprocess.run([sys.executable, "-m", "simdsynet.run", path, "--shape", "1x3x32"],
                         env=env, capture_output=True, text=True)
    assert out.returncode != 0 and "rank 4" in out.stderr
