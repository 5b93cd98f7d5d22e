// Tests of the Winograd transforms (SUPPLEMENT.md §12) on every compiled and supported target:
// each transform against the double reference of §12.1/§12.2 under LIN tol(1e-4) of the sum of
// |terms|, and the whole pipeline (SetFilter, SetInput, per-plane products, SetOutput) against a
// direct convolution under 1e-3 absolute.
#include <cstdint>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "reference/Winograd.h"

namespace {

using test::Guarded;

typedef void (*SetFilterFn)(const float*, size_t, float*, SimdBool);
typedef void (*SetInputFn)(const float*, size_t, size_t, size_t, size_t, size_t, size_t, size_t,
                           float*, size_t, SimdBool);
typedef void (*SetOutputFn)(const float*, size_t, float*, size_t, size_t, size_t, SimdBool);

struct Pads {
    size_t y, x, h, w;
};

struct Variant {
    const char* name;
    ref::WinogradAxis ay, ax;
    SetFilterFn setFilter;
    SetInputFn setInput;
    SetOutputFn setOutput;
    std::vector<Pads> tablePads;  // the pads of §12.3
    size_t Count() const { return ay.Tile() * ax.Tile(); }
};

#define WINOGRAD_FUNCTIONS(NAME) \
    SimdWinograd##NAME##SetFilter, SimdWinograd##NAME##SetInput, SimdWinograd##NAME##SetOutput

std::vector<Pads> AllPads4x4() {
    std::vector<Pads> pads;
    for (size_t bits = 0; bits < 16; ++bits)
        pads.push_back({bits & 1, (bits >> 1) & 1, (bits >> 2) & 1, (bits >> 3) & 1});
    return pads;
}

const std::vector<Variant>& Variants() {
    static const std::vector<Variant> variants = {
        {"Kernel1x3Block1x4",
         ref::AxisIdentity(),
         ref::AxisF43(),
         WINOGRAD_FUNCTIONS(Kernel1x3Block1x4),
         {{0, 0, 0, 0}, {0, 1, 0, 1}}},
        {"Kernel1x5Block1x4",
         ref::AxisIdentity(),
         ref::AxisF45(),
         WINOGRAD_FUNCTIONS(Kernel1x5Block1x4),
         {{0, 0, 0, 0}, {0, 2, 0, 2}}},
        {"Kernel2x2Block2x2",
         ref::AxisF22(),
         ref::AxisF22(),
         WINOGRAD_FUNCTIONS(Kernel2x2Block2x2),
         {{0, 0, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 1}}},
        {"Kernel2x2Block4x4",
         ref::AxisF42(),
         ref::AxisF42(),
         WINOGRAD_FUNCTIONS(Kernel2x2Block4x4),
         {{0, 0, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 1}}},
        {"Kernel3x3Block2x2",
         ref::AxisF23(),
         ref::AxisF23(),
         WINOGRAD_FUNCTIONS(Kernel3x3Block2x2),
         {{0, 0, 0, 0}, {1, 1, 1, 1}}},
        {"Kernel3x3Block3x3",
         ref::AxisF33(),
         ref::AxisF33(),
         WINOGRAD_FUNCTIONS(Kernel3x3Block3x3),
         {{0, 0, 0, 0}, {1, 1, 1, 1}}},
        {"Kernel3x3Block4x4", ref::AxisF43(), ref::AxisF43(), WINOGRAD_FUNCTIONS(Kernel3x3Block4x4),
         AllPads4x4()},
    };
    return variants;
}

// Pads beyond the table: the implementation follows §12.1 for any padding, including pads
// larger than a tile (whole tiles of zeros) and pads on one side only.
const Pads kExtraPads[] = {{2, 3, 1, 2}, {0, 1, 3, 0}, {5, 0, 0, 6}, {3, 3, 3, 3},
                           {7, 7, 7, 7}, {0, 5, 5, 0}, {4, 0, 0, 0}, {0, 0, 0, 9}};

struct Size2 {
    size_t h, w;
};
// Tile overhang (7x9, 13x13), a single pixel, and rows wide enough for full vectors of tiles
// on AVX-512 (trans = 0 groups 16 tiles of a tile row).
const Size2 kSizes[] = {{1, 1}, {7, 9}, {13, 13}, {4, 70}, {2, 150}};
const size_t kChannels[] = {1, 3, 8, 17, 33};

std::string Describe(const Variant& v, size_t c, Size2 s, const Pads& p, bool trans) {
    return std::string(v.name) + " C=" + std::to_string(c) + " " + std::to_string(s.h) + "x" +
           std::to_string(s.w) + " pads=" + std::to_string(p.y) + "," + std::to_string(p.x) + "," +
           std::to_string(p.h) + "," + std::to_string(p.w) + " trans=" + std::to_string(trans);
}

SimdBool Bool(bool b) {
    return b ? SimdTrue : SimdFalse;
}

SIMD_SYNET_TARGET_SUITE(Winograd);

TEST_P(Winograd, SetFilter) {
    for (const Variant& v : Variants()) {
        const size_t taps = v.ay.kernel * v.ax.kernel, count = v.Count();
        for (size_t size : {1, 3, 8, 17, 24, 33, 51, 200}) {
            for (bool trans : {false, true}) {
                const std::vector<float> src =
                    test::RandomFloats(size * taps, -1.0f, 1.0f, uint32_t(size * 3 + trans));
                Guarded<float> dst(size * count);
                v.setFilter(src.data(), size, dst.data(), Bool(trans));
                ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                EXPECT_TRUE(dst.GuardsIntact()) << v.name;
                const std::vector<ref::Term> r =
                    ref::WinogradSetFilter(v.ay, v.ax, src.data(), size, trans);
                EXPECT_TRUE(test::AllOf(size * count,
                                        [&](size_t i) {
                                            return test::Near(dst[i], r[i].value, r[i].magnitude,
                                                              1e-4, 1e-6);
                                        }))
                    << v.name << " size=" << size << " trans=" << trans;
            }
        }
    }
}

// Floats of `count` planes `stride` apart whose last plane holds `used` floats: exactly what a
// transform with that stride reaches (nothing when there is no tile).
size_t PlanesSize(size_t count, size_t stride, size_t used) {
    return used ? (count - 1) * stride + used : 0;
}

// Runs SetInput with dstStride = C*T + gap on an exactly-sized dst (the last plane ends the
// buffer) and checks the values, the untouched gaps and the guards.
void CheckSetInput(const Variant& v, size_t C, Size2 s, const Pads& p, bool trans, size_t gap = 5) {
    const std::vector<float> src =
        test::RandomFloats(C * s.h * s.w, -1.0f, 1.0f, uint32_t(C * 131 + s.h * 7 + s.w + trans));
    size_t tileH, tileW;
    const std::vector<ref::Term> r = ref::WinogradSetInput(v.ay, v.ax, src.data(), C, s.h, s.w, p.y,
                                                           p.x, p.h, p.w, trans, &tileH, &tileW);
    const size_t T = tileH * tileW, used = C * T, stride = used + gap;
    const float sentinel = -12345.0f;
    Guarded<float> dst(PlanesSize(v.Count(), stride, used), sentinel);
    v.setInput(src.data(), C, s.h, s.w, p.y, p.x, p.h, p.w, dst.data(), stride, Bool(trans));
    ASSERT_EQ(SimdSynetGetLastError(), nullptr) << Describe(v, C, s, p, trans);
    ASSERT_TRUE(dst.GuardsIntact()) << Describe(v, C, s, p, trans);
    for (size_t k = 0; k < v.Count() && used; ++k) {
        ASSERT_TRUE(test::AllOf(used,
                                [&](size_t i) {
                                    const ref::Term& t = r[k * used + i];
                                    return test::Near(dst[k * stride + i], t.value, t.magnitude,
                                                      1e-4, 1e-6);
                                }))
            << Describe(v, C, s, p, trans) << " plane " << k;
        for (size_t i = used; i < stride && k * stride + i < dst.size(); ++i)
            ASSERT_EQ(dst[k * stride + i], sentinel) << Describe(v, C, s, p, trans);
    }
}

TEST_P(Winograd, SetInputTablePads) {
    for (const Variant& v : Variants())
        for (const Pads& p : v.tablePads)
            for (Size2 s : kSizes)
                for (size_t C : kChannels)
                    for (bool trans : {false, true}) CheckSetInput(v, C, s, p, trans);
}

TEST_P(Winograd, SetInputOtherPads) {
    for (const Variant& v : Variants())
        for (const Pads& p : kExtraPads)
            for (Size2 s : kSizes)
                for (size_t C : {size_t(1), size_t(17)})
                    for (bool trans : {false, true}) CheckSetInput(v, C, s, p, trans);
}

// dstStride == srcChannels*tiles exactly: the planes abut and dst ends with the last one.
TEST_P(Winograd, SetInputOtherPadsPackedPlanes) {
    const Size2 sizes[] = {{1, 1}, {2, 3}, {7, 9}, {5, 20}};
    for (const Variant& v : Variants())
        for (const Pads& p : kExtraPads)
            for (Size2 s : sizes)
                for (size_t C : {size_t(1), size_t(3), size_t(17)})
                    for (bool trans : {false, true}) CheckSetInput(v, C, s, p, trans, 0);
}

TEST_P(Winograd, SetOutput) {
    const Size2 sizes[] = {{1, 1}, {7, 9}, {13, 13}, {4, 70}, {5, 3}, {3, 150}};
    for (const Variant& v : Variants())
        for (Size2 s : sizes)
            for (size_t C : kChannels)
                for (bool trans : {false, true}) {
                    const size_t T = ref::CeilDiv(s.h, v.ay.block) * ref::CeilDiv(s.w, v.ax.block);
                    const size_t stride = C * T + 3;
                    // Exactly the floats the planes reach, so reads past them are reported
                    // by the sanitizer build.
                    const std::vector<float> src =
                        test::RandomFloats(PlanesSize(v.Count(), stride, C * T), -1.0f, 1.0f,
                                           uint32_t(C * 17 + s.w + trans));
                    Guarded<float> dst(C * s.h * s.w);
                    v.setOutput(src.data(), stride, dst.data(), C, s.h, s.w, Bool(trans));
                    const Pads none{0, 0, 0, 0};
                    ASSERT_EQ(SimdSynetGetLastError(), nullptr) << Describe(v, C, s, none, trans);
                    ASSERT_TRUE(dst.GuardsIntact()) << Describe(v, C, s, none, trans);
                    const std::vector<ref::Term> r =
                        ref::WinogradSetOutput(v.ay, v.ax, src.data(), stride, C, s.h, s.w, trans);
                    EXPECT_TRUE(test::AllOf(dst.size(), [&](size_t i) {
                        return test::Near(dst[i], r[i].value, r[i].magnitude, 1e-4, 1e-6);
                    })) << Describe(v, C, s, none, trans);
                }
}

// SetFilter, SetInput, M_k = products per plane (naive loop), SetOutput vs direct convolution.
void CheckPipeline(const Variant& v, size_t srcC, size_t dstC, Size2 s, const Pads& p, bool trans) {
    const size_t kY = v.ay.kernel, kX = v.ax.kernel, taps = kY * kX, count = v.Count();
    const ptrdiff_t outH = ptrdiff_t(p.y + s.h + p.h) - ptrdiff_t(kY) + 1;
    const ptrdiff_t outW = ptrdiff_t(p.x + s.w + p.w) - ptrdiff_t(kX) + 1;
    if (outH <= 0 || outW <= 0) return;
    const uint32_t seed = uint32_t(srcC * 1000 + dstC * 10 + s.h + s.w + trans);
    const std::vector<float> image = test::RandomFloats(srcC * s.h * s.w, -1.0f, 1.0f, seed);
    const std::vector<float> oiyx = test::RandomFloats(dstC * srcC * taps, -1.0f, 1.0f, seed + 1);
    const size_t size = srcC * dstC;
    std::vector<float> weight(size * taps);  // the layout SetFilter expects for trans
    for (size_t o = 0; o < dstC; ++o)
        for (size_t i = 0; i < srcC; ++i)
            for (size_t k = 0; k < taps; ++k) {
                const float w = oiyx[(o * srcC + i) * taps + k];
                if (trans)
                    weight[k * size + i * dstC + o] = w;
                else
                    weight[(o * srcC + i) * taps + k] = w;
            }
    std::vector<float> u(count * size);
    v.setFilter(weight.data(), size, u.data(), Bool(trans));
    const size_t tileH = ref::CeilDiv(size_t(outH), v.ay.block);
    const size_t tileW = ref::CeilDiv(size_t(outW), v.ax.block), T = tileH * tileW;
    std::vector<float> vin(count * srcC * T), m(count * dstC * T);
    v.setInput(image.data(), srcC, s.h, s.w, p.y, p.x, p.h, p.w, vin.data(), srcC * T, Bool(trans));
    for (size_t k = 0; k < count; ++k) {
        const float* U = u.data() + k * size;
        const float* V = vin.data() + k * srcC * T;
        float* M = m.data() + k * dstC * T;
        for (size_t o = 0; o < dstC; ++o)
            for (size_t t = 0; t < T; ++t) {
                double sum = 0;
                for (size_t i = 0; i < srcC; ++i)
                    sum += trans ? double(V[t * srcC + i]) * U[i * dstC + o]
                                 : double(U[o * srcC + i]) * V[i * T + t];
                M[trans ? t * dstC + o : o * T + t] = float(sum);
            }
    }
    Guarded<float> out(dstC * size_t(outH) * size_t(outW));
    v.setOutput(m.data(), dstC * T, out.data(), dstC, size_t(outH), size_t(outW), Bool(trans));
    ASSERT_EQ(SimdSynetGetLastError(), nullptr);
    ASSERT_TRUE(out.GuardsIntact());
    const std::vector<double> direct =
        ref::DirectConvolution(image.data(), srcC, s.h, s.w, oiyx.data(), dstC, kY, kX, p.y, p.x,
                               size_t(outH), size_t(outW), trans);
    EXPECT_TRUE(test::AllOf(out.size(),
                            [&](size_t i) { return test::Near(out[i], direct[i], 0, 0, 1e-3); }))
        << Describe(v, srcC, s, p, trans) << " dstC=" << dstC;
}

TEST_P(Winograd, PipelineMatchesDirectConvolution) {
    const Size2 sizes[] = {{1, 1}, {7, 9}, {13, 13}, {3, 70}};
    for (const Variant& v : Variants())
        for (const Pads& p : v.tablePads)
            for (Size2 s : sizes)
                for (size_t srcC : kChannels)
                    for (bool trans : {false, true})
                        CheckPipeline(v, srcC, srcC == 33 ? 3 : 5, s, p, trans);
}

// ---- Argument errors on exactly-sized buffers: a rejected call records a message naming the
// function and writes no element (dst is as large as the arguments the caller meant promise,
// with guards around it); inputs are exactly-sized heap vectors, so the sanitizer build
// reports any read past them.

// Runs `call`, which must be rejected, and checks the message, dst and its guards.
template <class Call>
void ExpectRejected(const Variant& v, const Guarded<float>& dst, float fill, const char* what,
                    Call call) {
    call();
    const char* error = SimdSynetGetLastError();
    ASSERT_NE(error, nullptr) << v.name << ": " << what << " was accepted";
    EXPECT_NE(std::string(error).find(v.name), std::string::npos) << error;
    EXPECT_TRUE(test::AllOf(dst.size(),
                            [&](size_t i) {
                                return dst[i] == fill ? ::testing::AssertionSuccess()
                                                      : ::testing::AssertionFailure();
                            }))
        << v.name << ": " << what;
    EXPECT_TRUE(dst.GuardsIntact()) << v.name << ": " << what;
}

const size_t kHalfMax = SIZE_MAX / 2;

TEST_P(Winograd, RejectedSetFilterWritesNothing) {
    for (const Variant& v : Variants()) {
        const size_t taps = v.ay.kernel * v.ax.kernel, count = v.Count(), size = 6;
        const std::vector<float> src(size * taps, 1.0f);
        Guarded<float> dst(size * count, 7.0f);
        auto call = [&](const float* s, size_t n, float* d, SimdBool trans) {
            return [=, &v] { v.setFilter(s, n, d, trans); };
        };
        ExpectRejected(v, dst, 7.0f, "src NULL", call(nullptr, size, dst.data(), SimdFalse));
        ExpectRejected(v, dst, 7.0f, "dst NULL", call(src.data(), size, nullptr, SimdTrue));
        ExpectRejected(v, dst, 7.0f, "trans 2", call(src.data(), size, dst.data(), SimdBool(2)));
        ExpectRejected(v, dst, 7.0f, "trans -1", call(src.data(), size, dst.data(), SimdBool(-1)));
        // size*count floats (dst) or size*taps floats (src) beyond size_t bytes.
        const size_t overDst = SIZE_MAX / (count * sizeof(float)) + 1;
        const size_t overSrc = SIZE_MAX / (taps * sizeof(float)) + 1;
        ExpectRejected(v, dst, 7.0f, "dst bytes overflow",
                       call(src.data(), overDst, dst.data(), SimdFalse));
        ExpectRejected(v, dst, 7.0f, "src bytes overflow",
                       call(src.data(), overSrc, dst.data(), SimdTrue));
        ExpectRejected(v, dst, 7.0f, "size SIZE_MAX",
                       call(src.data(), SIZE_MAX, dst.data(), SimdTrue));
        // The control: the same buffers take the valid call, which fills exactly them.
        call(src.data(), size, dst.data(), SimdTrue)();
        ASSERT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
        EXPECT_TRUE(dst.GuardsIntact()) << v.name;
    }
}

TEST_P(Winograd, RejectedSetInputWritesNothing) {
    const size_t C = 3, H = 9, W = 7;
    const std::vector<float> src = test::RandomFloats(C * H * W, -1.0f, 1.0f, 5);
    for (const Variant& v : Variants()) {
        const size_t count = v.Count();
        // The caller's buffer: pads 1 on every side of the 2-D variants, (0, 1, 0, 1) for 1-D.
        const size_t py = v.ay.kernel > 1 ? 1 : 0;
        size_t tileH, tileW;
        ref::WinogradSetInput(v.ay, v.ax, src.data(), C, H, W, py, 1, py, 1, false, &tileH, &tileW);
        const size_t used = C * tileH * tileW;
        Guarded<float> dst(PlanesSize(count, used, used), 7.0f);
        float* d = dst.data();
        auto call = [&](const float* s, size_t c, size_t h, size_t w, Pads p, float* out,
                        size_t stride, SimdBool trans) {
            return [=, &v] { v.setInput(s, c, h, w, p.y, p.x, p.h, p.w, out, stride, trans); };
        };
        const Pads pads{py, 1, py, 1};
        ExpectRejected(v, dst, 7.0f, "src NULL", call(nullptr, C, H, W, pads, d, used, SimdTrue));
        ExpectRejected(v, dst, 7.0f, "dst NULL",
                       call(src.data(), C, H, W, pads, nullptr, used, SimdFalse));
        ExpectRejected(v, dst, 7.0f, "trans 2",
                       call(src.data(), C, H, W, pads, d, used, SimdBool(2)));
        ExpectRejected(v, dst, 7.0f, "dstStride below C*T",
                       call(src.data(), C, H, W, pads, d, used - 1, SimdTrue));
        ExpectRejected(v, dst, 7.0f, "dstStride 0",
                       call(src.data(), C, H, W, pads, d, 0, SimdFalse));
        // Larger pads with the stride and buffer of the pads above: more tiles than dstStride.
        ExpectRejected(v, dst, 7.0f, "pads 3,3,3,3 on a buffer for smaller pads",
                       call(src.data(), C, H, W, {3, 3, 3, 3}, d, used, SimdFalse));
        ExpectRejected(v, dst, 7.0f, "pads 6,0,0,6 on a buffer for smaller pads",
                       call(src.data(), C, H, W, {6, 0, 0, 6}, d, used, SimdTrue));
        // Sizes whose byte counts or tile counts overflow.
        const size_t planeOver = SIZE_MAX / ((count - 1) * sizeof(float)) + 1;
        ExpectRejected(v, dst, 7.0f, "dst planes overflow",
                       call(src.data(), C, H, W, pads, d, planeOver, SimdTrue));
        ExpectRejected(v, dst, 7.0f, "channels overflow",
                       call(src.data(), kHalfMax, H, W, pads, d, used, SimdFalse));
        ExpectRejected(v, dst, 7.0f, "height overflow",
                       call(src.data(), C, kHalfMax, W, pads, d, used, SimdTrue));
        ExpectRejected(v, dst, 7.0f, "padY SIZE_MAX",
                       call(src.data(), C, H, W, {SIZE_MAX, 1, py, 1}, d, used, SimdFalse));
        ExpectRejected(v, dst, 7.0f, "padW SIZE_MAX - 3",
                       call(src.data(), C, H, W, {py, 1, py, SIZE_MAX - 3}, d, used, SimdTrue));
        ExpectRejected(
            v, dst, 7.0f, "padH PTRDIFF_MAX",
            call(src.data(), C, H, W, {py, 1, size_t(PTRDIFF_MAX), 1}, d, used, SimdFalse));
        ExpectRejected(v, dst, 7.0f, "pads 2^31",
                       call(src.data(), C, H, W,
                            {size_t(1) << 31, size_t(1) << 31, size_t(1) << 31, size_t(1) << 31}, d,
                            used, SimdTrue));
        // The control: the same buffers take the valid call, which fills exactly them.
        call(src.data(), C, H, W, pads, d, used, SimdFalse)();
        ASSERT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
        EXPECT_TRUE(dst.GuardsIntact()) << v.name;
    }
}

TEST_P(Winograd, RejectedSetOutputWritesNothing) {
    const size_t C = 3, H = 9, W = 7;
    for (const Variant& v : Variants()) {
        const size_t count = v.Count();
        const size_t used = C * ref::CeilDiv(H, v.ay.block) * ref::CeilDiv(W, v.ax.block);
        const std::vector<float> src =
            test::RandomFloats(PlanesSize(count, used, used), -1.0f, 1.0f, 9);
        Guarded<float> dst(C * H * W, 7.0f);
        float* d = dst.data();
        auto call = [&](const float* s, size_t stride, float* out, size_t c, size_t h, size_t w,
                        SimdBool trans) {
            return [=, &v] { v.setOutput(s, stride, out, c, h, w, trans); };
        };
        const float* s = src.data();
        ExpectRejected(v, dst, 7.0f, "src NULL", call(nullptr, used, d, C, H, W, SimdFalse));
        ExpectRejected(v, dst, 7.0f, "dst NULL", call(s, used, nullptr, C, H, W, SimdTrue));
        ExpectRejected(v, dst, 7.0f, "trans 5", call(s, used, d, C, H, W, SimdBool(5)));
        ExpectRejected(v, dst, 7.0f, "srcStride below C*T",
                       call(s, used - 1, d, C, H, W, SimdTrue));
        ExpectRejected(v, dst, 7.0f, "srcStride 0", call(s, 0, d, C, H, W, SimdFalse));
        // A larger image with the stride of this one: more tiles than srcStride.
        ExpectRejected(v, dst, 7.0f, "more tiles than srcStride",
                       call(s, used, d, C, H + 4, W, SimdFalse));
        const size_t planeOver = SIZE_MAX / ((count - 1) * sizeof(float)) + 1;
        ExpectRejected(v, dst, 7.0f, "src planes overflow",
                       call(s, planeOver, d, C, H, W, SimdTrue));
        ExpectRejected(v, dst, 7.0f, "channels overflow",
                       call(s, used, d, kHalfMax, H, W, SimdFalse));
        ExpectRejected(v, dst, 7.0f, "height overflow", call(s, used, d, C, kHalfMax, W, SimdTrue));
        ExpectRejected(v, dst, 7.0f, "width SIZE_MAX", call(s, used, d, C, H, SIZE_MAX, SimdFalse));
        // The control: the same buffers take the valid call, which fills exactly them.
        call(s, used, d, C, H, W, SimdTrue)();
        ASSERT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
        EXPECT_TRUE(dst.GuardsIntact()) << v.name;
    }
}

TEST(WinogradErrors, ZeroExtentsAreNoOps) {
    for (const Variant& v : Variants()) {
        v.setFilter(nullptr, 0, nullptr, SimdFalse);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
        v.setInput(nullptr, 0, 8, 8, 0, 0, 0, 0, nullptr, 0, SimdTrue);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
        v.setInput(nullptr, 3, 0, 8, 1, 1, 1, 1, nullptr, 0, SimdTrue);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
        v.setInput(nullptr, 3, 8, 0, 1, 1, 1, 1, nullptr, 0, SimdFalse);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
        v.setOutput(nullptr, 0, nullptr, 0, 8, 8, SimdFalse);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
        v.setOutput(nullptr, 0, nullptr, 4, 0, 8, SimdFalse);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
        v.setOutput(nullptr, 0, nullptr, 4, 8, 0, SimdTrue);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
    }
}

// An image smaller than the kernel (with its padding) has no tile: nothing is written.
TEST(WinogradErrors, NoTileWritesNothing) {
    const Variant& v = Variants().back();  // 3x3: a 1x1 image without padding has no output
    const float src[1] = {1.0f};
    Guarded<float> dst(8, 3.0f);
    v.setInput(src, 1, 1, 1, 0, 0, 0, 0, dst.data(), 0, SimdTrue);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    for (size_t i = 0; i < dst.size(); ++i) EXPECT_EQ(dst[i], 3.0f);
    EXPECT_TRUE(dst.GuardsIntact());
}

}  // namespace
