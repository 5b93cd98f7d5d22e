// Tests of the conversion family on every compiled and supported Highway target.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "SimdSynet.hpp"
#include "TestUtil.h"
#include "reference/Conversion.h"

namespace {

using test::Guarded;  // outputs: guard zones catch stray writes
// Inputs are exact-size std::vectors so that the sanitizer build catches reads past their end.

const size_t kBatches[] = {1, 3};
const int kCompatibilities[] = {SimdSynetCompatibilityDefault, SimdSynetCompatibility8iNarrowed,
                                SimdSynetCompatibility8iOverflow,
                                SimdSynetCompatibility8iNarrowed | SimdSynetCompatibilityFmaAvoid};
// (height, width) pairs: single pixel, odd sizes, one full vector and more.
const size_t kShapes[][2] = {{1, 1}, {3, 5}, {1, 16}, {2, 17}, {7, 9}, {4, 33}};

bool SameBits(float a, float b) {
    return std::memcmp(&a, &b, sizeof(float)) == 0;
}

::testing::AssertionResult BitsEqual(const float* actual, const float* expected, size_t n) {
    return test::AllOf(n, [&](size_t i) {
        if (SameBits(actual[i], expected[i])) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << actual[i] << " vs expected " << expected[i];
    });
}

std::string LastError() {
    const char* e = SimdSynetGetLastError();
    return e ? e : "";
}

SIMD_SYNET_TARGET_SUITE(Conversion);

// ---------------------------------------------------------------------------------------------
// SimdSynetConvert32fTo8u

// Channel counts of the quantization tests: the tail counts plus NHWC pixel widths whose
// parameter pattern spans 2, 3 and 4 vectors on the wider targets (6, 12, 32, 64).
std::vector<size_t> QuantizeChannels() {
    std::vector<size_t> channels = test::TailChannels();
    for (size_t c : {6, 12, 32, 64}) channels.push_back(c);
    return channels;
}

TEST_P(Conversion, Convert32fTo8uRandom) {
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        const bool nhwc = format == SimdTensorFormatNhwc;
        for (size_t channels : QuantizeChannels()) {
            for (const auto& shape : kShapes) {
                for (size_t batch : kBatches) {
                    const size_t spatial = shape[0] * shape[1], n = batch * channels * spatial;
                    std::vector<float> src(n), scale(channels), shift(channels);
                    test::FillRandom(src.data(), n, -60.0f, 320.0f,
                                     uint32_t(channels * 131 + spatial + batch));
                    test::FillRandom(scale.data(), channels, 0.25f, 1.5f, uint32_t(channels));
                    test::FillRandom(shift.data(), channels, -20.0f, 20.0f, uint32_t(channels) + 1);
                    for (int compatibility : kCompatibilities) {
                        Guarded<uint8_t> dst(n, 77);
                        SimdSynetConvert32fTo8u(src.data(), batch, channels, shape[0], shape[1],
                                                format, scale.data(), shift.data(), dst.data(),
                                                SimdSynetCompatibilityType(compatibility));
                        ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                        EXPECT_TRUE(dst.GuardsIntact());
                        EXPECT_TRUE(test::AllOf(
                            n,
                            [&](size_t i) {
                                const size_t c = ref::ChannelOf(i, channels, spatial, nhwc);
                                const int expected =
                                    ref::Convert32fTo8u(src[i], scale[c], shift[c], compatibility);
                                if (dst[i] == expected) return ::testing::AssertionSuccess();
                                return ::testing::AssertionFailure()
                                       << "src " << src[i] << " scale " << scale[c] << " shift "
                                       << shift[c] << ": got " << int(dst[i]) << ", expected "
                                       << expected;
                            }))
                            << "format=" << format << " channels=" << channels
                            << " spatial=" << spatial << " batch=" << batch
                            << " compatibility=" << compatibility;
                    }
                }
            }
        }
    }
}

// An input x, scale s and shift h with float(x*s) + h == 0.5 exactly while the exact product
// is slightly larger than float(x*s): the unfused rule gives the tie 0.5 -> 0, an FMA gives a
// value above 0.5 -> 1.
struct FmaCase {
    float x, scale, shift;
};
FmaCase FmaSensitiveCase() {
    const float scale = 0.7f;
    for (float x = 1400.0f; x < 1500.0f; x = std::nextafter(x, 2000.0f)) {
        const float product = x * scale;
        const float shift = 0.5f - product;
        if (product + shift == 0.5f && double(x) * double(scale) - double(product) > 1e-6)
            return {x, scale, shift};
    }
    return {0.0f, 0.0f, 0.0f};
}

TEST_P(Conversion, Convert32fTo8uSpecialValues) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> values = {0.0f,          -0.0f,
                                       0.5f,          1.5f,
                                       2.5f,          3.5f,
                                       4.5f,          -0.5f,
                                       -1.5f,         0.49999997f,
                                       0.50000006f,   1.4999999f,
                                       2.5000002f,    127.5f,
                                       128.5f,        179.5f,
                                       180.5f,        180.49998f,
                                       181.0f,        254.5f,
                                       254.49998f,    255.5f,
                                       256.0f,        1000.0f,
                                       1e10f,         -1e10f,
                                       2147483648.0f, 4294967296.0f,
                                       8388608.5f,    16777217.0f,
                                       FLT_MAX,       -FLT_MAX,
                                       inf,           -inf,
                                       nan,           -nan,
                                       FLT_MIN,       -std::numeric_limits<float>::denorm_min(),
                                       1e-30f,        0.99999994f,
                                       254.99998f};
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        // Identity scale and shift on every value, repeated so that every position of a vector
        // (and the tails) sees every value.
        const size_t channels = 1, n = values.size() * 17;
        std::vector<float> src(n);
        for (size_t i = 0; i < n; ++i) src[i] = values[(i * 7) % values.size()];
        const float one = 1.0f, zero = 0.0f;
        for (int compatibility : kCompatibilities) {
            Guarded<uint8_t> dst(n, 77);
            SimdSynetConvert32fTo8u(src.data(), 1, channels, 1, n, format, &one, &zero, dst.data(),
                                    SimdSynetCompatibilityType(compatibility));
            ASSERT_EQ(SimdSynetGetLastError(), nullptr);
            EXPECT_TRUE(dst.GuardsIntact());
            EXPECT_TRUE(test::AllOf(n,
                                    [&](size_t i) {
                                        const int expected =
                                            ref::Convert32fTo8u(src[i], 1.0f, 0.0f, compatibility);
                                        if (dst[i] == expected)
                                            return ::testing::AssertionSuccess();
                                        return ::testing::AssertionFailure()
                                               << "src " << src[i] << ": got " << int(dst[i])
                                               << ", expected " << expected;
                                    }))
                << "compatibility=" << compatibility;
        }
    }
    // Hand-checked expectations of the rule (full range): ties to even, NaN -> 0, saturation.
    const float inputs[] = {2.5f, 3.5f, -0.5f, 0.49999997f, 255.5f, 300.0f, nan, inf, -inf, 1e30f};
    const uint8_t expected[] = {2, 4, 0, 0, 255, 255, 0, 255, 0, 255};
    const size_t n = sizeof(inputs) / sizeof(inputs[0]);
    const float one = 1.0f, zero = 0.0f;
    Guarded<uint8_t> dst(n);
    SimdSynetConvert32fTo8u(inputs, 1, 1, 1, n, SimdTensorFormatNchw, &one, &zero, dst.data(),
                            SimdSynetCompatibilityDefault);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(dst[i], expected[i]) << "input " << inputs[i];
}

TEST_P(Conversion, Convert32fTo8uDoesNotFuse) {
    const FmaCase fma = FmaSensitiveCase();
    ASSERT_NE(fma.x, 0.0f);
    // Every lane position, several channels (NHWC pattern path and NCHW broadcast path).
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        for (size_t channels : {size_t(1), size_t(3), size_t(16)}) {
            const size_t spatial = 37, n = channels * spatial;
            std::vector<float> src(n, fma.x), scale(channels, fma.scale),
                shift(channels, fma.shift);
            Guarded<uint8_t> dst(n, 77);
            SimdSynetConvert32fTo8u(src.data(), 1, channels, 1, spatial, format, scale.data(),
                                    shift.data(), dst.data(), SimdSynetCompatibilityDefault);
            ASSERT_EQ(SimdSynetGetLastError(), nullptr);
            EXPECT_TRUE(test::AllOf(n,
                                    [&](size_t i) {
                                        return dst[i] == 0
                                                   ? ::testing::AssertionSuccess()
                                                   : ::testing::AssertionFailure() << int(dst[i]);
                                    }))
                << "format=" << format << " channels=" << channels;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// SimdSynetConvert8uTo32f

TEST_P(Conversion, Convert8uTo32f) {
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        const bool nhwc = format == SimdTensorFormatNhwc;
        for (size_t channels : QuantizeChannels()) {
            for (const auto& shape : kShapes) {
                for (size_t batch : kBatches) {
                    const size_t spatial = shape[0] * shape[1], n = batch * channels * spatial;
                    std::vector<uint8_t> src(n);
                    std::vector<float> scale(channels), shift(channels);
                    Guarded<float> dst(n, 7.0f);
                    test::FillRandom(src.data(), n, uint32_t(channels * 17 + spatial + batch));
                    test::FillRandom(scale.data(), channels, -0.1f, 0.1f, uint32_t(channels));
                    test::FillRandom(shift.data(), channels, -3.0f, 3.0f, uint32_t(channels) + 9);
                    SimdSynetConvert8uTo32f(src.data(), batch, channels, shape[0], shape[1], format,
                                            scale.data(), shift.data(), dst.data(),
                                            SimdSynetCompatibilityDefault);
                    ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                    EXPECT_TRUE(dst.GuardsIntact());
                    EXPECT_TRUE(test::AllOf(n,
                                            [&](size_t i) {
                                                const size_t c =
                                                    ref::ChannelOf(i, channels, spatial, nhwc);
                                                double magnitude;
                                                const double r = ref::Convert8uTo32f(
                                                    src[i], scale[c], shift[c], &magnitude);
                                                return test::Near(dst[i], r, magnitude, 1e-6, 1e-7);
                                            }))
                        << "format=" << format << " channels=" << channels << " spatial=" << spatial
                        << " batch=" << batch;
                }
            }
        }
    }
}

TEST_P(Conversion, Convert8uTo32fAllBytes) {
    // Every byte value in every lane position, identity mapping: the result is exact.
    const size_t n = 256 * 3 + 5;
    std::vector<uint8_t> src(n);
    for (size_t i = 0; i < n; ++i) src[i] = uint8_t(i * 5 + i / 256);
    const float one = 1.0f, zero = 0.0f;
    Guarded<float> dst(n);
    SimdSynetConvert8uTo32f(src.data(), 1, 1, 1, n, SimdTensorFormatNhwc, &one, &zero, dst.data(),
                            SimdSynetCompatibilityDefault);
    EXPECT_TRUE(test::AllOf(n, [&](size_t i) {
        return dst[i] == float(src[i]) ? ::testing::AssertionSuccess()
                                       : ::testing::AssertionFailure() << dst[i];
    }));
}

TEST(ConversionErrors, QuantizeRejectsBadArguments) {
    float fsrc[4] = {1, 2, 3, 4}, fdst[4] = {7, 7, 7, 7}, scale = 1.0f, shift = 0.0f;
    uint8_t usrc[4] = {1, 2, 3, 4}, udst[4] = {7, 7, 7, 7};
    SimdSynetConvert32fTo8u(fsrc, 1, 1, 2, 2, SimdTensorFormatNchw4c, &scale, &shift, udst,
                            SimdSynetCompatibilityDefault);
    EXPECT_NE(LastError().find("SimdSynetConvert32fTo8u"), std::string::npos);
    SimdSynetConvert32fTo8u(nullptr, 1, 1, 2, 2, SimdTensorFormatNchw, &scale, &shift, udst,
                            SimdSynetCompatibilityDefault);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvert32fTo8u(fsrc, 1, 1, 2, 2, SimdTensorFormatNhwc, nullptr, &shift, udst,
                            SimdSynetCompatibilityDefault);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvert32fTo8u(fsrc, SIZE_MAX / 4, 2, 2, 2, SimdTensorFormatNchw, &scale, &shift, udst,
                            SimdSynetCompatibilityDefault);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvert32fTo8u(fsrc, 1, 1, SIZE_MAX, 3, SimdTensorFormatNchw, &scale, &shift, udst,
                            SimdSynetCompatibilityDefault);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    for (uint8_t v : udst) EXPECT_EQ(v, 7);

    SimdSynetConvert8uTo32f(usrc, 1, 1, 2, 2, SimdTensorFormatUnknown, &scale, &shift, fdst,
                            SimdSynetCompatibilityDefault);
    EXPECT_NE(LastError().find("SimdSynetConvert8uTo32f"), std::string::npos);
    SimdSynetConvert8uTo32f(usrc, 1, 1, 2, 2, SimdTensorFormatNchw, &scale, nullptr, fdst,
                            SimdSynetCompatibilityDefault);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvert8uTo32f(usrc, 1, 1, 2, 2, SimdTensorFormatNchw, &scale, &shift, nullptr,
                            SimdSynetCompatibilityDefault);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvert8uTo32f(usrc, 2, SIZE_MAX / 4, 1, 1, SimdTensorFormatNhwc, &scale, &shift, fdst,
                            SimdSynetCompatibilityDefault);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    for (float v : fdst) EXPECT_EQ(v, 7.0f);

    // Zero sizes are a valid no-op, even with NULL pointers.
    SimdSynetConvert32fTo8u(nullptr, 0, 3, 2, 2, SimdTensorFormatNchw, nullptr, nullptr, nullptr,
                            SimdSynetCompatibilityDefault);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetConvert8uTo32f(nullptr, 1, 3, 0, 2, SimdTensorFormatNhwc, nullptr, nullptr, nullptr,
                            SimdSynetCompatibilityDefault);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

// ---------------------------------------------------------------------------------------------
// SimdSynetSetInput

struct PixelFormatInfo {
    SimdPixelFormatType format;
    size_t bpp;
};
const PixelFormatInfo kPixelFormats[] = {{SimdPixelFormatGray8, 1},
                                         {SimdPixelFormatBgr24, 3},
                                         {SimdPixelFormatBgra32, 4},
                                         {SimdPixelFormatRgb24, 3},
                                         {SimdPixelFormatRgba32, 4}};

// Checks dst (channels x height x width in dstFormat) against the §7.3 reference.
::testing::AssertionResult CheckSetInput(const uint8_t* src, size_t width, size_t height,
                                         size_t stride, SimdPixelFormatType format, size_t bpp,
                                         const float* lower, const float* upper, const float* dst,
                                         size_t channels, bool nhwc) {
    for (size_t c = 0; c < channels; ++c)
        for (size_t y = 0; y < height; ++y)
            for (size_t x = 0; x < width; ++x) {
                const int v = ref::SetInputSample(src + y * stride + x * bpp, format, channels, c);
                double magnitude;
                const double r = ref::SetInputValue(v, lower[c], upper[c], &magnitude);
                const size_t offset =
                    nhwc ? (y * width + x) * channels + c : (c * height + y) * width + x;
                ::testing::AssertionResult ok = test::Near(dst[offset], r, magnitude, 2e-6, 1e-7);
                if (!ok)
                    return ::testing::AssertionFailure()
                           << "c=" << c << " y=" << y << " x=" << x << ": " << ok.message();
            }
    return ::testing::AssertionSuccess();
}

TEST_P(Conversion, SetInput) {
    const float lower[3] = {-2.1f, -1.9f, -1.7f}, upper[3] = {2.2f, 2.4f, 2.6f};
    for (const PixelFormatInfo& pf : kPixelFormats) {
        for (size_t width : {1, 3, 7, 15, 16, 17, 33, 64, 100}) {
            for (size_t height : {1, 2, 5}) {
                for (size_t pad : {0, 3, 13}) {
                    const size_t stride = width * pf.bpp + pad;
                    std::vector<uint8_t> src(stride * height);
                    test::FillRandom(src.data(), src.size(), uint32_t(width * 7 + height + pad));
                    for (size_t channels : {1, 3}) {
                        for (SimdTensorFormatType dstFormat :
                             {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
                            const size_t n = channels * width * height;
                            Guarded<float> dst(n, 1234.0f);
                            SimdSynetSetInput(src.data(), width, height, stride, pf.format, lower,
                                              upper, dst.data(), channels, dstFormat);
                            ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                            EXPECT_TRUE(dst.GuardsIntact());
                            EXPECT_TRUE(CheckSetInput(src.data(), width, height, stride, pf.format,
                                                      pf.bpp, lower, upper, dst.data(), channels,
                                                      dstFormat == SimdTensorFormatNhwc))
                                << "format=" << pf.format << " width=" << width
                                << " height=" << height << " stride=" << stride
                                << " channels=" << channels << " dstFormat=" << dstFormat;
                        }
                    }
                }
            }
        }
    }
}

// With lower 0 and upper 255 the mapping is the identity (k == 1), so the output shows the
// integer samples themselves: the gray formula must match bit for bit.
TEST_P(Conversion, SetInputGrayIsExact) {
    const size_t width = 4 * 64 + 9, height = 3;
    const float lower = 0.0f, upper = 255.0f;
    for (const PixelFormatInfo& pf : kPixelFormats) {
        const size_t stride = width * pf.bpp + 1;
        std::vector<uint8_t> src(stride * height);
        test::FillRandom(src.data(), src.size(), 99);
        // Extremes: white, black and single saturated channels in the first pixels.
        const uint8_t patterns[][4] = {{255, 255, 255, 255}, {0, 0, 0, 0},   {255, 0, 0, 0},
                                       {0, 255, 0, 0},       {0, 0, 255, 0}, {254, 255, 255, 0}};
        for (size_t p = 0; p < 6; ++p)
            for (size_t b = 0; b < pf.bpp; ++b) src[p * pf.bpp + b] = patterns[p][b];
        Guarded<float> dst(width * height);
        SimdSynetSetInput(src.data(), width, height, stride, pf.format, &lower, &upper, dst.data(),
                          1, SimdTensorFormatNchw);
        ASSERT_EQ(SimdSynetGetLastError(), nullptr);
        for (size_t y = 0; y < height; ++y)
            for (size_t x = 0; x < width; ++x) {
                const int v =
                    ref::SetInputSample(src.data() + y * stride + x * pf.bpp, pf.format, 1, 0);
                ASSERT_EQ(dst[y * width + x], float(v))
                    << "format=" << pf.format << " x=" << x << " y=" << y;
            }
    }
}

// With one channel the layout tag does not matter (§7.3), even an image-blocked one.
TEST_P(Conversion, SetInputOneChannelIgnoresFormat) {
    const size_t width = 37, height = 4, stride = width * 3;
    std::vector<uint8_t> src(stride * height);
    test::FillRandom(src.data(), src.size(), 5);
    const float lower = -1.0f, upper = 1.0f;
    Guarded<float> a(width * height), b(width * height);
    SimdSynetSetInput(src.data(), width, height, stride, SimdPixelFormatBgr24, &lower, &upper,
                      a.data(), 1, SimdTensorFormatNchw);
    SimdSynetSetInput(src.data(), width, height, stride, SimdPixelFormatBgr24, &lower, &upper,
                      b.data(), 1, SimdTensorFormatNhwc);
    EXPECT_TRUE(BitsEqual(b.data(), a.data(), a.size()));
}

TEST(ConversionErrors, SetInputRejectsBadArguments) {
    const uint8_t src[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const float lower[4] = {0, 0, 0, 0}, upper[4] = {1, 1, 1, 1};
    float dst[16];
    for (float& v : dst) v = 7.0f;
    const auto untouched = [&] {
        for (float v : dst)
            if (v != 7.0f) return false;
        return true;
    };
    for (SimdPixelFormatType format :
         {SimdPixelFormatNone, SimdPixelFormatUv16, SimdPixelFormatInt32, SimdPixelFormatFloat,
          SimdPixelFormatBayerRggb, SimdPixelFormatHsv24,
          SimdPixelFormatType(18) /* unknown, within the enum's range of values */}) {
        SimdSynetSetInput(src, 2, 2, 8, format, lower, upper, dst, 3, SimdTensorFormatNchw);
        EXPECT_NE(LastError().find("SimdSynetSetInput"), std::string::npos) << format;
    }
    for (size_t channels : {0, 2, 4}) {
        SimdSynetSetInput(src, 2, 2, 8, SimdPixelFormatBgra32, lower, upper, dst, channels,
                          SimdTensorFormatNchw);
        EXPECT_NE(SimdSynetGetLastError(), nullptr) << channels;
    }
    for (SimdTensorFormatType format : {SimdTensorFormatNchw4c, SimdTensorFormatNchwXc,
                                        SimdTensorFormatUnknown, SimdTensorFormatOiyx}) {
        SimdSynetSetInput(src, 2, 2, 8, SimdPixelFormatBgra32, lower, upper, dst, 3, format);
        EXPECT_NE(SimdSynetGetLastError(), nullptr) << format;
    }
    SimdSynetSetInput(nullptr, 2, 2, 8, SimdPixelFormatBgra32, lower, upper, dst, 3,
                      SimdTensorFormatNchw);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetSetInput(src, 2, 2, 8, SimdPixelFormatBgra32, nullptr, upper, dst, 3,
                      SimdTensorFormatNchw);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetSetInput(src, 2, 2, 8, SimdPixelFormatBgra32, lower, nullptr, dst, 3,
                      SimdTensorFormatNchw);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetSetInput(src, SIZE_MAX / 2, 2, 8, SimdPixelFormatBgra32, lower, upper, dst, 3,
                      SimdTensorFormatNchw);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetSetInput(src, 2, 3, SIZE_MAX / 2, SimdPixelFormatGray8, lower, upper, dst, 1,
                      SimdTensorFormatNchw);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_TRUE(untouched());
    // Zero sizes: valid no-op.
    SimdSynetSetInput(nullptr, 0, 2, 8, SimdPixelFormatBgr24, nullptr, nullptr, nullptr, 3,
                      SimdTensorFormatNhwc);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

// ---------------------------------------------------------------------------------------------
// Simd::View and Simd::SynetSetInput (SimdSynet.hpp)

typedef Simd::View<Simd::Allocator> View;

TEST(ConversionCpp, ViewOwnsAlignedRows) {
    View image(33, 5, View::Bgr24);
    EXPECT_TRUE(image.Owner());
    EXPECT_EQ(image.width, 33u);
    EXPECT_EQ(image.height, 5u);
    EXPECT_EQ(image.format, View::Bgr24);
    EXPECT_GE(image.stride, 33u * 3);
    EXPECT_EQ(image.stride % SimdAlignment(), 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(image.data) % SimdAlignment(), 0u);
    EXPECT_EQ(image.At(2, 3), image.data + 3 * image.stride + 6);
    const View copy(image);  // a non-owning view of the same pixels
    EXPECT_FALSE(copy.Owner());
    EXPECT_EQ(copy.data, image.data);
    EXPECT_EQ(int(View::Rgba32), int(SimdPixelFormatRgba32));
    EXPECT_EQ(View::PixelSize(View::Bgra32), 4u);
    View empty;
    EXPECT_EQ(empty.data, nullptr);
    empty.Recreate(4, 4, View::Gray8);
    EXPECT_TRUE(empty.Owner());
    empty.Clear();
    EXPECT_EQ(empty.data, nullptr);
}

TEST(ConversionCpp, SynetSetInputMatchesCFunction) {
    const size_t width = 19, height = 6;
    const float lower[3] = {-1.0f, -0.5f, 0.0f}, upper[3] = {1.0f, 1.5f, 2.0f};
    struct Case {
        View::Format view;
        bool isRgb;
        SimdPixelFormatType expected;
    };
    const Case cases[] = {
        {View::Gray8, false, SimdPixelFormatGray8},   {View::Gray8, true, SimdPixelFormatGray8},
        {View::Bgr24, false, SimdPixelFormatBgr24},   {View::Bgr24, true, SimdPixelFormatRgb24},
        {View::Rgb24, false, SimdPixelFormatRgb24},   {View::Rgb24, true, SimdPixelFormatBgr24},
        {View::Bgra32, false, SimdPixelFormatBgra32}, {View::Bgra32, true, SimdPixelFormatRgba32},
        {View::Rgba32, false, SimdPixelFormatRgba32}, {View::Rgba32, true, SimdPixelFormatBgra32}};
    for (const Case& tc : cases) {
        View image(width, height, tc.view);
        test::FillRandom(image.data, image.stride * height, uint32_t(tc.view));
        for (size_t channels : {1, 3}) {
            for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
                const size_t n = channels * width * height;
                std::vector<float> viaCpp(n, 5.0f), viaC(n, 6.0f);
                Simd::SynetSetInput(image, lower, upper, viaCpp.data(), channels, format, tc.isRgb);
                ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                SimdSynetSetInput(image.data, width, height, image.stride, tc.expected, lower,
                                  upper, viaC.data(), channels, format);
                EXPECT_TRUE(BitsEqual(viaCpp.data(), viaC.data(), n))
                    << "view=" << tc.view << " isRgb=" << tc.isRgb << " channels=" << channels;
            }
        }
    }
}

TEST(ConversionCpp, SynetSetInputOnCallerMemoryAndBadFormat) {
    // A view of caller-owned pixels with a padded stride: 3 x 2 Bgr24 pixels.
    uint8_t pixels[2][12] = {{10, 20, 30, 40, 50, 60, 70, 80, 90, 0, 0, 0},
                             {1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0}};
    const View image(3, 2, 12, View::Bgr24, pixels);
    const float lower[3] = {0.0f, 0.0f, 0.0f}, upper[3] = {255.0f, 255.0f, 255.0f};
    float dst[18];
    Simd::SynetSetInput(image, lower, upper, dst, 3, SimdTensorFormatNhwc, true);
    ASSERT_EQ(SimdSynetGetLastError(), nullptr);
    // RGB order requested: channel 0 is byte 2 of each pixel.
    const float expected[18] = {30, 20, 10, 60, 50, 40, 90, 80, 70, 3, 2, 1, 6, 5, 4, 9, 8, 7};
    for (size_t i = 0; i < 18; ++i) EXPECT_EQ(dst[i], expected[i]) << i;

    const View wrong(3, 2, 12, View::Int16, pixels);
    for (float& v : dst) v = 7.0f;
    Simd::SynetSetInput(wrong, lower, upper, dst, 3, SimdTensorFormatNhwc);
    EXPECT_NE(LastError().find("SimdSynetSetInput"), std::string::npos);
    for (float v : dst) EXPECT_EQ(v, 7.0f);
}

// ---------------------------------------------------------------------------------------------
// SimdSynetConvertImage

std::vector<SimdTensorFormatType> ImageFormats() {
    return test::ImageFormats();
}

bool ImagePairSupported(SimdTensorFormatType src, SimdTensorFormatType dst) {
    const bool srcBlocked = SimdSynetTensorAlignment(src) > 1;
    const bool dstBlocked = SimdSynetTensorAlignment(dst) > 1;
    return src == dst || !srcBlocked || !dstBlocked;
}

// Fills a tensor with distinct values, including NaN payloads and signed zeros, so that only
// bit-exact moves of the right elements pass.
void FillPatterns(float* dst, size_t n, uint32_t seed) {
    test::FillRandom(dst, n, -100.0f, 100.0f, seed);
    for (size_t i = 0; i < n; i += 11) {
        const uint32_t bits = 0x7FC00000u | uint32_t(i & 0x3FFFFF);  // NaN with a payload
        std::memcpy(&dst[i], &bits, sizeof(bits));
    }
    for (size_t i = 5; i < n; i += 13) dst[i] = -0.0f;
}

TEST_P(Conversion, ConvertImage) {
    const size_t kSpatial[] = {1, 2, 3, 4, 5, 16, 49, 67, 150};
    std::vector<size_t> channelCounts = test::TailChannels();
    channelCounts.push_back(2);
    channelCounts.push_back(4);
    channelCounts.push_back(70);
    for (SimdTensorFormatType srcFormat : ImageFormats()) {
        for (SimdTensorFormatType dstFormat : ImageFormats()) {
            if (!ImagePairSupported(srcFormat, dstFormat)) continue;
            for (size_t channels : channelCounts) {
                for (size_t spatial : kSpatial) {
                    for (size_t batch : kBatches) {
                        const size_t srcImage =
                            SimdAlign(channels, SimdSynetTensorAlignment(srcFormat)) * spatial;
                        const size_t dstImage =
                            SimdAlign(channels, SimdSynetTensorAlignment(dstFormat)) * spatial;
                        std::vector<float> src(batch * srcImage);
                        FillPatterns(src.data(), src.size(), uint32_t(channels * 7 + spatial));
                        Guarded<float> dst(batch * dstImage, 12345.0f);
                        std::vector<float> expected(batch * dstImage, 12345.0f);
                        SimdSynetConvertImage(batch, channels, spatial, src.data(), srcFormat,
                                              dst.data(), dstFormat);
                        ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                        ref::ConvertImage(batch, channels, spatial, src.data(), srcFormat,
                                          expected.data(), dstFormat);
                        EXPECT_TRUE(dst.GuardsIntact());
                        EXPECT_TRUE(BitsEqual(dst.data(), expected.data(), expected.size()))
                            << "src=" << srcFormat << " dst=" << dstFormat
                            << " channels=" << channels << " spatial=" << spatial
                            << " batch=" << batch;
                    }
                }
            }
        }
    }
}

TEST(ConversionErrors, ConvertImageRejectsBadArguments) {
    float src[64] = {1}, dst[64];
    for (float& v : dst) v = 7.0f;
    const SimdTensorFormatType bad[][2] = {{SimdTensorFormatNchw4c, SimdTensorFormatNchw8c},
                                           {SimdTensorFormatNchw16c, SimdTensorFormatNchw4c},
                                           {SimdTensorFormatNchw, SimdTensorFormatNchwXc},
                                           {SimdTensorFormatNchwXc, SimdTensorFormatNhwc},
                                           {SimdTensorFormatUnknown, SimdTensorFormatNchw},
                                           {SimdTensorFormatNchw, SimdTensorFormatOiyx},
                                           {SimdTensorFormatOiyx, SimdTensorFormatOiyx},
                                           {SimdTensorFormatNhwc, SimdTensorFormatType(13)}};
    for (const auto& pair : bad) {
        SimdSynetConvertImage(1, 3, 4, src, pair[0], dst, pair[1]);
        EXPECT_NE(LastError().find("SimdSynetConvertImage"), std::string::npos)
            << pair[0] << " -> " << pair[1];
    }
    SimdSynetConvertImage(1, 3, 4, nullptr, SimdTensorFormatNchw, dst, SimdTensorFormatNhwc);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvertImage(1, 3, 4, src, SimdTensorFormatNchw, nullptr, SimdTensorFormatNhwc);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvertImage(2, SIZE_MAX / 4, 1, src, SimdTensorFormatNchw, dst, SimdTensorFormatNhwc);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvertImage(1, SIZE_MAX - 2, 1, src, SimdTensorFormatNchw, dst,
                          SimdTensorFormatNchw16c);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    for (float v : dst) EXPECT_EQ(v, 7.0f);
    SimdSynetConvertImage(0, 3, 4, nullptr, SimdTensorFormatNchw, nullptr, SimdTensorFormatNhwc);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

// ---------------------------------------------------------------------------------------------
// SimdSynetConvertFilter

std::vector<SimdTensorFormatType> FilterFormats() {
    return {SimdTensorFormatOiyx, SimdTensorFormatYxio, SimdTensorFormatOyxi4o,
            SimdTensorFormatOyxi8o, SimdTensorFormatOyxi16o};
}

TEST_P(Conversion, ConvertFilter) {
    std::vector<size_t> outputs = test::TailChannels();
    outputs.push_back(2);
    outputs.push_back(40);
    for (SimdTensorFormatType srcFormat : FilterFormats()) {
        for (SimdTensorFormatType dstFormat : FilterFormats()) {
            if (!ImagePairSupported(srcFormat, dstFormat)) continue;
            for (size_t output : outputs) {
                for (size_t input : {1, 2, 3, 5, 17}) {
                    for (size_t kernel : {1, 2, 3, 9}) {
                        const size_t srcSize =
                            SimdAlign(output, SimdSynetTensorAlignment(srcFormat)) * input * kernel;
                        const size_t dstSize =
                            SimdAlign(output, SimdSynetTensorAlignment(dstFormat)) * input * kernel;
                        std::vector<float> src(srcSize);
                        FillPatterns(src.data(), srcSize, uint32_t(output * 3 + input + kernel));
                        Guarded<float> dst(dstSize, 12345.0f);
                        std::vector<float> expected(dstSize, 12345.0f);
                        SimdSynetConvertFilter(output, input, kernel, src.data(), srcFormat,
                                               dst.data(), dstFormat);
                        ASSERT_EQ(SimdSynetGetLastError(), nullptr);
                        ref::ConvertFilter(output, input, kernel, src.data(), srcFormat,
                                           expected.data(), dstFormat);
                        EXPECT_TRUE(dst.GuardsIntact());
                        EXPECT_TRUE(BitsEqual(dst.data(), expected.data(), dstSize))
                            << "src=" << srcFormat << " dst=" << dstFormat << " output=" << output
                            << " input=" << input << " kernel=" << kernel;
                    }
                }
            }
        }
    }
}

TEST(ConversionErrors, ConvertFilterRejectsBadArguments) {
    float src[64] = {1}, dst[64];
    for (float& v : dst) v = 7.0f;
    const SimdTensorFormatType bad[][2] = {{SimdTensorFormatOyxi4o, SimdTensorFormatOyxi8o},
                                           {SimdTensorFormatOyxi16o, SimdTensorFormatOyxi4o},
                                           {SimdTensorFormatOiyx, SimdTensorFormatOyxiXo},
                                           {SimdTensorFormatOyxiXo, SimdTensorFormatYxio},
                                           {SimdTensorFormatUnknown, SimdTensorFormatOiyx},
                                           {SimdTensorFormatNchw, SimdTensorFormatOiyx},
                                           {SimdTensorFormatNchw, SimdTensorFormatNchw},
                                           {SimdTensorFormatYxio, SimdTensorFormatType(-7)}};
    for (const auto& pair : bad) {
        SimdSynetConvertFilter(2, 3, 4, src, pair[0], dst, pair[1]);
        EXPECT_NE(LastError().find("SimdSynetConvertFilter"), std::string::npos)
            << pair[0] << " -> " << pair[1];
    }
    SimdSynetConvertFilter(2, 3, 4, nullptr, SimdTensorFormatOiyx, dst, SimdTensorFormatYxio);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvertFilter(2, 3, 4, src, SimdTensorFormatOiyx, nullptr, SimdTensorFormatYxio);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvertFilter(SIZE_MAX / 8, 3, 4, src, SimdTensorFormatOiyx, dst,
                           SimdTensorFormatYxio);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvertFilter(SIZE_MAX - 1, 1, 1, src, SimdTensorFormatYxio, dst,
                           SimdTensorFormatOyxi8o);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    for (float v : dst) EXPECT_EQ(v, 7.0f);
    SimdSynetConvertFilter(2, 0, 4, nullptr, SimdTensorFormatOiyx, nullptr, SimdTensorFormatYxio);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

}  // namespace

// The params counts the frameworks read (SimdSynet.hpp), one per activation of §3.1.
TEST(ConversionCpp, ConvolutionActivationParams) {
    const std::pair<SimdConvolutionActivationType, size_t> expected[] = {
        {SimdConvolutionActivationIdentity, 0},    {SimdConvolutionActivationRelu, 0},
        {SimdConvolutionActivationLeakyRelu, 1},   {SimdConvolutionActivationRestrictRange, 2},
        {SimdConvolutionActivationPrelu, 33},      {SimdConvolutionActivationElu, 1},
        {SimdConvolutionActivationHswish, 2},      {SimdConvolutionActivationMish, 1},
        {SimdConvolutionActivationHardSigmoid, 2}, {SimdConvolutionActivationSwish, 1},
        {SimdConvolutionActivationGelu, 0}};
    for (const auto& [activation, count] : expected)
        EXPECT_EQ(Simd::ConvolutionActivationParams(activation, 33), count) << int(activation);
}
