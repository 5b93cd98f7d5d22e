// Benchmarks of the FP32 merged convolution on inverted-residual blocks of MobileNet-v2 (3x3
// depthwise), mnasnet1_0 (5x5 depthwise, stride 1 and 2) and the 5x5 expansion + depthwise
// stages of mobilenet_v3_large (P -> D, squeeze-excite follows outside), single thread: the
// merged context against the same block run as separate SimdSynetConvolution32f contexts plus
// SimdSynetEltwiseLayerForward (sum) for the residual. Each case reports GFLOP/s
// (sum over the stages of 2*dstC*dstH*dstW*srcC/group*kY*kX), the share of the FMA peak
// (bench/FmaPeak.cpp), and for the merged case the speed ratio to the separate run
// ("ratio_to_separate", measured once per process on the same data).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "BenchUtil.h"
#include "SimdSynet.h"

namespace {

const float kOnes[2] = {1.0f, 1.0f};

// An input map of size x size, P 1x1 channels -> expanded, D kernel x kernel of `stride`, Q
// 1x1 expanded -> out (count 3; count 2: P -> D only); the residual when in and out match.
struct Block {
    const char* name;
    size_t size, channels, expanded, out, kernel, stride, count;
};

const Block kBlocks[] = {
    {"mnv2_56x56_24-144-24", 56, 24, 144, 24, 3, 1, 3},
    {"mnv2_28x28_32-192-32", 28, 32, 192, 32, 3, 1, 3},
    {"mnas9.0_56x56_32-80-48_5x5s2", 56, 32, 80, 48, 5, 2, 3},
    {"mnas9.1_28x28_48-128-48_5x5", 28, 48, 128, 48, 5, 1, 3},
    {"mnas10.0_28x28_48-240-80_5x5s2", 28, 48, 240, 80, 5, 2, 3},
    {"mnas10.1_14x14_80-480-80_5x5", 14, 80, 480, 80, 5, 1, 3},
    {"mnas12.1_7x7_192-1152-192_5x5", 7, 192, 1152, 192, 5, 1, 3},
    {"mnv3_56x56_24-72_5x5s2_pd", 56, 24, 72, 0, 5, 2, 2},
    {"mnv3_28x28_40-120_5x5_pd", 28, 40, 120, 0, 5, 1, 2},
};

SimdConvolutionParameters Stage(size_t srcC, size_t dstC, size_t size, size_t k, size_t stride,
                                size_t group, SimdConvolutionActivationType act) {
    SimdConvolutionParameters p;
    std::memset(&p, 0, sizeof(p));
    p.srcC = srcC;
    p.srcH = p.srcW = size;
    p.dstH = p.dstW = (size - 1) / stride + 1;
    p.srcT = p.dstT = SimdTensorData32f;
    p.srcF = p.dstF = SimdTensorFormatNhwc;
    p.dstC = dstC;
    p.kernelY = p.kernelX = k;
    p.strideY = p.strideX = stride;
    p.dilationY = p.dilationX = 1;
    p.padY = p.padX = p.padH = p.padW = (k - 1) / 2;
    p.group = group;
    p.activation = act;
    return p;
}

// The block's stages: P 1x1 ReLU6, D ReLU6, Q 1x1 identity.
struct BlockData {
    SimdConvolutionParameters convs[3];
    size_t count;
    bool add;
    bench::AlignedVector<float> src, dst, weight[3], bias[3];
    const float relu6[2] = {0.0f, 6.0f};
    double flop = 0;
    explicit BlockData(const Block& b) : count(b.count) {
        const size_t dstSize = (b.size - 1) / b.stride + 1;
        convs[0] =
            Stage(b.channels, b.expanded, b.size, 1, 1, 1, SimdConvolutionActivationRestrictRange);
        convs[1] = Stage(b.expanded, b.expanded, b.size, b.kernel, b.stride, b.expanded,
                         SimdConvolutionActivationRestrictRange);
        convs[2] = Stage(b.expanded, b.out, dstSize, 1, 1, 1, SimdConvolutionActivationIdentity);
        add = count == 3 && b.out == b.channels && b.stride == 1;
        std::mt19937 rng(1);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        src.resize(b.channels * b.size * b.size);
        const SimdConvolutionParameters& last = convs[count - 1];
        dst.resize(last.dstC * last.dstH * last.dstW);
        for (float& x : src) x = dist(rng);
        for (size_t i = 0; i < count; ++i) {
            const SimdConvolutionParameters& p = convs[i];
            weight[i].resize(p.kernelY * p.kernelX * p.srcC / p.group * p.dstC);
            bias[i].resize(p.dstC);
            for (float& x : weight[i]) x = dist(rng) * 0.2f;
            for (float& x : bias[i]) x = dist(rng);
            flop += 2.0 * double(p.dstC * p.dstH * p.dstW) * double(p.srcC / p.group) *
                    double(p.kernelY * p.kernelX);
        }
    }
};

// Runs the block merged (one context) or separately (a context per stage and the eltwise sum).
class Runner {
public:
    Runner(BlockData& d, bool merged) : d_(d), merged_(merged) {
        const float* weights[3] = {d.weight[0].data(), d.weight[1].data(), d.weight[2].data()};
        const float* biases[3] = {d.bias[0].data(), d.bias[1].data(), d.bias[2].data()};
        const float* params[3] = {d.relu6, d.relu6, nullptr};
        if (merged) {
            merged_ctx_ = SimdSynetMergedConvolution32fInit(1, d.convs, d.count,
                                                            d.add ? SimdTrue : SimdFalse);
            if (!merged_ctx_) return;
            SimdSynetMergedConvolution32fSetParams(merged_ctx_, weights, nullptr, biases, params);
            buf_.resize(SimdSynetMergedConvolution32fExternalBufferSize(merged_ctx_));
            info_ = SimdSynetMergedConvolution32fInfo(merged_ctx_);
        } else {
            size_t bufSize = 1;
            for (size_t i = 0; i < d.count; ++i) {
                ctx_[i] = SimdSynetConvolution32fInit(1, &d.convs[i], nullptr);
                if (!ctx_[i]) return;
                SimdSynetConvolution32fSetParams(ctx_[i], weights[i], nullptr, biases[i],
                                                 params[i]);
                bufSize = std::max(bufSize, SimdSynetConvolution32fExternalBufferSize(ctx_[i]));
                info_ += std::string(i ? " + " : "") + SimdSynetConvolution32fInfo(ctx_[i]);
            }
            buf_.resize(bufSize);
            const SimdConvolutionParameters& p = d.convs[1];
            t0_.resize(p.srcC * p.srcH * p.srcW);
            t1_.resize(p.dstC * p.dstH * p.dstW);
            if (d.count == 3) t2_.resize(d.dst.size());
        }
        ok_ = true;
    }
    ~Runner() {
        SimdRelease(merged_ctx_);
        for (void* c : ctx_) SimdRelease(c);
    }
    bool ok() const { return ok_; }
    const std::string& info() const { return info_; }
    void Run() {
        if (merged_) {
            SimdSynetMergedConvolution32fForward(merged_ctx_, d_.src.data(), buf_.data(),
                                                 d_.dst.data());
            return;
        }
        SimdSynetConvolution32fForward(ctx_[0], d_.src.data(), buf_.data(), t0_.data());
        if (d_.count == 2) {
            SimdSynetConvolution32fForward(ctx_[1], t0_.data(), buf_.data(), d_.dst.data());
            return;
        }
        SimdSynetConvolution32fForward(ctx_[1], t0_.data(), buf_.data(), t1_.data());
        if (!d_.add) {
            SimdSynetConvolution32fForward(ctx_[2], t1_.data(), buf_.data(), d_.dst.data());
            return;
        }
        SimdSynetConvolution32fForward(ctx_[2], t1_.data(), buf_.data(), t2_.data());
        const float* inputs[2] = {d_.src.data(), t2_.data()};
        SimdSynetEltwiseLayerForward(inputs, kOnes, 2, d_.dst.size(), SimdSynetEltwiseOperationSum,
                                     d_.dst.data());
    }

private:
    BlockData& d_;
    bool merged_, ok_ = false;
    void* merged_ctx_ = nullptr;
    void* ctx_[3] = {nullptr, nullptr, nullptr};
    bench::AlignedVector<float> buf_, t0_, t1_, t2_;
    std::string info_;
};

// Seconds per run: the best of several timed batches of runs.
double SecondsPerRun(Runner& r) {
    double best = 1e30;
    for (int batch = 0; batch < 7; ++batch) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < 20; ++i) r.Run();
        const std::chrono::duration<double> s = std::chrono::steady_clock::now() - start;
        best = std::min(best, s.count() / 20);
    }
    return best;
}

void BM_Block(benchmark::State& state, Block block, bool merged) {
    BlockData d(block);
    Runner runner(d, merged);
    if (!runner.ok()) {
        state.SkipWithError("Init failed");
        return;
    }
    for (auto _ : state) {
        runner.Run();
        benchmark::ClobberMemory();
    }
    state.counters["GFLOPS"] =
        benchmark::Counter(d.flop * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    const double peak = bench::FmaPeakGflops();
    state.counters["peak_GFLOPS"] = peak;
    state.counters["pct_of_peak"] =
        benchmark::Counter(peak > 0 ? d.flop * 1e-9 / peak * 100.0 : 0.0,
                           benchmark::Counter::kIsIterationInvariantRate);
    if (merged) {
        BlockData other(block);
        Runner separate(other, false);
        if (separate.ok()) {
            const double tMerged = SecondsPerRun(runner), tSeparate = SecondsPerRun(separate);
            state.counters["ratio_to_separate"] = tSeparate / tMerged;
        }
    }
    state.SetLabel(runner.info());
}

const bool kRegistered = [] {
    for (const Block& b : kBlocks)
        for (bool merged : {true, false}) {
            const std::string name = std::string("MergedConvolution/") +
                                     (merged ? "MergedConvolution32fForward/" : "Separate/") +
                                     b.name;
            benchmark::RegisterBenchmark(name.c_str(), BM_Block, b, merged)
                ->Unit(benchmark::kMicrosecond);
        }
    return true;
}();

}  // namespace
