// Benchmarks of the FP32 and BF16 deconvolution frameworks on typical upsampling layers. Each
// case reports GFLOP/s (2*srcC*srcH*srcW*dstC/group*kY*kX per image, every tap counted) and the
// share of the single-core FMA peak (bench::FmaPeakGflops). Single thread unless the case name
// ends in /tN (thread budget N). The BF16 cases (BF16 in, BF16 out) also report
// ratio_to_fp32: their GFLOP/s over those of the FP32 case of the same layer, format and
// threads measured just before (a short FP32 timing run inside the BF16 case).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
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
    // Kernel not a multiple of the stride: the column GEMM (FP32 NCHW between transposes).
    {"c_3x3s2p1_64-32_28", 64, 28, 28, 32, 3, 2, 1},
};

// The layer as a deconvolution of `type` in and out, ReLU, batch 1.
SimdConvolutionParameters LayerParams(const Layer& layer, SimdTensorFormatType format,
                                      SimdTensorDataType type) {
    SimdConvolutionParameters p;
    std::memset(&p, 0, sizeof(p));
    p.srcC = layer.srcC;
    p.srcH = layer.srcH;
    p.srcW = layer.srcW;
    p.srcT = p.dstT = type;
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
    return p;
}

// GFLOP/s and the share of the FMA peak of `threads` cores.
void SetFlopCounters(benchmark::State& state, const Layer& layer, size_t threads) {
    const double flops =
        2.0 * layer.srcC * layer.srcH * layer.srcW * layer.dstC * layer.k * layer.k;
    state.counters["GFLOPS"] =
        benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double peak = bench::FmaPeakGflops() * double(threads);
    state.counters["peak_GFLOPS"] = peak;
    state.counters["pct_of_peak"] =
        benchmark::Counter(peak > 0 ? flops * 1e-9 / peak * 100.0 : 0.0,
                           benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Deconvolution(benchmark::State& state, Layer layer, SimdTensorFormatType format,
                      size_t threads) {
    const SimdConvolutionParameters p = LayerParams(layer, format, SimdTensorData32f);
    void* context = SimdSynetDeconvolution32fInit(1, &p, nullptr);
    if (!context) {
        state.SkipWithError("Init failed");
        return;
    }
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> weight(layer.k * layer.k * p.srcC * p.dstC), bias(p.dstC);
    bench::AlignedVector<float> src(p.srcC * p.srcH * p.srcW), dst(p.dstC * p.dstH * p.dstW);
    for (float& x : weight) x = dist(rng);
    for (float& x : bias) x = dist(rng);
    for (float& x : src) x = dist(rng);
    SimdSynetDeconvolution32fSetParams(context, weight.data(), nullptr, bias.data(), nullptr);
    bench::AlignedVector<float> buf(SimdSynetDeconvolution32fExternalBufferSize(context));
    SimdSetThreadNumber(threads);
    for (auto _ : state) {
        SimdSynetDeconvolution32fForward(context, src.data(), buf.data(), dst.data());
        benchmark::ClobberMemory();
    }
    SimdSetThreadNumber(1);
    SetFlopCounters(state, layer, threads);
    state.SetLabel(SimdSynetDeconvolution32fInfo(context));
    SimdRelease(context);
}

// Seconds per Forward of the FP32 layer (a short timing loop, for the ratio of the BF16 case).
double Fp32SecondsPerCall(const SimdConvolutionParameters& base, size_t threads) {
    SimdConvolutionParameters p = base;
    p.srcT = p.dstT = SimdTensorData32f;
    void* context = SimdSynetDeconvolution32fInit(1, &p, nullptr);
    if (!context) return 0.0;
    std::vector<float> weight(p.kernelY * p.kernelX * p.srcC * p.dstC, 0.25f), bias(p.dstC, 0.1f);
    bench::AlignedVector<float> src(p.srcC * p.srcH * p.srcW, 0.5f), dst(p.dstC * p.dstH * p.dstW);
    SimdSynetDeconvolution32fSetParams(context, weight.data(), nullptr, bias.data(), nullptr);
    bench::AlignedVector<float> buf(SimdSynetDeconvolution32fExternalBufferSize(context));
    SimdSetThreadNumber(threads);
    SimdSynetDeconvolution32fForward(context, src.data(), buf.data(), dst.data());
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
        const auto start = std::chrono::steady_clock::now();
        const int calls = 20;
        for (int i = 0; i < calls; ++i)
            SimdSynetDeconvolution32fForward(context, src.data(), buf.data(), dst.data());
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best = std::min(best, took.count() / calls);
    }
    SimdSetThreadNumber(1);
    SimdRelease(context);
    return best;
}

void BM_Deconvolution16b(benchmark::State& state, Layer layer, SimdTensorFormatType format,
                         size_t threads) {
    const SimdConvolutionParameters p = LayerParams(layer, format, SimdTensorData16b);
    const double fp32Seconds = Fp32SecondsPerCall(p, threads);
    void* context = SimdSynetDeconvolution16bInit(1, &p, SimdSynetCompatibilityDefault);
    if (!context) {
        state.SkipWithError("Init failed");
        return;
    }
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> weight(layer.k * layer.k * p.srcC * p.dstC), bias(p.dstC);
    bench::AlignedVector<uint16_t> src(p.srcC * p.srcH * p.srcW), dst(p.dstC * p.dstH * p.dstW);
    for (float& x : weight) x = dist(rng);
    for (float& x : bias) x = dist(rng);
    // Upper halves of FP32 values: BF16 inputs in [-1, 1).
    for (uint16_t& x : src) {
        const float f = dist(rng);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        x = uint16_t(bits >> 16);
    }
    SimdSynetDeconvolution16bSetParams(context, weight.data(), bias.data(), nullptr);
    bench::AlignedVector<uint8_t> buf(SimdSynetDeconvolution16bExternalBufferSize(context));
    const auto* in = reinterpret_cast<const uint8_t*>(src.data());
    auto* out = reinterpret_cast<uint8_t*>(dst.data());
    SimdSetThreadNumber(threads);
    for (auto _ : state) {
        SimdSynetDeconvolution16bForward(context, in, buf.data(), out);
        benchmark::ClobberMemory();
    }
    SimdSetThreadNumber(1);
    SetFlopCounters(state, layer, threads);
    // FP32 time / BF16 time: the speed of the BF16 case relative to the FP32 one.
    state.counters["ratio_to_fp32"] =
        benchmark::Counter(fp32Seconds, benchmark::Counter::kIsIterationInvariantRate);
    state.SetLabel(SimdSynetDeconvolution16bInfo(context));
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
    for (const Layer& layer : kLayers)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (size_t threads : {1, 2}) {
                std::string name = std::string("Deconvolution/Deconvolution16bForward/") +
                                   layer.name + (f == SimdTensorFormatNhwc ? "/nhwc" : "/nchw") +
                                   "/bf16-bf16";
                if (threads > 1) name += "/t" + std::to_string(threads);
                benchmark::RegisterBenchmark(name.c_str(), BM_Deconvolution16b, layer, f, threads)
                    ->Unit(benchmark::kMicrosecond)
                    ->UseRealTime();
            }
    return true;
}();

}  // namespace
