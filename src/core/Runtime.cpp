// Process-wide state: the per-thread last-error slot and the SIMD_SYNET_MAX_ISA cap.
//
// Both live in one translation unit on purpose: every entry point references g_lastError, so
// this object is linked into every program that uses the static library, and its initializer
// (the ISA cap) therefore always runs before main().
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hwy/targets.h"
#include "SimdSynet.h"
#include "core/Dispatch.h"
#include "core/Error.h"

namespace simd {

__thread const char* g_lastError = nullptr;

namespace {
thread_local char g_formattedError[256];
}  // namespace

bool SetLastErrorF(const char* format, ...) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(g_formattedError, sizeof(g_formattedError), format, args);
    va_end(args);
    g_lastError = g_formattedError;
    return false;
}

namespace {

// Targets strictly better than the named level; they are removed from Highway's choice.
int64_t TargetsAbove(const char* level) {
    const int64_t avx512 = HWY_AVX3 | HWY_AVX3_DL;
    const int64_t sve = HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128;
    if (std::strcmp(level, "avx512") == 0) return 0;
    if (std::strcmp(level, "avx2") == 0) return avx512;
    if (std::strcmp(level, "sse4") == 0 || std::strcmp(level, "neon") == 0)
        return avx512 | HWY_AVX2 | sve;
    if (std::strcmp(level, "scalar") == 0)
        return avx512 | HWY_AVX2 | HWY_SSE4 | HWY_SSSE3 | sve | HWY_NEON | HWY_EMU128;
    return 0;  // unknown values are ignored: the best target stays in use
}

// Until the initializer below has run (an entry point called from another static constructor
// of a statically linked program), SIMD_DISPATCH reads this never-updated object: its index is
// 0, the entry Highway puts first in every dispatch table, which chooses the target in
// Highway's own object and calls through it.
hwy::ChosenTarget g_notYetChosen;

struct IsaCap {
    IsaCap() {
        g_chosenTarget = &hwy::GetChosenTarget();
        const char* level = std::getenv("SIMD_SYNET_MAX_ISA");
        if (level == nullptr || *level == '\0') return;
        hwy::DisableTargets(TargetsAbove(level));
        // Highway 1.0.3: SupportedTargets() leaves the unmasked set in ChosenTarget when called
        // outside a dispatch; choosing now makes the cap hold even if such a call came first.
        hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    }
};

}  // namespace

const hwy::ChosenTarget* g_chosenTarget = &g_notYetChosen;

namespace {
const IsaCap g_isaCap;
}  // namespace
}  // namespace simd

SIMD_API const char* SimdSynetGetLastError(void) {
    return simd::g_lastError;
}

namespace {
thread_local char g_clientError[1024];
}  // namespace

SIMD_API void SimdSynetSetLastError(const char* message) {
    if (message == nullptr) {
        simd::g_lastError = nullptr;
        return;
    }
    std::snprintf(g_clientError, sizeof(g_clientError), "%s", message);
    simd::g_lastError = g_clientError;
}
