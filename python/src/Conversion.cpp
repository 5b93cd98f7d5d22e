// Conversions (SUPPLEMENT.md §7): quantization to and from uint8, image input, image and
// filter layouts.
#include "Common.h"

namespace simdsynet_python {

namespace {

// Convert32fTo8u / Convert8uTo32f: batch images of (channels, height, width) in Nchw or Nhwc.
// The array's spatial axes are passed as height = their product, width = 1 (the same memory).
template <class Src, class Dst,
          void (*Function)(const Src*, size_t, size_t, size_t, size_t, SimdTensorFormatType,
                           const float*, const float*, Dst*, SimdSynetCompatibilityType)>
py::array Quantization(py::handle src, py::handle scale, py::handle shift, py::handle format,
                       py::handle compatibility, py::handle out) {
    auto f = ToImageFormat(format, "format", Layouts::Plain);
    auto c = SimdSynetCompatibilityType(ToEnum(compatibility, g_compatibility, "compatibility"));
    py::array s = Input<Src>(src, "src");
    Image image = ParseImage(s, f, "src", Layouts::Plain);
    py::array scales = Vector(scale, "scale", image.channels);
    py::array shifts = Vector(shift, "shift", image.channels);
    py::array d = Output<Dst>(out, "out", ShapeOf(s));
    CheckDisjoint(d, "out", s, "src");
    CheckDisjoint(d, "out", scales, "scale");
    CheckDisjoint(d, "out", shifts, "shift");
    Run([&] {
        Function(Data<Src>(s), image.batch, image.channels, image.spatial, size_t(1), f,
                 Data<float>(scales), Data<float>(shifts), MutableData<Dst>(d), c);
    });
    return d;
}

size_t BytesPerPixel(SimdPixelFormatType format) {
    switch (format) {
        case SimdPixelFormatGray8:
            return 1;
        case SimdPixelFormatBgr24:
        case SimdPixelFormatRgb24:
            return 3;
        case SimdPixelFormatBgra32:
        case SimdPixelFormatRgba32:
            return 4;
        default:
            return 0;
    }
}

py::array SetInput(py::handle src, py::handle lower, py::handle upper, py::handle channelsValue,
                   py::handle format, py::handle pixelFormat, py::handle out) {
    py::array s = TypedArray<uint8_t>(src, "src");
    if (s.ndim() != 2 && s.ndim() != 3)
        throw py::value_error(
            Format("src must be an image of shape (H, W) or (H, W, bytes per "
                   "pixel), not %s",
                   ShapeText(ShapeOf(s)).c_str()));
    size_t height = size_t(s.shape(0)), width = size_t(s.shape(1));
    size_t bytes = s.ndim() == 3 ? size_t(s.shape(2)) : 1;
    SimdPixelFormatType pixel;
    if (pixelFormat.is_none()) {
        if (bytes != 1 && bytes != 3 && bytes != 4)
            throw py::value_error(Format("src has %zu bytes per pixel: pass pixel_format", bytes));
        pixel = bytes == 1 ? SimdPixelFormatGray8
                           : (bytes == 3 ? SimdPixelFormatBgr24 : SimdPixelFormatBgra32);
    } else {
        pixel = SimdPixelFormatType(ToEnum(pixelFormat, g_pixelFormat, "pixel_format"));
    }
    size_t channels = ToSize(channelsValue, "channels");
    auto f = ToImageFormat(format, "format", Layouts::Plain);
    size_t bpp = BytesPerPixel(pixel);
    if (bpp == 0 || (channels != 1 && channels != 3)) {
        // Formats and channel counts the library does not take: its message, nothing touched.
        Run([&] {
            SimdSynetSetInput(nullptr, 0, 0, 0, pixel, nullptr, nullptr, nullptr, channels, f);
        });
        throw py::value_error("set_input: unsupported pixel format or channel count");
    }
    if (bytes != bpp)
        throw py::value_error(Format("src has %zu bytes per pixel, pixel_format %zu", bytes, bpp));
    // Rows may be apart (a crop of a larger image); the pixels of a row must be contiguous.
    py::ssize_t rowBytes = py::ssize_t(width * bpp);
    bool packed = (s.ndim() == 2 || s.strides(2) == 1 || bpp == 1) &&
                  (width <= 1 || s.strides(1) == py::ssize_t(bpp));
    py::ssize_t stride = height <= 1 ? rowBytes : s.strides(0);
    if (!packed || stride < rowBytes)
        throw py::value_error(
            "src must hold each row's pixels contiguously, rows in order "
            "(row stride >= width * bytes per pixel)");
    py::array_t<float> lo = Floats(lower, "lower", channels), hi = Floats(upper, "upper", channels);
    Shape shape = f == SimdTensorFormatNhwc
                      ? Shape{1, py::ssize_t(height), py::ssize_t(width), py::ssize_t(channels)}
                      : Shape{1, py::ssize_t(channels), py::ssize_t(height), py::ssize_t(width)};
    py::array d = Output<float>(out, "out", shape);
    CheckDisjoint(d, "out", s, "src");
    CheckDisjoint(d, "out", lo, "lower");
    CheckDisjoint(d, "out", hi, "upper");
    const uint8_t* sp = Data<uint8_t>(s);
    const float *lp = lo.data(), *hp = hi.data();
    float* dp = MutableData<float>(d);
    Run([&] {
        SimdSynetSetInput(sp, width, height, size_t(stride), pixel, lp, hp, dp, channels, f);
    });
    return d;
}

// The channel count of an image tensor: the array's (padded lanes included for a blocked one),
// or `channels` when given: equal to it for plain layouts, rounding up to it for blocked ones.
size_t TrueCount(py::handle given, size_t count, size_t block, const char* argument) {
    if (given.is_none()) return count;
    size_t c = ToSize(given, argument);
    if ((c + block - 1) / block * block != count)
        throw py::value_error(Format("%s = %zu does not match the array's %zu%s", argument, c,
                                     count, block > 1 ? " (padded) channels" : " channels"));
    return c;
}

py::array ConvertImage(py::handle src, py::handle srcFormat, py::handle dstFormat,
                       py::handle channels, py::handle out) {
    auto sf = ToImageFormat(srcFormat, "src_format", Layouts::Blocked);
    auto df = ToImageFormat(dstFormat, "dst_format", Layouts::Blocked);
    py::array s = Input<float>(src, "src");
    Image in = ParseImage(s, sf, "src", Layouts::Blocked);
    size_t c = TrueCount(channels, in.channels, in.block, "channels");
    Image outImage = in;
    outImage.format = df;
    outImage.block = SimdSynetTensorAlignment(df);
    outImage.channels = (c + outImage.block - 1) / outImage.block * outImage.block;
    py::array d = Output<float>(out, "out", outImage.ShapeFor(outImage.channels));
    CheckDisjoint(d, "out", s, "src");
    Run([&] {
        SimdSynetConvertImage(in.batch, c, in.spatial, Data<float>(s), sf, MutableData<float>(d),
                              df);
    });
    return d;
}

// A filter of O outputs, I inputs and kernel axes: (O, I, *kernel) for OIYX, (*kernel, I, O) for
// YXIO, (O/b, *kernel, I, b) for OYXI<b>O.
struct Filter {
    SimdTensorFormatType format;
    size_t block, output, input;  // output: padded lanes included for blocked layouts
    Shape kernel;

    Shape ShapeFor(size_t o) const {
        Shape shape;
        if (format == SimdTensorFormatOiyx) {
            shape = {py::ssize_t(o), py::ssize_t(input)};
            shape.insert(shape.end(), kernel.begin(), kernel.end());
        } else if (format == SimdTensorFormatYxio) {
            shape = kernel;
            shape.push_back(py::ssize_t(input));
            shape.push_back(py::ssize_t(o));
        } else {
            shape = {py::ssize_t(o / block)};
            shape.insert(shape.end(), kernel.begin(), kernel.end());
            shape.push_back(py::ssize_t(input));
            shape.push_back(py::ssize_t(block));
        }
        return shape;
    }
};

SimdTensorFormatType ToFilterFormat(py::handle value, const char* argument) {
    auto f = SimdTensorFormatType(ToEnum(value, g_tensorFormat, argument));
    if (f != SimdTensorFormatOiyx && f != SimdTensorFormatYxio && f != SimdTensorFormatOyxi4o &&
        f != SimdTensorFormatOyxi8o && f != SimdTensorFormatOyxi16o)
        throw py::value_error(Format("%s must be OIYX, YXIO, OYXI4O, OYXI8O or OYXI16O", argument));
    return f;
}

Filter ParseFilter(const py::array& a, SimdTensorFormatType format) {
    Shape shape = ShapeOf(a);
    size_t n = shape.size();
    Filter filter{format, SimdSynetTensorAlignment(format), 0, 0, {}};
    if (format == SimdTensorFormatOiyx || format == SimdTensorFormatYxio) {
        if (n < 2)
            throw py::value_error(
                Format("src must have at least 2 axes, not %s", ShapeText(shape).c_str()));
        bool oiyx = format == SimdTensorFormatOiyx;
        filter.output = size_t(shape[oiyx ? 0 : n - 1]);
        filter.input = size_t(shape[oiyx ? 1 : n - 2]);
        filter.kernel =
            oiyx ? Shape(shape.begin() + 2, shape.end()) : Shape(shape.begin(), shape.end() - 2);
    } else {
        if (n < 3 || size_t(shape[n - 1]) != filter.block)
            throw py::value_error(Format("src must have shape (O/%zu, *kernel, I, %zu), not %s",
                                         filter.block, filter.block, ShapeText(shape).c_str()));
        filter.output = size_t(shape[0]) * filter.block;
        filter.input = size_t(shape[n - 2]);
        filter.kernel = Shape(shape.begin() + 1, shape.end() - 2);
    }
    return filter;
}

py::array ConvertFilter(py::handle src, py::handle srcFormat, py::handle dstFormat,
                        py::handle output, py::handle out) {
    auto sf = ToFilterFormat(srcFormat, "src_format");
    auto df = ToFilterFormat(dstFormat, "dst_format");
    py::array s = Input<float>(src, "src");
    Filter in = ParseFilter(s, sf);
    size_t o = TrueCount(output, in.output, in.block, "output");
    Filter outFilter = in;
    outFilter.format = df;
    outFilter.block = SimdSynetTensorAlignment(df);
    py::array d = Output<float>(
        out, "out",
        outFilter.ShapeFor((o + outFilter.block - 1) / outFilter.block * outFilter.block));
    CheckDisjoint(d, "out", s, "src");
    size_t kernel = Product(in.kernel);
    Run([&] {
        SimdSynetConvertFilter(o, in.input, kernel, Data<float>(s), sf, MutableData<float>(d), df);
    });
    return d;
}

}  // namespace

void RegisterConversions(py::module_& m) {
    m.def("convert_32f_to_8u", &Quantization<float, uint8_t, SimdSynetConvert32fTo8u>, "src"_a,
          "scale"_a, "shift"_a, "format"_a = "nchw", "compatibility"_a = 0, py::kw_only(),
          "out"_a = py::none(),
          "Quantizes float32 to uint8: min(max(round(src*scale[c] + shift[c]), 0), upper), "
          "upper 180 with Compatibility.INT8_NARROWED and 255 otherwise "
          "(SimdSynetConvert32fTo8u). Tensors (N, C, *spatial) for NCHW, (N, *spatial, C) for "
          "NHWC.");
    m.def("convert_8u_to_32f", &Quantization<uint8_t, float, SimdSynetConvert8uTo32f>, "src"_a,
          "scale"_a, "shift"_a, "format"_a = "nchw", "compatibility"_a = 0, py::kw_only(),
          "out"_a = py::none(),
          "Dequantizes uint8 to float32: src*scale[c] + shift[c] (SimdSynetConvert8uTo32f). "
          "Tensors (N, C, *spatial) for NCHW, (N, *spatial, C) for NHWC.");
    m.def("set_input", &SetInput, "src"_a, "lower"_a, "upper"_a, "channels"_a = 3,
          "format"_a = "nchw", "pixel_format"_a = py::none(), py::kw_only(), "out"_a = py::none(),
          "An 8-bit image (H, W) or (H, W, bytes per pixel) as the float32 input tensor of a "
          "network: sample v of channel c becomes v*(upper[c] - lower[c])/255 + lower[c]; "
          "3 channels in blue, green, red order, 1 channel the gray value (SimdSynetSetInput). "
          "pixel_format defaults to GRAY8, BGR24 or BGRA32 from the bytes per pixel (RGB24, "
          "RGBA32 serve red-first networks). Rows may be strided (a crop). The result is "
          "(1, channels, H, W) for NCHW, (1, H, W, channels) for NHWC.");
    m.def("convert_image", &ConvertImage, "src"_a, "src_format"_a, "dst_format"_a,
          "channels"_a = py::none(), py::kw_only(), "out"_a = py::none(),
          "Copies a batch of images between layouts: the same layout, NCHW <-> NHWC, either to "
          "NCHW4C/8C/16C (padded lanes set to 0) and back (SimdSynetConvertImage). Image "
          "tensors are (N, C, *spatial), (N, *spatial, C) or (N, C/b, *spatial, b); channels "
          "gives C when the source is blocked (default: its padded count).");
    m.def("convert_filter", &ConvertFilter, "src"_a, "src_format"_a, "dst_format"_a,
          "output"_a = py::none(), py::kw_only(), "out"_a = py::none(),
          "Copies a convolution filter between layouts: the same layout, OIYX <-> YXIO, either "
          "to OYXI4O/8O/16O (padded lanes set to 0) and back (SimdSynetConvertFilter). Filters "
          "are (O, I, *kernel) for OIYX, (*kernel, I, O) for YXIO, (O/b, *kernel, I, b) for "
          "OYXI<b>O; output gives O when the source is blocked (default: its padded count).");
}

}  // namespace simdsynet_python
