// SUPPLEMENT.md §2.1: where element (channel c, pixel s) of one image of C channels and S
// pixels lives in each image layout (N = block of NchwNc; padded lanes follow the same rule).
#pragma once

#include <cstddef>

#include "SimdSynet.h"

namespace ref {

inline size_t ImageOffset(SimdTensorFormatType format, size_t C, size_t S, size_t c, size_t s) {
    switch (format) {
        case SimdTensorFormatNchw:
            return c * S + s;
        case SimdTensorFormatNhwc:
            return s * C + c;
        default: {
            const size_t N = SimdSynetTensorAlignment(format);
            return ((c / N) * S + s) * N + c % N;
        }
    }
}

}  // namespace ref
