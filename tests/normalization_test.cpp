// Tests of the normalization family (SUPPLEMENT.md §6) on every compiled and supported target.
//
// Accuracy asked of the functions: |error| <= 2e-6*m + 1e-6 against a double reference, where m
// is |result| (V1) or |normalized term| + |shift| (V2, V3, V4: the final FP32 addition rounds
// relative to its operands); BF16 outputs within 1 BF16 ulp of the rounded reference.
#include <cfloat>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "TestUtil.h"
#include "reference/Normalization.h"

namespace {

using test::Guarded;

// Input families: uniform values of both signs; mixed signs and magnitudes (1e-3 to 1e2); rows
// with a large common offset and tiny noise (variance far below the mean, comparable to eps);
// tiny values (sum of squares comparable to eps in V1/V4); an offset with noise and every 37th
// element (the first included) an outlier far above the mean.
enum class Data { Uniform, Mixed, Offset, Tiny, Outlier };

std::vector<float> MakeInput(size_t n, Data kind, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_real_distribution<float> exponent(-3.0f, 2.0f);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        float& x = v[i];
        switch (kind) {
            case Data::Uniform:
                x = 2.0f * u(rng);
                break;
            case Data::Mixed:
                x = (u(rng) < 0 ? -1.0f : 1.0f) * std::pow(10.0f, exponent(rng));
                break;
            case Data::Offset:
                x = 3.0f + 1e-4f * u(rng);
                break;
            case Data::Tiny:
                x = 1e-4f * u(rng);
                break;
            case Data::Outlier:
                x = i % 37 == 0 ? 50.0f + u(rng) : 3.0f + 1e-3f * u(rng);
                break;
        }
    }
    return v;
}

const char* DataName(Data kind) {
    switch (kind) {
        case Data::Uniform:
            return "uniform";
        case Data::Mixed:
            return "mixed";
        case Data::Offset:
            return "offset";
        case Data::Tiny:
            return "tiny";
        case Data::Outlier:
            return "outlier";
    }
    return "?";
}

::testing::AssertionResult NearNorm(float actual, double expected, double magnitude) {
    return test::Near(actual, expected, magnitude, 2e-6, 1e-6);
}

// A call of one FP32 function (V1 binds acrossSpatial and ignores shift) and its reference.
using Fp32Call = std::function<void(const float* src, size_t B, size_t C, size_t S,
                                    const float* scale, const float* shift, const float* eps,
                                    SimdTensorFormatType format, float* buf, float* dst)>;
using RefCall =
    std::function<ref::NormResult(const float* src, size_t B, size_t C, size_t S,
                                  const float* scale, const float* shift, float eps, bool nhwc)>;

struct Case {
    SimdTensorFormatType format;
    size_t batch, channels, spatial;
    Data data;
    float eps;
};

std::string Describe(const Case& c) {
    return "format=" + std::to_string(int(c.format)) + " batch=" + std::to_string(c.batch) +
           " channels=" + std::to_string(c.channels) + " spatial=" + std::to_string(c.spatial) +
           " data=" + DataName(c.data) + " eps=" + std::to_string(c.eps);
}

// Runs `call` on one case with buf NULL and with a buffer of `bufSize` floats, out of place
// (guards checked) and in place (bit-identical to out of place), against the reference.
void CheckFp32(const Fp32Call& call, const RefCall& reference, size_t bufSize, const Case& c,
               uint32_t seed) {
    const size_t n = c.batch * c.channels * c.spatial;
    const std::vector<float> in = MakeInput(n, c.data, seed);
    const std::vector<float> scale = test::RandomFloats(c.channels, -1.5f, 1.5f, seed + 1);
    const std::vector<float> shift = test::RandomFloats(c.channels, -1.0f, 1.0f, seed + 2);
    const bool nhwc = c.format == SimdTensorFormatNhwc;
    const ref::NormResult expected = reference(in.data(), c.batch, c.channels, c.spatial,
                                               scale.data(), shift.data(), c.eps, nhwc);
    Guarded<float> src(n), dst(n);
    std::copy(in.begin(), in.end(), src.data());
    for (bool useBuf : {false, true}) {
        Guarded<float> buf(bufSize, 0.0f);
        dst.Resize(n, 0.0f);
        call(src.data(), c.batch, c.channels, c.spatial, scale.data(), shift.data(), &c.eps,
             c.format, useBuf ? buf.data() : nullptr, dst.data());
        ASSERT_EQ(SimdSynetGetLastError(), nullptr) << Describe(c);
        EXPECT_TRUE(dst.GuardsIntact()) << Describe(c);
        EXPECT_TRUE(buf.GuardsIntact()) << Describe(c);
        ASSERT_TRUE(test::AllOf(
            n,
            [&](size_t i) { return NearNorm(dst[i], expected.value[i], expected.magnitude[i]); }))
            << Describe(c) << " buf=" << useBuf;
    }
    EXPECT_TRUE(std::equal(in.begin(), in.end(), src.data())) << "src modified " << Describe(c);
    // In place: same values as out of place.
    Guarded<float> inout(n);
    std::copy(in.begin(), in.end(), inout.data());
    call(inout.data(), c.batch, c.channels, c.spatial, scale.data(), shift.data(), &c.eps, c.format,
         nullptr, inout.data());
    EXPECT_TRUE(inout.GuardsIntact());
    EXPECT_TRUE(test::AllOf(n,
                            [&](size_t i) {
                                return test::SameValue(inout[i], dst[i])
                                           ? ::testing::AssertionSuccess()
                                           : ::testing::AssertionFailure()
                                                 << inout[i] << " vs " << dst[i];
                            }))
        << "in place " << Describe(c);
}

// Every format, the tail channel counts, several pixel counts (tiles and tails of both
// orientations), batch 1 and 2, and every data family with an eps suited to it (`epsOf`).
void CheckAllSmall(const Fp32Call& call, const RefCall& reference, bool bufPerPixel,
                   const std::function<float(Data)>& epsOf, const std::vector<Data>& kinds) {
    uint32_t seed = 1;
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
        for (size_t channels : test::TailChannels())
            for (size_t spatial : {1, 7, 15, 33, 100})
                for (Data kind : kinds) {
                    const size_t batch = spatial == 7 ? 2 : 1;
                    const Case c{format, batch, channels, spatial, kind, epsOf(kind)};
                    CheckFp32(call, reference, bufPerPixel ? spatial : channels, c, seed++);
                    if (::testing::Test::HasFatalFailure()) return;
                }
}

// Long statistics: 100 000 channels or pixels (errors must not grow with the length).
void CheckAllLarge(const Fp32Call& call, const RefCall& reference, bool bufPerPixel,
                   const std::function<float(Data)>& epsOf, const std::vector<Data>& kinds) {
    uint32_t seed = 1000;
    const size_t kShapes[][2] = {{100000, 2}, {2, 100000}, {1, 100000}, {768, 196}};
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
        for (const auto& shape : kShapes)
            for (Data kind : kinds) {
                const Case c{format, 1, shape[0], shape[1], kind, epsOf(kind)};
                CheckFp32(call, reference, bufPerPixel ? shape[1] : shape[0], c, seed++);
                if (::testing::Test::HasFatalFailure()) return;
            }
}

Fp32Call V1Call(SimdBool across) {
    return
        [across](const float* src, size_t B, size_t C, size_t S, const float* scale, const float*,
                 const float* eps, SimdTensorFormatType format, float* buf, float* dst) {
            SimdSynetNormalizeLayerForward(src, B, C, S, scale, eps, across, format, buf, dst);
        };
}
RefCall V1Ref(bool across) {
    return [across](const float* src, size_t B, size_t C, size_t S, const float* scale,
                    const float*, float eps,
                    bool nhwc) { return ref::NormalizeV1(src, B, C, S, scale, eps, across, nhwc); };
}
const Fp32Call kV2 = SimdSynetNormalizeLayerForwardV2;
const Fp32Call kV3 = SimdSynetNormalizeLayerForwardV3;
const Fp32Call kV4 = SimdSynetNormalizeLayerForwardV4;

// eps of each data family: one that matters (tiny squares for V1/V4, tiny variance for V2/V3)
// and ordinary ones elsewhere.
float EpsV1(Data kind) {
    return kind == Data::Tiny ? 1e-7f : 1e-5f;
}
float EpsV23(Data kind) {
    return kind == Data::Offset ? 1e-8f : 1e-5f;
}
float EpsV4(Data kind) {
    return kind == Data::Tiny ? 1e-3f : 1e-5f;
}

const std::vector<Data> kV1Data = {Data::Uniform, Data::Mixed, Data::Tiny};
const std::vector<Data> kV23Data = {Data::Uniform, Data::Mixed, Data::Offset, Data::Outlier};
const std::vector<Data> kV4Data = {Data::Uniform, Data::Mixed, Data::Tiny};

SIMD_SYNET_TARGET_SUITE(Normalization);

TEST_P(Normalization, V1PerPixel) {
    CheckAllSmall(V1Call(SimdFalse), V1Ref(false), true, EpsV1, kV1Data);
}
TEST_P(Normalization, V1AcrossSpatial) {
    CheckAllSmall(V1Call(SimdTrue), V1Ref(true), true, EpsV1, kV1Data);
}
TEST_P(Normalization, V2) {
    CheckAllSmall(kV2, ref::NormalizeV2, true, EpsV23, kV23Data);
}
TEST_P(Normalization, V3) {
    CheckAllSmall(kV3, ref::NormalizeV3, false, EpsV23, kV23Data);
}
TEST_P(Normalization, V4) {
    CheckAllSmall(kV4, ref::NormalizeV4, false, EpsV4, kV4Data);
}

TEST_P(Normalization, V1PerPixelLong) {
    CheckAllLarge(V1Call(SimdFalse), V1Ref(false), true, EpsV1, kV1Data);
}
TEST_P(Normalization, V1AcrossSpatialLong) {
    CheckAllLarge(V1Call(SimdTrue), V1Ref(true), true, EpsV1, kV1Data);
}
TEST_P(Normalization, V2Long) {
    CheckAllLarge(kV2, ref::NormalizeV2, true, EpsV23, kV23Data);
}
TEST_P(Normalization, V3Long) {
    CheckAllLarge(kV3, ref::NormalizeV3, false, EpsV23, kV23Data);
}
TEST_P(Normalization, V4Long) {
    CheckAllLarge(kV4, ref::NormalizeV4, false, EpsV4, kV4Data);
}

// Constant rows: the variance is exactly 0, so every output is shift[c] (eps keeps r finite).
TEST_P(Normalization, V2V3ConstantRows) {
    const size_t C = 17, S = 33, n = C * S;
    Guarded<float> src(n, 2.5f), dst(n);
    const std::vector<float> scale = test::RandomFloats(C, -1.5f, 1.5f, 3);
    const std::vector<float> shift = test::RandomFloats(C, -1.0f, 1.0f, 4);
    const float eps = 1e-6f;
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        for (int v = 2; v <= 3; ++v) {
            dst.Resize(n, 0.0f);
            (v == 2 ? SimdSynetNormalizeLayerForwardV2 : SimdSynetNormalizeLayerForwardV3)(
                src.data(), 1, C, S, scale.data(), shift.data(), &eps, format, nullptr, dst.data());
            ASSERT_EQ(SimdSynetGetLastError(), nullptr);
            const bool nhwc = format == SimdTensorFormatNhwc;
            for (size_t c = 0; c < C; ++c)
                for (size_t s = 0; s < S; ++s)
                    ASSERT_EQ(dst[ref::NormIndex(nhwc, C, S, 0, c, s)], shift[c])
                        << "V" << v << " format " << format;
        }
    }
}

// The first 8 elements along the statistics axis far above the others (1000 vs 3 +- 1e-3):
// a centre guessed from the start of the axis is then far from the mean, and the variance
// around it cancels badly unless the implementation re-centres (rows and columns alike).
TEST_P(Normalization, V2V3CentreFarFromMean) {
    const size_t kLong = 4096, kShort = 3;
    const float eps = 1e-6f;
    uint32_t seed = 77;
    for (int v = 2; v <= 3; ++v)
        for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            const size_t C = v == 2 ? kLong : kShort, S = v == 2 ? kShort : kLong;
            const bool nhwc = format == SimdTensorFormatNhwc;
            std::vector<float> in(C * S);
            std::mt19937 rng(seed++);
            std::uniform_real_distribution<float> u(-1.0f, 1.0f);
            for (size_t c = 0; c < C; ++c)
                for (size_t s = 0; s < S; ++s)
                    in[ref::NormIndex(nhwc, C, S, 0, c, s)] =
                        (v == 2 ? c : s) < 8 ? 1000.0f + u(rng) : 3.0f + 1e-3f * u(rng);
            const std::vector<float> scale = test::RandomFloats(C, -1.5f, 1.5f, seed);
            const std::vector<float> shift = test::RandomFloats(C, -1.0f, 1.0f, seed + 1);
            const ref::NormResult expected = (v == 2 ? ref::NormalizeV2 : ref::NormalizeV3)(
                in.data(), 1, C, S, scale.data(), shift.data(), eps, nhwc);
            Guarded<float> dst(C * S);
            (v == 2 ? SimdSynetNormalizeLayerForwardV2 : SimdSynetNormalizeLayerForwardV3)(
                in.data(), 1, C, S, scale.data(), shift.data(), &eps, format, nullptr, dst.data());
            ASSERT_EQ(SimdSynetGetLastError(), nullptr);
            EXPECT_TRUE(dst.GuardsIntact());
            EXPECT_TRUE(test::AllOf(C * S,
                                    [&](size_t i) {
                                        return NearNorm(dst[i], expected.value[i],
                                                        expected.magnitude[i]);
                                    }))
                << "V" << v << " format " << format;
        }
}

// ---- BF16 ----------------------------------------------------------------------------------

int OrderedBf16(uint16_t v) {
    return (v & 0x8000) ? -int(v & 0x7FFF) : int(v);
}

// BF16 class: the output must be within 1 BF16 ulp of the rounding of some value that meets the
// FP32 bound (NearNorm) of the reference, i.e. between round(ref - tol) - 1 ulp and
// round(ref + tol) + 1 ulp. (Where the result cancels to near 0, the FP32 tolerance is many
// BF16 ulps of the result.)
::testing::AssertionResult NearBf16(uint16_t actual, double expected, double magnitude) {
    const double tol = 2e-6 * magnitude + 1e-6;
    const int lo = OrderedBf16(ref::FloatToBf16(float(expected - tol))) - 1;
    const int hi = OrderedBf16(ref::FloatToBf16(float(expected + tol))) + 1;
    const int got = OrderedBf16(actual);
    if (got >= lo && got <= hi) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << ref::Bf16ToFloat(actual) << ", expected "
                                         << ref::Bf16ToFloat(ref::FloatToBf16(float(expected)))
                                         << " (" << expected << " +- " << tol << ")";
}

void Check16b(size_t batch, size_t channels, size_t spatial, Data kind, float eps, uint32_t seed) {
    const size_t n = batch * channels * spatial;
    const std::vector<float> wide = MakeInput(n, kind, seed);
    std::vector<float> in(n);  // the BF16 inputs, widened
    Guarded<uint16_t> src(n), dst(n);
    for (size_t i = 0; i < n; ++i) {
        src[i] = ref::FloatToBf16(wide[i]);
        in[i] = ref::Bf16ToFloat(src[i]);
    }
    const std::vector<float> scale = test::RandomFloats(channels, -1.5f, 1.5f, seed + 1);
    const std::vector<float> shift = test::RandomFloats(channels, -1.0f, 1.0f, seed + 2);
    const ref::NormResult expected = ref::NormalizeV2(in.data(), batch, channels, spatial,
                                                      scale.data(), shift.data(), eps, true);
    const std::string what = "batch=" + std::to_string(batch) +
                             " channels=" + std::to_string(channels) +
                             " spatial=" + std::to_string(spatial) + " data=" + DataName(kind);
    for (bool useBuf : {false, true}) {
        Guarded<float> buf(channels, 0.0f);
        dst.Resize(n, 0);
        SimdSynetNormalizeLayerForward16bV2(src.data(), batch, channels, spatial, scale.data(),
                                            shift.data(), &eps, SimdTensorFormatNhwc,
                                            useBuf ? buf.data() : nullptr, dst.data());
        ASSERT_EQ(SimdSynetGetLastError(), nullptr) << what;
        EXPECT_TRUE(dst.GuardsIntact()) << what;
        EXPECT_TRUE(buf.GuardsIntact()) << what;
        ASSERT_TRUE(test::AllOf(
            n,
            [&](size_t i) { return NearBf16(dst[i], expected.value[i], expected.magnitude[i]); }))
            << what << " buf=" << useBuf;
    }
    // In place gives the same bits.
    Guarded<uint16_t> inout(n);
    std::copy(src.data(), src.data() + n, inout.data());
    SimdSynetNormalizeLayerForward16bV2(inout.data(), batch, channels, spatial, scale.data(),
                                        shift.data(), &eps, SimdTensorFormatNhwc, nullptr,
                                        inout.data());
    EXPECT_TRUE(inout.GuardsIntact());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(inout[i], dst[i]) << "in place " << what;
}

TEST_P(Normalization, Bf16V2) {
    uint32_t seed = 500;
    for (size_t channels : test::TailChannels())
        for (size_t spatial : {1, 7, 33})
            for (Data kind : kV23Data) {
                Check16b(spatial == 7 ? 2 : 1, channels, spatial, kind, EpsV23(kind), seed++);
                if (HasFatalFailure()) return;
            }
    // 768: the two-row path with widened deviations; 3072 (over 2048): the two-row path that
    // reads the rows twice, with an odd row count left for the single-row path; 100000: wider
    // than the split parameters.
    for (Data kind : kV23Data) {
        Check16b(1, 768, 196, kind, EpsV23(kind), seed++);
        Check16b(1, 3072, 5, kind, EpsV23(kind), seed++);
        Check16b(1, 100000, 2, kind, EpsV23(kind), seed++);
        if (HasFatalFailure()) return;
    }
}

// The BF16 rounding of the output: ties to even, overflow to infinity, NaN stays NaN. With
// scale 0 every output is exactly shift[c], whose rounding is then checked directly.
TEST_P(Normalization, Bf16Rounding) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    uint32_t tieUp = 0x3F808000u, tieDown = 0x3F818000u, above = 0x3F808001u;  // 1.00390625...
    float fTieUp, fTieDown, fAbove;
    std::memcpy(&fTieUp, &tieUp, 4);
    std::memcpy(&fTieDown, &tieDown, 4);
    std::memcpy(&fAbove, &above, 4);
    const std::vector<float> shift = {fTieUp, fTieDown, fAbove, -fAbove,  FLT_MAX, -FLT_MAX,
                                      0.0f,   -0.0f,    1e-40f, 3.0f,     -7.5f,   1.0f / 3.0f,
                                      nan,    0.1f,     -0.1f,  65504.0f, 1e30f};
    const size_t C = shift.size();
    const std::vector<float> scale(C, 0.0f);
    Guarded<uint16_t> src(C, 0x3F80), dst(C);
    for (size_t c = 0; c < C; ++c) src[c] = uint16_t(0x3F80 + c);
    const float eps = 1e-5f;
    SimdSynetNormalizeLayerForward16bV2(src.data(), 1, C, 1, scale.data(), shift.data(), &eps,
                                        SimdTensorFormatNhwc, nullptr, dst.data());
    ASSERT_EQ(SimdSynetGetLastError(), nullptr);
    for (size_t c = 0; c < C; ++c) {
        if (std::isnan(shift[c])) {
            EXPECT_TRUE(std::isnan(ref::Bf16ToFloat(dst[c]))) << c;
        } else {
            EXPECT_EQ(dst[c], ref::FloatToBf16(shift[c])) << "shift " << shift[c];
        }
    }
    EXPECT_EQ(dst[0], 0x3F80);  // tie rounds to the even 1.0
    EXPECT_EQ(dst[1], 0x3F82);  // tie rounds up to even
    EXPECT_EQ(dst[2], 0x3F81);
    EXPECT_EQ(dst[4], 0x7F80);  // FLT_MAX rounds to +inf
}

// The same rounding cases through the two-row paths (whole vector pairs per row, several row
// pairs): with NaN among the shifts (rounding with the NaN case) and without NaN and FLT_MAX
// (the cheaper rounding, ties and subnormals included).
TEST_P(Normalization, Bf16RoundingTwoRowPaths) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    uint32_t tieUp = 0x3F808000u, tieDown = 0x3F818000u, above = 0x3F808001u;
    float fTieUp, fTieDown, fAbove;
    std::memcpy(&fTieUp, &tieUp, 4);
    std::memcpy(&fTieDown, &tieDown, 4);
    std::memcpy(&fAbove, &above, 4);
    const std::vector<float> finite = {fTieUp,   fTieDown, fAbove,  -fAbove, 0.0f,
                                       -0.0f,    1e-40f,   -1e-40f, 3.0f,    -7.5f,
                                       1.0f / 3, 65504.0f, 1e30f,   0.1f,    -0.1f};
    for (bool withNaN : {true, false}) {
        const size_t C = 64, S = 5;
        std::vector<float> shift(C);
        for (size_t c = 0; c < C; ++c) shift[c] = finite[c % finite.size()];
        if (withNaN) shift[5] = nan, shift[40] = FLT_MAX, shift[41] = -FLT_MAX;
        const std::vector<float> scale(C, 0.0f);
        Guarded<uint16_t> src(C * S), dst(C * S);
        for (size_t i = 0; i < C * S; ++i) src[i] = uint16_t(0x3F80 + (i * 37) % 200);
        const float eps = 1e-5f;
        SimdSynetNormalizeLayerForward16bV2(src.data(), 1, C, S, scale.data(), shift.data(), &eps,
                                            SimdTensorFormatNhwc, nullptr, dst.data());
        ASSERT_EQ(SimdSynetGetLastError(), nullptr);
        EXPECT_TRUE(dst.GuardsIntact());
        for (size_t i = 0; i < C * S; ++i) {
            const float sh = shift[i % C];
            if (std::isnan(sh))
                EXPECT_TRUE(std::isnan(ref::Bf16ToFloat(dst[i]))) << i;
            else if (sh == 0.0f)  // (x - mean) r 0 + shift: the sign of 0 follows x - mean
                EXPECT_EQ(dst[i] & 0x7FFF, 0) << i;
            else
                EXPECT_EQ(dst[i], ref::FloatToBf16(sh)) << "shift " << sh << " at " << i;
        }
    }
}

// ---- Errors and zero sizes (target-independent: plain TESTs) -------------------------------

constexpr float kSentinel = -12345.0f;

struct ErrorBuffers {
    float src[64], scale[64], shift[64], buf[64], dst[64];
    uint16_t src16[64], dst16[64];
    float eps = 1e-5f;
    ErrorBuffers() {
        for (float& v : src) v = 1.0f;
        for (float& v : scale) v = 0.5f;
        for (float& v : shift) v = 0.25f;
        for (uint16_t& v : src16) v = 0x3F80;
        Reset();
    }
    void Reset() {
        for (float& v : dst) v = kSentinel;
        for (uint16_t& v : dst16) v = 0xA5A5;
    }
    bool Untouched() const {
        for (float v : dst)
            if (v != kSentinel) return false;
        for (uint16_t v : dst16)
            if (v != 0xA5A5) return false;
        return true;
    }
};

template <class Call>
void ExpectRejected(const char* function, const std::string& what, ErrorBuffers& b, Call call) {
    b.Reset();
    call();
    const char* error = SimdSynetGetLastError();
    ASSERT_NE(error, nullptr) << function << ": " << what;
    EXPECT_NE(std::string(error).find(function), std::string::npos) << error;
    EXPECT_TRUE(b.Untouched()) << function << ": " << what;
}

const char* kV1 = "SimdSynetNormalizeLayerForward:";
const char* kV2Name = "SimdSynetNormalizeLayerForwardV2";
const char* kV3Name = "SimdSynetNormalizeLayerForwardV3";
const char* kV4Name = "SimdSynetNormalizeLayerForwardV4";
const char* k16b = "SimdSynetNormalizeLayerForward16bV2";

using V234 = void (*)(const float*, size_t, size_t, size_t, const float*, const float*,
                      const float*, SimdTensorFormatType, float*, float*);
const struct {
    const char* name;
    V234 function;
} kV234[] = {{kV2Name, SimdSynetNormalizeLayerForwardV2},
             {kV3Name, SimdSynetNormalizeLayerForwardV3},
             {kV4Name, SimdSynetNormalizeLayerForwardV4}};

TEST(NormalizationErrors, NullPointers) {
    ErrorBuffers b;
    const auto F = SimdTensorFormatNhwc;
    ExpectRejected(kV1, "src", b, [&] {
        SimdSynetNormalizeLayerForward(nullptr, 1, 4, 4, b.scale, &b.eps, SimdFalse, F, b.buf,
                                       b.dst);
    });
    ExpectRejected(kV1, "scale", b, [&] {
        SimdSynetNormalizeLayerForward(b.src, 1, 4, 4, nullptr, &b.eps, SimdTrue, F, b.buf, b.dst);
    });
    ExpectRejected(kV1, "eps", b, [&] {
        SimdSynetNormalizeLayerForward(b.src, 1, 4, 4, b.scale, nullptr, SimdFalse, F, b.buf,
                                       b.dst);
    });
    for (const auto& v : kV234) {
        ExpectRejected(v.name, "src", b, [&] {
            v.function(nullptr, 1, 4, 4, b.scale, b.shift, &b.eps, F, b.buf, b.dst);
        });
        ExpectRejected(v.name, "scale", b, [&] {
            v.function(b.src, 1, 4, 4, nullptr, b.shift, &b.eps, F, b.buf, b.dst);
        });
        ExpectRejected(v.name, "shift", b, [&] {
            v.function(b.src, 1, 4, 4, b.scale, nullptr, &b.eps, F, b.buf, b.dst);
        });
        ExpectRejected(v.name, "eps", b, [&] {
            v.function(b.src, 1, 4, 4, b.scale, b.shift, nullptr, F, b.buf, b.dst);
        });
        ExpectRejected(v.name, "dst", b, [&] {
            v.function(b.src, 1, 4, 4, b.scale, b.shift, &b.eps, F, b.buf, nullptr);
        });
    }
    ExpectRejected(k16b, "src", b, [&] {
        SimdSynetNormalizeLayerForward16bV2(nullptr, 1, 4, 4, b.scale, b.shift, &b.eps, F, b.buf,
                                            b.dst16);
    });
    ExpectRejected(k16b, "shift", b, [&] {
        SimdSynetNormalizeLayerForward16bV2(b.src16, 1, 4, 4, b.scale, nullptr, &b.eps, F, b.buf,
                                            b.dst16);
    });
    ExpectRejected(k16b, "eps", b, [&] {
        SimdSynetNormalizeLayerForward16bV2(b.src16, 1, 4, 4, b.scale, b.shift, nullptr, F, b.buf,
                                            b.dst16);
    });
}

TEST(NormalizationErrors, UnsupportedFormatsAndFlags) {
    ErrorBuffers b;
    // 13 is no enumerator but lies in the enum's value range.
    for (SimdTensorFormatType F :
         {SimdTensorFormatNchw4c, SimdTensorFormatNchw16c, SimdTensorFormatNchwXc,
          SimdTensorFormatOiyx, SimdTensorFormatUnknown, SimdTensorFormatType(13)}) {
        const std::string what = "format " + std::to_string(int(F));
        ExpectRejected(kV1, what, b, [&] {
            SimdSynetNormalizeLayerForward(b.src, 1, 4, 4, b.scale, &b.eps, SimdFalse, F, b.buf,
                                           b.dst);
        });
        for (const auto& v : kV234)
            ExpectRejected(v.name, what, b, [&] {
                v.function(b.src, 1, 4, 4, b.scale, b.shift, &b.eps, F, b.buf, b.dst);
            });
        ExpectRejected(k16b, what, b, [&] {
            SimdSynetNormalizeLayerForward16bV2(b.src16, 1, 4, 4, b.scale, b.shift, &b.eps, F,
                                                b.buf, b.dst16);
        });
    }
    // BF16 is Nhwc only.
    ExpectRejected(k16b, "Nchw", b, [&] {
        SimdSynetNormalizeLayerForward16bV2(b.src16, 1, 4, 4, b.scale, b.shift, &b.eps,
                                            SimdTensorFormatNchw, b.buf, b.dst16);
    });
    ExpectRejected(kV1, "acrossSpatial 2", b, [&] {
        SimdSynetNormalizeLayerForward(b.src, 1, 4, 4, b.scale, &b.eps, SimdBool(2),
                                       SimdTensorFormatNchw, b.buf, b.dst);
    });
}

TEST(NormalizationErrors, Overflow) {
    ErrorBuffers b;
    const auto F = SimdTensorFormatNchw;
    const size_t huge = SIZE_MAX / 2;
    ExpectRejected(kV1, "overflow", b, [&] {
        SimdSynetNormalizeLayerForward(b.src, huge, 4, 4, b.scale, &b.eps, SimdTrue, F, b.buf,
                                       b.dst);
    });
    for (const auto& v : kV234) {
        ExpectRejected(v.name, "overflow channels", b, [&] {
            v.function(b.src, 1, huge, 4, b.scale, b.shift, &b.eps, F, b.buf, b.dst);
        });
        ExpectRejected(v.name, "overflow batch", b, [&] {
            v.function(b.src, huge, 2, 2, b.scale, b.shift, &b.eps, F, b.buf, b.dst);
        });
    }
    // 2^62 BF16 elements are 2^63 bytes (fits), 2^63 are not.
    ExpectRejected(k16b, "overflow", b, [&] {
        SimdSynetNormalizeLayerForward16bV2(b.src16, size_t(1) << 32, size_t(1) << 31, 1, b.scale,
                                            b.shift, &b.eps, SimdTensorFormatNhwc, b.buf, b.dst16);
    });
}

// V4 without a buffer allocates one float per channel; failing to allocate is an error, not a
// crash, and nothing is read or written. (ASan aborts on impossible allocations by default.)
#if !defined(__SANITIZE_ADDRESS__)
TEST(NormalizationErrors, V4AllocationFailure) {
    ErrorBuffers b;
    ExpectRejected(kV4Name, "allocation", b, [&] {
        SimdSynetNormalizeLayerForwardV4(b.src, 1, size_t(1) << 61, 1, b.scale, b.shift, &b.eps,
                                         SimdTensorFormatNchw, nullptr, b.dst);
    });
}
#endif

// Zero batch, channels or spatial (§0.3: a zero extent is a no-op): no error, nothing written,
// even with NULL pointers.
TEST(NormalizationErrors, ZeroSizesAreNoOps) {
    ErrorBuffers b;
    const auto F = SimdTensorFormatNhwc;
    const size_t kZero[][3] = {{0, 4, 4}, {1, 0, 4}, {1, 4, 0}};
    for (const auto& z : kZero) {
        b.Reset();
        SimdSynetNormalizeLayerForward(nullptr, z[0], z[1], z[2], nullptr, nullptr, SimdTrue, F,
                                       nullptr, b.dst);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr);
        for (const auto& v : kV234) {
            v.function(nullptr, z[0], z[1], z[2], nullptr, nullptr, nullptr, F, nullptr, b.dst);
            EXPECT_EQ(SimdSynetGetLastError(), nullptr) << v.name;
        }
        SimdSynetNormalizeLayerForward16bV2(nullptr, z[0], z[1], z[2], nullptr, nullptr, nullptr, F,
                                            nullptr, b.dst16);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr);
        EXPECT_TRUE(b.Untouched());
    }
}

// A successful call clears an earlier error.
TEST(NormalizationErrors, SuccessClearsError) {
    ErrorBuffers b;
    SimdSynetNormalizeLayerForwardV2(nullptr, 1, 4, 4, b.scale, b.shift, &b.eps,
                                     SimdTensorFormatNhwc, nullptr, b.dst);
    ASSERT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetNormalizeLayerForwardV2(b.src, 1, 4, 4, b.scale, b.shift, &b.eps, SimdTensorFormatNhwc,
                                     nullptr, b.dst);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

}  // namespace
