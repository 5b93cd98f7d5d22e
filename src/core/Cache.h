// Cache facts the kernels use to pick store strategies.
#pragma once

#include <cstddef>
#include <vector>

namespace simd {

// Output size in bytes from which non-temporal stores pay off: larger than the last-level
// cache (measured: ~1.5x faster from DRAM, but slower for outputs that would have stayed in
// L3). Read once: the environment variable SIMD_SYNET_STREAMING_THRESHOLD (bytes) when set
// (the test suite sets it to 1 to run every streaming path), else the size of the last-level
// cache (sysfs, then sysconf), else 32 MiB.
size_t StreamingThresholdBytes();

// A data or unified cache of CPU 0 as sysfs describes it (ways 0 when not given).
struct SysfsCache {
    unsigned level;
    size_t bytes;
    unsigned ways;
};
// The data and unified caches of CPU 0 (instruction caches left out), from
// /sys/devices/system/cpu/cpu0/cache; empty when sysfs is not there.
std::vector<SysfsCache> DataCachesFromSysfs();

// Associativity of the L1 data cache of CPU 0 (sysfs ways_of_associativity), read once; 8 when
// sysfs does not say or says something outside [4, 32]. Zen cores have 8 ways, Intel cores
// since Sunny Cove 12.
size_t L1DataWays();

}  // namespace simd
