#include "gemm/GemmBlocking.h"

#include <unistd.h>

#include <algorithm>

#include "core/Cache.h"

namespace simd {

namespace {

// Size in bytes of the data (or unified) cache of the given level of CPU 0: sysfs, else glibc's
// sysconf (CPUID), else 0. Some VMs have no sysfs cache folder (a Zen 5 guest: the blocking
// then took 16 KiB L1 and 128 KiB L2 for its 48 KiB and 1 MiB, and the merged convolution ran
// bands of one row). sysconf's L3 is left out: inside VMs it can be the whole host's (508 MiB
// on that guest), and the blocking only caps the column block by it.
size_t CacheBytes(unsigned level) {
    for (const SysfsCache& c : DataCachesFromSysfs())
        if (c.level == level) return c.bytes;
    long bytes = -1;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    if (level == 1) bytes = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (level == 2) bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return bytes > 0 ? size_t(bytes) : 0;
}

GemmCacheSizes QueryCaches() {
    GemmCacheSizes c;
    c.l1 = std::max<size_t>(CacheBytes(1), 16 << 10);
    c.l2 = std::max<size_t>(CacheBytes(2), 128 << 10);
    c.l3 = std::max<size_t>(CacheBytes(3), c.l2);
    return c;
}

size_t DivCeil(size_t a, size_t b) {
    return (a + b - 1) / b;
}
size_t RoundUp(size_t a, size_t b) {
    return DivCeil(a, b) * b;
}

// Splits `size` into the fewest chunks of at most `limit`, then returns the chunk length rounded
// up to a multiple of `step`.
size_t Balanced(size_t size, size_t limit, size_t step) {
    const size_t chunks = DivCeil(size, limit);
    return RoundUp(DivCeil(size, chunks), step);
}

}  // namespace

const GemmCacheSizes& GemmCaches() {
    static const GemmCacheSizes caches = QueryCaches();
    return caches;
}

GemmBlocks GemmChooseBlocks(size_t M, size_t N, size_t K, size_t mr, size_t nr) {
    const GemmCacheSizes& caches = GemmCaches();
    const size_t f = sizeof(float);
    // Measured on Zen4: a B micro-panel of about twice L1 (it streams from L2 while the A
    // micro-panel and the C tile stay in L1) beat smaller kc by 5-8% (fewer passes over C).
    const size_t kc = std::min<size_t>(std::max<size_t>(2 * caches.l1 / (nr * f), 128), 512);
    const size_t mc = std::max(caches.l2 / 4 / (kc * f) / mr * mr, mr);
    const size_t nc = std::max(std::min<size_t>(caches.l3 / 4 / (kc * f), 4096) / nr * nr, nr);
    GemmBlocks b;
    b.kc = Balanced(K, kc, 1);
    b.mc = Balanced(M, mc, mr);
    b.nc = Balanced(N, nc, nr);
    return b;
}

size_t GemmColumnBlockInL2(size_t N, size_t kc, size_t nr) {
    const size_t nc = std::max(GemmCaches().l2 / 2 / (kc * sizeof(float)) / nr * nr, nr);
    return Balanced(N, nc, nr);
}

}  // namespace simd
