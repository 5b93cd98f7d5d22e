#include "core/ScratchCache.h"

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace simd {
namespace {

// Blocks kept between calls: enough for a few user threads running split layers at once.
constexpr size_t kKeptBlocks = 4;

struct Cached {
    hwy::AlignedFreeUniquePtr<float[]> block;
    size_t capacity;
};

// Both leaked on purpose: worker threads may still take or give back blocks while statics are
// destroyed at exit.
std::mutex& CacheMutex() {
    static auto* mutex = new std::mutex();
    return *mutex;
}

std::vector<Cached>& Cache() {
    static auto* cache = new std::vector<Cached>();
    return *cache;
}

}  // namespace

CachedScratch::CachedScratch(size_t floats) {
    if (floats == 0) floats = 1;
    {
        std::lock_guard<std::mutex> lock(CacheMutex());
        auto& cache = Cache();
        // The most recently given back block that is large enough, not the smallest: it is the
        // one the previous split call's parts wrote, still in their caches (picking the best fit
        // moved consecutive layers between blocks, and mnasnet1_0's merged convolutions took
        // 10-15% longer at 2 threads than with a fresh allocation per call).
        for (size_t i = cache.size(); i-- > 0;)
            if (cache[i].capacity >= floats) {
                block_ = std::move(cache[i].block);
                capacity_ = cache[i].capacity;
                cache.erase(cache.begin() + ptrdiff_t(i));
                return;
            }
    }
    block_ = hwy::AllocateAligned<float>(floats);
    capacity_ = block_ ? floats : 0;
}

CachedScratch::~CachedScratch() {
    if (!block_) return;
    std::lock_guard<std::mutex> lock(CacheMutex());
    auto& cache = Cache();
    cache.push_back({std::move(block_), capacity_});
    if (cache.size() > kKeptBlocks) {
        auto smallest = std::min_element(
            cache.begin(), cache.end(),
            [](const Cached& a, const Cached& b) { return a.capacity < b.capacity; });
        cache.erase(smallest);
    }
}

}  // namespace simd
