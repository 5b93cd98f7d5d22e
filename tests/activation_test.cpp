// Tests of the activation family on every compiled and supported Highway target.
#include <algorithm>

#include "TestUtil.h"
#include "reference/Activation.h"

namespace {

using test::Guarded;

const size_t kSizes[] = {0, 1, 3, 7, 8, 15, 16, 17, 33, 64, 100, 1027};

SIMD_SYNET_TARGET_SUITE(Activation);

TEST_P(Activation, Relu) {
    for (float slope : {0.0f, 0.1f, -2.5f}) {
        for (size_t n : kSizes) {
            Guarded<float> src(n), dst(n);
            test::FillRandom(src.data(), n, -10.0f, 10.0f, uint32_t(n));
            SimdSynetRelu32f(src.data(), n, &slope, dst.data());
            EXPECT_EQ(SimdSynetGetLastError(), nullptr);
            EXPECT_TRUE(dst.GuardsIntact());
            EXPECT_TRUE(test::AllOf(n, [&](size_t i) {
                double mag;
                const double r = ref::Relu(src[i], slope, &mag);
                return test::Near(dst[i], r, mag, 1e-6, 1e-7);
            })) << "n=" << n << " slope=" << slope;
        }
    }
}

TEST_P(Activation, ReluInPlace) {
    const float slope = 0.25f;
    Guarded<float> buf(100);
    test::FillRandom(buf.data(), 100, -1.0f, 1.0f, 5);
    const std::vector<float> src = buf.Vector();
    SimdSynetRelu32f(buf.data(), 100, &slope, buf.data());
    EXPECT_TRUE(test::AllOf(100, [&](size_t i) {
        double mag;
        const double r = ref::Relu(src[i], slope, &mag);
        return test::Near(buf[i], r, mag, 1e-6, 1e-7);
    }));
}

TEST_P(Activation, RestrictRange) {
    const float lower = -1.5f, upper = 2.25f;
    for (size_t n : kSizes) {
        Guarded<float> src(n), dst(n);
        test::FillRandom(src.data(), n, -5.0f, 5.0f, uint32_t(n) + 7);
        SimdSynetRestrictRange32f(src.data(), n, &lower, &upper, dst.data());
        EXPECT_TRUE(dst.GuardsIntact());
        EXPECT_TRUE(test::AllOf(n, [&](size_t i) {
            const float r = ref::RestrictRange(src[i], lower, upper);
            return test::SameValue(dst[i], r) ? ::testing::AssertionSuccess()
                                              : ::testing::AssertionFailure() << dst[i] << " vs " << r;
        })) << "n=" << n;
    }
}

TEST_P(Activation, Hswish) {
    const float shift = 3.0f, scale = 1.0f / 6.0f;
    for (size_t n : kSizes) {
        Guarded<float> src(n), dst(n);
        test::FillRandom(src.data(), n, -8.0f, 8.0f, uint32_t(n) + 11);
        SimdSynetHswish32f(src.data(), n, &shift, &scale, dst.data());
        EXPECT_TRUE(dst.GuardsIntact());
        EXPECT_TRUE(test::AllOf(n, [&](size_t i) {
            const double r = ref::Hswish(src[i], shift, scale);
            return test::Near(dst[i], r, r, 1e-6, 1e-7);
        })) << "n=" << n;
    }
}

TEST_P(Activation, Prelu) {
    for (SimdTensorFormatType format : test::ImageFormats()) {
        const size_t block = SimdSynetTensorAlignment(format);
        for (size_t channels : test::TailChannels()) {
            for (size_t spatial : {1, 5, 16, 49}) {
                const size_t aligned = SimdAlign(channels, block);
                const size_t n = aligned * spatial;
                Guarded<float> src(n), slope(aligned), dst(n);
                test::FillRandom(src.data(), n, -3.0f, 3.0f, uint32_t(channels * 31 + spatial));
                test::FillRandom(slope.data(), aligned, -1.0f, 1.0f, uint32_t(channels));
                SimdSynetPreluLayerForward(src.data(), slope.data(), channels, spatial,
                                           dst.data(), format);
                ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                EXPECT_TRUE(dst.GuardsIntact());
                // Channel of element i in the layout of SUPPLEMENT.md §2.1 (padded lanes too).
                auto channelOf = [&](size_t i) {
                    if (format == SimdTensorFormatNchw) return i / spatial;
                    if (format == SimdTensorFormatNhwc) return i % channels;
                    return i / (spatial * block) * block + i % block;
                };
                EXPECT_TRUE(test::AllOf(n, [&](size_t i) {
                    double mag;
                    const double r = ref::Relu(src[i], slope[channelOf(i)], &mag);
                    return test::Near(dst[i], r, mag, 1e-6, 1e-7);
                })) << "format=" << format << " channels=" << channels << " spatial=" << spatial;
            }
        }
    }
}

TEST(ActivationErrors, RejectsBadArguments) {
    float src[4] = {1, 2, 3, 4}, dst[4] = {7, 7, 7, 7}, slope = 0.5f, lo = 2.0f, hi = 1.0f;
    SimdSynetRelu32f(nullptr, 4, &slope, dst);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetRelu32f(src, 4, nullptr, dst);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetRestrictRange32f(src, 4, &lo, &hi, dst);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetPreluLayerForward(src, &slope, 1, 4, dst, SimdTensorFormatNchwXc);
    ASSERT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_NE(std::string(SimdSynetGetLastError()).find("SimdSynetPreluLayerForward"),
              std::string::npos);
    SimdSynetPreluLayerForward(src, &slope, SIZE_MAX / 2, 4, dst, SimdTensorFormatNchw);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    for (float v : dst) EXPECT_EQ(v, 7.0f);
    SimdSynetRelu32f(nullptr, 0, nullptr, nullptr);  // zero size: valid no-op
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

}  // namespace
