// Naive references of the eltwise family, written from SUPPLEMENT.md §4.5 and §4.8.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "SimdSynet.h"

namespace ref {

// EXACT (Product, Max, Min): element j folded in FP32, operation by operation, in the order
// of §4.5: d = op(src[0][j], src[1][j]), then d = op(d, src[i][j]). Max and min give NaN when
// either operand is NaN (SUPPLEMENT leaves NaN open; SimdSynet.h documents this choice).
inline float EltwiseExact(const std::vector<const float*>& src, size_t j,
                          SimdSynetEltwiseOperationType type) {
    auto op = [type](float a, float b) {
        switch (type) {
            case SimdSynetEltwiseOperationProduct:
                return a * b;
            case SimdSynetEltwiseOperationMax:
                return std::isnan(a) || std::isnan(b) ? a + b : a > b ? a : b;
            case SimdSynetEltwiseOperationMin:
                return std::isnan(a) || std::isnan(b) ? a + b : a < b ? a : b;
            default:
                return std::nanf("");  // Sum is not EXACT: see EltwiseSum
        }
    };
    float d = op(src[0][j], src[1][j]);
    for (size_t i = 2; i < src.size(); ++i) d = op(d, src[i][j]);
    return d;
}

// LIN (Sum): Σ src[i][j]*weight[i] in double, with Σ |src[i][j]*weight[i]| as the magnitude
// the tolerance is measured against.
inline double EltwiseSum(const std::vector<const float*>& src, const float* weight, size_t j,
                         double* magnitude) {
    double sum = 0.0, mag = 0.0;
    for (size_t i = 0; i < src.size(); ++i) {
        const double term = double(src[i][j]) * double(weight[i]);
        sum += term;
        mag += std::fabs(term);
    }
    *magnitude = mag;
    return sum;
}

// Offset of channel c of pixel s in a tensor of C channels and S pixels (Nchw or Nhwc).
inline size_t ShuffleOffset(bool nhwc, size_t C, size_t S, size_t c, size_t s) {
    return nhwc ? s * C + c : c * S + s;
}

// EXACT: §4.8 literally, element by element.
inline void Shuffle(const float* src0, size_t srcC0, const float* src1, size_t srcC1,
                    size_t spatial, float* dst0, float* dst1, size_t dstC, bool nhwc) {
    auto concatenated = [&](size_t t, size_t s) {
        return t < srcC0 ? src0[ShuffleOffset(nhwc, srcC0, spatial, t, s)]
                         : src1[ShuffleOffset(nhwc, srcC1, spatial, t - srcC0, s)];
    };
    for (size_t j = 0; j < dstC; ++j) {
        for (size_t s = 0; s < spatial; ++s) {
            dst0[ShuffleOffset(nhwc, dstC, spatial, j, s)] = concatenated(2 * j, s);
            dst1[ShuffleOffset(nhwc, dstC, spatial, j, s)] = concatenated(2 * j + 1, s);
        }
    }
}

// EXACT: the concatenation of SimdSynetConcatLayerForward, element by element: element j of
// row o of dst is element j - (size[0] + ... + size[i-1]) of row o of the source i it falls in.
inline std::vector<float> Concat(const std::vector<std::vector<float>>& src,
                                 const std::vector<size_t>& size, size_t outer) {
    size_t total = 0;
    for (size_t n : size) total += n;
    std::vector<float> dst(outer * total);
    for (size_t o = 0; o < outer; ++o)
        for (size_t j = 0; j < total; ++j) {
            size_t i = 0, k = j;
            while (k >= size[i]) k -= size[i++];
            dst[o * total + j] = src[i][o * size[i] + k];
        }
    return dst;
}

}  // namespace ref
