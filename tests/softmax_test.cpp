// Tests of SimdSynetSoftmaxLayerForward on every compiled and supported Highway target.
#include <algorithm>
#include <cstdint>
#include <tuple>

#include "TestUtil.h"
#include "reference/Softmax.h"

namespace {

using test::Guarded;

// TRANS bound of the task: |actual - ref| <= 1e-5*|ref| + 1e-6.
::testing::AssertionResult CheckSoftmax(const Guarded<float>& dst, const std::vector<double>& ref,
                                        double rel, double abs) {
    if (!dst.GuardsIntact()) return ::testing::AssertionFailure() << "guard zone overwritten";
    return test::AllOf(ref.size(),
                       [&](size_t i) { return test::Near(dst[i], ref[i], ref[i], rel, abs); });
}

// Runs one shape with inputs uniform in [-range, range], out of place and in place.
void RunShape(size_t outer, size_t count, size_t inner, float range, double rel = 1e-5,
              double abs = 1e-6) {
    const size_t n = outer * count * inner;
    Guarded<float> src(n), dst(n);
    test::FillRandom(src.data(), n, -range, range,
                     uint32_t(outer * 1000003 + count * 1009 + inner));
    const std::vector<double> ref = ref::Softmax(src.data(), outer, count, inner);
    SimdSynetSoftmaxLayerForward(src.data(), outer, count, inner, dst.data());
    ASSERT_EQ(SimdSynetGetLastError(), nullptr);
    EXPECT_TRUE(CheckSoftmax(dst, ref, rel, abs))
        << "outer=" << outer << " count=" << count << " inner=" << inner << " range=" << range;
    // In place (SUPPLEMENT.md §0.3) gives the same values.
    SimdSynetSoftmaxLayerForward(src.data(), outer, count, inner, src.data());
    ASSERT_EQ(SimdSynetGetLastError(), nullptr);
    EXPECT_TRUE(src.GuardsIntact());
    EXPECT_TRUE(test::AllOf(n,
                            [&](size_t i) {
                                return test::SameValue(src[i], dst[i])
                                           ? ::testing::AssertionSuccess()
                                           : ::testing::AssertionFailure()
                                                 << "in place " << src[i] << " vs " << dst[i];
                            }))
        << "in place: outer=" << outer << " count=" << count << " inner=" << inner;
}

SIMD_SYNET_TARGET_SUITE(Softmax);

// Rows (inner == 1): every tail length, short rows in chunks and long rows.
TEST_P(Softmax, Rows) {
    std::vector<size_t> counts = test::TailChannels();
    for (size_t c : {2, 21, 31, 32, 63, 64, 65, 100, 129, 1000, 1023, 4133}) counts.push_back(c);
    for (size_t count : counts)
        for (size_t outer : {1, 2, 5, 130})
            for (float range : {1.0f, 30.0f}) RunShape(outer, count, 1, range);
}

// Strided softmax (inner > 1): columns in groups, single vectors and partial tails.
TEST_P(Softmax, Strided) {
    for (size_t count : test::TailChannels())
        for (size_t inner : {2, 3, 7, 8, 15, 16, 17, 33, 64, 100})
            for (size_t outer : {1, 3}) RunShape(outer, count, inner, 10.0f);
    RunShape(2, 21, 56 * 56, 10.0f);
}

// Inputs up to +-1e4: the maximum is subtracted, nothing overflows; exp of far-below-max
// inputs underflows to 0 as the reference does (within the absolute bound).
TEST_P(Softmax, LargeInputs) {
    for (size_t count : {1, 3, 17, 33, 1000}) {
        RunShape(3, count, 1, 1e4f);
        RunShape(2, count, 19, 1e4f);
    }
    // Every value huge and close together: the result must still be accurate.
    const size_t n = 300;
    Guarded<float> src(n), dst(n);
    for (size_t i = 0; i < n; ++i) src[i] = 1e4f + float(i % 7) * 0.5f;
    SimdSynetSoftmaxLayerForward(src.data(), 1, n, 1, dst.data());
    EXPECT_TRUE(CheckSoftmax(dst, ref::Softmax(src.data(), 1, n, 1), 1e-5, 1e-6));
}

// Short rows share one exp pass per chunk: rows far below the others (and a row holding NaN,
// which poisons the chunk's maximum) must still come out as their own softmax.
TEST_P(Softmax, ShortRowsOfDifferentRanges) {
    for (size_t count : {1, 3, 17, 21, 40}) {
        const size_t outer = 300, n = outer * count;
        for (bool withNaN : {false, true}) {
            Guarded<float> src(n), dst(n);
            test::FillRandom(src.data(), n, -5.0f, 5.0f, uint32_t(count));
            for (size_t o = 0; o < outer; ++o)
                for (size_t c = 0; c < count; ++c) src[o * count + c] -= float(o % 4) * 30.0f;
            if (withNaN) src[7 * count] = std::numeric_limits<float>::quiet_NaN();
            const std::vector<double> ref = ref::Softmax(src.data(), outer, count, 1);
            SimdSynetSoftmaxLayerForward(src.data(), outer, count, 1, dst.data());
            EXPECT_TRUE(CheckSoftmax(dst, ref, 1e-5, 1e-6))
                << "count=" << count << " NaN=" << withNaN;
        }
    }
}

// count == 1 gives exactly 1 for finite input (SUPPLEMENT.md §4.9).
TEST_P(Softmax, CountOne) {
    for (size_t inner : {1, 5, 40}) {
        const size_t n = 7 * inner;
        Guarded<float> src(n), dst(n);
        test::FillRandom(src.data(), n, -1e4f, 1e4f, 3);
        SimdSynetSoftmaxLayerForward(src.data(), 7, 1, inner, dst.data());
        EXPECT_TRUE(dst.GuardsIntact());
        for (size_t i = 0; i < n; ++i) EXPECT_EQ(dst[i], 1.0f) << "inner=" << inner << " i=" << i;
    }
}

// Rows of 100 000 elements whose outputs are all of similar size: an error of the sum z shows
// in every output, so the bound here is relative only (1e-5, no absolute part), which a sum
// whose error grows with the length would break.
TEST_P(Softmax, LongSums) {
    RunShape(1, 100000, 1, 1.0f, 1e-5, 0.0);
    RunShape(2, 100000, 3, 1.0f, 1e-5, 0.0);
    RunShape(1, 20000, 17, 1.0f, 1e-5, 0.0);
}

TEST(SoftmaxErrors, ZeroSizesAreNoOps) {
    Guarded<float> dst(4, 5.0f);
    for (auto shape :
         {std::make_tuple(0, 3, 1), std::make_tuple(2, 0, 1), std::make_tuple(2, 3, 0)}) {
        SimdSynetSoftmaxLayerForward(nullptr, std::get<0>(shape), std::get<1>(shape),
                                     std::get<2>(shape), dst.data());
        EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    }
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(dst[i], 5.0f);
    EXPECT_TRUE(dst.GuardsIntact());
}

TEST(SoftmaxErrors, RejectedArguments) {
    Guarded<float> src(12, 1.0f), dst(12, 5.0f);
    auto untouched = [&] {
        for (size_t i = 0; i < 12; ++i)
            if (dst[i] != 5.0f) return false;
        return dst.GuardsIntact();
    };
    SimdSynetSoftmaxLayerForward(nullptr, 3, 4, 1, dst.data());
    ASSERT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_NE(std::string(SimdSynetGetLastError()).find("SimdSynetSoftmaxLayerForward"),
              std::string::npos);
    SimdSynetSoftmaxLayerForward(src.data(), 3, 4, 1, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    // outer*count*inner*4 beyond size_t, in each factor.
    const size_t big = SIZE_MAX / 2;
    SimdSynetSoftmaxLayerForward(src.data(), big, 3, 1, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetSoftmaxLayerForward(src.data(), 1, 3, big, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetSoftmaxLayerForward(src.data(), 1, size_t(1) << 62, 1, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_TRUE(untouched());
    // A valid call clears the message.
    SimdSynetSoftmaxLayerForward(src.data(), 3, 4, 1, dst.data());
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

}  // namespace
