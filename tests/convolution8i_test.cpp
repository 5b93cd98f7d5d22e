// Tests of the INT8 convolution framework (SimdSynetConvolution8i*) on every compiled and
// supported Highway target (and, on AVX-512 CPUs with VNNI, the plain AVX-512 kernels too, forced
// through SIMD_SYNET_VNNI=0), against the reference of reference/Convolution8i.h written from
// SUPPLEMENT.md §11: integer results bit-exact in every mode, FP32 results of the activations
// made of +, *, min and max bit-exact, the others within the activation's approximation, and
// everything within the quantization step of the FP32 convolution.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ConvolutionCases.h"
#include "ConcurrentForward.h"
#include "TestUtil.h"
#include "reference/Convolution.h"
#include "reference/Convolution8i.h"

namespace {

using convtest::ActivationParams;
using convtest::Describe;
using convtest::kActivations;
using convtest::Shape;
using test::Guarded;

const SimdSynetCompatibilityType kModes[] = {SimdSynetCompatibility8iPrecise,
                                             SimdSynetCompatibility8iOverflow,
                                             SimdSynetCompatibility8iNarrowed};

const char* ModeName(SimdSynetCompatibilityType m) {
    return m == SimdSynetCompatibility8iNarrowed   ? "narrowed"
           : m == SimdSynetCompatibility8iOverflow ? "overflow"
                                                   : "precise";
}

SimdConvolutionParameters Make(const Shape& s, SimdTensorFormatType format,
                               SimdConvolutionActivationType act, SimdTensorDataType srcT,
                               SimdTensorDataType dstT) {
    return convtest::ConvolutionParameters(s, format, act, srcT, dstT);
}

std::string Name(const SimdConvolutionParameters& p, size_t batch,
                 SimdSynetCompatibilityType mode) {
    return Describe(p, batch) + (p.srcT == SimdTensorData8u ? " src8u" : " src32f") +
           (p.dstT == SimdTensorData8u ? " dst8u " : " dst32f ") + ModeName(mode);
}

// Everything a layer needs: FP32 or UINT8 input (as bytes), FP32 weights, bias, activation
// parameters and the four statistics arrays.
struct Data {
    std::vector<uint8_t> src;  // batch images of srcT
    std::vector<float> srcF;   // the same images in FP32 (UINT8 input: its values)
    std::vector<float> weight, bias, params;
    std::vector<float> stats[4];
    const float* statsPtr[4];
    void Bind() {
        for (int i = 0; i < 4; ++i) statsPtr[i] = stats[i].data();
    }
};

// Input values in [0, 1] (unsigned quantizer) or [-1, 1] (signed) depending on `seed`; output
// statistics from the reference's FP32 output, so the output quantizer is realistic.
Data MakeData(const SimdConvolutionParameters& p, size_t batch, SimdSynetCompatibilityType mode,
              uint32_t seed) {
    Data data;
    const ref::Int8Ranges r(mode);
    const size_t n = batch * p.srcC * p.srcH * p.srcW;
    const bool signedInput = seed % 2 == 0;
    const bool nhwc = p.srcF == SimdTensorFormatNhwc;
    auto channelOf = [&](size_t i) { return nhwc ? i % p.srcC : i / (p.srcH * p.srcW) % p.srcC; };
    if (p.srcT == SimdTensorData8u) {
        std::vector<uint8_t> bytes(n);
        test::FillRandom(bytes.data(), n, seed);
        data.src.resize(n);
        data.srcF.resize(n);
        for (size_t i = 0; i < n; ++i) {
            data.src[i] = uint8_t(bytes[i] % (r.uMax + 1));
            data.srcF[i] = float(data.src[i]);
        }
        // The statistics only set the weight scales and the zero point here.
        data.stats[0] = test::RandomFloats(p.srcC, signedInput ? -2.0f : 0.0f, 0.0f, seed + 3);
        data.stats[1] = test::RandomFloats(p.srcC, 0.5f, 2.0f, seed + 4);
    } else {
        data.srcF = test::RandomFloats(n, signedInput ? -1.0f : 0.0f, 1.0f, seed);
        // Channel scales that differ, so per-channel steps matter.
        for (size_t i = 0; i < n; ++i) data.srcF[i] *= 0.25f + float(channelOf(i) % 5) * 0.5f;
        data.src.resize(n * 4);
        std::memcpy(data.src.data(), data.srcF.data(), n * 4);
        data.stats[0].assign(p.srcC, 0.0f);
        data.stats[1].assign(p.srcC, 0.0f);
        for (size_t i = 0; i < n; ++i) {
            const size_t c = channelOf(i);
            data.stats[0][c] = std::min(data.stats[0][c], data.srcF[i]);
            data.stats[1][c] = std::max(data.stats[1][c], data.srcF[i]);
        }
    }
    data.weight = test::RandomFloats(p.kernelY * p.kernelX * p.srcC / p.group * p.dstC, -1.0f, 1.0f,
                                     seed + 1);
    data.bias = test::RandomFloats(p.dstC, -1.0f, 1.0f, seed + 2);
    data.params = ActivationParams(p.activation, p.dstC);
    data.stats[2].assign(p.dstC, 0.0f);
    data.stats[3].assign(p.dstC, 0.0f);
    data.Bind();
    if (p.dstT == SimdTensorData8u) {
        SimdConvolutionParameters f = p;
        f.dstT = SimdTensorData32f;
        const ref::Result8i res =
            ref::Convolution8i(f, batch, mode, data.src.data(), data.weight.data(),
                               data.bias.data(), data.params.data(), data.statsPtr);
        const size_t pixels = p.dstH * p.dstW;
        for (size_t i = 0; i < res.out.size(); ++i) {
            const size_t c = nhwc ? i % p.dstC : i / pixels % p.dstC;
            data.stats[2][c] = std::min(data.stats[2][c], res.out[i]);
            data.stats[3][c] = std::max(data.stats[3][c], res.out[i]);
        }
        // Some channels with a range narrower than their values: outputs that clamp.
        for (size_t c = 0; c < p.dstC; c += 3) data.stats[3][c] *= 0.5f;
    }
    return data;
}

// The reference of a case, computed once per process (every target compares with the same).
const ref::Result8i& Reference(const SimdConvolutionParameters& p, size_t batch,
                               SimdSynetCompatibilityType mode, const Data& data,
                               const std::string& key) {
    static std::mutex mutex;
    static std::map<std::string, ref::Result8i> cache;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it == cache.end())
        it = cache
                 .emplace(key,
                          ref::Convolution8i(p, batch, mode, data.src.data(), data.weight.data(),
                                             data.bias.data(), data.params.data(), data.statsPtr))
                 .first;
    return it->second;
}

// dst (dstT values) against the reference: UINT8 exact, or within 1 for Elu/Mish/Swish/Gelu;
// FP32 bit-exact, or within 1e-5 relative (+1e-5) for those four.
::testing::AssertionResult MatchesReference(const SimdConvolutionParameters& p,
                                            const ref::Result8i& ref, const uint8_t* dst) {
    const bool exact = ref::Activation8iIsExact(p.activation);
    if (p.dstT == SimdTensorData8u)
        return test::AllOf(ref.out8.size(), [&](size_t i) {
            const int diff = int(dst[i]) - int(ref.out8[i]);
            if (diff == 0 || (!exact && (diff == 1 || diff == -1)))
                return ::testing::AssertionSuccess();
            return ::testing::AssertionFailure()
                   << "got " << int(dst[i]) << ", expected " << int(ref.out8[i])
                   << " (pre-activation " << ref.pre[i] << ")";
        });
    const float* out = reinterpret_cast<const float*>(dst);
    return test::AllOf(ref.out.size(), [&](size_t i) {
        if (exact) {
            if (test::SameValue(out[i], ref.out[i])) return ::testing::AssertionSuccess();
            return ::testing::AssertionFailure()
                   << "got " << out[i] << ", expected exactly " << ref.out[i];
        }
        return test::Near(out[i], ref.out[i], ref.out[i], 1e-5, 1e-5);
    });
}

// Scoped SIMD_SYNET_VNNI=0: contexts created meanwhile run the plain AVX-512 kernels.
class PlainAvx512 {
public:
    explicit PlainAvx512(bool active) : active_(active) {
        if (active_) setenv("SIMD_SYNET_VNNI", "0", 1);
    }
    ~PlainAvx512() {
        if (active_) unsetenv("SIMD_SYNET_VNNI");
    }

private:
    bool active_;
};

struct RunOptions {
    bool callerBuffer = false;
    bool forcePlain = false;  // SIMD_SYNET_VNNI=0 while the context is created
    size_t bufOffset = 0;     // misalignment of the caller buffer
};

// Init, SetParams, Forward, comparison with the reference; *info receives the context's Info.
::testing::AssertionResult RunCase(const SimdConvolutionParameters& p, size_t batch,
                                   SimdSynetCompatibilityType mode, const Data& data,
                                   const ref::Result8i& ref, const RunOptions& o,
                                   std::string* info = nullptr) {
    void* context;
    {
        const PlainAvx512 plain(o.forcePlain);
        context = SimdSynetConvolution8iInit(batch, &p, mode);
    }
    if (context == nullptr)
        return ::testing::AssertionFailure()
               << "Init failed: " << (SimdSynetGetLastError() ? SimdSynetGetLastError() : "");
    SimdSynetConvolution8iSetParams(context, data.weight.data(), data.bias.data(),
                                    data.params.empty() ? nullptr : data.params.data(),
                                    data.statsPtr);
    if (SimdSynetGetLastError())
        return ::testing::AssertionFailure() << "SetParams: " << SimdSynetGetLastError();
    const size_t bufSize = SimdSynetConvolution8iExternalBufferSize(context);
    Guarded<uint8_t> buf(o.callerBuffer ? bufSize + o.bufOffset : 0, 0x5A);
    const size_t dstBytes = ref.out.size() * (p.dstT == SimdTensorData8u ? 1 : 4);
    Guarded<uint8_t> dst(dstBytes, 0xEE);
    SimdSynetConvolution8iForward(context, data.src.data(),
                                  o.callerBuffer ? buf.data() + o.bufOffset : nullptr, dst.data());
    const char* error = SimdSynetGetLastError();
    const std::string name = SimdSynetConvolution8iInfo(context);
    if (info) *info = name;
    SimdRelease(context);
    if (error) return ::testing::AssertionFailure() << "Forward: " << error;
    if (!dst.GuardsIntact()) return ::testing::AssertionFailure() << name << ": dst guard";
    if (o.callerBuffer && !buf.GuardsIntact())
        return ::testing::AssertionFailure() << name << ": scratch guard";
    if (o.forcePlain && name.find("vnni") != std::string::npos)
        return ::testing::AssertionFailure() << name << ": SIMD_SYNET_VNNI=0 ignored";
    ::testing::AssertionResult r = MatchesReference(p, ref, dst.data());
    if (!r) return ::testing::AssertionFailure() << name << ": " << r.message();
    return ::testing::AssertionSuccess();
}

// RunCase on this target's kernels, and when they are the VNNI ones once more on the plain
// AVX-512 kernels.
::testing::AssertionResult RunEveryPath(const SimdConvolutionParameters& p, size_t batch,
                                        SimdSynetCompatibilityType mode, uint32_t seed,
                                        RunOptions o) {
    const Data data = MakeData(p, batch, mode, seed);
    const std::string key = Name(p, batch, mode) + " seed " + std::to_string(seed);
    const ref::Result8i& ref = Reference(p, batch, mode, data, key);
    std::string info;
    ::testing::AssertionResult r = RunCase(p, batch, mode, data, ref, o, &info);
    if (!r || info.find("vnni") == std::string::npos) return r;
    o.forcePlain = true;
    return RunCase(p, batch, mode, data, ref, o);
}

SIMD_SYNET_TARGET_SUITE(Convolution8iTest);

// Tails in every dimension: channels 1, 3, 4, 5, 15, 16, 17, 33, 64; widths and heights that are
// not multiples of a tile; kernels 1, 3, 5, 7, 1x3, 3x1; strides 1-3; dilation 2; asymmetric
// pads and pads beyond the kernel; groups, depthwise and depthwise with a multiplier.
std::vector<Shape> Shapes() {
    return {
        // srcC dstC  H   W  kY kX sY sX dY dX pY pX pH pW group
        {3, 32, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // first layer
        {1, 16, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // one input channel
        {4, 15, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // whole word per tap
        {5, 17, 7, 6, 3, 3, 2, 1, 1, 1, 0, 1, 1, 0, 1},    // odd channels, runs per row
        {64, 64, 6, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // 3x3 body
        {17, 33, 5, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // 1x1
        {64, 16, 5, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   // 1x1 narrow output
        {33, 64, 9, 5, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1},   // 1x1 stride 2
        {16, 17, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   // single pixel
        {40, 70, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   // single pixel, one-row tiles
        {15, 5, 1, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // height 1
        {16, 4, 13, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // width 1
        {7, 8, 5, 5, 3, 3, 1, 1, 1, 1, 4, 0, 2, 5, 1},     // pads beyond the kernel
        {3, 17, 13, 13, 5, 5, 3, 3, 1, 1, 2, 1, 0, 3, 1},  // 5x5 stride 3
        {8, 8, 11, 11, 7, 7, 1, 2, 2, 1, 6, 3, 5, 2, 1},   // 7x7 dilated
        {17, 8, 5, 13, 1, 3, 1, 1, 1, 2, 0, 2, 0, 1, 1},   // 1x3 dilated
        {8, 33, 13, 5, 3, 1, 2, 1, 1, 1, 1, 0, 2, 0, 1},   // 3x1
        {8, 8, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},     // groups of 4
        {10, 16, 5, 13, 3, 3, 2, 1, 1, 1, 0, 1, 1, 0, 2},  // groups of 5
        {64, 64, 5, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4},   // grouped 1x1
        {34, 66, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},   // group of 17 / 33
        {7, 14, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 7},   // depthwise multiplier 2
        {1, 1, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // depthwise
        {3, 3, 7, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},
        {16, 16, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16},
        {17, 17, 9, 10, 3, 3, 1, 1, 1, 1, 0, 1, 2, 0, 17},
        {33, 33, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 33},
        {64, 64, 9, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 64},
        {64, 64, 9, 15, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 64},
        {17, 17, 9, 9, 5, 5, 1, 1, 2, 2, 4, 4, 4, 4, 17},
        {15, 15, 6, 13, 7, 7, 3, 3, 1, 1, 3, 3, 3, 3, 15},
        {17, 17, 5, 5, 3, 3, 1, 1, 1, 1, 5, 5, 5, 5, 17},  // pads beyond the kernel
        // Widths past a vector of bytes and past the depthwise chunk of 32 pixels; NCHW planes
        // of 2-4 channels interleaved, others in 16x16 transpose tiles with tails.
        {3, 16, 5, 135, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
        {2, 8, 4, 67, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {4, 5, 3, 70, 3, 3, 1, 2, 1, 1, 0, 1, 2, 1, 1},
        {33, 17, 4, 35, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {16, 16, 5, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},
        {17, 17, 6, 67, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 17},
        // Depthwise over two channel blocks (the second partial), padded rows made on demand.
        {128, 128, 9, 21, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 128},
        {80, 80, 7, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 80},
        {80, 80, 8, 9, 5, 5, 2, 1, 2, 1, 2, 2, 2, 2, 80},
    };
}

// Every shape in both layouts and every mode, input and output types and activations rotating;
// caller and context scratch alternate.
TEST_P(Convolution8iTest, Shapes) {
    const SimdTensorDataType types[2] = {SimdTensorData32f, SimdTensorData8u};
    uint32_t seed = 1;
    size_t index = 0;
    for (const Shape& s : Shapes())
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (SimdSynetCompatibilityType mode : kModes) {
                const SimdConvolutionParameters p =
                    Make(s, f, kActivations[index % 11], types[index % 2], types[index / 2 % 2]);
                RunOptions o;
                o.callerBuffer = index % 3 == 0;
                o.bufOffset = index % 5;
                const size_t batch = index % 7 == 3 ? 2 : 1;
                EXPECT_TRUE(RunEveryPath(p, batch, mode, seed, o)) << Name(p, batch, mode);
                seed += 3;
                ++index;
            }
}

// A shape from a geometry row {H, W, kY, kX, sY, sX, dY, dX, pY, pX, pH, pW}.
Shape GeometryShape(size_t srcC, size_t dstC, const size_t (&g)[12], size_t group) {
    return Shape{srcC, dstC, g[0], g[1], g[2],  g[3],  g[4], g[5],
                 g[6], g[7], g[8], g[9], g[10], g[11], group};
}

// Depthwise NHWC with UINT8 input and output: channels in block order from the image to the
// epilogue's packs, the caller's rows read in place with only the borders' columns made (whole
// channel blocks), and every channel tail; pads 0-2 on each side, strides 1 and 2, odd sizes
// and widths past the chunk of 32 outputs.
TEST_P(Convolution8iTest, DepthwiseUint8Nhwc) {
    const size_t channels[] = {1, 3, 4, 5, 15, 16, 17, 33, 64, 128};
    // H, W, kY, kX, sY, sX, dY, dX, pY, pX, pH, pW
    const size_t geometry[][12] = {
        {9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, {9, 11, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
        {7, 37, 3, 3, 1, 1, 1, 1, 0, 2, 2, 0}, {8, 69, 3, 3, 2, 2, 1, 1, 2, 0, 0, 2},
        {5, 13, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0}, {6, 15, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1},
        {7, 9, 5, 5, 2, 1, 1, 2, 2, 1, 0, 2},  {3, 4, 3, 3, 1, 1, 1, 1, 1, 2, 1, 2},
        {3, 2, 3, 3, 1, 1, 1, 1, 1, 2, 1, 2},  {4, 67, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1},
    };
    uint32_t seed = 700;
    size_t index = 0;
    for (size_t c : channels)
        for (const auto& g : geometry) {
            const Shape s = GeometryShape(c, c, g, c);
            const SimdSynetCompatibilityType mode = kModes[index % 3];
            const SimdConvolutionParameters p =
                Make(s, SimdTensorFormatNhwc, kActivations[index % 11], SimdTensorData8u,
                     SimdTensorData8u);
            RunOptions o;
            o.callerBuffer = index % 2 == 0;
            const size_t batch = index % 5 == 2 ? 2 : 1;
            EXPECT_TRUE(RunEveryPath(p, batch, mode, seed++, o)) << Name(p, batch, mode);
            ++index;
        }
}

// The depthwise rings with the UINT8 epilogue fused in (whole channel blocks; stride 1 with one
// and two output rows, in whole rows with each side padded or not and as short as one and two
// outputs, stride 2; borders in place or padded): the activations the fusion takes,
// also with output minima below 0 (ReLU then has an output zero point above 0), bit-exact on
// the fused and the plain paths.
TEST_P(Convolution8iTest, DepthwiseFusedEpilogue) {
    const SimdConvolutionActivationType acts[] = {
        SimdConvolutionActivationIdentity,      SimdConvolutionActivationRelu,
        SimdConvolutionActivationLeakyRelu,     SimdConvolutionActivationPrelu,
        SimdConvolutionActivationRestrictRange, SimdConvolutionActivationHswish};
    // H, W, kY, kX, sY, sX, dY, dX, pY, pX, pH, pW
    const size_t geometry[][12] = {
        {7, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, {6, 13, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},
        {6, 13, 3, 3, 1, 1, 1, 1, 1, 0, 0, 1}, {5, 9, 3, 3, 1, 1, 1, 1, 0, 2, 1, 0},
        {4, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},  {3, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {9, 23, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1}, {8, 10, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1}};
    uint32_t seed = 1200;
    for (size_t c : {64, 192})
        for (const auto& g : geometry)
            for (SimdConvolutionActivationType act : acts)
                for (bool negativeMin : {false, true}) {
                    const SimdConvolutionParameters p =
                        Make(GeometryShape(c, c, g, c), SimdTensorFormatNhwc, act, SimdTensorData8u,
                             SimdTensorData8u);
                    const SimdSynetCompatibilityType mode = kModes[seed % 3];
                    Data data = MakeData(p, 1, mode, seed);
                    if (negativeMin)
                        for (size_t i = 0; i < c; ++i)
                            data.stats[2][i] = -0.25f * data.stats[3][i] - 0.1f;
                    data.Bind();
                    const std::string key = Name(p, 1, mode) + " seed " + std::to_string(seed) +
                                            (negativeMin ? " negative minima" : "");
                    const ref::Result8i& ref = Reference(p, 1, mode, data, key);
                    for (bool plain : {false, true}) {
                        RunOptions o;
                        o.forcePlain = plain;
                        EXPECT_TRUE(RunCase(p, 1, mode, data, ref, o)) << key;
                    }
                    ++seed;
                }
}

// The direct algorithm with an unsigned input (zero point 0), where tiles skip the kernel rows
// and columns that lie in the padding for all their pixels and border pixels are computed out of
// order: every channel tail, sizes that are not multiples of a tile, pads 0-2 on each side
// (asymmetric, and beyond the kernel), strides 1 and 2, dilation 2; both layouts.
TEST_P(Convolution8iTest, DirectSkipsPaddedTaps) {
    const size_t channels[] = {1, 3, 4, 5, 15, 16, 17, 33, 64, 256};
    // H, W, kY, kX, sY, sX, dY, dX, pY, pX, pH, pW
    const size_t geometry[][12] = {
        {14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, {7, 11, 3, 3, 1, 1, 1, 1, 2, 0, 1, 2},
        {9, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},   {5, 13, 3, 3, 1, 2, 2, 1, 2, 1, 2, 0},
        {3, 4, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},   {6, 7, 1, 1, 1, 1, 1, 1, 1, 2, 0, 1},
    };
    uint32_t seed = 901;  // odd: unsigned input
    size_t index = 0;
    for (size_t c : channels)
        for (const auto& g : geometry) {
            const size_t dstC = c == 256 ? 40 : c + 16 * (index % 3);
            const Shape s = GeometryShape(c, dstC, g, 1);
            const SimdSynetCompatibilityType mode = kModes[index % 3];
            const SimdTensorFormatType f = index % 2 ? SimdTensorFormatNchw : SimdTensorFormatNhwc;
            const SimdConvolutionParameters p =
                Make(s, f, kActivations[index % 11], SimdTensorData8u,
                     index % 4 < 2 ? SimdTensorData8u : SimdTensorData32f);
            RunOptions o;
            o.callerBuffer = index % 2 == 0;
            const size_t batch = index % 5 == 2 ? 2 : 1;
            EXPECT_TRUE(RunEveryPath(p, batch, mode, seed, o)) << Name(p, batch, mode);
            seed += 2;
            ++index;
        }
}

TEST_P(Convolution8iTest, EveryActivation) {
    const Shape shapes[] = {{17, 33, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {16, 16, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},
                            {9, 70, 3, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}};
    uint32_t seed = 100;
    for (const Shape& s : shapes)
        for (SimdTensorDataType dstT : {SimdTensorData32f, SimdTensorData8u})
            for (SimdConvolutionActivationType act : kActivations) {
                const SimdConvolutionParameters p =
                    Make(s, SimdTensorFormatNhwc, act, SimdTensorData32f, dstT);
                EXPECT_TRUE(
                    RunEveryPath(p, 1, SimdSynetCompatibility8iPrecise, seed++, RunOptions()))
                    << Name(p, 1, SimdSynetCompatibility8iPrecise);
            }
}

// Pairs of large products: 8iOverflow saturates them (the results differ from 8iPrecise's),
// identically on every target.
TEST_P(Convolution8iTest, OverflowSaturates) {
    for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
        for (size_t srcC : {2, 5, 16}) {
            const SimdConvolutionParameters p =
                Make({srcC, 8, 4, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, f,
                     SimdConvolutionActivationIdentity, SimdTensorData8u, SimdTensorData32f);
            Data data = MakeData(p, 1, SimdSynetCompatibility8iOverflow, 7);
            // Inputs near 255 and weights of one sign per output channel: every pair of
            // channels saturates (255 * 127 * 2 > 32767).
            for (size_t i = 0; i < data.src.size(); ++i) data.src[i] = uint8_t(250 + i % 6);
            for (size_t i = 0; i < data.weight.size(); ++i)
                data.weight[i] = (f == SimdTensorFormatNhwc ? i % p.dstC : i / (srcC * 9)) % 2
                                     ? -0.9f - 0.1f * float(i % 3) / 3
                                     : 0.9f + 0.1f * float(i % 3) / 3;
            data.stats[0].assign(srcC, 0.0f);  // unsigned input: zero point 0
            data.stats[1].assign(srcC, 1.0f);
            data.Bind();
            const ref::Result8i overflow =
                ref::Convolution8i(p, 1, SimdSynetCompatibility8iOverflow, data.src.data(),
                                   data.weight.data(), data.bias.data(), nullptr, data.statsPtr);
            const ref::Result8i precise =
                ref::Convolution8i(p, 1, SimdSynetCompatibility8iPrecise, data.src.data(),
                                   data.weight.data(), data.bias.data(), nullptr, data.statsPtr);
            size_t differ = 0;
            for (size_t i = 0; i < precise.out.size(); ++i)
                differ += precise.out[i] != overflow.out[i];
            EXPECT_GT(differ, precise.out.size() / 2) << srcC;
            for (SimdSynetCompatibilityType mode :
                 {SimdSynetCompatibility8iOverflow, SimdSynetCompatibility8iPrecise}) {
                const ref::Result8i& expect =
                    mode == SimdSynetCompatibility8iOverflow ? overflow : precise;
                std::string info;
                EXPECT_TRUE(RunCase(p, 1, mode, data, expect, RunOptions(), &info))
                    << Name(p, 1, mode);
                if (info.find("vnni") != std::string::npos) {
                    RunOptions plain;
                    plain.forcePlain = true;
                    EXPECT_TRUE(RunCase(p, 1, mode, data, expect, plain)) << Name(p, 1, mode);
                }
            }
        }
}

// The FP32 outputs are the FP32 convolution's within the quantization error of the inputs and
// weights (per product: half an input step times |w|, half a weight step times |x|).
TEST_P(Convolution8iTest, CloseToFloatConvolution) {
    const Shape shapes[] = {{33, 17, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {16, 16, 7, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16},
                            {64, 40, 5, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}};
    uint32_t seed = 300;
    for (const Shape& s : shapes)
        for (SimdSynetCompatibilityType mode :
             {SimdSynetCompatibility8iPrecise, SimdSynetCompatibility8iNarrowed})
            for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
                const SimdConvolutionParameters p = Make(s, f, SimdConvolutionActivationIdentity,
                                                         SimdTensorData32f, SimdTensorData32f);
                const Data data = MakeData(p, 1, mode, seed++);
                void* context = SimdSynetConvolution8iInit(1, &p, mode);
                ASSERT_NE(context, nullptr);
                SimdSynetConvolution8iSetParams(context, data.weight.data(), data.bias.data(),
                                                nullptr, data.statsPtr);
                std::vector<float> dst(p.dstC * p.dstH * p.dstW);
                SimdSynetConvolution8iForward(context, data.src.data(), nullptr,
                                              reinterpret_cast<uint8_t*>(dst.data()));
                SimdRelease(context);
                // Bound per product x*w: an input step error (q/2) times |w|, plus a weight
                // error (at most max|w'|/(2*iMax) in units of q, i.e. wMax*qMax/(2*iMax*q))
                // times |x| <= q*uMax, plus the product of the two.
                const ref::Int8Ranges r(mode);
                const ref::Quantizer8i qs =
                    ref::MakeQuantizer8i(data.stats[0].data(), data.stats[1].data(), p.srcC, r);
                std::vector<double> expect, magnitude;
                ref::Convolution32f(p, 1, data.srcF.data(), data.weight.data(), data.bias.data(),
                                    nullptr, expect, magnitude);
                const size_t Cg = p.srcC / p.group, taps = p.kernelY * p.kernelX;
                double wMax = 0, qMax = 0;
                for (float w : data.weight) wMax = std::max(wMax, double(std::fabs(w)));
                for (float q : qs.step) qMax = std::max(qMax, double(q));
                const double perProduct =
                    wMax * qMax * (0.5 + 0.5 * double(r.uMax) / r.iMax + 0.25 / r.iMax);
                const double bound = double(taps * Cg) * perProduct + 1e-5;
                EXPECT_TRUE(test::AllOf(expect.size(), [&](size_t i) {
                    return test::Near(dst[i], expect[i], 0.0, 0.0, bound);
                })) << Name(p, 1, mode);
            }
}

// Forward splits its work over SimdSetThreadNumber threads: every count gives the same bits,
// with caller scratch and context scratch; splits over pixels and over channels.
TEST_P(Convolution8iTest, ThreadCountsGiveIdenticalBits) {
    const test::ThreadBudgetGuard restore;
    const Shape shapes[] = {{64, 64, 12, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {512, 300, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
                            {64, 64, 20, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 64}};
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            const SimdConvolutionParameters p =
                Make(s, f, SimdConvolutionActivationPrelu, SimdTensorData32f, SimdTensorData8u);
            const size_t batch = 2;
            const Data data = MakeData(p, batch, SimdSynetCompatibility8iPrecise, 41);
            void* context = SimdSynetConvolution8iInit(batch, &p, SimdSynetCompatibility8iPrecise);
            ASSERT_NE(context, nullptr);
            SimdSynetConvolution8iSetParams(context, data.weight.data(), data.bias.data(),
                                            data.params.data(), data.statsPtr);
            const size_t dstSize = batch * p.dstC * p.dstH * p.dstW;
            std::vector<uint8_t> single(dstSize);
            SimdSetThreadNumber(1);
            SimdSynetConvolution8iForward(context, data.src.data(), nullptr, single.data());
            for (size_t threads : {2, 3})
                for (bool callerBuffer : {false, true}) {
                    SimdSetThreadNumber(threads);
                    Guarded<uint8_t> buf(
                        callerBuffer ? SimdSynetConvolution8iExternalBufferSize(context) : 0);
                    Guarded<uint8_t> dst(dstSize);
                    SimdSynetConvolution8iForward(context, data.src.data(),
                                                  callerBuffer ? buf.data() : nullptr, dst.data());
                    EXPECT_EQ(0, std::memcmp(dst.data(), single.data(), dstSize))
                        << Describe(p, batch) << " threads " << threads;
                    EXPECT_TRUE(dst.GuardsIntact());
                    EXPECT_TRUE(!callerBuffer || buf.GuardsIntact());
                }
            SimdSetThreadNumber(1);
            SimdRelease(context);
        }
}

// A NaN weight quantizes to 0 (as the library's conversions to integers do; converting NaN to
// int would be undefined, which UBSan reports): the context computes what it computes with a 0
// weight there.
TEST_P(Convolution8iTest, NaNWeightQuantizesToZero) {
    const Shape s{16, 8, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    const SimdConvolutionParameters p = Make(s, SimdTensorFormatNhwc, SimdConvolutionActivationRelu,
                                             SimdTensorData32f, SimdTensorData32f);
    const Data data = MakeData(p, 1, SimdSynetCompatibility8iPrecise, 51);
    std::vector<float> nan = data.weight, zero = data.weight;
    nan[37] = std::numeric_limits<float>::quiet_NaN();
    zero[37] = 0.0f;
    std::vector<float> out[2];
    int i = 0;
    for (const std::vector<float>* w : {&nan, &zero}) {
        void* context = SimdSynetConvolution8iInit(1, &p, SimdSynetCompatibility8iPrecise);
        ASSERT_NE(context, nullptr);
        SimdSynetConvolution8iSetParams(context, w->data(), data.bias.data(), nullptr,
                                        data.statsPtr);
        ASSERT_EQ(SimdSynetGetLastError(), nullptr);
        out[i].resize(p.dstC * p.dstH * p.dstW);
        SimdSynetConvolution8iForward(context, data.src.data(), nullptr,
                                      reinterpret_cast<uint8_t*>(out[i].data()));
        SimdRelease(context);
        ++i;
    }
    EXPECT_EQ(out[0], out[1]);
}

// One context, two user threads with their own scratch, under library budgets 1-3: results equal
// those of lone calls (UINT8 and FP32 sources and outputs, both layouts, depthwise included).
TEST_P(Convolution8iTest, SharedContextTwoThreads) {
    const Shape shapes[] = {{32, 48, 10, 21, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                            {48, 48, 13, 15, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 48},
                            {64, 40, 9, 11, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}};
    for (const Shape& s : shapes)
        for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc})
            for (bool uint8Source : {true, false}) {
                const SimdTensorDataType srcT = uint8Source ? SimdTensorData8u : SimdTensorData32f;
                const SimdTensorDataType dstT = uint8Source ? SimdTensorData32f : SimdTensorData8u;
                const SimdConvolutionParameters p =
                    Make(s, f, SimdConvolutionActivationRelu, srcT, dstT);
                const Data a = MakeData(p, 1, SimdSynetCompatibility8iNarrowed, 11);
                const Data b = MakeData(p, 1, SimdSynetCompatibility8iNarrowed, 13);
                void* context = SimdSynetConvolution8iInit(1, &p, SimdSynetCompatibility8iNarrowed);
                ASSERT_NE(context, nullptr);
                SimdSynetConvolution8iSetParams(context, a.weight.data(), a.bias.data(), nullptr,
                                                a.statsPtr);
                const size_t elements = p.dstC * p.dstH * p.dstW;
                const size_t dstBytes = uint8Source ? elements * sizeof(float) : elements;
                const Data* inputs[2] = {&a, &b};
                auto forward = [&](int i, void* buf, void* dst) {
                    SimdSynetConvolution8iForward(context, inputs[i]->src.data(),
                                                  static_cast<uint8_t*>(buf),
                                                  static_cast<uint8_t*>(dst));
                };
                EXPECT_TRUE(test::ConcurrentForwardMatchesLoneCalls(
                    SimdSynetConvolution8iExternalBufferSize(context), dstBytes, forward))
                    << Describe(p, 1);
                SimdRelease(context);
            }
}

TEST_P(Convolution8iTest, SetParamsAgainAndSizes) {
    const Shape s = {17, 33, 5, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (SimdTensorFormatType f : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        const SimdConvolutionParameters p =
            Make(s, f, SimdConvolutionActivationIdentity, SimdTensorData32f, SimdTensorData8u);
        const SimdSynetCompatibilityType mode = SimdSynetCompatibility8iPrecise;
        void* context = SimdSynetConvolution8iInit(1, &p, mode);
        ASSERT_NE(context, nullptr);
        const std::string info = SimdSynetConvolution8iInfo(context);
        EXPECT_NE(info.find(SimdSynetIsa()), std::string::npos) << info;
        EXPECT_NE(info.find(f == SimdTensorFormatNhwc ? "nhwc" : "nchw"), std::string::npos);
        EXPECT_GE(SimdSynetConvolution8iExternalBufferSize(context), 1u);
        Data first = MakeData(p, 1, mode, 21), second = MakeData(p, 1, mode, 22);
        SimdSynetConvolution8iSetParams(context, first.weight.data(), nullptr, nullptr,
                                        first.statsPtr);
        EXPECT_GT(SimdSynetConvolution8iInternalBufferSize(context), p.dstC * 9 * p.srcC);
        SimdSynetConvolution8iSetParams(context, second.weight.data(), second.bias.data(), nullptr,
                                        second.statsPtr);
        // The first weights and statistics are gone: the output follows the second set.
        std::fill(first.weight.begin(), first.weight.end(), 0.0f);
        Guarded<uint8_t> dst(p.dstC * p.dstH * p.dstW);
        SimdSynetConvolution8iForward(context, second.src.data(), nullptr, dst.data());
        const ref::Result8i ref =
            ref::Convolution8i(p, 1, mode, second.src.data(), second.weight.data(),
                               second.bias.data(), nullptr, second.statsPtr);
        EXPECT_TRUE(MatchesReference(p, ref, dst.data()));
        SimdRelease(context);
    }
}

// ---- Rejections (plain tests).

SimdConvolutionParameters Valid() {
    return Make({8, 16, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, SimdTensorFormatNhwc,
                SimdConvolutionActivationRelu, SimdTensorData8u, SimdTensorData8u);
}

void ExpectRejected(const SimdConvolutionParameters& p, size_t batch, const char* field) {
    void* context = SimdSynetConvolution8iInit(batch, &p, SimdSynetCompatibility8iPrecise);
    EXPECT_EQ(context, nullptr) << field;
    const char* message = SimdSynetGetLastError();
    ASSERT_NE(message, nullptr) << field;
    EXPECT_NE(std::string(message).find(field), std::string::npos) << message;
}

TEST(Convolution8iErrors, InitRejectsEveryViolatedPrecondition) {
    SimdConvolutionParameters p = Valid();
    ExpectRejected(p, 0, "batch");
    p.srcT = SimdTensorData16b;
    ExpectRejected(p, 1, "srcT");
    p = Valid();
    p.dstT = SimdTensorData8i;
    ExpectRejected(p, 1, "dstT");
    p = Valid();
    p.dstF = SimdTensorFormatNchw;
    ExpectRejected(p, 1, "dstF");
    p = Valid();
    p.srcF = p.dstF = SimdTensorFormatNchw16c;
    ExpectRejected(p, 1, "srcF");
    p = Valid();
    p.dstH += 1;
    ExpectRejected(p, 1, "dstH");
    p = Valid();
    p.dstW -= 1;
    ExpectRejected(p, 1, "dstW");
    p = Valid();
    p.group = 3;
    ExpectRejected(p, 1, "group");
    p = Valid();
    p.kernelX = 0;
    ExpectRejected(p, 1, "kernel");
    p = Valid();
    p.strideY = 0;
    ExpectRejected(p, 1, "stride");
    p = Valid();
    p.dilationX = 0;
    ExpectRejected(p, 1, "dilation");
    p = Valid();
    p.activation = SimdConvolutionActivationType(11);
    ExpectRejected(p, 1, "activation");
    EXPECT_EQ(SimdSynetConvolution8iInit(1, nullptr, SimdSynetCompatibility8iPrecise), nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
}

TEST(Convolution8iErrors, InvalidArgumentsWriteNothing) {
    const SimdConvolutionParameters p = Valid();
    void* context = SimdSynetConvolution8iInit(1, &p, SimdSynetCompatibility8iPrecise);
    ASSERT_NE(context, nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    std::vector<uint8_t> src(p.srcC * p.srcH * p.srcW, 7);
    std::vector<uint8_t> dst(p.dstC * p.dstH * p.dstW, 5);
    SimdSynetConvolution8iForward(context, src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr) << "Forward before SetParams";
    EXPECT_EQ(dst[0], 5);
    std::vector<float> weight(p.kernelY * p.kernelX * p.srcC * p.dstC, 0.5f);
    std::vector<float> lo(p.dstC, -1.0f), hi(p.dstC, 1.0f);
    const float* stats[4] = {lo.data(), hi.data(), lo.data(), hi.data()};
    SimdSynetConvolution8iSetParams(context, nullptr, nullptr, nullptr, stats);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvolution8iSetParams(context, weight.data(), nullptr, nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    const float* noOutput[4] = {lo.data(), hi.data(), nullptr, nullptr};
    SimdSynetConvolution8iSetParams(context, weight.data(), nullptr, nullptr, noOutput);
    EXPECT_NE(SimdSynetGetLastError(), nullptr) << "UINT8 output needs stats[2], stats[3]";
    const float* reversed[4] = {hi.data(), lo.data(), lo.data(), hi.data()};
    SimdSynetConvolution8iSetParams(context, weight.data(), nullptr, nullptr, reversed);
    EXPECT_NE(SimdSynetGetLastError(), nullptr) << "min > max";
    SimdSynetConvolution8iForward(context, src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr) << "still no parameters";
    EXPECT_EQ(dst[0], 5);
    SimdSynetConvolution8iSetParams(context, weight.data(), nullptr, nullptr, stats);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdSynetConvolution8iForward(context, nullptr, nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvolution8iForward(context, src.data(), nullptr, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(dst[0], 5);
    SimdSynetConvolution8iForward(nullptr, src.data(), nullptr, dst.data());
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdSynetConvolution8iSetParams(nullptr, weight.data(), nullptr, nullptr, stats);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdSynetConvolution8iInfo(nullptr), nullptr);
    EXPECT_EQ(SimdSynetConvolution8iExternalBufferSize(nullptr), 0u);
    EXPECT_EQ(SimdSynetConvolution8iInternalBufferSize(nullptr), 0u);
    SimdRelease(context);
    // An activation with parameters refuses params == NULL; FP32 output needs no stats[2..3].
    const SimdConvolutionParameters q =
        Make({8, 16, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, SimdTensorFormatNchw,
             SimdConvolutionActivationPrelu, SimdTensorData32f, SimdTensorData32f);
    context = SimdSynetConvolution8iInit(1, &q, SimdSynetCompatibility8iNarrowed);
    ASSERT_NE(context, nullptr);
    SimdSynetConvolution8iSetParams(context, weight.data(), nullptr, nullptr, noOutput);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    std::vector<float> slopes(q.dstC, 0.1f);
    SimdSynetConvolution8iSetParams(context, weight.data(), nullptr, slopes.data(), noOutput);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    SimdRelease(context);
}

}  // namespace
