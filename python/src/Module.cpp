// The extension module simdsynet._simdsynet: errors, enumerations, the library helpers
// (version, instruction set, threads, alignment, tensor formats) and the families, each
// registered by its own file.
#include <limits>

#include "Common.h"

namespace simdsynet_python {

namespace {

// A numpy array over memory from SimdAllocate (aligned for the library's vectors), freed with
// SimdFree when the last array viewing it goes.
py::array AlignedEmpty(py::handle shapeValue, py::handle dtypeValue, py::handle alignValue) {
    py::dtype dtype = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtypeValue));
    Shape shape;
    if (PyIndex_Check(shapeValue.ptr()))
        shape.push_back(py::ssize_t(ToSize(shapeValue, "shape")));
    else
        for (py::handle item : py::reinterpret_borrow<py::sequence>(shapeValue))
            shape.push_back(py::ssize_t(ToSize(item, "shape")));
    size_t bytes = size_t(dtype.itemsize());
    for (py::ssize_t extent : shape) {
        if (extent != 0 && bytes > size_t(std::numeric_limits<py::ssize_t>::max()) / extent)
            throw py::value_error("empty: the array would be too large");
        bytes *= size_t(extent);
    }
    size_t align = alignValue.is_none() ? SimdAlignment() : ToSize(alignValue, "align");
    if (align == 0 || (align & (align - 1)) != 0)
        throw py::value_error(Format("align must be a power of two, not %zu", align));
    void* memory = Run([&] { return SimdAllocate(bytes ? bytes : 1, align); });
    if (memory == nullptr) throw std::bad_alloc();
    py::capsule owner(memory, [](void* p) { SimdFree(p); });
    return py::array(dtype, shape, {}, memory, owner);
}

}  // namespace

void RegisterHelpers(py::module_& m) {
    m.def(
        "version", [] { return std::string(SimdVersion()); },
        "The library version, \"major.minor.patch\" (SimdVersion).");
    m.def(
        "isa", [] { return std::string(SimdSynetIsa()); },
        "The instruction set the library runs on in this process: \"scalar\", \"sse4\", "
        "\"avx2\", \"avx512\" or \"neon\" (SimdSynetIsa; SIMD_SYNET_MAX_ISA lowers it).");
    m.def("alignment", &SimdAlignment,
          "The memory alignment in bytes that suits the instruction set in use (SimdAlignment).");
    m.def(
        "align",
        [](py::handle size, py::handle align) {
            size_t s = ToSize(size, "size"), a = ToSize(align, "align");
            return Run([&] { return SimdAlign(s, a); });
        },
        "size"_a, "align"_a, "size rounded up to a multiple of align, a power of two (SimdAlign).");
    m.def(
        "get_thread_number", [] { return SimdGetThreadNumber(); },
        "The number of threads one call of a function that splits its work may use "
        "(SimdGetThreadNumber; 1 by default).");
    m.def(
        "set_thread_number",
        [](py::handle number) {
            size_t n = ToSize(number, "number");
            Run([&] { SimdSetThreadNumber(n); });
        },
        "number"_a,
        "Sets the thread budget of the functions that split their work, process-wide "
        "(SimdSetThreadNumber: 0 counts as 1, values above 256 as 256). Results do not depend "
        "on it.");
    m.def(
        "last_error",
        [] {
            const char* message = SimdSynetGetLastError();
            return message ? py::object(py::str(message)) : py::object(py::none());
        },
        "The message the last library call of this thread left (SimdSynetGetLastError), or "
        "None. Functions of this module raise simdsynet.Error with it already, so this is "
        "None after any call that returned normally.");
    m.def(
        "set_last_error",
        [](py::object message) {
            if (message.is_none()) {
                SimdSynetSetLastError(nullptr);
                return;
            }
            const std::string text = message.cast<std::string>();
            SimdSynetSetLastError(text.c_str());
        },
        "message"_a,
        "Records `message` (its first 1023 bytes) as this thread's last error, or clears it "
        "with None (SimdSynetSetLastError: for code built on the library that reports through "
        "the same slot).");
    m.def(
        "specify_tensor_format",
        [](py::handle format) {
            auto f = SimdTensorFormatType(ToEnum(format, g_tensorFormat, "format"));
            return FromEnum(g_tensorFormat, SimdSynetSpecifyTensorFormat(f));
        },
        "format"_a,
        "The blocked layout that NCHWXC or OYXIXO stands for on this machine "
        "(SimdSynetSpecifyTensorFormat); TensorFormat.UNKNOWN for any other format.");
    m.def(
        "tensor_alignment",
        [](py::handle format) {
            auto f = SimdTensorFormatType(ToEnum(format, g_tensorFormat, "format"));
            return SimdSynetTensorAlignment(f);
        },
        "format"_a,
        "How many channels a tensor of the layout is padded to a multiple of "
        "(SimdSynetTensorAlignment): 1, 4, 8 or 16; 0 for placeholders and UNKNOWN.");
    m.def("empty", &AlignedEmpty, "shape"_a, "dtype"_a = "float32", "align"_a = py::none(),
          "An uninitialised numpy array whose memory comes from SimdAllocate, aligned to "
          "`align` bytes (default: alignment()), and is given back with SimdFree when the "
          "last view of it is gone.");
}

}  // namespace simdsynet_python

PYBIND11_MODULE(_simdsynet, m) {
    using namespace simdsynet_python;
    m.doc() = "Bindings of the simd-synet C API (include/SimdSynet.h); import simdsynet.";
    InitCommon(m, true);
    RegisterHelpers(m);
    RegisterActivations(m);
    RegisterPerChannel(m);
    RegisterEltwise(m);
    RegisterConversions(m);
    RegisterPooling(m);
    RegisterLayers(m);
    RegisterGemm(m);
    RegisterWinograd(m);
    RegisterContexts(m);
}
