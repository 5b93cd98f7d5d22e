// Naive references of the normalization layers (SUPPLEMENT.md §6), in double, straight from the
// formulas. Each returns the expected values and, per element, the magnitude the error is
// measured against: |result| for V1, the sum of the magnitudes of the terms for the layers that
// add a shift (any FP32 evaluation rounds the sums relative to their operands): V2/V3
// |normalized term| + |shift|; V4 |x| + |x*scale*n*r| + |shift| (a = 1 + scale*n*r cancels when
// scale < 0, and n comes from an FP32 sum of squares).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "reference/Bf16.h"

namespace ref {

struct NormResult {
    std::vector<double> value;
    std::vector<double> magnitude;
};

// Offset of element (b, c, s) in an Nchw or Nhwc tensor of C channels and S pixels.
inline size_t NormIndex(bool nhwc, size_t C, size_t S, size_t b, size_t c, size_t s) {
    return b * C * S + (nhwc ? s * C + c : c * S + s);
}

// V1: L2 normalization, per pixel over channels or (across) per batch item.
inline NormResult NormalizeV1(const float* src, size_t B, size_t C, size_t S, const float* scale,
                              float eps, bool across, bool nhwc) {
    NormResult out{std::vector<double>(B * C * S), std::vector<double>(B * C * S)};
    for (size_t b = 0; b < B; ++b) {
        if (across) {
            double sum = 0.0;
            for (size_t c = 0; c < C; ++c)
                for (size_t s = 0; s < S; ++s) {
                    const double x = src[NormIndex(nhwc, C, S, b, c, s)];
                    sum += x * x;
                }
            const double r = 1.0 / std::sqrt(sum + eps);
            for (size_t c = 0; c < C; ++c)
                for (size_t s = 0; s < S; ++s) {
                    const size_t i = NormIndex(nhwc, C, S, b, c, s);
                    out.value[i] = double(src[i]) * scale[c] * r;
                }
        } else {
            for (size_t s = 0; s < S; ++s) {
                double sum = 0.0;
                for (size_t c = 0; c < C; ++c) {
                    const double x = src[NormIndex(nhwc, C, S, b, c, s)];
                    sum += x * x;
                }
                const double r = 1.0 / std::sqrt(sum + eps);
                for (size_t c = 0; c < C; ++c) {
                    const size_t i = NormIndex(nhwc, C, S, b, c, s);
                    out.value[i] = double(src[i]) * r * scale[c];
                }
            }
        }
    }
    for (size_t i = 0; i < out.value.size(); ++i) out.magnitude[i] = std::fabs(out.value[i]);
    return out;
}

// Mean/variance normalization of the elements idx[0..n) of src: (x - mean)/sqrt(var + eps)
// * scale + shift, where scale/shift are taken per element through channelOf.
template <class ChannelOf>
inline void NormalizeGroup(const float* src, const std::vector<size_t>& idx, float eps,
                           const float* scale, const float* shift, ChannelOf channelOf,
                           NormResult* out) {
    const double n = double(idx.size());
    double sum = 0.0;
    for (size_t i : idx) sum += src[i];
    const double mean = sum / n;
    double sq = 0.0;
    for (size_t i : idx) sq += (src[i] - mean) * (src[i] - mean);
    const double r = 1.0 / std::sqrt(sq / n + eps);
    for (size_t k = 0; k < idx.size(); ++k) {
        const size_t i = idx[k];
        const size_t c = channelOf(k);
        const double term = (src[i] - mean) * r * scale[c];
        out->value[i] = term + shift[c];
        out->magnitude[i] = std::fabs(term) + std::fabs(shift[c]);
    }
}

// V2: layer norm over the channels of every pixel.
inline NormResult NormalizeV2(const float* src, size_t B, size_t C, size_t S, const float* scale,
                              const float* shift, float eps, bool nhwc) {
    NormResult out{std::vector<double>(B * C * S), std::vector<double>(B * C * S)};
    std::vector<size_t> idx(C);
    for (size_t b = 0; b < B; ++b)
        for (size_t s = 0; s < S; ++s) {
            for (size_t c = 0; c < C; ++c) idx[c] = NormIndex(nhwc, C, S, b, c, s);
            NormalizeGroup(
                src, idx, eps, scale, shift, [](size_t k) { return k; }, &out);
        }
    return out;
}

// V3: instance norm over the pixels of every channel.
inline NormResult NormalizeV3(const float* src, size_t B, size_t C, size_t S, const float* scale,
                              const float* shift, float eps, bool nhwc) {
    NormResult out{std::vector<double>(B * C * S), std::vector<double>(B * C * S)};
    std::vector<size_t> idx(S);
    for (size_t b = 0; b < B; ++b)
        for (size_t c = 0; c < C; ++c) {
            for (size_t s = 0; s < S; ++s) idx[s] = NormIndex(nhwc, C, S, b, c, s);
            NormalizeGroup(
                src, idx, eps, scale, shift, [c](size_t) { return c; }, &out);
        }
    return out;
}

// V4: channel-norm reweighting.
inline NormResult NormalizeV4(const float* src, size_t B, size_t C, size_t S, const float* scale,
                              const float* shift, float eps, bool nhwc) {
    NormResult out{std::vector<double>(B * C * S), std::vector<double>(B * C * S)};
    std::vector<double> norms(C);
    for (size_t b = 0; b < B; ++b) {
        double sum = 0.0;
        for (size_t c = 0; c < C; ++c) {
            double sq = 0.0;
            for (size_t s = 0; s < S; ++s) {
                const double x = src[NormIndex(nhwc, C, S, b, c, s)];
                sq += x * x;
            }
            norms[c] = std::sqrt(sq);
            sum += norms[c];
        }
        const double r = 1.0 / (sum / double(C) + eps);
        for (size_t c = 0; c < C; ++c) {
            const double a = 1.0 + scale[c] * norms[c] * r;
            for (size_t s = 0; s < S; ++s) {
                const size_t i = NormIndex(nhwc, C, S, b, c, s);
                const double x = src[i];
                out.value[i] = x * a + shift[c];
                out.magnitude[i] =
                    std::fabs(x) * (1.0 + std::fabs(scale[c] * norms[c] * r)) + std::fabs(shift[c]);
            }
        }
    }
    return out;
}

}  // namespace ref
