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
#include "StepChecker.h"
#include "Steps.h"

namespace simdsynet_executor {

namespace {

using namespace loader;

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
        const size_t dstFloats = DstFloats(c_, batch, p);
        const Ref dst = c_.Written(t.dst(), dstFloats, "dst");
        const Ref add = c_.Take(t.add(), dstFloats, "add", false);
        c_.Disjoint(add, dstFloats, dst, dstFloats);  // the library refuses overlapping ones
        std::vector<float> converted;
        const float* w =
            ConvolutionWeights(c_, p, ConstantData(c_, weight, data_, "weight"), converted);
        return MakeConvolution(name_, batch, p, w, Optional(bias, "bias"), Params(params, p), src,
                               dst, add);
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
    if (net->version() < 1 || net->version() > SIMD_SYNET_NETWORK_FORMAT_VERSION)
        throw ExecutorError("network file: format version " + std::to_string(net->version()) +
                            "; this runtime reads versions 1 to " +
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
