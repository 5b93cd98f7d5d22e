// The steps of a plan. Library steps call one function (or context) of SimdSynet.h on arena
// tensors; glue steps move data the C API has no function for. Tensors inside the network are
// NHWC (the frameworks' fastest layout; the merged convolution has no other), so the sizes below
// are those of NHWC tensors unless a step says otherwise.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Executor.h"

namespace simdsynet_executor {

using StepPtr = std::unique_ptr<Step>;

// ---------------------------------------------------------------------------------------------
// Contexts (created and given their parameters here, once; released with the step).

// SimdSynetConvolution32f*: `batch` images, weights in the layout of p.srcF (YXIO for NHWC);
// with `add` (not Ref::None) a residual added before the activation (ForwardAdd).
StepPtr MakeConvolution(const std::string& name, size_t batch, const SimdConvolutionParameters& p,
                        const float* weight, const float* bias, const float* params, Ref src,
                        Ref dst, Ref add = Ref());

// SimdSynetConvolution8i*: p.srcT/p.dstT 32f or 8u (a uint8 tensor in the arena takes its bytes
// from the tensor's float offset on), weights in the layout of p.srcF, `stats` the four arrays of
// SetParams (the output ones NULL for a float output), `compatibility` the INT8 mode.
StepPtr MakeConvolution8i(const std::string& name, size_t batch, const SimdConvolutionParameters& p,
                          const float* weight, const float* bias, const float* params,
                          const float* const* stats, SimdSynetCompatibilityType compatibility,
                          Ref src, Ref dst);

// SimdSynetMergedConvolution32f*: 2 or 3 NHWC stages (weights, biases, params per stage; a
// NULL entry where a stage has none), `add` adds the chain's input to its output.
StepPtr MakeMergedConvolution(const std::string& name, size_t batch,
                              const std::vector<SimdConvolutionParameters>& p,
                              const std::vector<const float*>& weight,
                              const std::vector<const float*>& bias,
                              const std::vector<const float*>& params, bool add, Ref src, Ref dst);

// SimdSynetDeconvolution32f*: weights [srcC][dstC/group][kY][kX] (NCHW) or [srcC][kY][kX][dstC]
// (NHWC, one group).
StepPtr MakeDeconvolution(const std::string& name, size_t batch, const SimdConvolutionParameters& p,
                          const float* weight, const float* bias, const float* params, Ref src,
                          Ref dst);

// ---------------------------------------------------------------------------------------------
// Layers.

struct PoolingShape {
    size_t batch, channels, srcH, srcW, kernelY, kernelX, strideY, strideX, padY, padX, dstH, dstW;
};
enum class PoolingKind { Max, Average, AverageExcludePad };
// SimdSynetPoolingMax32f / SimdSynetPoolingAverage on NHWC images, one call per image.
StepPtr MakePooling(const std::string& name, PoolingKind kind, const PoolingShape& shape, Ref src,
                    Ref dst);

// SimdSynetScaleLayerForward (SimdSynetFusedLayerForward2 with a zero slope when `relu`: the
// ReLU applied in the same pass): dst = src*scale[c] + bias[c] over `images` images of
// `channels` x `spatial` in `format` (Nchw or Nhwc). A stride of 0 shares the array between the
// images; `channels` gives each image its own (a tensor the network computed, as
// squeeze-and-excitation does). bias may be a None Ref (not with relu).
struct ScaleShape {
    size_t channels, spatial, images, scaleStride, biasStride;
    SimdTensorFormatType format;
    bool relu;
};
StepPtr MakeScale(const std::string& name, Ref src, Ref scale, Ref bias, const ScaleShape& shape,
                  Ref dst);

// SimdSynetFusedLayerForward9: dst0 = relu(concat(src0, src1)*scale + bias), dst1 = the plain
// concatenation (a None Ref: not written), NHWC.
StepPtr MakeConcatScaleRelu(const std::string& name, Ref src0, size_t channels0, Ref src1,
                            size_t channels1, size_t spatial, Ref scale, Ref bias, Ref dst0,
                            Ref dst1);

// Element-wise functions of one tensor of `size` floats.
enum class Activation {
    Relu,           // params: slope
    RestrictRange,  // lower, upper
    Hswish,         // shift, scale
    Elu,            // alpha
    Selu,           // alpha, gamma (Elu, then the scale layer with one channel)
    Sigmoid,        // slope
    HardSigmoid,    // alpha, beta (the scale layer with one channel, then RestrictRange 0..1)
    Softplus,       // beta, threshold
    Tanh,           // slope
    Abs,
    Exp,
    Log,
    Neg,
    Sqrt,
    Pow,       // exponent (std::pow per element: exponents without a library function)
    Gelu,      // x*(1 + erf(x/sqrt 2))/2
    GeluTanh,  // its tanh approximation
};
StepPtr MakeActivation(const std::string& name, Activation kind, const std::vector<float>& params,
                       Ref src, size_t size, Ref dst);
// The activation the executor's name stands for ("relu", "restrict_range", ...: the enumerators
// in snake case); ExecutorError for an unknown name.
Activation ActivationNamed(const std::string& name);

// SimdSynetEltwiseLayerForward over `sources` arrays of `size` floats; with an `activation`
// (params as for MakeActivation), the activation applied to dst in the same pass, chunk by chunk.
StepPtr MakeEltwise(const std::string& name, SimdSynetEltwiseOperationType type,
                    const std::vector<Ref>& sources, const std::vector<float>& weights, size_t size,
                    Ref dst, const std::optional<Activation>& activation,
                    const std::vector<float>& params);

// SimdSynetPreluLayerForward on `images` images of channels x spatial in `format`.
StepPtr MakePrelu(const std::string& name, Ref src, Ref slope, size_t channels, size_t spatial,
                  size_t images, SimdTensorFormatType format, Ref dst);

// SimdSynetSoftmaxLayerForward over [outer][count][inner].
StepPtr MakeSoftmax(const std::string& name, Ref src, size_t outer, size_t count, size_t inner,
                    Ref dst);

// log(softmax) over [outer][count][inner] as x - max - log(sum(exp(x - max))), so that
// probabilities below FLT_MIN stay finite; the exponentials are the library's. A NaN in a
// row makes the row NaN, as in PyTorch.
StepPtr MakeLogSoftmax(const std::string& name, Ref src, size_t outer, size_t count, size_t inner,
                       Ref dst);

// SimdSynetLrnLayerCrossChannels on NHWC tensors; k = {bias, alpha/size, -beta}.
StepPtr MakeLrn(const std::string& name, Ref src, size_t half, size_t channels, size_t spatial,
                const std::vector<float>& k, Ref dst);

// SimdSynetNormalizeLayerForwardV2 (layer norm over channels) or V3 (instance norm over pixels),
// `format` Nchw or Nhwc, `batch` items of channels x spatial.
StepPtr MakeNormalize(const std::string& name, int version, Ref src, size_t batch, size_t channels,
                      size_t spatial, Ref scale, Ref shift, float eps, SimdTensorFormatType format,
                      Ref dst);

// dst[m][n] = bias[n] + sum_k src[m][k]*weight[n][k] for `rows` rows: one
// SimdSynetInnerProductLayerForward per row, or SimdGemm32fNT for several rows.
StepPtr MakeInnerProduct(const std::string& name, Ref src, Ref weight, Ref bias, size_t rows,
                         size_t count, size_t size, Ref dst);

// dst[i] = a[i] (m x k) * b[i] (k x n) for i < batch, row-major; a[i] starts at a + i*strideA,
// b[i] at b + i*strideB (0: one matrix for every item), dst[i] at dst + i*m*n.
struct MatMulShape {
    size_t batch, m, n, k, strideA, strideB;
};
StepPtr MakeMatMul(const std::string& name, Ref a, Ref b, const MatMulShape& shape, Ref dst);

// SimdSynetShuffleLayerForward (NHWC).
StepPtr MakeShuffle(const std::string& name, Ref src0, size_t channels0, Ref src1, size_t channels1,
                    size_t spatial, Ref dst0, Ref dst1);

// SimdSynetConvertImage between NCHW and NHWC (`toNhwc` or back), `batch` images.
StepPtr MakeConvertImage(const std::string& name, Ref src, size_t batch, size_t channels,
                         size_t spatial, bool toNhwc, Ref dst);

// ---------------------------------------------------------------------------------------------
// Glue (Glue.cpp).

// Block copies: for each region, `rows` rows of `length` floats from src + srcOffset (rows
// srcStride apart) to dst + dstOffset (rows dstStride apart). Concatenations, splits and slices.
struct CopyRegion {
    Ref src, dst;
    size_t rows, length, srcStride, dstStride;
};
StepPtr MakeCopy(const std::string& name, const std::vector<CopyRegion>& regions);

// A tensor of `shape` (physical, C order) permuted: dst axis i is src axis perm[i].
StepPtr MakeTranspose(const std::string& name, Ref src, const std::vector<size_t>& shape,
                      const std::vector<size_t>& perm, Ref dst);

// Padding of a tensor of physical `shape`: before[a]/after[a] elements along axis a, filled by
// `mode`: 0 constant (value), 1 reflect (mirror without the edge), 2 edge (repeat the edge).
StepPtr MakePad(const std::string& name, Ref src, const std::vector<size_t>& shape,
                const std::vector<size_t>& before, const std::vector<size_t>& after, int mode,
                float value, Ref dst);

// Nearest resizing of NHWC images: output pixel (y, x) copies input pixel (rows[y], cols[x]).
StepPtr MakeResizeNearest(const std::string& name, Ref src, size_t batch, size_t srcH, size_t srcW,
                          size_t channels, const std::vector<size_t>& rows,
                          const std::vector<size_t>& cols, Ref dst);

// Max pooling of NHWC images with dilated windows (taps `dilationY`/`dilationX` apart), which
// the library's pooling lacks. NaN propagates, as in the library's max pooling. Every window
// holds at least one tap inside the image (the loader checks).
StepPtr MakeDilatedMaxPooling(const std::string& name, const PoolingShape& shape, size_t dilationY,
                              size_t dilationX, Ref src, Ref dst);

// A reduction of a tensor of physical `shape` over the axes flagged in `reduced`, into the
// tensor of the kept axes in the same order. Sums accumulate in double; max and min propagate
// NaN (ReduceMax of a row holding NaN is NaN, as in PyTorch).
enum class Reduction { Sum, Mean, Max, Min, Prod, SumSquare, L1, L2 };
StepPtr MakeReduce(const std::string& name, Reduction kind, Ref src,
                   const std::vector<size_t>& shape, const std::vector<bool>& reduced, Ref dst);

// Tiling (Tile, and Expand's broadcast, which is tiling of extent-1 axes): a tensor of physical
// `srcShape` repeated along each axis to `dstShape` (each extent a multiple of the source's).
StepPtr MakeTile(const std::string& name, Ref src, const std::vector<size_t>& srcShape,
                 const std::vector<size_t>& dstShape, Ref dst);

// The taps of bilinear resizing along one axis: output index i blends input indices first[i]
// and second[i] with weights firstWeight[i] and secondWeight[i].
struct LinearTaps {
    std::vector<size_t> first, second;
    std::vector<float> firstWeight, secondWeight;
};
// Bilinear resizing of NHWC images: each output row blends two input rows, each of them first
// blended along x (PyTorch's order of the sums).
StepPtr MakeResizeLinear(const std::string& name, Ref src, size_t batch, size_t srcH, size_t srcW,
                         size_t channels, const LinearTaps& rows, const LinearTaps& cols, Ref dst);

}  // namespace simdsynet_executor
