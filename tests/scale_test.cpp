// Tests of the per-channel layers (AddBias, ScaleLayer, FusedLayer 0/1/2/3/4/8/9) on every
// compiled and supported Highway target, in every layout they accept.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "reference/Scale.h"

namespace {

using test::Guarded;

// 200 pixels give NCHW planes several groups of the main loop even with AVX-512; 16, 32 and 64
// are planes of exactly 2 or 4 vectors on some target (NchwShortPlanes).
const size_t kSpatial[] = {1, 5, 16, 32, 49, 64, 200};

std::string Case(SimdTensorFormatType format, size_t channels, size_t spatial) {
    return "format=" + std::to_string(int(format)) + " channels=" + std::to_string(channels) +
           " spatial=" + std::to_string(spatial);
}

// Every element of dst against the reference, LIN tolerance.
::testing::AssertionResult MatchesLin(const float* dst, const std::vector<ref::Lin>& expected) {
    return test::AllOf(expected.size(), [&](size_t i) {
        return test::Near(dst[i], expected[i].value, expected[i].magnitude, 1e-6, 1e-7);
    });
}

// Bit equality (pure data movement).
::testing::AssertionResult MatchesExactly(const float* dst, const std::vector<float>& expected) {
    return test::AllOf(expected.size(), [&](size_t i) {
        if (std::memcmp(&dst[i], &expected[i], sizeof(float)) == 0)
            return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << dst[i] << " instead of " << expected[i];
    });
}

// Random inputs of one (format, channels, spatial) case: a tensor and three parameter arrays.
struct Data {
    size_t aligned, size;
    Guarded<float> src, src1, p0, p1, p2;
    Data(SimdTensorFormatType format, size_t channels, size_t spatial, uint32_t seed)
        : aligned(ref::Aligned(format, channels)), size(aligned * spatial) {
        src.Resize(size);
        src1.Resize(size);
        p0.Resize(aligned);
        p1.Resize(aligned);
        p2.Resize(aligned);
        test::FillRandom(src.data(), size, -3.0f, 3.0f, seed);
        test::FillRandom(src1.data(), size, -3.0f, 3.0f, seed + 1);
        // NaN must come out wherever it goes in, max(0, x) included (SimdSynet.h): one in the
        // middle and one in the last (SIMD tail) element.
        if (size > 2) src[size / 2] = src[size - 1] = NAN;
        test::FillRandom(p0.data(), aligned, -2.0f, 2.0f, seed + 2);
        test::FillRandom(p1.data(), aligned, -2.0f, 2.0f, seed + 3);
        test::FillRandom(p2.data(), aligned, -2.0f, 2.0f, seed + 4);
    }
};

// Runs check(format, channels, spatial, data) over every layout, tail channel count and size.
template <class Check>
void ForEachCase(Check check) {
    // Tail counts, plus NHWC periods of 2, 3 and 4 vectors (24, 32, 48, 64 channels) and a
    // long period made of whole groups of 4 vectors (128).
    std::vector<size_t> counts = test::TailChannels();
    counts.insert(counts.end(), {24, 32, 48, 64, 128});
    for (SimdTensorFormatType format : test::ImageFormats())
        for (size_t channels : counts)
            for (size_t spatial : kSpatial) {
                Data data(format, channels, spatial,
                          uint32_t(channels * 131 + spatial * 7 + format));
                check(format, channels, spatial, data);
            }
}

// A one-input layer out of place and in place: run(src, dst) must produce `expected`.
template <class Run>
void CheckOutOfPlaceAndInPlace(const std::string& name, Data& data,
                               const std::vector<ref::Lin>& expected, Run run) {
    const std::vector<float> input = data.src.Vector();
    Guarded<float> dst(data.size);
    run(data.src.data(), dst.data());
    ASSERT_EQ(SimdSynetGetLastError(), nullptr) << name;
    EXPECT_TRUE(dst.GuardsIntact()) << name;
    EXPECT_TRUE(MatchesLin(dst.data(), expected)) << name;
    EXPECT_TRUE(MatchesExactly(data.src.data(), input)) << name << ": input modified";

    Guarded<float> buffer(data.size);
    std::copy(input.begin(), input.end(), buffer.data());
    run(buffer.data(), buffer.data());
    ASSERT_EQ(SimdSynetGetLastError(), nullptr) << name << " in place";
    EXPECT_TRUE(buffer.GuardsIntact()) << name << " in place";
    EXPECT_TRUE(MatchesLin(buffer.data(), expected)) << name << " in place";
}

SIMD_SYNET_TARGET_SUITE(Scale);

TEST_P(Scale, AddBias) {
    ForEachCase([](SimdTensorFormatType format, size_t C, size_t S, Data& d) {
        const auto expected = ref::AddBias(d.p0.data(), C, S, d.src.data(), format);
        SimdSynetAddBias(d.p0.data(), C, S, d.src.data(), format);
        ASSERT_EQ(SimdSynetGetLastError(), nullptr) << Case(format, C, S);
        EXPECT_TRUE(d.src.GuardsIntact()) << Case(format, C, S);
        EXPECT_TRUE(MatchesLin(d.src.data(), expected)) << Case(format, C, S);
    });
}

TEST_P(Scale, ScaleLayerWithBias) {
    ForEachCase([](SimdTensorFormatType format, size_t C, size_t S, Data& d) {
        const auto expected = ref::ScaleLayer(d.src.data(), d.p0.data(), d.p1.data(), C, S, format);
        CheckOutOfPlaceAndInPlace(Case(format, C, S), d, expected, [&](const float* s, float* o) {
            SimdSynetScaleLayerForward(s, d.p0.data(), d.p1.data(), C, S, o, format);
        });
    });
}

// Large calls split over the thread budget (NHWC by pixels, the channel-major layouts by
// channels or channel blocks, one NCHW channel by pixels): every budget gives the bits of one
// thread.
TEST_P(Scale, ThreadBudgetsGiveIdenticalBits) {
    const test::ThreadBudgetGuard restore;
    for (SimdTensorFormatType format : test::ImageFormats())
        for (const test::ChannelsSpatial& sh : test::SplitShapes()) {
            const size_t C = sh.channels, S = sh.spatial;
            const size_t aligned = SimdAlign(C, SimdSynetTensorAlignment(format)), n = aligned * S;
            const std::vector<float> src = test::RandomFloats(n, -3.0f, 3.0f, uint32_t(n));
            const std::vector<float> scale = test::RandomFloats(aligned, -2.0f, 2.0f, 5);
            const std::vector<float> bias = test::RandomFloats(aligned, -1.0f, 1.0f, 6);
            for (int function = 0; function < 3; ++function) {
                auto run = [&](float* dst) {
                    if (function == 2) {
                        std::copy(src.begin(), src.end(), dst);
                        SimdSynetAddBias(bias.data(), C, S, dst, format);
                    } else {
                        SimdSynetScaleLayerForward(src.data(), scale.data(),
                                                   function ? bias.data() : nullptr, C, S, dst,
                                                   format);
                    }
                };
                SimdSetThreadNumber(1);
                std::vector<float> one(n);
                run(one.data());
                for (size_t budget : {2, 3}) {
                    SimdSetThreadNumber(budget);
                    Guarded<float> dst(n);
                    run(dst.data());
                    EXPECT_EQ(0, std::memcmp(dst.data(), one.data(), n * sizeof(float)))
                        << Case(format, C, S) << " function " << function << " budget " << budget;
                    EXPECT_TRUE(dst.GuardsIntact());
                }
            }
        }
}

// The fused layers split the same way, Fused4 and Fused9 (other output shapes) included: every
// budget gives the bits of one thread.
TEST_P(Scale, FusedLayersThreadBudgetsGiveIdenticalBits) {
    const test::ThreadBudgetGuard restore;
    for (SimdTensorFormatType format : test::ImageFormats())
        for (const test::ChannelsSpatial& sh : test::SplitShapes()) {
            const size_t C = sh.channels, S = sh.spatial;
            const size_t block = SimdSynetTensorAlignment(format);
            const size_t aligned = SimdAlign(C, block), n = aligned * S;
            // Fused9: channels0 a multiple of the block, the rest from src1.
            const size_t C0 = C / 2 / block * block, C1 = C - C0;
            const std::vector<float> src = test::RandomFloats(n, -3.0f, 3.0f, uint32_t(n));
            const std::vector<float> src1 = test::RandomFloats(n, -3.0f, 3.0f, uint32_t(n + 1));
            const std::vector<float> p0 = test::RandomFloats(aligned, -2.0f, 2.0f, 5);
            const std::vector<float> p1 = test::RandomFloats(aligned, -1.0f, 1.0f, 6);
            const std::vector<float> p2 = test::RandomFloats(aligned, -1.0f, 1.0f, 7);
            const float slope = 0.25f, scale1 = 1.5f, bias1 = -0.5f;
            const bool fused4 = C % block == 0;
            for (int function = 0; function < 8; ++function) {
                if (function == 6 && !fused4) continue;
                const size_t outSize = function == 6 ? 2 * n : n;
                auto run = [&](float* dst, float* dst1) {
                    switch (function) {
                        case 0:
                            SimdSynetFusedLayerForward0(src.data(), p0.data(), p1.data(), C, S, dst,
                                                        format);
                            break;
                        case 1:
                            SimdSynetFusedLayerForward1(src.data(), p0.data(), p1.data(), p2.data(),
                                                        C, S, dst, format);
                            break;
                        case 2:
                            SimdSynetFusedLayerForward2(src.data(), p0.data(), p1.data(), C, S,
                                                        &slope, dst, format);
                            break;
                        case 3:
                            SimdSynetFusedLayerForward3(src.data(), p0.data(), p1.data(), C, S, dst,
                                                        format);
                            break;
                        case 4:
                            SimdSynetFusedLayerForward8(src.data(), src1.data(), p0.data(), C, S,
                                                        dst, format);
                            break;
                        case 5:
                            SimdSynetFusedLayerForward9(C0 ? src.data() : nullptr, src1.data(),
                                                        p0.data(), p1.data(), C0, C1, S, dst,
                                                        nullptr, format);
                            break;
                        case 6:
                            SimdSynetFusedLayerForward4(src.data(), p0.data(), &scale1, &bias1, C,
                                                        S, dst, format);
                            break;
                        default:
                            SimdSynetFusedLayerForward9(C0 ? src.data() : nullptr, src1.data(),
                                                        p0.data(), p1.data(), C0, C1, S, dst, dst1,
                                                        format);
                            break;
                    }
                };
                SimdSetThreadNumber(1);
                std::vector<float> one(outSize, 0.0f), oneSecond(outSize, 0.0f);
                run(one.data(), oneSecond.data());
                ASSERT_EQ(SimdSynetGetLastError(), nullptr)
                    << Case(format, C, S) << " function " << function;
                for (size_t budget : {2, 3}) {
                    SimdSetThreadNumber(budget);
                    Guarded<float> dst(outSize, 0.0f), second(outSize, 0.0f);
                    run(dst.data(), second.data());
                    EXPECT_EQ(0, std::memcmp(dst.data(), one.data(), outSize * sizeof(float)))
                        << Case(format, C, S) << " function " << function << " budget " << budget;
                    EXPECT_EQ(0,
                              std::memcmp(second.data(), oneSecond.data(), outSize * sizeof(float)))
                        << Case(format, C, S) << " function " << function << " budget " << budget;
                    EXPECT_TRUE(dst.GuardsIntact() && second.GuardsIntact());
                }
            }
        }
}

// Without a bias the result is the FP32 product itself, signed zeros included.
TEST_P(Scale, ScaleLayerWithoutBias) {
    ForEachCase([](SimdTensorFormatType format, size_t C, size_t S, Data& d) {
        // Zeros of both signs in the input and the scale: +0*(-s) must stay -0.
        for (size_t i = 0; i < d.size; i += 3) d.src[i] = (i / 3) % 2 ? 0.0f : -0.0f;
        d.p0[0] = 0.0f;
        std::vector<float> expected(d.size);
        for (size_t c = 0; c < d.aligned; ++c)
            for (size_t s = 0; s < S; ++s) {
                const size_t o = ref::ImageOffset(format, C, S, c, s);
                expected[o] = d.src[o] * d.p0[c];
            }
        Guarded<float> dst(d.size);
        SimdSynetScaleLayerForward(d.src.data(), d.p0.data(), nullptr, C, S, dst.data(), format);
        ASSERT_EQ(SimdSynetGetLastError(), nullptr) << Case(format, C, S);
        EXPECT_TRUE(dst.GuardsIntact()) << Case(format, C, S);
        EXPECT_TRUE(MatchesExactly(dst.data(), expected)) << Case(format, C, S);
        SimdSynetScaleLayerForward(d.src.data(), d.p0.data(), nullptr, C, S, d.src.data(), format);
        EXPECT_TRUE(MatchesExactly(d.src.data(), expected)) << Case(format, C, S) << " in place";
    });
}

TEST_P(Scale, FusedLayer0) {
    ForEachCase([](SimdTensorFormatType format, size_t C, size_t S, Data& d) {
        const auto expected = ref::Fused0(d.src.data(), d.p0.data(), d.p1.data(), C, S, format);
        CheckOutOfPlaceAndInPlace(Case(format, C, S), d, expected, [&](const float* s, float* o) {
            SimdSynetFusedLayerForward0(s, d.p0.data(), d.p1.data(), C, S, o, format);
        });
    });
}

TEST_P(Scale, FusedLayer1) {
    ForEachCase([](SimdTensorFormatType format, size_t C, size_t S, Data& d) {
        const auto expected =
            ref::Fused1(d.src.data(), d.p0.data(), d.p1.data(), d.p2.data(), C, S, format);
        CheckOutOfPlaceAndInPlace(Case(format, C, S), d, expected, [&](const float* s, float* o) {
            SimdSynetFusedLayerForward1(s, d.p0.data(), d.p1.data(), d.p2.data(), C, S, o, format);
        });
    });
}

TEST_P(Scale, FusedLayer2) {
    for (float slope : {0.0f, 0.1f, -1.5f}) {
        ForEachCase([slope](SimdTensorFormatType format, size_t C, size_t S, Data& d) {
            const auto expected =
                ref::Fused2(d.src.data(), d.p0.data(), d.p1.data(), C, S, slope, format);
            CheckOutOfPlaceAndInPlace(Case(format, C, S) + " slope=" + std::to_string(slope), d,
                                      expected, [&](const float* s, float* o) {
                                          SimdSynetFusedLayerForward2(s, d.p0.data(), d.p1.data(),
                                                                      C, S, &slope, o, format);
                                      });
        });
    }
}

// The second argument is added first, the third is the negative-side slope (§16.1); positive
// biases and small slopes make the two roles distinguishable.
TEST_P(Scale, FusedLayer3) {
    ForEachCase([](SimdTensorFormatType format, size_t C, size_t S, Data& d) {
        test::FillRandom(d.p0.data(), d.aligned, 0.5f, 2.0f, uint32_t(C + S));
        test::FillRandom(d.p1.data(), d.aligned, 0.01f, 0.3f, uint32_t(C * S));
        const auto expected = ref::Fused3(d.src.data(), d.p0.data(), d.p1.data(), C, S, format);
        CheckOutOfPlaceAndInPlace(Case(format, C, S), d, expected, [&](const float* s, float* o) {
            SimdSynetFusedLayerForward3(s, d.p0.data(), d.p1.data(), C, S, o, format);
        });
    });
}

TEST_P(Scale, FusedLayer8) {
    ForEachCase([](SimdTensorFormatType format, size_t C, size_t S, Data& d) {
        const auto expected = ref::Fused8(d.src.data(), d.src1.data(), d.p0.data(), C, S, format);
        const std::vector<float> src1 = d.src1.Vector();
        CheckOutOfPlaceAndInPlace(Case(format, C, S), d, expected, [&](const float* s, float* o) {
            SimdSynetFusedLayerForward8(s, d.src1.data(), d.p0.data(), C, S, o, format);
        });
        EXPECT_TRUE(MatchesExactly(d.src1.data(), src1)) << Case(format, C, S);
    });
}

TEST_P(Scale, FusedLayer4) {
    for (SimdTensorFormatType format : test::ImageFormats()) {
        const size_t block = SimdSynetTensorAlignment(format);
        std::vector<size_t> counts = test::TailChannels();
        counts.push_back(32);
        counts.push_back(48);
        for (size_t C : counts) {
            if (C % block != 0) continue;  // rejected; see Scale.Errors
            for (size_t S : kSpatial) {
                Data d(format, C, S, uint32_t(C * 17 + S));
                for (float scale1 : {-0.5f, 1.25f}) {
                    const float bias1 = 0.75f;
                    const auto expected =
                        ref::Fused4(d.src.data(), d.p0.data(), scale1, bias1, C, S, format);
                    Guarded<float> dst(2 * d.size);
                    SimdSynetFusedLayerForward4(d.src.data(), d.p0.data(), &scale1, &bias1, C, S,
                                                dst.data(), format);
                    ASSERT_EQ(SimdSynetGetLastError(), nullptr) << Case(format, C, S);
                    EXPECT_TRUE(dst.GuardsIntact()) << Case(format, C, S);
                    EXPECT_TRUE(MatchesLin(dst.data(), expected)) << Case(format, C, S);
                }
            }
        }
    }
}

TEST_P(Scale, FusedLayer9) {
    for (SimdTensorFormatType format : test::ImageFormats()) {
        const size_t block = SimdSynetTensorAlignment(format);
        // channels0 must be a multiple of the block; channels1 is free.
        std::vector<size_t> counts0, counts1 = test::TailChannels();
        counts1.push_back(0);
        if (block == 1)
            counts0 = {0, 1, 3, 8, 17};
        else
            counts0 = {0, block, 2 * block};
        for (size_t C0 : counts0)
            for (size_t C1 : counts1) {
                if (C0 + C1 == 0) continue;
                for (size_t S : {size_t(1), size_t(7), size_t(49), size_t(200)}) {
                    const std::string name =
                        Case(format, C0, S) + " channels1=" + std::to_string(C1);
                    const size_t CT = C0 + C1, CA = ref::Aligned(format, CT);
                    Guarded<float> src0(ref::Aligned(format, C0) * S),
                        src1(ref::Aligned(format, C1) * S), scale(CA), bias(CA);
                    test::FillRandom(src0.data(), src0.size(), -3.0f, 3.0f, uint32_t(C0 + S));
                    test::FillRandom(src1.data(), src1.size(), -3.0f, 3.0f, uint32_t(C1 * 3 + S));
                    if (src0.size() > 1) src0[src0.size() - 1] = NAN;
                    test::FillRandom(scale.data(), CA, -2.0f, 2.0f, uint32_t(CT));
                    test::FillRandom(bias.data(), CA, -2.0f, 2.0f, uint32_t(CT + 1));
                    std::vector<float> copy;
                    const auto expected = ref::Fused9(src0.data(), src1.data(), scale.data(),
                                                      bias.data(), C0, C1, S, format, &copy);
                    Guarded<float> dst0(CA * S), dst1(CA * S);
                    // An input without channels is never read and may be NULL.
                    const float* in0 = C0 ? src0.data() : nullptr;
                    const float* in1 = C1 ? src1.data() : nullptr;
                    SimdSynetFusedLayerForward9(in0, in1, scale.data(), bias.data(), C0, C1, S,
                                                dst0.data(), dst1.data(), format);
                    ASSERT_EQ(SimdSynetGetLastError(), nullptr) << name;
                    EXPECT_TRUE(dst0.GuardsIntact() && dst1.GuardsIntact()) << name;
                    EXPECT_TRUE(MatchesLin(dst0.data(), expected)) << name;
                    EXPECT_TRUE(MatchesExactly(dst1.data(), copy)) << name;
                    // Without the copy.
                    Guarded<float> only(CA * S);
                    SimdSynetFusedLayerForward9(src0.data(), src1.data(), scale.data(), bias.data(),
                                                C0, C1, S, only.data(), nullptr, format);
                    ASSERT_EQ(SimdSynetGetLastError(), nullptr) << name << " dst1=NULL";
                    EXPECT_TRUE(only.GuardsIntact()) << name << " dst1=NULL";
                    EXPECT_TRUE(MatchesLin(only.data(), expected)) << name << " dst1=NULL";
                }
            }
    }
}

// NCHW with one pixel and NHWC with one channel are the same memory (§2.3).
TEST_P(Scale, EquivalentLayouts) {
    for (auto [C, S] : {std::pair<size_t, size_t>{33, 1}, {1, 33}}) {
        Data d(SimdTensorFormatNchw, C, S, 99);
        Guarded<float> a(d.size), b(d.size);
        SimdSynetScaleLayerForward(d.src.data(), d.p0.data(), d.p1.data(), C, S, a.data(),
                                   SimdTensorFormatNchw);
        SimdSynetScaleLayerForward(d.src.data(), d.p0.data(), d.p1.data(), C, S, b.data(),
                                   SimdTensorFormatNhwc);
        EXPECT_TRUE(MatchesExactly(a.data(), b.Vector()));
    }
}

// ----------------------------------------------------------------------------------------------
// Rejected calls: an error naming the function, nothing written.

const float kSentinel = 7.0f;

struct ErrorBuffers {
    float src[64], src1[64], p0[64], p1[64], p2[64], dst[128], dst1[128];
    ErrorBuffers() {
        for (float& v : src) v = 1.0f;
        for (float& v : src1) v = 1.0f;
        for (float& v : p0) v = 0.5f;
        for (float& v : p1) v = 0.5f;
        for (float& v : p2) v = 0.5f;
        Reset();
    }
    void Reset() {
        for (float& v : dst) v = kSentinel;
        for (float& v : dst1) v = kSentinel;
    }
    bool Untouched() const {
        for (float v : dst)
            if (v != kSentinel) return false;
        for (float v : dst1)
            if (v != kSentinel) return false;
        return true;
    }
};

// The call `call` must fail with a message naming `function` and write nothing.
template <class Call>
void ExpectRejected(const char* function, const std::string& what, ErrorBuffers& b, Call call) {
    b.Reset();
    call();
    const char* error = SimdSynetGetLastError();
    ASSERT_NE(error, nullptr) << function << ": " << what;
    EXPECT_NE(std::string(error).find(function), std::string::npos) << error;
    EXPECT_TRUE(b.Untouched()) << function << ": " << what;
}

TEST(ScaleErrors, NullPointers) {
    ErrorBuffers b;
    const auto F = SimdTensorFormatNchw;
    ExpectRejected("SimdSynetAddBias", "bias", b,
                   [&] { SimdSynetAddBias(nullptr, 4, 4, b.dst, F); });
    ExpectRejected("SimdSynetScaleLayerForward", "src", b,
                   [&] { SimdSynetScaleLayerForward(nullptr, b.p0, b.p1, 4, 4, b.dst, F); });
    ExpectRejected("SimdSynetScaleLayerForward", "scale", b,
                   [&] { SimdSynetScaleLayerForward(b.src, nullptr, b.p1, 4, 4, b.dst, F); });
    ExpectRejected("SimdSynetFusedLayerForward0", "scale", b,
                   [&] { SimdSynetFusedLayerForward0(b.src, b.p0, nullptr, 4, 4, b.dst, F); });
    ExpectRejected("SimdSynetFusedLayerForward1", "bias1", b, [&] {
        SimdSynetFusedLayerForward1(b.src, b.p0, b.p1, nullptr, 4, 4, b.dst, F);
    });
    ExpectRejected("SimdSynetFusedLayerForward2", "slope", b, [&] {
        SimdSynetFusedLayerForward2(b.src, b.p0, b.p1, 4, 4, nullptr, b.dst, F);
    });
    ExpectRejected("SimdSynetFusedLayerForward3", "bias", b,
                   [&] { SimdSynetFusedLayerForward3(b.src, b.p0, nullptr, 4, 4, b.dst, F); });
    ExpectRejected("SimdSynetFusedLayerForward4", "scale1", b, [&] {
        SimdSynetFusedLayerForward4(b.src, b.p0, nullptr, b.p2, 4, 4, b.dst, F);
    });
    ExpectRejected("SimdSynetFusedLayerForward8", "src1", b,
                   [&] { SimdSynetFusedLayerForward8(b.src, nullptr, b.p0, 4, 4, b.dst, F); });
    ExpectRejected("SimdSynetFusedLayerForward9", "src1", b, [&] {
        SimdSynetFusedLayerForward9(b.src, nullptr, b.p0, b.p1, 2, 2, 4, b.dst, b.dst1, F);
    });
    ExpectRejected("SimdSynetFusedLayerForward9", "dst0", b, [&] {
        SimdSynetFusedLayerForward9(b.src, b.src1, b.p0, b.p1, 2, 2, 4, nullptr, b.dst1, F);
    });
}

TEST(ScaleErrors, UnsupportedFormats) {
    ErrorBuffers b;
    // 13 is no enumerator but lies in the enum's value range (a larger value would be UB to
    // form in C++, which the sanitizer build reports).
    for (SimdTensorFormatType F :
         {SimdTensorFormatNchwXc, SimdTensorFormatOiyx, SimdTensorFormatOyxi8o,
          SimdTensorFormatUnknown, SimdTensorFormatType(13)}) {
        const std::string what = "format " + std::to_string(int(F));
        ExpectRejected("SimdSynetAddBias", what, b,
                       [&] { SimdSynetAddBias(b.p0, 4, 4, b.dst, F); });
        ExpectRejected("SimdSynetScaleLayerForward", what, b,
                       [&] { SimdSynetScaleLayerForward(b.src, b.p0, nullptr, 4, 4, b.dst, F); });
        ExpectRejected("SimdSynetFusedLayerForward0", what, b,
                       [&] { SimdSynetFusedLayerForward0(b.src, b.p0, b.p1, 4, 4, b.dst, F); });
        ExpectRejected("SimdSynetFusedLayerForward1", what, b, [&] {
            SimdSynetFusedLayerForward1(b.src, b.p0, b.p1, b.p2, 4, 4, b.dst, F);
        });
        ExpectRejected("SimdSynetFusedLayerForward2", what, b, [&] {
            SimdSynetFusedLayerForward2(b.src, b.p0, b.p1, 4, 4, b.p2, b.dst, F);
        });
        ExpectRejected("SimdSynetFusedLayerForward3", what, b,
                       [&] { SimdSynetFusedLayerForward3(b.src, b.p0, b.p1, 4, 4, b.dst, F); });
        ExpectRejected("SimdSynetFusedLayerForward4", what, b, [&] {
            SimdSynetFusedLayerForward4(b.src, b.p0, b.p1, b.p2, 4, 4, b.dst, F);
        });
        ExpectRejected("SimdSynetFusedLayerForward8", what, b,
                       [&] { SimdSynetFusedLayerForward8(b.src, b.src1, b.p0, 4, 4, b.dst, F); });
        ExpectRejected("SimdSynetFusedLayerForward9", what, b, [&] {
            SimdSynetFusedLayerForward9(b.src, b.src1, b.p0, b.p1, 4, 4, 4, b.dst, b.dst1, F);
        });
    }
}

// Fused4 needs channels, Fused9 channels0, to be a multiple of the block of a blocked format.
TEST(ScaleErrors, BlockedChannelCounts) {
    ErrorBuffers b;
    for (SimdTensorFormatType F :
         {SimdTensorFormatNchw4c, SimdTensorFormatNchw8c, SimdTensorFormatNchw16c}) {
        const std::string what = "format " + std::to_string(int(F));
        ExpectRejected("SimdSynetFusedLayerForward4", what, b, [&] {
            SimdSynetFusedLayerForward4(b.src, b.p0, b.p1, b.p2, 3, 2, b.dst, F);
        });
        ExpectRejected("SimdSynetFusedLayerForward9", what, b, [&] {
            SimdSynetFusedLayerForward9(b.src, b.src1, b.p0, b.p1, 2, 2, 2, b.dst, b.dst1, F);
        });
    }
    // Accepted: a multiple of the block (Fused4) and channels1 not a multiple (Fused9).
    b.Reset();
    SimdSynetFusedLayerForward4(b.src, b.p0, b.p1, b.p2, 8, 2, b.dst, SimdTensorFormatNchw8c);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetFusedLayerForward9(b.src, b.src1, b.p0, b.p1, 4, 3, 2, b.dst, b.dst1,
                                SimdTensorFormatNchw4c);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

TEST(ScaleErrors, Overflow) {
    ErrorBuffers b;
    const auto F = SimdTensorFormatNhwc;
    const size_t huge = SIZE_MAX / 2;
    ExpectRejected("SimdSynetAddBias", "overflow", b,
                   [&] { SimdSynetAddBias(b.p0, huge, 4, b.dst, F); });
    ExpectRejected("SimdSynetScaleLayerForward", "overflow", b,
                   [&] { SimdSynetScaleLayerForward(b.src, b.p0, b.p1, 4, huge, b.dst, F); });
    ExpectRejected("SimdSynetFusedLayerForward0", "overflow", b,
                   [&] { SimdSynetFusedLayerForward0(b.src, b.p0, b.p1, huge, huge, b.dst, F); });
    ExpectRejected("SimdSynetFusedLayerForward1", "overflow", b, [&] {
        SimdSynetFusedLayerForward1(b.src, b.p0, b.p1, b.p2, huge, 4, b.dst, F);
    });
    ExpectRejected("SimdSynetFusedLayerForward2", "overflow", b, [&] {
        SimdSynetFusedLayerForward2(b.src, b.p0, b.p1, huge, 4, b.p2, b.dst, F);
    });
    ExpectRejected("SimdSynetFusedLayerForward3", "overflow", b,
                   [&] { SimdSynetFusedLayerForward3(b.src, b.p0, b.p1, huge, 4, b.dst, F); });
    ExpectRejected("SimdSynetFusedLayerForward8", "overflow", b,
                   [&] { SimdSynetFusedLayerForward8(b.src, b.src1, b.p0, huge, 4, b.dst, F); });
    // The doubled output of Fused4 overflows even when its input would not.
    ExpectRejected("SimdSynetFusedLayerForward4", "overflow", b, [&] {
        SimdSynetFusedLayerForward4(b.src, b.p0, b.p1, b.p2, SIZE_MAX / 6, 1, b.dst, F);
    });
    ExpectRejected("SimdSynetFusedLayerForward9", "channels0 + channels1", b, [&] {
        SimdSynetFusedLayerForward9(b.src, b.src1, b.p0, b.p1, SIZE_MAX, 2, 1, b.dst, b.dst1, F);
    });
    ExpectRejected("SimdSynetFusedLayerForward9", "overflow", b, [&] {
        SimdSynetFusedLayerForward9(b.src, b.src1, b.p0, b.p1, huge, 4, 4, b.dst, b.dst1, F);
    });
}

TEST(ScaleErrors, ZeroSizesAreNoOps) {
    SimdSynetAddBias(nullptr, 0, 4, nullptr, SimdTensorFormatNchw);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetScaleLayerForward(nullptr, nullptr, nullptr, 4, 0, nullptr, SimdTensorFormatNhwc);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetFusedLayerForward4(nullptr, nullptr, nullptr, nullptr, 0, 4, nullptr,
                                SimdTensorFormatNchw8c);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetFusedLayerForward9(nullptr, nullptr, nullptr, nullptr, 0, 0, 4, nullptr, nullptr,
                                SimdTensorFormatNchw);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    // A successful call clears an earlier error.
    SimdSynetAddBias(nullptr, 4, 4, nullptr, SimdTensorFormatNchw);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    float bias[1] = {1.0f}, dst[1] = {1.0f};
    SimdSynetAddBias(bias, 1, 1, dst, SimdTensorFormatNchw);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 2.0f);
}

}  // namespace
