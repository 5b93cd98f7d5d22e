// Benchmarks of the FP32 deconvolution framework on typical upsampling layers. Each case
// reports GFLOP/s (2*srcC*srcH*srcW*dstC/group*kY*kX per image, every tap counted) and the
// share of the single-core FMA peak (bench::FmaPeakGflops). Single thread unless the case name
// ends in /tN (thread budget N).
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "BenchUtil.h"
#include "SimdSynet.h"

namespace {

struct Layer {
    const char* name;
    size_t srcC, srcH, srcW, dstC, k, stride, pad;
};

const Layer kLayers[] = {
    {"a_4x4s2p1_64-32_28", 64, 28, 28, 32, 4, 2, 1},
    {"b_2x2s2_128-64_28", 128, 28, 28, 64, 2, 2, 0},
};

void BM_Deconvolution(benchmark::State& state, Layer layer, SimdTensorFormatType format,
                      size_t threads) {
    SimdConvolutionParameters p;
    std::memset(&p, 0, sizeof(p));
    p.srcC = layer.srcC;
    p.srcH = layer.srcH;
    p.srcW = layer.srcW;
    p.srcT = p.dstT = SimdTensorData32f;
    p.srcF = p.dstF = format;
    p.dstC = layer.dstC;
    p.kernelY = p.kernelX = layer.k;
    p.strideY = p.strideX = layer.stride;
    p.dilationY = p.dilationX = 1;
    p.padY = p.padX = p.padH = p.padW = layer.pad;
    p.group = 1;
    p.activation = SimdConvolutionActivationRelu;
    p.dstH = layer.stride * (p.srcH - 1) + layer.k - 2 * layer.pad;
    p.dstW = layer.stride * (p.srcW - 1) + layer.k - 2 * layer.pad;
    void* context = SimdSynetDeconvolution32fInit(1, &p, nullptr);
    if (!context) {
        state.SkipWithError("Init failed");
        return;
    }
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> weight(layer.k * layer.k * p.srcC * p.dstC), bias(p.dstC);
    std::vector<float> src(p.srcC * p.srcH * p.srcW), dst(p.dstC * p.dstH * p.dstW);
    for (float& x : weight) x = dist(rng);
    for (float& x : bias) x = dist(rng);
    for (float& x : src) x = dist(rng);
    SimdSynetDeconvolution32fSetParams(context, weight.data(), nullptr, bias.data(), nullptr);
    std::vector<float> buf(SimdSynetDeconvolution32fExternalBufferSize(context));
    SimdSetThreadNumber(threads);
    for (auto _ : state) {
        SimdSynetDeconvolution32fForward(context, src.data(), buf.data(), dst.data());
        benchmark::ClobberMemory();
    }
    SimdSetThreadNumber(1);
    const double flops = 2.0 * p.srcC * p.srcH * p.srcW * p.dstC * layer.k * layer.k;
    state.counters["GFLOPS"] =
        benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double peak = bench::FmaPeakGflops() * double(threads);
    state.counters["peak_GFLOPS"] = peak;
    state.counters["pct_of_peak"] =
        benchmark::Counter(peak > 0 ? flops * 1e-9 / peak * 100.0 : 0.0,
                           benchmark::Counter::kIsIterationInvariantRate);
    state.SetLabel(SimdSynetDeconvolution32fInfo(context));
    SimdRelease(context);
}

const bool kRegistered = [] {
    for (const Layer& layer : kLayers)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (size_t threads : {1, 2}) {
                std::string name = std::string("Deconvolution/Deconvolution32fForward/") +
                                   layer.name + (f == SimdTensorFormatNhwc ? "/nhwc" : "/nchw");
                if (threads > 1) name += "/t" + std::to_string(threads);
                benchmark::RegisterBenchmark(name.c_str(), BM_Deconvolution, layer, f, threads)
                    ->Unit(benchmark::kMicrosecond)
                    ->UseRealTime();
            }
    return true;
}();

}  // namespace
