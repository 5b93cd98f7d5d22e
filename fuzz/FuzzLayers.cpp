// Harnesses of the layer contexts: Convolution32f, Deconvolution32f, Deconvolution16b and
// MergedConvolution32f. Each decodes SimdConvolutionParameters (mostly consistent shapes, with
// rare invalid fields), runs Init, the buffer sizes, Info, SetParams with exactly-sized arrays
// and Forward with exactly-sized tensors, once with buf NULL on one thread and once with an
// exactly-sized external buffer on 1-3 threads, whose outputs must agree bit for bit (results
// never depend on the scratch or the thread count); then SimdRelease.
#include <cstring>
#include <vector>

#include "FuzzInput.h"
#include "SimdSynet.h"
#include "SimdSynet.hpp"

namespace fuzz {
namespace {

// Multiply-adds one Forward may cost at most (well under a millisecond per call).
constexpr size_t kMaxMacs = size_t(1) << 19;

// 1..max, or (one byte value in 256) the invalid 0.
size_t Dim(Input& in, size_t max) {
    const uint8_t b = in.Byte();
    return b == 255 ? 0 : 1 + b % max;
}

// Nchw or Nhwc, now and then any value of the enumeration's range (invalid ones included).
SimdTensorFormatType Format(Input& in) {
    const uint8_t b = in.Byte();
    return b < 240 ? (b & 1 ? SimdTensorFormatNhwc : SimdTensorFormatNchw)
                   : SimdTensorFormatType(int(b % 16) - 1);
}

SimdTensorDataType Type(Input& in, bool bf16) {
    const uint8_t b = in.Byte();
    if (b >= 240) return SimdTensorDataType(int(b % 16) - 1);
    return bf16 && (b & 1) ? SimdTensorData16b : SimdTensorData32f;
}

SimdConvolutionActivationType Activation(Input& in) {
    const uint8_t b = in.Byte();
    // 11..15 are unknown (still inside the enumeration's value range).
    return SimdConvolutionActivationType(b < 240 ? b % 11 : b % 16);
}

// Activation parameters of the documented size; RestrictRange gets lower <= upper (a
// precondition, SUPPLEMENT.md §3).
void FillParams(Buffer<float>& params, SimdConvolutionActivationType a, uint32_t seed) {
    FillFloats(params.data(), params.size(), seed, false);
    if (a == SimdConvolutionActivationRestrictRange && params[0] > params[1])
        std::swap(params[0], params[1]);
    if (a == SimdConvolutionActivationHswish) params[0] = 3.0f * params[0];
}

// Kernel, stride, dilation and pads of one layer; rare zeros (invalid).
void DecodeWindow(Input& in, SimdConvolutionParameters& p) {
    p.kernelY = in.OneIn(128) ? 0 : in.Range(1, 7);
    p.kernelX = in.Flag() ? in.Range(0, 7) : p.kernelY;
    p.strideY = in.OneIn(128) ? 0 : in.Range(1, 4);
    p.strideX = in.Flag() ? in.Range(0, 4) : p.strideY;
    p.dilationY = in.OneIn(4) ? in.Range(0, 3) : 1;
    p.dilationX = in.Flag() ? in.Range(1, 3) : p.dilationY;
    if (in.Flag()) {
        p.padY = in.Range(0, 4);
        p.padX = in.Range(0, 4);
        p.padH = in.Range(0, 4);
        p.padW = in.Range(0, 4);
    } else {  // "same" padding
        p.padY = p.padH = p.dilationY * (p.kernelY ? p.kernelY - 1 : 0) / 2;
        p.padX = p.padW = p.dilationX * (p.kernelX ? p.kernelX - 1 : 0) / 2;
    }
}

// Output size of the convolution rule (§8.1) or the deconvolution rule (§9.1), 0 when there
// is none; now and then off by one (invalid) on purpose.
void SetOutputSize(Input& in, SimdConvolutionParameters& p, bool deconv) {
    auto axis = [&](size_t src, size_t k, size_t s, size_t d, size_t pad0, size_t pad1) -> size_t {
        if (k == 0 || s == 0 || d == 0 || src == 0) return in.Range(0, 4);
        const size_t extent = d * (k - 1) + 1;
        if (deconv) {
            const size_t full = s * (src - 1) + extent;
            return full > pad0 + pad1 ? full - pad0 - pad1 : 0;
        }
        return src + pad0 + pad1 >= extent ? (src + pad0 + pad1 - extent) / s + 1 : 0;
    };
    p.dstH = axis(p.srcH, p.kernelY, p.strideY, p.dilationY, p.padY, p.padH);
    p.dstW = axis(p.srcW, p.kernelX, p.strideX, p.dilationX, p.padX, p.padW);
    if (in.OneIn(32)) p.dstH = p.dstH + in.Range(0, 2) - 1;
    if (in.OneIn(32)) p.dstW = p.dstW + in.Range(0, 2) - 1;
}

// Channels and groups: one group, depthwise, a divisor of srcC, or any value (maybe invalid).
void DecodeChannels(Input& in, SimdConvolutionParameters& p) {
    p.srcC = Dim(in, 24);
    const uint8_t mode = in.Byte() % 8;
    if (mode < 4) {
        p.group = 1;
        p.dstC = Dim(in, 24);
    } else if (mode < 6) {
        p.group = p.srcC;
        p.dstC = p.srcC * (in.OneIn(4) ? 2 : 1);
    } else if (mode == 6 && p.srcC) {
        size_t g = in.Range(1, p.srcC);
        while (p.srcC % g) --g;
        p.group = g;
        p.dstC = g * Dim(in, 4);
    } else {
        p.group = in.Range(0, 8);
        p.dstC = Dim(in, 24);
    }
}

SimdConvolutionParameters DecodeLayer(Input& in, bool deconv, bool bf16) {
    SimdConvolutionParameters p;
    std::memset(&p, 0, sizeof(p));
    p.srcF = Format(in);
    p.dstF = in.OneIn(64) ? Format(in) : p.srcF;
    p.srcT = Type(in, bf16);
    p.dstT = bf16 ? Type(in, bf16) : (in.OneIn(64) ? Type(in, false) : SimdTensorData32f);
    DecodeChannels(in, p);
    p.srcH = Dim(in, deconv ? 10 : 20);
    p.srcW = Dim(in, deconv ? 10 : 20);
    DecodeWindow(in, p);
    SetOutputSize(in, p, deconv);
    p.activation = Activation(in);
    return p;
}

void DescribeLayer(const char* name, size_t batch, const SimdConvolutionParameters& p,
                   const char* extra = "") {
    Describe(
        "%s batch=%zu src=%zux%zux%zu T%d F%d dst=%zux%zux%zu T%d F%d k=%zux%zu s=%zux%zu "
        "d=%zux%zu pads=%zu,%zu,%zu,%zu group=%zu act=%d%s",
        name, batch, p.srcC, p.srcH, p.srcW, int(p.srcT), int(p.srcF), p.dstC, p.dstH, p.dstW,
        int(p.dstT), int(p.dstF), p.kernelY, p.kernelX, p.strideY, p.strideX, p.dilationY,
        p.dilationX, p.padY, p.padX, p.padH, p.padW, p.group, int(p.activation), extra);
}

size_t Macs(size_t batch, const SimdConvolutionParameters& p, bool deconv) {
    const size_t perGroup = p.group ? (deconv ? p.dstC : p.srcC) / p.group : 0;
    const size_t pixels = deconv ? Mul(p.srcH, p.srcW) : Mul(p.dstH, p.dstW);
    return Mul(Mul(batch, deconv ? p.srcC : p.dstC, pixels), Mul(p.kernelY, p.kernelX, perGroup));
}

bool TooLarge(size_t batch, const SimdConvolutionParameters& p, bool deconv) {
    return Macs(batch, p, deconv) > kMaxMacs || Mul(batch, p.srcC, p.srcH, p.srcW) > kMaxElements ||
           Mul(batch, p.dstC, p.dstH, p.dstW) > kMaxElements;
}

// The entry points of one framework, so that Convolution32f and Deconvolution32f share a driver.
struct Framework32f {
    const char* name;
    void* (*init)(size_t, const SimdConvolutionParameters*, SimdGemm32fNNPtr);
    size_t (*external)(const void*);
    size_t (*internal)(const void*);
    void (*setParams)(void*, const float*, SimdBool*, const float*, const float*);
    void (*forward)(void*, const float*, float*, float*);
    const char* (*info)(const void*);
    bool deconv;
};

// Checks of a context's queries right after a successful Init.
void CheckQueries(const void* context, size_t external, bool floats, const char* info) {
    ExpectAccepted();
    if (floats && external == 0) Fail("ExternalBufferSize is 0 (at least 1 is documented)");
    if (info == nullptr || info[0] == '\0') Fail("Info is NULL or empty");
    (void)context;
}

// Runs Forward twice (buf NULL on one thread, then an exact external buffer on `threads`
// threads) and compares the outputs byte for byte. `forward` takes (src, buf, dst).
template <class F>
void ForwardTwice(F&& forward, const void* src, size_t dstBytes, size_t bufBytes, size_t threads) {
    Buffer<uint8_t> first(dstBytes), second(dstBytes), buf(bufBytes);
    FillPattern(first.data(), first.Bytes());
    SimdSetThreadNumber(1);
    forward(src, nullptr, first.data());
    ExpectAccepted();
    FillPattern(second.data(), second.Bytes());
    SimdSetThreadNumber(threads);
    forward(src, buf.data(), second.data());
    SimdSetThreadNumber(1);
    ExpectAccepted();
    if (std::memcmp(first.data(), second.data(), dstBytes) != 0)
        Fail("Forward with an external buffer on %zu threads differs from buf NULL", threads);
}

void FuzzFramework32f(Input& in, const Framework32f& fw) {
    const size_t batch = in.OneIn(64) ? 0 : in.Range(1, 3);
    const SimdConvolutionParameters p = DecodeLayer(in, fw.deconv, false);
    if (TooLarge(batch, p, fw.deconv)) return;
    const bool withGemm = in.OneIn(4);
    DescribeLayer(fw.name, batch, p, withGemm ? " gemm=SimdGemm32fNN" : "");
    void* context = fw.init(batch, &p, withGemm ? SimdGemm32fNN : nullptr);
    if (context == nullptr) {
        ExpectRejected({});
        return;
    }
    CheckQueries(context, fw.external(context), true, fw.info(context));
    fw.internal(context);
    const size_t srcSize = batch * p.srcC * p.srcH * p.srcW;
    const size_t dstSize = batch * p.dstC * p.dstH * p.dstW;
    const size_t weightSize = p.kernelY * p.kernelX *
                              (fw.deconv ? p.srcC * (p.dstC / p.group) : p.srcC / p.group * p.dstC);
    Buffer<float> src(srcSize), weight(weightSize), bias(p.dstC);
    Buffer<float> params(Simd::ConvolutionActivationParams(p.activation, p.dstC));
    const uint32_t seed = in.Seed();
    const bool special = in.OneIn(8);
    FillFloats(src.data(), src.size(), seed, special);
    FillFloats(weight.data(), weight.size(), seed + 1, special);
    FillFloats(bias.data(), bias.size(), seed + 2, false);
    FillParams(params, p.activation, seed + 3);
    const bool noWeight = in.OneIn(32), noParams = in.OneIn(16), noBias = in.Flag();
    Buffer<float> dst(dstSize);
    FillPattern(dst.data(), dst.Bytes());
    if (in.OneIn(16)) {  // Forward before SetParams
        fw.forward(context, src.data(), nullptr, dst.data());
        ExpectRejected({{dst.data(), dst.Bytes()}});
    }
    SimdBool internal = SimdFalse;
    fw.setParams(context, noWeight ? nullptr : weight.data(), in.Flag() ? &internal : nullptr,
                 noBias ? nullptr : bias.data(),
                 noParams || params.size() == 0 ? nullptr : params.data());
    if (Rejected({})) {
        if (!noWeight && !(noParams && params.size())) Fail("SetParams rejected valid arguments");
        fw.forward(context, src.data(), nullptr, dst.data());
        ExpectRejected({{dst.data(), dst.Bytes()}});
    } else {
        if (noWeight) Fail("SetParams accepted a NULL weight");
        if (in.OneIn(16)) {
            fw.forward(context, nullptr, nullptr, dst.data());
            ExpectRejected({{dst.data(), dst.Bytes()}});
        }
        ForwardTwice(
            [&](const void* s, void* b, void* d) {
                fw.forward(context, static_cast<const float*>(s), static_cast<float*>(b),
                           static_cast<float*>(d));
            },
            src.data(), dst.Bytes(), fw.external(context) * sizeof(float), in.Range(1, 3));
        if (!fw.deconv && in.Flag()) {  // with a residual (SimdSynetConvolution32fForwardAdd)
            Buffer<float> add(dstSize);
            FillFloats(add.data(), add.size(), seed + 4, special);
            ForwardTwice(
                [&](const void* s, void* b, void* d) {
                    SimdSynetConvolution32fForwardAdd(context, static_cast<const float*>(s),
                                                      static_cast<float*>(b), add.data(),
                                                      static_cast<float*>(d));
                },
                src.data(), dst.Bytes(), fw.external(context) * sizeof(float), in.Range(1, 3));
            if (in.OneIn(8)) {  // the residual over the output
                SimdSynetConvolution32fForwardAdd(context, src.data(), nullptr, dst.data(),
                                                  dst.data());
                ExpectRejected({{dst.data(), dst.Bytes()}});
            }
        }
    }
    SimdRelease(context);
}

}  // namespace

void FuzzConvolution(Input& in) {
    const Framework32f fw = {"SimdSynetConvolution32f",
                             SimdSynetConvolution32fInit,
                             SimdSynetConvolution32fExternalBufferSize,
                             SimdSynetConvolution32fInternalBufferSize,
                             SimdSynetConvolution32fSetParams,
                             SimdSynetConvolution32fForward,
                             SimdSynetConvolution32fInfo,
                             false};
    FuzzFramework32f(in, fw);
}

void FuzzDeconvolution32f(Input& in) {
    const Framework32f fw = {"SimdSynetDeconvolution32f",
                             SimdSynetDeconvolution32fInit,
                             SimdSynetDeconvolution32fExternalBufferSize,
                             SimdSynetDeconvolution32fInternalBufferSize,
                             SimdSynetDeconvolution32fSetParams,
                             SimdSynetDeconvolution32fForward,
                             SimdSynetDeconvolution32fInfo,
                             true};
    FuzzFramework32f(in, fw);
}

void FuzzDeconvolution16b(Input& in) {
    const size_t batch = in.OneIn(64) ? 0 : in.Range(1, 3);
    const SimdConvolutionParameters p = DecodeLayer(in, true, true);
    if (TooLarge(batch, p, true)) return;
    const auto compatibility = SimdSynetCompatibilityType(in.Byte() % 64);
    DescribeLayer("SimdSynetDeconvolution16b", batch, p, "");
    void* context = SimdSynetDeconvolution16bInit(batch, &p, compatibility);
    if (context == nullptr) {
        ExpectRejected({});
        return;
    }
    CheckQueries(context, SimdSynetDeconvolution16bExternalBufferSize(context), false,
                 SimdSynetDeconvolution16bInfo(context));
    SimdSynetDeconvolution16bInternalBufferSize(context);
    const size_t srcElem = p.srcT == SimdTensorData16b ? 2 : 4;
    const size_t dstElem = p.dstT == SimdTensorData16b ? 2 : 4;
    Buffer<uint8_t> src(batch * p.srcC * p.srcH * p.srcW * srcElem);
    Buffer<float> weight(p.srcC * (p.dstC / p.group) * p.kernelY * p.kernelX), bias(p.dstC);
    Buffer<float> params(Simd::ConvolutionActivationParams(p.activation, p.dstC));
    const uint32_t seed = in.Seed();
    const bool special = in.OneIn(8);
    if (srcElem == 2)
        FillBf16(reinterpret_cast<uint16_t*>(src.data()), src.size() / 2, seed, special);
    else
        FillFloats(reinterpret_cast<float*>(src.data()), src.size() / 4, seed, special);
    FillFloats(weight.data(), weight.size(), seed + 1, special);
    FillFloats(bias.data(), bias.size(), seed + 2, false);
    FillParams(params, p.activation, seed + 3);
    const bool noWeight = in.OneIn(32), noParams = in.OneIn(16);
    const size_t dstBytes = batch * p.dstC * p.dstH * p.dstW * dstElem;
    SimdSynetDeconvolution16bSetParams(context, noWeight ? nullptr : weight.data(),
                                       in.Flag() ? nullptr : bias.data(),
                                       noParams || params.size() == 0 ? nullptr : params.data());
    if (Rejected({})) {
        if (!noWeight && !(noParams && params.size())) Fail("SetParams rejected valid arguments");
        Buffer<uint8_t> dst(dstBytes);
        FillPattern(dst.data(), dst.Bytes());
        SimdSynetDeconvolution16bForward(context, src.data(), nullptr, dst.data());
        ExpectRejected({{dst.data(), dst.Bytes()}});
    } else {
        if (noWeight) Fail("SetParams accepted a NULL weight");
        ForwardTwice(
            [&](const void* s, void* b, void* d) {
                SimdSynetDeconvolution16bForward(context, static_cast<const uint8_t*>(s),
                                                 static_cast<uint8_t*>(b),
                                                 static_cast<uint8_t*>(d));
            },
            src.data(), dstBytes, SimdSynetDeconvolution16bExternalBufferSize(context),
            in.Range(1, 3));
    }
    SimdRelease(context);
}

namespace {

// One stage of a merged chain: expand P (group 1, kernel 1 or 3), depthwise D (kernel 3, 5 or
// 7) or projection Q (1x1, stride 1), with rare deviations (any kernel, stride, group).
SimdConvolutionParameters DecodeStage(Input& in, char role, size_t srcC, size_t srcH, size_t srcW,
                                      size_t stride) {
    SimdConvolutionParameters p;
    std::memset(&p, 0, sizeof(p));
    p.srcT = p.dstT = SimdTensorData32f;
    p.srcF = p.dstF = SimdTensorFormatNhwc;
    if (in.OneIn(64)) p.srcF = p.dstF = Format(in);
    if (in.OneIn(64)) p.srcT = Type(in, false);
    p.srcC = srcC;
    p.srcH = srcH;
    p.srcW = srcW;
    p.dilationY = p.dilationX = in.OneIn(64) ? 2 : 1;
    if (role == 'P') {
        p.group = 1;
        p.dstC = Dim(in, 32);
        p.kernelY = in.Flag() ? 1 : 3;
        p.strideY = in.OneIn(4) ? stride : 1;
    } else if (role == 'D') {
        p.group = p.dstC = srcC;
        p.kernelY = 3 + 2 * in.Range(0, 2);
        p.strideY = stride;
    } else {
        p.group = 1;
        p.dstC = Dim(in, 32);
        p.kernelY = 1;
        p.strideY = 1;
    }
    if (in.OneIn(32)) p.kernelY = in.Range(0, 7);
    if (in.OneIn(32)) p.strideY = in.Range(0, 4);
    if (in.OneIn(32)) p.group = in.Range(0, 4);
    p.kernelX = in.OneIn(32) ? in.Range(0, 7) : p.kernelY;
    p.strideX = in.OneIn(32) ? in.Range(0, 4) : p.strideY;
    const size_t pad = p.kernelY / 2;
    p.padY = in.OneIn(8) ? in.Range(0, 3) : pad;
    p.padX = in.OneIn(8) ? in.Range(0, 3) : pad;
    p.padH = in.OneIn(8) ? in.Range(0, 3) : pad;
    p.padW = in.OneIn(8) ? in.Range(0, 3) : pad;
    SetOutputSize(in, p, false);
    p.activation = Activation(in);
    return p;
}

}  // namespace

void FuzzMergedConvolution(Input& in) {
    const size_t batch = in.OneIn(64) ? 0 : in.Range(1, 2);
    const size_t count = in.OneIn(32) ? in.Range(0, 4) : in.Range(2, 3);
    const char* roles = count == 2 ? (in.Flag() ? "PD" : "DQ") : count == 3 ? "PDQ" : "PDQP";
    const SimdBool add = SimdBool(in.Byte() % 2);
    const size_t stride = in.Range(1, 3);
    SimdConvolutionParameters convs[4];
    size_t c = Dim(in, 24), h = Dim(in, 16), w = Dim(in, 16);
    size_t macs = 0;
    std::string text;
    for (size_t i = 0; i < count; ++i) {
        convs[i] = DecodeStage(in, roles[i], c, h, w, stride);
        SimdConvolutionParameters& p = convs[i];
        if (roles[i] == 'Q' && add && in.Flag()) p.dstC = convs[0].srcC;
        if (in.OneIn(64)) p.srcC = Dim(in, 24);  // broken chain
        macs += Macs(batch, p, false);
        if (TooLarge(batch, p, false) || macs > kMaxMacs) return;
        c = p.dstC;
        h = p.dstH;
        w = p.dstW;
        char stage[320];
        std::snprintf(stage, sizeof(stage),
                      " [%zu] %zux%zux%zu T%d F%d -> %zux%zux%zu k=%zux%zu s=%zux%zu d=%zu "
                      "pads=%zu,%zu,%zu,%zu group=%zu act=%d",
                      i, p.srcC, p.srcH, p.srcW, int(p.srcT), int(p.srcF), p.dstC, p.dstH, p.dstW,
                      p.kernelY, p.kernelX, p.strideY, p.strideX, p.dilationY, p.padY, p.padX,
                      p.padH, p.padW, p.group, int(p.activation));
        text += stage;
    }
    Describe("SimdSynetMergedConvolution32f batch=%zu count=%zu add=%d%s", batch, count, int(add),
             text.c_str());
    void* context = SimdSynetMergedConvolution32fInit(batch, count ? convs : nullptr, count, add);
    if (context == nullptr) {
        ExpectRejected({});
        return;
    }
    CheckQueries(context, SimdSynetMergedConvolution32fExternalBufferSize(context), true,
                 SimdSynetMergedConvolution32fInfo(context));
    SimdSynetMergedConvolution32fInternalBufferSize(context);
    const SimdConvolutionParameters &first = convs[0], &last = convs[count - 1];
    Buffer<float> src(batch * first.srcC * first.srcH * first.srcW);
    const uint32_t seed = in.Seed();
    const bool special = in.OneIn(8);
    FillFloats(src.data(), src.size(), seed, special);
    std::vector<Buffer<float>*> owned;
    const float* weight[3] = {};
    const float* bias[3] = {};
    const float* params[3] = {};
    bool missingParams = false;
    for (size_t i = 0; i < count; ++i) {
        const SimdConvolutionParameters& p = convs[i];
        auto* wt = new Buffer<float>(p.kernelY * p.kernelX * p.srcC / p.group * p.dstC);
        auto* bs = new Buffer<float>(p.dstC);
        auto* pr = new Buffer<float>(Simd::ConvolutionActivationParams(p.activation, p.dstC));
        owned.insert(owned.end(), {wt, bs, pr});
        FillFloats(wt->data(), wt->size(), seed + 1 + uint32_t(i), special);
        FillFloats(bs->data(), bs->size(), seed + 4 + uint32_t(i), false);
        FillParams(*pr, p.activation, seed + 7 + uint32_t(i));
        weight[i] = wt->data();
        bias[i] = in.Flag() ? nullptr : bs->data();
        const bool noParams = in.OneIn(16);
        params[i] = noParams || pr->size() == 0 ? nullptr : pr->data();
        missingParams |= noParams && pr->size() != 0;
    }
    const bool allBiasNull = in.Flag(), allParamsNull = in.OneIn(8);
    for (size_t i = 0; i < count; ++i) missingParams |= allParamsNull && owned[3 * i + 2]->size();
    SimdBool internal[3] = {};
    SimdSynetMergedConvolution32fSetParams(context, weight, in.Flag() ? internal : nullptr,
                                           allBiasNull ? nullptr : bias,
                                           allParamsNull ? nullptr : params);
    const size_t dstBytes = batch * last.dstC * last.dstH * last.dstW * sizeof(float);
    if (Rejected({})) {
        if (!missingParams) Fail("SetParams rejected valid arguments");
        Buffer<uint8_t> dst(dstBytes);
        FillPattern(dst.data(), dst.Bytes());
        SimdSynetMergedConvolution32fForward(context, src.data(), nullptr,
                                             reinterpret_cast<float*>(dst.data()));
        ExpectRejected({{dst.data(), dst.Bytes()}});
    } else {
        if (missingParams) Fail("SetParams accepted NULL params of an activation that reads them");
        ForwardTwice(
            [&](const void* s, void* b, void* d) {
                SimdSynetMergedConvolution32fForward(context, static_cast<const float*>(s),
                                                     static_cast<float*>(b),
                                                     static_cast<float*>(d));
            },
            src.data(), dstBytes,
            SimdSynetMergedConvolution32fExternalBufferSize(context) * sizeof(float),
            in.Range(1, 3));
    }
    for (Buffer<float>* b : owned) delete b;
    SimdRelease(context);
}

}  // namespace fuzz
