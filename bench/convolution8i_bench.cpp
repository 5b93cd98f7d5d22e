// Benchmarks of the INT8 convolution framework (SimdSynetConvolution8i*) on the layers of
// bench/ConvolutionLayers.h, UINT8 in and out, single thread, against the FP32 framework on the
// same layer. Times are the thread's CPU time (on a shared machine, time spent descheduled
// would count otherwise). Each case reports GOPS (2 * multiply-adds per second) and
//   vs_fp32         FP32 framework time / INT8 time (> 1: INT8 is faster)
//   vs_fp32_direct  the same against the FP32 framework with SIMD_SYNET_WINOGRAD=0 (its direct
//                   kernels), on the layers where it would choose Winograd
// The instruction set is the best the CPU has; SIMD_SYNET_MAX_ISA caps it and SIMD_SYNET_VNNI=0
// keeps the AVX-512 kernels off VNNI.
#include <benchmark/benchmark.h>

#include <algorithm>
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

void BM_Convolution8i(benchmark::State& state, Layer layer, SimdTensorFormatType format,
                      SimdSynetCompatibilityType mode) {
    SimdConvolutionParameters p = LayerParameters(layer, format);
    p.srcT = p.dstT = SimdTensorData8u;
    void* context = SimdSynetConvolution8iInit(1, &p, mode);
    if (!context) {
        state.SkipWithError("Init failed");
        return;
    }
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> weight(layer.k * layer.k * p.srcC / p.group * p.dstC), bias(p.dstC);
    for (float& x : weight) x = dist(rng);
    for (float& x : bias) x = dist(rng);
    // Unsigned input (a ReLU output) and output ranges of 0..4.
    std::vector<float> srcLo(p.srcC, 0.0f), srcHi(p.srcC, 1.0f), dstLo(p.dstC, 0.0f),
        dstHi(p.dstC, 4.0f);
    const float* stats[4] = {srcLo.data(), srcHi.data(), dstLo.data(), dstHi.data()};
    SimdSynetConvolution8iSetParams(context, weight.data(), bias.data(), nullptr, stats);
    const int upper = mode == SimdSynetCompatibility8iNarrowed ? 181 : 256;
    bench::AlignedVector<uint8_t> src(p.srcC * p.srcH * p.srcW), dst(p.dstC * p.dstH * p.dstW);
    for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(rng() % upper);
    bench::AlignedVector<uint8_t> buf(SimdSynetConvolution8iExternalBufferSize(context));
    for (auto _ : state) {
        SimdSynetConvolution8iForward(context, src.data(), buf.data(), dst.data());
        benchmark::ClobberMemory();
    }
    const double ops = 2.0 * p.dstC * p.dstH * p.dstW * (p.srcC / p.group) * layer.k * layer.k;
    state.counters["GOPS"] =
        benchmark::Counter(ops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double ours = bench::BestSecondsPerCall(
        [&] { SimdSynetConvolution8iForward(context, src.data(), buf.data(), dst.data()); });
    bool winograd = false;
    const double fp32 = bench::Fp32SecondsPerCall(layer, format, "", &winograd);
    state.counters["int8_us"] = ours * 1e6;
    state.counters["fp32_us"] = fp32 * 1e6;
    state.counters["vs_fp32"] = fp32 / ours;
    if (winograd) {
        const double direct = bench::Fp32SecondsPerCall(layer, format, "0");
        state.counters["fp32_direct_us"] = direct * 1e6;
        state.counters["vs_fp32_direct"] = direct / ours;
    }
    state.SetLabel(SimdSynetConvolution8iInfo(context));
    SimdRelease(context);
}

const bool kRegistered = [] {
    for (SimdSynetCompatibilityType mode :
         {SimdSynetCompatibility8iNarrowed, SimdSynetCompatibility8iPrecise})
        for (const Layer& layer : kLayers)
            for (SimdTensorFormatType f : {SimdTensorFormatNhwc, SimdTensorFormatNchw}) {
                const std::string name =
                    std::string("Convolution8i/Forward/") + layer.name +
                    (f == SimdTensorFormatNhwc ? "/nhwc" : "/nchw") +
                    (mode == SimdSynetCompatibility8iNarrowed ? "/narrowed" : "/precise");
                benchmark::RegisterBenchmark(name.c_str(), BM_Convolution8i, layer, f, mode)
                    ->Unit(benchmark::kMicrosecond);
            }
    return true;
}();

}  // namespace
