// Pooling (SUPPLEMENT.md §5): average and max pooling of (N, C, H, W) or (N, H, W, C) tensors,
// one library call per image. The output size comes from the kernel, stride and the pads of both
// sides (the C functions take the top/left pads and the output size: the bottom/right pads only
// decide how far the windows reach).
#include "Common.h"

namespace simdsynet_python {

namespace {

// Output extent of one axis: floor or ceil of (n + pad + padEnd - kernel)/stride + 1; in ceil
// mode a last window that would start beyond the input and its leading pad is dropped.
size_t OutputExtent(size_t n, size_t kernel, size_t stride, size_t pad, size_t padEnd, bool ceil,
                    const char* axis) {
    if (kernel == 0 || stride == 0)
        throw py::value_error(Format("the %s kernel and stride must be at least 1", axis));
    if (n + pad + padEnd < kernel)
        throw py::value_error(Format("the %s kernel (%zu) is larger than the padded input (%zu)",
                                     axis, kernel, n + pad + padEnd));
    size_t span = n + pad + padEnd - kernel;
    size_t extent = (ceil ? (span + stride - 1) / stride : span / stride) + 1;
    if (ceil && (extent - 1) * stride >= n + pad) --extent;
    return extent;
}

struct Window {
    size_t kernelY, kernelX, strideY, strideX, padY, padX;
};

struct Pooling {
    SimdTensorFormatType format;
    py::array src, dst;
    size_t batch, channels, height, width, dstChannels, dstH, dstW;
    Window w;

    size_t SrcImage() const { return channels * height * width; }
    size_t DstImage() const { return dstChannels * dstH * dstW; }
};

Shape ImageShape(SimdTensorFormatType format, size_t n, size_t c, size_t h, size_t w) {
    if (format == SimdTensorFormatNhwc)
        return {py::ssize_t(n), py::ssize_t(h), py::ssize_t(w), py::ssize_t(c)};
    return {py::ssize_t(n), py::ssize_t(c), py::ssize_t(h), py::ssize_t(w)};
}

// src (N, C, H, W) or (N, H, W, C) of T; `channelPool` (kernel_c, stride_c, pad_c, pad_c_end)
// only for 3D max pooling.
template <class T>
Pooling Prepare(py::handle src, py::handle format, py::handle kernel, py::handle stride,
                py::handle pad, py::handle padEnd, bool ceil, py::handle out,
                const std::vector<size_t>* channelPool = nullptr) {
    Pooling p;
    p.format = ToImageFormat(format, "format", Layouts::Plain);
    p.src = Input<T>(src, "src");
    if (p.src.ndim() != 4)
        throw py::value_error(
            Format("src must have shape %s, not %s",
                   p.format == SimdTensorFormatNhwc ? "(N, H, W, C)" : "(N, C, H, W)",
                   ShapeText(ShapeOf(p.src)).c_str()));
    Image image = ParseImage(p.src, p.format, "src", Layouts::Plain);
    p.batch = image.batch;
    p.channels = image.channels;
    p.height = size_t(image.spatialShape[0]);
    p.width = size_t(image.spatialShape[1]);
    std::vector<size_t> k = ToSizes(kernel, 2, "kernel");
    std::vector<size_t> s =
        stride.is_none() ? std::vector<size_t>{1, 1} : ToSizes(stride, 2, "stride");
    std::vector<size_t> p0 = ToSizes(pad, 2, "pad");
    std::vector<size_t> p1 = padEnd.is_none() ? p0 : ToSizes(padEnd, 2, "pad_end");
    p.w = {k[0], k[1], s[0], s[1], p0[0], p0[1]};
    p.dstH = OutputExtent(p.height, k[0], s[0], p0[0], p1[0], ceil, "vertical");
    p.dstW = OutputExtent(p.width, k[1], s[1], p0[1], p1[1], ceil, "horizontal");
    p.dstChannels = channelPool
                        ? OutputExtent(p.channels, (*channelPool)[0], (*channelPool)[1],
                                       (*channelPool)[2], (*channelPool)[3], ceil, "channel")
                        : p.channels;
    p.dst = Output<T>(out, "out", ImageShape(p.format, p.batch, p.dstChannels, p.dstH, p.dstW));
    CheckDisjoint(p.dst, "out", p.src, "src");
    return p;
}

// One call per image: call(src, dst) with the image's pointers.
template <class T, class Call>
py::array RunPooling(const Pooling& p, Call call) {
    RunParts(p.batch, [&](size_t b) {
        call(Data<T>(p.src) + b * p.SrcImage(), MutableData<T>(p.dst) + b * p.DstImage());
    });
    return p.dst;
}

template <void (*Function)(const float*, size_t, size_t, size_t, size_t, size_t, size_t, size_t,
                           size_t, size_t, float*, size_t, size_t, SimdBool, SimdTensorFormatType)>
py::array Average(py::handle src, py::handle kernel, py::handle stride, py::handle pad,
                  py::handle padEnd, py::handle excludePad, py::handle format, bool ceil,
                  py::handle out) {
    SimdBool exclude = ToBool(excludePad, "exclude_pad");
    Pooling p = Prepare<float>(src, format, kernel, stride, pad, padEnd, ceil, out);
    return RunPooling<float>(p, [&](const float* s, float* d) {
        Function(s, p.channels, p.height, p.width, p.w.kernelY, p.w.kernelX, p.w.strideY,
                 p.w.strideX, p.w.padY, p.w.padX, d, p.dstH, p.dstW, exclude, p.format);
    });
}

py::array ForwardMax(py::handle src, py::handle kernel, py::handle stride, py::handle pad,
                     py::handle padEnd, py::handle format, bool ceil, py::handle out) {
    Pooling p = Prepare<float>(src, format, kernel, stride, pad, padEnd, ceil, out);
    SimdBool trans = p.format == SimdTensorFormatNhwc ? SimdTrue : SimdFalse;
    return RunPooling<float>(p, [&](const float* s, float* d) {
        SimdSynetPoolingForwardMax(s, p.channels, p.height, p.width, p.w.kernelY, p.w.kernelX,
                                   p.w.strideY, p.w.strideX, p.w.padY, p.w.padX, d, p.dstH, p.dstW,
                                   trans);
    });
}

py::array Max32f(py::handle src, py::handle kernel, py::handle stride, py::handle pad,
                 py::handle padEnd, py::handle format, bool ceil, py::handle kernelC,
                 py::handle strideC, py::handle padC, py::handle padCEnd, py::handle out) {
    std::vector<size_t> c{ToSize(kernelC, "kernel_c"), ToSize(strideC, "stride_c"),
                          ToSize(padC, "pad_c"), 0};
    c[3] = padCEnd.is_none() ? c[2] : ToSize(padCEnd, "pad_c_end");
    Pooling p = Prepare<float>(src, format, kernel, stride, pad, padEnd, ceil, out, &c);
    return RunPooling<float>(p, [&](const float* s, float* d) {
        SimdSynetPoolingMax32f(s, p.channels, p.height, p.width, c[0], p.w.kernelY, p.w.kernelX,
                               c[1], p.w.strideY, p.w.strideX, c[2], p.w.padY, p.w.padX, d,
                               p.dstChannels, p.dstH, p.dstW, p.format);
    });
}

template <class T,
          void (*Function)(const T*, size_t, size_t, size_t, size_t, size_t, size_t, size_t, size_t,
                           size_t, T*, size_t, size_t, SimdTensorFormatType)>
py::array MaxTyped(py::handle src, py::handle kernel, py::handle stride, py::handle pad,
                   py::handle padEnd, py::handle format, bool ceil, py::handle out) {
    Pooling p = Prepare<T>(src, format, kernel, stride, pad, padEnd, ceil, out);
    return RunPooling<T>(p, [&](const T* s, T* d) {
        Function(s, p.channels, p.height, p.width, p.w.kernelY, p.w.kernelX, p.w.strideY,
                 p.w.strideX, p.w.padY, p.w.padX, d, p.dstH, p.dstW, p.format);
    });
}

const char* g_windowDoc =
    " src is (N, C, H, W) for NCHW or (N, H, W, C) for NHWC. kernel, stride and pad are an int "
    "or (y, x); pad is the top/left padding, pad_end the bottom/right one (default: pad); the "
    "output extent is (n + pad + pad_end - kernel)/stride + 1 rounded down, or up with "
    "ceil_mode (a last window starting past the input and its leading pad dropped).";

}  // namespace

void RegisterPooling(py::module_& m) {
    auto doc = [](const char* text) { return std::string(text) + g_windowDoc; };
    m.def("pooling_average", &Average<SimdSynetPoolingAverage>, "src"_a, "kernel"_a, "stride"_a = 1,
          "pad"_a = 0, "pad_end"_a = py::none(), "exclude_pad"_a = true, "format"_a = "nchw",
          "ceil_mode"_a = false, py::kw_only(), "out"_a = py::none(),
          doc("Average pooling: the window sum divided by the clipped window's size "
              "(exclude_pad) or by the kernel's (SimdSynetPoolingAverage).")
              .c_str());
    m.def("pooling_forward_average", &Average<SimdSynetPoolingForwardAverage>, "src"_a, "kernel"_a,
          "stride"_a = 1, "pad"_a = 0, "pad_end"_a = py::none(), "exclude_pad"_a = true,
          "format"_a = "nchw", "ceil_mode"_a = false, py::kw_only(), "out"_a = py::none(),
          doc("The older name of pooling_average (SimdSynetPoolingForwardAverage).").c_str());
    m.def("pooling_forward_max", &ForwardMax, "src"_a, "kernel"_a, "stride"_a = 1, "pad"_a = 0,
          "pad_end"_a = py::none(), "format"_a = "nchw", "ceil_mode"_a = false, py::kw_only(),
          "out"_a = py::none(),
          doc("Max pooling of float32, NaN skipped, -FLT_MAX for an empty window "
              "(SimdSynetPoolingForwardMax; its trans flag is format == NHWC).")
              .c_str());
    m.def("pooling_max32f", &Max32f, "src"_a, "kernel"_a, "stride"_a = 1, "pad"_a = 0,
          "pad_end"_a = py::none(), "format"_a = "nchw", "ceil_mode"_a = false, py::kw_only(),
          "kernel_c"_a = 1, "stride_c"_a = 1, "pad_c"_a = 0, "pad_c_end"_a = py::none(),
          "out"_a = py::none(),
          doc("Max pooling of float32 in 2D, or in 3D across channels too with kernel_c, "
              "stride_c, pad_c (before channel 0) and pad_c_end (SimdSynetPoolingMax32f).")
              .c_str());
    m.def("pooling_max16b", &MaxTyped<uint16_t, SimdSynetPoolingMax16b>, "src"_a, "kernel"_a,
          "stride"_a = 1, "pad"_a = 0, "pad_end"_a = py::none(), "format"_a = "nchw",
          "ceil_mode"_a = false, py::kw_only(), "out"_a = py::none(),
          doc("Max pooling of BF16 values held in uint16 (SimdSynetPoolingMax16b).").c_str());
    m.def("pooling_max8u", &MaxTyped<uint8_t, SimdSynetPoolingMax8u>, "src"_a, "kernel"_a,
          "stride"_a = 1, "pad"_a = 0, "pad_end"_a = py::none(), "format"_a = "nchw",
          "ceil_mode"_a = false, py::kw_only(), "out"_a = py::none(),
          doc("Max pooling of uint8 (SimdSynetPoolingMax8u).").c_str());
}

}  // namespace simdsynet_python
