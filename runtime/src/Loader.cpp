// Loading a network file: the FlatBuffers verifier checks the container (every offset and
// vector inside the buffer, strings terminated, tables within the depth limit), then each step's
// values are checked here against what its step reads and writes: every array reference inside
// the arena or its constant, sizes without overflow, enumerators in range, indices inside their
// images. Only then is the step built (its library context created on this CPU).
#include "Loader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "SimdSynet.hpp"
#include "SimdSynetNetwork_generated.h"
#include "SimdSynetRuntime.h"
#include "Steps.h"

namespace simdsynet_executor {

namespace file = SimdSynetFile;

namespace {

template <class T>
using Vec = flatbuffers::Vector<T>;

// Checks the values of one step, naming it in every error.
class StepChecker {
public:
    StepChecker(std::string where, size_t arenaFloats, const std::vector<size_t>& constantFloats)
        : where_(std::move(where)), arena_(arenaFloats), constants_(constantFloats) {}

    size_t Arena() const { return arena_; }
    [[noreturn]] void Fail(const std::string& what) const {
        throw ExecutorError(where_ + ": " + what);
    }
    void Require(bool condition, const char* what) const {
        if (!condition) Fail(what);
    }

    // a*b, refused on size_t overflow.
    size_t Mul(size_t a, size_t b) const {
        if (b != 0 && a > std::numeric_limits<size_t>::max() / b) Fail("a size overflows");
        return a * b;
    }
    // The size of an array of `values` extents. An empty array is not bounded by the arena, but
    // the steps still loop over its other extents (images, rows): those must stay within the
    // arena, or a hostile file of zero channels and 2^56 images keeps a run busy for ever.
    size_t Mul(std::initializer_list<size_t> values) const {
        size_t p = 1;
        for (size_t v : values) p = Mul(p, v);
        if (p == 0)
            for (size_t v : values) Empty(v);
        return p;
    }
    void Empty(size_t extent) const {
        if (extent > std::max<size_t>(arena_, 1))
            Fail("an empty array has an extent of " + std::to_string(extent) +
                 ", more than the arena");
    }
    size_t Add(size_t a, size_t b) const {
        if (a > std::numeric_limits<size_t>::max() - b) Fail("a size overflows");
        return a + b;
    }
    size_t Product(const Vec<uint64_t>* v) const {
        size_t p = 1;
        for (uint64_t e : Vector(v, "a shape")) p = Mul(p, Size(e));
        if (p == 0)
            for (uint64_t e : *v) Empty(Size(e));
        return p;
    }
    size_t Size(uint64_t v) const {
        if (v > std::numeric_limits<size_t>::max()) Fail("a size overflows");
        return size_t(v);
    }
    // Floats a run of `rows` rows of `length` floats, rows `stride` apart, spans.
    size_t Span(size_t rows, size_t length, size_t stride) const {
        if (length == 0) Empty(rows);
        return rows == 0 ? 0 : Add(Mul(rows - 1, stride), length);
    }

    // The reference `r` (NULL: absent) to an array of `floats` floats; `required` refuses an
    // absent one, `written` one into a constant.
    Ref Take(const file::Ref* r, size_t floats, const char* field, bool required = true,
             bool written = false) const {
        if (r == nullptr || r->kind() == file::RefKind::None) {
            if (required) Fail(std::string(field) + " is missing");
            return Ref();
        }
        const uint64_t index = r->index();
        switch (r->kind()) {
            case file::RefKind::Arena:
                if (index > arena_ || floats > arena_ - index)
                    Fail(std::string(field) + " (" + std::to_string(floats) +
                         " floats at arena offset " + std::to_string(index) +
                         ") lies outside the arena of " + std::to_string(arena_) + " floats");
                return Ref::InArena(size_t(index));
            case file::RefKind::Constant:
                if (written) Fail(std::string(field) + " is written and cannot be a constant");
                if (index >= constants_.size())
                    Fail(std::string(field) + " refers to constant " + std::to_string(index) +
                         " of " + std::to_string(constants_.size()));
                if (constants_[index] < floats)
                    Fail(std::string(field) + " needs " + std::to_string(floats) +
                         " floats; constant " + std::to_string(index) + " has " +
                         std::to_string(constants_[index]));
                return {Ref::Constant, size_t(index)};
            default:
                Fail(std::string(field) + " has an unknown reference kind");
        }
    }
    Ref Written(const file::Ref* r, size_t floats, const char* field, bool required = true) const {
        return Take(r, floats, field, required, true);
    }
    // Glue that copies with memcpy, and the library functions whose documentation says so,
    // read `src` while they write `dst`: overlapping arrays are undefined there (the fuzzer
    // found memcpy-param-overlap in both), and a plan never has them (steps other than
    // element-wise ones get an output buffer of their own).
    void Disjoint(const Ref& src, size_t srcFloats, const Ref& dst, size_t dstFloats) const {
        if (src.kind != Ref::Arena || dst.kind != Ref::Arena || srcFloats == 0 || dstFloats == 0)
            return;
        if (src.index < dst.index + dstFloats && dst.index < src.index + srcFloats)
            Fail("src and dst overlap in the arena");
    }

    // The verifier checks a vector's length field for 4-byte alignment only: a hostile file can
    // place vectors of 8-byte elements (ulong, Ref, ConvolutionDesc, CopyRegion) where each read
    // of them would be misaligned, so their start is checked here (the buffer itself is
    // aligned: mapped, or copied to 64 bytes).
    template <class T>
    const Vec<T>& Vector(const Vec<T>* v, const char* field) const {
        if (v == nullptr) Fail(std::string(field) + " is missing");
        using Element = std::remove_cv_t<std::remove_pointer_t<T>>;
        // (An empty vector is never read; the C++ builder does not align those.)
        if (v->size() != 0 && reinterpret_cast<uintptr_t>(v->Data()) % alignof(Element) != 0)
            Fail(std::string(field) + " is misaligned in the file");
        return *v;
    }
    std::vector<size_t> Sizes(const Vec<uint64_t>* v, const char* field) const {
        std::vector<size_t> out;
        for (uint64_t e : Vector(v, field)) out.push_back(Size(e));
        return out;
    }
    std::vector<float> Floats(const Vec<float>* v, const char* field, size_t count) const {
        if (v == nullptr && count == 0) return {};
        const Vec<float>& f = Vector(v, field);
        if (f.size() != count)
            Fail(std::string(field) + " needs " + std::to_string(count) + " values, not " +
                 std::to_string(f.size()));
        return std::vector<float>(f.begin(), f.end());
    }

private:
    std::string where_;
    size_t arena_;
    const std::vector<size_t>& constants_;
};

SimdTensorFormatType Format(const StepChecker& c, file::TensorFormat f) {
    if (f == file::TensorFormat::Nchw) return SimdTensorFormatNchw;
    if (f == file::TensorFormat::Nhwc) return SimdTensorFormatNhwc;
    c.Fail("unknown tensor format");
}

SimdTensorDataType DataType(const StepChecker& c, file::TensorType t) {
    if (t == file::TensorType::Float32) return SimdTensorData32f;
    if (t == file::TensorType::Uint8) return SimdTensorData8u;
    c.Fail("unknown tensor type");
}

SimdConvolutionParameters Describe(const StepChecker& c, const file::ConvolutionDesc* d) {
    if (d == nullptr) c.Fail("the layer description is missing");
    SimdConvolutionParameters p{};
    p.srcC = c.Size(d->src_c());
    p.srcH = c.Size(d->src_h());
    p.srcW = c.Size(d->src_w());
    p.dstC = c.Size(d->dst_c());
    p.dstH = c.Size(d->dst_h());
    p.dstW = c.Size(d->dst_w());
    p.kernelY = c.Size(d->kernel_y());
    p.kernelX = c.Size(d->kernel_x());
    p.strideY = c.Size(d->stride_y());
    p.strideX = c.Size(d->stride_x());
    p.dilationY = c.Size(d->dilation_y());
    p.dilationX = c.Size(d->dilation_x());
    p.padY = c.Size(d->pad_y());
    p.padX = c.Size(d->pad_x());
    p.padH = c.Size(d->pad_h());
    p.padW = c.Size(d->pad_w());
    p.group = c.Size(d->group());
    if (d->activation() < SimdConvolutionActivationIdentity ||
        d->activation() > SimdConvolutionActivationGelu)
        c.Fail("unknown activation " + std::to_string(d->activation()));
    p.activation = SimdConvolutionActivationType(d->activation());
    p.srcF = p.dstF = Format(c, d->format());
    p.srcT = DataType(c, d->src_type());
    p.dstT = DataType(c, d->dst_type());
    c.Require(p.group != 0 && p.srcC % p.group == 0 && p.dstC % p.group == 0,
              "the group does not divide the channels");
    return p;
}

// Floats of a tensor of `values` values of `type` in the arena (uint8 tensors take bytes from
// their float offset on).
size_t TensorFloats(const StepChecker& c, size_t values, SimdTensorDataType type) {
    (void)c;
    return type == SimdTensorData8u ? (values + sizeof(float) - 1) / sizeof(float) : values;
}

size_t SrcFloats(const StepChecker& c, size_t batch, const SimdConvolutionParameters& p) {
    return TensorFloats(c, c.Mul({batch, p.srcC, p.srcH, p.srcW}), p.srcT);
}

size_t DstFloats(const StepChecker& c, size_t batch, const SimdConvolutionParameters& p) {
    return TensorFloats(c, c.Mul({batch, p.dstC, p.dstH, p.dstW}), p.dstT);
}

// The floats of `params` the activation reads.
size_t ActivationParams(const SimdConvolutionParameters& p) {
    return Simd::ConvolutionActivationParams(p.activation, p.dstC);
}

// The constant data of a reference that must be a constant (weights converted at load).
const float* ConstantData(const StepChecker& c, const Ref& ref, const std::vector<Floats>& data,
                          const char* field) {
    if (ref.kind != Ref::Constant) c.Fail(std::string(field) + " must be a constant");
    return data[ref.index].data();
}

// Convolution weights in ONNX's order (O x I/group x kY x kX), in the layout the context of `p`
// reads: that order for NCHW, YXIO for NHWC.
const float* ConvolutionWeights(const StepChecker& c, const SimdConvolutionParameters& p,
                                const float* oiyx, std::vector<float>& converted) {
    if (p.srcF != SimdTensorFormatNhwc) return oiyx;
    const size_t kernel = p.kernelY * p.kernelX, input = p.srcC / p.group;
    converted.resize(c.Mul({p.dstC, input, kernel}));
    SimdSynetConvertFilter(p.dstC, input, kernel, oiyx, SimdTensorFormatOiyx, converted.data(),
                           SimdTensorFormatYxio);
    CheckLibrary("weights");
    return converted.data();
}

size_t WeightFloats(const StepChecker& c, const SimdConvolutionParameters& p) {
    return c.Mul({p.dstC, p.srcC / p.group, p.kernelY, p.kernelX});
}

PoolingShape Pooling(const StepChecker& c, const file::PoolingShape* s) {
    if (s == nullptr) c.Fail("the pooling shape is missing");
    PoolingShape p{c.Size(s->batch()),    c.Size(s->channels()), c.Size(s->src_h()),
                   c.Size(s->src_w()),    c.Size(s->kernel_y()), c.Size(s->kernel_x()),
                   c.Size(s->stride_y()), c.Size(s->stride_x()), c.Size(s->pad_y()),
                   c.Size(s->pad_x()),    c.Size(s->dst_h()),    c.Size(s->dst_w())};
    c.Require(p.kernelY && p.kernelX && p.strideY && p.strideX, "a zero kernel or stride");
    return p;
}

// Parameters of each executor activation (Steps.h).
size_t StepActivationParams(Activation kind) {
    switch (kind) {
        case Activation::Relu:
        case Activation::Elu:
        case Activation::Sigmoid:
        case Activation::Tanh:
        case Activation::Pow:
            return 1;
        case Activation::RestrictRange:
        case Activation::Hswish:
        case Activation::Selu:
        case Activation::HardSigmoid:
        case Activation::Softplus:
            return 2;
        default:
            return 0;
    }
}

Activation StepActivation(const StepChecker& c, file::ActivationKind kind) {
    if (kind > file::ActivationKind::MAX) c.Fail("unknown activation");
    return Activation(int(kind));
}

// Checks that a dilated window always holds a tap inside the image along one axis. Each window
// is checked in constant time: a hostile file's kernel and padding may be 2^60 taps wide.
void CheckDilatedAxis(const StepChecker& c, size_t src, size_t dst, size_t kernel, size_t stride,
                      size_t pad, size_t dilation) {
    c.Require(dilation != 0, "a zero dilation");
    c.Require(kernel != 0, "a zero kernel or stride");
    for (size_t o = 0; o < dst; ++o) {
        // Tap k is at o*stride + k*dilation - pad; the first at or after the image's start:
        const size_t start = c.Mul(o, stride);
        const size_t k =
            start >= pad ? 0 : (pad - start) / dilation + ((pad - start) % dilation != 0);
        const bool inside = k < kernel && c.Add(start, c.Mul(k, dilation)) - pad < src;
        if (!inside) c.Fail("a pooling window holds no pixel of the image");
    }
}

void CheckIndices(const StepChecker& c, const std::vector<size_t>& v, size_t bound,
                  const char* what) {
    for (size_t i : v)
        if (i >= bound) c.Fail(std::string(what) + " is outside the image");
}

LinearTaps Taps(const StepChecker& c, const file::LinearTaps* t, size_t bound, const char* what) {
    if (t == nullptr) c.Fail(std::string(what) + " are missing");
    LinearTaps taps{c.Sizes(t->first(), what), c.Sizes(t->second(), what), {}, {}};
    const size_t n = taps.first.size();
    taps.firstWeight = c.Floats(t->first_weight(), what, n);
    taps.secondWeight = c.Floats(t->second_weight(), what, n);
    c.Require(taps.second.size() == n, "linear taps of different lengths");
    CheckIndices(c, taps.first, bound, what);
    CheckIndices(c, taps.second, bound, what);
    return taps;
}

bool IsPermutation(std::vector<size_t> perm) {
    std::sort(perm.begin(), perm.end());
    for (size_t i = 0; i < perm.size(); ++i)
        if (perm[i] != i) return false;
    return true;
}

// Builds one step from its table.
class StepBuilder {
public:
    StepBuilder(const StepChecker& c, const std::string& name, const std::vector<Floats>& data)
        : c_(c), name_(name), data_(data) {}

    StepPtr Build(const file::Step& step) {
        // The verifier accepts a union whose type is set and whose table is absent; every
        // layer_as_*() below would then be NULL.
        if (step.layer() == nullptr && step.layer_type() != file::Layer::NONE &&
            step.layer_type() <= file::Layer::MAX)
            c_.Fail("the layer table is missing");
        switch (step.layer_type()) {
            case file::Layer::Convolution:
                return Convolution(*step.layer_as_Convolution());
            case file::Layer::Convolution8i:
                return Convolution8i(*step.layer_as_Convolution8i());
            case file::Layer::MergedConvolution:
                return Merged(*step.layer_as_MergedConvolution());
            case file::Layer::Deconvolution:
                return Deconvolution(*step.layer_as_Deconvolution());
            case file::Layer::Pooling:
                return PoolingStep(*step.layer_as_Pooling());
            case file::Layer::DilatedMaxPooling:
                return DilatedPooling(*step.layer_as_DilatedMaxPooling());
            case file::Layer::Scale:
                return Scale(*step.layer_as_Scale());
            case file::Layer::ConcatScaleRelu:
                return ConcatScaleRelu(*step.layer_as_ConcatScaleRelu());
            case file::Layer::Activation:
                return ActivationStep(*step.layer_as_Activation());
            case file::Layer::Eltwise:
                return Eltwise(*step.layer_as_Eltwise());
            case file::Layer::Prelu:
                return Prelu(*step.layer_as_Prelu());
            case file::Layer::Softmax:
                return Softmax(*step.layer_as_Softmax());
            case file::Layer::Reduce:
                return Reduce(*step.layer_as_Reduce());
            case file::Layer::Tile:
                return Tile(*step.layer_as_Tile());
            case file::Layer::Lrn:
                return Lrn(*step.layer_as_Lrn());
            case file::Layer::Normalize:
                return Normalize(*step.layer_as_Normalize());
            case file::Layer::InnerProduct:
                return InnerProduct(*step.layer_as_InnerProduct());
            case file::Layer::MatMul:
                return MatMul(*step.layer_as_MatMul());
            case file::Layer::Shuffle:
                return Shuffle(*step.layer_as_Shuffle());
            case file::Layer::ConvertImage:
                return ConvertImage(*step.layer_as_ConvertImage());
            case file::Layer::Copy:
                return Copy(*step.layer_as_Copy());
            case file::Layer::Transpose:
                return Transpose(*step.layer_as_Transpose());
            case file::Layer::Pad:
                return Pad(*step.layer_as_Pad());
            case file::Layer::ResizeNearest:
                return ResizeNearest(*step.layer_as_ResizeNearest());
            case file::Layer::ResizeLinear:
                return ResizeLinear(*step.layer_as_ResizeLinear());
            default:
                c_.Fail("unknown layer type " + std::to_string(int(step.layer_type())));
        }
    }

private:
    const StepChecker& c_;
    const std::string& name_;
    const std::vector<Floats>& data_;

    StepPtr Convolution(const file::Convolution& t) {
        const size_t batch = c_.Size(t.batch());
        const SimdConvolutionParameters p = Describe(c_, t.desc());
        c_.Require(p.srcT == SimdTensorData32f && p.dstT == SimdTensorData32f,
                   "an FP32 convolution has float tensors");
        const Ref weight = c_.Take(t.weight(), WeightFloats(c_, p), "weight");
        const Ref bias = c_.Take(t.bias(), p.dstC, "bias", false);
        const Ref params = c_.Take(t.params(), ActivationParams(p), "params", false);
        const Ref src = c_.Take(t.src(), SrcFloats(c_, batch, p), "src");
        const Ref dst = c_.Written(t.dst(), DstFloats(c_, batch, p), "dst");
        std::vector<float> converted;
        const float* w =
            ConvolutionWeights(c_, p, ConstantData(c_, weight, data_, "weight"), converted);
        return MakeConvolution(name_, batch, p, w, Optional(bias, "bias"), Params(params, p), src,
                               dst);
    }

    StepPtr Convolution8i(const file::Convolution8i& t) {
        const size_t batch = c_.Size(t.batch());
        const SimdConvolutionParameters p = Describe(c_, t.desc());
        const Ref weight = c_.Take(t.weight(), WeightFloats(c_, p), "weight");
        const Ref bias = c_.Take(t.bias(), p.dstC, "bias", false);
        const Ref params = c_.Take(t.params(), ActivationParams(p), "params", false);
        const Ref src = c_.Take(t.src(), SrcFloats(c_, batch, p), "src");
        const Ref dst = c_.Written(t.dst(), DstFloats(c_, batch, p), "dst");
        const auto& stats = c_.Vector(t.stats(), "stats");
        c_.Require(stats.size() == 4, "an INT8 convolution has 4 statistics arrays");
        const bool uint8Output = p.dstT == SimdTensorData8u;
        const float* s[4];
        for (size_t i = 0; i < 4; ++i) {
            const bool output = i >= 2;
            const Ref r = c_.Take(stats.Get(uint32_t(i)), output ? p.dstC : p.srcC, "stats",
                                  !output || uint8Output);
            s[i] = r.kind == Ref::None ? nullptr : ConstantData(c_, r, data_, "stats");
            if (s[i]) Quantizable(s[i], output ? p.dstC : p.srcC, "stats");
        }
        const int compatibility = t.compatibility();
        c_.Require(compatibility >= 0 && compatibility <= 0xFF, "unknown INT8 compatibility");
        Quantizable(ConstantData(c_, weight, data_, "weight"), WeightFloats(c_, p), "weight");
        std::vector<float> converted;
        const float* w =
            ConvolutionWeights(c_, p, ConstantData(c_, weight, data_, "weight"), converted);
        return MakeConvolution8i(name_, batch, p, w, Optional(bias, "bias"), Params(params, p), s,
                                 SimdSynetCompatibilityType(compatibility), src, dst);
    }

    StepPtr Merged(const file::MergedConvolution& t) {
        const size_t batch = c_.Size(t.batch());
        const auto& descs = c_.Vector(t.descs(), "descs");
        const auto& weights = c_.Vector(t.weights(), "weights");
        const auto& biases = c_.Vector(t.biases(), "biases");
        const auto& params = c_.Vector(t.params(), "params");
        const size_t n = descs.size();
        c_.Require(n == 2 || n == 3, "a merged convolution has 2 or 3 stages");
        c_.Require(weights.size() == n && biases.size() == n && params.size() == n,
                   "one weight, bias and params entry per stage");
        std::vector<SimdConvolutionParameters> p;
        std::vector<const float*> w, b, a;
        std::vector<std::vector<float>> converted(n);
        for (size_t i = 0; i < n; ++i) {
            p.push_back(Describe(c_, descs.Get(uint32_t(i))));
            c_.Require(p[i].srcF == SimdTensorFormatNhwc && p[i].srcT == SimdTensorData32f &&
                           p[i].dstT == SimdTensorData32f,
                       "merged stages are NHWC float");
            if (i > 0)
                c_.Require(p[i].srcC == p[i - 1].dstC && p[i].srcH == p[i - 1].dstH &&
                               p[i].srcW == p[i - 1].dstW,
                           "a stage does not read what the previous one writes");
            const Ref wr = c_.Take(weights.Get(uint32_t(i)), WeightFloats(c_, p[i]), "weight");
            const Ref br = c_.Take(biases.Get(uint32_t(i)), p[i].dstC, "bias", false);
            const Ref ar =
                c_.Take(params.Get(uint32_t(i)), ActivationParams(p[i]), "params", false);
            w.push_back(
                ConvolutionWeights(c_, p[i], ConstantData(c_, wr, data_, "weight"), converted[i]));
            b.push_back(Optional(br, "bias"));
            a.push_back(Params(ar, p[i]));
        }
        const Ref src = c_.Take(t.src(), SrcFloats(c_, batch, p.front()), "src");
        const Ref dst = c_.Written(t.dst(), DstFloats(c_, batch, p.back()), "dst");
        if (t.add())
            c_.Require(p.front().srcC == p.back().dstC && p.front().srcH == p.back().dstH &&
                           p.front().srcW == p.back().dstW,
                       "the residual add needs the input's shape at the output");
        return MakeMergedConvolution(name_, batch, p, w, b, a, t.add(), src, dst);
    }

    StepPtr Deconvolution(const file::Deconvolution& t) {
        const size_t batch = c_.Size(t.batch());
        const SimdConvolutionParameters p = Describe(c_, t.desc());
        c_.Require(p.srcT == SimdTensorData32f && p.dstT == SimdTensorData32f,
                   "a deconvolution has float tensors");
        const size_t weightFloats = c_.Mul({p.srcC, p.dstC / p.group, p.kernelY, p.kernelX});
        const Ref weight = c_.Take(t.weight(), weightFloats, "weight");
        const Ref bias = c_.Take(t.bias(), p.dstC, "bias", false);
        const Ref params = c_.Take(t.params(), ActivationParams(p), "params", false);
        const Ref src = c_.Take(t.src(), SrcFloats(c_, batch, p), "src");
        const Ref dst = c_.Written(t.dst(), DstFloats(c_, batch, p), "dst");
        return MakeDeconvolution(name_, batch, p, ConstantData(c_, weight, data_, "weight"),
                                 Optional(bias, "bias"), Params(params, p), src, dst);
    }

    StepPtr PoolingStep(const file::Pooling& t) {
        const PoolingShape s = Pooling(c_, t.shape());
        const Ref src = c_.Take(t.src(), c_.Mul({s.batch, s.channels, s.srcH, s.srcW}), "src");
        const Ref dst = c_.Written(t.dst(), c_.Mul({s.batch, s.channels, s.dstH, s.dstW}), "dst");
        c_.Disjoint(src, c_.Mul({s.batch, s.channels, s.srcH, s.srcW}), dst,
                    c_.Mul({s.batch, s.channels, s.dstH, s.dstW}));
        PoolingKind kind;
        switch (t.kind()) {
            case file::PoolingKind::Max:
                kind = PoolingKind::Max;
                break;
            case file::PoolingKind::Average:
                kind = PoolingKind::Average;
                break;
            case file::PoolingKind::AverageExcludePad:
                kind = PoolingKind::AverageExcludePad;
                break;
            default:
                c_.Fail("unknown pooling kind");
        }
        return MakePooling(name_, kind, s, src, dst);
    }

    StepPtr DilatedPooling(const file::DilatedMaxPooling& t) {
        const PoolingShape s = Pooling(c_, t.shape());
        const size_t dy = c_.Size(t.dilation_y()), dx = c_.Size(t.dilation_x());
        // The tensors first: inside the arena, they bound the windows checked below. The glue
        // walks every window even without channels, so an empty tensor bounds nothing.
        c_.Require(s.batch != 0 && s.channels != 0, "a dilated pooling of no images or channels");
        const Ref src = c_.Take(t.src(), c_.Mul({s.batch, s.channels, s.srcH, s.srcW}), "src");
        const Ref dst = c_.Written(t.dst(), c_.Mul({s.batch, s.channels, s.dstH, s.dstW}), "dst");
        c_.Disjoint(src, c_.Mul({s.batch, s.channels, s.srcH, s.srcW}), dst,
                    c_.Mul({s.batch, s.channels, s.dstH, s.dstW}));
        // The glue visits every tap of every window, inside the image or not: a kernel of 2^30
        // taps ran for ever (fuzzer). The walk is bounded by 64 taps per arena float, which any
        // plan's pooling (a few taps a window, an output of batch x channels x pixels floats
        // in the arena) keeps well within.
        if (c_.Mul({s.batch, s.dstH, s.dstW, s.kernelY, s.kernelX}) > c_.Mul(c_.Arena(), 64))
            c_.Fail("a dilated pooling walks more window taps than 64 per arena float");
        CheckDilatedAxis(c_, s.srcH, s.dstH, s.kernelY, s.strideY, s.padY, dy);
        CheckDilatedAxis(c_, s.srcW, s.dstW, s.kernelX, s.strideX, s.padX, dx);
        return MakeDilatedMaxPooling(name_, s, dy, dx, src, dst);
    }

    StepPtr Scale(const file::Scale& t) {
        ScaleShape s{c_.Size(t.channels()),
                     c_.Size(t.spatial()),
                     c_.Size(t.images()),
                     c_.Size(t.scale_stride()),
                     c_.Size(t.bias_stride()),
                     Format(c_, t.format()),
                     t.relu()};
        const size_t size = c_.Mul({s.channels, s.spatial, s.images});
        // A stride of 0 shares one array; otherwise each image has its own, `stride` apart.
        const auto perImage = [&](size_t stride) {
            return stride == 0 ? s.channels : c_.Span(s.images, s.channels, stride);
        };
        const Ref src = c_.Take(t.src(), size, "src");
        const Ref scale = c_.Take(t.scale(), perImage(s.scaleStride), "scale");
        const Ref bias = c_.Take(t.bias(), perImage(s.biasStride), "bias", s.relu);
        const Ref dst = c_.Written(t.dst(), size, "dst");
        return MakeScale(name_, src, scale, bias, s, dst);
    }

    StepPtr ConcatScaleRelu(const file::ConcatScaleRelu& t) {
        const size_t c0 = c_.Size(t.channels0()), c1 = c_.Size(t.channels1());
        const size_t spatial = c_.Size(t.spatial()), channels = c_.Add(c0, c1);
        const Ref src0 = c_.Take(t.src0(), c_.Mul({c0, spatial}), "src0");
        const Ref src1 = c_.Take(t.src1(), c_.Mul({c1, spatial}), "src1");
        const Ref scale = c_.Take(t.scale(), channels, "scale");
        const Ref bias = c_.Take(t.bias(), channels, "bias");
        const Ref dst0 = c_.Written(t.dst0(), c_.Mul({channels, spatial}), "dst0");
        const Ref dst1 = c_.Written(t.dst1(), c_.Mul({channels, spatial}), "dst1", false);
        for (const Ref& out : {dst0, dst1}) {
            c_.Disjoint(src0, c_.Mul({c0, spatial}), out, c_.Mul({channels, spatial}));
            c_.Disjoint(src1, c_.Mul({c1, spatial}), out, c_.Mul({channels, spatial}));
        }
        c_.Disjoint(dst0, c_.Mul({channels, spatial}), dst1, c_.Mul({channels, spatial}));
        return MakeConcatScaleRelu(name_, src0, c0, src1, c1, spatial, scale, bias, dst0, dst1);
    }

    StepPtr ActivationStep(const file::Activation& t) {
        const Activation kind = StepActivation(c_, t.kind());
        const std::vector<float> params =
            c_.Floats(t.params(), "params", StepActivationParams(kind));
        const size_t size = c_.Size(t.size());
        const Ref src = c_.Take(t.src(), size, "src");
        const Ref dst = c_.Written(t.dst(), size, "dst");
        return MakeActivation(name_, kind, params, src, size, dst);
    }

    StepPtr Eltwise(const file::Eltwise& t) {
        const int type = t.type();
        c_.Require(type >= SimdSynetEltwiseOperationProduct && type <= SimdSynetEltwiseOperationMin,
                   "unknown eltwise operation");
        const size_t size = c_.Size(t.size());
        const auto& sources = c_.Vector(t.sources(), "sources");
        c_.Require(sources.size() >= 2, "an eltwise step has at least 2 sources");
        std::vector<Ref> refs;
        for (const file::Ref* r : sources) refs.push_back(c_.Take(r, size, "source"));
        std::vector<float> weights;
        if (t.weights() != nullptr) weights.assign(t.weights()->begin(), t.weights()->end());
        c_.Require(weights.size() == sources.size() ||
                       (weights.empty() && type != SimdSynetEltwiseOperationSum),
                   "a sum has one weight per source");
        std::optional<Activation> activation;
        std::vector<float> params;
        if (t.has_activation()) {
            activation = StepActivation(c_, t.activation());
            params = c_.Floats(t.params(), "params", StepActivationParams(*activation));
        }
        const Ref dst = c_.Written(t.dst(), size, "dst");
        // The library lets dst be src[0] or src[1] exactly (in place), nothing else.
        for (size_t i = 0; i < refs.size(); ++i)
            if (!(i < 2 && refs[i].kind == dst.kind && refs[i].index == dst.index))
                c_.Disjoint(refs[i], size, dst, size);
        return MakeEltwise(name_, SimdSynetEltwiseOperationType(type), refs, weights, size, dst,
                           activation, params);
    }

    StepPtr Prelu(const file::Prelu& t) {
        const size_t channels = c_.Size(t.channels()), spatial = c_.Size(t.spatial()),
                     images = c_.Size(t.images());
        const size_t size = c_.Mul({channels, spatial, images});
        const Ref src = c_.Take(t.src(), size, "src");
        const Ref slope = c_.Take(t.slope(), channels, "slope");
        const Ref dst = c_.Written(t.dst(), size, "dst");
        return MakePrelu(name_, src, slope, channels, spatial, images, Format(c_, t.format()), dst);
    }

    StepPtr Softmax(const file::Softmax& t) {
        const size_t outer = c_.Size(t.outer()), count = c_.Size(t.count()),
                     inner = c_.Size(t.inner());
        const size_t size = c_.Mul({outer, count, inner});
        const Ref src = c_.Take(t.src(), size, "src");
        const Ref dst = c_.Written(t.dst(), size, "dst");
        if (t.log()) return MakeLogSoftmax(name_, src, outer, count, inner, dst);
        return MakeSoftmax(name_, src, outer, count, inner, dst);
    }

    StepPtr Reduce(const file::Reduce& t) {
        c_.Require(t.kind() <= file::ReductionKind::MAX, "unknown reduction");
        const std::vector<size_t> shape = c_.Sizes(t.shape(), "shape");
        const auto& flags = c_.Vector(t.reduced(), "reduced");
        c_.Require(flags.size() == shape.size() && !shape.empty(),
                   "one reduction flag per axis is needed");
        std::vector<bool> reduced;
        size_t kept = 1;
        for (size_t a = 0; a < shape.size(); ++a) {
            reduced.push_back(flags.Get(uint32_t(a)) != 0);
            if (!reduced.back()) kept = c_.Mul(kept, shape[a]);
        }
        const size_t size = c_.Product(t.shape());
        const Ref src = c_.Take(t.src(), size, "src");
        const Ref dst = c_.Written(t.dst(), kept, "dst");
        return MakeReduce(name_, Reduction(int(t.kind())), src, shape, reduced, dst);
    }

    StepPtr Tile(const file::Tile& t) {
        const std::vector<size_t> from = c_.Sizes(t.src_shape(), "src_shape");
        const std::vector<size_t> to = c_.Sizes(t.dst_shape(), "dst_shape");
        c_.Require(from.size() == to.size() && !from.empty(), "tiling needs shapes of one rank");
        for (size_t a = 0; a < from.size(); ++a) {
            c_.Require(from[a] != 0 && to[a] % from[a] == 0,
                       "an extent is not a multiple of the source's");
            // 0 is a multiple, but the glue copies the source once before it repeats it: an
            // empty destination of a non-empty source was written past its end (fuzzer, ASan).
            c_.Require(to[a] >= from[a], "a tiled extent is smaller than the source's");
        }
        const Ref src = c_.Take(t.src(), c_.Product(t.src_shape()), "src");
        const Ref dst = c_.Written(t.dst(), c_.Product(t.dst_shape()), "dst");
        c_.Disjoint(src, c_.Product(t.src_shape()), dst, c_.Product(t.dst_shape()));
        return MakeTile(name_, src, from, to, dst);
    }

    StepPtr Lrn(const file::Lrn& t) {
        const size_t channels = c_.Size(t.channels()), spatial = c_.Size(t.spatial());
        const std::vector<float> k = c_.Floats(t.k(), "k", 3);
        const size_t size = c_.Mul({channels, spatial});
        const Ref src = c_.Take(t.src(), size, "src");
        const Ref dst = c_.Written(t.dst(), size, "dst");
        c_.Disjoint(src, size, dst, size);
        return MakeLrn(name_, src, c_.Size(t.half()), channels, spatial, k, dst);
    }

    StepPtr Normalize(const file::Normalize& t) {
        const int version = t.version();
        c_.Require(version == 2 || version == 3, "normalization version 2 or 3");
        const size_t batch = c_.Size(t.batch()), channels = c_.Size(t.channels()),
                     spatial = c_.Size(t.spatial());
        const size_t size = c_.Mul({batch, channels, spatial});
        const Ref src = c_.Take(t.src(), size, "src");
        const Ref scale = c_.Take(t.scale(), channels, "scale");
        const Ref shift = c_.Take(t.shift(), channels, "shift");
        const Ref dst = c_.Written(t.dst(), size, "dst");
        return MakeNormalize(name_, version, src, batch, channels, spatial, scale, shift, t.eps(),
                             Format(c_, t.format()), dst);
    }

    StepPtr InnerProduct(const file::InnerProduct& t) {
        const size_t rows = c_.Size(t.rows()), count = c_.Size(t.count()), size = c_.Size(t.size());
        const Ref src = c_.Take(t.src(), c_.Mul({rows, size}), "src");
        const Ref weight = c_.Take(t.weight(), c_.Mul({count, size}), "weight");
        const Ref bias = c_.Take(t.bias(), count, "bias", false);
        const Ref dst = c_.Written(t.dst(), c_.Mul({rows, count}), "dst");
        return MakeInnerProduct(name_, src, weight, bias, rows, count, size, dst);
    }

    StepPtr MatMul(const file::MatMul& t) {
        MatMulShape s{c_.Size(t.batch()), c_.Size(t.m()),        c_.Size(t.n()),
                      c_.Size(t.k()),     c_.Size(t.stride_a()), c_.Size(t.stride_b())};
        const Ref a = c_.Take(t.a(), c_.Span(s.batch, c_.Mul({s.m, s.k}), s.strideA), "a");
        const Ref b = c_.Take(t.b(), c_.Span(s.batch, c_.Mul({s.k, s.n}), s.strideB), "b");
        const Ref dst = c_.Written(t.dst(), c_.Mul({s.batch, s.m, s.n}), "dst");
        c_.Disjoint(a, c_.Span(s.batch, c_.Mul({s.m, s.k}), s.strideA), dst,
                    c_.Mul({s.batch, s.m, s.n}));
        c_.Disjoint(b, c_.Span(s.batch, c_.Mul({s.k, s.n}), s.strideB), dst,
                    c_.Mul({s.batch, s.m, s.n}));
        return MakeMatMul(name_, a, b, s, dst);
    }

    StepPtr Shuffle(const file::Shuffle& t) {
        const size_t c0 = c_.Size(t.channels0()), c1 = c_.Size(t.channels1()),
                     spatial = c_.Size(t.spatial());
        const size_t channels = c_.Add(c0, c1);
        c_.Require(channels % 2 == 0, "a shuffle needs an even channel count");
        const Ref src0 = c_.Take(t.src0(), c_.Mul({c0, spatial}), "src0");
        const Ref src1 = c_.Take(t.src1(), c_.Mul({c1, spatial}), "src1");
        const Ref dst0 = c_.Written(t.dst0(), c_.Mul({channels / 2, spatial}), "dst0");
        const Ref dst1 = c_.Written(t.dst1(), c_.Mul({channels / 2, spatial}), "dst1");
        const size_t half = c_.Mul({channels / 2, spatial});
        for (const Ref& out : {dst0, dst1}) {
            c_.Disjoint(src0, c_.Mul({c0, spatial}), out, half);
            c_.Disjoint(src1, c_.Mul({c1, spatial}), out, half);
        }
        c_.Disjoint(dst0, half, dst1, half);
        return MakeShuffle(name_, src0, c0, src1, c1, spatial, dst0, dst1);
    }

    StepPtr ConvertImage(const file::ConvertImage& t) {
        const size_t batch = c_.Size(t.batch()), channels = c_.Size(t.channels()),
                     spatial = c_.Size(t.spatial());
        const size_t size = c_.Mul({batch, channels, spatial});
        const Ref src = c_.Take(t.src(), size, "src");
        const Ref dst = c_.Written(t.dst(), size, "dst");
        c_.Disjoint(src, size, dst, size);
        return MakeConvertImage(name_, src, batch, channels, spatial, t.to_nhwc(), dst);
    }

    StepPtr Copy(const file::Copy& t) {
        std::vector<CopyRegion> regions;
        for (const file::CopyRegion* r : c_.Vector(t.regions(), "regions")) {
            CopyRegion region{Ref(),
                              Ref(),
                              c_.Size(r->rows()),
                              c_.Size(r->length()),
                              c_.Size(r->src_stride()),
                              c_.Size(r->dst_stride())};
            region.src =
                c_.Take(&r->src(), c_.Span(region.rows, region.length, region.srcStride), "src");
            region.dst =
                c_.Written(&r->dst(), c_.Span(region.rows, region.length, region.dstStride), "dst");
            c_.Disjoint(region.src, c_.Span(region.rows, region.length, region.srcStride),
                        region.dst, c_.Span(region.rows, region.length, region.dstStride));
            regions.push_back(region);
        }
        return MakeCopy(name_, regions);
    }

    StepPtr Transpose(const file::Transpose& t) {
        const std::vector<size_t> shape = c_.Sizes(t.shape(), "shape");
        const std::vector<size_t> perm = c_.Sizes(t.perm(), "perm");
        c_.Require(!shape.empty() && perm.size() == shape.size() && IsPermutation(perm),
                   "perm is not a permutation of the axes");
        const size_t size = c_.Product(t.shape());
        const Ref src = c_.Take(t.src(), size, "src");
        const Ref dst = c_.Written(t.dst(), size, "dst");
        return MakeTranspose(name_, src, shape, perm, dst);
    }

    StepPtr Pad(const file::Pad& t) {
        const std::vector<size_t> shape = c_.Sizes(t.shape(), "shape");
        const std::vector<size_t> before = c_.Sizes(t.before(), "before");
        const std::vector<size_t> after = c_.Sizes(t.after(), "after");
        c_.Require(!shape.empty() && before.size() == shape.size() && after.size() == shape.size(),
                   "one padding per axis is needed");
        c_.Require(t.mode() <= file::PadMode::MAX, "unknown padding mode");
        size_t srcSize = 1, dstSize = 1;
        for (size_t a = 0; a < shape.size(); ++a) {
            srcSize = c_.Mul(srcSize, shape[a]);
            dstSize = c_.Mul(dstSize, c_.Add(c_.Add(before[a], shape[a]), after[a]));
            if (t.mode() == file::PadMode::Reflect)
                c_.Require(before[a] < shape[a] && after[a] < shape[a],
                           "reflect padding reaches past the edge");
            if (t.mode() == file::PadMode::Edge)
                c_.Require(shape[a] != 0 || before[a] + after[a] == 0,
                           "edge padding of an empty axis");
        }
        if (srcSize == 0 || dstSize == 0)
            for (size_t a = 0; a < shape.size(); ++a) {
                c_.Empty(shape[a]);
                c_.Empty(before[a]);
                c_.Empty(after[a]);
            }
        const Ref src = c_.Take(t.src(), srcSize, "src");
        const Ref dst = c_.Written(t.dst(), dstSize, "dst");
        c_.Disjoint(src, srcSize, dst, dstSize);
        return MakePad(name_, src, shape, before, after, int(t.mode()), t.value(), dst);
    }

    StepPtr ResizeNearest(const file::ResizeNearest& t) {
        const size_t batch = c_.Size(t.batch()), h = c_.Size(t.src_h()), w = c_.Size(t.src_w()),
                     channels = c_.Size(t.channels());
        const std::vector<size_t> rows = c_.Sizes(t.rows(), "rows");
        const std::vector<size_t> cols = c_.Sizes(t.cols(), "cols");
        CheckIndices(c_, rows, h, "a source row");
        CheckIndices(c_, cols, w, "a source column");
        const Ref src = c_.Take(t.src(), c_.Mul({batch, h, w, channels}), "src");
        const Ref dst =
            c_.Written(t.dst(), c_.Mul({batch, rows.size(), cols.size(), channels}), "dst");
        c_.Disjoint(src, c_.Mul({batch, h, w, channels}), dst,
                    c_.Mul({batch, rows.size(), cols.size(), channels}));
        return MakeResizeNearest(name_, src, batch, h, w, channels, rows, cols, dst);
    }

    StepPtr ResizeLinear(const file::ResizeLinear& t) {
        const size_t batch = c_.Size(t.batch()), h = c_.Size(t.src_h()), w = c_.Size(t.src_w()),
                     channels = c_.Size(t.channels());
        const LinearTaps rows = Taps(c_, t.rows(), h, "row taps");
        const LinearTaps cols = Taps(c_, t.cols(), w, "column taps");
        const Ref src = c_.Take(t.src(), c_.Mul({batch, h, w, channels}), "src");
        const Ref dst = c_.Written(
            t.dst(), c_.Mul({batch, rows.first.size(), cols.first.size(), channels}), "dst");
        c_.Disjoint(src, c_.Mul({batch, h, w, channels}), dst,
                    c_.Mul({batch, rows.first.size(), cols.first.size(), channels}));
        return MakeResizeLinear(name_, src, batch, h, w, channels, rows, cols, dst);
    }

    // INT8 SetParams scales weights by their statistics' range and converts them to int: an
    // infinite or NaN value, or a product past FLT_MAX, becomes NaN there, and converting NaN to
    // int is undefined (UBSan, found by the fuzzer). 1e18 squared stays below FLT_MAX.
    void Quantizable(const float* values, size_t n, const char* field) const {
        for (size_t i = 0; i < n; ++i)
            if (!(std::fabs(values[i]) <= 1e18f))
                c_.Fail(std::string(field) + " holds " + std::to_string(values[i]) +
                        ", beyond what INT8 quantization takes");
    }

    // A constant's data, or NULL for an absent reference (biases); arena references are not
    // allowed where the library copies the array at load.
    const float* Optional(const Ref& ref, const char* field) const {
        if (ref.kind == Ref::None) return nullptr;
        return ConstantData(c_, ref, data_, field);
    }
    const float* Params(const Ref& ref, const SimdConvolutionParameters& p) const {
        if (ActivationParams(p) == 0) return nullptr;
        if (ref.kind == Ref::None) c_.Fail("the activation's params are missing");
        return ConstantData(c_, ref, data_, "params");
    }
};

Binding MakeBinding(const StepChecker& c, const file::Binding* b, bool output) {
    if (b == nullptr) c.Fail("a binding is missing");
    if (b->name() == nullptr) c.Fail("a binding has no name");
    Binding binding;
    binding.name = b->name()->str();
    if (binding.name.find('\0') != std::string::npos) c.Fail("a binding name holds a NUL byte");
    binding.shape = c.Sizes(b->shape(), "shape");
    binding.perm = c.Sizes(b->perm(), "perm");
    if (binding.perm.size() != binding.shape.size() || !IsPermutation(binding.perm))
        c.Fail("'" + binding.name + "': perm is not a permutation of the shape's axes");
    const size_t size = c.Product(b->shape());
    const file::Ref at(file::RefKind::Arena, b->offset());
    binding.ref = output ? c.Take(&at, size, "the tensor") : c.Written(&at, size, "the tensor");
    return binding;
}

}  // namespace

std::unique_ptr<Executor> LoadNetwork(const uint8_t* data, size_t size, const LoadLimits& limits) {
    // An empty file maps to no data: its size says more than "no data".
    if (data == nullptr && size != 0) throw ExecutorError("network file: no data");
    if (size < 8 || size >= FLATBUFFERS_MAX_BUFFER_SIZE)
        throw ExecutorError("network file: " + std::to_string(size) +
                            " bytes is not the size of a network file");
    if (!flatbuffers::BufferHasIdentifier(data, file::NetworkIdentifier()))
        throw ExecutorError("network file: not a simd-synet network file (no 'SSNF' identifier)");
    flatbuffers::Verifier::Options options;
    options.max_depth = 16;
    options.max_tables = 10000000;
    flatbuffers::Verifier verifier(data, size, options);
    if (!file::VerifyNetworkBuffer(verifier))
        throw ExecutorError(
            "network file: the container is corrupt (FlatBuffers verification "
            "failed: an offset, size or string lies outside the file)");
    const file::Network* net = file::GetNetwork(data);
    if (net->version() != SIMD_SYNET_NETWORK_FORMAT_VERSION)
        throw ExecutorError("network file: format version " + std::to_string(net->version()) +
                            "; this runtime reads version " +
                            std::to_string(SIMD_SYNET_NETWORK_FORMAT_VERSION));
    if (net->arena_floats() > limits.maxArenaFloats)
        throw ExecutorError("network file: an arena of " + std::to_string(net->arena_floats()) +
                            " floats is more than the limit of " +
                            std::to_string(limits.maxArenaFloats));
    const size_t arena = size_t(net->arena_floats());

    auto executor = std::make_unique<Executor>();
    std::vector<size_t> constantFloats;
    std::vector<Floats> constants;  // views of the constant data, for the loader's own reads
    if (net->constants() != nullptr) {
        for (const file::Constant* c : *net->constants()) {
            const size_t n = c->data() == nullptr ? 0 : c->data()->size();
            const float* values = n ? c->data()->data() : nullptr;
            // In place when aligned as the writer aligns it; a copy otherwise.
            const bool aligned = reinterpret_cast<uintptr_t>(values) % 64 == 0;
            executor->AddConstant(values, n, aligned);
            constants.push_back(Floats::Borrow(values, n));
            constantFloats.push_back(n);
        }
    }
    const auto& steps =
        StepChecker("network file", arena, constantFloats).Vector(net->steps(), "the step list");
    for (uint32_t i = 0; i < steps.size(); ++i) {
        const file::Step* step = steps.Get(i);
        const std::string name = step->name() ? step->name()->str() : std::string();
        const std::string where = "step " + std::to_string(i);
        // Names reach C strings (messages, StepDescribe): a NUL would cut them, and a message
        // starting with the name would read as empty.
        if (name.find('\0') != std::string::npos)
            throw ExecutorError(where + ": the step name holds a NUL byte");
        const StepChecker checker(where + " (" + name + ")", arena, constantFloats);
        try {
            executor->AddStep(StepBuilder(checker, name, constants).Build(*step));
        } catch (const ExecutorError& e) {
            // The library's refusals (contexts, parameters) name the step only by its name.
            const std::string what = e.what();
            if (what.rfind(where + " (", 0) == 0) throw;
            throw ExecutorError(where + " (" + name + "): " + what);
        }
    }
    const StepChecker io("network file", arena, constantFloats);
    for (const file::Binding* b : io.Vector(net->inputs(), "the input list"))
        executor->AddInput(MakeBinding(io, b, false));
    for (const file::Binding* b : io.Vector(net->outputs(), "the output list"))
        executor->AddOutput(MakeBinding(io, b, true));
    if (executor->Inputs().empty() || executor->Outputs().empty())
        throw ExecutorError("network file: a network needs inputs and outputs");
    executor->Finalize(arena);
    return executor;
}

}  // namespace simdsynet_executor
