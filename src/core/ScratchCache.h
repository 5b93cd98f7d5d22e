// Scratch memory that outlives one call: the per-part buffers of ParallelPartsWithScratch.
#pragma once

#include <cstddef>

#include "hwy/aligned_allocator.h"

namespace simd {

// An aligned block of at least `floats` floats, taken from a process-wide cache of blocks that
// earlier calls gave back (or newly allocated), and given back when it goes out of scope.
// Allocating per call was the cost: a block above glibc's largest mmap threshold (32 MiB) is
// mapped fresh by every call and its pages faulted in and zeroed again, which made vgg16's
// Winograd layers 2.2x slower at 8 threads than at 4 (15 parts of 8 MiB; 16-core Xeon).
// The cache keeps the few largest blocks, so that memory stays allocated while the process
// runs: it is what the next call of the same layer needs again.
class CachedScratch {
public:
    explicit CachedScratch(size_t floats);
    ~CachedScratch();
    CachedScratch(const CachedScratch&) = delete;
    CachedScratch& operator=(const CachedScratch&) = delete;

    // nullptr when the allocation failed.
    float* data() const { return block_.get(); }

private:
    hwy::AlignedFreeUniquePtr<float[]> block_;
    size_t capacity_ = 0;
};

}  // namespace simd
