// Per-channel layers (SUPPLEMENT.md §4.1-§4.4): PReLU, bias, scale and the fused layers, on
// image tensors of any of the five image layouts. Per-channel arrays hold one float32 per
// channel of the array, i.e. C/b*b for a blocked layout (padded lanes included).
#include "Common.h"

namespace simdsynet_python {

namespace {

// One image tensor in, one of the same layout out.
struct Tensors {
    SimdTensorFormatType format;
    Image image;
    py::array src, dst;

    const float* Src(size_t b) const { return Data<float>(src) + b * image.Size(); }
    float* Dst(size_t b, size_t channels) const {
        return MutableData<float>(dst) + b * channels * image.spatial;
    }
    // A per-channel array of `length` values (default: the tensor's channels) that out must not
    // overlap.
    py::array Param(py::handle value, const char* argument, size_t length = 0) const {
        py::array a = Vector(value, argument, length ? length : image.channels);
        CheckDisjoint(dst, "out", a, argument);
        return a;
    }
};

// src in `format`; out of outChannels channels (default: those of src); out may be src when
// inPlace.
Tensors Prepare(py::handle src, py::handle format, py::handle out, bool inPlace,
                size_t outChannels = 0) {
    Tensors t;
    t.format = ToImageFormat(format, "format", Layouts::Blocked);
    t.src = Input<float>(src, "src");
    t.image = ParseImage(t.src, t.format, "src", Layouts::Blocked);
    t.dst =
        Output<float>(out, "out", t.image.ShapeFor(outChannels ? outChannels : t.image.channels));
    if (inPlace)
        CheckDisjointOrSame(t.dst, "out", t.src, "src");
    else
        CheckDisjoint(t.dst, "out", t.src, "src");
    return t;
}

const float* Ptr(const py::array& a) {
    return Data<float>(a);
}

py::array Prelu(py::handle src, py::handle slope, py::handle format, py::handle out) {
    Tensors t = Prepare(src, format, out, true);
    const float* s = Ptr(t.Param(slope, "slope"));
    RunImages(t.image, [&](size_t b, size_t spatial) {
        SimdSynetPreluLayerForward(t.Src(b), s, t.image.channels, spatial,
                                   t.Dst(b, t.image.channels), t.format);
    });
    return t.dst;
}

py::array AddBias(py::handle dst, py::handle bias, py::handle format) {
    CheckWritable(Input<float>(dst, "dst"), "dst");
    Tensors t = Prepare(dst, format, dst, true);
    const float* b0 = Ptr(t.Param(bias, "bias"));
    RunImages(t.image, [&](size_t b, size_t spatial) {
        SimdSynetAddBias(b0, t.image.channels, spatial, t.Dst(b, t.image.channels), t.format);
    });
    return t.dst;
}

py::array Scale(py::handle src, py::handle scale, py::handle bias, py::handle format,
                py::handle out) {
    Tensors t = Prepare(src, format, out, true);
    const float* s = Ptr(t.Param(scale, "scale"));
    const float* b0 = bias.is_none() ? nullptr : Ptr(t.Param(bias, "bias"));
    RunImages(t.image, [&](size_t b, size_t spatial) {
        SimdSynetScaleLayerForward(t.Src(b), s, b0, t.image.channels, spatial,
                                   t.Dst(b, t.image.channels), t.format);
    });
    return t.dst;
}

// Fused layers 0 and 3 share a signature: (src, two per-channel arrays).
template <void (*Function)(const float*, const float*, const float*, size_t, size_t, float*,
                           SimdTensorFormatType)>
py::array FusedTwo(py::handle src, py::handle first, py::handle second, py::handle format,
                   py::handle out, const char* firstName, const char* secondName) {
    Tensors t = Prepare(src, format, out, true);
    const float* p0 = Ptr(t.Param(first, firstName));
    const float* p1 = Ptr(t.Param(second, secondName));
    RunImages(t.image, [&](size_t b, size_t spatial) {
        Function(t.Src(b), p0, p1, t.image.channels, spatial, t.Dst(b, t.image.channels), t.format);
    });
    return t.dst;
}

py::array Fused1(py::handle src, py::handle bias0, py::handle scale1, py::handle bias1,
                 py::handle format, py::handle out) {
    Tensors t = Prepare(src, format, out, true);
    const float* b0 = Ptr(t.Param(bias0, "bias0"));
    const float* s1 = Ptr(t.Param(scale1, "scale1"));
    const float* b1 = Ptr(t.Param(bias1, "bias1"));
    RunImages(t.image, [&](size_t b, size_t spatial) {
        SimdSynetFusedLayerForward1(t.Src(b), b0, s1, b1, t.image.channels, spatial,
                                    t.Dst(b, t.image.channels), t.format);
    });
    return t.dst;
}

py::array Fused2(py::handle src, py::handle scale, py::handle bias, float slope, py::handle format,
                 py::handle out) {
    Tensors t = Prepare(src, format, out, true);
    const float* s = Ptr(t.Param(scale, "scale"));
    const float* b0 = Ptr(t.Param(bias, "bias"));
    RunImages(t.image, [&](size_t b, size_t spatial) {
        SimdSynetFusedLayerForward2(t.Src(b), s, b0, t.image.channels, spatial, &slope,
                                    t.Dst(b, t.image.channels), t.format);
    });
    return t.dst;
}

py::array Fused4(py::handle src, py::handle bias0, float scale1, float bias1, py::handle format,
                 py::handle out) {
    // The output holds 2*C channels; a blocked array's C is a multiple of its block, which is
    // what the library requires of blocked layouts here.
    Tensors t = Prepare(src, format, py::none(), false);
    size_t c = t.image.channels;
    t.dst = Output<float>(out, "out", t.image.ShapeFor(2 * c));
    CheckDisjoint(t.dst, "out", t.src, "src");
    const float* b0 = Ptr(t.Param(bias0, "bias0"));
    RunImages(t.image, [&](size_t b, size_t spatial) {
        SimdSynetFusedLayerForward4(t.Src(b), b0, &scale1, &bias1, c, spatial, t.Dst(b, 2 * c),
                                    t.format);
    });
    return t.dst;
}

py::array Fused8(py::handle src0, py::handle src1, py::handle src2, py::handle format,
                 py::handle out) {
    Tensors t = Prepare(src0, format, out, true);
    py::array s1 = Input<float>(src1, "src1", ShapeOf(t.src));
    CheckDisjoint(t.dst, "out", s1, "src1");
    const float* s2 = Ptr(t.Param(src2, "src2"));
    RunImages(t.image, [&](size_t b, size_t spatial) {
        SimdSynetFusedLayerForward8(t.Src(b), Ptr(s1) + b * t.image.Size(), s2, t.image.channels,
                                    spatial, t.Dst(b, t.image.channels), t.format);
    });
    return t.dst;
}

py::tuple Fused9(py::handle src0, py::handle src1, py::handle scale, py::handle bias,
                 py::handle format, py::handle out0, py::handle out1, bool concat) {
    Tensors t = Prepare(src0, format, py::none(), false);
    py::array s1 = Input<float>(src1, "src1");
    Image i1 = ParseImage(s1, t.format, "src1", Layouts::Blocked);
    if (i1.batch != t.image.batch || i1.spatialShape != t.image.spatialShape)
        throw py::value_error(Format("src1 %s must have the batch and spatial axes of src0 %s",
                                     ShapeText(ShapeOf(s1)).c_str(),
                                     ShapeText(ShapeOf(t.src)).c_str()));
    size_t c0 = t.image.channels, c1 = i1.channels, ct = c0 + c1;
    Shape shape = t.image.ShapeFor(ct);
    t.dst = Output<float>(out0, "out0", shape);
    py::array d1 = NoArray();
    if (concat || !out1.is_none()) {
        d1 = Output<float>(out1, "out1", shape);
        for (const py::array* input : {&t.src, &s1, &t.dst})
            CheckDisjoint(d1, "out1", *input, input == &t.dst ? "out0" : "an input");
    }
    CheckDisjoint(t.dst, "out0", t.src, "src0");
    CheckDisjoint(t.dst, "out0", s1, "src1");
    py::array scales = t.Param(scale, "scale", ct), biases = t.Param(bias, "bias", ct);
    if (d1) {
        CheckDisjoint(d1, "out1", scales, "scale");
        CheckDisjoint(d1, "out1", biases, "bias");
    }
    const float *sc = Ptr(scales), *bi = Ptr(biases);
    size_t spatialAll = t.image.spatial;
    RunImages(t.image, [&](size_t b, size_t spatial) {
        size_t image = ct * spatialAll;
        SimdSynetFusedLayerForward9(Ptr(t.src) + b * c0 * spatialAll, Ptr(s1) + b * c1 * spatialAll,
                                    sc, bi, c0, c1, spatial, MutableData<float>(t.dst) + b * image,
                                    d1 ? MutableData<float>(d1) + b * image : nullptr, t.format);
    });
    return py::make_tuple(t.dst, d1 ? py::object(d1) : py::object(py::none()));
}

}  // namespace

void RegisterPerChannel(py::module_& m) {
    const char* layouts =
        " Image tensors are (N, C, *spatial) for NCHW, (N, *spatial, C) for NHWC and "
        "(N, C/b, *spatial, b) for NCHW<b>C; per-channel arrays hold one float32 per channel "
        "of the array.";
    m.def("prelu_layer_forward", &Prelu, "src"_a, "slope"_a, "format"_a = "nchw", py::kw_only(),
          "out"_a = py::none(),
          (std::string("PReLU, max(0, x) + slope[c]*min(x, 0) (SimdSynetPreluLayerForward). "
                       "out may be src.") +
           layouts)
              .c_str());
    m.def(
        "add_bias", &AddBias, "dst"_a, "bias"_a, "format"_a = "nchw",
        (std::string("Adds bias[c] to dst in place and returns dst (SimdSynetAddBias).") + layouts)
            .c_str());
    m.def("scale_layer_forward", &Scale, "src"_a, "scale"_a, "bias"_a = py::none(),
          "format"_a = "nchw", py::kw_only(), "out"_a = py::none(),
          (std::string("src*scale[c] (+ bias[c] unless bias is None) "
                       "(SimdSynetScaleLayerForward). out may be src.") +
           layouts)
              .c_str());
    m.def(
        "fused_layer_forward0",
        [](py::handle src, py::handle bias, py::handle scale, py::handle format, py::handle out) {
            return FusedTwo<SimdSynetFusedLayerForward0>(src, bias, scale, format, out, "bias",
                                                         "scale");
        },
        "src"_a, "bias"_a, "scale"_a, "format"_a = "nchw", py::kw_only(), "out"_a = py::none(),
        (std::string("x = src + bias[c]; (x - |x|)*scale[c] + max(0, x) "
                     "(SimdSynetFusedLayerForward0). out may be src.") +
         layouts)
            .c_str());
    m.def("fused_layer_forward1", &Fused1, "src"_a, "bias0"_a, "scale1"_a, "bias1"_a,
          "format"_a = "nchw", py::kw_only(), "out"_a = py::none(),
          (std::string("x = src + bias0[c]; max(0, -x)*scale1[c] + bias1[c] + max(0, x) "
                       "(SimdSynetFusedLayerForward1). out may be src.") +
           layouts)
              .c_str());
    m.def("fused_layer_forward2", &Fused2, "src"_a, "scale"_a, "bias"_a, "slope"_a,
          "format"_a = "nchw", py::kw_only(), "out"_a = py::none(),
          (std::string("x = src*scale[c] + bias[c]; max(0, x) + min(0, x)*slope "
                       "(SimdSynetFusedLayerForward2). out may be src.") +
           layouts)
              .c_str());
    m.def(
        "fused_layer_forward3",
        [](py::handle src, py::handle bias, py::handle scale, py::handle format, py::handle out) {
            return FusedTwo<SimdSynetFusedLayerForward3>(src, bias, scale, format, out, "bias",
                                                         "scale");
        },
        "src"_a, "bias"_a, "scale"_a, "format"_a = "nchw", py::kw_only(), "out"_a = py::none(),
        (std::string("x = src + bias[c]; max(0, x) + min(0, x)*scale[c] "
                     "(SimdSynetFusedLayerForward3: its 2nd argument is the bias, its 3rd the "
                     "negative-side scale). out may be src.") +
         layouts)
            .c_str());
    m.def("fused_layer_forward4", &Fused4, "src"_a, "bias0"_a, "scale1"_a, "bias1"_a,
          "format"_a = "nchw", py::kw_only(), "out"_a = py::none(),
          (std::string("x = src + bias0[c]; an output of 2C channels: max(0, x) in the first C, "
                       "max(0, x*scale1 + bias1) in the next C (SimdSynetFusedLayerForward4; "
                       "scale1 and bias1 are numbers).") +
           layouts)
              .c_str());
    m.def("fused_layer_forward8", &Fused8, "src0"_a, "src1"_a, "src2"_a, "format"_a = "nchw",
          py::kw_only(), "out"_a = py::none(),
          (std::string("src0 + src1*src2[c] (SimdSynetFusedLayerForward8). out may be src0.") +
           layouts)
              .c_str());
    m.def("fused_layer_forward9", &Fused9, "src0"_a, "src1"_a, "scale"_a, "bias"_a,
          "format"_a = "nchw", py::kw_only(), "out0"_a = py::none(), "out1"_a = py::none(),
          "concat"_a = false,
          (std::string("Concatenates src0 and src1 along the channels (CT channels) and returns "
                       "(out0, out1): out0 = max(0, v*scale[c] + bias[c]), out1 the plain "
                       "concatenation when concat is True or out1 is given, else None "
                       "(SimdSynetFusedLayerForward9). scale and bias hold CT values.") +
           layouts)
              .c_str());
}

}  // namespace simdsynet_python
