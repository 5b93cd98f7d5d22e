// Tensor-format arithmetic shared by the entry points (SUPPLEMENT.md §2).
#pragma once

#include <cstddef>
#include <cstdint>

#include "SimdSynet.h"

namespace simd {

// Channel block of an image layout: 1 for Nchw/Nhwc, 4/8/16 for the blocked layouts, 0 for
// anything a data function cannot take (placeholders, filters, unknown values).
inline size_t ImageBlock(SimdTensorFormatType format) {
    switch (format) {
        case SimdTensorFormatNchw:
        case SimdTensorFormatNhwc:
            return 1;
        case SimdTensorFormatNchw4c:
            return 4;
        case SimdTensorFormatNchw8c:
            return 8;
        case SimdTensorFormatNchw16c:
            return 16;
        default:
            return 0;
    }
}

inline bool IsBlockedImage(SimdTensorFormatType format) {
    return ImageBlock(format) > 1;
}

// Output-channel block of a filter layout: 1 for Oiyx/Yxio, 4/8/16 for OyxiNo, 0 otherwise.
inline size_t FilterBlock(SimdTensorFormatType format) {
    switch (format) {
        case SimdTensorFormatOiyx:
        case SimdTensorFormatYxio:
            return 1;
        case SimdTensorFormatOyxi4o:
            return 4;
        case SimdTensorFormatOyxi8o:
            return 8;
        case SimdTensorFormatOyxi16o:
            return 16;
        default:
            return 0;
    }
}

// Overflow-checked size arithmetic: false when the exact result does not fit in size_t.
inline bool CheckedMul(size_t a, size_t b, size_t* result) {
    return !__builtin_mul_overflow(a, b, result);
}
inline bool CheckedAdd(size_t a, size_t b, size_t* result) {
    return !__builtin_add_overflow(a, b, result);
}
// `count` rounded up to a multiple of `block` (a power of two), overflow-checked.
inline bool CheckedAlign(size_t count, size_t block, size_t* result) {
    if (count > SIZE_MAX - (block - 1)) return false;
    *result = (count + block - 1) & ~(block - 1);
    return true;
}

// Number of elements in an array of `count` items of `bytes` bytes each plus `factor` copies:
// true when count*factor*bytes fits in size_t (so every pointer offset inside it is valid).
inline bool FitsInMemory(size_t count, size_t factor, size_t bytes) {
    size_t elements, total;
    return CheckedMul(count, factor, &elements) && CheckedMul(elements, bytes, &total);
}

}  // namespace simd
