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

// The layer through oneDNN's convolution primitive (source, weights and destination of the given
// types, f32 bias, ReLU post-op; INT8 destinations get per-channel output scales) timed in the
// benchmark loop, then compared with ours (seconds per call, `ours`).
void RunOneDnn(benchmark::State& state, const SimdConvolutionParameters& p,
               dnnl::memory::data_type srcType, dnnl::memory::data_type weightType,
               dnnl::memory::data_type dstType, double ours) {
    using namespace dnnl;
    omp_set_num_threads(1);
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
    engine cpu(engine::kind::cpu, 0);
    stream strm(cpu);
    const convolution_forward::desc desc(
        prop_kind::forward_inference, algorithm::convolution_direct,
        memory::desc(srcDims, srcType, tag),
        memory::desc(weightDims, weightType, memory::format_tag::any),
        memory::desc({D}, f32, memory::format_tag::x), memory::desc(dstDims, dstType, tag),
        {stride, stride}, {pad, pad}, {pad, pad});
    primitive_attr attr;
    if (dstType != f32) attr.set_output_scales(1 << 1, std::vector<float>(size_t(D), 0.02f));
    post_ops ops;
    ops.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
    const convolution_forward::primitive_desc pd(desc, attr, cpu);
    memory src(pd.src_desc(), cpu), weights(pd.weights_desc(), cpu), bias(pd.bias_desc(), cpu),
        dst(pd.dst_desc(), cpu);
    // Values do not change the speed; fill everything once (floats 0.25, integers 1).
    for (memory* m : {&src, &weights, &bias}) {
        const size_t bytes = m->get_desc().get_size();
        if (m->get_desc().data_type() == f32) {
            float* data = static_cast<float*>(m->get_data_handle());
            std::fill(data, data + bytes / sizeof(float), 0.25f);
        } else {
            uint8_t* data = static_cast<uint8_t*>(m->get_data_handle());
            std::fill(data, data + bytes, uint8_t(1));
        }
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
    const double ops2 = 2.0 * p.dstC * p.dstH * p.dstW * (p.srcC / p.group) * K * K;
    state.counters[dstType == f32 ? "GFLOPS" : "GOPS"] =
        benchmark::Counter(ops2 * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double theirs = bench::BestSecondsPerCall([&] {
        conv.execute(strm, args);
        strm.wait();
    });
    state.counters["onednn_us"] = theirs * 1e6;
    state.counters["simd_us"] = ours * 1e6;
    state.counters["simd_vs_onednn"] = ours > 0 ? theirs / ours : 0.0;
    state.SetLabel(std::string("onednn:") + pd.impl_info_str());
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
    return true;
}();

}  // namespace
