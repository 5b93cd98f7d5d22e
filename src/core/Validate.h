// Argument checks shared by the entry points of several families.
#pragma once

#include <cstddef>

#include "hwy/base.h"  // HWY_LIKELY

#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"

namespace simd {

// Shape of a tensor addressed as (channels, spatial) in an image layout.
struct PerChannelShape {
    size_t block;    // 1 for Nchw/Nhwc, 4/8/16 for blocked layouts
    size_t aligned;  // channels rounded up to the block: the per-channel array length
    bool empty;      // nothing to compute (channels or spatial is zero)
};

// Checks the layout (Nchw, Nhwc, Nchw4c/8c/16c) and that `factor` tensors' worth of floats,
// aligned channels * spatial * factor, is addressable. `function` prefixes the message.
inline bool ValidatePerChannel(const char* function, size_t channels, size_t spatial,
                               SimdTensorFormatType format, size_t factor, PerChannelShape* shape) {
    shape->block = ImageBlock(format);
    if (shape->block == 0)
        return SetLastErrorF("%s: format %d is not Nchw, Nhwc, Nchw4c, Nchw8c or Nchw16c", function,
                             static_cast<int>(format));
    shape->empty = channels == 0 || spatial == 0;
    // Common case in one branch: with both below 2^26 nothing can overflow
    // ((2^26 + 15) * 2 * 2^26 * 4 < 2^64 for factor <= 2).
    if (HWY_LIKELY(((channels | spatial) >> 26) == 0 && factor <= 2)) {
        shape->aligned = (channels + shape->block - 1) & ~(shape->block - 1);
        return true;
    }
    size_t planes;
    if (!CheckedAlign(channels, shape->block, &shape->aligned) ||
        !CheckedMul(shape->aligned, factor, &planes) ||
        !FitsInMemory(planes, spatial, sizeof(float)))
        return SetLastErrorF("%s: channels * spatial is too large for memory", function);
    return true;
}

// Branch-only form of ValidatePerChannel for factor 1, for entry points whose accepted path must
// stay free of calls: true when the layout is an image layout and nothing can overflow in the
// common case. A false answer is not yet an error: the caller's cold path runs
// ValidatePerChannel, which decides and writes the message.
inline bool PerChannelFastCheck(size_t channels, size_t spatial, SimdTensorFormatType format) {
    return static_cast<unsigned>(format) <= static_cast<unsigned>(SimdTensorFormatNchw16c) &&
           ((channels | spatial) >> 26) == 0;
}

}  // namespace simd
