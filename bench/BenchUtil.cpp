#include "BenchUtil.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace bench {

#if defined(__x86_64__) || defined(__i386__)
namespace {

// Twelve independent chains (4-cycle latency on two FMA pipes needs at least 8) on registers
// only; the empty asm keeps the compiler from collapsing the chains. Returns GFLOP/s.
#define SIMD_SYNET_BENCH_PEAK_LOOP(V, SET, FMA, ADD, STORE, LANES)                               \
    const V a = SET(0.999f), b = SET(0.001f);                                                    \
    V c0 = SET(0.0f), c1 = SET(0.1f), c2 = SET(0.2f), c3 = SET(0.3f), c4 = SET(0.4f),            \
      c5 = SET(0.5f), c6 = SET(0.6f), c7 = SET(0.7f), c8 = SET(0.8f), c9 = SET(0.9f),            \
      c10 = SET(1.0f), c11 = SET(1.1f);                                                          \
    const size_t iterations = 2000000;                                                           \
    const auto start = std::chrono::steady_clock::now();                                         \
    for (size_t n = 0; n < iterations; ++n) {                                                    \
        c0 = FMA(c0, a, b), c1 = FMA(c1, a, b), c2 = FMA(c2, a, b), c3 = FMA(c3, a, b);          \
        c4 = FMA(c4, a, b), c5 = FMA(c5, a, b), c6 = FMA(c6, a, b), c7 = FMA(c7, a, b);          \
        c8 = FMA(c8, a, b), c9 = FMA(c9, a, b), c10 = FMA(c10, a, b), c11 = FMA(c11, a, b);      \
        __asm__ volatile(""                                                                      \
                         : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5), "+v"(c6), \
                           "+v"(c7), "+v"(c8), "+v"(c9), "+v"(c10), "+v"(c11));                  \
    }                                                                                            \
    const double seconds =                                                                       \
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();         \
    /* A sum to memory instead of DoNotOptimize on each chain, which makes GCC keep the chains   \
       in memory and store all twelve on every iteration (measured: a third of the peak). */     \
    alignas(64) float lanes[LANES];                                                              \
    STORE(lanes, ADD(ADD(ADD(ADD(c0, c1), ADD(c2, c3)), ADD(ADD(c4, c5), ADD(c6, c7))),          \
                     ADD(ADD(c8, c9), ADD(c10, c11))));                                          \
    benchmark::DoNotOptimize(lanes[0]);                                                          \
    return 2.0 * 12 * LANES * double(iterations) / seconds * 1e-9;

__attribute__((target("avx512f"))) double PeakLoop512() {
    SIMD_SYNET_BENCH_PEAK_LOOP(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps,
                               _mm512_store_ps, 16)
}
__attribute__((target("avx2,fma"))) double PeakLoop256() {
    SIMD_SYNET_BENCH_PEAK_LOOP(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps,
                               _mm256_store_ps, 8)
}
#undef SIMD_SYNET_BENCH_PEAK_LOOP

}  // namespace
#endif

double FmaPeakGflops() {
    static const double peak = [] {
        double best = 0.0;
#if defined(__x86_64__) || defined(__i386__)
        const std::string isa = SimdSynetIsa();
        // The best of several runs: a process on a sibling hyper-thread lowers a run.
        for (int run = 0; run < 10; ++run) {
            if (isa == "avx512") best = std::max(best, PeakLoop512());
            if (isa == "avx2") best = std::max(best, PeakLoop256());
        }
#endif
        return best;
    }();
    return peak;
}

void SetTraffic(benchmark::State& state, size_t bytesPerCall) {
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytesPerCall));
    state.counters["bytes"] = double(bytesPerCall);
}

void RegisterWithBaseline(const std::string& name, const std::string& caseName, size_t inputs,
                          size_t readBytesEach, size_t writeBytes,
                          std::function<void(benchmark::State&)> body) {
    const std::string mix = std::to_string(inputs) + "x" + std::to_string(readBytesEach) + "to" +
                            std::to_string(writeBytes);
    // L1-resident float streams are measured against a load -> multiply-add -> store loop (on
    // current cores that mix tops out well below a copy in L1); everything else against copy.
    const bool l1 = inputs * readBytesEach + writeBytes <= kL1Bytes &&
                    readBytesEach == writeBytes && writeBytes % (16 * sizeof(float)) == 0;
    const std::string copyName = (l1 ? "MulAddLoop/" : "Copy/") + mix + "/" + caseName;
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        body(state);
        state.SetLabel("vs " + copyName);
    })->Unit(benchmark::kMicrosecond);
    // One baseline per distinct traffic shape and case is enough.
    static std::vector<std::string> registered;
    for (const auto& r : registered)
        if (r == copyName) return;
    registered.push_back(copyName);
    benchmark::RegisterBenchmark(copyName.c_str(), [=](benchmark::State& state) {
        std::vector<std::unique_ptr<Buffer<uint8_t>>> in;
        std::vector<const uint8_t*> ptrs;
        for (size_t k = 0; k < inputs; ++k) {
            in.emplace_back(new Buffer<uint8_t>(readBytesEach));
            ptrs.push_back(in.back()->data());
        }
        Buffer<uint8_t> out(writeBytes);
        std::vector<const float*> floats;
        for (const uint8_t* p : ptrs) floats.push_back(reinterpret_cast<const float*>(p));
        for (auto _ : state) {
            if (l1)
                MulAddMix(floats.data(), inputs, writeBytes / sizeof(float),
                          reinterpret_cast<float*>(out.data()));
            else
                CopyMix(ptrs.data(), inputs, readBytesEach, out.data(), writeBytes);
            benchmark::ClobberMemory();
        }
        SetTraffic(state, inputs * readBytesEach + writeBytes);
    })->Unit(benchmark::kMicrosecond);
}

}  // namespace bench
