"""simdsynet.onnx operator by operator: small models of our own (models/zoo.py) that cover
what the architectures do not, against PyTorch on every supported target; hand-built graphs
for forms torch does not export (variadic Sum/Mean/Max/Min, Gemm attributes, Resize modes,
opset-11 Softmax, Split, Upsample); the refusals at load (operator, attribute, data type),
each naming the node; a dynamic batch compiled per run shape; and the Python API."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_targets import TOLERANCE, check, supported_targets

import simdsynet
import simdsynet.onnx
from simdsynet.onnx import UnsupportedModelError

zoo = pytest.importorskip("zoo", reason="python3-torch is needed for the coverage models")

RNG = np.random.default_rng(5)


@pytest.fixture(scope="module")
def coverage():
    names = list(zoo.COVERAGE)
    exported = {name: zoo.export(name) for name in names}
    cache = {}

    def get(target):
        if target not in cache:
            cache[target] = check(target, [(n, *exported[n]) for n in names])
        return cache[target]
    return get


@pytest.mark.parametrize("target", ["scalar", "sse4", "avx2", "avx512"])
@pytest.mark.parametrize("name", list(zoo.COVERAGE))
def test_coverage_matches_pytorch(coverage, name, target):
    if target not in supported_targets():
        pytest.skip(f"the CPU has no {target}")
    differences, errors = coverage(target)
    assert name not in errors, errors.get(name)
    assert max(differences[name]) <= TOLERANCE, differences[name]


@pytest.mark.parametrize("name", list(zoo.COVERAGE))
def test_coverage_without_writes_outside_tensors(name):
    path, reference = zoo.export(name)
    ref = np.load(reference)
    for k, y in enumerate(simdsynet.onnx.Network(path, guard=64).run(ref["input"])):
        assert_close(y, ref[f"output{k}"])


def test_guard_zones_catch_a_step_writing_past_its_tensor():
    from simdsynet import _executor
    from simdsynet._onnx_file import NetworkWriter
    writer = NetworkWriter()
    writer.input("x", [1, 20], [0, 1], 0)                  # floats 0-19, guard 32-47
    writer.copy("overrun", [(0, 48, 1, 20, 20, 20)])       # 20 floats into y's 16 at 48
    writer.output("y", [1, 16], [0, 1], 48)                # floats 48-63, guard 64-79
    ex = _executor.load(writer.finish(80, [0]))
    ex.guard([(32, 16), (64, 16)])
    with pytest.raises(simdsynet.Error, match="overrun.*offset 64"):
        ex.run([np.zeros((1, 20), np.float32)])


def test_shuffle_layer_is_used_where_it_maps():
    """ShuffleNet blocks run on the shuffle layer; a shuffled tensor read by something that
    cannot take a channel order keeps the plain transposes."""
    kinds = {name: [s[1] for s in simdsynet.onnx.load(zoo.export(name)[0]).steps()]
             for name in ("shuffles", "shuffles_exposed")}
    assert kinds["shuffles"].count("shuffle") == 7 and "transpose" not in kinds["shuffles"]
    assert "shuffle" not in kinds["shuffles_exposed"]
    assert "transpose" in kinds["shuffles_exposed"]


def test_residual_adds_carry_their_activations():
    """An Add of a convolution's output followed by a ReLU goes into that convolution (its
    residual); any other Add (or Sub) read only by an activation runs as one eltwise step with
    that activation, whatever its operands; an Add read twice keeps its activation apart."""
    steps = simdsynet.onnx.load(zoo.export("residuals")[0]).steps()
    kinds = [s[1] for s in steps]
    assert [s[0].endswith("/Relu_2") or s[0].endswith("/Relu_3")
            for s in steps if s[1] == "convolution+add"] == [True, True]
    assert [k for k in kinds if k.startswith("eltwise")] == [
        "eltwise+hswish", "eltwise+relu", "eltwise+elu", "eltwise+restrict_range",
        "eltwise+sigmoid", "eltwise+hard_sigmoid", "eltwise+tanh", "eltwise+relu", "eltwise",
        "eltwise+relu", "eltwise"]
    assert [s[0].startswith("/Relu") for s in steps if s[1] == "activation"] == [True]


def _two_step_eltwise(self, op):
    """The emission before the activation was fused: the eltwise step, then the activation
    as a step of its own over the whole tensor."""
    from simdsynet._onnx_emit import ELTWISE_CODES, act_step
    from simdsynet._onnx_plan import offset, ref
    y = op.outputs[0]
    self.ex.eltwise(op.name, ELTWISE_CODES[op["op"]], [ref(t) for t in op.inputs],
                    [float(v) for v in op["weights"]], y.size, offset(y), "", [])
    if op.get("act", "identity") != "identity":
        kind, params = act_step(op["act"], op.get("act_params", []))
        self.ex.activation(op.name + "/act", kind, [float(p) for p in params], offset(y),
                           y.size, offset(y))


def _with_specials(x):
    specials = x.copy()
    specials.reshape(-1)[::97] = np.nan
    specials.reshape(-1)[5::89] = np.inf
    specials.reshape(-1)[7::83] = -np.inf
    return specials


def test_fused_eltwise_activation_changes_no_bit(monkeypatch):
    """The chunked eltwise + activation gives the bits of the two separate steps, NaN and
    infinities included (resnet18's Adds, which this covered too, went into its convolutions:
    test_residual_convolutions_change_no_bit)."""
    from simdsynet._onnx_emit import Emitter
    path, reference = zoo.export("residuals")
    x = np.load(reference)["input"]
    specials = _with_specials(x)
    fused = simdsynet.onnx.load(path)
    assert any(s[1].startswith("eltwise+") for s in fused.steps())
    monkeypatch.setattr(Emitter, "emit_eltwise", _two_step_eltwise)
    separate = simdsynet.onnx.load(path)
    assert not any(s[1].startswith("eltwise+") for s in separate.steps())
    for inputs in (x, specials):
        for a, b in zip(fused.run(inputs), separate.run(inputs)):
            np.testing.assert_array_equal(a, b)


def test_residual_convolutions_change_no_bit(monkeypatch):
    """A convolution that adds the residual in its store gives the bits of the convolution and
    the Add + ReLU step after it (the same two roundings in the same order), NaN and infinities
    included: resnet18, on the direct and Winograd kernels."""
    path, reference = zoo.export("resnet18", 32)
    x = np.load(reference)["input"]
    fused = simdsynet.onnx.load(path)
    kinds = [s[1] for s in fused.steps()]
    assert kinds.count("convolution+add") == 8 and "eltwise+relu" not in kinds, kinds
    monkeypatch.setattr(simdsynet.onnx, "fuse_residual_adds", lambda net: None)
    separate = simdsynet.onnx.load(path)
    assert [s[1] for s in separate.steps()].count("eltwise+relu") == 8
    for inputs in (x, _with_specials(x)):
        for a, b in zip(fused.run(inputs), separate.run(inputs)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("h", [2, 4, 6, 10, 58, 116, 232])
def test_shuffle_orders_hold_for_many_blocks(h):
    """Simulates 12 blocks of the library's shuffle on the orders the runner chooses: y0's
    channels always sit at even positions, so d0/d1 are y0/y1 up to their orders."""
    from simdsynet._onnx_shuffle import choose_a, choose_b, shuffled
    pa = choose_a(h)
    for _ in range(12):
        pb = choose_b(h)
        result = shuffled(pa, pb, h)
        assert result is not None
        d0, d1 = result
        assert sorted(d0) == list(range(h)) and sorted(d1) == list(range(h))
        pa = d0


# ---------------------------------------------------------------------------------------------
# Hand-built graphs.

def model(nodes, inputs, outputs, initializers=(), opset=14):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def run(proto, *arrays):
    net = simdsynet.onnx.load(proto.SerializeToString())
    return net.run(arrays[0] if len(arrays) == 1 else dict(zip([n for n, _ in net.inputs],
                                                                arrays)))


def uniform(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def assert_close(actual, expected, tol=TOLERANCE):
    assert actual.shape == expected.shape
    scale = max(float(np.abs(expected).max()), 1e-30)
    assert float(np.abs(actual - expected).max()) / scale <= tol


@pytest.mark.parametrize("op,reference", [
    ("Sum", lambda a, b, c: a + b + c), ("Mean", lambda a, b, c: (a + b + c) / 3),
    ("Max", lambda a, b, c: np.maximum(np.maximum(a, b), c)),
    ("Min", lambda a, b, c: np.minimum(np.minimum(a, b), c))])
@pytest.mark.parametrize("shape", [(1, 5, 3, 4), (2, 7)])
def test_variadic(op, reference, shape):
    a, b, c = uniform(*shape), uniform(*shape), uniform(*shape)
    proto = model([helper.make_node(op, ["a", "b", "c"], ["y"], name="n")],
                  [("a", shape), ("b", shape), ("c", shape)], ["y"])
    assert_close(run(proto, a, b, c)[0], reference(a, b, c))


@pytest.mark.parametrize("trans_b,alpha,beta,bias_shape", [
    (0, 1.0, 1.0, (6,)), (1, 0.5, 2.0, (1, 6)), (0, 1.5, 1.0, ()), (1, 1.0, 1.0, None)])
def test_gemm(trans_b, alpha, beta, bias_shape):
    x, w = uniform(3, 5), uniform(6, 5) if trans_b else uniform(5, 6)
    inits = [("w", w)]
    inputs = ["x", "w"]
    expected = alpha * (x @ (w.T if trans_b else w))
    if bias_shape is not None:
        c = uniform(*bias_shape) if bias_shape else np.float32(0.7)
        inits.append(("c", c))
        inputs.append("c")
        expected = expected + beta * c
    node = helper.make_node("Gemm", inputs, ["y"], name="fc", alpha=alpha, beta=beta,
                            transB=trans_b)
    assert_close(run(model([node], [("x", (3, 5))], ["y"], inits), x)[0], expected)


def nearest_reference(x, sizes, transform, rounding):
    """ONNX Resize (nearest) along H and W, written from the operator's formulas."""
    out = x
    for axis, size in ((2, sizes[0]), (3, sizes[1])):
        n = x.shape[axis]
        scale = size / n
        index = []
        for o in range(size):
            original = {"asymmetric": o / scale,
                        "half_pixel": (o + 0.5) / scale - 0.5,
                        "align_corners": o * (n - 1) / (size - 1) if size > 1 else 0.0}[transform]
            i = {"floor": np.floor(original), "ceil": np.ceil(original),
                 "round_prefer_floor": np.ceil(original - 0.5),
                 "round_prefer_ceil": np.floor(original + 0.5)}[rounding]
            index.append(int(min(max(i, 0), n - 1)))
        out = np.take(out, index, axis=axis)
    return out


@pytest.mark.parametrize("transform,rounding,sizes", [
    ("half_pixel", "round_prefer_floor", (7, 3)), ("align_corners", "round_prefer_ceil", (9, 10)),
    ("asymmetric", "ceil", (4, 13))])
def test_resize_nearest(transform, rounding, sizes):
    x = uniform(2, 3, 5, 6)
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize",
                            mode="nearest", coordinate_transformation_mode=transform,
                            nearest_mode=rounding)
    proto = model([node], [("x", x.shape)], ["y"],
                  [("sizes", np.array([2, 3, *sizes], np.int64))])
    np.testing.assert_array_equal(run(proto, x)[0], nearest_reference(x, sizes, transform,
                                                                       rounding))


def test_upsample_opset9():
    x = uniform(1, 2, 3, 4)
    node = helper.make_node("Upsample", ["x", "scales"], ["y"], name="up", mode="nearest")
    proto = model([node], [("x", x.shape)], ["y"],
                  [("scales", np.array([1, 1, 2, 3], np.float32))], opset=9)
    np.testing.assert_array_equal(run(proto, x)[0], x.repeat(2, 2).repeat(3, 3))


@pytest.mark.parametrize("axis", [1, 2])
def test_softmax_opset11_flattens(axis):
    x = uniform(2, 3, 4, 5)
    proto = model([helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=axis)],
                  [("x", x.shape)], ["y"], opset=11)
    flat = x.reshape(int(np.prod(x.shape[:axis])), -1)
    e = np.exp(flat - flat.max(1, keepdims=True))
    assert_close(run(proto, x)[0], (e / e.sum(1, keepdims=True)).reshape(x.shape))


def test_split_and_multiple_inputs():
    a, b = uniform(1, 6, 3, 3), uniform(1, 6, 3, 3)
    nodes = [helper.make_node("Add", ["a", "b"], ["s"], name="add"),
             helper.make_node("Split", ["s", "parts"], ["p", "q", "r"], name="split", axis=1),
             helper.make_node("Relu", ["q"], ["rq"], name="relu")]
    proto = model(nodes, [("a", a.shape), ("b", b.shape)], ["p", "rq", "r"],
                  [("parts", np.array([1, 2, 3], np.int64))])
    p, q, r = run(proto, a, b)
    s = a + b
    assert_close(p, s[:, :1])
    assert_close(q, np.maximum(s[:, 1:3], 0))
    assert_close(r, s[:, 3:])


# ---------------------------------------------------------------------------------------------
# Refusals: at load, naming the node and the reason.

def refused(proto, *fragments):
    with pytest.raises(UnsupportedModelError) as info:
        simdsynet.onnx.load(proto.SerializeToString())
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_refuses_unknown_operator():
    proto = model([helper.make_node("Relu", ["x"], ["r"], name="fine"),
                   helper.make_node("Erf", ["r"], ["y"], name="the_erf")], [("x", (1, 4))], ["y"])
    refused(proto, "the_erf", "Erf", "not supported")


@pytest.mark.parametrize("node,inits,fragment", [
    (helper.make_node("LRN", ["x"], ["y"], name="lrn", size=4), [], "even"),
    (helper.make_node("AveragePool", ["x"], ["y"], name="pool", kernel_shape=[2, 2],
                      dilations=[2, 2]), [], "dilated"),
    (helper.make_node("Conv", ["x", "w"], ["y"], name="conv3d"),
     [("w", np.zeros((2, 3, 1, 1, 1), np.float32))], "2-D"),
    (helper.make_node("Resize", ["x", "", "scales"], ["y"], name="cubic", mode="cubic"),
     [("scales", np.array([1, 1, 2, 2], np.float32))], "nearest and linear"),
    (helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1, unknown_attribute=3), [],
     "unknown_attribute"),
])
def test_refuses_unsupported_attributes(node, inits, fragment):
    refused(model([node], [("x", (1, 3, 4, 4))], ["y"], inits), node.name, fragment)


def test_refuses_other_data_types():
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.DOUBLE, (1, 3))],
                              [helper.make_tensor_value_info("y", TensorProto.DOUBLE, (1, 3))])
    refused(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), "'x'",
            "DOUBLE")
    proto = model([helper.make_node("Conv", ["x", "w"], ["y"], name="int_conv")],
                  [("x", (1, 2, 3, 3))], ["y"], [("w", np.ones((2, 2, 1, 1), np.int32))])
    refused(proto, "int_conv", "int32")


def test_dynamic_shapes_compile_per_run_shape():
    """A dimension known only at run time is no refusal: the plan is compiled for the shapes
    run (test_onnx_dynamic.py has the rest)."""
    proto = model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                  [("x", ("batch", 3, 8, 8))], ["y"])
    net = simdsynet.onnx.load(proto)
    assert net.inputs == [("x", (None, 3, 8, 8))] and net.dynamic
    for batch in (2, 1):
        x = uniform(batch, 3, 8, 8)
        np.testing.assert_array_equal(net.run(x)[0], np.maximum(x, 0))


def test_refuses_computed_weights():
    nodes = [helper.make_node("Relu", ["w"], ["rw"], name="relu_w"),
             helper.make_node("Conv", ["x", "rw"], ["y"], name="conv")]
    proto = model(nodes, [("x", (1, 2, 3, 3)), ("w", (2, 2, 1, 1))], ["y"])
    refused(proto, "conv", "constant")


def ints(*values):
    return np.array(values, np.int64)


W3 = ("w", np.ones((4, 4, 3, 3), np.float32))  # 3x3 weights for Conv and ConvTranspose


def malformed(op, inputs=("x",), inits=(), fragments=(), opset=14, outputs=1, **attrs):
    node = helper.make_node(op, list(inputs), [f"y{i}" for i in range(outputs)],
                            name=f"bad_{op.lower()}", **attrs)
    return pytest.param(node, list(inits), fragments, opset, id=f"{op}-{'-'.join(fragments)}")


# Each of these crashed the compiler with another exception, loaded a model that means
# something else, or was refused for a wrong reason before the attributes were checked.
@pytest.mark.parametrize("node,inits,fragments,opset", [
    malformed("Conv", ["x", "w"], [W3], ["kernel_shape", "contradicts"], kernel_shape=[5, 5]),
    malformed("ConvTranspose", ["x", "w"], [W3], ["kernel_shape", "contradicts"],
              kernel_shape=[5, 5]),
    malformed("Conv", ["x", "w"], [W3], ["kernel_shape", "where 2"], kernel_shape=[3]),
    malformed("Conv", ["x", "w"], [W3], ["strides", "below 1"], strides=[0, 0]),
    malformed("ConvTranspose", ["x", "w"], [W3], ["strides", "below 1"], strides=[2, 0]),
    malformed("Conv", ["x", "w"], [W3], ["strides", "where 2"], strides=[2]),
    malformed("Conv", ["x", "w"], [W3], ["strides", "not a list of integers"],
              strides=[1.5, 1.0]),
    malformed("Conv", ["x", "w"], [W3], ["dilations", "below 1"], dilations=[0, 1]),
    malformed("ConvTranspose", ["x", "w"], [W3], ["dilations", "below 1"], dilations=[1, -1]),
    malformed("ConvTranspose", ["x", "w"], [W3], ["group", "below 1"], group=0),
    malformed("Conv", ["x", "w"], [W3], ["group", "not an integer"], group=1.0),
    malformed("Conv", ["x", "w"], [W3], ["pads", "not a list of integers"], pads=1),
    malformed("Conv", ["x", "w", "b"], [W3, ("b", np.ones(3, np.float32))], ["bias", "(3,)"]),
    malformed("ConvTranspose", ["x", "w"], [W3], ["output_padding", "not below"],
              strides=[2, 2], pads=[2, 2, 2, 2], output_padding=[2, 2]),
    malformed("ConvTranspose", ["x", "w"], [W3], ["output_padding", "where 2"],
              output_padding=[0]),
    malformed("MaxPool", fragments=["kernel_shape", "required"]),
    malformed("MaxPool", fragments=["kernel_shape", "below 1"], kernel_shape=[0, 2]),
    malformed("AveragePool", fragments=["strides", "below 1"], kernel_shape=[2, 2],
              strides=[0, 0]),
    malformed("AveragePool", fragments=["ceil_mode", "above 1"], kernel_shape=[2, 2],
              ceil_mode=2),
    malformed("LRN", fragments=["size", "required"]),
    malformed("LeakyRelu", fragments=["alpha", "not a number"], alpha="big"),
    malformed("BatchNormalization", ["x", "g", "b", "m", "v"],
              [(n, np.ones(3 if n == "m" else 4, np.float32)) for n in "gbmv"],
              ["'m'", "one value per channel"]),
    malformed("Softmax", fragments=["axis 4 is above 3"], axis=4),
    malformed("Concat", ["x", "x"], fragments=["axis -5 is below -4"], axis=-5),
    malformed("Flatten", fragments=["axis 5 is above 4"], axis=5),
    malformed("ReduceMean", fragments=["axes", "out of range"], axes=[6, 3]),
    malformed("Unsqueeze", ["x", "axes"], [("axes", ints(0, 0))], ["axes", "repeat"]),
    malformed("Squeeze", ["x", "axes"], [("axes", ints(5))], ["axes", "out of range"]),
    malformed("Split", fragments=["num_outputs 3", "2 outputs"], opset=18, outputs=2,
              axis=1, num_outputs=3),
    malformed("Reshape", ["x", "shape"], [("shape", ints(0, 0, 0, 0, 0))],
              ["copies a dimension", "rank 4"]),
    malformed("Slice", ["x", "s", "e", "a", "st"],
              [("s", ints(0)), ("e", ints(2)), ("a", ints(1)), ("st", ints(0))],
              ["steps", "0"]),
    malformed("Pad", ["x", "pads"], [("pads", np.array([0, 0, 1.5, 1, 0, 0, 1, 1]))],
              ["pads", "not a list of integers"]),
    malformed("Resize", ["x", "", "scales"], [("scales", np.array([2, 2], np.float32))],
              ["scales", "4 positive numbers"]),
    malformed("Resize", ["x", "", "scales"],
              [("scales", np.array([1, 1, np.inf, 2], np.float32))], ["scales", "positive"]),
    malformed("Resize", ["x", "", "", "sizes"], [("sizes", ints(1, 4, 12))],
              ["sizes", "where 4"]),
    malformed("Gemm", ["x", "w"], [("w", np.ones(6, np.float32))], ["not a matrix"]),
    malformed("Clip", ["x", "lo"], [("lo", np.zeros(0, np.float32))], ["'lo'", "one value"]),
    malformed("Relu", [], fragments=["first input is missing"]),
])
def test_refuses_malformed_attributes(node, inits, fragments, opset):
    shape = (6, 6) if node.op_type == "Gemm" else (1, 4, 6, 6)
    outputs = list(node.output)
    refused(model([node], [("x", shape)], outputs, inits, opset), f"'{node.name}'", *fragments)


def test_refuses_a_slice_that_reverses_a_whole_axis():
    """Step -1 over the whole axis selects as many elements as the axis holds; it ran as a
    copy."""
    inits = [("s", ints(-1)), ("e", ints(-9)), ("a", ints(1)), ("st", ints(-1))]
    node = helper.make_node("Slice", ["x", "s", "e", "a", "st"], ["y"], name="reverse")
    refused(model([node], [("x", (1, 4, 2, 2))], ["y"], inits), "'reverse'", "step -1")


def test_unforeseen_error_in_a_handler_is_a_refusal(monkeypatch):
    """A malformed form no check covers still refuses the model naming the node, and keeps the
    error that tripped as the cause."""
    from simdsynet import _onnx_lower

    def trips(ctx, node):
        return 1 // 0
    monkeypatch.setitem(_onnx_lower.HANDLERS, "Relu", trips)
    with pytest.raises(UnsupportedModelError, match="'r'.*ZeroDivisionError") as info:
        simdsynet.onnx.load(relu_model().SerializeToString())
    assert isinstance(info.value.__cause__, ZeroDivisionError)


# ---------------------------------------------------------------------------------------------
# The Python API.

def relu_model():
    return model([helper.make_node("Relu", ["x"], ["y"], name="r")], [("x", (1, 3, 4, 5))], ["y"])


def test_api_inputs_outputs_and_errors():
    net = simdsynet.onnx.load(relu_model().SerializeToString())
    assert net.inputs == [("x", (1, 3, 4, 5))] and net.outputs == ["y"]
    x = uniform(1, 3, 4, 5)
    np.testing.assert_array_equal(net.run({"x": x})[0], np.maximum(x, 0))
    np.testing.assert_array_equal(net.run(x.astype(np.float64))[0], np.maximum(x, 0))
    with pytest.raises(ValueError, match="shape"):
        net.run(uniform(1, 3, 4, 4))
    with pytest.raises(ValueError, match="unknown"):
        net.run({"x": x, "z": x})
    with pytest.raises(ValueError):
        net.threads = 0


def test_api_load_from_path_and_profile(tmp_path):
    path = tmp_path / "relu.onnx"
    path.write_bytes(relu_model().SerializeToString())
    net = simdsynet.onnx.load(str(path), threads=2)
    assert net.threads == 2
    p = net.profile(uniform(1, 3, 4, 5), runs=3)
    assert [s["kind"] for s in p["steps"]] == ["activation"]
    assert p["total_ms"] >= p["kernel_ms"] >= 0 and p["outside_ms"] >= 0


def reference_conv(x, w, b, strides, pads, dilations):
    """Direct 2-D convolution from its definition (zero padding), for the tests below."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    padded = np.zeros((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]), np.float64)
    padded[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (padded.shape[2] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (padded.shape[3] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    y = np.zeros((n, o, oh, ow)) + b.reshape(1, o, 1, 1)
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dilations[0], kx * dilations[1]
            window = padded[:, :, y0:y0 + (oh - 1) * strides[0] + 1:strides[0],
                            x0:x0 + (ow - 1) * strides[1] + 1:strides[1]]
            y += np.einsum("nchw,oc->nohw", window, w[:, :, ky, kx])
    return y.astype(np.float32)


@pytest.mark.parametrize("size,kernel,dilations,pads,strides,taps", [
    ((20, 20), (3, 3), (24, 24), (24, 24, 24, 24), (1, 1), 1),   # DeepLab's rate 24: centre only
    ((20, 20), (3, 3), (36, 36), (36, 36, 36, 36), (1, 1), 1),
    ((20, 20), (3, 3), (12, 12), (12, 12, 12, 12), (1, 1), 9),   # rate 12: every row reaches in
    ((5, 9), (3, 3), (6, 2), (6, 2, 6, 2), (1, 1), 3),           # rows pruned, columns kept
    ((6, 6), (5, 5), (3, 3), (7, 6, 5, 9), (2, 2), 16),          # asymmetric pads, stride 2
    ((4, 4), (3, 3), (5, 5), (4, 4, 6, 6), (1, 1), 9),           # pads too small to prune
])
def test_taps_reading_only_padding_are_dropped(size, kernel, dilations, pads, strides, taps):
    """Kernel rows and columns whose taps fall in the zero padding for every output are not
    computed (the FLOP count shows the taps left), and the outputs are the convolution's."""
    x = uniform(2, 8, *size)
    w = uniform(6, 8, *kernel)
    b = uniform(6)
    proto = model([helper.make_node("Conv", ["x", "w", "b"], ["y"], name="atrous",
                                    dilations=list(dilations), pads=list(pads),
                                    strides=list(strides))],
                  [("x", x.shape)], ["y"], [("w", w), ("b", b)])
    net = simdsynet.onnx.load(proto.SerializeToString())
    y = net.run(x)[0]
    expected = reference_conv(x, w, b, strides, pads, dilations)
    assert y.shape == expected.shape
    assert_close(y, expected)
    n, o, oh, ow = expected.shape
    assert net.flops == 2 * n * oh * ow * o * 8 * taps
