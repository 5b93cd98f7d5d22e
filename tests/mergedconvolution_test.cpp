// Tests of the FP32 merged convolution (SimdSynetMergedConvolution32f*) on every compiled and
// supported Highway target, against the stage-by-stage reference of
// reference/MergedConvolution.h.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ConcurrentForward.h"
#include "ConvolutionCases.h"
#include "TestUtil.h"
#include "reference/MergedConvolution.h"

namespace {

using convtest::kActivations;
using test::Guarded;

enum Sequence { kPDQ, kPD, kDQ };

// One chain: P expands C0 -> C1 (kernel kP, stride sP), D is depthwise on C1 (kernel kD,
// stride sD), Q projects C1 -> C2. Pads are (kernel - 1) / 2 on every side, except Q's, which
// is qPad (its outer ring of pixels sees no source pixel). kDQ ignores C0/kP/sP.
struct Chain {
    Sequence sequence;
    size_t C0, C1, C2, H, W, kP, sP, kD, sD;
    bool add;
    size_t qPad = 0;
    // D's pads before (top, left) and after (bottom, right) when not SIZE_MAX.
    size_t dPadBefore = SIZE_MAX, dPadAfter = SIZE_MAX;
};

SimdConvolutionParameters Stage(size_t srcC, size_t dstC, size_t H, size_t W, size_t k, size_t s,
                                size_t group, SimdConvolutionActivationType act) {
    SimdConvolutionParameters p;
    std::memset(&p, 0, sizeof(p));
    p.srcC = srcC;
    p.srcH = H;
    p.srcW = W;
    p.srcT = p.dstT = SimdTensorData32f;
    p.srcF = p.dstF = SimdTensorFormatNhwc;
    p.dstC = dstC;
    p.kernelY = p.kernelX = k;
    p.strideY = p.strideX = s;
    p.dilationY = p.dilationX = 1;
    p.padY = p.padX = p.padH = p.padW = (k - 1) / 2;
    p.group = group;
    p.activation = act;
    p.dstH = (H + 2 * p.padY - k) / s + 1;
    p.dstW = (W + 2 * p.padX - k) / s + 1;
    return p;
}

// The stage descriptions of `c`; acts[i] is stage i's activation.
std::vector<SimdConvolutionParameters> Convs(const Chain& c,
                                             const SimdConvolutionActivationType* acts) {
    std::vector<SimdConvolutionParameters> convs;
    size_t H = c.H, W = c.W;
    if (c.sequence != kDQ) {
        convs.push_back(Stage(c.C0, c.C1, H, W, c.kP, c.sP, 1, acts[convs.size()]));
        H = convs.back().dstH;
        W = convs.back().dstW;
    }
    convs.push_back(Stage(c.C1, c.C1, H, W, c.kD, c.sD, c.C1, acts[convs.size()]));
    if (c.dPadBefore != SIZE_MAX) {
        SimdConvolutionParameters& d = convs.back();
        d.padY = d.padX = c.dPadBefore;
        d.padH = d.padW = c.dPadAfter;
        d.dstH = (H + d.padY + d.padH - c.kD) / c.sD + 1;
        d.dstW = (W + d.padX + d.padW - c.kD) / c.sD + 1;
    }
    H = convs.back().dstH;
    W = convs.back().dstW;
    if (c.sequence != kPD) {
        convs.push_back(Stage(c.C1, c.C2, H, W, 1, 1, 1, acts[convs.size()]));
        SimdConvolutionParameters& q = convs.back();
        q.padY = q.padX = q.padH = q.padW = c.qPad;
        q.dstH += 2 * c.qPad;
        q.dstW += 2 * c.qPad;
    }
    return convs;
}

std::string Describe(const Chain& c, const std::vector<SimdConvolutionParameters>& convs,
                     size_t batch) {
    std::string s = c.sequence == kPDQ ? "pdq" : c.sequence == kPD ? "pd" : "dq";
    s += c.add ? " add" : "";
    for (const auto& p : convs) s += " | " + convtest::Describe(p, batch);
    return s;
}

// Parameters of one chain: weights, biases and activation values per stage.
struct ChainData {
    std::vector<float> src;
    std::vector<std::vector<float>> weight, bias, params;
    std::vector<const float*> weightPtr, biasPtr, paramsPtr;
};

// biasMode: 0 all biases, 1 NULL bias array, 2 stage 1 without bias. paramsNull: NULL params
// array (only valid when no stage reads parameters).
ChainData MakeChainData(const std::vector<SimdConvolutionParameters>& convs, size_t batch,
                        uint32_t seed, int biasMode, bool paramsNull) {
    ChainData d;
    const SimdConvolutionParameters& first = convs[0];
    d.src = test::RandomFloats(batch * first.srcC * first.srcH * first.srcW, -1.0f, 1.0f, seed);
    for (size_t i = 0; i < convs.size(); ++i) {
        const convtest::Data s = convtest::MakeData(convs[i], 1, seed + 10 * uint32_t(i + 1));
        d.weight.push_back(s.weight);
        d.bias.push_back(s.bias);
        d.params.push_back(s.params);
    }
    for (size_t i = 0; i < convs.size(); ++i) {
        d.weightPtr.push_back(d.weight[i].data());
        d.biasPtr.push_back(biasMode == 2 && i == 1 ? nullptr : d.bias[i].data());
        d.paramsPtr.push_back(d.params[i].empty() ? nullptr : d.params[i].data());
    }
    (void)paramsNull;
    return d;
}

// Runs `c` once against the reference; true when every output conforms and the guard zones
// are intact.
::testing::AssertionResult RunChain(const Chain& c, const SimdConvolutionActivationType* acts,
                                    size_t batch, uint32_t seed, int biasMode, bool paramsNull,
                                    bool callerBuffer) {
    const std::vector<SimdConvolutionParameters> convs = Convs(c, acts);
    const std::string what = Describe(c, convs, batch);
    void* context = SimdSynetMergedConvolution32fInit(batch, convs.data(), convs.size(),
                                                      c.add ? SimdTrue : SimdFalse);
    if (context == nullptr)
        return ::testing::AssertionFailure()
               << "Init failed: " << SimdSynetGetLastError() << " for " << what;
    ChainData d = MakeChainData(convs, batch, seed, biasMode, paramsNull);
    const float* const* bias = biasMode == 1 ? nullptr : d.biasPtr.data();
    const float* const* params = paramsNull ? nullptr : d.paramsPtr.data();
    SimdBool internal[3] = {SimdFalse, SimdFalse, SimdFalse};
    SimdSynetMergedConvolution32fSetParams(context, d.weightPtr.data(), internal, bias, params);
    if (SimdSynetGetLastError() != nullptr) {
        SimdRelease(context);
        return ::testing::AssertionFailure() << "SetParams: " << SimdSynetGetLastError();
    }
    const SimdConvolutionParameters& last = convs.back();
    Guarded<float> dst(batch * last.dstC * last.dstH * last.dstW, 12345.0f);
    Guarded<float> buf(callerBuffer ? SimdSynetMergedConvolution32fExternalBufferSize(context) : 0);
    SimdSynetMergedConvolution32fForward(context, d.src.data(), callerBuffer ? buf.data() : nullptr,
                                         dst.data());
    const char* error = SimdSynetGetLastError();
    SimdRelease(context);
    if (error != nullptr) return ::testing::AssertionFailure() << "Forward: " << error;
    std::vector<double> ref, bound;
    ref::MergedConvolution32f(convs.data(), convs.size(), c.add, batch, d.src.data(),
                              d.weightPtr.data(), bias, params, ref, bound);
    if (!dst.GuardsIntact()) return ::testing::AssertionFailure() << "dst guard broken: " << what;
    if (callerBuffer && !buf.GuardsIntact())
        return ::testing::AssertionFailure() << "buf guard broken: " << what;
    for (size_t i = 0; i < 3 && i < convs.size(); ++i)
        if (internal[i] != SimdTrue) return ::testing::AssertionFailure() << "internal flag";
    ::testing::AssertionResult r = test::AllOf(
        ref.size(), [&](size_t i) { return test::Near(dst[i], ref[i], 1.0, bound[i], 1e-6); });
    if (!r) return r << " for " << what;
    return ::testing::AssertionSuccess();
}

// Channel tails (1, 3, 7, 8, 17, 33, 24 -> 144), widths 1, 5, 13, 56, D kernels 3/5/7,
// strides 1-3 on P and D, P kernels 1 and 3, heights that leave partial bands (the 512-channel
// rows take two per band on a 1 MiB L2), padded projections (the 4x4 one adds the input: D's
// stride 2 and Q's pad 1 give back the input's size).
std::vector<Chain> Chains() {
    return {
        // seq  C0   C1  C2  H   W  kP sP kD sD add
        {kPDQ, 24, 144, 24, 9, 13, 1, 1, 3, 1, true},
        {kPDQ, 8, 48, 8, 7, 5, 1, 1, 3, 2, false},
        {kPDQ, 3, 17, 7, 5, 13, 3, 1, 5, 1, false},
        {kPDQ, 7, 33, 7, 11, 1, 1, 1, 7, 1, true},
        {kPDQ, 17, 8, 17, 6, 56, 1, 1, 3, 1, true},
        {kPDQ, 1, 3, 1, 13, 5, 3, 2, 3, 3, false},
        {kPDQ, 33, 24, 33, 5, 5, 1, 1, 3, 1, true},
        {kPDQ, 8, 16, 8, 9, 13, 1, 3, 3, 1, false},
        {kPDQ, 8, 512, 8, 11, 56, 1, 1, 3, 1, true},
        {kPDQ, 24, 144, 24, 30, 56, 1, 1, 3, 1, true},
        {kPDQ, 7, 17, 3, 13, 13, 3, 2, 7, 2, false},
        {kPDQ, 3, 8, 3, 13, 13, 1, 1, 5, 1, true},
        {kPD, 24, 144, 0, 9, 13, 1, 1, 3, 1, false},
        {kPD, 3, 7, 0, 5, 5, 3, 2, 5, 2, false},
        {kPD, 17, 33, 0, 6, 56, 1, 1, 7, 3, false},
        {kPD, 8, 8, 0, 13, 1, 3, 1, 3, 2, false},
        {kDQ, 0, 32, 24, 9, 13, 0, 0, 3, 1, false},
        {kDQ, 0, 7, 3, 13, 5, 0, 0, 5, 2, false},
        {kDQ, 0, 144, 17, 5, 56, 0, 0, 3, 1, false},
        {kDQ, 0, 3, 8, 13, 13, 0, 0, 7, 3, false},
        {kDQ, 0, 33, 33, 7, 1, 0, 0, 3, 2, false},
        // seq  C0   C1  C2  H   W  kP sP kD sD add  qPad
        {kPDQ, 8, 16, 8, 4, 4, 1, 1, 3, 2, true, 1},
        {kPDQ, 3, 17, 33, 6, 5, 1, 1, 5, 1, false, 2},
        {kDQ, 0, 17, 7, 5, 13, 0, 0, 3, 1, false, 1},
    };
}

using test::ThreadBudgetGuard;

SIMD_SYNET_TARGET_SUITE(MergedConvolutionTest);

// Every chain, activations rotated over the stages, batch 1 and 2, caller buffer and not.
TEST_P(MergedConvolutionTest, Chains) {
    uint32_t seed = 1;
    size_t index = 0;
    for (const Chain& c : Chains()) {
        const SimdConvolutionActivationType acts[3] = {kActivations[(3 + index) % 11],
                                                       kActivations[(index * 5 + 3) % 11],
                                                       kActivations[(index * 7) % 11]};
        const size_t batch = index % 3 == 1 ? 2 : 1;
        EXPECT_TRUE(RunChain(c, acts, batch, seed, 0, false, index % 2 == 0));
        seed += 11;
        ++index;
    }
}

// Every activation on every stage of the three sequences (different parameters per stage come
// from different seeds for Prelu and from the stage's own parameter list).
TEST_P(MergedConvolutionTest, EveryActivation) {
    const Chain chains[] = {{kPDQ, 7, 17, 7, 6, 13, 1, 1, 3, 1, true},
                            {kPD, 3, 8, 0, 5, 5, 3, 1, 3, 2, false},
                            {kDQ, 0, 17, 3, 6, 5, 0, 0, 5, 1, false}};
    uint32_t seed = 100;
    for (const Chain& c : chains)
        for (size_t a = 0; a < 11; ++a)
            for (size_t stage = 0; stage < 3; ++stage) {
                SimdConvolutionActivationType acts[3] = {SimdConvolutionActivationRelu,
                                                         SimdConvolutionActivationHswish,
                                                         SimdConvolutionActivationIdentity};
                acts[stage] = kActivations[a];
                EXPECT_TRUE(RunChain(c, acts, 1, seed++, 0, false, true))
                    << "activation " << a << " on stage " << stage;
            }
}

// 5x5 depthwise stages of stride 1 and 2 (DepthwiseKxKRow): channel tails 1, 3, 7, 8, 15,
// 16, 17, 33, 40, widths 1 and 3 (under one block) to 37 (several blocks of 8 and every narrower
// tail block), heights under and over the kernel, pads 0 to 6 on either side (6: outputs whose
// window is all padding), every sequence; batch 1 and 2.
TEST_P(MergedConvolutionTest, Depthwise5x5) {
    const Chain chains[] = {
        // seq  C0  C1  C2  H   W  kP sP kD sD add
        {kPDQ, 8, 16, 8, 9, 13, 1, 1, 5, 1, true},
        {kPDQ, 3, 15, 3, 7, 3, 1, 1, 5, 2, false},
        {kPDQ, 16, 1, 8, 6, 23, 1, 1, 5, 1, false},
        {kPDQ, 8, 3, 8, 5, 17, 1, 1, 5, 1, true},
        {kPDQ, 24, 33, 24, 28, 28, 1, 1, 5, 1, true},
        {kPDQ, 16, 40, 24, 29, 29, 1, 1, 5, 2, false},
        {kPDQ, 8, 17, 8, 12, 7, 3, 2, 5, 1, false},
        {kPD, 7, 33, 0, 11, 30, 1, 1, 5, 2, false},
        {kPD, 8, 8, 0, 4, 9, 1, 1, 5, 1, false},
        {kPD, 3, 7, 0, 2, 1, 1, 1, 5, 1, false},
        {kDQ, 0, 17, 8, 14, 14, 0, 0, 5, 1, false},
        {kDQ, 0, 7, 3, 9, 37, 0, 0, 5, 2, false},
        {kDQ, 0, 16, 17, 1, 16, 0, 0, 5, 2, false},
        // seq  C0  C1  C2  H   W  kP sP kD sD add  qPad  D pads
        {kDQ, 0, 16, 8, 10, 20, 0, 0, 5, 1, false, 0, 0, 0},
        {kPDQ, 8, 15, 8, 11, 19, 1, 1, 5, 2, false, 0, 1, 3},
        {kPD, 3, 17, 0, 9, 10, 1, 1, 5, 1, false, 0, 4, 1},
        {kDQ, 0, 8, 7, 3, 4, 0, 0, 5, 1, false, 1, 6, 6},
        {kPDQ, 7, 33, 7, 6, 5, 1, 1, 5, 2, false, 0, 6, 2},
    };
    uint32_t seed = 700;
    size_t index = 0;
    for (const Chain& c : chains)
        for (size_t batch : {1, 2}) {
            const SimdConvolutionActivationType acts[3] = {kActivations[(index + 1) % 11],
                                                           kActivations[(index * 3 + 2) % 11],
                                                           kActivations[(index * 5) % 11]};
            EXPECT_TRUE(RunChain(c, acts, batch, seed++, 0, false, index % 2 == 0));
            ++index;
        }
}

// NULL bias array, one stage without bias, NULL params array when no stage reads parameters.
TEST_P(MergedConvolutionTest, NullBiasAndParams) {
    const SimdConvolutionActivationType plain[3] = {SimdConvolutionActivationRelu,
                                                    SimdConvolutionActivationIdentity,
                                                    SimdConvolutionActivationGelu};
    const SimdConvolutionActivationType reading[3] = {SimdConvolutionActivationPrelu,
                                                      SimdConvolutionActivationRestrictRange,
                                                      SimdConvolutionActivationLeakyRelu};
    uint32_t seed = 300;
    for (const Chain& c : Chains()) {
        if (c.H * c.W * c.C1 > 20000) continue;
        EXPECT_TRUE(RunChain(c, plain, 1, seed++, 1, true, false));
        EXPECT_TRUE(RunChain(c, reading, 1, seed++, 2, false, true));
    }
}

// Runs chain `c` with `threads` threads; returns the output.
std::vector<float> RunWithThreads(void* context, const ChainData& d, size_t size, size_t threads,
                                  bool callerBuffer) {
    SimdSetThreadNumber(threads);
    std::vector<float> dst(size, 0.0f);
    std::vector<float> buf(SimdSynetMergedConvolution32fExternalBufferSize(context));
    SimdSynetMergedConvolution32fForward(context, d.src.data(), callerBuffer ? buf.data() : nullptr,
                                         dst.data());
    return dst;
}

// 1, 2, 3 and 7 threads give the same bits (several bands per thread, batch 2; channel parts).
TEST_P(MergedConvolutionTest, ThreadCountsBitIdentical) {
    const ThreadBudgetGuard restore;
    // The P -> D chains with a 5x5 D split P's column panels (several panels, a 3x3 P, a costly
    // activation on P) where the others split rows; so do P -> D -> Q chains with a 5x5 D on
    // maps of one band, Q then split by rows (the next two: with the residual, a 3x3 P,
    // stride 2); those with a 3x3 D on maps of one band compute P by its column panels into one
    // shared output, then D and Q by rows (the last three: the residual, a 3x3 P and stride 2,
    // a padded Q).
    const Chain chains[] = {{kPDQ, 24, 144, 24, 56, 56, 1, 1, 3, 1, true},
                            {kPDQ, 8, 64, 8, 17, 23, 3, 1, 5, 2, false},
                            {kPD, 16, 96, 0, 29, 28, 1, 1, 3, 1, false},
                            {kDQ, 0, 96, 24, 31, 28, 0, 0, 7, 1, false},
                            {kPD, 16, 168, 0, 7, 7, 1, 1, 5, 1, false},
                            {kPD, 8, 136, 0, 14, 13, 3, 1, 5, 2, false},
                            {kPDQ, 24, 168, 24, 7, 7, 1, 1, 5, 1, true},
                            {kPDQ, 8, 136, 17, 14, 13, 3, 1, 5, 2, false},
                            {kPDQ, 24, 144, 24, 7, 7, 1, 1, 3, 1, true},
                            {kPD, 16, 96, 0, 14, 13, 3, 1, 3, 2, false},
                            {kPDQ, 8, 96, 8, 4, 4, 1, 1, 3, 2, true, 1}};
    const SimdConvolutionActivationType acts[3] = {SimdConvolutionActivationRestrictRange,
                                                   SimdConvolutionActivationSwish,
                                                   SimdConvolutionActivationPrelu};
    uint32_t seed = 500;
    for (const Chain& c : chains) {
        const std::vector<SimdConvolutionParameters> convs = Convs(c, acts);
        void* context = SimdSynetMergedConvolution32fInit(2, convs.data(), convs.size(),
                                                          c.add ? SimdTrue : SimdFalse);
        ASSERT_NE(context, nullptr) << SimdSynetGetLastError();
        const ChainData d = MakeChainData(convs, 2, seed++, 0, false);
        SimdSynetMergedConvolution32fSetParams(context, d.weightPtr.data(), nullptr,
                                               d.biasPtr.data(), d.paramsPtr.data());
        const size_t size = 2 * convs.back().dstC * convs.back().dstH * convs.back().dstW;
        const std::vector<float> one = RunWithThreads(context, d, size, 1, true);
        for (size_t threads : {2, 3, 7})  // 7: fewer panel ranges than threads
            for (bool callerBuffer : {false, true}) {
                const std::vector<float> many =
                    RunWithThreads(context, d, size, threads, callerBuffer);
                EXPECT_EQ(std::memcmp(one.data(), many.data(), size * sizeof(float)), 0)
                    << Describe(c, convs, 2) << " threads " << threads;
            }
        SimdRelease(context);
    }
}

// One context used by two user threads at once, each with its own scratch, while the library's
// thread budget is 1, 2 or 3: every sequence (P->D->Q with and without the residual, P->D,
// D->Q; 3x3 and 5x5/7x7 depthwise stages, a 3x3 P stage, channel parts) gives the bits of a lone
// single-thread call, and the context does not change.
TEST_P(MergedConvolutionTest, SharedContextTwoThreads) {
    const Chain chains[] = {{kPDQ, 24, 144, 24, 28, 28, 1, 1, 3, 1, true},
                            {kPDQ, 8, 64, 8, 17, 23, 3, 1, 5, 2, false},
                            {kPD, 16, 96, 0, 29, 28, 1, 1, 3, 1, false},
                            {kDQ, 0, 96, 24, 31, 28, 0, 0, 7, 1, false},
                            {kPD, 16, 168, 0, 7, 7, 1, 1, 5, 1, false}};
    const SimdConvolutionActivationType acts[3] = {SimdConvolutionActivationRelu,
                                                   SimdConvolutionActivationRelu,
                                                   SimdConvolutionActivationIdentity};
    uint32_t seed = 900;
    for (const Chain& c : chains) {
        const std::vector<SimdConvolutionParameters> convs = Convs(c, acts);
        void* context = SimdSynetMergedConvolution32fInit(1, convs.data(), convs.size(),
                                                          c.add ? SimdTrue : SimdFalse);
        ASSERT_NE(context, nullptr) << SimdSynetGetLastError();
        const ChainData a = MakeChainData(convs, 1, seed++, 0, false);
        const ChainData b = MakeChainData(convs, 1, seed++, 0, false);
        const ChainData* inputs[2] = {&a, &b};
        SimdSynetMergedConvolution32fSetParams(context, a.weightPtr.data(), nullptr,
                                               a.biasPtr.data(), a.paramsPtr.data());
        const size_t internalBefore = SimdSynetMergedConvolution32fInternalBufferSize(context);
        const SimdConvolutionParameters& last = convs.back();
        EXPECT_TRUE(test::ConcurrentForwardMatchesLoneCalls(
            SimdSynetMergedConvolution32fExternalBufferSize(context) * sizeof(float),
            last.dstC * last.dstH * last.dstW * sizeof(float),
            [&](int i, void* buf, void* dst) {
                SimdSynetMergedConvolution32fForward(context, inputs[i]->src.data(),
                                                     static_cast<float*>(buf),
                                                     static_cast<float*>(dst));
            }))
            << Describe(c, convs, 1) << " " << SimdSynetMergedConvolution32fInfo(context);
        EXPECT_EQ(internalBefore, SimdSynetMergedConvolution32fInternalBufferSize(context));
        SimdRelease(context);
    }
}

// SetParams again replaces the parameters; Info names the target and the sequence.
TEST_P(MergedConvolutionTest, SetParamsAgainAndInfo) {
    const Chain c{kPDQ, 8, 24, 8, 7, 9, 1, 1, 3, 1, false};
    const SimdConvolutionActivationType acts[3] = {SimdConvolutionActivationRelu,
                                                   SimdConvolutionActivationElu,
                                                   SimdConvolutionActivationIdentity};
    const std::vector<SimdConvolutionParameters> convs = Convs(c, acts);
    void* context = SimdSynetMergedConvolution32fInit(1, convs.data(), convs.size(), SimdFalse);
    ASSERT_NE(context, nullptr);
    const std::string info = SimdSynetMergedConvolution32fInfo(context);
    EXPECT_NE(info.find("::merged-pdq-band"), std::string::npos) << info;
    const ChainData first = MakeChainData(convs, 1, 40, 0, false);
    const ChainData second = MakeChainData(convs, 1, 41, 0, false);
    SimdSynetMergedConvolution32fSetParams(context, first.weightPtr.data(), nullptr,
                                           first.biasPtr.data(), first.paramsPtr.data());
    EXPECT_GT(SimdSynetMergedConvolution32fInternalBufferSize(context), 0u);
    SimdSynetMergedConvolution32fSetParams(context, second.weightPtr.data(), nullptr,
                                           second.biasPtr.data(), second.paramsPtr.data());
    const size_t size = convs.back().dstC * convs.back().dstH * convs.back().dstW;
    std::vector<float> dst(size);
    SimdSynetMergedConvolution32fForward(context, first.src.data(), nullptr, dst.data());
    std::vector<double> ref, bound;
    ref::MergedConvolution32f(convs.data(), convs.size(), false, 1, first.src.data(),
                              second.weightPtr.data(), second.biasPtr.data(),
                              second.paramsPtr.data(), ref, bound);
    EXPECT_TRUE(test::AllOf(
        size, [&](size_t i) { return test::Near(dst[i], ref[i], 1.0, bound[i], 1e-6); }));
    SimdRelease(context);
}

// Init refuses every violated condition of §10.1 with a message naming the field.
TEST(MergedConvolutionErrors, InitRejects) {
    const SimdConvolutionActivationType acts[3] = {SimdConvolutionActivationRelu,
                                                   SimdConvolutionActivationRelu,
                                                   SimdConvolutionActivationIdentity};
    const Chain c{kPDQ, 8, 24, 8, 7, 9, 1, 1, 3, 1, true};
    const std::vector<SimdConvolutionParameters> good = Convs(c, acts);
    ASSERT_NE(good[0].dstC, 0u);
    void* ok = SimdSynetMergedConvolution32fInit(1, good.data(), 3, SimdTrue);
    ASSERT_NE(ok, nullptr);
    SimdRelease(ok);
    struct Case {
        size_t stage;
        void (*change)(SimdConvolutionParameters&);
        const char* names;
    };
    const Case cases[] = {
        {0, [](SimdConvolutionParameters& p) { p.srcT = SimdTensorData8u; }, "convs[0].srcT"},
        {1, [](SimdConvolutionParameters& p) { p.dstT = SimdTensorData8u; }, "convs[1].dstT"},
        {0, [](SimdConvolutionParameters& p) { p.srcF = SimdTensorFormatNchw; }, "convs[0].srcF"},
        {2, [](SimdConvolutionParameters& p) { p.dstF = SimdTensorFormatNchw; }, "convs[2].dstF"},
        {1, [](SimdConvolutionParameters& p) { p.kernelX = 5; }, "convs[1].kernelY"},
        {1,
         [](SimdConvolutionParameters& p) {
             p.kernelY = p.kernelX = 9;
             p.padY = p.padX = p.padH = p.padW = 4;
         },
         "convs[1].kernelY"},
        {1, [](SimdConvolutionParameters& p) { p.strideX = 2; }, "convs[1].strideY"},
        {0,
         [](SimdConvolutionParameters& p) {
             p.strideY = p.strideX = 4;
             p.dstH = (p.srcH - 1) / 4 + 1;
             p.dstW = (p.srcW - 1) / 4 + 1;
         },
         "convs[0].strideY"},
        {1, [](SimdConvolutionParameters& p) { p.dilationY = 2; }, "convs[1].dilation"},
        {2, [](SimdConvolutionParameters& p) { p.activation = SimdConvolutionActivationType(11); },
         "convs[2].activation"},
        {1, [](SimdConvolutionParameters& p) { p.dstH += 1; }, "convs[1].dstH"},
        {0, [](SimdConvolutionParameters& p) { p.dstW += 1; }, "convs[0].dstW"},
        {0, [](SimdConvolutionParameters& p) { p.group = 3; }, "convs[0].group"},
        // Chain consistency.
        {2, [](SimdConvolutionParameters& p) { p.srcC += 1; }, "convs[2].srcC"},
        // Sequence: P with kernel 5, D not depthwise, Q with kernel 3.
        {0,
         [](SimdConvolutionParameters& p) {
             p.kernelY = p.kernelX = 5;
             p.padY = p.padX = p.padH = p.padW = 2;
         },
         "convs[0].kernelY"},
        {1, [](SimdConvolutionParameters& p) { p.group = 8; }, "convs[1].group"},
        {2,
         [](SimdConvolutionParameters& p) {
             p.kernelY = p.kernelX = 3;
             p.padY = p.padX = p.padH = p.padW = 1;
         },
         "convs[2].group"},
        {0, [](SimdConvolutionParameters& p) { p.srcC = 0; }, "convs[0].srcC, srcH or srcW is 0"},
        {1, [](SimdConvolutionParameters& p) { p.srcW = size_t(1) << 31; },
         "convs[1] sizes too large"},
        {0,
         [](SimdConvolutionParameters& p) {
             p.srcC = p.srcH = p.srcW = size_t(1) << 30;
             p.dstH = p.dstW = size_t(1) << 30;
         },
         "convs[0] tensor sizes overflow"},
        // Chain consistency of the spatial sizes (each stage valid alone).
        {1,
         [](SimdConvolutionParameters& p) {
             p.srcH += 1;
             p.dstH += 1;
         },
         "convs[1].srcH differs from convs[0].dstH"},
        {1,
         [](SimdConvolutionParameters& p) {
             p.srcW += 1;
             p.dstW += 1;
         },
         "convs[1].srcW differs from convs[0].dstW"},
        // Add shape rule (a padded projection changes the spatial size).
        {2, [](SimdConvolutionParameters& p) { p.dstC = 9; }, "convs[2].dstC"},
        {2,
         [](SimdConvolutionParameters& p) {
             p.padY = p.padH = 1;
             p.dstH += 2;
         },
         "add requires convs[0].srcH == convs[2].dstH"},
        {2,
         [](SimdConvolutionParameters& p) {
             p.padX = p.padW = 1;
             p.dstW += 2;
         },
         "add requires convs[0].srcW == convs[2].dstW"},
    };
    for (const Case& k : cases) {
        std::vector<SimdConvolutionParameters> convs = good;
        k.change(convs[k.stage]);
        EXPECT_EQ(SimdSynetMergedConvolution32fInit(1, convs.data(), 3, SimdTrue), nullptr)
            << k.names;
        const char* message = SimdSynetGetLastError();
        ASSERT_NE(message, nullptr) << k.names;
        EXPECT_NE(std::string(message).find(k.names), std::string::npos)
            << message << " (expected " << k.names << ")";
    }
    EXPECT_EQ(SimdSynetMergedConvolution32fInit(1, nullptr, 3, SimdFalse), nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetMergedConvolution32fInit(1, good.data(), 1, SimdFalse), nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetMergedConvolution32fInit(1, good.data(), 4, SimdFalse), nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetMergedConvolution32fInit(0, good.data(), 3, SimdFalse), nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetMergedConvolution32fInit(size_t(1) << 62, good.data(), 3, SimdFalse),
              nullptr);
    ASSERT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_NE(std::string(SimdSynetGetLastError()).find("batch tensor sizes overflow"),
              std::string::npos)
        << SimdSynetGetLastError();
    // Add with a shape change is refused only when add is requested.
    std::vector<SimdConvolutionParameters> wide = good;
    wide[2].dstC = 9;
    void* noAdd = SimdSynetMergedConvolution32fInit(1, wide.data(), 3, SimdFalse);
    EXPECT_NE(noAdd, nullptr) << SimdSynetGetLastError();
    SimdRelease(noAdd);
    // Two-stage forms: P -> D and D -> Q accepted; D -> D refused.
    void* pd = SimdSynetMergedConvolution32fInit(1, good.data(), 2, SimdTrue);
    EXPECT_NE(pd, nullptr) << SimdSynetGetLastError();
    SimdRelease(pd);
    void* dq = SimdSynetMergedConvolution32fInit(1, good.data() + 1, 2, SimdFalse);
    EXPECT_NE(dq, nullptr) << SimdSynetGetLastError();
    SimdRelease(dq);
    const SimdConvolutionParameters dd[2] = {good[1], good[1]};
    EXPECT_EQ(SimdSynetMergedConvolution32fInit(1, dd, 2, SimdFalse), nullptr);
    EXPECT_NE(std::string(SimdSynetGetLastError()).find("convs[1]"), std::string::npos)
        << SimdSynetGetLastError();
}

// The other entry points: NULL context, NULL weight, params NULL when an activation reads it,
// Forward before SetParams and with NULL pointers write nothing.
TEST(MergedConvolutionErrors, EntryPoints) {
    const SimdConvolutionActivationType acts[3] = {SimdConvolutionActivationRelu,
                                                   SimdConvolutionActivationPrelu,
                                                   SimdConvolutionActivationIdentity};
    const Chain c{kPDQ, 8, 24, 8, 7, 9, 1, 1, 3, 1, true};
    const std::vector<SimdConvolutionParameters> convs = Convs(c, acts);
    void* context = SimdSynetMergedConvolution32fInit(1, convs.data(), 3, SimdTrue);
    ASSERT_NE(context, nullptr);
    const ChainData d = MakeChainData(convs, 1, 7, 0, false);
    std::vector<float> dst(8 * 7 * 9, 5.0f);
    SimdSynetMergedConvolution32fForward(context, d.src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 5.0f);
    SimdSynetMergedConvolution32fSetParams(context, nullptr, nullptr, nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    const float* missing[3] = {d.weightPtr[0], nullptr, d.weightPtr[2]};
    SimdSynetMergedConvolution32fSetParams(context, missing, nullptr, nullptr, d.paramsPtr.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetMergedConvolution32fSetParams(context, d.weightPtr.data(), nullptr, nullptr, nullptr);
    EXPECT_NE(std::string(SimdSynetGetLastError()).find("params[1]"), std::string::npos);
    SimdSynetMergedConvolution32fForward(context, d.src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 5.0f);
    SimdSynetMergedConvolution32fSetParams(context, d.weightPtr.data(), nullptr, nullptr,
                                           d.paramsPtr.data());
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetMergedConvolution32fForward(context, nullptr, nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetMergedConvolution32fForward(context, d.src.data(), nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetMergedConvolution32fForward(nullptr, d.src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 5.0f);
    EXPECT_EQ(SimdSynetMergedConvolution32fInfo(nullptr), nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetMergedConvolution32fExternalBufferSize(nullptr), 0u);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetMergedConvolution32fInternalBufferSize(nullptr), 0u);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_GE(SimdSynetMergedConvolution32fExternalBufferSize(context), 1u);
    SimdRelease(context);
}

}  // namespace
