// Winograd transforms (SUPPLEMENT.md §12): the 21 functions, seven variants of three steps.
// Transformed data is an array of `count` planes: (count, dstC, srcC) or (count, srcC, dstC)
// filters; (count, C, T) or (count, T, C) tiles. The planes may lie apart (their stride is the
// C functions' dstStride/srcStride), each plane contiguous.
#include "Common.h"

namespace simdsynet_python {

namespace {

struct Variant {
    const char* name;  // "kernel3x3_block4x4"
    size_t kY, kX, bY, bX;
    void (*setFilter)(const float*, size_t, float*, SimdBool);
    void (*setInput)(const float*, size_t, size_t, size_t, size_t, size_t, size_t, size_t, float*,
                     size_t, SimdBool);
    void (*setOutput)(const float*, size_t, float*, size_t, size_t, size_t, SimdBool);

    size_t TileY() const { return bY + kY - 1; }
    size_t TileX() const { return bX + kX - 1; }
    size_t Count() const { return TileY() * TileX(); }
};

const Variant g_variants[] = {
    {"kernel1x3_block1x4", 1, 3, 1, 4, SimdWinogradKernel1x3Block1x4SetFilter,
     SimdWinogradKernel1x3Block1x4SetInput, SimdWinogradKernel1x3Block1x4SetOutput},
    {"kernel1x5_block1x4", 1, 5, 1, 4, SimdWinogradKernel1x5Block1x4SetFilter,
     SimdWinogradKernel1x5Block1x4SetInput, SimdWinogradKernel1x5Block1x4SetOutput},
    {"kernel2x2_block2x2", 2, 2, 2, 2, SimdWinogradKernel2x2Block2x2SetFilter,
     SimdWinogradKernel2x2Block2x2SetInput, SimdWinogradKernel2x2Block2x2SetOutput},
    {"kernel2x2_block4x4", 2, 2, 4, 4, SimdWinogradKernel2x2Block4x4SetFilter,
     SimdWinogradKernel2x2Block4x4SetInput, SimdWinogradKernel2x2Block4x4SetOutput},
    {"kernel3x3_block2x2", 3, 3, 2, 2, SimdWinogradKernel3x3Block2x2SetFilter,
     SimdWinogradKernel3x3Block2x2SetInput, SimdWinogradKernel3x3Block2x2SetOutput},
    {"kernel3x3_block3x3", 3, 3, 3, 3, SimdWinogradKernel3x3Block3x3SetFilter,
     SimdWinogradKernel3x3Block3x3SetInput, SimdWinogradKernel3x3Block3x3SetOutput},
    {"kernel3x3_block4x4", 3, 3, 4, 4, SimdWinogradKernel3x3Block4x4SetFilter,
     SimdWinogradKernel3x3Block4x4SetInput, SimdWinogradKernel3x3Block4x4SetOutput},
};

// `count` planes of (a, b) float32: each plane C-contiguous, planes at a positive stride of at
// least a*b floats. Returns the plane stride in floats. `out`: also writable.
size_t Planes(const py::array& p, const char* argument, const Shape& shape, bool out) {
    if (ShapeOf(p) != shape)
        throw py::value_error(Format("%s must have shape %s, not %s", argument,
                                     ShapeText(shape).c_str(), ShapeText(ShapeOf(p)).c_str()));
    if (!(p.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_))
        throw py::value_error(Format("%s is not aligned to its element size", argument));
    if (out) CheckWritable(p, argument);
    size_t plane = size_t(shape[1] * shape[2]);
    if (plane == 0 || shape[0] == 0) return plane;
    bool inner = (shape[2] <= 1 || p.strides(2) == py::ssize_t(sizeof(float))) &&
                 (shape[1] <= 1 || p.strides(1) == shape[2] * py::ssize_t(sizeof(float)));
    py::ssize_t stride = shape[0] <= 1 ? py::ssize_t(plane * sizeof(float)) : p.strides(0);
    if (!inner || stride <= 0 || stride % py::ssize_t(sizeof(float)) != 0 ||
        size_t(stride) / sizeof(float) < plane)
        throw py::value_error(
            Format("%s must hold C-contiguous planes at a positive stride of "
                   "at least one plane",
                   argument));
    return size_t(stride) / sizeof(float);
}

py::array NewOrChecked(py::handle out, const Shape& shape, size_t* stride) {
    py::array a =
        out.is_none() ? py::array(py::array_t<float>(shape)) : TypedArray<float>(out, "out");
    *stride = Planes(a, "out", shape, true);
    return a;
}

py::array SetFilter(const Variant& v, py::handle src, bool trans, py::handle out) {
    py::array s = Input<float>(src, "src");
    Shape shape = ShapeOf(s);
    bool fits = shape.size() == 4 && (trans ? size_t(shape[0]) == v.kY && size_t(shape[1]) == v.kX
                                            : size_t(shape[2]) == v.kY && size_t(shape[3]) == v.kX);
    if (!fits)
        throw py::value_error(Format("src must have shape %s, not %s",
                                     trans ? Format("(%zu, %zu, srcC, dstC)", v.kY, v.kX).c_str()
                                           : Format("(dstC, srcC, %zu, %zu)", v.kY, v.kX).c_str(),
                                     ShapeText(shape).c_str()));
    size_t dstC = size_t(trans ? shape[3] : shape[0]), srcC = size_t(trans ? shape[2] : shape[1]);
    Shape planes{py::ssize_t(v.Count()), py::ssize_t(trans ? srcC : dstC),
                 py::ssize_t(trans ? dstC : srcC)};
    // SetFilter writes plane k at k*size: the planes must be packed.
    py::array d = Output<float>(out, "out", planes);
    CheckDisjoint(d, "out", s, "src");
    Run([&] {
        v.setFilter(Data<float>(s), srcC * dstC, MutableData<float>(d),
                    trans ? SimdTrue : SimdFalse);
    });
    return d;
}

size_t Tiles(size_t extent, size_t block) {
    return (extent + block - 1) / block;
}

py::array SetInput(const Variant& v, py::handle src, py::handle pad, bool trans, py::handle out) {
    py::array s = Input<float>(src, "src");
    if (s.ndim() != 3)
        throw py::value_error(Format("src must be one image %s, not %s",
                                     trans ? "(H, W, C)" : "(C, H, W)",
                                     ShapeText(ShapeOf(s)).c_str()));
    size_t c = size_t(s.shape(trans ? 2 : 0)), h = size_t(s.shape(trans ? 0 : 1)),
           w = size_t(s.shape(trans ? 1 : 2));
    std::vector<size_t> p;
    if (py::isinstance<py::sequence>(pad) && py::len(pad) == 2) {
        std::vector<size_t> yx = ToSizes(pad, 2, "pad");
        p = {yx[0], yx[1], yx[0], yx[1]};
    } else {
        p = ToSizes(pad, 4, "pad");  // top, left, bottom, right
    }
    // Padded images smaller than the kernel have no tiles.
    size_t paddedH = p[0] + h + p[2], paddedW = p[1] + w + p[3];
    size_t outH = paddedH >= v.kY ? paddedH - v.kY + 1 : 0;
    size_t outW = paddedW >= v.kX ? paddedW - v.kX + 1 : 0;
    size_t tiles = Tiles(outH, v.bY) * Tiles(outW, v.bX);
    if (c == 0 || h == 0 || w == 0) tiles = 0;
    Shape planes{py::ssize_t(v.Count()), py::ssize_t(trans ? tiles : c),
                 py::ssize_t(trans ? c : tiles)};
    size_t stride;
    py::array d = NewOrChecked(out, planes, &stride);
    CheckDisjoint(d, "out", s, "src");
    Run([&] {
        v.setInput(Data<float>(s), c, h, w, p[0], p[1], p[2], p[3], MutableData<float>(d), stride,
                   trans ? SimdTrue : SimdFalse);
    });
    return d;
}

py::array SetOutput(const Variant& v, py::handle src, py::handle height, py::handle width,
                    bool trans, py::handle out) {
    size_t h = ToSize(height, "height"), w = ToSize(width, "width");
    py::array s = TypedArray<float>(src, "src");
    if (s.ndim() != 3)
        throw py::value_error(Format("src must be planes %s, not %s",
                                     trans ? "(count, T, C)" : "(count, C, T)",
                                     ShapeText(ShapeOf(s)).c_str()));
    size_t c = size_t(s.shape(trans ? 2 : 1));
    size_t tiles = Tiles(h, v.bY) * Tiles(w, v.bX);
    Shape planes{py::ssize_t(v.Count()), py::ssize_t(trans ? tiles : c),
                 py::ssize_t(trans ? c : tiles)};
    size_t stride = Planes(s, "src", planes, false);
    Shape image = trans ? Shape{py::ssize_t(h), py::ssize_t(w), py::ssize_t(c)}
                        : Shape{py::ssize_t(c), py::ssize_t(h), py::ssize_t(w)};
    py::array d = Output<float>(out, "out", image);
    CheckDisjoint(d, "out", s, "src");
    Run([&] {
        v.setOutput(Data<float>(s), stride, MutableData<float>(d), c, h, w,
                    trans ? SimdTrue : SimdFalse);
    });
    return d;
}

}  // namespace

void RegisterWinograd(py::module_& m) {
    for (const Variant& variant : g_variants) {
        const Variant* v = &variant;
        std::string base = std::string("winograd_") + v->name;
        std::string what = Format("F(%zux%zu, %zux%zu): tile %zux%zu, %zu planes", v->bY, v->bX,
                                  v->kY, v->kX, v->TileY(), v->TileX(), v->Count());
        m.def((base + "_set_filter").c_str(),
              [v](py::handle src, bool trans, py::handle out) {
                  return SetFilter(*v, src, trans, out);
              },
              "src"_a, "trans"_a = false, py::kw_only(), "out"_a = py::none(),
              Format("Filter transform of %s. src is (dstC, srcC, kY, kX) (trans False) or "
                     "(kY, kX, srcC, dstC) (trans True); the result (count, dstC, srcC) or "
                     "(count, srcC, dstC).",
                     what.c_str())
                  .c_str());
        m.def((base + "_set_input").c_str(),
              [v](py::handle src, py::handle pad, bool trans, py::handle out) {
                  return SetInput(*v, src, pad, trans, out);
              },
              "src"_a, "pad"_a = 0, "trans"_a = false, py::kw_only(), "out"_a = py::none(),
              Format("Input transform of %s. src is one image (C, H, W) (trans False) or "
                     "(H, W, C) (trans True); pad an int, (y, x) or (top, left, bottom, right); "
                     "the result (count, C, T) or (count, T, C) for T tiles. out may have planes "
                     "apart (its first stride is dstStride).",
                     what.c_str())
                  .c_str());
        m.def((base + "_set_output").c_str(),
              [v](py::handle src, py::handle height, py::handle width, bool trans, py::handle out) {
                  return SetOutput(*v, src, height, width, trans, out);
              },
              "src"_a, "height"_a, "width"_a, "trans"_a = false, py::kw_only(),
              "out"_a = py::none(),
              Format("Output transform of %s into an image of height x width: src (count, C, T) "
                     "or (count, T, C) (planes may lie apart), the result (C, H, W) or (H, W, C).",
                     what.c_str())
                  .c_str());
    }
}

}  // namespace simdsynet_python
