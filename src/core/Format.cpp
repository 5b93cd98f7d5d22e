// SimdSynetSpecifyTensorFormat and SimdSynetTensorAlignment (SUPPLEMENT.md §2.4).
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"

SIMD_API SimdTensorFormatType SimdSynetSpecifyTensorFormat(SimdTensorFormatType format) {
    simd::ClearLastError();
    const size_t alignment = SimdAlignment();
    const bool image = format == SimdTensorFormatNchwXc;
    if (!image && format != SimdTensorFormatOyxiXo) return SimdTensorFormatUnknown;
    switch (alignment) {
        case 16:
            return image ? SimdTensorFormatNchw4c : SimdTensorFormatOyxi4o;
        case 32:
            return image ? SimdTensorFormatNchw8c : SimdTensorFormatOyxi8o;
        case 64:
            return image ? SimdTensorFormatNchw16c : SimdTensorFormatOyxi16o;
        default:
            return SimdTensorFormatUnknown;
    }
}

SIMD_API size_t SimdSynetTensorAlignment(SimdTensorFormatType format) {
    simd::ClearLastError();
    const size_t image = simd::ImageBlock(format);
    return image != 0 ? image : simd::FilterBlock(format);
}
