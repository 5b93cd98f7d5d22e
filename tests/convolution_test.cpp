// Tests of the FP32 convolution framework (SimdSynetConvolution32f*) on every compiled and
// supported Highway target, against the double reference of reference/Convolution.h.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ConcurrentForward.h"
#include "ConvolutionCases.h"
#include "TestUtil.h"
#include "reference/Convolution.h"

namespace {

using test::Guarded;

using convtest::Shape;

SimdConvolutionParameters Make(const Shape& s, SimdTensorFormatType format,
                               SimdConvolutionActivationType act) {
    return convtest::ConvolutionParameters(s, format, act);
}

// Tails in every dimension: channels 1, 3, 7, 8, 17, 33, 64; widths 1, 5, 13, 56; kernels 1, 3,
// 5, 7, 1x3, 3x1; strides 1-3; dilation 1-2; asymmetric pads and pads beyond the kernel; groups
// 1, 2, 4, depthwise and depthwise with a channel multiplier.
std::vector<Shape> Shapes() {
    return {
        // srcC dstC  H   W  kY kX sY sX dY dX pY pX pH pW group
        {3, 32, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},    // first layer
        {64, 64, 6, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // 3x3 body
        {17, 33, 5, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},    // 1x1
        {64, 7, 5, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},      // 1x1 narrow output
        {33, 64, 13, 5, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1},    // 1x1 stride 2
        {8, 17, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},      // single pixel
        {17, 33, 16, 20, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   // 1x1, many pixels (NCHW: W*im2col)
        {600, 17, 15, 19, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // NCHW: partial panel, K in 2 chunks
        {3, 33, 96, 96, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},    // NCHW via NHWC in output bands
        {3, 8, 20, 30, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // few outputs, many pixels
        {2, 9, 21, 30, 3, 3, 2, 2, 1, 1, 1, 0, 0, 1, 1},     // two input planes (NCHW interleave)
        {7, 8, 1, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},      // height 1
        {8, 7, 13, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},      // width 1
        {7, 8, 5, 5, 3, 3, 1, 1, 1, 1, 4, 0, 2, 5, 1},       // pads beyond the kernel
        {3, 17, 13, 13, 5, 5, 3, 3, 1, 1, 2, 1, 0, 3, 1},    // 5x5 stride 3
        {8, 8, 13, 13, 7, 7, 1, 2, 2, 1, 6, 3, 5, 2, 1},     // 7x7 dilated
        {17, 8, 5, 13, 1, 3, 1, 1, 1, 2, 0, 2, 0, 1, 1},     // 1x3
        {8, 33, 13, 5, 3, 1, 2, 1, 1, 1, 1, 0, 2, 0, 1},     // 3x1
        {1, 3, 13, 13, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},     // one input channel, dilated
        {64, 33, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // K over one chunk on small L1?
        {8, 8, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},     // groups
        {8, 16, 5, 13, 3, 3, 2, 1, 1, 1, 0, 1, 1, 0, 4},
        {64, 64, 5, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4},  // grouped 1x1
        {34, 66, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},   // group of 17 / 33
        {7, 14, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 7},   // depthwise multiplier 2
        // 7-pixel output rows (one-row tiles under the narrow tile): groups of 16, 32 outputs,
        // stride 2, pads on one side only.
        {64, 64, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},
        {40, 32, 9, 7, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1},
        {16, 24, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
        {48, 48, 6, 8, 3, 3, 1, 1, 1, 1, 0, 1, 2, 0, 3},
        // Depthwise.
        {1, 1, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {3, 3, 13, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},
        {7, 7, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 7},
        {8, 8, 5, 56, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 8},
        {17, 17, 13, 5, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 17},
        {33, 33, 13, 13, 3, 3, 1, 1, 1, 1, 2, 0, 1, 3, 33},
        {64, 64, 13, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 64},
        {64, 64, 13, 56, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 64},
        {17, 17, 13, 13, 5, 5, 1, 1, 2, 2, 4, 4, 4, 4, 17},
        {33, 33, 5, 13, 7, 7, 3, 3, 1, 1, 3, 3, 3, 3, 33},
        {8, 8, 1, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},
        {16, 16, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},
        {17, 17, 13, 13, 1, 3, 1, 2, 1, 1, 0, 1, 0, 1, 17},
        {17, 17, 5, 5, 3, 3, 1, 1, 1, 1, 5, 5, 5, 5, 17},  // pads beyond the kernel
    };
}

using convtest::ActivationParams;
using convtest::Data;
using convtest::Describe;
using convtest::kActivations;
using convtest::MakeData;

// dst against the reference values and their magnitudes (sum |src*w|), the direct/GEMM bound.
::testing::AssertionResult MatchesReference(const float* dst, const std::vector<double>& ref,
                                            const std::vector<double>& mag) {
    return test::AllOf(ref.size(),
                       [&](size_t i) { return test::Near(dst[i], ref[i], mag[i], 1e-5, 1e-6); });
}

::testing::AssertionResult Compare(const SimdConvolutionParameters& p, size_t batch,
                                   const Data& data, bool withBias, const Guarded<float>& dst) {
    std::vector<double> ref, mag;
    ref::Convolution32f(p, batch, data.src.data(), data.weight.data(),
                        withBias ? data.bias.data() : nullptr, data.params.data(), ref, mag);
    if (!dst.GuardsIntact()) return ::testing::AssertionFailure() << "guard zone overwritten";
    return MatchesReference(dst.data(), ref, mag);
}

// Init, SetParams, Forward (own buffer or NULL) and comparison with the reference.
::testing::AssertionResult RunCase(const SimdConvolutionParameters& p, size_t batch, bool withBias,
                                   bool callerBuffer, SimdGemm32fNNPtr gemm, uint32_t seed,
                                   std::string* info = nullptr) {
    const Data data = MakeData(p, batch, seed);
    void* context = SimdSynetConvolution32fInit(batch, &p, gemm);
    if (context == nullptr)
        return ::testing::AssertionFailure()
               << "Init failed: " << (SimdSynetGetLastError() ? SimdSynetGetLastError() : "");
    SimdBool internal = SimdFalse;
    SimdSynetConvolution32fSetParams(context, data.weight.data(), &internal,
                                     withBias ? data.bias.data() : nullptr,
                                     data.params.empty() ? nullptr : data.params.data());
    Guarded<float> buf(callerBuffer ? SimdSynetConvolution32fExternalBufferSize(context) : 0,
                       std::numeric_limits<float>::quiet_NaN());
    Guarded<float> dst(batch * p.dstC * p.dstH * p.dstW, std::numeric_limits<float>::quiet_NaN());
    SimdSynetConvolution32fForward(context, data.src.data(), callerBuffer ? buf.data() : nullptr,
                                   dst.data());
    if (info) *info = SimdSynetConvolution32fInfo(context);
    const std::string name = SimdSynetConvolution32fInfo(context);
    SimdRelease(context);
    if (callerBuffer && !buf.GuardsIntact())
        return ::testing::AssertionFailure() << "scratch guard overwritten (" << name << ")";
    ::testing::AssertionResult r = Compare(p, batch, data, withBias, dst);
    if (!r) return ::testing::AssertionFailure() << name << ": " << r.message();
    return ::testing::AssertionSuccess();
}

std::atomic<int> g_gemmCalls{0};
std::atomic<int> g_gemmBadScalars{0};

void CountingGemm(size_t M, size_t N, size_t K, const float* alpha, const float* A, size_t lda,
                  const float* B, size_t ldb, const float* beta, float* C, size_t ldc) {
    g_gemmCalls++;
    if (*alpha != 1.0f || *beta != 0.0f) g_gemmBadScalars++;
    SimdGemm32fNN(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

SIMD_SYNET_TARGET_SUITE(ConvolutionTest);

TEST_P(ConvolutionTest, Shapes) {
    uint32_t seed = 1;
    size_t index = 0;
    for (const Shape& s : Shapes())
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            // Rotate activations, bias presence and buffer ownership over the shapes.
            const SimdConvolutionActivationType act = kActivations[index % 11];
            const SimdConvolutionParameters p = Make(s, f, act);
            const bool withBias = index % 3 != 2, callerBuffer = index % 2 == 0;
            EXPECT_TRUE(RunCase(p, 2, withBias, callerBuffer, nullptr, seed))
                << Describe(p, 2) << " bias " << withBias << " buf " << callerBuffer;
            seed += 7;
            ++index;
        }
}

// One output pixel in the whole batch (a classifier's 1x1 convolution on a 1x1 image): the
// direct kernel's one-row tiles of the full panel width, a K in one block and in several, every
// panel width's tail, both layouts; batch 2 keeps the usual tile.
TEST_P(ConvolutionTest, SinglePixelOneRowTiles) {
    const Shape shapes[] = {{19, 70, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
                            {1100, 37, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}};
    uint32_t seed = 1500;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (size_t batch : {1, 2})
                for (bool callerBuffer : {false, true}) {
                    const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationPrelu);
                    std::string info;
                    EXPECT_TRUE(RunCase(p, batch, true, callerBuffer, nullptr, seed++, &info))
                        << Describe(p, batch);
                    // AVX-512 keeps its 14-row narrow tile for at most 32 channels.
                    const bool oneRow = batch == 1 && (s.dstC > 32 || info.rfind("avx512", 0) != 0);
                    EXPECT_EQ(info.find("-1x") != std::string::npos, oneRow) << info;
                }
}

// Outputs whose pixels are a multiple of 7 (7x7) with more than 32 output channels: on
// AVX-512 7 x 3-vector tiles where they compute fewer padded products than 6 x 4-vector ones
// (49 rows instead of 54), pointwise and spatial (stride 2, dilation 2 with groups: not
// Winograd), K in one block and in several, panels with a tail, batch 2, a prelu epilogue.
TEST_P(ConvolutionTest, SevenRowTiles) {
    const Shape shapes[] = {{40, 90, 7, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
                            {1100, 40, 7, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
                            {24, 33, 14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                            {64, 96, 7, 7, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2}};
    uint32_t seed = 1700;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (size_t batch : {1, 2}) {
                const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationPrelu);
                std::string info;
                EXPECT_TRUE(RunCase(p, batch, true, batch == 2, nullptr, seed++, &info))
                    << Describe(p, batch);
                if (f == SimdTensorFormatNhwc && info.rfind("avx512", 0) == 0) {
                    EXPECT_NE(info.find("-7x48"), std::string::npos) << info;
                }
            }
}

TEST_P(ConvolutionTest, EveryActivation) {
    // The last two fill whole register tiles on every target (70 channels: a 64-wide AVX-512
    // panel and a tail; 32 channels and 27 pixels a row: two of AVX-512's 14 x 32 row tiles,
    // the second overlapping the first by a pixel, the right one reading the right padding)
    // outside Winograd, so each activation also goes through the micro-kernel's whole-tile
    // store.
    const Shape shapes[] = {{17, 33, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {33, 33, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 33},
                            {17, 33, 5, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
                            {9, 70, 4, 15, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
                            {3, 32, 5, 53, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                            {4, 17, 5, 40, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1}};  // NCHW rows
    uint32_t seed = 100;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (SimdConvolutionActivationType act : kActivations) {
                const SimdConvolutionParameters p = Make(s, f, act);
                EXPECT_TRUE(RunCase(p, 1, true, false, nullptr, seed++)) << Describe(p, 1);
            }
}

// A NaN input pixel (one channel of it) makes NaN every output whose window reads it, through
// every activation (max(0, NaN) is NaN: SimdSynet.h), and no output far from it: a Winograd
// tile may spread it to the outputs of its input tile only. Pointwise, spatial, depthwise and
// a Winograd-sized layer, both layouts, a second image that must stay clean.
TEST_P(ConvolutionTest, NaNPropagates) {
    const Shape shapes[] = {{17, 33, 9, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
                            {9, 70, 9, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {32, 32, 9, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 32},
                            {64, 64, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
    const size_t batch = 2, nanC = 2, nanY = 4, nanX = 6;
    uint32_t seed = 2100;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (SimdConvolutionActivationType act : convtest::kActivations) {
                const SimdConvolutionParameters p = Make(s, f, act);
                convtest::Data data = convtest::MakeData(p, batch, seed++);
                const bool nhwc = f == SimdTensorFormatNhwc;
                data.src[nhwc ? (nanY * p.srcW + nanX) * p.srcC + nanC
                              : (nanC * p.srcH + nanY) * p.srcW + nanX] = NAN;
                void* context = SimdSynetConvolution32fInit(batch, &p, nullptr);
                ASSERT_NE(context, nullptr) << Describe(p, batch);
                SimdBool internal = SimdFalse;
                SimdSynetConvolution32fSetParams(
                    context, data.weight.data(), &internal, data.bias.data(),
                    data.params.empty() ? nullptr : data.params.data());
                std::vector<float> dst(batch * p.dstC * p.dstH * p.dstW);
                SimdSynetConvolution32fForward(context, data.src.data(), nullptr, dst.data());
                const std::string name = SimdSynetConvolution32fInfo(context);
                SimdRelease(context);
                // Output channels that read input channel nanC.
                const size_t cg = p.srcC / p.group, dg = p.dstC / p.group, g = nanC / cg;
                auto reads = [&](size_t y, size_t ky, size_t stride, size_t pad, size_t at) {
                    const ptrdiff_t pos = ptrdiff_t(y * stride + ky) - ptrdiff_t(pad);
                    return pos == ptrdiff_t(at);
                };
                for (size_t b = 0; b < batch; ++b)
                    for (size_t c = 0; c < p.dstC; ++c)
                        for (size_t y = 0; y < p.dstH; ++y)
                            for (size_t x = 0; x < p.dstW; ++x) {
                                bool window = false;
                                for (size_t ky = 0; ky < p.kernelY; ++ky)
                                    for (size_t kx = 0; kx < p.kernelX; ++kx)
                                        window |= reads(y, ky, p.strideY, p.padY, nanY) &&
                                                  reads(x, kx, p.strideX, p.padX, nanX);
                                window &= b == 0 && c / dg == g;
                                const size_t far = 6;
                                const bool away =
                                    b != 0 || c / dg != g || y * p.strideY + far < nanY ||
                                    y * p.strideY > nanY + far || x * p.strideX + far < nanX ||
                                    x * p.strideX > nanX + far;
                                const float v = dst[b * p.dstC * p.dstH * p.dstW +
                                                    (nhwc ? (y * p.dstW + x) * p.dstC + c
                                                          : (c * p.dstH + y) * p.dstW + x)];
                                if (window) {
                                    ASSERT_TRUE(std::isnan(v))
                                        << name << " " << Describe(p, batch) << " c" << c << " y"
                                        << y << " x" << x;
                                } else if (away) {
                                    ASSERT_FALSE(std::isnan(v))
                                        << name << " " << Describe(p, batch) << " b" << b << " c"
                                        << c << " y" << y << " x" << x;
                                }
                            }
            }
}

TEST_P(ConvolutionTest, UserGemmIsCalled) {
    const Shape shapes[] = {{17, 33, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {17, 33, 5, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
                            {8, 16, 5, 13, 3, 3, 2, 1, 1, 1, 0, 1, 1, 0, 4},
                            {3, 32, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}};
    uint32_t seed = 300;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (bool callerBuffer : {false, true}) {
                const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationPrelu);
                g_gemmCalls = 0;
                g_gemmBadScalars = 0;
                std::string info;
                EXPECT_TRUE(RunCase(p, 2, true, callerBuffer, CountingGemm, seed++, &info))
                    << Describe(p, 2);
                EXPECT_GE(g_gemmCalls.load(), int(2 * s.group)) << Describe(p, 2) << " " << info;
                EXPECT_EQ(g_gemmBadScalars.load(), 0);
                EXPECT_NE(info.find("usergemm"), std::string::npos) << info;
            }
}

// One context used by two user threads at once, each with its own scratch, while the library's
// thread budget is 1, 2 or 3: the outputs are the bits of a lone single-thread call, and the
// context does not change.
TEST_P(ConvolutionTest, SharedContextTwoThreads) {
    const Shape shapes[] = {{64, 64, 6, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {64, 64, 13, 56, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 64},
                            {17, 33, 5, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}};
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationRelu);
            const Data a = MakeData(p, 1, 11), b = MakeData(p, 1, 12);
            const Data* inputs[2] = {&a, &b};
            void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
            ASSERT_NE(context, nullptr);
            SimdSynetConvolution32fSetParams(context, a.weight.data(), nullptr, a.bias.data(),
                                             nullptr);
            const size_t internalBefore = SimdSynetConvolution32fInternalBufferSize(context);
            EXPECT_TRUE(test::ConcurrentForwardMatchesLoneCalls(
                SimdSynetConvolution32fExternalBufferSize(context) * sizeof(float),
                p.dstC * p.dstH * p.dstW * sizeof(float),
                [&](int i, void* buf, void* dst) {
                    SimdSynetConvolution32fForward(context, inputs[i]->src.data(),
                                                   static_cast<float*>(buf),
                                                   static_cast<float*>(dst));
                }))
                << Describe(p, 1) << " " << SimdSynetConvolution32fInfo(context);
            EXPECT_EQ(internalBefore, SimdSynetConvolution32fInternalBufferSize(context));
            SimdRelease(context);
        }
}

TEST_P(ConvolutionTest, SetParamsAgainAndInfo) {
    const Shape s = {17, 33, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationIdentity);
        void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
        ASSERT_NE(context, nullptr);
        const std::string info = SimdSynetConvolution32fInfo(context);
        EXPECT_NE(info.find(SimdSynetIsa()), std::string::npos) << info;
        EXPECT_NE(info.find(f == SimdTensorFormatNhwc ? "nhwc" : "nchw"), std::string::npos);
        EXPECT_GE(SimdSynetConvolution32fExternalBufferSize(context), 1u);
        Data first = MakeData(p, 1, 21), second = MakeData(p, 1, 22);
        SimdBool internal = SimdFalse;
        SimdSynetConvolution32fSetParams(context, first.weight.data(), &internal, nullptr, nullptr);
        EXPECT_EQ(internal, SimdTrue);
        EXPECT_GT(SimdSynetConvolution32fInternalBufferSize(context), 0u);
        SimdSynetConvolution32fSetParams(context, second.weight.data(), nullptr, second.bias.data(),
                                         nullptr);
        // The first weights are gone: the output follows the second set.
        std::fill(first.weight.begin(), first.weight.end(), 0.0f);
        Guarded<float> dst(p.dstC * p.dstH * p.dstW);
        SimdSynetConvolution32fForward(context, second.src.data(), nullptr, dst.data());
        EXPECT_TRUE(Compare(p, 1, second, true, dst));
        SimdRelease(context);
    }
}

// Forward splits its work over SimdSetThreadNumber threads: every thread count gives the same
// bits as one thread (and the reference's values), for splits over pixels and over channels,
// with caller scratch and context scratch, also on an oversubscribed core.
TEST_P(ConvolutionTest, ThreadCountsGiveIdenticalBits) {
    const Shape shapes[] = {
        {64, 64, 6, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},        // many pixels
        {64, 96, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},       // few pixels for NCHW
        {2048, 600, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},      // one pixel: channel split
        {512, 512, 7, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},       // weights outweigh the input
        {400, 400, 7, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},       // and panels share by channels
        {400, 400, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 25},      // groups of 16: rows
        {128, 128, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},       // groups of 16: groups
        {400, 400, 2, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 25},      // groups, border row tiles
        {33, 40, 24, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},       // NCHW W*im2col
        {3, 33, 96, 96, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},        // NCHW via NHWC in bands
        {64, 64, 14, 14, 3, 3, 1, 1, 1, 1, 0, 1, 2, 0, 2},       // grouped, asymmetric pads
        {128, 128, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 128},   // depthwise
        {128, 128, 27, 29, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 128}};  // depthwise stride 2
    const size_t batch = 2;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationPrelu);
            const Data data = MakeData(p, batch, 41);
            void* context = SimdSynetConvolution32fInit(batch, &p, nullptr);
            ASSERT_NE(context, nullptr) << Describe(p, batch);
            SimdSynetConvolution32fSetParams(context, data.weight.data(), nullptr, data.bias.data(),
                                             data.params.data());
            const size_t dstSize = batch * p.dstC * p.dstH * p.dstW;
            std::vector<float> single(dstSize);
            SimdSetThreadNumber(1);
            SimdSynetConvolution32fForward(context, data.src.data(), nullptr, single.data());
            for (size_t threads : {2, 3, 8, 16})  // 16: more parts than 7x7 groups' row units
                for (bool callerBuffer : {false, true}) {
                    SimdSetThreadNumber(threads);
                    Guarded<float> buf(
                        callerBuffer ? SimdSynetConvolution32fExternalBufferSize(context) : 0);
                    Guarded<float> dst(dstSize, std::numeric_limits<float>::quiet_NaN());
                    SimdSynetConvolution32fForward(context, data.src.data(),
                                                   callerBuffer ? buf.data() : nullptr, dst.data());
                    EXPECT_EQ(0, std::memcmp(dst.data(), single.data(), dstSize * sizeof(float)))
                        << Describe(p, batch) << " threads " << threads;
                    EXPECT_TRUE(dst.GuardsIntact());
                    EXPECT_TRUE(!callerBuffer || buf.GuardsIntact());
                    if (threads == 3 && callerBuffer) {
                        EXPECT_TRUE(Compare(p, batch, data, true, dst)) << Describe(p, batch);
                    }
                }
            {  // a budget of 4 on one core shared with two busy threads: workers run late
                const test::Oversubscribe busy(2);
                SimdSetThreadNumber(4);
                Guarded<float> dst(dstSize, std::numeric_limits<float>::quiet_NaN());
                SimdSynetConvolution32fForward(context, data.src.data(), nullptr, dst.data());
                EXPECT_EQ(0, std::memcmp(dst.data(), single.data(), dstSize * sizeof(float)))
                    << Describe(p, batch) << " oversubscribed";
                EXPECT_TRUE(dst.GuardsIntact());
            }
            SimdSetThreadNumber(1);
            SimdRelease(context);
        }
}

// ---- Rejections (plain tests).

SimdConvolutionParameters Valid() {
    return Make({8, 16, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, SimdTensorFormatNhwc,
                SimdConvolutionActivationRelu);
}

void ExpectRejected(const SimdConvolutionParameters& p, size_t batch, const char* field) {
    void* context = SimdSynetConvolution32fInit(batch, &p, nullptr);
    EXPECT_EQ(context, nullptr) << field;
    const char* message = SimdSynetGetLastError();
    ASSERT_NE(message, nullptr) << field;
    EXPECT_NE(std::string(message).find(field), std::string::npos) << message;
}

TEST(ConvolutionErrors, InitRejectsEveryViolatedPrecondition) {
    SimdConvolutionParameters p = Valid();
    ExpectRejected(p, 0, "batch");
    p.srcT = SimdTensorData8u;
    ExpectRejected(p, 1, "srcT");
    p = Valid();
    p.dstT = SimdTensorData8u;
    ExpectRejected(p, 1, "dstT");
    p = Valid();
    p.dstF = SimdTensorFormatNchw;
    ExpectRejected(p, 1, "dstF");
    p = Valid();
    p.srcF = p.dstF = SimdTensorFormatNchw8c;
    ExpectRejected(p, 1, "srcF");
    p = Valid();
    p.dstH += 1;
    ExpectRejected(p, 1, "dstH");
    p = Valid();
    p.dstW -= 1;
    ExpectRejected(p, 1, "dstW");
    p = Valid();
    p.group = 3;
    ExpectRejected(p, 1, "group");
    p = Valid();
    p.group = 0;
    ExpectRejected(p, 1, "group");
    p = Valid();
    p.kernelX = 0;
    ExpectRejected(p, 1, "kernel");
    p = Valid();
    p.strideY = 0;
    ExpectRejected(p, 1, "stride");
    p = Valid();
    p.dilationX = 0;
    ExpectRejected(p, 1, "dilation");
    p = Valid();
    p.activation = SimdConvolutionActivationType(11);
    ExpectRejected(p, 1, "activation");
    p = Valid();
    p.kernelY = 20;  // larger than the padded image
    ExpectRejected(p, 1, "dstH");
    EXPECT_EQ(SimdSynetConvolution32fInit(1, nullptr, nullptr), nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
}

TEST(ConvolutionErrors, NullArgumentsWriteNothing) {
    const SimdConvolutionParameters p = Valid();
    void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
    ASSERT_NE(context, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    std::vector<float> src(p.srcC * p.srcH * p.srcW, 1.0f);
    std::vector<float> dst(p.dstC * p.dstH * p.dstW, 5.0f);
    // Forward before SetParams.
    SimdSynetConvolution32fForward(context, src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 5.0f);
    SimdSynetConvolution32fSetParams(context, nullptr, nullptr, nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    std::vector<float> weight(p.kernelY * p.kernelX * p.srcC * p.dstC, 0.5f);
    SimdSynetConvolution32fSetParams(context, weight.data(), nullptr, nullptr, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetConvolution32fForward(context, nullptr, nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 5.0f);
    SimdSynetConvolution32fForward(nullptr, src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetConvolution32fInfo(nullptr), nullptr);
    EXPECT_EQ(SimdSynetConvolution32fExternalBufferSize(nullptr), 0u);
    SimdRelease(context);
    // An activation with parameters refuses params == NULL.
    const SimdConvolutionParameters q = Make({8, 16, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                                             SimdTensorFormatNchw, SimdConvolutionActivationPrelu);
    context = SimdSynetConvolution32fInit(1, &q, nullptr);
    ASSERT_NE(context, nullptr);
    SimdSynetConvolution32fSetParams(context, weight.data(), nullptr, nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdRelease(context);
}

}  // namespace

// ---- Winograd contexts (3x3, stride 1, dilation 1, group 1; ConvolutionWinograd.cpp).

namespace {

// Sets SIMD_SYNET_WINOGRAD for the scope (1: Winograd for every applicable shape, so the
// channel tails are reached; 0: never) and restores the default afterwards.
class WinogradMode {
public:
    explicit WinogradMode(const char* mode) { setenv("SIMD_SYNET_WINOGRAD", mode, 1); }
    ~WinogradMode() { unsetenv("SIMD_SYNET_WINOGRAD"); }
};

// Restores the default thread budget.
class ThreadCount {
public:
    explicit ThreadCount(size_t threads) { SimdSetThreadNumber(threads); }
    ~ThreadCount() { SimdSetThreadNumber(1); }
};

// Within 1e-4 of sum |src*w| (+1e-6) of the double reference: the transforms scale the
// rounding errors of the products up.
::testing::AssertionResult CompareWinograd(const SimdConvolutionParameters& p, size_t batch,
                                           const Data& data, bool withBias, const float* dst) {
    std::vector<double> ref, mag;
    ref::Convolution32f(p, batch, data.src.data(), data.weight.data(),
                        withBias ? data.bias.data() : nullptr, data.params.data(), ref, mag);
    return test::AllOf(ref.size(),
                       [&](size_t i) { return test::Near(dst[i], ref[i], mag[i], 1e-4, 1e-6); });
}

// As RunCase, with the Winograd tolerance (1e-4 of sum |src*w|) and a check that the context
// is a Winograd one.
::testing::AssertionResult RunWinogradCase(const SimdConvolutionParameters& p, size_t batch,
                                           bool withBias, bool callerBuffer, uint32_t seed) {
    const Data data = MakeData(p, batch, seed);
    void* context = SimdSynetConvolution32fInit(batch, &p, nullptr);
    if (context == nullptr) return ::testing::AssertionFailure() << "Init failed";
    const std::string info = SimdSynetConvolution32fInfo(context);
    SimdSynetConvolution32fSetParams(context, data.weight.data(), nullptr,
                                     withBias ? data.bias.data() : nullptr,
                                     data.params.empty() ? nullptr : data.params.data());
    Guarded<float> buf(callerBuffer ? SimdSynetConvolution32fExternalBufferSize(context) : 0,
                       std::numeric_limits<float>::quiet_NaN());
    Guarded<float> dst(batch * p.dstC * p.dstH * p.dstW, std::numeric_limits<float>::quiet_NaN());
    SimdSynetConvolution32fForward(context, data.src.data(), callerBuffer ? buf.data() : nullptr,
                                   dst.data());
    SimdRelease(context);
    if (info.find("winograd") == std::string::npos)
        return ::testing::AssertionFailure() << "not a Winograd context: " << info;
    if (callerBuffer && !buf.GuardsIntact())
        return ::testing::AssertionFailure() << "scratch guard overwritten (" << info << ")";
    if (!dst.GuardsIntact()) return ::testing::AssertionFailure() << "guard zone overwritten";
    ::testing::AssertionResult r = CompareWinograd(p, batch, data, withBias, dst.data());
    if (!r) return ::testing::AssertionFailure() << info << ": " << r.message();
    return ::testing::AssertionSuccess();
}

Shape Winograd3x3(size_t srcC, size_t dstC, size_t h, size_t w, size_t padY, size_t padX,
                  size_t padH, size_t padW) {
    return {srcC, dstC, h, w, 3, 3, 1, 1, 1, 1, padY, padX, padH, padW, 1};
}

TEST_P(ConvolutionTest, WinogradShapes) {
    const WinogradMode mode("1");
    const Shape shapes[] = {
        Winograd3x3(1, 3, 5, 5, 1, 1, 1, 1),     Winograd3x3(3, 7, 13, 13, 1, 1, 1, 1),
        Winograd3x3(7, 8, 13, 5, 0, 0, 0, 0),    Winograd3x3(8, 17, 5, 13, 2, 2, 2, 2),
        Winograd3x3(17, 33, 13, 13, 2, 0, 1, 2), Winograd3x3(33, 64, 5, 56, 0, 1, 2, 0),
        Winograd3x3(64, 33, 13, 56, 1, 2, 0, 1), Winograd3x3(64, 64, 56, 5, 1, 1, 1, 1),
        Winograd3x3(17, 8, 1, 13, 1, 1, 1, 1),   Winograd3x3(8, 7, 13, 1, 1, 1, 1, 1),
        Winograd3x3(33, 17, 1, 1, 1, 1, 1, 1),   Winograd3x3(7, 3, 1, 1, 2, 2, 2, 2),
        Winograd3x3(3, 1, 3, 3, 0, 0, 0, 0),     Winograd3x3(64, 17, 56, 56, 1, 1, 1, 1),
        Winograd3x3(33, 7, 4, 4, 2, 1, 0, 2),    Winograd3x3(8, 64, 2, 7, 0, 2, 1, 0),
    };
    uint32_t seed = 500;
    size_t index = 0;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            const SimdConvolutionParameters p = Make(s, f, kActivations[index % 11]);
            const bool withBias = index % 3 != 2, callerBuffer = index % 2 == 0;
            const size_t batch = index % 4 < 2 ? 2 : 1;
            EXPECT_TRUE(RunWinogradCase(p, batch, withBias, callerBuffer, seed))
                << Describe(p, batch) << " bias " << withBias << " buf " << callerBuffer;
            seed += 3;
            ++index;
        }
}

TEST_P(ConvolutionTest, WinogradEveryActivation) {
    const WinogradMode mode("1");
    uint32_t seed = 700;
    for (const Shape& s :
         {Winograd3x3(17, 33, 13, 5, 1, 1, 1, 1), Winograd3x3(8, 16, 2, 3, 1, 0, 1, 2)})
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (SimdConvolutionActivationType act : kActivations) {
                const SimdConvolutionParameters p = Make(s, f, act);
                EXPECT_TRUE(RunWinogradCase(p, 2, true, seed % 2 == 0, seed)) << Describe(p, 2);
                ++seed;
            }
}

// Results of 1, 2 and 3 threads are bit-identical: many blocks (56x56), fewer blocks than
// threads (tile rows shared finer at 2 threads; output channels split at 3, where the 2 and 4
// tile rows of the smaller maps do not balance), batch 2.
TEST_P(ConvolutionTest, WinogradThreadsBitIdentical) {
    const WinogradMode mode("1");
    const Shape shapes[] = {Winograd3x3(64, 64, 56, 56, 1, 1, 1, 1),
                            Winograd3x3(33, 200, 6, 7, 1, 1, 1, 1),
                            Winograd3x3(17, 130, 13, 13, 2, 1, 0, 1)};
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (size_t batch : {size_t(1), size_t(2)}) {
                const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationPrelu);
                const Data data = MakeData(p, batch, 900);
                const size_t dstSize = batch * p.dstC * p.dstH * p.dstW;
                std::vector<float> expect;
                for (size_t threads : {1, 2, 3}) {
                    const ThreadCount budget(threads);
                    void* context = SimdSynetConvolution32fInit(batch, &p, nullptr);
                    ASSERT_NE(context, nullptr);
                    EXPECT_NE(std::string(SimdSynetConvolution32fInfo(context)).find("winograd"),
                              std::string::npos);
                    SimdSynetConvolution32fSetParams(context, data.weight.data(), nullptr,
                                                     data.bias.data(), data.params.data());
                    Guarded<float> buf(SimdSynetConvolution32fExternalBufferSize(context));
                    std::vector<float> dst(dstSize);
                    SimdSynetConvolution32fForward(context, data.src.data(),
                                                   threads == 2 ? nullptr : buf.data(), dst.data());
                    EXPECT_TRUE(buf.GuardsIntact());
                    SimdRelease(context);
                    if (threads == 1) {
                        EXPECT_TRUE(CompareWinograd(p, batch, data, true, dst.data()))
                            << Describe(p, batch);
                        expect = dst;
                    } else {
                        EXPECT_EQ(0,
                                  std::memcmp(dst.data(), expect.data(), dstSize * sizeof(float)))
                            << Describe(p, batch) << " threads " << threads;
                    }
                }
            }
}

// One Winograd context used by two user threads at once, each with its own scratch, under
// library thread budgets 1-3: the outputs are the bits of lone single-thread calls.
TEST_P(ConvolutionTest, WinogradSharedContextTwoThreads) {
    const WinogradMode mode("1");
    for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        const SimdConvolutionParameters p =
            Make(Winograd3x3(33, 40, 13, 21, 1, 1, 1, 1), f, SimdConvolutionActivationRelu);
        const Data a = MakeData(p, 1, 31), b = MakeData(p, 1, 32);
        const Data* inputs[2] = {&a, &b};
        void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
        ASSERT_NE(context, nullptr);
        EXPECT_NE(std::string(SimdSynetConvolution32fInfo(context)).find("winograd"),
                  std::string::npos);
        SimdSynetConvolution32fSetParams(context, a.weight.data(), nullptr, a.bias.data(), nullptr);
        EXPECT_TRUE(test::ConcurrentForwardMatchesLoneCalls(
            SimdSynetConvolution32fExternalBufferSize(context) * sizeof(float),
            p.dstC * p.dstH * p.dstW * sizeof(float),
            [&](int i, void* buf, void* dst) {
                SimdSynetConvolution32fForward(context, inputs[i]->src.data(),
                                               static_cast<float*>(buf), static_cast<float*>(dst));
            }))
            << Describe(p, 1);
        SimdRelease(context);
    }
}

// Shapes Winograd does not handle keep their algorithm even when it is forced; the switch-off
// and a caller's GEMM keep the GEMM path.
TEST_P(ConvolutionTest, WinogradOnlyWhereApplicable) {
    auto infoOf = [](const SimdConvolutionParameters& p, SimdGemm32fNNPtr gemm) {
        void* context = SimdSynetConvolution32fInit(1, &p, gemm);
        EXPECT_NE(context, nullptr);
        const std::string info = context ? SimdSynetConvolution32fInfo(context) : "";
        SimdRelease(context);
        return info;
    };
    const SimdConvolutionActivationType relu = SimdConvolutionActivationRelu;
    for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        const WinogradMode forced("1");
        const Shape rejected[] = {{64, 64, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                                  {64, 64, 13, 13, 3, 3, 1, 1, 2, 2, 1, 1, 1, 1, 1},
                                  {64, 64, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},
                                  {64, 64, 13, 13, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},
                                  {64, 64, 13, 13, 3, 3, 1, 1, 1, 1, 3, 1, 1, 1, 1}};
        for (const Shape& s : rejected) {
            const SimdConvolutionParameters p = Make(s, f, relu);
            EXPECT_EQ(infoOf(p, nullptr).find("winograd"), std::string::npos) << Describe(p, 1);
        }
        const SimdConvolutionParameters p = Make(Winograd3x3(64, 64, 56, 56, 1, 1, 1, 1), f, relu);
        EXPECT_NE(infoOf(p, nullptr).find("winograd"), std::string::npos);
        EXPECT_NE(infoOf(p, CountingGemm).find("usergemm"), std::string::npos);
        const WinogradMode off("0");
        EXPECT_EQ(infoOf(p, nullptr).find("winograd"), std::string::npos);
    }
}

// Without SIMD_SYNET_WINOGRAD, a layer with fewer input channels than a vector has lanes (at
// most 8) takes the direct kernel (the transforms would outweigh the products), one with 64
// takes Winograd.
TEST_P(ConvolutionTest, WinogradDefaultNeedsEnoughInputs) {
    for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        for (size_t srcC : {size_t(3), size_t(64)}) {
            const SimdConvolutionParameters p =
                Make(Winograd3x3(srcC, 32, 28, 28, 1, 1, 1, 1), f, SimdConvolutionActivationRelu);
            void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
            ASSERT_NE(context, nullptr);
            const std::string info = SimdSynetConvolution32fInfo(context);
            SimdRelease(context);
            // The scalar target keeps Winograd from 3 channels on.
            const bool expected = srcC == 64 || info.rfind("scalar::", 0) == 0;
            EXPECT_EQ(info.find("winograd") != std::string::npos, expected)
                << Describe(p, 1) << ": " << info;
        }
    }
}

}  // namespace

// ---- Depthwise kernels: register blocks of output rows x pixels (NHWC) and bands of output
// rows over padded phase rows (NCHW; stride 2 with one left pad column reads the image rows
// directly). Channel tails, widths shorter than a vector and just over one (the last vector
// overlaps), heights leaving 1-3 rows after the bands, stride 1 and 2, asymmetric pads, 5x5
// kernels of stride 1 and 2 (NHWC one-row blocks: channels 1 to 40, widths 3 to 37, pads up to
// 6) and the shapes that take the general kernel (dilation, 1x3, unequal strides).
TEST_P(ConvolutionTest, DepthwiseShapes) {
    const Shape shapes[] = {
        // srcC dstC  H   W  kY kX sY sX dY dX pY pX pH pW group
        {1, 1, 7, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {3, 3, 6, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},
        {7, 7, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 7},
        {8, 8, 9, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},
        {17, 17, 10, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 17},
        {33, 33, 11, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 33},
        {16, 16, 7, 33, 3, 3, 1, 1, 1, 1, 0, 2, 2, 0, 16},  // asymmetric pads
        {3, 3, 8, 40, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 3},     // no padding
        {1, 1, 9, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
        {7, 7, 12, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 7},
        {8, 8, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 8},
        {17, 17, 15, 34, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 17},
        {33, 33, 14, 67, 3, 3, 2, 2, 1, 1, 0, 1, 1, 0, 33},  // asymmetric pads
        {16, 16, 11, 45, 3, 3, 2, 2, 1, 1, 2, 2, 0, 2, 16},
        {7, 7, 9, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 7},     // 10 columns: a half vector first
        {3, 3, 6, 10, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3},     // 5 columns: a quarter vector first
        {8, 8, 9, 13, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 8},     // unequal strides
        {17, 17, 9, 13, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 17},  // dilation 2
        {7, 7, 9, 13, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 7},     // 5x5 (NHWC: one-row blocks)
        {1, 1, 7, 3, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},
        {16, 16, 9, 30, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 16},
        {40, 40, 14, 14, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 40},
        {33, 33, 11, 19, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 33},  // 5x5 stride 2
        {15, 15, 8, 37, 5, 5, 2, 2, 1, 1, 1, 3, 0, 2, 15},   // asymmetric pads
        {17, 17, 6, 9, 5, 5, 1, 1, 1, 1, 6, 0, 5, 6, 17},    // pads beyond the kernel
        {33, 33, 9, 13, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, 33},   // 1x3
        {9, 9, 11, 12, 9, 9, 1, 1, 1, 1, 4, 4, 4, 4, 9},     // 9x9: more taps than NHWC lists
    };
    uint32_t seed = 500;
    size_t index = 0;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (size_t batch : {1, 2}) {
                const SimdConvolutionActivationType act = kActivations[index % 11];
                const SimdConvolutionParameters p = Make(s, f, act);
                const bool withBias = index % 3 != 1, callerBuffer = index % 2 == 1;
                EXPECT_TRUE(RunCase(p, batch, withBias, callerBuffer, nullptr, seed))
                    << Describe(p, batch) << " bias " << withBias << " buf " << callerBuffer;
                seed += 5;
                ++index;
            }
}

// ---- Grouped convolution with few channels per group (NHWC, 2, 4 or 8 per group, several
// groups to a vector: ConvolutionGrouped.cpp): every group size each target holds several of,
// widths that leave interior blocks and tails (1, 3, 7, 15, 17, 33 columns), stride 2,
// dilation, asymmetric and large pads, 1x1 and 5x5 kernels, every activation in turn, batch 2;
// and shapes that must keep the GEMM path (channel counts that are not whole vectors, unequal
// input and output groups).
TEST_P(ConvolutionTest, GroupedShapes) {
    const std::string isa = SimdSynetIsa();
    const size_t lanes = isa == "avx512" ? 16 : isa == "avx2" ? 8 : isa == "scalar" ? 1 : 4;
    const Shape shapes[] = {
        // srcC dstC  H   W  kY kX sY sX dY dX pY pX pH pW group
        {32, 32, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},
        {32, 32, 4, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},
        {64, 64, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},
        {64, 64, 6, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},
        {128, 128, 5, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32},
        {32, 32, 4, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},
        {64, 64, 9, 17, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16},  // stride 2
        {32, 32, 8, 20, 3, 3, 2, 2, 1, 1, 0, 1, 1, 0, 8},   // asymmetric pads
        {32, 32, 9, 13, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 16},  // dilation 2
        {48, 48, 6, 9, 5, 5, 1, 1, 1, 1, 4, 4, 3, 2, 12},   // pads near the kernel
        {32, 32, 5, 11, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 8},   // 1x1
        {16, 16, 7, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},    // 2 per group
        {36, 36, 5, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 9},    // not whole vectors: GEMM
        {32, 64, 5, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},    // 4 in, 8 out: GEMM
    };
    uint32_t seed = 2100;
    size_t index = 0;
    for (const Shape& s : shapes)
        for (size_t batch : {1, 2}) {
            const SimdConvolutionActivationType act = kActivations[index % 11];
            const SimdConvolutionParameters p = Make(s, SimdTensorFormatNhwc, act);
            const bool withBias = index % 3 != 1, callerBuffer = index % 2 == 1;
            std::string info;
            EXPECT_TRUE(RunCase(p, batch, withBias, callerBuffer, nullptr, seed, &info))
                << Describe(p, batch) << " bias " << withBias << " buf " << callerBuffer;
            const size_t g = s.srcC / s.group;
            const bool grouped = s.srcC == s.dstC && (g == 2 || g == 4 || g == 8) && lanes > g &&
                                 s.srcC % lanes == 0;
            EXPECT_EQ(info.find("nhwc-grouped") != std::string::npos, grouped)
                << info << " " << Describe(p, batch);
            seed += 3;
            ++index;
        }
}

// A NaN input pixel of a grouped convolution makes NaN exactly the outputs of its group whose
// windows read it; other groups and pixels stay numbers.
TEST_P(ConvolutionTest, GroupedNaNStaysInItsGroup) {
    const Shape s{64, 64, 6, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16};
    const SimdConvolutionParameters p =
        Make(s, SimdTensorFormatNhwc, SimdConvolutionActivationRelu);
    Data data = MakeData(p, 1, 2300);
    const size_t y = 2, x = 4, c = 21;  // group 5 (channels 20-23)
    data.src[(y * s.srcW + x) * s.srcC + c] = std::numeric_limits<float>::quiet_NaN();
    void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
    ASSERT_NE(context, nullptr);
    SimdSynetConvolution32fSetParams(context, data.weight.data(), nullptr, data.bias.data(),
                                     nullptr);
    std::vector<float> dst(p.dstC * p.dstH * p.dstW);
    SimdSynetConvolution32fForward(context, data.src.data(), nullptr, dst.data());
    SimdRelease(context);
    for (size_t oy = 0; oy < p.dstH; ++oy)
        for (size_t ox = 0; ox < p.dstW; ++ox)
            for (size_t oc = 0; oc < p.dstC; ++oc) {
                const bool reads =
                    oc / 4 == c / 4 && oy + 1 >= y && oy <= y + 1 && ox + 1 >= x && ox <= x + 1;
                EXPECT_EQ(std::isnan(dst[(oy * p.dstW + ox) * p.dstC + oc]), reads)
                    << oy << " " << ox << " " << oc;
            }
}

// ---- NCHW row convolution of first layers (3x3, left pad 1; stride 2 with 2 dstW <= srcW, or
// stride 1 with one pad column on each side; at most 8 input channels, vectors of 8 lanes or
// more; ConvolutionNchwRows.cpp): channel blocks with tails (2, 5, 7, 15, 17, 33 output
// channels), first and last column vectors of every width (1, 3, 5, 10, 16, 17, 21, 28, 33,
// 40, 56 columns), rows above and below the image, and near shapes that must take another
// algorithm.
TEST_P(ConvolutionTest, NchwRowsShapes) {
    const Shape rows[] = {
        // srcC dstC  H   W  kY kX sY sX dY dX pY pX pH pW group
        {1, 2, 3, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
        {3, 32, 9, 56, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
        {3, 7, 8, 10, 3, 3, 2, 2, 1, 1, 0, 1, 1, 0, 1},
        {4, 33, 7, 34, 3, 3, 2, 2, 1, 1, 2, 1, 2, 1, 1},
        {8, 16, 6, 20, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1},
        {7, 15, 5, 66, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
        {2, 17, 4, 67, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1},  // odd width, no right pad
        // Stride 1 ("same" across; fewer input channels than 8, so never Winograd here).
        {3, 32, 6, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {2, 17, 5, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {4, 7, 4, 21, 3, 3, 1, 1, 1, 1, 0, 1, 2, 1, 1},
        {1, 5, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {7, 33, 5, 40, 3, 3, 1, 1, 1, 1, 2, 1, 0, 1, 1},
    };
    const Shape others[] = {
        {3, 8, 5, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // the last window reads the right pad
        {9, 8, 5, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // 9 input channels
        {3, 8, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 1},  // stride 1 without the right pad
    };
    uint32_t seed = 700;
    size_t index = 0;
    auto run = [&](const Shape& s, bool expectRows) {
        for (size_t batch : {1, 2}) {
            const SimdConvolutionActivationType act = kActivations[index % 11];
            const SimdConvolutionParameters p = Make(s, SimdTensorFormatNchw, act);
            const bool withBias = index % 3 != 1, callerBuffer = index % 2 == 1;
            std::string info;
            EXPECT_TRUE(RunCase(p, batch, withBias, callerBuffer, nullptr, seed, &info))
                << Describe(p, batch) << " bias " << withBias << " buf " << callerBuffer;
            // Targets with fewer than 8 lanes (SSE4, NEON, scalar) keep the NHWC path.
            const bool wide = info.rfind("avx2::", 0) == 0 || info.rfind("avx512::", 0) == 0;
            EXPECT_EQ(info.find("nchw-rows") != std::string::npos, expectRows && wide)
                << Describe(p, batch) << ": " << info;
            seed += 3;
            ++index;
        }
    };
    for (const Shape& s : rows) run(s, true);
    for (const Shape& s : others) run(s, false);
}

// ---- Depthwise NHWC: the block width follows where dst lies against src in the cache (narrow
// blocks when the wide ones' lines would overflow an L1 set: 256 channels, rows a multiple of
// 4 KiB long, dst at nearly src's page offset; ConvolutionDepthwise.cpp). Each placement gives
// the reference's values and the same bits as every other.
TEST_P(ConvolutionTest, DepthwiseNhwcSrcDstPlacement) {
    const Shape shapes[] = {
        // srcC dstC  H   W  kY kX sY sX dY dX pY pX pH pW group
        {256, 256, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 256},   // rows of 8 KiB
        {128, 128, 9, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 128},  // stride 2, rows of 8 KiB
        {512, 512, 4, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 512},  // 2 KiB pixels
        {144, 144, 6, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 144},   // rows spread over the sets
    };
    constexpr size_t kPage = 4096 / sizeof(float);
    uint32_t seed = 900;
    for (const Shape& s : shapes) {
        const SimdConvolutionParameters p =
            Make(s, SimdTensorFormatNhwc, SimdConvolutionActivationRelu);
        const Data data = MakeData(p, 1, seed++);
        void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
        ASSERT_NE(context, nullptr) << Describe(p, 1);
        SimdSynetConvolution32fSetParams(context, data.weight.data(), nullptr, data.bias.data(),
                                         nullptr);
        std::vector<double> ref, mag;
        ref::Convolution32f(p, 1, data.src.data(), data.weight.data(), data.bias.data(),
                            data.params.data(), ref, mag);
        const size_t srcSize = data.src.size(), dstSize = ref.size();
        const size_t srcSpan = (srcSize + kPage - 1) / kPage * kPage;
        std::vector<float> storage(srcSpan + dstSize + 3 * kPage);
        float* base =
            storage.data() +
            (kPage - reinterpret_cast<uintptr_t>(storage.data()) / sizeof(float) % kPage) % kPage;
        float* src = base;  // at a page start
        std::copy(data.src.begin(), data.src.end(), src);
        std::vector<float> first;
        // dst at src's page offset, one and five cache lines after it, half a page after it
        // (256 channels: narrow, narrow, wide, narrow blocks on AVX-512).
        for (size_t offset : {size_t(0), size_t(16), size_t(80), kPage / 2}) {
            float* dst = base + srcSpan + kPage + offset;
            std::fill(dst, dst + dstSize, std::numeric_limits<float>::quiet_NaN());
            SimdSynetConvolution32fForward(context, src, nullptr, dst);
            EXPECT_TRUE(MatchesReference(dst, ref, mag))
                << Describe(p, 1) << " dst offset " << offset;
            if (first.empty())
                first.assign(dst, dst + dstSize);
            else
                EXPECT_EQ(std::memcmp(first.data(), dst, dstSize * sizeof(float)), 0)
                    << Describe(p, 1) << " dst offset " << offset;
        }
        SimdRelease(context);
    }
}

// ---- Forward with a residual (SimdSynetConvolution32fForwardAdd).

// Init, SetParams and ForwardAdd with a random residual, against the reference with the residual
// added before the activation (tolerance `rel` of sum |src*w| + |bias| + |add|); the algorithm's
// name goes to *info. The residual is left as it was.
::testing::AssertionResult RunAddCase(const SimdConvolutionParameters& p, size_t batch,
                                      bool callerBuffer, SimdGemm32fNNPtr gemm, uint32_t seed,
                                      double rel, std::string* info) {
    const Data data = MakeData(p, batch, seed);
    const size_t dstSize = batch * p.dstC * p.dstH * p.dstW;
    const std::vector<float> add = test::RandomFloats(dstSize, -2.0f, 2.0f, seed + 5);
    const std::vector<float> addCopy = add;
    void* context = SimdSynetConvolution32fInit(batch, &p, gemm);
    if (context == nullptr) return ::testing::AssertionFailure() << "Init failed";
    *info = SimdSynetConvolution32fInfo(context);
    SimdSynetConvolution32fSetParams(context, data.weight.data(), nullptr, data.bias.data(),
                                     data.params.empty() ? nullptr : data.params.data());
    Guarded<float> buf(callerBuffer ? SimdSynetConvolution32fExternalBufferSize(context) : 0,
                       std::numeric_limits<float>::quiet_NaN());
    Guarded<float> dst(dstSize, std::numeric_limits<float>::quiet_NaN());
    SimdSynetConvolution32fForwardAdd(context, data.src.data(), callerBuffer ? buf.data() : nullptr,
                                      add.data(), dst.data());
    const char* error = SimdSynetGetLastError();
    SimdRelease(context);
    if (error) return ::testing::AssertionFailure() << *info << ": " << error;
    if (callerBuffer && !buf.GuardsIntact())
        return ::testing::AssertionFailure() << "scratch guard overwritten (" << *info << ")";
    if (!dst.GuardsIntact()) return ::testing::AssertionFailure() << "guard zone overwritten";
    if (add != addCopy) return ::testing::AssertionFailure() << *info << ": add was written";
    std::vector<double> ref, mag;
    ref::Convolution32f(p, batch, data.src.data(), data.weight.data(), data.bias.data(),
                        data.params.data(), ref, mag, add.data());
    ::testing::AssertionResult r = test::AllOf(
        ref.size(), [&](size_t i) { return test::Near(dst[i], ref[i], mag[i], rel, 1e-6); });
    if (!r) return ::testing::AssertionFailure() << *info << ": " << r.message();
    return ::testing::AssertionSuccess();
}

// Every algorithm (the GEMM-based ones add the residual in their epilogues, the others after),
// both layouts, batch 2, every activation in turn (ReLU and the identity on the fused stores,
// the others through the pass), caller and own scratch, the caller's GEMM too; Winograd with
// its tolerance.
TEST_P(ConvolutionTest, ForwardAddEveryAlgorithm) {
    uint32_t seed = 3000;
    size_t index = 0;
    std::vector<std::string> seen;
    const auto run = [&](const Shape& s, SimdGemm32fNNPtr gemm, double rel) {
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            // Relu and the identity every other shape: the fused epilogues.
            const SimdConvolutionActivationType act =
                index % 2 == 0 ? (index % 4 == 0 ? SimdConvolutionActivationRelu
                                                 : SimdConvolutionActivationIdentity)
                               : kActivations[index / 2 % 11];
            const SimdConvolutionParameters p = Make(s, f, act);
            std::string info;
            EXPECT_TRUE(RunAddCase(p, 2, index % 3 == 0, gemm, seed, rel, &info)) << Describe(p, 2);
            const std::string name = info.substr(info.find("::") + 2);
            seen.push_back(name.substr(0, name.find_first_of("0123456789")));
            seed += 9;
            ++index;
        }
    };
    for (const Shape& s : Shapes()) run(s, nullptr, 1e-5);
    run({17, 33, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, CountingGemm, 1e-5);
    run({17, 33, 5, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, CountingGemm, 1e-5);
    // Row tiles that overlap at the row end (27 pixels) store their overlap twice.
    run({3, 32, 5, 53, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, nullptr, 1e-5);
    {
        const WinogradMode mode("1");
        run(Winograd3x3(17, 33, 13, 13, 2, 0, 1, 2), nullptr, 1e-4);
        run(Winograd3x3(64, 17, 14, 14, 1, 1, 1, 1), nullptr, 1e-4);
    }
    // Groups of 2 channels, several to a vector (not on scalar).
    run({64, 64, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32}, nullptr, 1e-5);
    std::vector<std::string> expected = {
        "nhwc-direct-",    "nchw-gemm-",     "nchw-via-nhwc-direct-",   "nhwc-depthwise-",
        "nchw-depthwise-", "nhwc-winograd-", "nchw-via-nhwc-winograd-", "nhwc-usergemm",
        "nchw-usergemm"};
    const std::string isa = SimdSynetIsa();
    if (isa != "scalar") expected.push_back("nhwc-grouped-");
    if (isa == "avx2" || isa == "avx512") expected.push_back("nchw-rows-");  // 8+ lanes
    for (const std::string& algorithm : expected)
        EXPECT_NE(std::find(seen.begin(), seen.end(), algorithm), seen.end()) << algorithm;
}

// The residual path gives the same bits at every thread count, the oversubscribed case
// included, for the splits of the direct kernel (rows, channels, groups), NCHW bands, Winograd
// and a depthwise pass.
TEST_P(ConvolutionTest, ForwardAddThreadCountsGiveIdenticalBits) {
    const Shape shapes[] = {{64, 64, 6, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},        // rows
                            {400, 400, 7, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},       // channels
                            {400, 400, 2, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 25},      // groups
                            {3, 33, 96, 96, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},        // NCHW bands
                            {64, 64, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},       // Winograd
                            {128, 128, 27, 29, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 128}};  // depthwise
    const size_t batch = 2;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationRelu);
            const Data data = MakeData(p, batch, 43);
            const size_t dstSize = batch * p.dstC * p.dstH * p.dstW;
            const std::vector<float> add = test::RandomFloats(dstSize, -1.0f, 1.0f, 44);
            void* context = SimdSynetConvolution32fInit(batch, &p, nullptr);
            ASSERT_NE(context, nullptr) << Describe(p, batch);
            SimdSynetConvolution32fSetParams(context, data.weight.data(), nullptr, data.bias.data(),
                                             nullptr);
            std::vector<float> single(dstSize);
            SimdSetThreadNumber(1);
            SimdSynetConvolution32fForwardAdd(context, data.src.data(), nullptr, add.data(),
                                              single.data());
            const auto expectSame = [&](const char* what) {
                Guarded<float> dst(dstSize, std::numeric_limits<float>::quiet_NaN());
                SimdSynetConvolution32fForwardAdd(context, data.src.data(), nullptr, add.data(),
                                                  dst.data());
                EXPECT_EQ(0, std::memcmp(dst.data(), single.data(), dstSize * sizeof(float)))
                    << Describe(p, batch) << " " << what << " "
                    << SimdSynetConvolution32fInfo(context);
                EXPECT_TRUE(dst.GuardsIntact());
            };
            for (size_t threads : {2, 3, 16}) {
                SimdSetThreadNumber(threads);
                expectSame("threads");
            }
            {
                const test::Oversubscribe busy(2);
                SimdSetThreadNumber(4);
                expectSame("oversubscribed");
            }
            SimdSetThreadNumber(1);
            SimdRelease(context);
        }
}

// NaN in the residual reaches its output only.
TEST_P(ConvolutionTest, ForwardAddNaNStaysInPlace) {
    for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        const SimdConvolutionParameters p =
            Make({16, 32, 7, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, f, SimdConvolutionActivationRelu);
        const Data data = MakeData(p, 1, 51);
        const size_t dstSize = p.dstC * p.dstH * p.dstW;
        std::vector<float> add(dstSize, 0.5f), dst(dstSize);
        add[37] = std::numeric_limits<float>::quiet_NaN();
        void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
        ASSERT_NE(context, nullptr);
        SimdSynetConvolution32fSetParams(context, data.weight.data(), nullptr, data.bias.data(),
                                         nullptr);
        SimdSynetConvolution32fForwardAdd(context, data.src.data(), nullptr, add.data(),
                                          dst.data());
        for (size_t i = 0; i < dstSize; ++i) EXPECT_EQ(std::isnan(dst[i]), i == 37) << i;
        SimdRelease(context);
    }
}

TEST(ConvolutionErrors, ForwardAddRefusesBadArgumentsAndWritesNothing) {
    const SimdConvolutionParameters p = Valid();
    void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
    ASSERT_NE(context, nullptr);
    const size_t dstSize = p.dstC * p.dstH * p.dstW;
    std::vector<float> src(p.srcC * p.srcH * p.srcW, 1.0f), add(dstSize, 1.0f);
    std::vector<float> dst(2 * dstSize, 5.0f);
    const auto refused = [&](const char* what) {
        const char* error = SimdSynetGetLastError();
        EXPECT_NE(error, nullptr) << what;
        if (error) {
            EXPECT_NE(std::string(error).find("SimdSynetConvolution32fForwardAdd"),
                      std::string::npos)
                << error;
        }
        EXPECT_TRUE(std::all_of(dst.begin(), dst.end(), [](float v) { return v == 5.0f; })) << what;
    };
    SimdSynetConvolution32fForwardAdd(context, src.data(), nullptr, add.data(), dst.data());
    refused("before SetParams");
    std::vector<float> weight(p.kernelY * p.kernelX * p.srcC * p.dstC, 0.5f);
    SimdSynetConvolution32fSetParams(context, weight.data(), nullptr, nullptr, nullptr);
    SimdSynetConvolution32fForwardAdd(nullptr, src.data(), nullptr, add.data(), dst.data());
    refused("NULL context");
    SimdSynetConvolution32fForwardAdd(context, nullptr, nullptr, add.data(), dst.data());
    refused("NULL src");
    SimdSynetConvolution32fForwardAdd(context, src.data(), nullptr, nullptr, dst.data());
    refused("NULL add");
    // add equal to dst, and starting inside it.
    SimdSynetConvolution32fForwardAdd(context, src.data(), nullptr, dst.data(), dst.data());
    refused("add == dst");
    SimdSynetConvolution32fForwardAdd(context, src.data(), nullptr, dst.data() + dstSize - 1,
                                      dst.data());
    refused("add overlapping dst's end");
    // A deconvolution context shares the base but has no residual path.
    void* deconv = SimdSynetDeconvolution32fInit(1, &p, nullptr);
    if (deconv != nullptr) {
        SimdSynetDeconvolution32fSetParams(deconv, weight.data(), nullptr, nullptr, nullptr);
        SimdSynetConvolution32fForwardAdd(deconv, src.data(), nullptr, add.data(), dst.data());
        refused("deconvolution context");
        SimdRelease(deconv);
    }
    // Adjacent (not overlapping) tensors are accepted.
    SimdSynetConvolution32fForwardAdd(context, src.data(), nullptr, dst.data() + dstSize,
                                      dst.data());
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdRelease(context);
}
