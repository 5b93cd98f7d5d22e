#include "core/Cache.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace simd {

namespace {

// The first word of a sysfs cache file ("3", "Data", "32768K"); empty when it is absent.
std::string ReadSysfsWord(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) return std::string();
    char word[32] = {0};
    const bool got = std::fscanf(f, "%31s", word) == 1;
    std::fclose(f);
    return got ? std::string(word) : std::string();
}

}  // namespace

std::vector<SysfsCache> DataCachesFromSysfs() {
    std::vector<SysfsCache> caches;
    for (int index = 0; index < 8; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
        const std::string level = ReadSysfsWord(dir + "/level");
        if (level.empty()) break;
        const std::string type = ReadSysfsWord(dir + "/type"), size = ReadSysfsWord(dir + "/size");
        if (type.empty() || type == "Instruction" || size.empty()) continue;
        char* unit = nullptr;
        size_t bytes = size_t(std::strtoull(size.c_str(), &unit, 10));
        if (*unit == 'K') bytes <<= 10;
        if (*unit == 'M') bytes <<= 20;
        const std::string ways = ReadSysfsWord(dir + "/ways_of_associativity");
        caches.push_back(SysfsCache{unsigned(std::strtoul(level.c_str(), nullptr, 10)), bytes,
                                    unsigned(std::strtoul(ways.c_str(), nullptr, 10))});
    }
    return caches;
}

namespace {

// Size in bytes of the highest-level data or unified cache, 0 when sysfs does not say.
size_t LastLevelFromSysfs() {
    size_t best = 0;
    unsigned bestLevel = 0;
    for (const SysfsCache& c : DataCachesFromSysfs()) {
        if (c.level >= bestLevel) {
            bestLevel = c.level;
            best = c.bytes;
        }
    }
    return best;
}

size_t QueryLastLevelCache() {
    if (const char* forced = std::getenv("SIMD_SYNET_STREAMING_THRESHOLD")) {
        char* end = nullptr;
        const unsigned long long value = std::strtoull(forced, &end, 10);
        if (end != forced && *end == '\0') return size_t(value);
    }
    // sysfs first: inside VMs glibc's sysconf can report the whole socket's L3 (seen: 320 MiB
    // for a guest whose two cores share a 32 MiB L3), which would disable streaming.
    if (const size_t bytes = LastLevelFromSysfs()) return bytes;
    long bytes = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (bytes <= 0) bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return bytes > 0 ? size_t(bytes) : size_t(32) << 20;
}

size_t QueryL1DataWays() {
    for (const SysfsCache& c : DataCachesFromSysfs())
        if (c.level == 1) return c.ways >= 4 && c.ways <= 32 ? c.ways : 8;
    return 8;
}

}  // namespace

size_t StreamingThresholdBytes() {
    static const size_t threshold = QueryLastLevelCache();
    return threshold;
}

size_t L1DataWays() {
    static const size_t ways = QueryL1DataWays();
    return ways;
}

}  // namespace simd
