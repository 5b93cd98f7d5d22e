// Tests of the activation family on every compiled and supported Highway target.
#include <algorithm>
#include <cfloat>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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
            EXPECT_TRUE(test::AllOf(n,
                                    [&](size_t i) {
                                        double mag;
                                        const double r = ref::Relu(src[i], slope, &mag);
                                        return test::Near(dst[i], r, mag, 1e-6, 1e-7);
                                    }))
                << "n=" << n << " slope=" << slope;
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
        EXPECT_TRUE(test::AllOf(n,
                                [&](size_t i) {
                                    const float r = ref::RestrictRange(src[i], lower, upper);
                                    return test::SameValue(dst[i], r)
                                               ? ::testing::AssertionSuccess()
                                               : ::testing::AssertionFailure()
                                                     << dst[i] << " vs " << r;
                                }))
            << "n=" << n;
    }
}

TEST_P(Activation, Hswish) {
    const float shift = 3.0f, scale = 1.0f / 6.0f;
    for (size_t n : kSizes) {
        Guarded<float> src(n), dst(n);
        test::FillRandom(src.data(), n, -8.0f, 8.0f, uint32_t(n) + 11);
        SimdSynetHswish32f(src.data(), n, &shift, &scale, dst.data());
        EXPECT_TRUE(dst.GuardsIntact());
        EXPECT_TRUE(test::AllOf(n,
                                [&](size_t i) {
                                    const double r = ref::Hswish(src[i], shift, scale);
                                    return test::Near(dst[i], r, r, 1e-6, 1e-7);
                                }))
            << "n=" << n;
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
                SimdSynetPreluLayerForward(src.data(), slope.data(), channels, spatial, dst.data(),
                                           format);
                ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                EXPECT_TRUE(dst.GuardsIntact());
                // Channel of element i in the layout of SUPPLEMENT.md §2.1 (padded lanes too).
                auto channelOf = [&](size_t i) {
                    if (format == SimdTensorFormatNchw) return i / spatial;
                    if (format == SimdTensorFormatNhwc) return i % channels;
                    return i / (spatial * block) * block + i % block;
                };
                EXPECT_TRUE(test::AllOf(n,
                                        [&](size_t i) {
                                            double mag;
                                            const double r =
                                                ref::Relu(src[i], slope[channelOf(i)], &mag);
                                            return test::Near(dst[i], r, mag, 1e-6, 1e-7);
                                        }))
                    << "format=" << format << " channels=" << channels << " spatial=" << spatial;
            }
        }
    }
}

// ---- Transcendental activations -------------------------------------------------------------

// TRANS check of the issue: |actual - ref| <= 1e-5*|ref| + 1e-6. A reference beyond FLT_MAX
// must come out as the infinity of its sign (within 1e-5 of FLT_MAX either is accepted).
::testing::AssertionResult NearTrans(float actual, double ref) {
    if (std::isfinite(ref) && std::fabs(ref) > FLT_MAX) {
        if (std::isinf(actual) && (actual > 0) == (ref > 0)) return ::testing::AssertionSuccess();
        if (std::fabs(ref) > FLT_MAX * (1.0 + 1e-5))
            return ::testing::AssertionFailure() << "expected overflow to inf, got " << actual;
    }
    return test::Near(actual, ref, ref, 1e-5, 1e-6);
}

// Inputs of the accuracy tests: the special values, every 1/64 over [-100, 100], random values
// of magnitude up to 1e4 and random bit patterns (every finite and non-finite float, denormals
// included).
std::vector<float> MakeTranscendentalInputs() {
    std::vector<float> v = test::SpecialFloats();
    for (int i = -6400; i <= 6400; ++i) v.push_back(float(i) / 64.0f);
    const std::vector<float> wide = test::RandomFloats(4000, -1e4f, 1e4f, 1234);
    v.insert(v.end(), wide.begin(), wide.end());
    std::mt19937 rng(99);
    for (int i = 0; i < 20000; ++i) {
        const uint32_t bits = rng();
        float x;
        std::memcpy(&x, &bits, sizeof(x));
        v.push_back(x);
    }
    // Near the overflow threshold of exp (ln FLT_MAX = 88.7228391) and the tanh/ELU clamps.
    for (float x = 88.70f; x < 88.75f; x = std::nextafter(x, 100.0f)) v.push_back(x);
    for (float x : {-40.0f, -39.99f, 19.99f, 20.0f, 20.01f, -87.5f, -87.0f, -86.9f, -86.6f})
        v.push_back(x);
    return v;
}

const std::vector<float>& TranscendentalInputs() {
    static const std::vector<float> inputs = MakeTranscendentalInputs();
    return inputs;
}

using Kernel = std::function<void(const float*, size_t, float*)>;
using Reference = std::function<double(float)>;

// Runs `kernel` over every input (out of place, guards checked, then in place) and compares
// with `reference` under the TRANS bound.
void CheckTranscendental(const Kernel& kernel, const Reference& reference, const char* what) {
    const std::vector<float> in = TranscendentalInputs();
    const size_t n = in.size();
    Guarded<float> src(n), dst(n);
    std::copy(in.begin(), in.end(), src.data());
    kernel(src.data(), n, dst.data());
    ASSERT_EQ(SimdSynetGetLastError(), nullptr) << what;
    EXPECT_TRUE(dst.GuardsIntact()) << what;
    EXPECT_TRUE(test::AllOf(n, [&](size_t i) {
        ::testing::AssertionResult r = NearTrans(dst[i], reference(in[i]));
        if (!r) r << " (x = " << in[i] << ")";
        return r;
    })) << what;
    kernel(src.data(), n, src.data());
    EXPECT_TRUE(src.GuardsIntact()) << what;
    EXPECT_TRUE(test::AllOf(n,
                            [&](size_t i) {
                                return test::SameValue(src[i], dst[i])
                                           ? ::testing::AssertionSuccess()
                                           : ::testing::AssertionFailure()
                                                 << "in place " << src[i] << " vs " << dst[i];
                            }))
        << what << " in place";
    // Every tail length gives the same values as the long run.
    for (size_t m : kSizes) {
        Guarded<float> part(m);
        kernel(in.data() + 100, m, part.data());
        EXPECT_TRUE(part.GuardsIntact()) << what << " size " << m;
        for (size_t i = 0; i < m; ++i) EXPECT_TRUE(test::SameValue(part[i], dst[100 + i]));
    }
}

// NaN propagates through every activation (SimdSynet.h), the piecewise-linear ones included
// (max(0, NaN) is NaN): NaN inputs at the start, the middle and the SIMD tail of each size give
// NaN outputs, and no other output is NaN.
TEST_P(Activation, NaNPropagates) {
    const float slope = 0.1f, zero = 0.0f, lower = -1.0f, upper = 2.0f, shift = 3.0f,
                scale = 1.0f / 6.0f, one = 1.0f, threshold = 20.0f;
    using Function = std::function<void(const float*, size_t, float*)>;
    const std::vector<std::pair<const char*, Function>> functions = {
        {"Relu", [&](const float* s, size_t n, float* d) { SimdSynetRelu32f(s, n, &zero, d); }},
        {"LeakyRelu",
         [&](const float* s, size_t n, float* d) { SimdSynetRelu32f(s, n, &slope, d); }},
        {"RestrictRange", [&](const float* s, size_t n,
                              float* d) { SimdSynetRestrictRange32f(s, n, &lower, &upper, d); }},
        {"Hswish",
         [&](const float* s, size_t n, float* d) { SimdSynetHswish32f(s, n, &shift, &scale, d); }},
        {"Elu", [&](const float* s, size_t n, float* d) { SimdSynetElu32f(s, n, &one, d); }},
        {"Sigmoid",
         [&](const float* s, size_t n, float* d) { SimdSynetSigmoid32f(s, n, &one, d); }},
        {"Softplus", [&](const float* s, size_t n,
                         float* d) { SimdSynetSoftplus32f(s, n, &one, &threshold, d); }},
        {"Tanh", [&](const float* s, size_t n, float* d) { SimdSynetTanh32f(s, n, &one, d); }},
        {"Gelu", [&](const float* s, size_t n, float* d) { SimdSynetGelu32f(s, n, SimdFalse, d); }},
        {"GeluTanh",
         [&](const float* s, size_t n, float* d) { SimdSynetGelu32f(s, n, SimdTrue, d); }},
        {"Abs",
         [&](const float* s, size_t n, float* d) {
             SimdSynetUnaryOperation32fLayerForward(s, n, SimdSynetUnaryOperation32fAbs, d);
         }},
        {"Prelu NCHW",
         [&](const float* s, size_t n, float* d) {
             const std::vector<float> slopes(n, -0.5f);
             SimdSynetPreluLayerForward(s, slopes.data(), n, 1, d, SimdTensorFormatNchw);
         }},
        {"Prelu NHWC",
         [&](const float* s, size_t n, float* d) {
             const std::vector<float> slopes(n, -0.5f);
             SimdSynetPreluLayerForward(s, slopes.data(), n, 1, d, SimdTensorFormatNhwc);
         }},
    };
    for (const auto& [name, function] : functions)
        for (size_t n : kSizes) {
            if (n == 0) continue;
            Guarded<float> src(n), dst(n);
            test::FillRandom(src.data(), n, -4.0f, 4.0f, uint32_t(n) + 3);
            for (size_t i : {size_t(0), n / 2, n - 1}) src[i] = NAN;
            function(src.data(), n, dst.data());
            ASSERT_EQ(SimdSynetGetLastError(), nullptr) << name;
            EXPECT_TRUE(dst.GuardsIntact()) << name;
            EXPECT_TRUE(test::AllOf(n,
                                    [&](size_t i) {
                                        return std::isnan(dst[i]) == std::isnan(src[i])
                                                   ? ::testing::AssertionSuccess()
                                                   : ::testing::AssertionFailure()
                                                         << src[i] << " gave " << dst[i];
                                    }))
                << name << " n=" << n;
        }
}

TEST_P(Activation, Elu) {
    for (float alpha : {1.0f, 0.1f, 2.5f, 100.0f, -1.0f}) {
        CheckTranscendental(
            [&](const float* s, size_t n, float* d) { SimdSynetElu32f(s, n, &alpha, d); },
            [&](float x) { return ref::Elu(x, alpha); }, "Elu");
    }
    // NaN propagates; -inf saturates to -alpha; -0 stays -0 (x >= 0 branch).
    const float alpha = 2.0f, in[3] = {NAN, -INFINITY, -0.0f};
    float out[3];
    SimdSynetElu32f(in, 3, &alpha, out);
    EXPECT_TRUE(std::isnan(out[0]));
    EXPECT_EQ(out[1], -2.0f);
    EXPECT_TRUE(out[2] == 0.0f && std::signbit(out[2]));
}

TEST_P(Activation, Sigmoid) {
    for (float slope : {1.0f, 0.5f, -2.0f, 3.0f, 0.0f}) {
        CheckTranscendental(
            [&](const float* s, size_t n, float* d) { SimdSynetSigmoid32f(s, n, &slope, d); },
            [&](float x) { return ref::Sigmoid(x, slope); }, "Sigmoid");
    }
    const float slope = 1.0f, in[5] = {INFINITY, -INFINITY, 1e30f, -1e30f, 0.0f};
    float out[5];
    SimdSynetSigmoid32f(in, 5, &slope, out);
    EXPECT_EQ(out[0], 1.0f);
    EXPECT_EQ(out[1], 0.0f);
    EXPECT_EQ(out[2], 1.0f);
    EXPECT_EQ(out[3], 0.0f);
    EXPECT_EQ(out[4], 0.5f);
}

TEST_P(Activation, Softplus) {
    const float inf = std::numeric_limits<float>::infinity();
    for (float beta : {1.0f, 0.5f, 2.0f, -1.5f}) {
        for (float threshold : {20.0f, 1.0f, -3.0f, inf}) {
            CheckTranscendental([&](const float* s, size_t n,
                                    float* d) { SimdSynetSoftplus32f(s, n, &beta, &threshold, d); },
                                [&](float x) { return ref::Softplus(x, beta, threshold); },
                                "Softplus");
        }
    }
    // No threshold: huge inputs stay finite (beta*x overflows, the result is x).
    const float beta = 2.0f, threshold = inf;
    const float in[4] = {FLT_MAX, 1e38f, -FLT_MAX, NAN};
    float out[4];
    SimdSynetSoftplus32f(in, 4, &beta, &threshold, out);
    EXPECT_EQ(out[0], FLT_MAX);
    EXPECT_EQ(out[1], 1e38f);
    EXPECT_EQ(out[2], 0.0f);
    EXPECT_TRUE(std::isnan(out[3]));
    // The threshold is compared with x, not with beta*x: 3 > 2 is linear even though 6 > 2.
    const float beta3 = 3.0f, threshold2 = 2.0f, x[2] = {3.0f, 1.0f};
    float y[2];
    SimdSynetSoftplus32f(x, 2, &beta3, &threshold2, y);
    EXPECT_EQ(y[0], 3.0f);
    EXPECT_TRUE(NearTrans(y[1], std::log1p(std::exp(3.0)) / 3.0));
}

TEST_P(Activation, Tanh) {
    for (float slope : {1.0f, 0.5f, -2.0f, 7.0f}) {
        CheckTranscendental(
            [&](const float* s, size_t n, float* d) { SimdSynetTanh32f(s, n, &slope, d); },
            [&](float x) { return ref::Tanh(x, slope); }, "Tanh");
    }
    const float slope = 1.0f, in[5] = {INFINITY, -INFINITY, 1e30f, -0.0f, 1e-30f};
    float out[5];
    SimdSynetTanh32f(in, 5, &slope, out);
    EXPECT_EQ(out[0], 1.0f);
    EXPECT_EQ(out[1], -1.0f);
    EXPECT_EQ(out[2], 1.0f);
    EXPECT_TRUE(out[3] == 0.0f && std::signbit(out[3]));
    EXPECT_TRUE(test::Near(out[4], 1e-30, 1e-30, 1e-5, 0.0));  // relative accuracy near 0
}

TEST_P(Activation, Gelu) {
    CheckTranscendental(
        [](const float* s, size_t n, float* d) { SimdSynetGelu32f(s, n, SimdFalse, d); },
        [](float x) { return ref::Gelu(x); }, "Gelu");
    CheckTranscendental(
        [](const float* s, size_t n, float* d) { SimdSynetGelu32f(s, n, SimdTrue, d); },
        [](float x) { return ref::GeluTanh(x); }, "GeluTanh");
    // The erf form switches branches at |x/sqrt 2| = 0.5 and to -0 below -8.5, the tanh form to
    // -0 below -10: the bound holds on both sides of each switch.
    std::vector<float> edges;
    for (float e : {0.70710678f, -0.70710678f, -8.5f, -10.0f})
        for (int k = -4; k <= 4; ++k) edges.push_back(e + float(k) * 1e-6f * std::fabs(e));
    std::vector<float> out(edges.size());
    for (SimdBool tanh : {SimdFalse, SimdTrue}) {
        SimdSynetGelu32f(edges.data(), edges.size(), tanh, out.data());
        for (size_t i = 0; i < edges.size(); ++i)
            EXPECT_TRUE(NearTrans(out[i], tanh ? ref::GeluTanh(edges[i]) : ref::Gelu(edges[i])))
                << "x = " << edges[i] << " tanh = " << tanh;
    }
    const float in[5] = {INFINITY, -INFINITY, 1e30f, -1e30f, -0.0f};
    float y[5];
    for (SimdBool tanh : {SimdFalse, SimdTrue}) {
        SimdSynetGelu32f(in, 5, tanh, y);
        EXPECT_EQ(y[0], INFINITY);
        EXPECT_EQ(y[1], 0.0f);
        EXPECT_EQ(y[2], 1e30f);
        EXPECT_EQ(y[3], 0.0f);
        EXPECT_EQ(y[4], 0.0f);
    }
}

// ---- Thread budgets ------------------------------------------------------------------------

// Large calls split over the thread budget (core/ParallelElements.h): every budget, also on an
// oversubscribed core, gives the bits of one thread, and nothing is written outside dst. The
// sizes put part boundaries inside groups of vectors and leave tails.
TEST_P(Activation, ThreadBudgetsGiveIdenticalBits) {
    const test::ThreadBudgetGuard restore;
    const float slope = 0.1f, lower = -1.5f, upper = 2.5f, shift = 3.0f, scale = 1.0f / 6.0f,
                alpha = 0.7f, beta = 1.5f, threshold = 15.0f;
    using Function = std::function<void(const float*, size_t, float*)>;
    std::vector<std::pair<std::string, Function>> functions = {
        {"Relu", [&](const float* s, size_t n, float* d) { SimdSynetRelu32f(s, n, &slope, d); }},
        {"RestrictRange", [&](const float* s, size_t n,
                              float* d) { SimdSynetRestrictRange32f(s, n, &lower, &upper, d); }},
        {"Hswish",
         [&](const float* s, size_t n, float* d) { SimdSynetHswish32f(s, n, &shift, &scale, d); }},
        {"Elu", [&](const float* s, size_t n, float* d) { SimdSynetElu32f(s, n, &alpha, d); }},
        {"Sigmoid",
         [&](const float* s, size_t n, float* d) { SimdSynetSigmoid32f(s, n, &slope, d); }},
        {"Softplus", [&](const float* s, size_t n,
                         float* d) { SimdSynetSoftplus32f(s, n, &beta, &threshold, d); }},
        {"Tanh", [&](const float* s, size_t n, float* d) { SimdSynetTanh32f(s, n, &slope, d); }},
        {"Gelu", [&](const float* s, size_t n, float* d) { SimdSynetGelu32f(s, n, SimdFalse, d); }},
        {"GeluTanh",
         [&](const float* s, size_t n, float* d) { SimdSynetGelu32f(s, n, SimdTrue, d); }}};
    for (int type = 0; type <= int(SimdSynetUnaryOperation32fZero); ++type)
        functions.push_back(
            {"UnaryOperation " + std::to_string(type), [type](const float* s, size_t n, float* d) {
                 SimdSynetUnaryOperation32fLayerForward(s, n, SimdSynetUnaryOperation32fType(type),
                                                        d);
             }});
    for (size_t n : {size_t(40000), size_t(100003), size_t(3 * 65536 + 7)}) {
        Guarded<float> src(n);
        test::FillRandom(src.data(), n, -10.0f, 10.0f, uint32_t(n));
        for (const auto& f : functions) {
            SimdSetThreadNumber(1);
            std::vector<float> one(n);
            f.second(src.data(), n, one.data());
            for (size_t budget : {2, 3, 5, 0}) {
                const bool busy = budget == 0;  // 4 threads on one busy core
                std::unique_ptr<test::Oversubscribe> load(busy ? new test::Oversubscribe(2)
                                                               : nullptr);
                SimdSetThreadNumber(busy ? 4 : budget);
                Guarded<float> dst(n, std::numeric_limits<float>::quiet_NaN());
                f.second(src.data(), n, dst.data());
                EXPECT_EQ(0, std::memcmp(dst.data(), one.data(), n * sizeof(float)))
                    << f.first << " n=" << n << " budget " << (busy ? "4 oversubscribed" : "")
                    << budget;
                EXPECT_TRUE(dst.GuardsIntact());
            }
        }
    }
}

TEST_P(Activation, PreluThreadBudgetsGiveIdenticalBits) {
    const test::ThreadBudgetGuard restore;
    for (SimdTensorFormatType format : test::ImageFormats())
        for (const test::ChannelsSpatial& c : test::SplitShapes()) {
            const size_t block = SimdSynetTensorAlignment(format);
            const size_t n = SimdAlign(c.channels, block) * c.spatial;
            Guarded<float> src(n), slope(SimdAlign(c.channels, block));
            test::FillRandom(src.data(), n, -3.0f, 3.0f, uint32_t(n));
            test::FillRandom(slope.data(), slope.size(), -1.0f, 1.0f, 7);
            SimdSetThreadNumber(1);
            std::vector<float> one(n);
            SimdSynetPreluLayerForward(src.data(), slope.data(), c.channels, c.spatial, one.data(),
                                       format);
            for (size_t budget : {2, 3}) {
                SimdSetThreadNumber(budget);
                Guarded<float> dst(n, std::numeric_limits<float>::quiet_NaN());
                SimdSynetPreluLayerForward(src.data(), slope.data(), c.channels, c.spatial,
                                           dst.data(), format);
                EXPECT_EQ(0, std::memcmp(dst.data(), one.data(), n * sizeof(float)))
                    << "format " << int(format) << " channels " << c.channels << " budget "
                    << budget;
                EXPECT_TRUE(dst.GuardsIntact());
            }
        }
}

// ---- UnaryOperation ----------------------------------------------------------------------

TEST_P(Activation, UnaryOperationTranscendental) {
    for (auto type : {SimdSynetUnaryOperation32fExp, SimdSynetUnaryOperation32fLog,
                      SimdSynetUnaryOperation32fTanh, SimdSynetUnaryOperation32fRsqrt}) {
        CheckTranscendental(
            [&](const float* s, size_t n, float* d) {
                SimdSynetUnaryOperation32fLayerForward(s, n, type, d);
            },
            [&](float x) { return ref::UnaryOperation(x, type); },
            ("UnaryOperation type " + std::to_string(int(type))).c_str());
    }
    // IEEE special values of exp and log.
    const float in[6] = {0.0f, -0.0f, -1.0f, INFINITY, -INFINITY, NAN};
    float out[6];
    SimdSynetUnaryOperation32fLayerForward(in, 6, SimdSynetUnaryOperation32fLog, out);
    EXPECT_EQ(out[0], -INFINITY);
    EXPECT_EQ(out[1], -INFINITY);
    EXPECT_TRUE(std::isnan(out[2]));
    EXPECT_EQ(out[3], INFINITY);
    EXPECT_TRUE(std::isnan(out[4]));
    EXPECT_TRUE(std::isnan(out[5]));
    SimdSynetUnaryOperation32fLayerForward(in, 6, SimdSynetUnaryOperation32fExp, out);
    EXPECT_EQ(out[0], 1.0f);
    EXPECT_EQ(out[3], INFINITY);
    EXPECT_EQ(out[4], 0.0f);
    EXPECT_TRUE(std::isnan(out[5]));
}

TEST_P(Activation, UnaryOperationExact) {
    const std::vector<float> in = TranscendentalInputs();
    const size_t n = in.size();
    for (auto type : {SimdSynetUnaryOperation32fAbs, SimdSynetUnaryOperation32fNeg,
                      SimdSynetUnaryOperation32fSqrt, SimdSynetUnaryOperation32fZero}) {
        for (size_t m : {n, size_t(1), size_t(7), size_t(17), size_t(33)}) {
            Guarded<float> src(m), dst(m, 7.0f);
            std::copy(in.begin(), in.begin() + m, src.data());
            SimdSynetUnaryOperation32fLayerForward(src.data(), m, type, dst.data());
            ASSERT_EQ(SimdSynetGetLastError(), nullptr);
            EXPECT_TRUE(dst.GuardsIntact());
            EXPECT_TRUE(test::AllOf(
                m,
                [&](size_t i) {
                    const float r = float(ref::UnaryOperation(in[i], type));
                    // Bit equality; the sign of a zero matters except for Neg (§4.10).
                    const bool same = test::SameValue(dst[i], r) &&
                                      (type == SimdSynetUnaryOperation32fNeg ||
                                       std::signbit(dst[i]) == std::signbit(r) || std::isnan(r));
                    return same ? ::testing::AssertionSuccess()
                                : ::testing::AssertionFailure()
                                      << "x = " << in[i] << ": " << dst[i] << " vs " << r;
                }))
                << "type " << type << " size " << m;
        }
        // In place.
        Guarded<float> buf(n);
        std::copy(in.begin(), in.end(), buf.data());
        SimdSynetUnaryOperation32fLayerForward(buf.data(), n, type, buf.data());
        EXPECT_TRUE(buf.GuardsIntact());
        EXPECT_TRUE(test::AllOf(n,
                                [&](size_t i) {
                                    const float r = float(ref::UnaryOperation(in[i], type));
                                    return test::SameValue(buf[i], r)
                                               ? ::testing::AssertionSuccess()
                                               : ::testing::AssertionFailure()
                                                     << buf[i] << " vs " << r;
                                }))
            << "in place, type " << type;
    }
}

TEST(ActivationErrors, RejectsBadTranscendentalArguments) {
    float src[4] = {1, 2, 3, 4}, dst[4] = {7, 7, 7, 7}, one = 1.0f, zero = 0.0f, thr = 20.0f;
    auto lastErrorNames = [](const char* function) {
        const char* e = SimdSynetGetLastError();
        return e != nullptr && std::string(e).find(function) != std::string::npos;
    };
    SimdSynetElu32f(nullptr, 4, &one, dst);
    EXPECT_TRUE(lastErrorNames("SimdSynetElu32f"));
    SimdSynetElu32f(src, 4, nullptr, dst);
    EXPECT_TRUE(lastErrorNames("SimdSynetElu32f"));
    SimdSynetElu32f(src, SIZE_MAX / 2, &one, dst);
    EXPECT_TRUE(lastErrorNames("SimdSynetElu32f"));
    SimdSynetSigmoid32f(src, 4, &one, nullptr);
    EXPECT_TRUE(lastErrorNames("SimdSynetSigmoid32f"));
    SimdSynetSigmoid32f(src, SIZE_MAX / 2, &one, dst);
    EXPECT_TRUE(lastErrorNames("SimdSynetSigmoid32f"));
    SimdSynetTanh32f(src, 4, nullptr, dst);
    EXPECT_TRUE(lastErrorNames("SimdSynetTanh32f"));
    SimdSynetTanh32f(src, SIZE_MAX / 2, &one, dst);
    EXPECT_TRUE(lastErrorNames("SimdSynetTanh32f"));
    SimdSynetSoftplus32f(src, 4, &zero, &thr, dst);  // beta == 0
    EXPECT_TRUE(lastErrorNames("SimdSynetSoftplus32f"));
    SimdSynetSoftplus32f(src, 4, &one, nullptr, dst);
    EXPECT_TRUE(lastErrorNames("SimdSynetSoftplus32f"));
    SimdSynetSoftplus32f(src, SIZE_MAX / 2, &one, &thr, dst);
    EXPECT_TRUE(lastErrorNames("SimdSynetSoftplus32f"));
    for (int bad : {-1, 8, 1000}) {
        SimdSynetUnaryOperation32fLayerForward(src, 4, SimdSynetUnaryOperation32fType(bad), dst);
        EXPECT_TRUE(lastErrorNames("SimdSynetUnaryOperation32fLayerForward")) << bad;
    }
    SimdSynetUnaryOperation32fLayerForward(nullptr, 4, SimdSynetUnaryOperation32fZero, dst);
    EXPECT_TRUE(lastErrorNames("SimdSynetUnaryOperation32fLayerForward"));
    SimdSynetUnaryOperation32fLayerForward(src, SIZE_MAX / 2, SimdSynetUnaryOperation32fAbs, dst);
    EXPECT_TRUE(lastErrorNames("SimdSynetUnaryOperation32fLayerForward"));
    for (float v : dst) EXPECT_EQ(v, 7.0f);
    // Zero sizes are no-ops even with NULL pointers; a success clears the previous error.
    SimdSynetSoftplus32f(nullptr, 0, nullptr, nullptr, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetUnaryOperation32fLayerForward(nullptr, 0, SimdSynetUnaryOperation32fType(99), nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetElu32f(src, 4, &one, dst);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
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
    // Byte counts that overflow size_t.
    const float shift = 3.0f, scale = 1.0f / 6.0f;
    SimdSynetRelu32f(src, SIZE_MAX / 2, &slope, dst);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetRestrictRange32f(src, SIZE_MAX / 2, &hi, &lo, dst);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetHswish32f(src, SIZE_MAX / 2, &shift, &scale, dst);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    for (float v : dst) EXPECT_EQ(v, 7.0f);
    SimdSynetRelu32f(nullptr, 0, nullptr, nullptr);  // zero size: valid no-op
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

TEST(ActivationErrors, RejectsBadGeluArguments) {
    const float src[4] = {1, 2, 3, 4};
    float dst[4] = {7, 7, 7, 7};
    SimdSynetGelu32f(nullptr, 4, SimdFalse, dst);
    EXPECT_TRUE(SimdSynetGetLastError() && strstr(SimdSynetGetLastError(), "SimdSynetGelu32f"));
    SimdSynetGelu32f(src, 4, SimdBool(2), dst);
    EXPECT_TRUE(SimdSynetGetLastError() && strstr(SimdSynetGetLastError(), "approximate"));
    SimdSynetGelu32f(src, SIZE_MAX / 2, SimdTrue, dst);
    EXPECT_TRUE(SimdSynetGetLastError() && strstr(SimdSynetGetLastError(), "overflows"));
    EXPECT_EQ(dst[0], 7.0f);
    SimdSynetGelu32f(nullptr, 0, SimdFalse, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

}  // namespace
