// Optional comparison (CMake -DSIMD_SYNET_BENCH_ONEDNN=ON, needs libdnnl-dev): the layers of
// bench/convolution_bench.cpp through oneDNN's convolution primitive on one thread, ReLU as a
// post-op, weights in the layout oneDNN prefers (re-ordered outside the timed loop), source and
// destination in the same NCHW or NHWC layout as ours. Each line also times this library on the
// same layer and reports simd_vs_onednn = oneDNN time / our time (> 1: we are faster).
// "Convolution/OneDnnBlock/..." compares a MobileNet-v2 block on our merged convolution with
// oneDNN's three convolutions of it (BM_OneDnnBlock).
// The INT8 cases ("Convolution/OneDnn8i/...") compare SimdSynetConvolution8i (UINT8 source and
// destination, 8iNarrowed, unsigned input quantizer) with oneDNN's INT8 convolution of the same
// layer: u8 source, s8 weights, f32 bias, per-output-channel output scales, ReLU, u8 destination.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
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

// One oneDNN convolution primitive of `p` (source, weights and destination of the given types,
// f32 bias, the given post-ops; INT8 destinations get per-channel output scales), weights in the
// layout it prefers, with its memories filled once (values do not change the speed: floats 0.25,
// integers 1). `src`, when given, is used as its source (chains of layers).
struct OneDnnConv {
    dnnl::convolution_forward conv;
    std::unordered_map<int, dnnl::memory> args;
    std::string impl;
};

OneDnnConv MakeOneDnnConv(const dnnl::engine& cpu, const SimdConvolutionParameters& p,
                          dnnl::memory::data_type srcType, dnnl::memory::data_type weightType,
                          dnnl::memory::data_type dstType, const dnnl::post_ops& ops,
                          const dnnl::memory* src = nullptr) {
    using namespace dnnl;
    const memory::dim G = memory::dim(p.group), C = memory::dim(p.srcC), D = memory::dim(p.dstC),
                      K = memory::dim(p.kernelY), pad = memory::dim(p.padY),
                      stride = memory::dim(p.strideY);
    const auto tag =
        p.srcF == SimdTensorFormatNhwc ? memory::format_tag::nhwc : memory::format_tag::nchw;
    const memory::dims srcDims{1, C, memory::dim(p.srcH), memory::dim(p.srcW)};
    const memory::dims dstDims{1, D, memory::dim(p.dstH), memory::dim(p.dstW)};
    const memory::dims weightDims =
        G == 1 ? memory::dims{D, C, K, K} : memory::dims{G, D / G, C / G, K, K};
    const auto f32 = memory::data_type::f32;
    const convolution_forward::desc desc(
        prop_kind::forward_inference, algorithm::convolution_direct,
        memory::desc(srcDims, srcType, tag),
        memory::desc(weightDims, weightType, memory::format_tag::any),
        memory::desc({D}, f32, memory::format_tag::x), memory::desc(dstDims, dstType, tag),
        {stride, stride}, {pad, pad}, {pad, pad});
    primitive_attr attr;
    if (dstType != f32) attr.set_output_scales(1 << 1, std::vector<float>(size_t(D), 0.02f));
    attr.set_post_ops(ops);
    const convolution_forward::primitive_desc pd(desc, attr, cpu);
    memory source = src ? *src : memory(pd.src_desc(), cpu);
    memory weights(pd.weights_desc(), cpu), bias(pd.bias_desc(), cpu), dst(pd.dst_desc(), cpu);
    for (memory* m : {&source, &weights, &bias, &dst}) {
        const size_t bytes = m->get_desc().get_size();
        if (m->get_desc().data_type() == f32) {
            float* data = static_cast<float*>(m->get_data_handle());
            std::fill(data, data + bytes / sizeof(float), 0.25f);
        } else {
            uint8_t* data = static_cast<uint8_t*>(m->get_data_handle());
            std::fill(data, data + bytes, uint8_t(1));
        }
    }
    return {convolution_forward(pd),
            {{DNNL_ARG_SRC, source},
             {DNNL_ARG_WEIGHTS, weights},
             {DNNL_ARG_BIAS, bias},
             {DNNL_ARG_DST, dst}},
            pd.impl_info_str()};
}

// The layer through oneDNN's convolution primitive with a ReLU post-op, timed in the benchmark
// loop, then compared with ours (seconds per call, `ours`).
void RunOneDnn(benchmark::State& state, const SimdConvolutionParameters& p,
               dnnl::memory::data_type srcType, dnnl::memory::data_type weightType,
               dnnl::memory::data_type dstType, double ours) {
    using namespace dnnl;
    omp_set_num_threads(1);
    engine cpu(engine::kind::cpu, 0);
    stream strm(cpu);
    post_ops ops;
    ops.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
    const OneDnnConv c = MakeOneDnnConv(cpu, p, srcType, weightType, dstType, ops);
    for (auto _ : state) {
        c.conv.execute(strm, c.args);
        strm.wait();
    }
    const double ops2 = 2.0 * p.dstC * p.dstH * p.dstW * (p.srcC / p.group) * p.kernelY * p.kernelX;
    state.counters[dstType == memory::data_type::f32 ? "GFLOPS" : "GOPS"] =
        benchmark::Counter(ops2 * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double theirs = bench::BestSecondsPerCall([&] {
        c.conv.execute(strm, c.args);
        strm.wait();
    });
    state.counters["onednn_us"] = theirs * 1e6;
    state.counters["simd_us"] = ours * 1e6;
    state.counters["simd_vs_onednn"] = ours > 0 ? theirs / ours : 0.0;
    state.SetLabel(std::string("onednn:") + c.impl);
}

// A MobileNet-v2 inverted-residual block, NHWC: P 1x1 srcC->expanded ReLU6, D depthwise 3x3
// ReLU6, Q 1x1 expanded->srcC, plus the block's input. Ours: one merged convolution context;
// oneDNN: its three convolution primitives (ReLU6 as a clip post-op, the residual as a sum
// post-op into a destination holding the input), the way a framework runs it layer by layer.
struct InvertedResidual {
    const char* name;
    size_t size, channels, expanded;
};

SimdConvolutionParameters BlockStage(const InvertedResidual& b, size_t srcC, size_t dstC, size_t k,
                                     size_t group, SimdConvolutionActivationType act) {
    SimdConvolutionParameters p = bench::LayerParameters(
        Layer{b.name, srcC, b.size, b.size, dstC, k, 1, (k - 1) / 2, group}, SimdTensorFormatNhwc);
    p.activation = act;
    return p;
}

void BM_OneDnnBlock(benchmark::State& state, InvertedResidual b) {
    using namespace dnnl;
    omp_set_num_threads(1);
    const SimdConvolutionParameters convs[3] = {
        BlockStage(b, b.channels, b.expanded, 1, 1, SimdConvolutionActivationRestrictRange),
        BlockStage(b, b.expanded, b.expanded, 3, b.expanded,
                   SimdConvolutionActivationRestrictRange),
        BlockStage(b, b.expanded, b.channels, 1, 1, SimdConvolutionActivationIdentity)};
    // Ours.
    void* merged = SimdSynetMergedConvolution32fInit(1, convs, 3, SimdTrue);
    if (!merged) {
        state.SkipWithError("SimdSynetMergedConvolution32fInit failed");
        return;
    }
    std::vector<float> w[3], bias[3];
    const float relu6[2] = {0.0f, 6.0f};
    for (size_t i = 0; i < 3; ++i) {
        w[i].assign(
            convs[i].srcC / convs[i].group * convs[i].dstC * convs[i].kernelY * convs[i].kernelX,
            0.01f);
        bias[i].assign(convs[i].dstC, 0.1f);
    }
    const float* weights[3] = {w[0].data(), w[1].data(), w[2].data()};
    const float* biases[3] = {bias[0].data(), bias[1].data(), bias[2].data()};
    const float* params[3] = {relu6, relu6, nullptr};
    SimdSynetMergedConvolution32fSetParams(merged, weights, nullptr, biases, params);
    bench::AlignedVector<float> src(b.size * b.size * b.channels, 0.5f), dst(src.size()),
        buf(SimdSynetMergedConvolution32fExternalBufferSize(merged));
    const double ours = bench::BestSecondsPerCall(
        [&] { SimdSynetMergedConvolution32fForward(merged, src.data(), buf.data(), dst.data()); });
    const std::string info = SimdSynetMergedConvolution32fInfo(merged);
    SimdRelease(merged);
    // oneDNN.
    engine cpu(engine::kind::cpu, 0);
    stream strm(cpu);
    const auto f32 = memory::data_type::f32;
    post_ops clip, sum;
    clip.append_eltwise(1.0f, algorithm::eltwise_clip, 0.0f, 6.0f);
    sum.append_sum(1.0f);
    const OneDnnConv p = MakeOneDnnConv(cpu, convs[0], f32, f32, f32, clip);
    const OneDnnConv d =
        MakeOneDnnConv(cpu, convs[1], f32, f32, f32, clip, &p.args.at(DNNL_ARG_DST));
    const OneDnnConv q =
        MakeOneDnnConv(cpu, convs[2], f32, f32, f32, sum, &d.args.at(DNNL_ARG_DST));
    const auto run = [&] {
        for (const OneDnnConv* c : {&p, &d, &q}) c->conv.execute(strm, c->args);
        strm.wait();
    };
    for (auto _ : state) run();
    double flop = 0;
    for (const SimdConvolutionParameters& c : convs)
        flop += 2.0 * c.dstC * c.dstH * c.dstW * (c.srcC / c.group) * c.kernelY * c.kernelX;
    state.counters["GFLOPS"] =
        benchmark::Counter(flop * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double theirs = bench::BestSecondsPerCall(run);
    state.counters["onednn_us"] = theirs * 1e6;
    state.counters["simd_us"] = ours * 1e6;
    state.counters["simd_vs_onednn"] = theirs / ours;
    state.SetLabel("ours:" + info + " onednn:" + p.impl + " + " + d.impl + " + " + q.impl);
}

void BM_OneDnnConvolution(benchmark::State& state, Layer layer, SimdTensorFormatType format) {
    const auto f32 = dnnl::memory::data_type::f32;
    RunOneDnn(state, bench::LayerParameters(layer, format), f32, f32, f32,
              bench::Fp32SecondsPerCall(layer, format, ""));
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
    const double best = bench::BestSecondsPerCall(
        [&] { SimdSynetConvolution8iForward(context, src.data(), buf.data(), dst.data()); });
    SimdRelease(context);
    return best;
}

void BM_OneDnnConvolution8i(benchmark::State& state, Layer layer, SimdTensorFormatType format) {
    using dnnl::memory;
    RunOneDnn(state, bench::LayerParameters(layer, format), memory::data_type::u8,
              memory::data_type::s8, memory::data_type::u8, Simd8iSecondsPerCall(layer, format));
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
    for (const InvertedResidual& b : {InvertedResidual{"mnv2_56x56_24-144-24", 56, 24, 144},
                                      InvertedResidual{"mnv2_28x28_32-192-32", 28, 32, 192}})
        benchmark::RegisterBenchmark((std::string("Convolution/OneDnnBlock/") + b.name).c_str(),
                                     BM_OneDnnBlock, b)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
    return true;
}();

}  // namespace
