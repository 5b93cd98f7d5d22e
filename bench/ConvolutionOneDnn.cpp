// Optional comparison (CMake -DSIMD_SYNET_BENCH_ONEDNN=ON, needs libdnnl-dev): the layers of
// bench/convolution_bench.cpp through oneDNN's convolution primitive on one thread, ReLU as a
// post-op, weights in the layout oneDNN prefers (re-ordered outside the timed loop), source and
// destination in the same NCHW or NHWC layout as ours. Each line also times this library on the
// same layer and reports simd_vs_onednn = oneDNN time / our time (> 1: we are faster).
// The INT8 cases ("Convolution/OneDnn8i/...") compare SimdSynetConvolution8i (UINT8 source and
// destination, 8iNarrowed, unsigned input quantizer) with oneDNN's INT8 convolution of the same
// layer: u8 source, s8 weights, f32 bias, per-output-channel output scales, ReLU, u8 destination.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <ctime>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "BenchUtil.h"
#include "ConvolutionLayers.h"
#include "SimdSynet.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace {

using bench::kLayers;
using bench::Layer;

// Best of five runs of ten calls of f (seconds per call), in the calling thread's CPU time:
// on a shared machine, time the thread spends descheduled would otherwise count as its own.
template <class F>
double BestSecondsPerCall(const F& f) {
    const auto now = [] {
        timespec t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
    };
    double best = 1e9;
    for (int run = 0; run < 5; ++run) {
        const int calls = 10;
        const double start = now();
        for (int i = 0; i < calls; ++i) f();
        best = std::min(best, (now() - start) / calls);
    }
    return best;
}

// Seconds per call of our Forward on the layer.
double SimdSecondsPerCall(const Layer& layer, SimdTensorFormatType format) {
    const SimdConvolutionParameters p = bench::LayerParameters(layer, format);
    void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
    if (!context) return 0.0;
    std::vector<float> weight(p.kernelY * p.kernelX * p.srcC / p.group * p.dstC, 0.01f);
    bench::AlignedVector<float> bias(p.dstC, 0.1f), src(p.srcC * p.srcH * p.srcW, 0.5f);
    bench::AlignedVector<float> dst(p.dstC * p.dstH * p.dstW);
    SimdSynetConvolution32fSetParams(context, weight.data(), nullptr, bias.data(), nullptr);
    bench::AlignedVector<float> buf(SimdSynetConvolution32fExternalBufferSize(context));
    const double best = BestSecondsPerCall(
        [&] { SimdSynetConvolution32fForward(context, src.data(), buf.data(), dst.data()); });
    SimdRelease(context);
    return best;
}

void BM_OneDnnConvolution(benchmark::State& state, Layer layer, SimdTensorFormatType format) {
    using namespace dnnl;
    omp_set_num_threads(1);
    const SimdConvolutionParameters p = bench::LayerParameters(layer, format);
    const memory::dim G = memory::dim(p.group), C = memory::dim(p.srcC), D = memory::dim(p.dstC),
                      K = memory::dim(p.kernelY), pad = memory::dim(p.padY),
                      stride = memory::dim(p.strideY);
    const auto tag =
        format == SimdTensorFormatNhwc ? memory::format_tag::nhwc : memory::format_tag::nchw;
    const memory::dims srcDims{1, C, memory::dim(p.srcH), memory::dim(p.srcW)};
    const memory::dims dstDims{1, D, memory::dim(p.dstH), memory::dim(p.dstW)};
    const memory::dims weightDims =
        G == 1 ? memory::dims{D, C, K, K} : memory::dims{G, D / G, C / G, K, K};
    const auto f32 = memory::data_type::f32;
    engine cpu(engine::kind::cpu, 0);
    stream strm(cpu);
    const convolution_forward::desc desc(
        prop_kind::forward_inference, algorithm::convolution_direct,
        memory::desc(srcDims, f32, tag), memory::desc(weightDims, f32, memory::format_tag::any),
        memory::desc({D}, f32, memory::format_tag::x), memory::desc(dstDims, f32, tag),
        {stride, stride}, {pad, pad}, {pad, pad});
    post_ops ops;
    ops.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
    primitive_attr attr;
    attr.set_post_ops(ops);
    const convolution_forward::primitive_desc pd(desc, attr, cpu);
    memory src(pd.src_desc(), cpu), weights(pd.weights_desc(), cpu), bias(pd.bias_desc(), cpu),
        dst(pd.dst_desc(), cpu);
    // Values do not change the speed; fill everything once.
    for (memory* m : {&src, &weights, &bias}) {
        float* data = static_cast<float*>(m->get_data_handle());
        std::fill(data, data + m->get_desc().get_size() / sizeof(float), 0.25f);
    }
    const convolution_forward conv(pd);
    const std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src},
                                               {DNNL_ARG_WEIGHTS, weights},
                                               {DNNL_ARG_BIAS, bias},
                                               {DNNL_ARG_DST, dst}};
    for (auto _ : state) {
        conv.execute(strm, args);
        strm.wait();
    }
    const double flops = 2.0 * p.dstC * p.dstH * p.dstW * (p.srcC / p.group) * K * K;
    state.counters["GFLOPS"] =
        benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double theirs = BestSecondsPerCall([&] {
        conv.execute(strm, args);
        strm.wait();
    });
    const double ours = SimdSecondsPerCall(layer, format);
    state.counters["onednn_us"] = theirs * 1e6;
    state.counters["simd_us"] = ours * 1e6;
    state.counters["simd_vs_onednn"] = ours > 0 ? theirs / ours : 0.0;
    state.SetLabel(std::string("onednn:") + pd.impl_info_str());
}

// Seconds per call of our INT8 Forward on the layer (UINT8 in and out, 8iNarrowed).
double Simd8iSecondsPerCall(const Layer& layer, SimdTensorFormatType format) {
    SimdConvolutionParameters p = bench::LayerParameters(layer, format);
    p.srcT = p.dstT = SimdTensorData8u;
    void* context = SimdSynetConvolution8iInit(1, &p, SimdSynetCompatibility8iNarrowed);
    if (!context) return 0.0;
    std::vector<float> weight(p.kernelY * p.kernelX * p.srcC / p.group * p.dstC, 0.01f);
    std::vector<float> bias(p.dstC, 0.1f), lo(std::max(p.srcC, p.dstC), 0.0f),
        hi(std::max(p.srcC, p.dstC), 1.0f);
    const float* stats[4] = {lo.data(), hi.data(), lo.data(), hi.data()};
    SimdSynetConvolution8iSetParams(context, weight.data(), bias.data(), nullptr, stats);
    bench::AlignedVector<uint8_t> src(p.srcC * p.srcH * p.srcW, 100), dst(p.dstC * p.dstH * p.dstW);
    bench::AlignedVector<uint8_t> buf(SimdSynetConvolution8iExternalBufferSize(context));
    const double best = BestSecondsPerCall(
        [&] { SimdSynetConvolution8iForward(context, src.data(), buf.data(), dst.data()); });
    SimdRelease(context);
    return best;
}

void BM_OneDnnConvolution8i(benchmark::State& state, Layer layer, SimdTensorFormatType format) {
    using namespace dnnl;
    omp_set_num_threads(1);
    const SimdConvolutionParameters p = bench::LayerParameters(layer, format);
    const memory::dim G = memory::dim(p.group), C = memory::dim(p.srcC), D = memory::dim(p.dstC),
                      K = memory::dim(p.kernelY), pad = memory::dim(p.padY),
                      stride = memory::dim(p.strideY);
    const auto tag =
        format == SimdTensorFormatNhwc ? memory::format_tag::nhwc : memory::format_tag::nchw;
    const memory::dims srcDims{1, C, memory::dim(p.srcH), memory::dim(p.srcW)};
    const memory::dims dstDims{1, D, memory::dim(p.dstH), memory::dim(p.dstW)};
    const memory::dims weightDims =
        G == 1 ? memory::dims{D, C, K, K} : memory::dims{G, D / G, C / G, K, K};
    const auto u8 = memory::data_type::u8, s8 = memory::data_type::s8, f32 = memory::data_type::f32;
    engine cpu(engine::kind::cpu, 0);
    stream strm(cpu);
    const convolution_forward::desc desc(
        prop_kind::forward_inference, algorithm::convolution_direct, memory::desc(srcDims, u8, tag),
        memory::desc(weightDims, s8, memory::format_tag::any),
        memory::desc({D}, f32, memory::format_tag::x), memory::desc(dstDims, u8, tag),
        {stride, stride}, {pad, pad}, {pad, pad});
    primitive_attr attr;
    attr.set_output_scales(1 << 1, std::vector<float>(size_t(D), 0.02f));  // per channel
    post_ops ops;
    ops.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
    const convolution_forward::primitive_desc pd(desc, attr, cpu);
    memory src(pd.src_desc(), cpu), weights(pd.weights_desc(), cpu), bias(pd.bias_desc(), cpu),
        dst(pd.dst_desc(), cpu);
    // Values do not change the speed; fill everything once (bytes of 1, biases of 0.25).
    for (memory* m : {&src, &weights}) {
        uint8_t* data = static_cast<uint8_t*>(m->get_data_handle());
        std::fill(data, data + m->get_desc().get_size(), uint8_t(1));
    }
    float* biasData = static_cast<float*>(bias.get_data_handle());
    std::fill(biasData, biasData + D, 0.25f);
    const convolution_forward conv(pd);
    const std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src},
                                               {DNNL_ARG_WEIGHTS, weights},
                                               {DNNL_ARG_BIAS, bias},
                                               {DNNL_ARG_DST, dst}};
    for (auto _ : state) {
        conv.execute(strm, args);
        strm.wait();
    }
    const double ops2 = 2.0 * p.dstC * p.dstH * p.dstW * (p.srcC / p.group) * K * K;
    state.counters["GOPS"] =
        benchmark::Counter(ops2 * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double theirs = BestSecondsPerCall([&] {
        conv.execute(strm, args);
        strm.wait();
    });
    const double ours = Simd8iSecondsPerCall(layer, format);
    state.counters["onednn_us"] = theirs * 1e6;
    state.counters["simd_us"] = ours * 1e6;
    state.counters["simd_vs_onednn"] = ours > 0 ? theirs / ours : 0.0;
    state.SetLabel(std::string("onednn:") + pd.impl_info_str());
}

const bool kRegistered = [] {
    for (const Layer& layer : kLayers)
        for (SimdTensorFormatType f : {SimdTensorFormatNhwc, SimdTensorFormatNchw}) {
            const std::string name = std::string("Convolution/OneDnn/") + layer.name +
                                     (f == SimdTensorFormatNhwc ? "/nhwc" : "/nchw");
            benchmark::RegisterBenchmark(name.c_str(), BM_OneDnnConvolution, layer, f)
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
            // oneDNN's INT8 kernels take NHWC (or blocked) tensors: with NCHW ones it falls back
            // to its reference convolution (ref_int8, seconds per layer), so INT8 is NHWC only.
            if (f != SimdTensorFormatNhwc) continue;
            const std::string name8i = std::string("Convolution/OneDnn8i/") + layer.name + "/nhwc";
            benchmark::RegisterBenchmark(name8i.c_str(), BM_OneDnnConvolution8i, layer, f)
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
        }
    return true;
}();

}  // namespace
