// Tests of the FP32 and BF16 deconvolution frameworks (SimdSynetDeconvolution32f*,
// SimdSynetDeconvolution16b*) on every compiled and supported Highway target, against the
// double scatter-form reference of reference/Deconvolution.h.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "ConcurrentForward.h"
#include "ConvolutionCases.h"
#include "TestUtil.h"
#include "reference/Deconvolution.h"

namespace {

using test::Guarded;

using convtest::Shape;

// The deconvolution's output size: stride*(src - 1) + dilation*(kernel - 1) + 1 minus the pads.
SimdConvolutionParameters Make(const Shape& s, SimdTensorFormatType format,
                               SimdConvolutionActivationType act) {
    SimdConvolutionParameters p = convtest::ConvolutionParameters(s, format, act);
    p.dstH = s.sY * (s.srcH - 1) + s.dY * (s.kY - 1) + 1 - s.padY - s.padH;
    p.dstW = s.sX * (s.srcW - 1) + s.dX * (s.kX - 1) + 1 - s.padX - s.padW;
    return p;
}

// Channels 1, 3, 7, 8, 17, 33, 64; sizes 1, 5, 13; kernels 1-5, 7 and 1x3; strides 1-3 (with
// output rows and columns no tap reaches); dilation 1-2; asymmetric pads and crops beyond the
// kernel; groups 1, 2 and depthwise (Nchw only: Nhwc requires group 1); shapes large enough
// for several row bands.
std::vector<Shape> Shapes() {
    return {
        // srcC dstC  H   W  kY kX sY sX dY dX pY pX pH pW group
        {3, 8, 5, 5, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},      // 4x4 s2 p1 (upsampling)
        {8, 3, 13, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},    // 2x2 s2 (disjoint patches)
        {17, 33, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 3x3 s1
        {7, 17, 13, 5, 3, 3, 2, 2, 1, 1, 1, 0, 0, 1, 1},    // asymmetric pads
        {1, 1, 5, 5, 5, 5, 3, 3, 1, 1, 2, 1, 0, 3, 1},      // 5x5 s3, one channel
        {33, 8, 5, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},     // 1x1
        {8, 7, 5, 13, 1, 3, 1, 2, 1, 2, 0, 1, 0, 2, 1},     // 1x3 dilated, stride 2 in x
        {3, 7, 13, 13, 3, 3, 2, 2, 2, 2, 1, 2, 3, 0, 1},    // dilated, stride 2
        {17, 8, 1, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1},     // single pixel
        {8, 17, 1, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},    // height 1
        {7, 3, 13, 1, 4, 4, 3, 3, 1, 1, 0, 1, 2, 0, 1},     // width 1, stride 3
        {3, 3, 5, 5, 1, 1, 3, 3, 1, 1, 0, 0, 0, 0, 1},      // 1x1 s3: untouched rows/columns
        {8, 8, 13, 13, 2, 2, 3, 3, 1, 1, 0, 1, 1, 0, 1},    // 2x2 s3 with gaps and pads
        {8, 8, 5, 13, 4, 4, 2, 2, 1, 1, 3, 4, 3, 2, 1},     // crop beyond the kernel
        {3, 5, 5, 5, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 1},      // 49 taps per output
        {3, 4, 5, 13, 9, 15, 1, 2, 1, 1, 4, 7, 4, 7, 1},    // stride 2, > 32 taps per phase
        {8, 17, 5, 5, 2, 3, 3, 1, 2, 1, 1, 0, 0, 1, 1},     // kernel 2x3, strides 3x1
        {64, 64, 13, 13, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 1},  // several bands
        {16, 64, 40, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // several bands, stride 1
        {33, 33, 13, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},
        // 3x2 s2, several bands: rows of one tap row interleaved, rows of two summed.
        {8, 64, 20, 56, 3, 2, 2, 2, 1, 1, 1, 0, 1, 0, 1},
        // Several bands through the phase buffer: stride 3; stride 2 with > 32 taps per phase
        // (odd output width); 2 wide with > 32 tap rows per output row.
        {3, 16, 40, 13, 5, 5, 3, 3, 1, 1, 2, 2, 2, 2, 1},
        {3, 4, 40, 13, 9, 15, 1, 2, 1, 1, 4, 7, 4, 7, 1},
        {3, 4, 40, 8, 33, 2, 1, 2, 1, 1, 0, 0, 0, 0, 1},
        // Dilation 260: the gather's border columns too far out for masked vectors.
        {3, 4, 5, 5, 1, 3, 1, 2, 1, 260, 0, 1, 0, 1, 1},
        // Grouped and depthwise (Nchw only).
        {8, 8, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},
        {34, 16, 5, 5, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 2},
        {8, 8, 13, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 8},
        {7, 7, 5, 13, 3, 3, 1, 1, 2, 2, 1, 1, 1, 1, 7},
        {3, 3, 13, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 3},
        {7, 14, 5, 5, 3, 3, 3, 3, 1, 1, 0, 2, 1, 0, 7},  // depthwise multiplier 2
    };
}

using convtest::ActivationParams;
using convtest::Data;
using convtest::Describe;
using convtest::kActivations;
using convtest::MakeData;

size_t DstSize(const SimdConvolutionParameters& p, size_t batch) {
    return batch * p.dstC * p.dstH * p.dstW;
}

::testing::AssertionResult Compare(const SimdConvolutionParameters& p, size_t batch,
                                   const Data& data, bool withBias, const Guarded<float>& dst) {
    std::vector<double> ref, mag;
    ref::Deconvolution32f(p, batch, data.src.data(), data.weight.data(),
                          withBias ? data.bias.data() : nullptr, data.params.data(), ref, mag);
    if (!dst.GuardsIntact()) return ::testing::AssertionFailure() << "guard zone overwritten";
    return test::AllOf(ref.size(),
                       [&](size_t i) { return test::Near(dst[i], ref[i], mag[i], 1e-5, 1e-6); });
}

// Init, SetParams, Forward (caller buffer or NULL) and comparison with the reference.
::testing::AssertionResult RunCase(const SimdConvolutionParameters& p, size_t batch, bool withBias,
                                   bool callerBuffer, SimdGemm32fNNPtr gemm, uint32_t seed,
                                   std::string* info = nullptr) {
    const Data data = MakeData(p, batch, seed);
    void* context = SimdSynetDeconvolution32fInit(batch, &p, gemm);
    if (context == nullptr)
        return ::testing::AssertionFailure()
               << "Init failed: " << (SimdSynetGetLastError() ? SimdSynetGetLastError() : "");
    SimdBool internal = SimdFalse;
    SimdSynetDeconvolution32fSetParams(context, data.weight.data(), &internal,
                                       withBias ? data.bias.data() : nullptr,
                                       data.params.empty() ? nullptr : data.params.data());
    Guarded<float> buf(callerBuffer ? SimdSynetDeconvolution32fExternalBufferSize(context) : 0,
                       std::numeric_limits<float>::quiet_NaN());
    Guarded<float> dst(DstSize(p, batch), std::numeric_limits<float>::quiet_NaN());
    SimdSynetDeconvolution32fForward(context, data.src.data(), callerBuffer ? buf.data() : nullptr,
                                     dst.data());
    const std::string name = SimdSynetDeconvolution32fInfo(context);
    if (info) *info = name;
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

using test::ThreadBudgetGuard;

SIMD_SYNET_TARGET_SUITE(DeconvolutionTest);

TEST_P(DeconvolutionTest, Shapes) {
    uint32_t seed = 1;
    size_t index = 0;
    for (const Shape& s : Shapes())
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            if (f == SimdTensorFormatNhwc && s.group != 1) continue;
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

TEST_P(DeconvolutionTest, EveryActivation) {
    const Shape shapes[] = {{17, 33, 5, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                            {8, 33, 5, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                            {7, 17, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
    uint32_t seed = 100;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (SimdConvolutionActivationType act : kActivations)
                for (bool withBias : {true, false}) {
                    const SimdConvolutionParameters p = Make(s, f, act);
                    const bool callerBuffer = seed % 2 == 0;
                    EXPECT_TRUE(RunCase(p, 1, withBias, callerBuffer, nullptr, seed))
                        << Describe(p, 1) << " bias " << withBias;
                    ++seed;
                }
}

// Shapes whose kernel is a multiple of the stride, run as stride-1 convolutions per stride
// phase (the "phases" algorithms, chosen on every target for these shapes: few source channels
// or 64 outputs, phase images at least 8 wide): odd channel counts, 3x3 s1, 7x7 s1, 8x8 s4,
// asymmetric pads with phases of different widths, a phase that skips the first source row and
// crops the last, 6x6 s3, and phase rows of whole tiles. Every activation on one of them.
TEST_P(DeconvolutionTest, StridePhases) {
    const Shape shapes[] = {{8, 7, 9, 9, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                            {33, 64, 11, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {3, 17, 9, 11, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 1},
                            {16, 64, 5, 9, 8, 8, 4, 4, 1, 1, 2, 2, 2, 2, 1},
                            {7, 24, 8, 9, 4, 4, 2, 2, 1, 1, 2, 1, 0, 2, 1},
                            {8, 16, 7, 9, 4, 4, 2, 2, 1, 1, 3, 1, 3, 1, 1},
                            {5, 8, 6, 9, 6, 6, 3, 3, 1, 1, 1, 1, 2, 2, 1},
                            {12, 64, 10, 16, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1}};
    uint32_t seed = 700;
    size_t index = 0;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            const SimdConvolutionActivationType act = kActivations[index % 11];
            const SimdConvolutionParameters p = Make(s, f, act);
            const bool withBias = index % 3 != 2, callerBuffer = index % 2 == 0;
            std::string info;
            EXPECT_TRUE(RunCase(p, 2, withBias, callerBuffer, nullptr, seed++, &info))
                << Describe(p, 2) << " bias " << withBias << " buf " << callerBuffer;
            EXPECT_NE(info.find("phases"), std::string::npos) << Describe(p, 2) << " " << info;
            ++index;
        }
    for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
        for (SimdConvolutionActivationType act : kActivations)
            for (bool withBias : {true, false}) {
                const SimdConvolutionParameters p = Make(shapes[0], f, act);
                EXPECT_TRUE(RunCase(p, 1, withBias, seed % 2 == 0, nullptr, seed))
                    << Describe(p, 1) << " bias " << withBias;
                ++seed;
            }
}

// Stride == kernel without padding (disjoint output patches): the NHWC kernel-row GEMMs with
// the tile that fits the source row (14 rows on AVX-512 for widths 13 and 28, 6 for 12) and bias
// and cheap activations in the tiles' store where no column panel spans two taps; NCHW with
// many FLOP per transposed float through the same kernel, which then packs its source blocks
// from the channel planes and transposes each source row's output (widths 13 and 29: 8- and
// 16-wide transpose tiles with ragged edges); 64->32 is past the break-even on AVX-512 only.
TEST_P(DeconvolutionTest, DisjointPatchTiles) {
    const Shape shapes[] = {{128, 32, 3, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                            {128, 32, 2, 29, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                            {64, 32, 3, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                            {16, 64, 4, 12, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                            {24, 64, 3, 28, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 1}};
    uint32_t seed = 900;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (SimdConvolutionActivationType act : kActivations)
                for (bool withBias : {true, false}) {
                    const SimdConvolutionParameters p = Make(s, f, act);
                    std::string info;
                    EXPECT_TRUE(RunCase(p, 2, withBias, seed % 2 == 0, nullptr, seed, &info))
                        << Describe(p, 2) << " bias " << withBias;
                    const bool avx512 = info.rfind("avx512::", 0) == 0;
                    if (f == SimdTensorFormatNchw && (s.srcC == 128 || (s.srcC == 64 && avx512))) {
                        EXPECT_NE(info.find("nchw-via-nhwc-direct"), std::string::npos) << info;
                    }
                    ++seed;
                }
}

TEST_P(DeconvolutionTest, UserGemmIsCalled) {
    const Shape shapes[] = {{17, 33, 5, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                            {8, 16, 13, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                            {8, 16, 5, 13, 3, 3, 2, 1, 1, 1, 0, 1, 1, 0, 4},
                            {64, 64, 13, 13, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 1}};
    uint32_t seed = 300;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            if (f == SimdTensorFormatNhwc && s.group != 1) continue;
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
}

// The thread budget changes how the output rows are split, never a result bit.
TEST_P(DeconvolutionTest, ThreadCountsBitIdentical) {
    ThreadBudgetGuard restore;
    const Shape shapes[] = {{64, 64, 13, 13, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 1},
                            {16, 64, 40, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {33, 17, 13, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                            {32, 16, 13, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                            {8, 8, 13, 13, 2, 2, 3, 3, 1, 1, 0, 1, 1, 0, 1},
                            {8, 8, 13, 13, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 2}};
    uint32_t seed = 500;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            if (f == SimdTensorFormatNhwc && s.group != 1) continue;
            for (SimdGemm32fNNPtr gemm : {SimdGemm32fNNPtr(nullptr), &CountingGemm}) {
                const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationSwish);
                const size_t batch = 2;
                const Data data = MakeData(p, batch, seed++);
                void* context = SimdSynetDeconvolution32fInit(batch, &p, gemm);
                ASSERT_NE(context, nullptr) << Describe(p, batch);
                SimdSynetDeconvolution32fSetParams(context, data.weight.data(), nullptr,
                                                   data.bias.data(), data.params.data());
                std::vector<float> buf(SimdSynetDeconvolution32fExternalBufferSize(context));
                std::vector<std::vector<float>> out;
                for (size_t threads : {1, 2, 3}) {
                    SimdSetThreadNumber(threads);
                    Guarded<float> dst(DstSize(p, batch), std::numeric_limits<float>::quiet_NaN());
                    SimdSynetDeconvolution32fForward(context, data.src.data(), buf.data(),
                                                     dst.data());
                    if (threads == 1) {
                        EXPECT_TRUE(Compare(p, batch, data, true, dst)) << Describe(p, batch);
                    }
                    EXPECT_TRUE(dst.GuardsIntact());
                    out.push_back(dst.Vector());
                }
                SimdSetThreadNumber(1);
                const std::string info = SimdSynetDeconvolution32fInfo(context);
                EXPECT_EQ(0, std::memcmp(out[0].data(), out[1].data(), out[0].size() * 4))
                    << Describe(p, batch) << " " << info << " 2 threads";
                EXPECT_EQ(0, std::memcmp(out[0].data(), out[2].data(), out[0].size() * 4))
                    << Describe(p, batch) << " " << info << " 3 threads";
                SimdRelease(context);
            }
        }
}

// Shapes for which Init chooses every algorithm (in one layout or the other): the column GEMM
// (3x3 s2: kernel not a multiple of the stride), the stride phases (4x4 s2), disjoint patches
// (2x2 s2; 128 -> 32 is past the NCHW transpose break-even, 32 -> 16 is not), grouped (NCHW
// column GEMM only). With a caller's GEMM: the usergemm forms.
const Shape kAlgorithmShapes[] = {{17, 33, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                                  {64, 32, 13, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                                  {32, 16, 13, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                                  {128, 32, 6, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                                  {8, 8, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8}};

// The algorithms Info names (SUPPLEMENT.md §9.1 leaves them to the implementation).
const char* const kAlgorithms[] = {
    "nchw-gemm",          "nchw-usergemm",        "nhwc-gemm",
    "nhwc-usergemm",      "nhwc-direct",          "nhwc-phases",
    "nchw-via-nhwc-gemm", "nchw-via-nhwc-phases", "nchw-via-nhwc-direct"};

// The algorithm an Info string names ("avx2::nhwc-gemm-6x16-col2im-band13": "nhwc-gemm"), or
// the whole string when it names none of kAlgorithms.
std::string AlgorithmOf(const std::string& info) {
    const size_t at = info.find("::");
    if (at == std::string::npos) return info;
    for (const char* name : kAlgorithms)
        if (info.compare(at + 2, std::strlen(name) + 1, std::string(name) + "-") == 0) return name;
    return info;
}

// One context used by two user threads at once, each with its own scratch, while the library's
// thread budget is 1, 2 or 3: every algorithm gives the bits of a lone single-thread call, and
// the context does not change.
TEST_P(DeconvolutionTest, SharedContextTwoThreads) {
    std::set<std::string> algorithms;
    for (const Shape& s : kAlgorithmShapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (SimdGemm32fNNPtr gemm : {SimdGemm32fNNPtr(nullptr), &CountingGemm}) {
                if (f == SimdTensorFormatNhwc && s.group != 1) continue;
                const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationRelu);
                const Data a = MakeData(p, 1, 11), b = MakeData(p, 1, 12);
                const Data* inputs[2] = {&a, &b};
                void* context = SimdSynetDeconvolution32fInit(1, &p, gemm);
                ASSERT_NE(context, nullptr) << Describe(p, 1);
                SimdSynetDeconvolution32fSetParams(context, a.weight.data(), nullptr, a.bias.data(),
                                                   nullptr);
                const std::string info = SimdSynetDeconvolution32fInfo(context);
                algorithms.insert(AlgorithmOf(info));
                const size_t internalBefore = SimdSynetDeconvolution32fInternalBufferSize(context);
                EXPECT_TRUE(test::ConcurrentForwardMatchesLoneCalls(
                    SimdSynetDeconvolution32fExternalBufferSize(context) * sizeof(float),
                    DstSize(p, 1) * sizeof(float),
                    [&](int i, void* buf, void* dst) {
                        SimdSynetDeconvolution32fForward(context, inputs[i]->src.data(),
                                                         static_cast<float*>(buf),
                                                         static_cast<float*>(dst));
                    }))
                    << Describe(p, 1) << " " << info;
                EXPECT_EQ(internalBefore, SimdSynetDeconvolution32fInternalBufferSize(context));
                SimdRelease(context);
            }
    std::string names;
    for (const std::string& name : algorithms) names += " " + name;
    for (const char* name : kAlgorithms)
        EXPECT_EQ(algorithms.count(name), 1u) << name << " not among" << names;
}

TEST_P(DeconvolutionTest, SetParamsAgainAndInfo) {
    const Shape shapes[] = {{17, 33, 5, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                            {8, 16, 5, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                            {8, 7, 9, 9, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1}};
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationIdentity);
            void* context = SimdSynetDeconvolution32fInit(1, &p, nullptr);
            ASSERT_NE(context, nullptr);
            const std::string info = SimdSynetDeconvolution32fInfo(context);
            EXPECT_EQ(info.find(std::string(SimdSynetIsa()) + "::"), 0u) << info;
            EXPECT_NE(info.find(f == SimdTensorFormatNhwc ? "nhwc" : "nchw"), std::string::npos);
            EXPECT_GE(SimdSynetDeconvolution32fExternalBufferSize(context), 1u);
            Data first = MakeData(p, 1, 21), second = MakeData(p, 1, 22);
            SimdBool internal = SimdFalse;
            SimdSynetDeconvolution32fSetParams(context, first.weight.data(), &internal, nullptr,
                                               nullptr);
            EXPECT_EQ(internal, SimdTrue);
            EXPECT_GT(SimdSynetDeconvolution32fInternalBufferSize(context), 0u);
            SimdSynetDeconvolution32fSetParams(context, second.weight.data(), nullptr,
                                               second.bias.data(), nullptr);
            // The first weights are gone: the output follows the second set.
            std::fill(first.weight.begin(), first.weight.end(), 0.0f);
            Guarded<float> dst(DstSize(p, 1));
            SimdSynetDeconvolution32fForward(context, second.src.data(), nullptr, dst.data());
            EXPECT_TRUE(Compare(p, 1, second, true, dst)) << info;
            SimdRelease(context);
        }
}

// ---- Rejections (plain tests).

SimdConvolutionParameters Valid() {
    return Make({8, 16, 13, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1}, SimdTensorFormatNhwc,
                SimdConvolutionActivationRelu);
}

// Init of the FP32 framework (bf16 false) or of the BF16 one returns NULL for p with a message
// naming `field` and the function.
void ExpectRejected(const SimdConvolutionParameters& p, size_t batch, const char* field,
                    bool bf16 = false) {
    void* context = bf16 ? SimdSynetDeconvolution16bInit(batch, &p, SimdSynetCompatibilityDefault)
                         : SimdSynetDeconvolution32fInit(batch, &p, nullptr);
    EXPECT_EQ(context, nullptr) << field;
    const char* message = SimdSynetGetLastError();
    ASSERT_NE(message, nullptr) << field;
    EXPECT_NE(std::string(message).find(field), std::string::npos) << message;
    const char* function = bf16 ? "SimdSynetDeconvolution16bInit" : "SimdSynetDeconvolution32fInit";
    EXPECT_NE(std::string(message).find(function), std::string::npos) << message;
}

TEST(DeconvolutionErrors, InitRejectsEveryViolatedPrecondition) {
    SimdConvolutionParameters p = Valid();
    void* valid = SimdSynetDeconvolution32fInit(1, &p, nullptr);
    ASSERT_NE(valid, nullptr);
    SimdRelease(valid);
    ExpectRejected(p, 0, "batch");
    p.srcT = SimdTensorData8u;
    ExpectRejected(p, 1, "srcT");
    p = Valid();
    p.dstT = SimdTensorData16b;
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
    p.srcF = p.dstF = SimdTensorFormatNchw;
    p.group = 3;
    ExpectRejected(p, 1, "group");
    p.group = 0;
    ExpectRejected(p, 1, "group");
    p = Valid();
    p.group = 2;  // Nhwc allows group 1 only
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
    p.padY = 20;  // the crop removes every row
    p.padH = 20;
    ExpectRejected(p, 1, "dstH");
    p = Valid();
    p.srcC = 0;
    ExpectRejected(p, 1, "srcC");
    p = Valid();
    p.dstC = 0;
    ExpectRejected(p, 1, "dstC");
    EXPECT_EQ(SimdSynetDeconvolution32fInit(1, nullptr, nullptr), nullptr);
    ASSERT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_NE(std::string(SimdSynetGetLastError()).find("conv"), std::string::npos);
}

TEST(DeconvolutionErrors, NullArgumentsWriteNothing) {
    const SimdConvolutionParameters p = Valid();
    void* context = SimdSynetDeconvolution32fInit(1, &p, nullptr);
    ASSERT_NE(context, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    std::vector<float> src(p.srcC * p.srcH * p.srcW, 1.0f);
    std::vector<float> dst(DstSize(p, 1), 5.0f);
    // Forward before SetParams.
    SimdSynetDeconvolution32fForward(context, src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 5.0f);
    SimdSynetDeconvolution32fSetParams(context, nullptr, nullptr, nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    std::vector<float> weight(p.kernelY * p.kernelX * p.srcC * p.dstC, 0.5f);
    SimdSynetDeconvolution32fSetParams(context, weight.data(), nullptr, nullptr, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetDeconvolution32fForward(context, nullptr, nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 5.0f);
    SimdSynetDeconvolution32fForward(context, src.data(), nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetDeconvolution32fForward(nullptr, src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 5.0f);
    EXPECT_EQ(SimdSynetDeconvolution32fInfo(nullptr), nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetDeconvolution32fExternalBufferSize(nullptr), 0u);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetDeconvolution32fInternalBufferSize(nullptr), 0u);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdRelease(context);
    // An activation with parameters refuses params == NULL.
    const SimdConvolutionParameters q = Make({8, 16, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                                             SimdTensorFormatNchw, SimdConvolutionActivationPrelu);
    context = SimdSynetDeconvolution32fInit(1, &q, nullptr);
    ASSERT_NE(context, nullptr);
    SimdSynetDeconvolution32fSetParams(context, weight.data(), nullptr, nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdRelease(context);
}

// =============================================================================================
// BF16 framework (SimdSynetDeconvolution16b*, SUPPLEMENT.md §9.2).

using ref::Bf16ToFloat;
using ref::FloatToBf16;

const SimdTensorDataType kTypes[] = {SimdTensorData32f, SimdTensorData16b};

size_t ElemSize(SimdTensorDataType t) {
    return t == SimdTensorData16b ? sizeof(uint16_t) : sizeof(float);
}

// The source tensor in the bytes of p.srcT (BF16: the ABI rounding of the FP32 values).
std::vector<uint8_t> SourceBytes(const SimdConvolutionParameters& p,
                                 const std::vector<float>& src) {
    std::vector<uint8_t> bytes(src.size() * ElemSize(p.srcT));
    if (p.srcT == SimdTensorData16b) {
        for (size_t i = 0; i < src.size(); ++i) {
            const uint16_t v = FloatToBf16(src[i]);
            std::memcpy(bytes.data() + 2 * i, &v, 2);
        }
    } else {
        std::memcpy(bytes.data(), src.data(), bytes.size());
    }
    return bytes;
}

// One BF16 unit in the last place at the magnitude of x (8 significant bits).
double Bf16Ulp(double x) {
    int e = 0;
    std::frexp(std::fabs(x) > 0 ? std::fabs(x) : 1e-38, &e);
    return std::ldexp(1.0, e - 8);
}

// Output value i of a destination of p.dstT.
// Tensors of either type live in Guarded<uint16_t> arrays (every byte count is even).
using Bytes = Guarded<uint16_t>;

Bytes MakeBytes(size_t bytes) {
    return Bytes((bytes + 1) / 2, 0xFFFF);
}

uint8_t* BytesOf(Bytes& b) {
    return reinterpret_cast<uint8_t*>(b.data());
}

double OutputAt(const SimdConvolutionParameters& p, const Bytes& dst, size_t i) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(dst.data());
    if (p.dstT == SimdTensorData16b) {
        uint16_t v;
        std::memcpy(&v, bytes + 2 * i, 2);
        return Bf16ToFloat(v);
    }
    float v;
    std::memcpy(&v, bytes + 4 * i, 4);
    return v;
}

// §9.2: FP32 output ACC against the reference on BF16-rounded operands; BF16 output within one
// BF16 ulp of that reference (the rounding of an ACC-accurate FP32 value), plus the ACC
// absolute part for values that cancel to almost nothing.
::testing::AssertionResult Compare16b(const SimdConvolutionParameters& p, size_t batch,
                                      const Data& data, bool withBias, const Bytes& dst) {
    std::vector<double> ref, mag;
    ref::Deconvolution16b(p, batch, data.src.data(), data.src.size(), data.weight.data(),
                          data.weight.size(), withBias ? data.bias.data() : nullptr,
                          data.params.data(), ref, mag);
    if (!dst.GuardsIntact()) return ::testing::AssertionFailure() << "guard zone overwritten";
    return test::AllOf(ref.size(), [&](size_t i) {
        const double got = OutputAt(p, dst, i);
        // A NaN or an infinity of the reference (a NaN or infinite source value reached the
        // output) must come out as the same class of value, whatever the summation order.
        if (std::isnan(ref[i]) || std::isnan(got)) {
            if (std::isnan(ref[i]) && std::isnan(got)) return ::testing::AssertionSuccess();
            return ::testing::AssertionFailure() << "got " << got << " want " << ref[i];
        }
        if (std::isinf(ref[i]) || std::isinf(got)) {
            if (got == ref[i]) return ::testing::AssertionSuccess();
            return ::testing::AssertionFailure() << "got " << got << " want " << ref[i];
        }
        if (p.dstT == SimdTensorData32f) return test::Near(got, ref[i], mag[i], 1e-5, 1e-6);
        const double rounded = Bf16ToFloat(FloatToBf16(float(ref[i])));
        const double limit =
            Bf16Ulp(std::max(std::fabs(got), std::fabs(rounded))) + 1e-5 * mag[i] + 1e-6;
        if (std::fabs(got - rounded) <= limit) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure()
               << "got " << got << " want " << rounded << " (exact " << ref[i] << ")";
    });
}

struct Run16b {
    std::vector<uint16_t> out;
    std::string info;
};

// Scoped SIMD_SYNET_AMX=0: contexts created meanwhile keep off the AMX tiles (the plain
// AVX-512 kernels on a CPU that has them).
class PlainTiles {
public:
    explicit PlainTiles(bool active) : active_(active) {
        if (active_) setenv("SIMD_SYNET_AMX", "0", 1);
    }
    ~PlainTiles() {
        if (active_) unsetenv("SIMD_SYNET_AMX");
    }

private:
    bool active_;
};

// Init of the 16b framework, with SIMD_SYNET_AMX=0 in force when `plain`.
void* Init16b(const SimdConvolutionParameters& p, size_t batch, bool plain) {
    const PlainTiles scope(plain);
    return SimdSynetDeconvolution16bInit(batch, &p, SimdSynetCompatibilityDefault);
}

bool OnTiles(const std::string& info) {
    return info.find("-amx-") != std::string::npos;
}

// The paths a 16b test runs on: the kernels this target chooses, and, where those are the AMX
// tiles (seen by a context's Info), once more without them.
std::vector<bool> PlainPasses() {
    // Overlapping patches: the column algorithm, the one with a tile path.
    const Shape s = {8, 8, 3, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1};
    SimdConvolutionParameters p = Make(s, SimdTensorFormatNhwc, SimdConvolutionActivationIdentity);
    p.srcT = p.dstT = SimdTensorData16b;
    void* context = SimdSynetDeconvolution16bInit(1, &p, SimdSynetCompatibilityDefault);
    const bool tiles = context != nullptr && OnTiles(SimdSynetDeconvolution16bInfo(context));
    SimdRelease(context);
    if (tiles) return {false, true};
    return {false};
}

// Init, SetParams, Forward (caller buffer or NULL) of the 16b framework, compared with the
// reference; when the context runs on the AMX tiles, the whole case again without them
// (`result` then receives the first run). `data`: the case's inputs instead of MakeData's.
::testing::AssertionResult RunCase16b(const SimdConvolutionParameters& p, size_t batch,
                                      bool withBias, bool callerBuffer, uint32_t seed,
                                      Run16b* result = nullptr, bool forcePlain = false,
                                      const Data* given = nullptr) {
    const Data data = given ? *given : MakeData(p, batch, seed);
    void* context = Init16b(p, batch, forcePlain);
    if (context == nullptr)
        return ::testing::AssertionFailure()
               << "Init failed: " << (SimdSynetGetLastError() ? SimdSynetGetLastError() : "");
    SimdSynetDeconvolution16bSetParams(context, data.weight.data(),
                                       withBias ? data.bias.data() : nullptr,
                                       data.params.empty() ? nullptr : data.params.data());
    if (SimdSynetGetLastError() != nullptr)
        return ::testing::AssertionFailure() << "SetParams: " << SimdSynetGetLastError();
    const std::vector<uint8_t> src = SourceBytes(p, data.src);
    // An odd offset into the caller's buffer: any alignment must work.
    const size_t bufBytes = SimdSynetDeconvolution16bExternalBufferSize(context);
    Bytes buf = MakeBytes(callerBuffer ? bufBytes + 1 : 0);
    Bytes dst = MakeBytes(DstSize(p, batch) * ElemSize(p.dstT));
    SimdSynetDeconvolution16bForward(context, src.data(), callerBuffer ? BytesOf(buf) + 1 : nullptr,
                                     BytesOf(dst));
    const std::string name = SimdSynetDeconvolution16bInfo(context);
    const char* error = SimdSynetGetLastError();
    SimdRelease(context);
    if (error) return ::testing::AssertionFailure() << "Forward: " << error;
    if (result) {
        result->out = dst.Vector();
        result->info = name;
    }
    if (callerBuffer && !buf.GuardsIntact())
        return ::testing::AssertionFailure() << "scratch guard overwritten (" << name << ")";
    if (forcePlain && OnTiles(name))
        return ::testing::AssertionFailure() << name << ": SIMD_SYNET_AMX=0 ignored";
    ::testing::AssertionResult r = Compare16b(p, batch, data, withBias, dst);
    if (!r) return ::testing::AssertionFailure() << name << ": " << r.message();
    if (!forcePlain && OnTiles(name))
        return RunCase16b(p, batch, withBias, callerBuffer, seed, nullptr, true, &data);
    return ::testing::AssertionSuccess();
}

SimdConvolutionParameters Make16b(const Shape& s, SimdTensorFormatType format,
                                  SimdConvolutionActivationType act, SimdTensorDataType srcT,
                                  SimdTensorDataType dstT) {
    SimdConvolutionParameters p = Make(s, format, act);
    p.srcT = srcT;
    p.dstT = dstT;
    return p;
}

std::string Types(const SimdConvolutionParameters& p) {
    return std::string(p.srcT == SimdTensorData16b ? " 16b" : " 32f") +
           (p.dstT == SimdTensorData16b ? "->16b" : "->32f");
}

SIMD_SYNET_TARGET_SUITE(Deconvolution16bTest);

// Every shape of the FP32 list in the four type combinations, activations, bias and buffer
// ownership rotating.
TEST_P(Deconvolution16bTest, ShapesAllTypes) {
    uint32_t seed = 1000;
    size_t index = 0;
    for (const Shape& s : Shapes())
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            if (f == SimdTensorFormatNhwc && s.group != 1) continue;
            for (SimdTensorDataType srcT : kTypes)
                for (SimdTensorDataType dstT : kTypes) {
                    const SimdConvolutionActivationType act = kActivations[index % 11];
                    const SimdConvolutionParameters p = Make16b(s, f, act, srcT, dstT);
                    const bool withBias = index % 3 != 2, callerBuffer = index % 2 == 0;
                    EXPECT_TRUE(RunCase16b(p, 2, withBias, callerBuffer, seed))
                        << Describe(p, 2) << Types(p) << " bias " << withBias << " buf "
                        << callerBuffer;
                    seed += 7;
                    ++index;
                }
        }
}

TEST_P(Deconvolution16bTest, EveryActivation) {
    const Shape shapes[] = {{17, 33, 5, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                            {8, 33, 5, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                            {7, 17, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
    uint32_t seed = 2000;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (SimdConvolutionActivationType act : kActivations)
                for (SimdTensorDataType dstT : kTypes) {
                    const SimdTensorDataType srcT = kTypes[seed % 2];
                    const SimdConvolutionParameters p = Make16b(s, f, act, srcT, dstT);
                    EXPECT_TRUE(RunCase16b(p, 1, seed % 3 != 0, seed % 2 == 0, seed))
                        << Describe(p, 1) << Types(p);
                    ++seed;
                }
}

// Inputs that are exact BF16 values: a 32f source and its BF16 copy give the same bits.
TEST_P(Deconvolution16bTest, RoundedSourceEqualsBf16Source) {
    const Shape s = {17, 8, 5, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1};
    for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
        for (SimdTensorDataType dstT : kTypes) {
            Run16b a, b;
            const SimdConvolutionParameters pa =
                Make16b(s, f, SimdConvolutionActivationRelu, SimdTensorData32f, dstT);
            const SimdConvolutionParameters pb =
                Make16b(s, f, SimdConvolutionActivationRelu, SimdTensorData16b, dstT);
            EXPECT_TRUE(RunCase16b(pa, 2, true, true, 77, &a));
            EXPECT_TRUE(RunCase16b(pb, 2, true, false, 77, &b));
            EXPECT_EQ(a.out, b.out) << Describe(pa, 2) << Types(pa);
        }
}

// NaN and infinities of the source reach exactly the outputs their taps reach, on every path
// (the AMX tiles read BF16 denormals as zero, but keep NaN and infinities).
TEST_P(Deconvolution16bTest, NanAndInfinityPropagate) {
    const Shape shapes[] = {{17, 33, 5, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                            {40, 16, 6, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}};
    uint32_t seed = 2500;
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (SimdTensorDataType srcT : kTypes)
                for (SimdTensorDataType dstT : kTypes) {
                    const SimdConvolutionParameters p =
                        Make16b(s, f, SimdConvolutionActivationIdentity, srcT, dstT);
                    Data data = MakeData(p, 1, seed++);
                    const size_t n = data.src.size();
                    data.src[3] = std::numeric_limits<float>::quiet_NaN();
                    data.src[n / 2] = std::numeric_limits<float>::infinity();
                    data.src[n - 5] = -std::numeric_limits<float>::infinity();
                    EXPECT_TRUE(RunCase16b(p, 1, true, false, seed, nullptr, false, &data))
                        << Describe(p, 1) << Types(p);
                }
}

// Thread budgets 1 and 3 give the same bits.
TEST_P(Deconvolution16bTest, ThreadCountsBitIdentical) {
    ThreadBudgetGuard restore;
    const Shape shapes[] = {{64, 64, 13, 13, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 1},
                            {16, 64, 40, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {32, 16, 13, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                            {8, 8, 13, 13, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 2}};
    uint32_t seed = 3000;
    for (const bool plain : PlainPasses())
        for (const Shape& s : shapes)
            for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
                if (f == SimdTensorFormatNhwc && s.group != 1) continue;
                for (SimdTensorDataType srcT : kTypes)
                    for (SimdTensorDataType dstT : kTypes) {
                        const SimdConvolutionParameters p =
                            Make16b(s, f, SimdConvolutionActivationSwish, srcT, dstT);
                        const size_t batch = 2;
                        const Data a = MakeData(p, batch, seed++);
                        const std::vector<uint8_t> srcA = SourceBytes(p, a.src);
                        void* context = Init16b(p, batch, plain);
                        ASSERT_NE(context, nullptr) << Describe(p, batch);
                        SimdSynetDeconvolution16bSetParams(context, a.weight.data(), a.bias.data(),
                                                           a.params.data());
                        const size_t bufBytes =
                            SimdSynetDeconvolution16bExternalBufferSize(context);
                        const size_t dstBytes = DstSize(p, batch) * ElemSize(p.dstT);
                        std::vector<std::vector<uint16_t>> out;
                        for (size_t threads : {1, 3}) {
                            SimdSetThreadNumber(threads);
                            std::vector<uint8_t> buf(bufBytes);
                            Bytes dst = MakeBytes(dstBytes);
                            SimdSynetDeconvolution16bForward(context, srcA.data(), buf.data(),
                                                             BytesOf(dst));
                            if (threads == 1) {
                                EXPECT_TRUE(Compare16b(p, batch, a, true, dst))
                                    << Describe(p, batch) << Types(p);
                            }
                            EXPECT_TRUE(dst.GuardsIntact());
                            out.push_back(dst.Vector());
                        }
                        SimdSetThreadNumber(1);
                        EXPECT_EQ(out[0], out[1]) << Describe(p, batch) << Types(p) << " 3 threads";
                        SimdRelease(context);
                    }
            }
}

// One context used by two user threads at once, each with its own scratch (any alignment),
// while the library's thread budget is 1, 2 or 3: every algorithm of the BF16 framework, in
// every type combination, gives the bits of a lone single-thread call.
TEST_P(Deconvolution16bTest, SharedContextTwoThreads) {
    std::set<std::string> algorithms;
    uint32_t seed = 3500;
    for (const bool plain : PlainPasses())
        for (const Shape& s : kAlgorithmShapes)
            for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
                if (f == SimdTensorFormatNhwc && s.group != 1) continue;
                for (SimdTensorDataType srcT : kTypes)
                    for (SimdTensorDataType dstT : kTypes) {
                        const SimdConvolutionParameters p =
                            Make16b(s, f, SimdConvolutionActivationRelu, srcT, dstT);
                        const Data a = MakeData(p, 1, seed++), b = MakeData(p, 1, seed++);
                        const std::vector<uint8_t> inputs[2] = {SourceBytes(p, a.src),
                                                                SourceBytes(p, b.src)};
                        void* context = Init16b(p, 1, plain);
                        ASSERT_NE(context, nullptr) << Describe(p, 1);
                        SimdSynetDeconvolution16bSetParams(context, a.weight.data(), a.bias.data(),
                                                           nullptr);
                        const std::string info = SimdSynetDeconvolution16bInfo(context);
                        algorithms.insert(AlgorithmOf(info));
                        // One byte more, and the scratch starts one byte in: an odd address.
                        EXPECT_TRUE(test::ConcurrentForwardMatchesLoneCalls(
                            SimdSynetDeconvolution16bExternalBufferSize(context) + 1,
                            DstSize(p, 1) * ElemSize(p.dstT),
                            [&](int i, void* buf, void* dst) {
                                SimdSynetDeconvolution16bForward(context, inputs[i].data(),
                                                                 static_cast<uint8_t*>(buf) + 1,
                                                                 static_cast<uint8_t*>(dst));
                            }))
                            << Describe(p, 1) << Types(p) << " " << info;
                        SimdRelease(context);
                    }
            }
    std::string names;
    for (const std::string& name : algorithms) names += " " + name;
    for (const char* name : {"nchw-gemm", "nhwc-gemm", "nhwc-direct"})
        EXPECT_EQ(algorithms.count(name), 1u) << name << " not among" << names;
}

TEST_P(Deconvolution16bTest, SizesAndInfo) {
    const Shape shapes[] = {{17, 33, 5, 13, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1},
                            {8, 16, 5, 13, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1}};
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (SimdTensorDataType srcT : kTypes)
                for (SimdTensorDataType dstT : kTypes) {
                    const SimdConvolutionParameters p =
                        Make16b(s, f, SimdConvolutionActivationIdentity, srcT, dstT);
                    void* context =
                        SimdSynetDeconvolution16bInit(1, &p, SimdSynetCompatibility16bfSoft);
                    ASSERT_NE(context, nullptr);
                    const std::string info = SimdSynetDeconvolution16bInfo(context);
                    EXPECT_EQ(info.find(std::string(SimdSynetIsa()) + "::"), 0u) << info;
                    EXPECT_NE(info.find(f == SimdTensorFormatNhwc ? "nhwc" : "nchw"),
                              std::string::npos);
                    EXPECT_NE(info.find("bf16"), std::string::npos) << info;
                    EXPECT_GE(SimdSynetDeconvolution16bExternalBufferSize(context), 4u);
                    EXPECT_EQ(SimdSynetDeconvolution16bInternalBufferSize(context), 0u);
                    const Data data = MakeData(p, 1, 5);
                    SimdSynetDeconvolution16bSetParams(context, data.weight.data(), nullptr,
                                                       nullptr);
                    // Bytes: at least the BF16 weights (kept as FP32, or as BF16 for the tiles).
                    EXPECT_GE(
                        SimdSynetDeconvolution16bInternalBufferSize(context),
                        data.weight.size() * (OnTiles(info) ? sizeof(uint16_t) : sizeof(float)));
                    SimdRelease(context);
                }
}

// ---- Rejections of the 16b framework (plain tests).

void ExpectRejected16b(const SimdConvolutionParameters& p, size_t batch, const char* field) {
    ExpectRejected(p, batch, field, true);
}

TEST(Deconvolution16bErrors, InitRejectsEveryViolatedPrecondition) {
    for (SimdTensorDataType srcT : kTypes)
        for (SimdTensorDataType dstT : kTypes) {
            SimdConvolutionParameters p = Valid();
            p.srcT = srcT;
            p.dstT = dstT;
            void* valid = SimdSynetDeconvolution16bInit(1, &p, SimdSynetCompatibilityDefault);
            ASSERT_NE(valid, nullptr);
            SimdRelease(valid);
        }
    SimdConvolutionParameters p = Valid();
    ExpectRejected16b(p, 0, "batch");
    p.srcT = SimdTensorData8u;
    ExpectRejected16b(p, 1, "srcT");
    p = Valid();
    p.dstT = SimdTensorData16f;
    ExpectRejected16b(p, 1, "dstT");
    p = Valid();
    p.dstT = SimdTensorData8u;
    ExpectRejected16b(p, 1, "dstT");
    p = Valid();
    p.dstF = SimdTensorFormatNchw;
    ExpectRejected16b(p, 1, "dstF");
    p = Valid();
    p.srcF = p.dstF = SimdTensorFormatNchw16c;
    ExpectRejected16b(p, 1, "srcF");
    p = Valid();
    p.group = 2;  // Nhwc allows group 1 only
    ExpectRejected16b(p, 1, "group");
    p = Valid();
    p.srcF = p.dstF = SimdTensorFormatNchw;
    p.group = 3;
    ExpectRejected16b(p, 1, "group");
    p = Valid();
    p.dstH -= 1;
    ExpectRejected16b(p, 1, "dstH");
    p = Valid();
    p.dstW += 2;
    ExpectRejected16b(p, 1, "dstW");
    p = Valid();
    p.kernelY = 0;
    ExpectRejected16b(p, 1, "kernel");
    p = Valid();
    p.strideX = 0;
    ExpectRejected16b(p, 1, "stride");
    p = Valid();
    p.dilationY = 0;
    ExpectRejected16b(p, 1, "dilation");
    p = Valid();
    p.activation = SimdConvolutionActivationType(12);
    ExpectRejected16b(p, 1, "activation");
    EXPECT_EQ(SimdSynetDeconvolution16bInit(1, nullptr, SimdSynetCompatibilityDefault), nullptr);
    ASSERT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_NE(std::string(SimdSynetGetLastError()).find("conv"), std::string::npos);
}

TEST(Deconvolution16bErrors, NullArgumentsWriteNothing) {
    SimdConvolutionParameters p = Valid();
    p.srcT = p.dstT = SimdTensorData16b;
    void* context = SimdSynetDeconvolution16bInit(1, &p, SimdSynetCompatibilityDefault);
    ASSERT_NE(context, nullptr);
    std::vector<uint8_t> src(p.srcC * p.srcH * p.srcW * 2, 0x3F);
    std::vector<uint8_t> dst(DstSize(p, 1) * 2, 0x55);
    SimdSynetDeconvolution16bForward(context, src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);  // before SetParams
    EXPECT_EQ(dst[0], 0x55);
    SimdSynetDeconvolution16bSetParams(context, nullptr, nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    std::vector<float> weight(p.kernelY * p.kernelX * p.srcC * p.dstC, 0.5f);
    SimdSynetDeconvolution16bSetParams(context, weight.data(), nullptr, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetDeconvolution16bForward(context, nullptr, nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 0x55);
    SimdSynetDeconvolution16bForward(context, src.data(), nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetDeconvolution16bForward(nullptr, src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 0x55);
    EXPECT_EQ(SimdSynetDeconvolution16bInfo(nullptr), nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetDeconvolution16bExternalBufferSize(nullptr), 0u);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetDeconvolution16bInternalBufferSize(nullptr), 0u);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdRelease(context);
}

}  // namespace
