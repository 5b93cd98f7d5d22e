// A second extension module of the package, built for the tests only (simdsynet._common_probe):
// it checks what a later extension (the ONNX executor) relies on: InitCommon(m, false) makes its
// LibraryError the same simdsynet.Error and its enums the same classes, and both modules call
// one copy of the shared library (one thread budget, one error slot).
#include "Common.h"

PYBIND11_MODULE(_common_probe, m) {
    using namespace simdsynet_python;
    InitCommon(m, false);
    m.def("rejected_call", [] {
        float src = 0.0f, dst = 0.0f, lower = 1.0f, upper = 0.0f;
        Run([&] { SimdSynetRestrictRange32f(&src, 1, &lower, &upper, &dst); });
    });
    m.def("format_value", [](py::handle f) { return ToEnum(f, g_tensorFormat, "format"); });
    m.def("format_member", [](int v) { return FromEnum(g_tensorFormat, v); });
    m.def("thread_number", [] { return SimdGetThreadNumber(); });
}
