// Dynamic dispatch of the entry points: HWY_DYNAMIC_DISPATCH without the call into libhwy.
#pragma once

#include "hwy/highway.h"

namespace simd {

// Highway's chosen-target object lives in libhwy.so; HWY_DYNAMIC_DISPATCH reaches it through a
// PLT call on every use, and a function-local static reference would add an initialization
// guard whose slow path is a call, which forces every entry point to build a frame. A plain
// pointer, set at load (core/Runtime.cpp), makes the lookup two loads. Tests still switch
// targets through it: SetSupportedTargetsForTest updates the object it points to.
extern const hwy::ChosenTarget* g_chosenTarget;

}  // namespace simd

// Same table as HWY_DYNAMIC_DISPATCH (declared by HWY_EXPORT), same index.
#define SIMD_DISPATCH(FUNC_NAME) \
    (*(HWY_DISPATCH_TABLE(FUNC_NAME)[::simd::g_chosenTarget->GetIndex()]))
