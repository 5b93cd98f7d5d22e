// Benchmarks of the FP32 convolution framework on typical network layers, single thread.
// Each case reports GFLOP/s (2*dstC*dstH*dstW*srcC/group*kY*kX per image) and the share of the
// machine's FMA peak, measured here by a register-only FMA loop of the widest vectors in use.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
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
