#include "core/Cache.h"

#include <unistd.h>

#include <cstdlib>

namespace simd {

namespace {
size_t QueryLastLevelCache() {
    if (const char* forced = std::getenv("SIMD_SYNET_STREAMING_THRESHOLD")) {
        char* end = nullptr;
        const unsigned long long value = std::strtoull(forced, &end, 10);
        if (end != forced && *end == '\0') return size_t(value);
    }
    long bytes = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (bytes <= 0) bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return bytes > 0 ? size_t(bytes) : size_t(32) << 20;
}
}  // namespace

size_t StreamingThresholdBytes() {
    static const size_t threshold = QueryLastLevelCache();
    return threshold;
}

}  // namespace simd
