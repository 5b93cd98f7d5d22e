// Normalization (SUPPLEMENT.md §6), softmax, LRN and the inner product (§4.6, §4.7, §4.9).
#include "Common.h"

namespace simdsynet_python {

namespace {

// The library's `buf` scratch is optional for every normalization (NULL: it uses its own or
// none), so it is not part of the Python signatures.
template <class T, class Call>
py::array Normalize(py::handle src, py::handle format, py::handle out,
                    std::initializer_list<std::pair<py::handle, const char*>> perChannel,
                    Call call) {
    auto f = ToImageFormat(format, "format", Layouts::Plain);
    py::array s = Input<T>(src, "src");
    Image image = ParseImage(s, f, "src", Layouts::Plain);
    py::array d = Output<T>(out, "out", ShapeOf(s));
    CheckDisjointOrSame(d, "out", s, "src");
    std::vector<py::array> arrays;
    std::vector<const float*> pointers;
    for (auto& [value, name] : perChannel) {
        arrays.push_back(Vector(value, name, image.channels));
        CheckDisjoint(d, "out", arrays.back(), name);
        pointers.push_back(Data<float>(arrays.back()));
    }
    Run([&] {
        call(Data<T>(s), image.batch, image.channels, image.spatial, pointers.data(), f,
             MutableData<T>(d));
    });
    return d;
}

template <void (*Function)(const float*, size_t, size_t, size_t, const float*, const float*,
                           const float*, SimdTensorFormatType, float*, float*)>
py::array NormalizeShift(py::handle src, py::handle scale, py::handle shift, float eps,
                         py::handle format, py::handle out) {
    return Normalize<float>(src, format, out, {{scale, "scale"}, {shift, "shift"}},
                            [&](const float* s, size_t n, size_t c, size_t sp,
                                const float* const* p, SimdTensorFormatType f, float* d) {
                                Function(s, n, c, sp, p[0], p[1], &eps, f, nullptr, d);
                            });
}

py::array Softmax(py::handle src, int axis, py::handle out) {
    py::array s = Input<float>(src, "src");
    Shape shape = ShapeOf(s);
    int n = int(shape.size());
    if (axis < -n || axis >= n)
        throw py::value_error(Format("axis %d is out of range for %d axes", axis, n));
    size_t a = size_t(axis < 0 ? axis + n : axis);
    size_t outer = Product(shape, 0, a), count = size_t(shape[a]), inner = Product(shape, a + 1);
    py::array d = Output<float>(out, "out", shape);
    CheckDisjointOrSame(d, "out", s, "src");
    Run([&] {
        SimdSynetSoftmaxLayerForward(Data<float>(s), outer, count, inner, MutableData<float>(d));
    });
    return d;
}

py::array Lrn(py::handle src, py::handle half, py::handle k, py::handle format, py::handle out) {
    auto f = ToImageFormat(format, "format", Layouts::Plain);
    size_t h = ToSize(half, "half");
    py::array_t<float> ks = Floats(k, "k", 3);
    py::array s = Input<float>(src, "src");
    Image image = ParseImage(s, f, "src", Layouts::Plain);
    py::array d = Output<float>(out, "out", ShapeOf(s));
    CheckDisjoint(d, "out", s, "src");
    CheckDisjoint(d, "out", ks, "k");
    RunImages(image, [&](size_t b, size_t spatial) {
        SimdSynetLrnLayerCrossChannels(Data<float>(s) + b * image.Size(), h, image.channels,
                                       spatial, ks.data(), MutableData<float>(d) + b * image.Size(),
                                       f);
    });
    return d;
}

py::array InnerProduct(py::handle src, py::handle weight, py::handle bias, py::handle out) {
    py::array w = Input<float>(weight, "weight");
    if (w.ndim() != 2)
        throw py::value_error(
            Format("weight must have shape (count, size), not %s", ShapeText(ShapeOf(w)).c_str()));
    size_t count = size_t(w.shape(0)), size = size_t(w.shape(1));
    py::array s = Input<float>(src, "src");
    Shape shape = ShapeOf(s);
    if (shape.empty() || size_t(shape.back()) != size)
        throw py::value_error(Format("src must have shape (..., %zu) to match weight, not %s", size,
                                     ShapeText(shape).c_str()));
    size_t rows = Product(shape, 0, shape.size() - 1);
    shape.back() = py::ssize_t(count);
    py::array d = Output<float>(out, "out", shape);
    CheckDisjoint(d, "out", s, "src");
    CheckDisjoint(d, "out", w, "weight");
    const float* b = nullptr;
    py::array biases = NoArray();
    if (!bias.is_none()) {
        biases = Vector(bias, "bias", count);
        CheckDisjoint(d, "out", biases, "bias");
        b = Data<float>(biases);
    }
    RunParts(rows, [&](size_t r) {
        SimdSynetInnerProductLayerForward(Data<float>(s) + r * size, Data<float>(w), b, count, size,
                                          MutableData<float>(d) + r * count);
    });
    return d;
}

}  // namespace

void RegisterLayers(py::module_& m) {
    const char* layouts =
        " src is (N, C, *spatial) for NCHW, (N, *spatial, C) for NHWC; scale and shift hold C "
        "float32 values; out may be src.";
    m.def(
        "normalize_layer_forward",
        [](py::handle src, py::handle scale, float eps, py::handle across, py::handle format,
           py::handle out) {
            SimdBool a = ToBool(across, "across_spatial");
            return Normalize<float>(src, format, out, {{scale, "scale"}},
                                    [&](const float* s, size_t n, size_t c, size_t sp,
                                        const float* const* p, SimdTensorFormatType f, float* d) {
                                        SimdSynetNormalizeLayerForward(s, n, c, sp, p[0], &eps, a,
                                                                       f, nullptr, d);
                                    });
        },
        "src"_a, "scale"_a, "eps"_a, "across_spatial"_a = false, "format"_a = "nchw", py::kw_only(),
        "out"_a = py::none(),
        (std::string("L2 normalization: src*scale[c]/sqrt(eps + sum of squares) over the "
                     "channels of each pixel, or over each whole image with across_spatial "
                     "(SimdSynetNormalizeLayerForward).") +
         layouts)
            .c_str());
    m.def("normalize_layer_forward_v2", &NormalizeShift<SimdSynetNormalizeLayerForwardV2>, "src"_a,
          "scale"_a, "shift"_a, "eps"_a, "format"_a = "nchw", py::kw_only(), "out"_a = py::none(),
          (std::string("Layer normalization over the channels of each pixel: (x - mean)/"
                       "sqrt(var + eps)*scale[c] + shift[c] "
                       "(SimdSynetNormalizeLayerForwardV2).") +
           layouts)
              .c_str());
    m.def("normalize_layer_forward_v3", &NormalizeShift<SimdSynetNormalizeLayerForwardV3>, "src"_a,
          "scale"_a, "shift"_a, "eps"_a, "format"_a = "nchw", py::kw_only(), "out"_a = py::none(),
          (std::string("Instance normalization over the pixels of each channel: (x - mean)/"
                       "sqrt(var + eps)*scale[c] + shift[c] "
                       "(SimdSynetNormalizeLayerForwardV3).") +
           layouts)
              .c_str());
    m.def("normalize_layer_forward_v4", &NormalizeShift<SimdSynetNormalizeLayerForwardV4>, "src"_a,
          "scale"_a, "shift"_a, "eps"_a, "format"_a = "nchw", py::kw_only(), "out"_a = py::none(),
          (std::string("Channel-norm reweighting: n[c] = sqrt(sum over pixels of x^2), "
                       "x*(1 + scale[c]*n[c]/(mean of n + eps)) + shift[c] "
                       "(SimdSynetNormalizeLayerForwardV4).") +
           layouts)
              .c_str());
    m.def(
        "normalize_layer_forward16b_v2",
        [](py::handle src, py::handle scale, py::handle shift, float eps, py::handle format,
           py::handle out) {
            return Normalize<uint16_t>(
                src, format, out, {{scale, "scale"}, {shift, "shift"}},
                [&](const uint16_t* s, size_t n, size_t c, size_t sp, const float* const* p,
                    SimdTensorFormatType f, uint16_t* d) {
                    SimdSynetNormalizeLayerForward16bV2(s, n, c, sp, p[0], p[1], &eps, f, nullptr,
                                                        d);
                });
        },
        "src"_a, "scale"_a, "shift"_a, "eps"_a, "format"_a = "nhwc", py::kw_only(),
        "out"_a = py::none(),
        "normalize_layer_forward_v2 on BF16 tensors held in uint16, NHWC only "
        "(SimdSynetNormalizeLayerForward16bV2): statistics in float32, each output rounded once. "
        "src is (N, *spatial, C); out may be src.");
    m.def("softmax_layer_forward", &Softmax, "src"_a, "axis"_a = -1, py::kw_only(),
          "out"_a = py::none(),
          "Softmax along `axis` of a float32 array of any shape, e^(x - max)/sum "
          "(SimdSynetSoftmaxLayerForward with outer/count/inner from the shape). out may be "
          "src.");
    m.def("lrn_layer_cross_channels", &Lrn, "src"_a, "half"_a, "k"_a, "format"_a = "nchw",
          py::kw_only(), "out"_a = py::none(),
          "Local response normalization across channels: src*(k[0] + k[1]*sum)^k[2], the sum of "
          "squares over channels c-half..c+half (SimdSynetLrnLayerCrossChannels; usually "
          "k = (1, alpha/(2*half + 1), -beta)). src is (N, C, *spatial) or (N, *spatial, C).");
    m.def("inner_product_layer_forward", &InnerProduct, "src"_a, "weight"_a, "bias"_a = py::none(),
          py::kw_only(), "out"_a = py::none(),
          "Fully connected layer: out[..., i] = bias[i] + sum_j src[..., j]*weight[i, j] "
          "(SimdSynetInnerProductLayerForward, one call per row of src). weight is "
          "(count, size), src (..., size), out (..., count).");
}

}  // namespace simdsynet_python
