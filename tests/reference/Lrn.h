// Naive reference of SimdSynetLrnLayerCrossChannels (SUPPLEMENT.md §4.7), in double.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace ref {

// NCHW offset c*spatial + s, NHWC offset s*channels + c.
inline std::vector<double> Lrn(const float* src, size_t half, size_t channels, size_t spatial,
                               const float* k, bool nhwc) {
    std::vector<double> dst(channels * spatial);
    auto off = [&](size_t c, size_t s) { return nhwc ? s * channels + c : c * spatial + s; };
    for (size_t c = 0; c < channels; ++c)
        for (size_t s = 0; s < spatial; ++s) {
            const size_t lo = c >= half ? c - half : 0;
            // min(channels, c + half + 1) without overflowing for huge half.
            const size_t hi = half >= channels - c ? channels : c + half + 1;
            double sum = 0.0;
            for (size_t i = lo; i < hi; ++i) sum += double(src[off(i, s)]) * src[off(i, s)];
            // pow(x, y) = exp(log(x)*y) (SUPPLEMENT.md §0.1).
            const double x = double(k[0]) + double(k[1]) * sum;
            dst[off(c, s)] = src[off(c, s)] * std::exp(std::log(x) * double(k[2]));
        }
    return dst;
}

}  // namespace ref
