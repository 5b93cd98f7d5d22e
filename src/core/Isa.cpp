// Which Highway target runs: its name and preferred alignment, answered by the target itself.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/Isa.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

const char* IsaName() {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
    return "scalar";
#elif HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3
    return "sse4";
#elif HWY_TARGET == HWY_AVX2
    return "avx2";
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    return "avx512";
#elif HWY_TARGET == HWY_NEON
    return "neon";
#else
    return hwy::TargetName(HWY_TARGET);
#endif
}

// The scalar fallback reports 16 like SSE4 so that NchwXc stays resolvable when the ISA is
// capped to scalar (the blocked layouts are memory layouts, valid on every target).
size_t IsaAlignment() {
    const size_t bytes = hwy::HWY_NAMESPACE::Lanes(hwy::HWY_NAMESPACE::ScalableTag<uint8_t>());
    return bytes < 16 ? 16 : bytes;
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"

namespace simd {
HWY_EXPORT(IsaName);
HWY_EXPORT(IsaAlignment);
}  // namespace simd

SIMD_API const char* SimdSynetIsa(void) {
    simd::ClearLastError();
    return SIMD_DISPATCH(simd::IsaName)();
}

SIMD_API size_t SimdAlignment(void) {
    simd::ClearLastError();
    return SIMD_DISPATCH(simd::IsaAlignment)();
}
#endif  // HWY_ONCE
