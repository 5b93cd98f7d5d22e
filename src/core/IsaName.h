// The name SimdSynetIsa and the Info strings give a Highway target.
#pragma once

#include <cstdint>

#include "hwy/targets.h"

namespace simd {

inline const char* IsaNameOf(int64_t target) {
    switch (target) {
        case HWY_SCALAR:
        case HWY_EMU128:
            return "scalar";
        case HWY_SSSE3:
        case HWY_SSE4:
            return "sse4";
        case HWY_AVX2:
            return "avx2";
        case HWY_AVX3:
        case HWY_AVX3_DL:
            return "avx512";
        case HWY_NEON:
            return "neon";
        default:
            return hwy::TargetName(target);
    }
}

}  // namespace simd
