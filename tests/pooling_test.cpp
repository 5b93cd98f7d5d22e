// Tests of the pooling family (SUPPLEMENT.md §5) on every compiled and supported Highway target.
#include <array>
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "reference/Pooling.h"

namespace {

using test::Guarded;

// Output size of one axis: floor mode, or ceil mode (the last window may be clipped).
size_t OutSize(size_t src, size_t kernel, size_t stride, size_t pad, bool ceilMode) {
    const size_t span = src + 2 * pad - kernel;
    return (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
}

ref::Pool Shape2D(size_t C, size_t H, size_t W, size_t kY, size_t kX, size_t sY, size_t sX,
                  size_t pY, size_t pX, size_t dstH, size_t dstW, bool nhwc) {
    return ref::Pool{C, H, W, 1, kY, kX, 1, sY, sX, 0, pY, pX, C, dstH, dstW, nhwc};
}

// Some output window lies entirely outside the input along Y, X or C (computed window by
// window with the reference rule). Such windows are computed (SUPPLEMENT.md §5), except by the
// excludePad averages, which reject the call (§15).
bool HasEmptyWindow(const ref::Pool& p) {
    const size_t src[3] = {p.srcH, p.srcW, p.srcC}, dst[3] = {p.dstH, p.dstW, p.dstC};
    const size_t stride[3] = {p.strideY, p.strideX, p.strideC};
    const size_t pad[3] = {p.padY, p.padX, p.padC}, kernel[3] = {p.kernelY, p.kernelX, p.kernelC};
    for (size_t axis = 0; axis < 3; ++axis)
        for (size_t d = 0; d < dst[axis]; ++d) {
            ptrdiff_t b, e;
            ref::Window(d, stride[axis], pad[axis], kernel[axis], src[axis], &b, &e);
            if (e <= b) return true;
        }
    return false;
}

// Channels of TailChannels(), kernels 1, 2, 3, 7 with strides 1-3 and pads 0-2 (pad >= kernel
// leaves the first windows in the padding), floor and ceil output sizes, a narrow and a wide input
// (the wide one reaches full vectors of every target along NCHW rows), both layouts.
std::vector<ref::Pool> Shapes2D() {
    std::vector<ref::Pool> shapes;
    for (bool nhwc : {false, true})
        for (size_t C : test::TailChannels())
            for (size_t k : {1, 2, 3, 7})
                for (size_t s : {1, 2, 3})
                    for (size_t pad : {0, 1, 2})
                        for (bool ceilMode : {false, true}) {
                            const size_t H = 9 + C % 3, W = (C + k) % 2 ? 23 : 70;
                            const ref::Pool p = Shape2D(C, H, W, k, k, s, s, pad, pad,
                                                        OutSize(H, k, s, pad, ceilMode),
                                                        OutSize(W, k, s, pad, ceilMode), nhwc);
                            shapes.push_back(p);
                        }
    // Non-square kernels, strides and pads, stride 4 and 5 (gathers / 1-lane NCHW columns).
    for (bool nhwc : {false, true})
        for (size_t C : {3, 16, 17}) {
            shapes.push_back(Shape2D(C, 12, 41, 3, 2, 2, 1, 1, 0, OutSize(12, 3, 2, 1, true),
                                     OutSize(41, 2, 1, 0, false), nhwc));
            shapes.push_back(Shape2D(C, 10, 90, 2, 5, 1, 4, 0, 2, OutSize(10, 2, 1, 0, false),
                                     OutSize(90, 5, 4, 2, true), nhwc));
            shapes.push_back(Shape2D(C, 10, 97, 5, 5, 5, 5, 2, 2, OutSize(10, 5, 5, 2, true),
                                     OutSize(97, 5, 5, 2, true), nhwc));
            shapes.push_back(
                Shape2D(C, 8, 200, 1, 3, 1, 2, 0, 1, 8, OutSize(200, 3, 2, 1, true), nhwc));
            // Stride-2 NCHW rows narrower than 4 lanes and odd widths (clipped right windows).
            shapes.push_back(Shape2D(C, 7, 5, 3, 3, 2, 2, 1, 1, OutSize(7, 3, 2, 1, false),
                                     OutSize(5, 3, 2, 1, true), nhwc));
            shapes.push_back(Shape2D(C, 6, 9, 2, 2, 2, 2, 1, 1, OutSize(6, 2, 2, 1, false),
                                     OutSize(9, 2, 2, 1, true), nhwc));
            shapes.push_back(Shape2D(C, 5, 113, 2, 2, 2, 2, 0, 0, OutSize(5, 2, 2, 0, true),
                                     OutSize(113, 2, 2, 0, true), nhwc));
            shapes.push_back(Shape2D(C, 13, 67, 3, 3, 2, 2, 1, 1, OutSize(13, 3, 2, 1, true),
                                     OutSize(67, 3, 2, 1, true), nhwc));
        }
    return shapes;
}

// Shapes where some windows (not all) lie entirely outside the input (SUPPLEMENT.md §5): in the
// top/left padding (pad >= kernel), past the bottom/right edge (dst sizes beyond the ceil rule),
// or both, on the paths of every kind of shape (stride-2 NCHW rows and NHWC 3x3 s2 row pairs,
// the separable NCHW rows, strided loads and gathers, rows read without scratch, global-sized
// windows), widths and channels with tails. `extra` rows/columns past the ceil output size.
std::vector<ref::Pool> EmptyWindowShapes() {
    std::vector<ref::Pool> shapes;
    const std::vector<size_t> tails = test::TailChannels();
    for (bool nhwc : {false, true})
        for (size_t i = 0; i < tails.size(); ++i) {
            const size_t C = tails[i], W = tails[(i + 3) % tails.size()], W2 = 2 * W + 5;
            const auto add = [&](size_t H, size_t w, size_t kY, size_t kX, size_t sY, size_t sX,
                                 size_t pY, size_t pX, size_t extraY, size_t extraX) {
                shapes.push_back(Shape2D(C, H, w, kY, kX, sY, sX, pY, pX,
                                         OutSize(H, kY, sY, pY, true) + extraY,
                                         OutSize(w, kX, sX, pX, true) + extraX, nhwc));
            };
            add(9, W2, 3, 3, 2, 2, 1, 1, 2, 3);   // stride-2 rows / NHWC row pairs, past the end
            add(8, W2, 2, 2, 2, 2, 0, 0, 1, 2);   // kernel 2, pad 0
            add(7, W2, 2, 2, 2, 2, 1, 1, 2, 1);   // kernel 2, pad 1
            add(6, W2, 1, 3, 2, 2, 1, 1, 0, 0);   // stride-2 rows, first row in the padding
            add(10, W2, 2, 2, 2, 2, 3, 0, 0, 1);  // first row in the padding, kernel 2
            add(4, W, 3, 3, 1, 1, 7, 7, 0, 0);    // pads far beyond the kernel on both sides
            add(5, W, 2, 3, 1, 1, 3, 4, 2, 0);    // separable rows with empty first columns
            add(6, W2, 2, 2, 3, 4, 3, 3, 1, 1);   // strides 3 and 4 (interleaved loads)
            add(5, W2, 2, 2, 2, 5, 2, 6, 0, 1);   // stride 5 (gathers / 1-lane columns)
            add(3, 3, 3, 3, 1, 1, 3, 3, 0, 0);    // 3x3 input, pad 3: the corner windows empty
            // A window covering the input, then windows past it (stride = kernel = input).
            shapes.push_back(Shape2D(C, 3, W, 3, W, 3, W, 0, 0, 3, 2, nhwc));
            // Every window in the padding: the output is all initial values.
            shapes.push_back(Shape2D(C, 3, W, 2, 2, 1, 1, 2, 2, 1, 1, nhwc));
        }
    for (bool nhwc : {false, true})
        for (size_t C : {3, 16, 17}) {
            // Strides above 64 and pads above 2^20: no padded-row scratch, windows read directly.
            shapes.push_back(Shape2D(C, 5, 150, 2, 3, 1, 70, 0, 1, 5, 4, nhwc));
            shapes.push_back(Shape2D(C, 4, 10, 2, 3, 1, 1, 1, (size_t(1) << 20) + 1, 6, 3, nhwc));
            shapes.push_back(Shape2D(C, 6, 12, 3, 3, 1, 1, (size_t(1) << 20) + 7, 1, 3, 12, nhwc));
            // 13 rows, 3x3 s2 p1 with 2 extra rows: NHWC row pairs, then empty rows.
            shapes.push_back(Shape2D(C, 13, 40, 3, 3, 2, 2, 1, 1, 9, 21, nhwc));
        }
    return shapes;
}

// Global pooling: the kernel covers the whole input (and more than it).
std::vector<ref::Pool> GlobalShapes() {
    std::vector<ref::Pool> shapes;
    for (bool nhwc : {false, true}) {
        shapes.push_back(Shape2D(1024, 7, 7, 7, 7, 1, 1, 0, 0, 1, 1, nhwc));
        // 50 AVX-512 vectors and 3: groups of 32, 16 and 1 vectors, then the overlapping tail.
        shapes.push_back(Shape2D(803, 7, 7, 7, 7, 1, 1, 0, 0, 1, 1, nhwc));
        shapes.push_back(Shape2D(33, 13, 9, 13, 9, 1, 1, 0, 0, 1, 1, nhwc));
        shapes.push_back(Shape2D(17, 5, 6, 8, 8, 1, 1, 0, 0, 1, 1, nhwc));
        shapes.push_back(Shape2D(3, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, nhwc));
        shapes.push_back(Shape2D(15, 3, 70, 3, 70, 1, 1, 0, 0, 1, 1, nhwc));
        // NCHW planes below a full vector (4-lane pairs), of whole vectors (no folded tail) and
        // of 6 elements (a 4-lane tail).
        shapes.push_back(Shape2D(7, 3, 3, 3, 3, 1, 1, 0, 0, 1, 1, nhwc));
        shapes.push_back(Shape2D(5, 2, 2, 2, 2, 1, 1, 0, 0, 1, 1, nhwc));
        shapes.push_back(Shape2D(9, 4, 4, 4, 4, 1, 1, 0, 0, 1, 1, nhwc));
        shapes.push_back(Shape2D(6, 2, 3, 2, 3, 1, 1, 0, 0, 1, 1, nhwc));
    }
    return shapes;
}

// The benchmark shapes: 64 x 112 x 112, 3x3 stride 2 pad 1 and 2x2 stride 2.
std::vector<ref::Pool> LargeShapes() {
    std::vector<ref::Pool> shapes;
    for (bool nhwc : {false, true}) {
        shapes.push_back(Shape2D(64, 112, 112, 3, 3, 2, 2, 1, 1, 56, 56, nhwc));
        shapes.push_back(Shape2D(64, 112, 112, 2, 2, 2, 2, 0, 0, 56, 56, nhwc));
    }
    return shapes;
}

SimdTensorFormatType Format(const ref::Pool& p) {
    return p.nhwc ? SimdTensorFormatNhwc : SimdTensorFormatNchw;
}

::testing::AssertionResult SameFloat(float actual, float expected) {
    if (test::SameValue(actual, expected)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << actual << ", expected " << expected;
}

// BF16 patterns are equal when identical, when both are NaN or both are zero.
::testing::AssertionResult SameBf16(uint16_t actual, uint16_t expected) {
    const bool nanA = (actual & 0x7FFF) > 0x7F80, nanE = (expected & 0x7FFF) > 0x7F80;
    if (actual == expected || (nanA && nanE) || ((actual | expected) & 0x7FFF) == 0)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << std::hex << "got 0x" << actual << ", expected 0x" << expected;
}

std::string Describe(const ref::Pool& p) {
    std::ostringstream os;
    os << (p.nhwc ? "NHWC " : "NCHW ") << p.srcC << "x" << p.srcH << "x" << p.srcW << " kernel "
       << p.kernelC << "x" << p.kernelY << "x" << p.kernelX << " stride " << p.strideC << "x"
       << p.strideY << "x" << p.strideX << " pad " << p.padC << "x" << p.padY << "x" << p.padX
       << " dst " << p.dstC << "x" << p.dstH << "x" << p.dstW;
    return os.str();
}

// An excludePad average over an empty window is rejected by both functions, which write nothing.
void CheckAverageRejected(const ref::Pool& p) {
    Guarded<float> src(p.SrcSize(), 1.0f), dst(p.DstSize(), -7.0f);
    SimdSynetPoolingAverage(src.data(), p.srcC, p.srcH, p.srcW, p.kernelY, p.kernelX, p.strideY,
                            p.strideX, p.padY, p.padX, dst.data(), p.dstH, p.dstW, SimdTrue,
                            Format(p));
    EXPECT_NE(SimdSynetGetLastError(), nullptr) << Describe(p);
    SimdSynetPoolingForwardAverage(src.data(), p.srcC, p.srcH, p.srcW, p.kernelY, p.kernelX,
                                   p.strideY, p.strideX, p.padY, p.padX, dst.data(), p.dstH, p.dstW,
                                   SimdTrue, Format(p));
    EXPECT_NE(SimdSynetGetLastError(), nullptr) << Describe(p);
    EXPECT_TRUE(dst.GuardsIntact()) << Describe(p);
    EXPECT_TRUE(test::AllOf(p.DstSize(), [&](size_t i) { return SameFloat(dst[i], -7.0f); }))
        << "rejected call wrote dst: " << Describe(p);
}

// Average and ForwardAverage against the reference, inputs in [-scale, 2*scale); excludePad over an
// empty window must be rejected instead.
void CheckAverage(const ref::Pool& p, bool excludePad, uint32_t seed, float scale = 1.0f) {
    if (excludePad && HasEmptyWindow(p)) return CheckAverageRejected(p);
    Guarded<float> src(p.SrcSize()), dst(p.DstSize(), -7.0f), dst2(p.DstSize(), -7.0f);
    test::FillRandom(src.data(), src.size(), -scale, 2.0f * scale, seed);
    const SimdBool exclude = excludePad ? SimdTrue : SimdFalse;
    SimdSynetPoolingAverage(src.data(), p.srcC, p.srcH, p.srcW, p.kernelY, p.kernelX, p.strideY,
                            p.strideX, p.padY, p.padX, dst.data(), p.dstH, p.dstW, exclude,
                            Format(p));
    EXPECT_EQ(SimdSynetGetLastError(), nullptr) << Describe(p);
    SimdSynetPoolingForwardAverage(src.data(), p.srcC, p.srcH, p.srcW, p.kernelY, p.kernelX,
                                   p.strideY, p.strideX, p.padY, p.padX, dst2.data(), p.dstH,
                                   p.dstW, exclude, Format(p));
    EXPECT_EQ(SimdSynetGetLastError(), nullptr) << Describe(p);
    EXPECT_TRUE(dst.GuardsIntact() && dst2.GuardsIntact()) << Describe(p);
    std::vector<double> expected, magnitude;
    ref::Average(p, src.data(), excludePad, &expected, &magnitude);
    EXPECT_TRUE(test::AllOf(
        p.DstSize(),
        [&](size_t i) { return test::Near(dst[i], expected[i], magnitude[i], 2e-6, 1e-6); }))
        << Describe(p) << " excludePad " << excludePad;
    EXPECT_EQ(0, std::memcmp(dst.data(), dst2.data(), p.DstSize() * sizeof(float)))
        << "ForwardAverage differs from Average: " << Describe(p);
}

// Max32f (and, for 2D shapes, ForwardMax with the matching trans flag) against the reference.
void CheckMax32f(const ref::Pool& p, const std::vector<float>& values) {
    Guarded<float> src(p.SrcSize()), dst(p.DstSize(), -7.0f);
    std::copy(values.begin(), values.end(), src.data());
    SimdSynetPoolingMax32f(src.data(), p.srcC, p.srcH, p.srcW, p.kernelC, p.kernelY, p.kernelX,
                           p.strideC, p.strideY, p.strideX, p.padC, p.padY, p.padX, dst.data(),
                           p.dstC, p.dstH, p.dstW, Format(p));
    EXPECT_EQ(SimdSynetGetLastError(), nullptr) << Describe(p);
    EXPECT_TRUE(dst.GuardsIntact()) << Describe(p);
    const std::vector<float> expected = ref::Max32f(p, src.data());
    EXPECT_TRUE(test::AllOf(p.DstSize(), [&](size_t i) { return SameFloat(dst[i], expected[i]); }))
        << Describe(p);
    if (p.kernelC == 1 && p.strideC == 1 && p.padC == 0 && p.srcC == p.dstC) {
        Guarded<float> dst2(p.DstSize(), -7.0f);
        SimdSynetPoolingForwardMax(src.data(), p.srcC, p.srcH, p.srcW, p.kernelY, p.kernelX,
                                   p.strideY, p.strideX, p.padY, p.padX, dst2.data(), p.dstH,
                                   p.dstW, p.nhwc ? SimdTrue : SimdFalse);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr) << Describe(p);
        EXPECT_TRUE(dst2.GuardsIntact()) << Describe(p);
        EXPECT_TRUE(
            test::AllOf(p.DstSize(), [&](size_t i) { return SameFloat(dst2[i], expected[i]); }))
            << "ForwardMax " << Describe(p);
    }
}

void CheckMax16b(const ref::Pool& p, uint32_t seed, bool special) {
    Guarded<uint16_t> src(p.SrcSize()), dst(p.DstSize(), 0x1234);
    std::mt19937 rng(seed);
    const uint16_t specials[] = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81,
                                 0xFF7F, 0x7F7F, 0x0001, 0x8001, 0x3F80, 0xBF80};
    for (size_t i = 0; i < src.size(); ++i) {
        if (special && rng() % 3 == 0)
            src[i] = specials[rng() % (sizeof(specials) / sizeof(specials[0]))];
        else if (special)
            src[i] = uint16_t(rng());
        else
            src[i] = ref::FloatToBf16(std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng));
    }
    SimdSynetPoolingMax16b(src.data(), p.srcC, p.srcH, p.srcW, p.kernelY, p.kernelX, p.strideY,
                           p.strideX, p.padY, p.padX, dst.data(), p.dstH, p.dstW, Format(p));
    EXPECT_EQ(SimdSynetGetLastError(), nullptr) << Describe(p);
    EXPECT_TRUE(dst.GuardsIntact()) << Describe(p);
    const std::vector<uint16_t> expected = ref::Max16b(p, src.data());
    EXPECT_TRUE(test::AllOf(p.DstSize(), [&](size_t i) { return SameBf16(dst[i], expected[i]); }))
        << Describe(p);
}

void CheckMax8u(const ref::Pool& p, uint32_t seed) {
    Guarded<uint8_t> src(p.SrcSize()), dst(p.DstSize(), 77);
    test::FillRandom(src.data(), src.size(), seed);
    SimdSynetPoolingMax8u(src.data(), p.srcC, p.srcH, p.srcW, p.kernelY, p.kernelX, p.strideY,
                          p.strideX, p.padY, p.padX, dst.data(), p.dstH, p.dstW, Format(p));
    EXPECT_EQ(SimdSynetGetLastError(), nullptr) << Describe(p);
    EXPECT_TRUE(dst.GuardsIntact()) << Describe(p);
    const std::vector<uint8_t> expected = ref::Max8u(p, src.data());
    EXPECT_TRUE(test::AllOf(p.DstSize(), [&](size_t i) {
        return dst[i] == expected[i]
                   ? ::testing::AssertionSuccess()
                   : ::testing::AssertionFailure() << int(dst[i]) << " vs " << int(expected[i]);
    })) << Describe(p);
}

SIMD_SYNET_TARGET_SUITE(Pooling);

TEST_P(Pooling, Average) {
    uint32_t seed = 1;
    for (const ref::Pool& p : Shapes2D())
        for (bool excludePad : {false, true}) CheckAverage(p, excludePad, seed++);
}

TEST_P(Pooling, AverageGlobalAndLarge) {
    uint32_t seed = 100;
    for (const auto& shapes : {GlobalShapes(), LargeShapes()})
        for (const ref::Pool& p : shapes)
            for (bool excludePad : {false, true}) CheckAverage(p, excludePad, seed++);
}

// Shapes large enough to split over threads (32 K elements or more): NHWC splits output rows,
// including parts whose first window still reaches into the top padding (5x5 s1 p2), NCHW
// splits channels, including the stride-2 rows that write past their row end; the last shape
// has windows past the input, so it runs whole at any budget.
std::vector<ref::Pool> SplitShapes() {
    std::vector<ref::Pool> shapes;
    for (bool nhwc : {false, true}) {
        shapes.push_back(Shape2D(64, 33, 17, 3, 3, 2, 2, 1, 1, 17, 9, nhwc));
        shapes.push_back(Shape2D(48, 40, 30, 5, 5, 1, 1, 2, 2, 40, 30, nhwc));
        shapes.push_back(Shape2D(16, 61, 47, 2, 2, 2, 2, 0, 0, 31, 24, nhwc));
        shapes.push_back(Shape2D(64, 112, 112, 3, 3, 2, 2, 1, 1, 56, 56, nhwc));
        shapes.push_back(Shape2D(2, 130, 131, 3, 3, 1, 1, 1, 1, 130, 131, nhwc));
        shapes.push_back(Shape2D(32, 40, 30, 3, 3, 2, 2, 1, 1, 25, 15, nhwc));
    }
    return shapes;
}

// Budgets of 2 and 3 threads: every function matches the reference, and averages give the bits
// of a single thread.
TEST_P(Pooling, ThreadBudgetsBitIdentical) {
    test::ThreadBudgetGuard restore;
    uint32_t seed = 900;
    for (const ref::Pool& p : SplitShapes()) {
        for (bool excludePad : {false, true}) {
            if (excludePad && HasEmptyWindow(p)) continue;
            Guarded<float> src(p.SrcSize());
            test::FillRandom(src.data(), src.size(), -1.0f, 2.0f, seed++);
            std::vector<std::vector<float>> out;
            for (size_t threads : {1, 2, 3}) {
                SimdSetThreadNumber(threads);
                Guarded<float> dst(p.DstSize(), -7.0f);
                SimdSynetPoolingAverage(src.data(), p.srcC, p.srcH, p.srcW, p.kernelY, p.kernelX,
                                        p.strideY, p.strideX, p.padY, p.padX, dst.data(), p.dstH,
                                        p.dstW, excludePad ? SimdTrue : SimdFalse, Format(p));
                EXPECT_TRUE(dst.GuardsIntact()) << Describe(p);
                out.emplace_back(dst.data(), dst.data() + p.DstSize());
            }
            SimdSetThreadNumber(1);
            EXPECT_EQ(0, std::memcmp(out[0].data(), out[1].data(), out[0].size() * sizeof(float)))
                << "2 threads " << Describe(p) << " excludePad " << excludePad;
            EXPECT_EQ(0, std::memcmp(out[0].data(), out[2].data(), out[0].size() * sizeof(float)))
                << "3 threads " << Describe(p) << " excludePad " << excludePad;
        }
        for (size_t threads : {2, 3}) {
            SimdSetThreadNumber(threads);
            CheckAverage(p, false, seed++);
            CheckMax32f(p, test::RandomFloats(p.SrcSize(), -5.0f, 5.0f, seed++));
            CheckMax16b(p, seed++, threads == 3);
            CheckMax8u(p, seed++);
        }
        SimdSetThreadNumber(1);
    }
}

TEST_P(Pooling, Max32f) {
    uint32_t seed = 1;
    for (const ref::Pool& p : Shapes2D())
        CheckMax32f(p, test::RandomFloats(p.SrcSize(), -5.0f, 5.0f, seed++));
}

TEST_P(Pooling, Max32fGlobalAndLarge) {
    uint32_t seed = 200;
    for (const auto& shapes : {GlobalShapes(), LargeShapes()})
        for (const ref::Pool& p : shapes)
            CheckMax32f(p, test::RandomFloats(p.SrcSize(), -5.0f, 5.0f, seed++));
}

// NaN, infinities, zeros of both signs, +-FLT_MAX and denormals in every window.
TEST_P(Pooling, Max32fSpecialValues) {
    const std::vector<float> special = test::SpecialFloats();
    uint32_t seed = 300;
    for (const ref::Pool& p : Shapes2D()) {
        if (p.srcC > 17) continue;
        std::mt19937 rng(seed++);
        std::vector<float> values(p.SrcSize());
        for (float& v : values) v = special[rng() % special.size()];
        CheckMax32f(p, values);
    }
    // All-NaN and all -inf inputs: windows give NaN and -FLT_MAX.
    for (float fill :
         {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()})
        for (bool nhwc : {false, true}) {
            const ref::Pool p = Shape2D(17, 9, 40, 3, 3, 2, 2, 1, 1, 5, 20, nhwc);
            CheckMax32f(p, std::vector<float>(p.SrcSize(), fill));
        }
}

// 3D pooling across channels: channel kernels 1-3, strides 1-2, pads 0, 1 and 3 (padC >= kernelC
// leaves the first channel windows in the padding), floor and ceil channel counts, and the 2D
// parameters with dstC != srcC. `extra` adds 2 output channels (windows past srcC), a row and two
// columns of windows past the input.
TEST_P(Pooling, Max32f3D) {
    uint32_t seed = 400;
    for (bool nhwc : {false, true})
        for (size_t C : test::TailChannels())
            for (size_t kC : {1, 2, 3})
                for (size_t sC : {1, 2})
                    for (size_t pC : {0, 1, 3})
                        for (bool ceilMode : {false, true})
                            for (size_t extra : {0, 2}) {
                                if (C + 2 * pC < kC) continue;
                                const size_t dstC = OutSize(C, kC, sC, pC, ceilMode) + extra;
                                const ref::Pool p{C,          7,   19, kC, 3, 2,    sC,
                                                  2,          1,   pC, 1,  0, dstC, 4 + extra / 2,
                                                  18 + extra, nhwc};
                                CheckMax32f(p,
                                            test::RandomFloats(p.SrcSize(), -5.0f, 5.0f, seed++));
                            }
    for (bool nhwc : {false, true}) {
        // 2D kernel parameters but fewer output channels: 3D mode with kernelC == 1.
        const ref::Pool p{16, 6, 33, 1, 2, 2, 1, 2, 2, 0, 0, 0, 9, 3, 16, nhwc};
        CheckMax32f(p, test::RandomFloats(p.SrcSize(), -5.0f, 5.0f, 7));
        // Global pooling over channels and space.
        const ref::Pool g{64, 7, 7, 64, 7, 7, 1, 1, 1, 0, 0, 0, 1, 1, 1, nhwc};
        CheckMax32f(g, test::RandomFloats(g.SrcSize(), -5.0f, 5.0f, 8));
    }
}

TEST_P(Pooling, Max16b) {
    uint32_t seed = 500;
    for (const ref::Pool& p : Shapes2D()) {
        CheckMax16b(p, seed, (seed & 1) != 0);
        ++seed;
    }
    for (const auto& shapes : {GlobalShapes(), LargeShapes()})
        for (const ref::Pool& p : shapes) CheckMax16b(p, seed++, false);
}

TEST_P(Pooling, Max8u) {
    uint32_t seed = 600;
    for (const ref::Pool& p : Shapes2D()) CheckMax8u(p, seed++);
    for (const auto& shapes : {GlobalShapes(), LargeShapes()})
        for (const ref::Pool& p : shapes) CheckMax8u(p, seed++);
}

// Windows entirely outside the input give the initial value of the fold (SUPPLEMENT.md §5):
// every function, both layouts, on shapes where only some windows are empty; excludePad averages
// over them are rejected (CheckAverage).
TEST_P(Pooling, EmptyWindows) {
    uint32_t seed = 800;
    for (const ref::Pool& p : EmptyWindowShapes()) {
        EXPECT_TRUE(HasEmptyWindow(p)) << "shape without empty windows: " << Describe(p);
        CheckMax32f(p, test::RandomFloats(p.SrcSize(), -5.0f, 5.0f, seed++));
        CheckAverage(p, false, seed++);
        CheckAverage(p, true, seed++);
        CheckMax16b(p, seed, (seed & 1) != 0);
        ++seed;
        CheckMax8u(p, seed++);
    }
}

// Window sizes near the limits the entry points accept ((dst-1)*stride + kernel and pad below
// 2^62): kernels of 2^40 x 2^40 (the average divides by 2^80, a size_t product would wrap to 0;
// inputs near 1e30 keep the quotients far from 0), pads of 2^61 (every window in the padding) and
// output rows far past a two-row input.
TEST_P(Pooling, HugeWindows) {
    uint32_t seed = 900;
    const size_t k40 = size_t(1) << 40, p61 = size_t(1) << 61;
    for (bool nhwc : {false, true}) {
        const ref::Pool shapes[] = {
            Shape2D(3, 4, 5, k40, k40, 1, 1, k40 - 2, k40 - 3, 3, 4, nhwc),
            Shape2D(17, 3, 9, 3, 2, 1, 2, p61, 1, 2, 5, nhwc),
            Shape2D(5, 3, 9, 2, 3, 2, 1, 0, p61, 2, 5, nhwc),
            Shape2D(8, 2, 7, 2, 3, 1, 1, 1, 1, 300, 7, nhwc),
        };
        for (const ref::Pool& p : shapes) {
            CheckAverage(p, false, seed++, 1e30f);
            CheckAverage(p, true, seed++, 1e30f);
            CheckMax32f(p, test::RandomFloats(p.SrcSize(), -5.0f, 5.0f, seed++));
            CheckMax16b(p, seed++, false);
            CheckMax8u(p, seed++);
        }
    }
}

// BF16 and UINT8 NCHW stride-2 rows load and store whole vectors past the row when the tensor
// goes on far enough: tensors in exactly-sized heap blocks (no guard elements), so that the
// sanitizer build reports any access past either tensor; values against the reference.
TEST_P(Pooling, NchwStride2StaysInTensors) {
    uint32_t seed = 650;
    std::vector<ref::Pool> shapes;
    // Ceil sizes on even heights: the last whole window ends on the last input row and a clipped
    // output row follows it, so the reads, not the writes, limit the rows that run past.
    // Extra output rows and columns add windows past the input, filled after the rows that run
    // past.
    for (size_t C : {1, 2, 5})
        for (size_t H : {11, 12})
            for (size_t W : {9, 40, 67, 112, 130})
                for (const auto& k : {std::array<size_t, 2>{3, 1}, {2, 1}, {2, 0}})
                    for (bool ceilMode : {false, true})
                        for (size_t extra : {0, 2})
                            shapes.push_back(Shape2D(C, H, W, k[0], k[0], 2, 2, k[1], k[1],
                                                     OutSize(H, k[0], 2, k[1], ceilMode) + extra,
                                                     OutSize(W, k[0], 2, k[1], ceilMode) + extra,
                                                     false));
    // The first output row in the padding (kernel rows 1 and 2).
    for (size_t W : {9, 67})
        for (const auto& k : {std::array<size_t, 2>{1, 1}, {2, 2}})
            shapes.push_back(
                Shape2D(2, 11, W, k[0], 3, 2, 2, k[1], 1, 7, OutSize(W, 3, 2, 1, true), false));
    for (const ref::Pool& p : shapes) {
        std::mt19937 rng(seed++);
        std::unique_ptr<uint16_t[]> src16(new uint16_t[p.SrcSize()]);
        std::unique_ptr<uint8_t[]> src8(new uint8_t[p.SrcSize()]);
        for (size_t i = 0; i < p.SrcSize(); ++i) {
            src16[i] = uint16_t(rng());
            src8[i] = uint8_t(rng());
        }
        std::unique_ptr<uint16_t[]> dst16(new uint16_t[p.DstSize()]);
        std::unique_ptr<uint8_t[]> dst8(new uint8_t[p.DstSize()]);
        SimdSynetPoolingMax16b(src16.get(), p.srcC, p.srcH, p.srcW, p.kernelY, p.kernelX, 2, 2,
                               p.padY, p.padX, dst16.get(), p.dstH, p.dstW, SimdTensorFormatNchw);
        SimdSynetPoolingMax8u(src8.get(), p.srcC, p.srcH, p.srcW, p.kernelY, p.kernelX, 2, 2,
                              p.padY, p.padX, dst8.get(), p.dstH, p.dstW, SimdTensorFormatNchw);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr) << Describe(p);
        const std::vector<uint16_t> expected16 = ref::Max16b(p, src16.get());
        const std::vector<uint8_t> expected8 = ref::Max8u(p, src8.get());
        EXPECT_TRUE(test::AllOf(p.DstSize(), [&](size_t i) {
            return SameBf16(dst16[i], expected16[i]);
        })) << Describe(p);
        EXPECT_TRUE(test::AllOf(p.DstSize(), [&](size_t i) {
            return dst8[i] == expected8[i] ? ::testing::AssertionSuccess()
                                           : ::testing::AssertionFailure()
                                                 << int(dst8[i]) << " vs " << int(expected8[i]);
        })) << Describe(p);
    }
}

// Geometries too sparse for the padded-row scratch of the NCHW kernels (strides above 64,
// kernels and pads above 2^20): every window is then read directly.
TEST_P(Pooling, SparseWindows) {
    uint32_t seed = 700;
    for (bool nhwc : {false, true}) {
        const ref::Pool shapes[] = {
            Shape2D(3, 5, 300, 2, 3, 1, 65, 0, 1, 4, 5, nhwc),
            Shape2D(17, 4, 400, 3, 66, 2, 70, 1, 0, 2, 5, nhwc),
            // A kernel and pad above 2^20 columns (each window clipped to the input).
            Shape2D(2, 3, 10, 2, (size_t(1) << 20) + 1, 1, 1, 0, size_t(1) << 20, 2, 10, nhwc),
            Shape2D(16, 2, 40, 1, 3, 1, 1, 0, 1, 2, 40, nhwc),  // the 3x1 slide does not apply
        };
        for (const ref::Pool& p : shapes) {
            CheckMax32f(p, test::RandomFloats(p.SrcSize(), -5.0f, 5.0f, seed++));
            CheckAverage(p, false, seed++);
            CheckMax16b(p, seed++, true);
            CheckMax8u(p, seed++);
        }
        // 3D with a channel stride above 64.
        const ref::Pool p3{200, 3, 9, 3, 2, 2, 70, 1, 1, 1, 1, 1, 3, 4, 10, nhwc};
        CheckMax32f(p3, test::RandomFloats(p3.SrcSize(), -5.0f, 5.0f, seed++));
        // The same without the padded channel row, the first and last channel windows empty.
        const ref::Pool e3{200, 3, 9, 3, 2, 2, 70, 1, 1, 3, 1, 1, 4, 4, 10, nhwc};
        CheckMax32f(e3, test::RandomFloats(e3.SrcSize(), -5.0f, 5.0f, seed++));
    }
}

// ---- Argument checks (plain tests: no kernel runs).

// Every call below must be rejected with a message and leave dst untouched.
template <class Call>
void ExpectRejected(Call call, const char* what) {
    Guarded<float> dst(64, 3.0f);
    Guarded<uint16_t> dst16(64, 3);
    Guarded<uint8_t> dst8(64, 3);
    call(dst.data(), dst16.data(), dst8.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr) << what;
    for (size_t i = 0; i < 64; ++i) {
        ASSERT_EQ(dst[i], 3.0f) << what;
        ASSERT_EQ(dst16[i], 3) << what;
        ASSERT_EQ(dst8[i], 3) << what;
    }
}

TEST(PoolingErrors, InvalidArguments) {
    std::vector<float> src(256, 1.0f);
    std::vector<uint16_t> src16(256, 0x3F80);
    std::vector<uint8_t> src8(256, 1);
    const float* s = src.data();
    const size_t big = size_t(1) << 40;
    // Shape 4 x 4 x 4, 2x2 stride 2 into 4 x 2 x 2, unless a test changes it.
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingAverage(nullptr, 4, 4, 4, 2, 2, 2, 2, 0, 0, d, 2, 2, SimdFalse,
                                    SimdTensorFormatNchw);
        },
        "Average NULL src");
    ExpectRejected(
        [&](float*, uint16_t*, uint8_t*) {
            SimdSynetPoolingForwardAverage(s, 4, 4, 4, 2, 2, 2, 2, 0, 0, nullptr, 2, 2, SimdFalse,
                                           SimdTensorFormatNchw);
        },
        "ForwardAverage NULL dst");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingAverage(s, 4, 4, 4, 2, 2, 2, 2, 0, 0, d, 2, 2, SimdFalse,
                                    SimdTensorFormatNchw8c);
        },
        "Average blocked format");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingAverage(s, 4, 4, 4, 2, 2, 2, 2, 0, 0, d, 2, 2, SimdFalse,
                                    SimdTensorFormatType(77));
        },
        "Average unknown format");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingAverage(s, 4, 4, 4, 2, 2, 2, 2, 0, 0, d, 2, 2, SimdBool(2),
                                    SimdTensorFormatNchw);
        },
        "Average bad excludePad");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingAverage(s, 4, 4, 4, 0, 2, 2, 2, 0, 0, d, 2, 2, SimdFalse,
                                    SimdTensorFormatNhwc);
        },
        "Average kernel 0");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingAverage(s, 4, 4, 4, 2, 2, 2, 0, 0, 0, d, 2, 2, SimdFalse,
                                    SimdTensorFormatNhwc);
        },
        "Average stride 0");
    // excludePad with a window entirely in the padding (pad >= kernel) or past the input.
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingAverage(s, 4, 4, 4, 2, 2, 2, 2, 2, 0, d, 3, 2, SimdTrue,
                                    SimdTensorFormatNchw);
        },
        "Average excludePad, empty first window");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingAverage(s, 4, 4, 4, 2, 2, 2, 2, 0, 0, d, 2, 3, SimdTrue,
                                    SimdTensorFormatNhwc);
        },
        "Average excludePad, empty last window");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingAverage(s, big, big, 4, 2, 2, 2, 2, 0, 0, d, 2, 2, SimdFalse,
                                    SimdTensorFormatNchw);
        },
        "Average overflowing src size");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingAverage(s, 4, 4, 4, 2, 2, size_t(1) << 62, 2, 0, 0, d, 2, 2, SimdFalse,
                                    SimdTensorFormatNchw);
        },
        "Average overflowing window reach");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingForwardMax(s, 4, 4, 4, 2, 2, 2, 2, 0, 0, d, 2, 2, SimdBool(3));
        },
        "ForwardMax bad trans");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingForwardMax(nullptr, 4, 4, 4, 2, 2, 2, 2, 0, 0, d, 2, 2, SimdTrue);
        },
        "ForwardMax NULL src");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingForwardMax(s, 4, 4, 4, 2, 0, 2, 2, 0, 0, d, 2, 2, SimdFalse);
        },
        "ForwardMax kernel 0");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingMax32f(s, 4, 4, 4, 0, 2, 2, 1, 2, 2, 0, 0, 0, d, 4, 2, 2,
                                   SimdTensorFormatNchw);
        },
        "Max32f kernelC 0");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingMax32f(s, 4, 4, 4, 2, 2, 2, 0, 2, 2, 0, 0, 0, d, 2, 2, 2,
                                   SimdTensorFormatNchw);
        },
        "Max32f strideC 0");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingMax32f(s, 4, 4, 4, 1, 2, 2, 1, 2, 2, 0, 0, 0, d, 4, 2, 2,
                                   SimdTensorFormatNchw4c);
        },
        "Max32f blocked format");
    ExpectRejected(
        [&](float* d, uint16_t*, uint8_t*) {
            SimdSynetPoolingMax32f(s, 4, 4, 4, 1, 2, 2, 1, 2, 2, 0, 0, 0, d, big, big, 2,
                                   SimdTensorFormatNhwc);
        },
        "Max32f overflowing dst size");
    ExpectRejected(
        [&](float*, uint16_t* d, uint8_t*) {
            SimdSynetPoolingMax16b(src16.data(), 4, 4, 4, 2, 2, 2, 2, 0, 0, d, 2, 2,
                                   SimdTensorFormatNchw16c);
        },
        "Max16b blocked format");
    ExpectRejected(
        [&](float*, uint16_t* d, uint8_t*) {
            SimdSynetPoolingMax16b(nullptr, 4, 4, 4, 2, 2, 2, 2, 0, 0, d, 2, 2,
                                   SimdTensorFormatNchw);
        },
        "Max16b NULL src");
    ExpectRejected(
        [&](float*, uint16_t* d, uint8_t*) {
            SimdSynetPoolingMax16b(src16.data(), 4, 4, 4, 2, 2, 0, 2, 0, 0, d, 2, 2,
                                   SimdTensorFormatNhwc);
        },
        "Max16b stride 0");
    ExpectRejected(
        [&](float*, uint16_t*, uint8_t* d) {
            SimdSynetPoolingMax8u(src8.data(), 4, 4, 4, 2, 2, 2, 2, 0, 0, d, 2, 2,
                                  SimdTensorFormatType(-5));
        },
        "Max8u unknown format");
    ExpectRejected(
        [&](float*, uint16_t*, uint8_t* d) {
            SimdSynetPoolingMax8u(src8.data(), big, big, big, 2, 2, 2, 2, 0, 0, d, 2, 2,
                                  SimdTensorFormatNchw);
        },
        "Max8u overflowing src size");
    ExpectRejected(
        [&](float*, uint16_t*, uint8_t*) {
            SimdSynetPoolingMax8u(src8.data(), 4, 4, 4, 2, 2, 2, 2, 0, 0, nullptr, 2, 2,
                                  SimdTensorFormatNhwc);
        },
        "Max8u NULL dst");
}

// Sizes putting a window entirely outside the input (along Y, X or, in 3D, C): every function
// computes them (SUPPLEMENT.md §5; the values on every target: TEST_P EmptyWindows), except the
// excludePad averages, which are rejected and write nothing (§15).
TEST(PoolingErrors, WindowsOutsideTheInput) {
    // 4 x 4 x 4 input; ramps, so that every window has its own maximum.
    std::vector<float> src(64);
    std::vector<uint16_t> src16(64);
    std::vector<uint8_t> src8(64);
    for (size_t i = 0; i < 64; ++i) {
        src[i] = float(i) - 20.0f;
        src16[i] = ref::FloatToBf16(src[i]);
        src8[i] = uint8_t(i + 1);
    }
    struct Case {
        size_t kY, kX, sY, sX, pY, pX, dstH, dstW;
        const char* what;
    };
    const Case cases[] = {
        {2, 2, 2, 2, 2, 0, 2, 2, "padY == kernelY"},
        {2, 2, 2, 2, 0, 3, 2, 2, "padX > kernelX"},
        {1, 3, 1, 1, 1, 0, 2, 2, "padY >= kernelY == 1"},
        // srcH + padY = 5: the last window starts at row 2*(dstH-1) - 1, past row 3 when dstH=4.
        {2, 2, 2, 2, 1, 0, 4, 2, "last row window below the input"},
        {2, 2, 2, 2, 0, 1, 2, 4, "last column window right of the input"},
        {2, 2, 3, 3, 0, 0, 3, 2, "stride 3 past the input"},
    };
    for (bool nhwc : {false, true}) {
        const SimdTensorFormatType f = nhwc ? SimdTensorFormatNhwc : SimdTensorFormatNchw;
        for (const Case& c : cases) {
            const ref::Pool p =
                Shape2D(4, 4, 4, c.kY, c.kX, c.sY, c.sX, c.pY, c.pX, c.dstH, c.dstW, nhwc);
            ExpectRejected(
                [&](float* d, uint16_t*, uint8_t*) {
                    SimdSynetPoolingAverage(src.data(), 4, 4, 4, c.kY, c.kX, c.sY, c.sX, c.pY, c.pX,
                                            d, c.dstH, c.dstW, SimdTrue, f);
                },
                c.what);
            ExpectRejected(
                [&](float* d, uint16_t*, uint8_t*) {
                    SimdSynetPoolingForwardAverage(src.data(), 4, 4, 4, c.kY, c.kX, c.sY, c.sX,
                                                   c.pY, c.pX, d, c.dstH, c.dstW, SimdTrue, f);
                },
                c.what);
            // The other calls are accepted, write exactly dst and match the reference.
            Guarded<float> avg(p.DstSize(), 3.0f), avg2(p.DstSize(), 3.0f), max(p.DstSize(), 3.0f),
                max2(p.DstSize(), 3.0f);
            Guarded<uint16_t> max16(p.DstSize(), 3);
            Guarded<uint8_t> max8(p.DstSize(), 3);
            SimdSynetPoolingAverage(src.data(), 4, 4, 4, c.kY, c.kX, c.sY, c.sX, c.pY, c.pX,
                                    avg.data(), c.dstH, c.dstW, SimdFalse, f);
            EXPECT_EQ(SimdSynetGetLastError(), nullptr) << c.what;
            SimdSynetPoolingForwardAverage(src.data(), 4, 4, 4, c.kY, c.kX, c.sY, c.sX, c.pY, c.pX,
                                           avg2.data(), c.dstH, c.dstW, SimdFalse, f);
            EXPECT_EQ(SimdSynetGetLastError(), nullptr) << c.what;
            SimdSynetPoolingForwardMax(src.data(), 4, 4, 4, c.kY, c.kX, c.sY, c.sX, c.pY, c.pX,
                                       max.data(), c.dstH, c.dstW, nhwc ? SimdTrue : SimdFalse);
            EXPECT_EQ(SimdSynetGetLastError(), nullptr) << c.what;
            SimdSynetPoolingMax32f(src.data(), 4, 4, 4, 1, c.kY, c.kX, 1, c.sY, c.sX, 0, c.pY, c.pX,
                                   max2.data(), 4, c.dstH, c.dstW, f);
            EXPECT_EQ(SimdSynetGetLastError(), nullptr) << c.what;
            SimdSynetPoolingMax16b(src16.data(), 4, 4, 4, c.kY, c.kX, c.sY, c.sX, c.pY, c.pX,
                                   max16.data(), c.dstH, c.dstW, f);
            EXPECT_EQ(SimdSynetGetLastError(), nullptr) << c.what;
            SimdSynetPoolingMax8u(src8.data(), 4, 4, 4, c.kY, c.kX, c.sY, c.sX, c.pY, c.pX,
                                  max8.data(), c.dstH, c.dstW, f);
            EXPECT_EQ(SimdSynetGetLastError(), nullptr) << c.what;
            EXPECT_TRUE(avg.GuardsIntact() && avg2.GuardsIntact() && max.GuardsIntact() &&
                        max2.GuardsIntact() && max16.GuardsIntact() && max8.GuardsIntact())
                << c.what;
            std::vector<double> expectedAvg, magnitude;
            ref::Average(p, src.data(), false, &expectedAvg, &magnitude);
            const std::vector<float> expectedMax = ref::Max32f(p, src.data());
            const std::vector<uint16_t> expected16 = ref::Max16b(p, src16.data());
            const std::vector<uint8_t> expected8 = ref::Max8u(p, src8.data());
            size_t empty = 0;
            for (size_t i = 0; i < p.DstSize(); ++i) {
                EXPECT_TRUE(test::Near(avg[i], expectedAvg[i], magnitude[i], 2e-6, 1e-6))
                    << c.what << " " << i;
                EXPECT_EQ(avg2[i], avg[i]) << c.what << " " << i;
                EXPECT_EQ(max[i], expectedMax[i]) << c.what << " " << i;
                EXPECT_EQ(max2[i], expectedMax[i]) << c.what << " " << i;
                EXPECT_EQ(max16[i], expected16[i]) << c.what << " " << i;
                EXPECT_EQ(max8[i], expected8[i]) << c.what << " " << i;
                empty += expectedMax[i] == -FLT_MAX;
            }
            // The shape has empty windows: their outputs are the initial values.
            EXPECT_GT(empty, 0u) << c.what;
        }
        // 3D max pooling: channel windows in the channel padding or past the last channel.
        const ref::Pool shapes3d[] = {
            {4, 4, 4, 2, 2, 2, 2, 2, 2, 2, 0, 0, 2, 2, 2, nhwc},  // padC == kernelC
            {4, 4, 4, 2, 2, 2, 2, 2, 2, 1, 0, 0, 4, 2, 2, nhwc},  // last channel window past srcC
            {4, 4, 4, 1, 2, 2, 1, 2, 2, 0, 0, 0, 5, 2, 2, nhwc},  // dstC > srcC with kernelC 1
        };
        for (const ref::Pool& p : shapes3d) {
            Guarded<float> d(p.DstSize(), 3.0f);
            SimdSynetPoolingMax32f(src.data(), 4, 4, 4, p.kernelC, p.kernelY, p.kernelX, p.strideC,
                                   p.strideY, p.strideX, p.padC, p.padY, p.padX, d.data(), p.dstC,
                                   p.dstH, p.dstW, f);
            EXPECT_EQ(SimdSynetGetLastError(), nullptr) << Describe(p);
            EXPECT_TRUE(d.GuardsIntact()) << Describe(p);
            const std::vector<float> expected = ref::Max32f(p, src.data());
            EXPECT_EQ(d.Vector(), expected) << Describe(p);
        }
    }
}

// A zero extent is a no-op (SUPPLEMENT.md §0.3): accepted even with NULL pointers.
TEST(PoolingErrors, ZeroSizesAreNoOps) {
    SimdSynetPoolingAverage(nullptr, 0, 4, 4, 2, 2, 2, 2, 0, 0, nullptr, 2, 2, SimdTrue,
                            SimdTensorFormatNchw);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetPoolingForwardMax(nullptr, 4, 0, 4, 2, 2, 2, 2, 0, 0, nullptr, 2, 2, SimdFalse);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetPoolingMax32f(nullptr, 4, 4, 4, 2, 2, 2, 1, 2, 2, 0, 0, 0, nullptr, 0, 2, 2,
                           SimdTensorFormatNhwc);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetPoolingMax16b(nullptr, 4, 4, 4, 2, 2, 2, 2, 0, 0, nullptr, 0, 2, SimdTensorFormatNchw);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetPoolingMax8u(nullptr, 4, 4, 0, 2, 2, 2, 2, 0, 0, nullptr, 2, 2, SimdTensorFormatNhwc);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    // Nothing is read or written: a real dst stays untouched.
    Guarded<float> dst(8, 5.0f);
    std::vector<float> src(64, 1.0f);
    SimdSynetPoolingForwardAverage(src.data(), 4, 4, 4, 2, 2, 2, 2, 0, 0, dst.data(), 2, 0,
                                   SimdFalse, SimdTensorFormatNchw);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    for (size_t i = 0; i < 8; ++i) EXPECT_EQ(dst[i], 5.0f);
}

}  // namespace
