// SetParams of the INT8 convolution contexts (SUPPLEMENT.md §11): quantizers from the statistics,
// per-output-channel weight quantization and the dequantization of the sums. Scalar code, the
// same on every target, so that every target runs on the same integers.
#include <algorithm>
#include <cmath>

#include "convolution/Convolution32f.h"  // CopyActivationParams
#include "convolution8i/Convolution8i.h"

namespace simd {

namespace {

// Steps q_c of a tensor quantizer (§11): max(|lo|, |hi|) / (signed ? iMax : uMax), 1 below
// 1e-7. Returns the zero point (-iMin when any lo < 0, else 0).
int QuantizerSteps(const float* lo, const float* hi, size_t n, const Int8Mode& m,
                   std::vector<float>* steps) {
    bool neg = false;
    for (size_t c = 0; c < n; ++c) neg = neg || lo[c] < 0.0f;
    const float range = float(neg ? m.iMax : m.uMax);
    steps->resize(n);
    for (size_t c = 0; c < n; ++c) {
        const float q = std::max(std::fabs(lo[c]), std::fabs(hi[c])) / range;
        (*steps)[c] = q < 1e-7f ? 1.0f : q;
    }
    return neg ? -m.iMin : 0;
}

}  // namespace

size_t Convolution8i::InternalBufferSize() const {
    const size_t bytes = w8_.size() + PackedBytes() + scratch_.size() * sizeof(float) +
                         sizeof(float) * (srcScale_.size() + srcShift_.size() + norm_.size() +
                                          bias_.size() + dstScale_.size() + slope_.size());
    return (bytes + sizeof(float) - 1) / sizeof(float);
}

void Convolution8i::SetParams(const float* weight, const float* bias, const float* params,
                              const float* const* stats) {
    const size_t G = p_.group, Cg = p_.srcC / G, Dg = p_.dstC / G, kY = p_.kernelY, kX = p_.kernelX,
                 taps = kY * kX;
    std::vector<float> srcStep;
    srcZero_ = QuantizerSteps(stats[0], stats[1], p_.srcC, mode_, &srcStep);
    srcScale_.resize(p_.srcC);
    srcShift_.assign(p_.srcC, float(srcZero_));
    for (size_t c = 0; c < p_.srcC; ++c) srcScale_[c] = 1.0f / srcStep[c];

    // Weights: w' = w * q_src (FP32), s = iMax / max|w'| (1 for a filter below 1e-30, whose
    // scale would overflow), w8 = clamp(round(w' * s)).
    const bool nhwc = p_.srcF == SimdTensorFormatNhwc;
    auto weightAt = [&](size_t d, size_t tap, size_t ci) {
        return nhwc ? weight[(tap * Cg + ci) * p_.dstC + d] : weight[(d * Cg + ci) * taps + tap];
    };
    w8_.resize(p_.dstC * taps * Cg);
    norm_.resize(p_.dstC);
    bias_.resize(p_.dstC);
    for (size_t d = 0; d < p_.dstC; ++d) {
        const float* step = srcStep.data() + d / Dg * Cg;
        float maxAbs = 0.0f;
        for (size_t tap = 0; tap < taps; ++tap)
            for (size_t ci = 0; ci < Cg; ++ci)
                maxAbs = std::max(maxAbs, std::fabs(weightAt(d, tap, ci) * step[ci]));
        const float s = maxAbs < 1e-30f ? 1.0f : float(mode_.iMax) / maxAbs;
        int64_t corr = 0;
        int8_t* w8 = w8_.data() + d * taps * Cg;
        for (size_t tap = 0; tap < taps; ++tap)
            for (size_t ci = 0; ci < Cg; ++ci) {
                const float v = std::nearbyint(weightAt(d, tap, ci) * step[ci] * s);
                // A NaN (from a NaN or infinite weight or statistic) quantizes to 0, as the
                // library's other conversions to integers do; converting it to int is undefined.
                const int q = std::isnan(v) ? 0
                                            : int(std::min(std::max(v, float(mode_.iMin)),
                                                           float(mode_.iMax)));
                w8[tap * Cg + ci] = int8_t(q);
                corr += int64_t(q) * srcZero_;
            }
        norm_[d] = 1.0f / s;
        bias_[d] = (bias ? bias[d] : 0.0f) - float(corr) / s;
    }

    dstScale_.clear();
    dstZero_ = 0;
    if (p_.dstT == SimdTensorData8u) {
        std::vector<float> dstStep;
        dstZero_ = QuantizerSteps(stats[2], stats[3], p_.dstC, mode_, &dstStep);
        dstScale_.resize(p_.dstC);
        for (size_t c = 0; c < p_.dstC; ++c) dstScale_[c] = 1.0f / dstStep[c];
    }

    CopyActivationParams(p_.activation, params, p_.dstC, &slope_, &param0_, &param1_);
    PackWeights();
    ready_ = true;
}

}  // namespace simd
