// Benchmarks of the FP32 convolution framework on typical network layers, single thread.
// Each case reports GFLOP/s (2*dstC*dstH*dstW*srcC/group*kY*kX per image) and the share of the
// machine's FMA peak, measured here by a register-only FMA loop of the widest vectors in use.
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ConvolutionLayers.h"
#include "SimdSynet.h"

namespace {

using bench::kLayers;
using bench::Layer;
using bench::LayerParameters;

// Twelve independent FMA chains (latency 4 x 2 pipes needs at least 8) on registers only.
#define SIMD_SYNET_PEAK_LOOP(V, SET, FMA, LANES)                                                 \
    const V a = SET(0.999f), b = SET(0.001f);                                                    \
    V c0 = SET(0.0f), c1 = SET(0.1f), c2 = SET(0.2f), c3 = SET(0.3f), c4 = SET(0.4f),            \
      c5 = SET(0.5f), c6 = SET(0.6f), c7 = SET(0.7f), c8 = SET(0.8f), c9 = SET(0.9f),            \
      c10 = SET(1.0f), c11 = SET(1.1f);                                                          \
    const size_t iterations = 5000000;                                                           \
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
    benchmark::DoNotOptimize(c0), benchmark::DoNotOptimize(c1), benchmark::DoNotOptimize(c2);    \
    benchmark::DoNotOptimize(c3), benchmark::DoNotOptimize(c4), benchmark::DoNotOptimize(c5);    \
    benchmark::DoNotOptimize(c6), benchmark::DoNotOptimize(c7), benchmark::DoNotOptimize(c8);    \
    benchmark::DoNotOptimize(c9), benchmark::DoNotOptimize(c10), benchmark::DoNotOptimize(c11);  \
    return 2.0 * 12 * LANES * double(iterations) / seconds * 1e-9;

__attribute__((target("avx512f"))) double Peak512() {
    SIMD_SYNET_PEAK_LOOP(__m512, _mm512_set1_ps, _mm512_fmadd_ps, 16)
}
__attribute__((target("avx2,fma"))) double Peak256() {
    SIMD_SYNET_PEAK_LOOP(__m256, _mm256_set1_ps, _mm256_fmadd_ps, 8)
}

// GFLOP/s of one core at the instruction set the library runs on.
double FmaPeak() {
    static const double peak = [] {
        const std::string isa = SimdSynetIsa();
        // The best of several runs: another process on a sibling hyper-thread lowers a run.
        double best = 0.0;
        for (int run = 0; run < 10; ++run) {
            if (isa == "avx512") best = std::max(best, Peak512());
            if (isa == "avx2") best = std::max(best, Peak256());
        }
        return best;
    }();
    return peak;
}

void BM_Convolution(benchmark::State& state, Layer layer, SimdTensorFormatType format,
                    size_t threads) {
    const SimdConvolutionParameters p = LayerParameters(layer, format);
    void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
    if (!context) {
        state.SkipWithError("Init failed");
        return;
    }
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> weight(layer.k * layer.k * p.srcC / p.group * p.dstC), bias(p.dstC);
    std::vector<float> src(p.srcC * p.srcH * p.srcW), dst(p.dstC * p.dstH * p.dstW);
    for (float& x : weight) x = dist(rng);
    for (float& x : bias) x = dist(rng);
    for (float& x : src) x = dist(rng);
    SimdSynetConvolution32fSetParams(context, weight.data(), nullptr, bias.data(), nullptr);
    std::vector<float> buf(SimdSynetConvolution32fExternalBufferSize(context));
    SimdSetThreadNumber(threads);
    for (auto _ : state) {
        SimdSynetConvolution32fForward(context, src.data(), buf.data(), dst.data());
        benchmark::ClobberMemory();
    }
    const double flops = 2.0 * p.dstC * p.dstH * p.dstW * (p.srcC / p.group) * layer.k * layer.k;
    state.counters["gflops"] =
        benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double peak = FmaPeak();
    state.counters["peak_gflops"] = peak;
    state.counters["pct_of_peak"] =
        benchmark::Counter(peak > 0 ? flops * 1e-9 / peak * 100.0 : 0.0,
                           benchmark::Counter::kIsIterationInvariantRate);
    state.SetLabel(SimdSynetConvolution32fInfo(context));
    SimdSetThreadNumber(1);
    SimdRelease(context);
}

// Every layer on one thread; the layers the issue names also on two (".../t2"), timed by the
// wall clock since the work is shared.
const bool kRegistered = [] {
    for (size_t threads : {1, 2})
        for (const Layer& layer : kLayers)
            for (SimdTensorFormatType f : {SimdTensorFormatNhwc, SimdTensorFormatNchw}) {
                if (threads > 1 && std::strchr("abcf", layer.name[0]) == nullptr) continue;
                const std::string name =
                    std::string("Convolution/Convolution32fForward/") + layer.name +
                    (f == SimdTensorFormatNhwc ? "/nhwc" : "/nchw") + (threads > 1 ? "/t2" : "");
                benchmark::RegisterBenchmark(name.c_str(), BM_Convolution, layer, f, threads)
                    ->Unit(benchmark::kMicrosecond)
                    ->UseRealTime();
            }
    return true;
}();

}  // namespace
