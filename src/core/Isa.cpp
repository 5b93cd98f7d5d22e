// Which Highway target runs: its name and preferred alignment, answered by the target itself.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/Isa.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "core/IsaName.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

const char* IsaName() {
    return IsaNameOf(HWY_TARGET);
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
