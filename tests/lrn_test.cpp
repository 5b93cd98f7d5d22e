// Tests of SimdSynetLrnLayerCrossChannels on every compiled and supported Highway target.
#include <cstdint>
#include <string>

#include "TestUtil.h"
#include "reference/Lrn.h"

namespace {

using test::Guarded;

// Parameter sets {k0, k1, k2}: AlexNet/GoogLeNet style (k1 = alpha/5, k2 = -beta), and two
// with a large k1 so that the window sum dominates (a wrong window shows).
const float kCoefficients[][3] = {
    {1.0f, 1e-4f / 5, -0.75f}, {2.0f, 0.2f, -0.75f}, {0.5f, 1.0f, -0.5f}};

// Checks one shape against the reference with |err| <= 1e-5*|ref| + 1e-6.
void RunShape(size_t channels, size_t spatial, size_t half, SimdTensorFormatType format,
              const float* k, float range = 3.0f) {
    const size_t n = channels * spatial;
    const bool nhwc = format == SimdTensorFormatNhwc;
    Guarded<float> src(n), dst(n);
    test::FillRandom(src.data(), n, -range, range, uint32_t(channels * 7919 + spatial * 31 + half));
    SimdSynetLrnLayerCrossChannels(src.data(), half, channels, spatial, k, dst.data(), format);
    ASSERT_EQ(SimdSynetGetLastError(), nullptr);
    EXPECT_TRUE(dst.GuardsIntact());
    const std::vector<double> ref = ref::Lrn(src.data(), half, channels, spatial, k, nhwc);
    EXPECT_TRUE(
        test::AllOf(n, [&](size_t i) { return test::Near(dst[i], ref[i], ref[i], 1e-5, 1e-6); }))
        << "format=" << format << " channels=" << channels << " spatial=" << spatial
        << " half=" << half << " k=" << k[0] << "," << k[1] << "," << k[2];
}

SIMD_SYNET_TARGET_SUITE(Lrn);

TEST_P(Lrn, Shapes) {
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
        for (const auto& k : kCoefficients)
            for (size_t channels : test::TailChannels())
                for (size_t spatial : {1, 2, 5, 16, 49, 67})
                    for (size_t half : {0, 1, 2, 5}) RunShape(channels, spatial, half, format, k);
}

// Windows wider than the channel count (every window clipped on both sides), including a half
// so large that c + half + 1 would overflow.
TEST_P(Lrn, WideWindows) {
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
        for (size_t channels : {1, 3, 17, 33})
            for (size_t half : {size_t(40), SIZE_MAX})
                RunShape(channels, 19, half, format, kCoefficients[2]);
}

// Long channel axes (NHWC buffers beyond the stack buffer) and big spatial planes.
TEST_P(Lrn, Large) {
    RunShape(100000, 2, 2, SimdTensorFormatNhwc, kCoefficients[1]);
    RunShape(100000, 2, 2, SimdTensorFormatNchw, kCoefficients[1]);
    RunShape(3000, 3, 1500, SimdTensorFormatNhwc, kCoefficients[2], 0.1f);
    RunShape(64, 56 * 56, 2, SimdTensorFormatNchw, kCoefficients[0]);
    RunShape(64, 56 * 56, 2, SimdTensorFormatNhwc, kCoefficients[0]);
}

// Bases k0 + k1*sum that are 0 (all-zero windows with k0 = 0: pow gives inf and 0*inf NaN, as
// in the reference), denormal or huge take the general log; the other elements must be
// unaffected.
TEST_P(Lrn, SpecialBases) {
    const float k[3] = {0.0f, 1.0f, -0.75f};
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        const size_t channels = 19, spatial = 37, n = channels * spatial;
        Guarded<float> src(n), dst(n);
        test::FillRandom(src.data(), n, -3.0f, 3.0f, 5);
        for (size_t i = 0; i < n; i += 7) src[i] = 0.0f;
        for (size_t i = 3; i < n; i += 11) src[i] = 1e-30f;
        for (size_t i = 5; i < n; i += 13) src[i] = 1e19f;
        // One pixel entirely zero.
        for (size_t c = 0; c < channels; ++c)
            src[format == SimdTensorFormatNchw ? c * spatial + 4 : 4 * channels + c] = 0.0f;
        SimdSynetLrnLayerCrossChannels(src.data(), 2, channels, spatial, k, dst.data(), format);
        const std::vector<double> ref =
            ref::Lrn(src.data(), 2, channels, spatial, k, format == SimdTensorFormatNhwc);
        EXPECT_TRUE(test::AllOf(
            n, [&](size_t i) { return test::Near(dst[i], ref[i], ref[i], 1e-5, 1e-6); }))
            << "format=" << format;
    }
}

// SUPPLEMENT.md §2.3: identical memory layouts give identical results for either tag.
TEST_P(Lrn, EquivalentLayouts) {
    const float* k = kCoefficients[1];
    for (auto shape :
         {std::make_pair(size_t(17), size_t(1)), std::make_pair(size_t(1), size_t(37))}) {
        const size_t n = shape.first * shape.second;
        Guarded<float> src(n), a(n), b(n);
        test::FillRandom(src.data(), n, -3.0f, 3.0f, 77);
        SimdSynetLrnLayerCrossChannels(src.data(), 2, shape.first, shape.second, k, a.data(),
                                       SimdTensorFormatNchw);
        SimdSynetLrnLayerCrossChannels(src.data(), 2, shape.first, shape.second, k, b.data(),
                                       SimdTensorFormatNhwc);
        for (size_t i = 0; i < n; ++i) EXPECT_TRUE(test::SameValue(a[i], b[i])) << i;
    }
}

TEST(LrnErrors, ZeroSizesAreNoOps) {
    const float k[3] = {1.0f, 1.0f, -0.75f};
    Guarded<float> dst(4, 5.0f);
    SimdSynetLrnLayerCrossChannels(nullptr, 2, 0, 5, k, dst.data(), SimdTensorFormatNchw);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetLrnLayerCrossChannels(nullptr, 2, 5, 0, nullptr, dst.data(), SimdTensorFormatNhwc);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(dst[i], 5.0f);
    EXPECT_TRUE(dst.GuardsIntact());
}

TEST(LrnErrors, RejectedArguments) {
    const float k[3] = {1.0f, 1.0f, -0.75f};
    const size_t channels = 8, spatial = 4, n = channels * spatial;
    Guarded<float> src(n, 1.0f), dst(n, 5.0f);
    auto rejected = [&](const char* what) {
        const char* message = SimdSynetGetLastError();
        EXPECT_NE(message, nullptr) << what;
        if (message) {
            EXPECT_NE(std::string(message).find("SimdSynetLrnLayerCrossChannels"),
                      std::string::npos);
        }
        for (size_t i = 0; i < n; ++i) EXPECT_EQ(dst[i], 5.0f) << what;
        EXPECT_TRUE(dst.GuardsIntact()) << what;
    };
    SimdSynetLrnLayerCrossChannels(nullptr, 2, channels, spatial, k, dst.data(),
                                   SimdTensorFormatNchw);
    rejected("src NULL");
    SimdSynetLrnLayerCrossChannels(src.data(), 2, channels, spatial, nullptr, dst.data(),
                                   SimdTensorFormatNchw);
    rejected("k NULL");
    SimdSynetLrnLayerCrossChannels(src.data(), 2, channels, spatial, k, nullptr,
                                   SimdTensorFormatNchw);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    // Blocked layouts are a precondition violation (SUPPLEMENT.md §4.7), like unknown values.
    for (SimdTensorFormatType format :
         {SimdTensorFormatNchw4c, SimdTensorFormatNchw8c, SimdTensorFormatNchw16c,
          SimdTensorFormatNchwXc, SimdTensorFormatOiyx, SimdTensorFormatUnknown,
          SimdTensorFormatType(13)}) {
        SimdSynetLrnLayerCrossChannels(src.data(), 2, channels, spatial, k, dst.data(), format);
        rejected("format");
    }
    SimdSynetLrnLayerCrossChannels(src.data(), 2, SIZE_MAX / 2, 3, k, dst.data(),
                                   SimdTensorFormatNhwc);
    rejected("overflow");
    SimdSynetLrnLayerCrossChannels(src.data(), 2, channels, spatial, k, dst.data(),
                                   SimdTensorFormatNchw);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

}  // namespace
