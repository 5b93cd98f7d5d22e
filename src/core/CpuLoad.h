// How many cores the pool's threads can have now: the CPUs this process may run on, less those
// other runnable threads want (a build beside the service).
#pragma once

#include <cstddef>
#include <cstdint>

namespace simd {

// The cores left to the pool, from the last kLoadSamples samples of other runnable threads:
// `cpus` less their median (one sample catching a kernel thread or a short-lived process does
// not count; busy processes are in every sample), at least 1.
constexpr size_t kLoadSamples = 5;
size_t CoresLeft(size_t cpus, const uint32_t (&others)[kLoadSamples]);

// Other runnable threads in one line of /proc/loadavg ("0.50 0.40 0.30 3/250 12345": 3
// runnable tasks on the whole machine) when `ours` of them are this pool's; 0 when the line
// does not parse.
uint32_t OthersRunnable(const char* loadavg, size_t ours);

// CoresLeft on samples taken at most once a millisecond from /proc/loadavg (by whichever
// thread asks when one is due; `now` in steady_clock ticks, `ours`: the pool's runnable
// threads, the caller included). Returns SIZE_MAX when load is not watched: off by
// SetLoadAware(false) or SIMD_SYNET_LOAD_AWARE=0 (read once; the tests set it so that their
// thread-count checks split their work beside other tests), or without /proc/loadavg.
size_t CoresLeftNow(int64_t now, size_t ours);

// Turns the watch on or off for the process (tests of the watch itself); returns whether it was
// on.
bool SetLoadAware(bool on);

}  // namespace simd
