// Tests of the eltwise family (Eltwise, Shuffle on every compiled and supported Highway target;
// Concat, which has no per-target kernel).
#include <cstring>
#include <vector>

#include "TestUtil.h"
#include "reference/Eltwise.h"

namespace {

using test::Guarded;

const size_t kSizes[] = {0, 1, 3, 7, 8, 15, 16, 17, 33, 64, 100, 1027, 4099};
const size_t kCounts[] = {2, 3, 4, 5, 9};
const SimdSynetEltwiseOperationType kTypes[] = {
    SimdSynetEltwiseOperationProduct, SimdSynetEltwiseOperationSum, SimdSynetEltwiseOperationMax,
    SimdSynetEltwiseOperationMin};

::testing::AssertionResult Same(float actual, float expected) {
    if (test::SameValue(actual, expected)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << actual << ", expected " << expected;
}

// Compares dst[j] with the reference computed from `inputs` (copies taken before the call, so
// that in-place calls are checked against the original data).
::testing::AssertionResult CheckEltwise(const std::vector<std::vector<float>>& inputs,
                                        const std::vector<float>& weight,
                                        SimdSynetEltwiseOperationType type, const float* dst,
                                        size_t size) {
    std::vector<const float*> src;
    for (const auto& v : inputs) src.push_back(v.data());
    return test::AllOf(size, [&](size_t j) {
        if (type != SimdSynetEltwiseOperationSum)
            return Same(dst[j], ref::EltwiseExact(src, j, type));
        double mag;
        const double r = ref::EltwiseSum(src, weight.data(), j, &mag);
        return test::Near(dst[j], r, mag, 1e-6, 1e-7);
    });
}

// Random inputs; a product of many factors stays in a moderate range with values near 1.
std::vector<std::vector<float>> MakeInputs(size_t count, size_t size, uint32_t seed) {
    std::vector<std::vector<float>> inputs;
    for (size_t i = 0; i < count; ++i)
        inputs.push_back(test::RandomFloats(size, -2.0f, 2.0f, seed + uint32_t(i) * 977));
    return inputs;
}

SIMD_SYNET_TARGET_SUITE(Eltwise);

TEST_P(Eltwise, AllOperations) {
    for (SimdSynetEltwiseOperationType type : kTypes) {
        for (size_t count : kCounts) {
            const std::vector<float> weight = test::RandomFloats(count, -1.5f, 1.5f, 3);
            for (size_t size : kSizes) {
                const auto inputs = MakeInputs(count, size, uint32_t(size * 13 + count));
                // Each input in its own guarded buffer so that over-reads hit the guards under
                // the sanitizer build.
                std::vector<Guarded<float>> buffers;
                std::vector<const float*> src;
                buffers.reserve(count);
                for (size_t i = 0; i < count; ++i) buffers.emplace_back(size);
                for (size_t i = 0; i < count; ++i) {
                    std::copy(inputs[i].begin(), inputs[i].end(), buffers[i].data());
                    src.push_back(buffers[i].data());
                }
                Guarded<float> dst(size, -7.0f);
                // Weight is passed only where it is read: the others must accept NULL.
                SimdSynetEltwiseLayerForward(
                    src.data(), type == SimdSynetEltwiseOperationSum ? weight.data() : nullptr,
                    count, size, type, dst.data());
                ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                EXPECT_TRUE(dst.GuardsIntact());
                for (const auto& b : buffers) EXPECT_TRUE(b.GuardsIntact());
                EXPECT_TRUE(CheckEltwise(inputs, weight, type, dst.data(), size))
                    << "type=" << type << " count=" << count << " size=" << size;
            }
        }
    }
}

// Large calls split over the thread budget: every budget gives the bits of one thread, in
// place too, with part boundaries inside vector groups and a tail.
TEST_P(Eltwise, ThreadBudgetsGiveIdenticalBits) {
    const test::ThreadBudgetGuard restore;
    const size_t size = 100003;
    for (SimdSynetEltwiseOperationType type : kTypes)
        for (size_t count : {size_t(2), size_t(3), size_t(17)}) {
            const std::vector<float> weight = test::RandomFloats(count, -1.5f, 1.5f, 3);
            const auto inputs = MakeInputs(count, size, uint32_t(count));
            std::vector<const float*> src;
            for (const auto& v : inputs) src.push_back(v.data());
            SimdSetThreadNumber(1);
            std::vector<float> one(size);
            SimdSynetEltwiseLayerForward(src.data(), weight.data(), count, size, type, one.data());
            for (size_t budget : {2, 3}) {
                SimdSetThreadNumber(budget);
                Guarded<float> dst(size, -7.0f);
                SimdSynetEltwiseLayerForward(src.data(), weight.data(), count, size, type,
                                             dst.data());
                EXPECT_EQ(0, std::memcmp(dst.data(), one.data(), size * sizeof(float)))
                    << "type=" << type << " count=" << count << " budget " << budget;
                EXPECT_TRUE(dst.GuardsIntact());
                std::vector<float> inPlace = inputs[0];
                std::vector<const float*> aliased = src;
                aliased[0] = inPlace.data();
                SimdSynetEltwiseLayerForward(aliased.data(), weight.data(), count, size, type,
                                             inPlace.data());
                EXPECT_EQ(0, std::memcmp(inPlace.data(), one.data(), size * sizeof(float)))
                    << "in place, type=" << type << " count=" << count;
            }
        }
}

// dst == src[0] and dst == src[1], the two aliasings §0.3 allows.
TEST_P(Eltwise, InPlace) {
    for (SimdSynetEltwiseOperationType type : kTypes) {
        for (size_t count : {2, 3, 5}) {
            const std::vector<float> weight = test::RandomFloats(count, -1.5f, 1.5f, 4);
            for (size_t size : {1, 17, 100, 1027}) {
                for (size_t alias : {0, 1}) {
                    const auto inputs = MakeInputs(count, size, uint32_t(size + alias));
                    std::vector<Guarded<float>> buffers;
                    std::vector<const float*> src;
                    buffers.reserve(count);
                    for (size_t i = 0; i < count; ++i) buffers.emplace_back(size);
                    for (size_t i = 0; i < count; ++i) {
                        std::copy(inputs[i].begin(), inputs[i].end(), buffers[i].data());
                        src.push_back(buffers[i].data());
                    }
                    float* dst = buffers[alias].data();
                    SimdSynetEltwiseLayerForward(src.data(), weight.data(), count, size, type, dst);
                    ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                    EXPECT_TRUE(buffers[alias].GuardsIntact());
                    EXPECT_TRUE(CheckEltwise(inputs, weight, type, dst, size))
                        << "type=" << type << " count=" << count << " size=" << size << " dst=src["
                        << alias << "]";
                }
            }
        }
    }
}

// Ties and infinities: max/min must return the accumulator-or-input exactly as §4.5 says,
// and a product must propagate ±inf and zeros bit for bit.
TEST_P(Eltwise, SpecialValues) {
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> pool = {0.0f, 1.0f,  -1.0f,  2.5f,   -2.5f, inf,
                                     -inf, 3e38f, -3e38f, 1e-40f, NAN};
    const size_t size = 131;
    for (SimdSynetEltwiseOperationType type :
         {SimdSynetEltwiseOperationProduct, SimdSynetEltwiseOperationMax,
          SimdSynetEltwiseOperationMin}) {
        for (size_t count : {2, 3, 6}) {
            std::vector<std::vector<float>> inputs(count, std::vector<float>(size));
            for (size_t i = 0; i < count; ++i)
                for (size_t j = 0; j < size; ++j)
                    inputs[i][j] = pool[(j * (i + 3) + i * 7) % pool.size()];
            std::vector<const float*> src;
            for (const auto& v : inputs) src.push_back(v.data());
            Guarded<float> dst(size);
            SimdSynetEltwiseLayerForward(src.data(), nullptr, count, size, type, dst.data());
            ASSERT_EQ(SimdSynetGetLastError(), nullptr);
            EXPECT_TRUE(CheckEltwise(inputs, {}, type, dst.data(), size))
                << "type=" << type << " count=" << count;
        }
    }
}

SIMD_SYNET_TARGET_SUITE(Shuffle);

TEST_P(Shuffle, NchwAndNhwc) {
    const size_t kChannels[] = {2, 4, 6, 8, 16, 34};
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        const bool nhwc = format == SimdTensorFormatNhwc;
        for (size_t srcC0 : kChannels) {
            for (size_t srcC1 : kChannels) {
                for (size_t spatial : {1, 3, 7, 16, 17, 49}) {
                    const size_t dstC = (srcC0 + srcC1) / 2;
                    Guarded<float> src0(srcC0 * spatial), src1(srcC1 * spatial);
                    test::FillRandom(src0.data(), src0.size(), -5.0f, 5.0f,
                                     uint32_t(srcC0 * 100 + spatial));
                    test::FillRandom(src1.data(), src1.size(), -5.0f, 5.0f,
                                     uint32_t(srcC1 * 1000 + spatial));
                    Guarded<float> dst0(dstC * spatial), dst1(dstC * spatial);
                    std::vector<float> ref0(dstC * spatial), ref1(dstC * spatial);
                    ref::Shuffle(src0.data(), srcC0, src1.data(), srcC1, spatial, ref0.data(),
                                 ref1.data(), dstC, nhwc);
                    SimdSynetShuffleLayerForward(src0.data(), srcC0, src1.data(), srcC1, spatial,
                                                 dst0.data(), dst1.data(), dstC, format);
                    ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                    EXPECT_TRUE(dst0.GuardsIntact());
                    EXPECT_TRUE(dst1.GuardsIntact());
                    EXPECT_TRUE(test::AllOf(dstC * spatial,
                                            [&](size_t i) { return Same(dst0[i], ref0[i]); }))
                        << "dst0 format=" << format << " srcC0=" << srcC0 << " srcC1=" << srcC1
                        << " spatial=" << spatial;
                    EXPECT_TRUE(test::AllOf(dstC * spatial,
                                            [&](size_t i) { return Same(dst1[i], ref1[i]); }))
                        << "dst1 format=" << format << " srcC0=" << srcC0 << " srcC1=" << srcC1
                        << " spatial=" << spatial;
                }
            }
        }
    }
}

// The ShuffleNet-v2 shape (116 + 116 channels, 28x28) and an input without channels.
// Budgets of 1-3 threads (the NHWC calls split their pixels).
TEST_P(Shuffle, ShuffleNetShapeAndEmptyInput) {
    const test::ThreadBudgetGuard restore;
    for (size_t threads : {1, 2, 3})
        for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            SimdSetThreadNumber(threads);
            const bool nhwc = format == SimdTensorFormatNhwc;
            for (size_t srcC1 : {116, 0}) {
                const size_t srcC0 = 116, spatial = 28 * 28, dstC = (srcC0 + srcC1) / 2;
                Guarded<float> src0(srcC0 * spatial), src1(srcC1 * spatial);
                test::FillRandom(src0.data(), src0.size(), -1.0f, 1.0f, 1);
                test::FillRandom(src1.data(), src1.size(), -1.0f, 1.0f, 2);
                Guarded<float> dst0(dstC * spatial), dst1(dstC * spatial);
                std::vector<float> ref0(dstC * spatial), ref1(dstC * spatial);
                ref::Shuffle(src0.data(), srcC0, src1.data(), srcC1, spatial, ref0.data(),
                             ref1.data(), dstC, nhwc);
                SimdSynetShuffleLayerForward(src0.data(), srcC0, srcC1 ? src1.data() : nullptr,
                                             srcC1, spatial, dst0.data(), dst1.data(), dstC,
                                             format);
                ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                EXPECT_TRUE(dst0.GuardsIntact() && dst1.GuardsIntact());
                EXPECT_TRUE(std::memcmp(dst0.data(), ref0.data(), ref0.size() * sizeof(float)) == 0)
                    << "format=" << format << " srcC1=" << srcC1 << " threads " << threads;
                EXPECT_TRUE(std::memcmp(dst1.data(), ref1.data(), ref1.size() * sizeof(float)) == 0)
                    << "format=" << format << " srcC1=" << srcC1 << " threads " << threads;
            }
        }
}

// A rejected call must leave dst as it was and name the function in the message.
void ExpectRejected(const float* dst, size_t n, const char* function) {
    const char* error = SimdSynetGetLastError();
    ASSERT_NE(error, nullptr);
    EXPECT_NE(std::string(error).find(function), std::string::npos) << error;
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(dst[i], 7.0f);
}

TEST(EltwiseErrors, RejectsBadArguments) {
    const char* kName = "SimdSynetEltwiseLayerForward";
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, dst[4] = {7, 7, 7, 7};
    const float weight[3] = {1, 1, 1};
    const float* src[3] = {a, b, a};
    const float* withNull[3] = {a, b, nullptr};
    SimdSynetEltwiseLayerForward(src, weight, 1, 4, SimdSynetEltwiseOperationSum, dst);
    ExpectRejected(dst, 4, kName);
    SimdSynetEltwiseLayerForward(src, weight, 0, 4, SimdSynetEltwiseOperationMax, dst);
    ExpectRejected(dst, 4, kName);
    // Unknown operation values, as a C caller can pass them. The enum's four values leave no
    // spare value a C++ caller may form (UBSan rejects the conversion), so call through the
    // C ABI with an int.
    using EltwiseWithIntType =
        void (*)(const float* const*, const float*, size_t, size_t, int, float*);
    const auto eltwiseInt = reinterpret_cast<EltwiseWithIntType>(&SimdSynetEltwiseLayerForward);
    for (int type : {4, -1, 1000}) {
        eltwiseInt(src, weight, 2, 4, type, dst);
        ExpectRejected(dst, 4, kName);
    }
    SimdSynetEltwiseLayerForward(nullptr, weight, 2, 4, SimdSynetEltwiseOperationSum, dst);
    ExpectRejected(dst, 4, kName);
    SimdSynetEltwiseLayerForward(src, nullptr, 2, 4, SimdSynetEltwiseOperationSum, dst);
    ExpectRejected(dst, 4, kName);
    SimdSynetEltwiseLayerForward(withNull, weight, 3, 4, SimdSynetEltwiseOperationProduct, dst);
    ExpectRejected(dst, 4, kName);
    SimdSynetEltwiseLayerForward(src, weight, 2, SIZE_MAX / 2, SimdSynetEltwiseOperationMin, dst);
    ExpectRejected(dst, 4, kName);
    SimdSynetEltwiseLayerForward(src, weight, 2, 4, SimdSynetEltwiseOperationMax, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);

    // Zero size is a valid no-op, pointers are not looked at.
    SimdSynetEltwiseLayerForward(nullptr, nullptr, 2, 0, SimdSynetEltwiseOperationSum, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    // weight is not needed outside Sum.
    SimdSynetEltwiseLayerForward(src, nullptr, 2, 4, SimdSynetEltwiseOperationMax, dst);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 5.0f);
}

TEST(ShuffleErrors, RejectsBadArguments) {
    const char* kName = "SimdSynetShuffleLayerForward";
    float a[8] = {}, b[8] = {}, d0[8], d1[8];
    auto reset = [&] {
        for (size_t i = 0; i < 8; ++i) d0[i] = d1[i] = 7.0f;
    };
    auto rejected = [&] {
        ExpectRejected(d0, 8, kName);
        ExpectRejected(d1, 8, kName);
    };
    for (SimdTensorFormatType format :
         {SimdTensorFormatUnknown, SimdTensorFormatNchw4c, SimdTensorFormatNchw8c,
          SimdTensorFormatNchw16c, SimdTensorFormatNchwXc, SimdTensorFormatOiyx,
          SimdTensorFormatType(15)}) {
        reset();
        SimdSynetShuffleLayerForward(a, 2, b, 2, 4, d0, d1, 2, format);
        rejected();
    }
    reset();
    SimdSynetShuffleLayerForward(a, 3, b, 1, 2, d0, d1, 2, SimdTensorFormatNchw);  // odd
    rejected();
    SimdSynetShuffleLayerForward(a, 2, b, 3, 2, d0, d1, 2, SimdTensorFormatNhwc);  // odd
    rejected();
    SimdSynetShuffleLayerForward(a, 2, b, 2, 4, d0, d1, 3, SimdTensorFormatNchw);  // dstC
    rejected();
    SimdSynetShuffleLayerForward(a, 2, b, 2, 4, d0, d1, 1, SimdTensorFormatNhwc);  // dstC
    rejected();
    SimdSynetShuffleLayerForward(a, SIZE_MAX - 1, b, 2, 4, d0, d1, 0, SimdTensorFormatNchw);
    rejected();
    // (2^62 - 2 + 2) * 4 pixels * 4 bytes overflows.
    SimdSynetShuffleLayerForward(a, SIZE_MAX / 4 - 1, b, 2, 4, d0, d1, SIZE_MAX / 8 + 1,
                                 SimdTensorFormatNchw);
    rejected();
    SimdSynetShuffleLayerForward(nullptr, 2, b, 2, 4, d0, d1, 2, SimdTensorFormatNchw);
    rejected();
    SimdSynetShuffleLayerForward(a, 2, nullptr, 2, 4, d0, d1, 2, SimdTensorFormatNhwc);
    rejected();
    SimdSynetShuffleLayerForward(a, 2, b, 2, 4, nullptr, d1, 2, SimdTensorFormatNchw);
    ExpectRejected(d1, 8, kName);
    SimdSynetShuffleLayerForward(a, 2, b, 2, 4, d0, nullptr, 2, SimdTensorFormatNchw);
    ExpectRejected(d0, 8, kName);

    // Zero spatial is a valid no-op, pointers are not looked at.
    SimdSynetShuffleLayerForward(nullptr, 2, nullptr, 2, 0, nullptr, nullptr, 2,
                                 SimdTensorFormatNhwc);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

// ---- Concat (SimdSynetConcatLayerForward): plain copies, no per-target kernel.

// Sources of the given sizes and `outer` rows, with NaN payloads, signed zeros and infinities
// among the values: the copy must keep their bits.
std::vector<std::vector<float>> ConcatSources(const std::vector<size_t>& size, size_t outer,
                                              uint32_t seed) {
    std::vector<std::vector<float>> src;
    for (size_t i = 0; i < size.size(); ++i) {
        std::vector<float> v = test::RandomFloats(outer * size[i], -3.0f, 3.0f, seed + 31 * i);
        const uint32_t specials[] = {0x7FC01234u, 0xFFA00001u, 0x80000000u, 0x7F800000u};
        for (size_t j = 0; j < v.size(); j += 7) std::memcpy(&v[j], &specials[j % 4], 4);
        src.push_back(v);
    }
    return src;
}

::testing::AssertionResult RunConcat(const std::vector<size_t>& size, size_t outer, uint32_t seed) {
    const std::vector<std::vector<float>> src = ConcatSources(size, outer, seed);
    std::vector<const float*> pointers;
    for (const auto& v : src) pointers.push_back(v.empty() ? nullptr : v.data());
    const std::vector<float> expected = ref::Concat(src, size, outer);
    Guarded<float> dst(expected.size(), -7.0f);
    SimdSynetConcatLayerForward(size.size(), pointers.data(), size.data(), outer, dst.data());
    if (SimdSynetGetLastError()) return ::testing::AssertionFailure() << SimdSynetGetLastError();
    if (!dst.GuardsIntact()) return ::testing::AssertionFailure() << "guard zone overwritten";
    if (std::memcmp(dst.data(), expected.data(), expected.size() * sizeof(float)) != 0)
        return ::testing::AssertionFailure() << "bits differ";
    return ::testing::AssertionSuccess();
}

std::string ConcatCase(const std::vector<size_t>& size, size_t outer) {
    std::string text = "outer " + std::to_string(outer) + " sizes";
    for (size_t n : size) text += " " + std::to_string(n);
    return text;
}

// One to five sources of tail sizes (an empty one included, given as NULL), one row to many.
TEST(Concat, RowsOfEverySize) {
    const std::vector<std::vector<size_t>> sizes = {
        {1}, {17}, {3, 7}, {8, 0, 15}, {16, 17, 33, 1}, {64, 1, 3, 7, 8}, {0, 33}};
    uint32_t seed = 10;
    for (const auto& size : sizes)
        for (size_t outer : {1, 3, 17, 1000})
            EXPECT_TRUE(RunConcat(size, outer, seed++)) << ConcatCase(size, outer);
}

// Large calls split over the thread budget, at row boundaries and inside rows (one NCHW image
// is a single row): every budget gives the reference bits.
TEST(Concat, ThreadBudgetsGiveTheSameBits) {
    const test::ThreadBudgetGuard restore;
    const std::vector<std::pair<std::vector<size_t>, size_t>> cases = {
        {{64, 33, 128}, 4099}, {{96 * 55 * 55, 64 * 55 * 55}, 1}, {{5, 3}, 40000}};
    uint32_t seed = 100;
    for (const auto& c : cases)
        for (size_t threads : {1, 2, 3}) {
            SimdSetThreadNumber(threads);
            EXPECT_TRUE(RunConcat(c.first, c.second, seed++))
                << ConcatCase(c.first, c.second) << " threads " << threads;
        }
}

TEST(ConcatErrors, RejectsBadArguments) {
    const char* kName = "SimdSynetConcatLayerForward";
    float a[8] = {}, b[8] = {}, d[16];
    const float* both[2] = {a, b};
    const float* second[2] = {a, nullptr};
    const size_t sizes[2] = {2, 2}, huge[2] = {SIZE_MAX, 2}, big[2] = {SIZE_MAX / 8, 2};
    auto reset = [&] {
        for (float& v : d) v = 7.0f;
    };
    reset();
    SimdSynetConcatLayerForward(0, both, sizes, 4, d);
    ExpectRejected(d, 16, kName);
    SimdSynetConcatLayerForward(2, nullptr, sizes, 4, d);
    ExpectRejected(d, 16, kName);
    SimdSynetConcatLayerForward(2, both, nullptr, 4, d);
    ExpectRejected(d, 16, kName);
    SimdSynetConcatLayerForward(2, both, sizes, 4, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConcatLayerForward(2, second, sizes, 4, d);
    ExpectRejected(d, 16, kName);
    SimdSynetConcatLayerForward(2, both, huge, 4, d);  // the sum overflows
    ExpectRejected(d, 16, kName);
    SimdSynetConcatLayerForward(2, both, big, 4, d);  // outer * sum * 4 bytes overflows
    ExpectRejected(d, 16, kName);

    // Zero rows or zero sizes are valid no-ops: nothing is read or written.
    const size_t zeros[2] = {0, 0};
    SimdSynetConcatLayerForward(2, both, sizes, 0, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetConcatLayerForward(2, second, zeros, 4, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

}  // namespace
