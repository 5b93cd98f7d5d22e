// Tests of SimdSynetInnerProductLayerForward on every compiled and supported Highway target.
#include <cstdint>
#include <cstring>
#include <string>

#include "TestUtil.h"
#include "reference/InnerProduct.h"

namespace {

using test::Guarded;

// ACC bound of the task: |err| <= 1e-5 * (|bias| + sum |src*weight|) per output.
void RunShape(size_t count, size_t size, bool withBias) {
    ASSERT_LE(count * size, size_t(1) << 24);  // (also tells GCC the buffer sizes are sane)
    Guarded<float> src(size), weight(count * size), bias(count), dst(count);
    const uint32_t seed = uint32_t(count * 131 + size);
    test::FillRandom(src.data(), size, -1.0f, 1.0f, seed);
    test::FillRandom(weight.data(), count * size, -1.0f, 1.0f, seed + 1);
    test::FillRandom(bias.data(), count, -2.0f, 2.0f, seed + 2);
    const float* b = withBias ? bias.data() : nullptr;
    SimdSynetInnerProductLayerForward(src.data(), weight.data(), b, count, size, dst.data());
    ASSERT_EQ(SimdSynetGetLastError(), nullptr);
    EXPECT_TRUE(dst.GuardsIntact());
    EXPECT_TRUE(test::AllOf(count,
                            [&](size_t i) {
                                double magnitude;
                                const double r = ref::InnerProduct(src.data(), weight.data(), b,
                                                                   size, i, &magnitude);
                                return test::Near(dst[i], r, magnitude, 1e-5, 0.0);
                            }))
        << "count=" << count << " size=" << size << " bias=" << withBias;
}

SIMD_SYNET_TARGET_SUITE(InnerProduct);

TEST_P(InnerProduct, Shapes) {
    std::vector<size_t> sizes = test::TailChannels();
    for (size_t s : {2, 31, 32, 63, 64, 65, 100, 255, 1024, 1031}) sizes.push_back(s);
    for (size_t count : {1, 2, 3, 4, 5, 7, 8, 9, 17})
        for (size_t size : sizes)
            for (bool withBias : {false, true}) RunShape(count, size, withBias);
}

// Long rows: the accumulators are folded, so the error stays within the relative bound.
TEST_P(InnerProduct, LongRows) {
    RunShape(5, 100000, true);
    RunShape(3, 300007, false);
}

// All products of one sign: the sum itself is large, every rounding error shows in full.
TEST_P(InnerProduct, SameSign) {
    const size_t count = 6, size = 50000;
    Guarded<float> src(size), weight(count * size), dst(count);
    test::FillRandom(src.data(), size, 0.0f, 1.0f, 1);
    test::FillRandom(weight.data(), count * size, 0.0f, 1.0f, 2);
    SimdSynetInnerProductLayerForward(src.data(), weight.data(), nullptr, count, size, dst.data());
    for (size_t i = 0; i < count; ++i) {
        double magnitude;
        const double r = ref::InnerProduct(src.data(), weight.data(), nullptr, size, i, &magnitude);
        EXPECT_TRUE(test::Near(dst[i], r, magnitude, 1e-5, 0.0)) << i;
    }
}

// Large layers split their rows over SimdSetThreadNumber threads: every count gives the same
// bits as one thread, also where rows share passes (size > 4096) and count is not a multiple of
// the rows per pass, and the outputs stay within the ACC bound.
TEST_P(InnerProduct, ThreadCountsGiveSameBits) {
    for (size_t size : {1031, 5003}) {
        const size_t count = 4 * 23 + 3;  // about 2 MB of weights at size 5003: split
        Guarded<float> src(size), weight(count * size), bias(count), one(count), dst(count);
        test::FillRandom(src.data(), size, -1.0f, 1.0f, 5);
        test::FillRandom(weight.data(), count * size, -1.0f, 1.0f, 6);
        test::FillRandom(bias.data(), count, -2.0f, 2.0f, 7);
        SimdSetThreadNumber(1);
        SimdSynetInnerProductLayerForward(src.data(), weight.data(), bias.data(), count, size,
                                          one.data());
        for (size_t threads : {2, 3, 5}) {
            SimdSetThreadNumber(threads);
            SimdSynetInnerProductLayerForward(src.data(), weight.data(), bias.data(), count, size,
                                              dst.data());
            SimdSetThreadNumber(1);
            ASSERT_EQ(SimdSynetGetLastError(), nullptr);
            EXPECT_TRUE(dst.GuardsIntact());
            EXPECT_EQ(0, std::memcmp(dst.data(), one.data(), count * sizeof(float)))
                << "threads=" << threads << " size=" << size;
        }
        for (size_t i = 0; i < count; ++i) {
            double magnitude;
            const double r =
                ref::InnerProduct(src.data(), weight.data(), bias.data(), size, i, &magnitude);
            EXPECT_TRUE(test::Near(one[i], r, magnitude, 1e-5, 0.0)) << i;
        }
    }
}

TEST(InnerProductErrors, ZeroSizesAreNoOps) {
    Guarded<float> dst(4, 5.0f);
    SimdSynetInnerProductLayerForward(nullptr, nullptr, nullptr, 0, 5, dst.data());
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    // size == 0: SUPPLEMENT.md §0.3 makes a zero extent a no-op, so dst keeps its values.
    SimdSynetInnerProductLayerForward(nullptr, nullptr, nullptr, 4, 0, dst.data());
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(dst[i], 5.0f);
    EXPECT_TRUE(dst.GuardsIntact());
}

TEST(InnerProductErrors, RejectedArguments) {
    const size_t count = 5, size = 9;
    Guarded<float> src(size, 1.0f), weight(count * size, 1.0f), dst(count, 5.0f);
    auto rejected = [&](const char* what) {
        const char* message = SimdSynetGetLastError();
        EXPECT_NE(message, nullptr) << what;
        if (message) {
            EXPECT_NE(std::string(message).find("SimdSynetInnerProductLayerForward"),
                      std::string::npos);
        }
        for (size_t i = 0; i < count; ++i) EXPECT_EQ(dst[i], 5.0f) << what;
        EXPECT_TRUE(dst.GuardsIntact()) << what;
    };
    SimdSynetInnerProductLayerForward(nullptr, weight.data(), nullptr, count, size, dst.data());
    rejected("src NULL");
    SimdSynetInnerProductLayerForward(src.data(), nullptr, nullptr, count, size, dst.data());
    rejected("weight NULL");
    SimdSynetInnerProductLayerForward(src.data(), weight.data(), nullptr, count, size, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetInnerProductLayerForward(src.data(), weight.data(), nullptr, SIZE_MAX / 4, 3,
                                      dst.data());
    rejected("overflow");
    SimdSynetInnerProductLayerForward(src.data(), weight.data(), nullptr, 2, SIZE_MAX / 5,
                                      dst.data());
    rejected("overflow of size");
    SimdSynetInnerProductLayerForward(src.data(), weight.data(), nullptr, count, size, dst.data());
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 9.0f);
}

}  // namespace
