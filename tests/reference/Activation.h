// Naive references of the activation functions, written from the seed formulas
// (SUPPLEMENT.md §3, §4.3). Linear ones are evaluated in double and also return the magnitude
// against which the LIN tolerance is measured.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace ref {

// max(0, x) + slope*min(x, 0); magnitude |max| + |slope*min|.
inline double Relu(float x, float slope, double* magnitude) {
    const double pos = std::max(0.0, double(x)), neg = double(slope) * std::min(double(x), 0.0);
    *magnitude = std::fabs(pos) + std::fabs(neg);
    return pos + neg;
}

// EXACT: max(lower, min(upper, x)) in FP32.
inline float RestrictRange(float x, float lower, float upper) {
    const float m = upper < x ? upper : x;
    return lower > m ? lower : m;
}

// (max(min(x, shift) + shift, 0)*scale)*x.
inline double Hswish(float x, float shift, float scale) {
    return std::max(std::min(double(x), double(shift)) + shift, 0.0) * scale * x;
}

// ---- Transcendental activations (TRANS): evaluated in double from the formulas of §3 and
// §4.10. The FP32 result must be within 1e-5*|ref| + 1e-6 of these.

// x >= 0 ? x : alpha*(exp(x) - 1); exp(x) - 1 via std::expm1 so that the reference itself does
// not lose digits to cancellation near 0.
inline double Elu(float x, float alpha) {
    return x >= 0.0f ? double(x) : double(alpha) * std::expm1(double(x));
}

// 1/(1 + exp(-x*slope)).
inline double Sigmoid(float x, float slope) {
    return 1.0 / (1.0 + std::exp(-double(x) * double(slope)));
}

// x > threshold ? x : log(1 + exp(x*beta))/beta. Beyond y = 700 the double exp overflows, so
// there the identical log(1 + e^y) = y + log(1 + e^-y) is used.
inline double Softplus(float x, float beta, float threshold) {
    if (x > threshold) return x;
    const double y = double(x) * double(beta);
    const double soft = y > 700.0 ? y + std::log1p(std::exp(-y)) : std::log1p(std::exp(y));
    return soft / double(beta);
}

// tanh(x*slope).
inline double Tanh(float x, float slope) {
    return std::tanh(double(x) * double(slope));
}

// GELU, x*(1 + erf(x/sqrt 2))/2; for x < 0 as x*erfc(-x/sqrt 2)/2, the same value without the
// cancellation of 1 + erf. -inf gives the limit 0 (the formula gives -inf*0).
inline double Gelu(float x) {
    if (std::isinf(x) && x < 0) return 0.0;
    const double z = double(x) / std::sqrt(2.0);
    return x < 0 ? 0.5 * x * std::erfc(-z) : 0.5 * x * (1.0 + std::erf(z));
}

// The tanh approximation x*(1 + tanh(u))/2, u = sqrt(2/pi)*(x + 0.044715 x^3), as the identical
// x/(1 + exp(-2u)), which does not cancel for x < 0.
inline double GeluTanh(float x) {
    if (std::isinf(x) && x < 0) return 0.0;
    const double u = std::sqrt(2.0 / M_PI) * (double(x) + 0.044715 * std::pow(double(x), 3));
    return double(x) / (1.0 + std::exp(-2.0 * u));
}

// SimdSynetUnaryOperation32fLayerForward. Abs, Neg, Sqrt and Zero are EXACT (FP32 results),
// the others double.
inline double UnaryOperation(float x, int type) {
    switch (type) {
        case 0:
            return std::fabs(x);
        case 1:
            return std::exp(double(x));
        case 2:
            return std::log(double(x));
        case 3:
            return -x;
        case 4:
            return 1.0 / std::sqrt(double(x));
        case 5:
            return std::sqrt(x);
        case 6:
            return std::tanh(double(x));
        default:
            return 0.0;
    }
}

}  // namespace ref
