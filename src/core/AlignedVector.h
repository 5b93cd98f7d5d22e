// std::vector storage that starts on a 64-byte boundary (a cache line, one AVX-512 vector), for
// packed weights and scratch that kernels stream with whole-vector loads. The default allocator
// aligns to 16 bytes only (large blocks start 16 bytes into a page), and then every 64-byte load
// of such data spans two cache lines.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace simd {

template <class T>
struct CacheAlignedAllocator {
    using value_type = T;
    static constexpr std::align_val_t kAlignment{64};

    CacheAlignedAllocator() = default;
    template <class U>
    CacheAlignedAllocator(const CacheAlignedAllocator<U>&) noexcept {}

    T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
    void deallocate(T* p, size_t) noexcept { ::operator delete(p, kAlignment); }

    template <class U>
    bool operator==(const CacheAlignedAllocator<U>&) const noexcept {
        return true;
    }
    template <class U>
    bool operator!=(const CacheAlignedAllocator<U>&) const noexcept {
        return false;
    }
};

using AlignedFloats = std::vector<float, CacheAlignedAllocator<float>>;

}  // namespace simd
