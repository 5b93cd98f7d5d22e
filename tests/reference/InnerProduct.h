// Naive reference of SimdSynetInnerProductLayerForward (SUPPLEMENT.md §4.6), in double.
#pragma once

#include <cmath>
#include <cstddef>

namespace ref {

// (bias ? bias[i] : 0) + sum_j src[j]*weight[i*size + j]; *magnitude receives
// |bias[i]| + sum_j |src[j]*weight[i*size + j]|, the scale of the ACC tolerance.
inline double InnerProduct(const float* src, const float* weight, const float* bias, size_t size,
                           size_t i, double* magnitude) {
    double sum = bias ? double(bias[i]) : 0.0;
    *magnitude = std::fabs(sum);
    for (size_t j = 0; j < size; ++j) {
        const double term = double(src[j]) * double(weight[i * size + j]);
        sum += term;
        *magnitude += std::fabs(term);
    }
    return sum;
}

}  // namespace ref
