// Aligned allocation, alignment arithmetic, context release and the version string.
#include <cstdlib>

#include "SimdSynet.h"
#include "core/Context.h"
#include "core/Error.h"

namespace {
bool IsPowerOfTwo(size_t value) {
    return value != 0 && (value & (value - 1)) == 0;
}
}  // namespace

SIMD_API const char* SimdVersion(void) {
    simd::ClearLastError();
    return SIMD_SYNET_VERSION_STRING;
}

SIMD_API size_t SimdAlign(size_t size, size_t align) {
    simd::ClearLastError();
    SIMD_FAIL_IF_RETURN(!IsPowerOfTwo(align), "SimdAlign: align is not a power of two", 0);
    SIMD_FAIL_IF_RETURN(size > SIZE_MAX - (align - 1), "SimdAlign: the result overflows size_t", 0);
    return (size + align - 1) & ~(align - 1);
}

SIMD_API void* SimdAllocate(size_t size, size_t align) {
    simd::ClearLastError();
    SIMD_FAIL_IF_RETURN(!IsPowerOfTwo(align), "SimdAllocate: align is not a power of two", nullptr);
    if (align < sizeof(void*)) align = sizeof(void*);
    void* ptr = nullptr;
    // posix_memalign may return NULL for size 0; a unique pointer is friendlier to callers.
    SIMD_FAIL_IF_RETURN(posix_memalign(&ptr, align, size == 0 ? 1 : size) != 0,
                        "SimdAllocate: out of memory", nullptr);
    return ptr;
}

SIMD_API void SimdFree(void* ptr) {
    simd::ClearLastError();
    std::free(ptr);
}

SIMD_API void SimdRelease(void* context) {
    simd::ClearLastError();
    delete static_cast<simd::Context*>(context);
}
