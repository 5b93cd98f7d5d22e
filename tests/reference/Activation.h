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

}  // namespace ref
