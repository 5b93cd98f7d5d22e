// Element-wise layers over several tensors (SUPPLEMENT.md §4.5, §4.8): eltwise, the ShuffleNet
// channel shuffle and concatenation.
#include "Common.h"

namespace simdsynet_python {

namespace {

py::array Eltwise(py::sequence src, py::handle type, py::handle weight, py::handle out) {
    auto t = SimdSynetEltwiseOperationType(ToEnum(type, g_eltwiseOperation, "type"));
    size_t count = src.size();
    std::vector<py::array> inputs;
    std::vector<std::string> names;
    for (size_t i = 0; i < count; ++i) {
        names.push_back(Format("src[%zu]", i));
        inputs.push_back(Input<float>(src[i], names[i].c_str()));
        if (i > 0 && ShapeOf(inputs[i]) != ShapeOf(inputs[0]))
            throw py::value_error(Format("%s has shape %s, src[0] %s", names[i].c_str(),
                                         ShapeText(ShapeOf(inputs[i])).c_str(),
                                         ShapeText(ShapeOf(inputs[0])).c_str()));
    }
    if (count < 2) {
        // The library's own message for a count it does not take (nothing is read).
        float none = 0.0f;
        const float* pointers[1] = {&none};
        Run([&] { SimdSynetEltwiseLayerForward(pointers, nullptr, count, 0, t, &none); });
        throw LibraryError("SimdSynetEltwiseLayerForward: count must be at least 2");
    }
    py::array d = Output<float>(out, "out", ShapeOf(inputs[0]));
    for (size_t i = 0; i < count; ++i) {
        // In place is allowed on the first two inputs only.
        if (i < 2)
            CheckDisjointOrSame(d, "out", inputs[i], names[i].c_str());
        else
            CheckDisjoint(d, "out", inputs[i], names[i].c_str());
    }
    const float* w = nullptr;
    py::array weights = NoArray();
    if (!weight.is_none()) {
        weights = Vector(weight, "weight", count);
        CheckDisjoint(d, "out", weights, "weight");
        w = Data<float>(weights);
    }
    std::vector<const float*> pointers;
    for (const py::array& a : inputs) pointers.push_back(Data<float>(a));
    size_t size = size_t(d.size());
    float* dst = MutableData<float>(d);
    Run([&] { SimdSynetEltwiseLayerForward(pointers.data(), w, count, size, t, dst); });
    return d;
}

py::tuple Shuffle(py::handle src0, py::handle src1, py::handle format, py::handle out0,
                  py::handle out1) {
    auto f = ToImageFormat(format, "format", Layouts::Plain);
    py::array s0 = Input<float>(src0, "src0"), s1 = Input<float>(src1, "src1");
    Image i0 = ParseImage(s0, f, "src0", Layouts::Plain);
    Image i1 = ParseImage(s1, f, "src1", Layouts::Plain);
    if (i1.batch != i0.batch || i1.spatialShape != i0.spatialShape)
        throw py::value_error(Format("src1 %s must have the batch and spatial axes of src0 %s",
                                     ShapeText(ShapeOf(s1)).c_str(),
                                     ShapeText(ShapeOf(s0)).c_str()));
    size_t c0 = i0.channels, c1 = i1.channels, dstC = (c0 + c1) / 2;
    // Odd channel counts are the library's to reject (with its message).
    py::array d0 = Output<float>(out0, "out0", i0.ShapeFor(dstC));
    py::array d1 = Output<float>(out1, "out1", i0.ShapeFor(dstC));
    for (const py::array* d : {&d0, &d1}) {
        const char* name = d == &d0 ? "out0" : "out1";
        CheckDisjoint(*d, name, s0, "src0");
        CheckDisjoint(*d, name, s1, "src1");
    }
    CheckDisjoint(d1, "out1", d0, "out0");
    size_t spatialAll = i0.spatial;
    RunImages(i0, [&](size_t b, size_t spatial) {
        SimdSynetShuffleLayerForward(Data<float>(s0) + b * c0 * spatialAll, c0,
                                     Data<float>(s1) + b * c1 * spatialAll, c1, spatial,
                                     MutableData<float>(d0) + b * dstC * spatialAll,
                                     MutableData<float>(d1) + b * dstC * spatialAll, dstC, f);
    });
    return py::make_tuple(d0, d1);
}

// numpy.concatenate for the library: C-ordered float32 arrays that agree on every axis but
// `axis`; the rows are the axes before it, a row of array i its elements from `axis` on.
py::array Concat(py::sequence src, long axis, py::handle out) {
    const size_t count = src.size();
    if (count == 0) {
        // The library's own message for a count it does not take (nothing is read).
        float none = 0.0f;
        const float* pointers[1] = {&none};
        const size_t size[1] = {1};
        Run([&] { SimdSynetConcatLayerForward(0, pointers, size, 1, &none); });
        throw LibraryError("SimdSynetConcatLayerForward: count must be at least 1");
    }
    std::vector<py::array> inputs;
    std::vector<std::string> names;
    for (size_t i = 0; i < count; ++i) {
        names.push_back(Format("src[%zu]", i));
        inputs.push_back(Input<float>(src[i], names[i].c_str()));
    }
    const Shape first = ShapeOf(inputs[0]);
    const long rank = long(first.size());
    if (rank == 0) throw py::value_error("src[0] must have at least one axis");
    if (axis < -rank || axis >= rank)
        throw py::value_error(Format("axis %ld is out of range for %ld axes", axis, rank));
    const size_t a = size_t(axis < 0 ? axis + rank : axis);
    Shape shape = first;
    shape[a] = 0;
    std::vector<size_t> sizes;
    for (size_t i = 0; i < count; ++i) {
        const Shape si = ShapeOf(inputs[i]);
        bool same = si.size() == first.size();
        for (size_t k = 0; same && k < si.size(); ++k) same = k == a || si[k] == first[k];
        if (!same)
            throw py::value_error(Format("%s has shape %s, src[0] %s: only axis %zu may differ",
                                         names[i].c_str(), ShapeText(si).c_str(),
                                         ShapeText(first).c_str(), a));
        shape[a] += si[a];
        sizes.push_back(Product(si, a));
    }
    py::array d = Output<float>(out, "out", shape);
    for (size_t i = 0; i < count; ++i) CheckDisjoint(d, "out", inputs[i], names[i].c_str());
    std::vector<const float*> pointers;
    for (const py::array& x : inputs) pointers.push_back(Data<float>(x));
    const size_t outer = Product(first, 0, a);
    float* dst = MutableData<float>(d);
    Run([&] { SimdSynetConcatLayerForward(count, pointers.data(), sizes.data(), outer, dst); });
    return d;
}

}  // namespace

void RegisterEltwise(py::module_& m) {
    m.def("eltwise_layer_forward", &Eltwise, "src"_a, "type"_a, "weight"_a = py::none(),
          py::kw_only(), "out"_a = py::none(),
          "Combines the arrays of the sequence src (at least 2, one shape) element by element, "
          "folded left to right: PRODUCT, SUM (weighted by weight, one float32 per array), MAX "
          "or MIN (SimdSynetEltwiseLayerForward; type: EltwiseOperation). out may be src[0] "
          "or src[1].");
    m.def("shuffle_layer_forward", &Shuffle, "src0"_a, "src1"_a, "format"_a = "nchw", py::kw_only(),
          "out0"_a = py::none(), "out1"_a = py::none(),
          "ShuffleNet-v2 shuffle and split: the channels of src0 and src1 (even counts) taken "
          "as one tensor; its even channels go to out0 and its odd ones to out1, returned as "
          "(out0, out1) (SimdSynetShuffleLayerForward). Tensors (N, C, *spatial) for NCHW, "
          "(N, *spatial, C) for NHWC.");
    m.def("concat_layer_forward", &Concat, "src"_a, "axis"_a = -1, py::kw_only(),
          "out"_a = py::none(),
          "Joins the float32 arrays of the sequence src (at least 1) along axis, as "
          "numpy.concatenate does; they must agree on every other axis. Bits are copied "
          "unchanged; large copies split over the thread budget (SimdSynetConcatLayerForward: "
          "rows are the axes before axis).");
}

}  // namespace simdsynet_python
