// Test of the softmax-specific exponential (src/softmax/SoftmaxExp-inl.h) on every compiled and
// supported Highway target, against std::exp in double: it must hold the 1e-5 relative bound
// over the whole domain softmax uses, [-87.3, 0], on its own (the softmax tests only see it
// through sums and quotients).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "softmax_exp_test.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "softmax/SoftmaxExp-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// y[i] = SoftmaxExp(x[i]): groups of 4 vectors (the shape the kernels use), single vectors,
// then 1-lane tails.
void SoftmaxExpArray(const float* x, size_t n, float* y) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (; i + 4 * L <= n; i += 4 * L) {
        hn::Vec<DF> v[4];
        for (size_t k = 0; k < 4; ++k) v[k] = hn::LoadU(d, x + i + k * L);
        SoftmaxExp(d, v);
        for (size_t k = 0; k < 4; ++k) hn::StoreU(v[k], d, y + i + k * L);
    }
    for (; i + L <= n; i += L) {
        hn::Vec<DF> v[1] = {hn::LoadU(d, x + i)};
        SoftmaxExp(d, v);
        hn::StoreU(v[0], d, y + i);
    }
    const DF1 d1;
    for (; i < n; ++i) {
        hn::Vec<DF1> v[1] = {hn::LoadU(d1, x + i)};
        SoftmaxExp(d1, v);
        hn::StoreU(v[0], d1, y + i);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cmath>
#include <limits>
#include <vector>

#include "TestUtil.h"

namespace simd {
HWY_EXPORT(SoftmaxExpArray);
}  // namespace simd

namespace {

std::vector<float> RunExp(const std::vector<float>& x) {
    std::vector<float> y(x.size());
    HWY_DYNAMIC_DISPATCH(simd::SoftmaxExpArray)(x.data(), x.size(), y.data());
    return y;
}

SIMD_SYNET_TARGET_SUITE(SoftmaxExp);

// A dense sweep of [-87.3, 0] (2^22 + 1 evenly spaced points, a step of ~2e-5 so every range
// reduction interval is crossed thousands of times) plus every float in [-1, 0] near the ends
// of the polynomial's interval, all within 1e-5 relative of the exact value.
TEST_P(SoftmaxExp, RelativeErrorOverDomain) {
    constexpr double kLo = -87.3;
    constexpr size_t kSteps = size_t(1) << 22;
    std::vector<float> x;
    x.reserve(kSteps + 1 + 4096);
    for (size_t i = 0; i <= kSteps; ++i) x.push_back(float(kLo * double(i) / double(kSteps)));
    // Around +-ln2/2 and n*ln2 for a few n, every float in a small window.
    for (double centre : {-0.34657359, -1.03972077, -44.0 * 0.69314718 - 0.34657359, -87.0})
        for (float v = float(centre) - 1e-4f, end = float(centre) + 1e-4f; v < end;
             v = std::nextafter(v, 0.0f))
            if (x.size() < kSteps + 1 + 4096 * 100) x.push_back(v);
    x.push_back(-0.0f);
    const std::vector<float> y = RunExp(x);
    double worst = 0.0;
    size_t worstAt = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double ref = std::exp(double(x[i]));
        const double err = std::fabs(double(y[i]) - ref) / ref;
        if (!(err <= worst)) worst = err, worstAt = i;
    }
    EXPECT_LE(worst, 1e-5) << "at x=" << x[worstAt] << " got " << y[worstAt] << " want "
                           << std::exp(double(x[worstAt]));
    // The maximum element of a row (x == 0) gives 1 up to the polynomial's error.
    EXPECT_NEAR(y.back(), 1.0, 1e-6);
}

// Below the domain the result is a tiny non-negative number (the terms drop out of the sum);
// NaN stays NaN.
TEST_P(SoftmaxExp, BelowDomainAndNaN) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> x = {
        -87.34f, -88.0f, -100.0f, -1e30f, -std::numeric_limits<float>::infinity(),
        nan,     -nan,   -1.0f};
    const std::vector<float> y = RunExp(x);
    for (size_t i = 0; i < 5; ++i) {
        EXPECT_GE(y[i], 0.0f) << "x=" << x[i];
        EXPECT_LE(y[i], 1.3e-38f) << "x=" << x[i];
    }
    EXPECT_TRUE(std::isnan(y[5]));
    EXPECT_TRUE(std::isnan(y[6]));
    EXPECT_NEAR(y[7], std::exp(-1.0), 1e-5 * std::exp(-1.0));
}

}  // namespace
#endif  // HWY_ONCE
