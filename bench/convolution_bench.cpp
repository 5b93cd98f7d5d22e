// Benchmarks of the FP32 convolution framework on typical network layers, single thread (and
// more: see ThreadCounts).
// Each case reports GFLOP/s (2*dstC*dstH*dstW*srcC/group*kY*kX per image) and the share of the
// machine's FMA peak, measured here by a register-only FMA loop of the widest vectors in use.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "BenchUtil.h"
#include "ConvolutionLayers.h"
#include "SimdSynet.h"

namespace {

using bench::kLayers;
using bench::Layer;
using bench::LayerParameters;

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
    bench::AlignedVector<float> src(p.srcC * p.srcH * p.srcW), dst(p.dstC * p.dstH * p.dstW);
    for (float& x : weight) x = dist(rng);
    for (float& x : bias) x = dist(rng);
    for (float& x : src) x = dist(rng);
    SimdSynetConvolution32fSetParams(context, weight.data(), nullptr, bias.data(), nullptr);
    bench::AlignedVector<float> buf(SimdSynetConvolution32fExternalBufferSize(context));
    SimdSetThreadNumber(threads);
    for (auto _ : state) {
        SimdSynetConvolution32fForward(context, src.data(), buf.data(), dst.data());
        benchmark::ClobberMemory();
    }
    const double flops = 2.0 * p.dstC * p.dstH * p.dstW * (p.srcC / p.group) * layer.k * layer.k;
    state.counters["GFLOPS"] =
        benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double peak = bench::FmaPeakGflops();
    state.counters["peak_GFLOPS"] = peak;
    state.counters["pct_of_peak"] =
        benchmark::Counter(peak > 0 ? flops * 1e-9 / peak * 100.0 : 0.0,
                           benchmark::Counter::kIsIterationInvariantRate);
    state.SetLabel(SimdSynetConvolution32fInfo(context));
    SimdSetThreadNumber(1);
    SimdRelease(context);
}

// Thread counts from SIMD_SYNET_BENCH_THREADS ("1,2,4,8,16": every layer at each count, for
// thread-scaling figures on a larger machine), else every layer on one thread and the layers
// the issue names also on two. Counts above 1 are timed by the wall clock since the work is
// shared, and named ".../tN".
std::vector<size_t> ThreadCounts(bool* everyLayer) {
    std::vector<size_t> counts;
    const char* list = std::getenv("SIMD_SYNET_BENCH_THREADS");
    *everyLayer = list != nullptr;
    for (const char* p = list; p && *p;) {
        char* end = nullptr;
        const unsigned long n = std::strtoul(p, &end, 10);
        if (end == p) break;
        if (n > 0) counts.push_back(n);
        p = *end == ',' ? end + 1 : end;
    }
    if (counts.empty()) counts = {1, 2};
    return counts;
}

const bool kRegistered = [] {
    bool everyLayer = false;
    for (size_t threads : ThreadCounts(&everyLayer))
        for (const Layer& layer : kLayers)
            for (SimdTensorFormatType f : {SimdTensorFormatNhwc, SimdTensorFormatNchw}) {
                if (threads > 1 && !everyLayer && std::strchr("abcf", layer.name[0]) == nullptr)
                    continue;
                const std::string name = std::string("Convolution/Convolution32fForward/") +
                                         layer.name +
                                         (f == SimdTensorFormatNhwc ? "/nhwc" : "/nchw") +
                                         (threads > 1 ? "/t" + std::to_string(threads) : "");
                benchmark::RegisterBenchmark(name.c_str(), BM_Convolution, layer, f, threads)
                    ->Unit(benchmark::kMicrosecond)
                    ->UseRealTime();
            }
    return true;
}();

}  // namespace
