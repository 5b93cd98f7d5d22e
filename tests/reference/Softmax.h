// Naive reference of SimdSynetSoftmaxLayerForward (SUPPLEMENT.md §4.9), in double.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace ref {

// dst[(o*count + c)*inner + i] = exp(x_c - m)/sum exp(x_c' - m) over c for every (o, i), with
// m the maximum of the x_c.
inline std::vector<double> Softmax(const float* src, size_t outer, size_t count, size_t inner) {
    std::vector<double> dst(outer * count * inner);
    for (size_t o = 0; o < outer; ++o)
        for (size_t i = 0; i < inner; ++i) {
            auto at = [&](size_t c) { return (o * count + c) * inner + i; };
            double m = src[at(0)];
            for (size_t c = 1; c < count; ++c) m = std::max(m, double(src[at(c)]));
            double z = 0.0;
            for (size_t c = 0; c < count; ++c) {
                dst[at(c)] = std::exp(double(src[at(c)]) - m);
                z += dst[at(c)];
            }
            for (size_t c = 0; c < count; ++c) dst[at(c)] /= z;
        }
    return dst;
}

}  // namespace ref
