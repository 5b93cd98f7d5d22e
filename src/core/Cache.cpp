#include "core/Cache.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace simd {

namespace {

// Size in bytes of the highest-level data or unified cache of CPU 0 as the kernel describes
// it in sysfs ("32768K"), 0 when unavailable.
size_t LastLevelFromSysfs() {
    size_t best = 0, bestLevel = 0;
    for (int index = 0; index < 8; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
        FILE* level = std::fopen((dir + "/level").c_str(), "r");
        if (level == nullptr) break;
        unsigned levelValue = 0;
        const bool haveLevel = std::fscanf(level, "%u", &levelValue) == 1;
        std::fclose(level);
        FILE* type = std::fopen((dir + "/type").c_str(), "r");
        char typeName[32] = {0};
        const bool haveType = type != nullptr && std::fscanf(type, "%31s", typeName) == 1;
        if (type != nullptr) std::fclose(type);
        FILE* size = std::fopen((dir + "/size").c_str(), "r");
        unsigned long long sizeValue = 0;
        char unit = 0;
        const int got = size != nullptr ? std::fscanf(size, "%llu%c", &sizeValue, &unit) : 0;
        if (size != nullptr) std::fclose(size);
        if (!haveLevel || !haveType || got < 1 || std::string(typeName) == "Instruction") continue;
        if (unit == 'K') sizeValue <<= 10;
        if (unit == 'M') sizeValue <<= 20;
        if (levelValue >= bestLevel) {
            bestLevel = levelValue;
            best = size_t(sizeValue);
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
    for (int index = 0; index < 8; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
        unsigned level = 0, ways = 0;
        char typeName[32] = {0};
        FILE* f = std::fopen((dir + "/level").c_str(), "r");
        if (f == nullptr) break;
        const bool haveLevel = std::fscanf(f, "%u", &level) == 1;
        std::fclose(f);
        f = std::fopen((dir + "/type").c_str(), "r");
        const bool haveType = f != nullptr && std::fscanf(f, "%31s", typeName) == 1;
        if (f != nullptr) std::fclose(f);
        if (!haveLevel || !haveType || level != 1 || std::string(typeName) != "Data") continue;
        f = std::fopen((dir + "/ways_of_associativity").c_str(), "r");
        const bool haveWays = f != nullptr && std::fscanf(f, "%u", &ways) == 1;
        if (f != nullptr) std::fclose(f);
        if (haveWays && ways >= 4 && ways <= 32) return ways;
        break;
    }
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
