// CpuHasAvx512Vnni: see core/CpuFeatures.h for why this check exists and who may use it.
#include "core/CpuFeatures.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace simd {

bool CpuHasAvx512Vnni() {
    const char* forced = std::getenv("SIMD_SYNET_VNNI");
    if (forced != nullptr && std::strcmp(forced, "0") == 0) return false;
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
    return (ecx & (1u << 11)) != 0;
#else
    return false;
#endif
}

}  // namespace simd
