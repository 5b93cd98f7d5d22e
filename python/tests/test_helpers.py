"""Library helpers, enumerations and the module's conventions."""

import gc
import pathlib
import re

import numpy as np
import pytest

import simdsynet as ss


def test_version_isa_alignment():
    assert re.fullmatch(r"\d+\.\d+\.\d+", ss.version())
    assert ss.__version__ == ss.version()
    assert ss.isa() in ("scalar", "sse4", "avx2", "avx512", "neon")
    assert ss.alignment() in (16, 32, 64)


def test_align():
    assert ss.align(13, 8) == 16
    assert ss.align(16, 16) == 16
    with pytest.raises(ss.Error, match="SimdAlign"):
        ss.align(13, 6)
    with pytest.raises(ValueError):
        ss.align(-1, 8)


def test_thread_number():
    before = ss.get_thread_number()
    try:
        ss.set_thread_number(3)
        assert ss.get_thread_number() == 3
        ss.set_thread_number(0)
        assert ss.get_thread_number() == 1
    finally:
        ss.set_thread_number(before)
    with pytest.raises(ValueError):
        ss.set_thread_number(-2)
    with pytest.raises(TypeError):
        ss.set_thread_number(1.5)


def test_tensor_formats():
    isa_block = {16: 4, 32: 8, 64: 16}[ss.alignment()]
    expected = {4: ss.TensorFormat.NCHW4C, 8: ss.TensorFormat.NCHW8C, 16: ss.TensorFormat.NCHW16C}
    assert ss.specify_tensor_format(ss.TensorFormat.NCHWXC) is expected[isa_block]
    assert ss.specify_tensor_format("oyxixo") == ss.TensorFormat["OYXI%dO" % isa_block]
    assert ss.specify_tensor_format("nchw") is ss.TensorFormat.UNKNOWN
    assert [ss.tensor_alignment(f) for f in ("nchw", "nhwc", "nchw4c", "nchw8c", "nchw16c",
                                             "nchwxc", "oiyx", "oyxi16o")] == \
        [1, 1, 4, 8, 16, 0, 1, 16]


def test_enum_values_follow_the_abi():
    assert [m.value for m in ss.TensorFormat] == list(range(-1, 12))
    assert ss.TensorData.BF16 == 7 and ss.TensorData.UINT8 == 3
    assert ss.Activation.GELU == 10 and ss.Activation.HSWISH == 6
    assert ss.UnaryOperation.ZERO == 7 and ss.EltwiseOperation.MIN == 3
    assert ss.PixelFormat.RGBA32 == 17 and ss.PixelFormat.BGR24 == 3
    assert ss.Compatibility.INT8_NARROWED == 8 and ss.Compatibility.BF16_MASK == 48


def test_enum_arguments():
    x = np.array([-4.0, 4.0], dtype=np.float32)
    for op in (ss.UnaryOperation.ABS, 0, "abs", "Abs"):
        np.testing.assert_array_equal(ss.unary_operation32f_layer_forward(x, op), [4, 4])
    with pytest.raises(ValueError, match="not a valid UnaryOperation"):
        ss.unary_operation32f_layer_forward(x, 99)
    with pytest.raises(ValueError, match="not a UnaryOperation"):
        ss.unary_operation32f_layer_forward(x, "cube")
    with pytest.raises(TypeError, match="UnaryOperation"):
        ss.unary_operation32f_layer_forward(x, ss.Activation.RELU)
    with pytest.raises(TypeError):
        ss.unary_operation32f_layer_forward(x, True)
    with pytest.raises(TypeError):
        ss.unary_operation32f_layer_forward(x, 1.0)


def test_error_is_a_runtime_error_with_the_library_text():
    assert issubclass(ss.Error, RuntimeError)
    with pytest.raises(ss.Error) as info:
        ss.restrict_range32f(np.zeros(4, np.float32), 1.0, 0.0)
    assert str(info.value) == "SimdSynetRestrictRange32f: lower must not exceed upper"
    assert ss.last_error() == str(info.value)  # the thread's slot until its next call
    ss.relu32f(np.zeros(4, np.float32))
    assert ss.last_error() is None


def test_aligned_empty():
    for align in (None, 64, 4096):
        a = ss.empty((3, 5), np.float32, align)
        assert a.shape == (3, 5) and a.dtype == np.float32
        assert a.ctypes.data % (align or ss.alignment()) == 0
        a[:] = 1.5
        view = a[1:]
        del a
        gc.collect()
        assert (view == 1.5).all()  # the memory lives while a view does
    assert ss.empty(7, "uint8").shape == (7,)
    with pytest.raises(ValueError):
        ss.empty(4, np.float32, 3)


def test_docstrings_name_the_c_functions():
    assert "SimdSynetPoolingMax8u" in ss.pooling_max8u.__doc__
    assert "SimdGemm32fNN" in ss.gemm32f_nn.__doc__
    assert "Error" in ss.__all__ and "Convolution32f" in ss.__all__


HEADER = pathlib.Path(__file__).resolve().parents[2] / "include" / "SimdSynet.h"
# C functions whose Python form is not the mechanical snake-case name.
RENAMED = {"SimdSynetConvert32fTo8u": "convert_32f_to_8u",
           "SimdSynetConvert8uTo32f": "convert_8u_to_32f",
           "SimdSynetGetLastError": "last_error", "SimdSynetSetLastError": "set_last_error",
           "SimdAllocate": "empty", "SimdFree": "empty",
           "SimdRelease": "LayerContext.close"}
CONTEXTS = ("Convolution32f", "Deconvolution32f", "Deconvolution16b", "MergedConvolution32f",
            "Convolution8i")


def snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


@pytest.mark.skipif(not HEADER.exists(), reason="needs the source tree")
def test_every_c_function_has_a_binding():
    names = re.findall(r"^SIMD_API [^(]*?\b(Simd\w+)\s*\(", HEADER.read_text(), re.M)
    assert len(names) > 90
    missing = []
    for name in names:
        short = re.sub(r"^Simd(Synet)?", "", name)
        context = next((c for c in CONTEXTS if short.startswith(c)), None)
        if context:
            method = short[len(context):]
            found = hasattr(ss, context) and (method == "Init" or
                                              hasattr(getattr(ss, context), snake(method)))
        else:
            target = RENAMED.get(name, snake(short))
            obj = ss
            for part in target.split("."):
                obj = getattr(obj, part, None)
            found = obj is not None
        if not found:
            missing.append(name)
    assert not missing


def test_set_last_error_fills_the_threads_slot():
    ss.set_last_error("a runtime's message")
    assert ss.last_error() == "a runtime's message"
    ss.set_last_error("x" * 2000)
    assert ss.last_error() == "x" * 1023
    ss.set_last_error(None)
    assert ss.last_error() is None


def test_a_second_extension_module_shares_the_library_errors_and_enums():
    from simdsynet import _common_probe as probe
    with pytest.raises(ss.Error, match="SimdSynetRestrictRange32f: lower must not exceed"):
        probe.rejected_call()
    assert probe.format_value("nhwc") == 1
    assert probe.format_value(ss.TensorFormat.NCHW16C) == 4
    assert probe.format_member(1) is ss.TensorFormat.NHWC
    with pytest.raises(ValueError, match="not a valid TensorFormat"):
        probe.format_value(42)
    before = ss.get_thread_number()
    try:
        ss.set_thread_number(3)
        assert probe.thread_number() == 3  # one copy of the library in the process
    finally:
        ss.set_thread_number(before)
