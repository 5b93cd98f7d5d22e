// Shared pieces of the benchmarks: aligned buffers, the copy baselines every figure is read
// against, and helpers to register a function next to its baseline.
//
// Conventions scripts/bench_report.py relies on: a measured function is registered as
// "<Family>/<Function>/<case>" and labelled "vs <baseline name>"; its baseline moves the same
// bytes; every benchmark sets the "bytes" counter to bytes read + written per call.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "SimdSynet.h"

namespace bench {

// GFLOP/s of one core running independent FMA chains on registers with the widest vectors of
// the best target (best of many short runs, measured once per process; bench/FmaPeak.cpp).
double FmaPeakGflops();
// One run of that loop: `iterations` steps of 12 chains; returns the FLOPs done.
double FmaPeakRun(size_t iterations, float* sink);

// A SimdAllocate'd array aligned to 64 bytes, filled with small non-trivial values.
template <class T>
class Buffer {
public:
    explicit Buffer(size_t size) : size_(size) {
        data_ = static_cast<T*>(SimdAllocate(size * sizeof(T) + 64, 64));
        for (size_t i = 0; i < size; ++i) data_[i] = static_cast<T>((i * 7919u) % 251u) / T(8);
    }
    ~Buffer() { SimdFree(data_); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    T* data() { return data_; }
    size_t size() const { return size_; }

private:
    size_t size_;
    T* data_;
};

// The allocator of the convolution-family benchmarks' tensors: 64-byte aligned (SimdAllocate),
// as an inference engine allocates them and as Buffer is. With malloc's 16-byte alignment every
// vector of an NHWC image whose pixels are a multiple of 64 bytes straddles two cache lines
// (3x3 depthwise 256ch 56x56 on Zen 5: 100-115 us aligned, 135-155 us 16 bytes off).
template <class T>
struct AlignedAllocator {
    using value_type = T;
    AlignedAllocator() = default;
    template <class U>
    AlignedAllocator(const AlignedAllocator<U>&) {}
    T* allocate(size_t n) {
        void* p = SimdAllocate(n * sizeof(T), 64);
        if (!p) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t) { SimdFree(p); }
    template <class U>
    bool operator==(const AlignedAllocator<U>&) const {
        return true;
    }
    template <class U>
    bool operator!=(const AlignedAllocator<U>&) const {
        return false;
    }
};
template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

// Streams `readBytes` from `inputs` equally sized arrays and writes `writeBytes` to one array,
// with no arithmetic: the bandwidth bar of a function with the same read/write mix.
// For inputs == 1 and readBytes == writeBytes it is memcpy.
void CopyMix(const uint8_t* const* inputs, size_t count, size_t readBytesEach, uint8_t* output,
             size_t writeBytes);

// dst[i] = src0[i]*a + b (+ srck[i]*a): n floats per array, 4 vectors per step.
void MulAddMix(const float* const* inputs, size_t count, size_t n, float* output);

// data[i] += constant over n floats (n a multiple of 4 vectors) in place: the bar of in-place
// layers, which read and write back one buffer.
void LoadAddStore(float* data, size_t n);

// Working sets up to this size count as L1-resident (their baseline is MulAddMix).
constexpr size_t kL1Bytes = 32 * 1024;

// Registers `body` as "<name>" with `bytes` moved per call, and a CopyMix baseline with the
// same traffic as "Copy/<mix>/<caseName>" (or "MulAddLoop/<mix>/<caseName>" when the working
// set is L1-resident and the arrays are float streams of equal size).
void RegisterWithBaseline(const std::string& name, const std::string& caseName, size_t inputs,
                          size_t readBytesEach, size_t writeBytes,
                          std::function<void(benchmark::State&)> body);

// Records the bytes counter and bytes/s for a loop that ran state.iterations() calls.
void SetTraffic(benchmark::State& state, size_t bytesPerCall);

}  // namespace bench
