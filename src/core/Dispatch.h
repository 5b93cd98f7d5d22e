// Dynamic dispatch of the entry points: HWY_DYNAMIC_DISPATCH without the call into libhwy.
#pragma once

#include "hwy/highway.h"

namespace simd {

// Highway's chosen-target object lives in libhwy.so; HWY_DYNAMIC_DISPATCH reaches it through a
// PLT call on every use. The object never moves, so a reference taken once turns that call
// into a load (tests still switch targets through it: SetSupportedTargetsForTest updates the
// same object).
inline hwy::ChosenTarget& ChosenTarget() {
    static hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
    return chosen;
}

}  // namespace simd

// Same table as HWY_DYNAMIC_DISPATCH (declared by HWY_EXPORT), same index.
#define SIMD_DISPATCH(FUNC_NAME) \
    (*(HWY_DISPATCH_TABLE(FUNC_NAME)[::simd::ChosenTarget().GetIndex()]))
