// CpuHasAvx512Vnni, CpuHasAmxBf16: see core/CpuFeatures.h for why these checks exist and who may
// use them.
#include "core/CpuFeatures.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace simd {

namespace {

bool ForcedOff(const char* variable) {
    const char* forced = std::getenv(variable);
    return forced != nullptr && std::strcmp(forced, "0") == 0;
}

#if defined(__x86_64__) && defined(__linux__)
// Linux keeps the AMX tile data (8 KiB per thread) out of a process's saved state until the
// process asks for it; the answer holds for the process's lifetime, so it is asked once.
bool TileDataPermitted() {
    static const bool permitted = [] {
        constexpr long kArchReqXcompPerm = 0x1023;  // asm/prctl.h
        constexpr long kXfeatureXtiledata = 18;
        return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
    }();
    return permitted;
}
#endif

}  // namespace

bool CpuHasAvx512Vnni() {
    if (ForcedOff("SIMD_SYNET_VNNI")) return false;
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
    return (ecx & (1u << 11)) != 0;
#else
    return false;
#endif
}

bool CpuHasAmxBf16() {
    if (ForcedOff("SIMD_SYNET_AMX")) return false;
#if defined(__x86_64__) && defined(__linux__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
    const unsigned amxBf16 = 1u << 22, amxTile = 1u << 24;
    if ((edx & (amxBf16 | amxTile)) != (amxBf16 | amxTile)) return false;
    return TileDataPermitted();
#else
    return false;
#endif
}

}  // namespace simd
