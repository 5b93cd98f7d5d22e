/*
 * simd-synet: SIMD-accelerated CPU kernels for neural-network inference.
 *
 * This is the whole C interface of the library. It is self-contained (it needs only the C
 * standard headers below) and compiles as C89 with stdint.h, or as C++.
 *
 * Conventions that hold for every function declared here:
 *  - Tensors are plain arrays owned by the caller; the library never keeps a pointer to them
 *    after a call returns.
 *  - Every function checks its arguments before it touches memory. When they are invalid it
 *    writes nothing, records a message readable through SimdSynetGetLastError() and returns
 *    (functions that return a pointer return NULL, sizes return 0). A successful call resets
 *    the message to NULL. Zero-sized tensors are valid and do nothing.
 *  - The instruction set is chosen once per process at run time (the best the CPU has, capped
 *    by the environment variable SIMD_SYNET_MAX_ISA = scalar | sse4 | avx2 | avx512 | neon).
 *  - NaN propagates, on every instruction set, as in PyTorch and ONNX Runtime: an output whose
 *    formula reads a NaN input is NaN, also where the formula is a max or min (ReLU and its
 *    variants, clamps, hard sigmoid and hard swish, element-wise max/min, max pooling), so
 *    max(0, NaN) is NaN. Exceptions are stated where they apply: conversions to integers give
 *    0, and a Winograd convolution (SimdSynetConvolution32fInfo names it) also makes NaN every
 *    output of the input tile a NaN falls in, not only those whose window reads it.
 */
#ifndef SIMD_SYNET_H
#define SIMD_SYNET_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#if defined(SIMD_SYNET_EXPORTS)
#define SIMD_API __declspec(dllexport)
#else
#define SIMD_API
#endif
#else
#define SIMD_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------- */
/* Types and enumerations (numeric values are part of the ABI).                              */
/* ---------------------------------------------------------------------------------------- */

/** A C boolean with a fixed size and values. */
typedef enum { SimdFalse = 0, SimdTrue = 1 } SimdBool;

/** Memory layouts of image tensors (Nchw ... NchwXc) and of convolution filters (Oiyx ...). */
typedef enum {
    SimdTensorFormatUnknown = -1, /**< No layout; rejected by every data function. */
    SimdTensorFormatNchw,         /**< Batch, channels, rows, columns. */
    SimdTensorFormatNhwc,         /**< Batch, rows, columns, channels. */
    SimdTensorFormatNchw4c,       /**< Channels grouped in blocks of 4, each block NCHW with 4 lanes per pixel. */
    SimdTensorFormatNchw8c,       /**< As Nchw4c with blocks of 8 channels. */
    SimdTensorFormatNchw16c,      /**< As Nchw4c with blocks of 16 channels. */
    SimdTensorFormatNchwXc,       /**< Placeholder for the blocked image layout the machine prefers. */
    SimdTensorFormatOiyx,         /**< Filter: output channel, input channel, kernel row, kernel column. */
    SimdTensorFormatYxio,         /**< Filter: kernel row, kernel column, input channel, output channel. */
    SimdTensorFormatOyxi4o,       /**< Filter with output channels grouped in blocks of 4 (innermost). */
    SimdTensorFormatOyxi8o,       /**< As Oyxi4o with blocks of 8. */
    SimdTensorFormatOyxi16o,      /**< As Oyxi4o with blocks of 16. */
    SimdTensorFormatOyxiXo        /**< Placeholder for the blocked filter layout the machine prefers. */
} SimdTensorFormatType;

/** Element types of tensors. */
typedef enum {
    SimdTensorDataUnknown = -1,
    SimdTensorData32f, /**< IEEE binary32. */
    SimdTensorData32i, /**< int32_t. */
    SimdTensorData8i,  /**< int8_t. */
    SimdTensorData8u,  /**< uint8_t. */
    SimdTensorData64i, /**< int64_t. */
    SimdTensorData64u, /**< uint64_t. */
    SimdTensorDataBool,/**< one byte, 0 or 1. */
    SimdTensorData16b, /**< BF16: the upper half of a binary32, stored in a uint16_t. */
    SimdTensorData16f  /**< IEEE binary16. */
} SimdTensorDataType;

/** Activation applied by the convolution-like frameworks after the bias. */
typedef enum {
    SimdConvolutionActivationIdentity = 0, /**< y = x. */
    SimdConvolutionActivationRelu,         /**< y = max(0, x). */
    SimdConvolutionActivationLeakyRelu,    /**< y = max(0, x) + params[0]*min(0, x). */
    SimdConvolutionActivationRestrictRange,/**< y = min(max(params[0], x), params[1]). */
    SimdConvolutionActivationPrelu,        /**< y = max(0, x) + params[c]*min(0, x), one slope per output channel. */
    SimdConvolutionActivationElu,          /**< y = x >= 0 ? x : params[0]*(exp(x) - 1). */
    SimdConvolutionActivationHswish,       /**< y = max(min(x, params[0]) + params[0], 0)*params[1]*x. */
    SimdConvolutionActivationMish,         /**< y = x > params[0] ? x : x*tanh(log(1 + exp(x))). */
    SimdConvolutionActivationHardSigmoid,  /**< y = max(0, min(x*params[0] + params[1], 1)). */
    SimdConvolutionActivationSwish,        /**< y = x/(1 + exp(-params[0]*x)). */
    SimdConvolutionActivationGelu          /**< y = x*(1 + erf(x/sqrt(2)))/2. */
} SimdConvolutionActivationType;

/** Operation of SimdSynetEltwiseLayerForward. */
typedef enum {
    SimdSynetEltwiseOperationProduct, /**< Element-wise product of all inputs. */
    SimdSynetEltwiseOperationSum,     /**< Weighted sum of all inputs. */
    SimdSynetEltwiseOperationMax,     /**< Element-wise maximum. */
    SimdSynetEltwiseOperationMin      /**< Element-wise minimum. */
} SimdSynetEltwiseOperationType;

/** Operation of SimdSynetUnaryOperation32fLayerForward. */
typedef enum {
    SimdSynetUnaryOperation32fAbs,   /**< |x|. */
    SimdSynetUnaryOperation32fExp,   /**< e^x. */
    SimdSynetUnaryOperation32fLog,   /**< Natural logarithm. */
    SimdSynetUnaryOperation32fNeg,   /**< -x. */
    SimdSynetUnaryOperation32fRsqrt, /**< 1/sqrt(x). */
    SimdSynetUnaryOperation32fSqrt,  /**< sqrt(x). */
    SimdSynetUnaryOperation32fTanh,  /**< Hyperbolic tangent. */
    SimdSynetUnaryOperation32fZero   /**< +0 whatever the input. */
} SimdSynetUnaryOperation32fType;

/** Bit fields that trade exactness against speed in a few functions. */
typedef enum {
    SimdSynetCompatibilityDefault = 0,
    SimdSynetCompatibilityFmaUse = 0,     /**< Fused multiply-add allowed. */
    SimdSynetCompatibilityFmaNoTail = 1,  /**< FMA allowed except in tails. */
    SimdSynetCompatibilityFmaAvoid = 2,   /**< No FMA. */
    SimdSynetCompatibilityFmaMask = 3,
    SimdSynetCompatibility8iPrecise = 0,  /**< Exact INT8 arithmetic. */
    SimdSynetCompatibility8iOverflow = 4, /**< INT8 arithmetic that may saturate. */
    SimdSynetCompatibility8iNarrowed = 8, /**< UINT8 values limited to [0, 180]. */
    SimdSynetCompatibility8iMask = 12,
    SimdSynetCompatibility16bfAvoid = 0,
    SimdSynetCompatibility16bfHard = 16,
    SimdSynetCompatibility16bfSoft = 32,
    SimdSynetCompatibility16bfMask = 48
} SimdSynetCompatibilityType;

/** Pixel formats of 8-bit images (the Synet functions use Gray8, Bgr24, Bgra32, Rgb24, Rgba32). */
typedef enum {
    SimdPixelFormatNone = 0,
    SimdPixelFormatGray8,
    SimdPixelFormatUv16,
    SimdPixelFormatBgr24,
    SimdPixelFormatBgra32,
    SimdPixelFormatInt16,
    SimdPixelFormatInt32,
    SimdPixelFormatInt64,
    SimdPixelFormatFloat,
    SimdPixelFormatDouble,
    SimdPixelFormatBayerGrbg,
    SimdPixelFormatBayerGbrg,
    SimdPixelFormatBayerRggb,
    SimdPixelFormatBayerBggr,
    SimdPixelFormatHsv24,
    SimdPixelFormatHsl24,
    SimdPixelFormatRgb24,
    SimdPixelFormatRgba32
} SimdPixelFormatType;

/** Shape and type description of one convolution (padY/padX top/left, padH/padW bottom/right). */
typedef struct SimdConvolutionParameters {
    size_t srcC, srcH, srcW;
    SimdTensorDataType srcT;
    SimdTensorFormatType srcF;
    size_t dstC, dstH, dstW;
    SimdTensorDataType dstT;
    SimdTensorFormatType dstF;
    size_t kernelY, kernelX, dilationY, dilationX, strideY, strideX, padY, padX, padH, padW,
        group;
    SimdConvolutionActivationType activation;
} SimdConvolutionParameters;

/**
 * A caller-supplied matrix product C(M, N) = alpha[0]*A(M, K)*B(K, N) + beta[0]*C(M, N), row-major
 * with leading dimensions lda, ldb and ldc.
 */
typedef void (*SimdGemm32fNNPtr)(size_t M, size_t N, size_t K, const float* alpha, const float* A,
                                 size_t lda, const float* B, size_t ldb, const float* beta,
                                 float* C, size_t ldc);

/* ---------------------------------------------------------------------------------------- */
/* Library helpers, errors and dispatch.                                                      */
/* ---------------------------------------------------------------------------------------- */

/** Returns the library version as "major.minor.patch". */
SIMD_API const char* SimdVersion(void);

/**
 * Returns the message left by the last call of this thread into the library that rejected its
 * arguments, or NULL when that call succeeded. The string is static; do not free it.
 */
SIMD_API const char* SimdSynetGetLastError(void);

/**
 * Records a copy of `message` (its first 1023 bytes) as this thread's last error, as a rejected
 * call into the library would; NULL clears the slot. For libraries built on this one, such as
 * the network runtime (SimdSynetRuntime.h), so that their callers read every error in one place.
 */
SIMD_API void SimdSynetSetLastError(const char* message);

/**
 * Returns the name of the instruction set the library runs on in this process: "scalar",
 * "sse4", "avx2", "avx512" or "neon" (SIMD_SYNET_MAX_ISA can lower it).
 */
SIMD_API const char* SimdSynetIsa(void);

/**
 * Returns the memory alignment in bytes that suits the instruction set in use: 64 for AVX-512,
 * 32 for AVX2, 16 for SSE4, NEON and the scalar fallback.
 */
SIMD_API size_t SimdAlignment(void);

/**
 * Rounds size up to the next multiple of align, which must be a power of two (align 0 or not a
 * power of two is an error and returns 0).
 */
SIMD_API size_t SimdAlign(size_t size, size_t align);

/**
 * Allocates size bytes aligned to align (a power of two; values below the pointer size are
 * raised to it). Returns NULL on failure or invalid align. Free the block with SimdFree.
 */
SIMD_API void* SimdAllocate(size_t size, size_t align);

/** Frees a block from SimdAllocate; NULL is a no-op. */
SIMD_API void SimdFree(void* ptr);

/** Destroys a context created by any ...Init function of this library; NULL is a no-op. */
SIMD_API void SimdRelease(void* context);

/**
 * Sets how many threads one call of a function that splits its work may use (the calling
 * thread included): currently SimdGemm32fNN and SimdGemm32fNT. 0 counts as 1 and values
 * above 256 as 256. The threads belong to one pool, created on first use and reused; results
 * do not depend on the number. Process-wide; the default is 1.
 */
SIMD_API void SimdSetThreadNumber(size_t threadNumber);

/** Returns the thread budget set by SimdSetThreadNumber (1 by default). */
SIMD_API size_t SimdGetThreadNumber(void);

/* ---------------------------------------------------------------------------------------- */
/* Tensor formats.                                                                            */
/* ---------------------------------------------------------------------------------------- */

/**
 * Resolves a placeholder layout to the blocked layout that suits the instruction set in use:
 * NchwXc gives Nchw4c (16-byte vectors), Nchw8c (AVX2) or Nchw16c (AVX-512); OyxiXo gives the
 * matching Oyxi4o/8o/16o. Every other value gives SimdTensorFormatUnknown.
 */
SIMD_API SimdTensorFormatType SimdSynetSpecifyTensorFormat(SimdTensorFormatType format);

/**
 * Returns how many channels a tensor of the given layout is padded to a multiple of: 1 for
 * Nchw, Nhwc, Oiyx and Yxio; 4, 8 or 16 for the blocked layouts; 0 for placeholders and unknown
 * values (not an error: the reference library behaves the same).
 */
SIMD_API size_t SimdSynetTensorAlignment(SimdTensorFormatType format);

/* ---------------------------------------------------------------------------------------- */
/* Activation functions and unary operations.                                                 */
/* ---------------------------------------------------------------------------------------- */

/**
 * Leaky ReLU: dst[i] = max(0, src[i]) + slope[0]*min(src[i], 0) for i < size.
 * src and dst may be the same array. slope points to one value (0 gives a plain ReLU).
 */
SIMD_API void SimdSynetRelu32f(const float* src, size_t size, const float* slope, float* dst);

/**
 * Clamp: dst[i] = max(lower[0], min(upper[0], src[i])). lower[0] > upper[0] is an error.
 * src and dst may be the same array.
 */
SIMD_API void SimdSynetRestrictRange32f(const float* src, size_t size, const float* lower,
                                        const float* upper, float* dst);

/**
 * Hard swish: dst[i] = (max(min(x, shift[0]) + shift[0], 0)*scale[0])*x with x = src[i]
 * (shift 3 and scale 1/6 give the MobileNetV3 function). src and dst may be the same array.
 */
SIMD_API void SimdSynetHswish32f(const float* src, size_t size, const float* shift,
                                 const float* scale, float* dst);

/**
 * Per-channel leaky ReLU (PReLU): dst = max(0, x) + slope[c]*min(x, 0) for every element x of
 * channel c. The tensor has `channels` channels of `spatial` pixels in `format` (Nchw, Nhwc,
 * Nchw4c, Nchw8c or Nchw16c); with a blocked format, src, dst and slope hold
 * SimdAlign(channels, block) channels and the padded lanes are computed like the others.
 * src and dst may be the same array.
 */
SIMD_API void SimdSynetPreluLayerForward(const float* src, const float* slope, size_t channels,
                                         size_t spatial, float* dst,
                                         SimdTensorFormatType format);

/**
 * Exponential linear unit: dst[i] = x >= 0 ? x : alpha[0]*(exp(x) - 1) with x = src[i].
 * alpha points to one value. src and dst may be the same array. Transcendental accuracy
 * (relative error about 1e-6); NaN gives NaN, -inf gives -alpha[0].
 */
SIMD_API void SimdSynetElu32f(const float* src, size_t size, const float* alpha, float* dst);

/**
 * Logistic sigmoid: dst[i] = 1/(1 + exp(-src[i]*slope[0])). slope points to one value.
 * src and dst may be the same array. Large |x| gives exactly 0 or 1, never NaN.
 */
SIMD_API void SimdSynetSigmoid32f(const float* src, size_t size, const float* slope, float* dst);

/**
 * Softplus with a linear region: dst[i] = x > threshold[0] ? x : log(1 + exp(x*beta[0]))/beta[0]
 * with x = src[i]; the threshold is compared with x itself, not with x*beta[0]. The result is
 * computed without overflow for any x. beta[0] == 0 is an error. src and dst may be the same
 * array.
 */
SIMD_API void SimdSynetSoftplus32f(const float* src, size_t size, const float* beta,
                                   const float* threshold, float* dst);

/**
 * Hyperbolic tangent of a scaled input: dst[i] = tanh(src[i]*slope[0]). slope points to one
 * value. src and dst may be the same array.
 */
SIMD_API void SimdSynetTanh32f(const float* src, size_t size, const float* slope, float* dst);

/**
 * GELU (an addition beyond the seeds): dst[i] = x*(1 + erf(x/sqrt(2)))/2 with x = src[i], or
 * with approximate == SimdTrue the tanh form x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3)))/2
 * (ONNX Gelu's approximate="tanh"). src and dst may be the same array. Transcendental accuracy
 * (within 1e-5 relative + 1e-6 absolute); NaN gives NaN, +inf gives +inf, -inf gives -0 (the
 * limit; the formula itself gives NaN there). An approximate other than SimdFalse/SimdTrue is an
 * error.
 */
SIMD_API void SimdSynetGelu32f(const float* src, size_t size, SimdBool approximate, float* dst);

/**
 * Element-wise unary operation on an array of size floats: Abs (sign cleared), Exp, Log
 * (0 gives -inf, negative values NaN), Neg, Rsqrt (1/sqrt(x)), Sqrt, Tanh, or Zero (+0 for every
 * element). Abs, Neg, Sqrt and Zero are exact; the others have a relative error of about 1e-6.
 * src and dst may be the same array. An unknown type is an error and leaves dst untouched.
 */
SIMD_API void SimdSynetUnaryOperation32fLayerForward(const float* src, size_t size,
                                                     SimdSynetUnaryOperation32fType type,
                                                     float* dst);

/* ---------------------------------------------------------------------------------------- */
/* Per-channel layers: bias, scale, fused layers.                                             */
/* ---------------------------------------------------------------------------------------- */

/**
 * Adds a per-channel bias in place: dst += bias[c] for every element of channel c.
 * The tensor has `channels` channels of `spatial` pixels in `format` (Nchw, Nhwc, Nchw4c,
 * Nchw8c or Nchw16c). With a blocked format, dst holds SimdAlign(channels, block) channels,
 * bias has as many entries, and padded lanes are updated like the others.
 */
SIMD_API void SimdSynetAddBias(const float* bias, size_t channels, size_t spatial, float* dst,
                               SimdTensorFormatType format);

/**
 * Per-channel affine layer: dst = src*scale[c] + bias[c]. bias may be NULL, in which case the
 * result is the plain product src*scale[c] (no addition of zero). Layouts and array sizes as
 * for SimdSynetAddBias. src and dst may be the same array.
 */
SIMD_API void SimdSynetScaleLayerForward(const float* src, const float* scale, const float* bias,
                                         size_t channels, size_t spatial, float* dst,
                                         SimdTensorFormatType format);

/**
 * Fused layer of type 0: with x = src + bias[c], dst = (x - |x|)*scale[c] + max(0, x), i.e. a
 * ReLU whose negative side is multiplied by 2*scale[c]. Layouts and array sizes as for
 * SimdSynetAddBias. src and dst may be the same array.
 */
SIMD_API void SimdSynetFusedLayerForward0(const float* src, const float* bias, const float* scale,
                                          size_t channels, size_t spatial, float* dst,
                                          SimdTensorFormatType format);

/**
 * Fused layer of type 1: with x = src + bias0[c],
 * dst = max(0, -x)*scale1[c] + bias1[c] + max(0, x). Layouts and array sizes as for
 * SimdSynetAddBias. src and dst may be the same array.
 */
SIMD_API void SimdSynetFusedLayerForward1(const float* src, const float* bias0,
                                          const float* scale1, const float* bias1,
                                          size_t channels, size_t spatial, float* dst,
                                          SimdTensorFormatType format);

/**
 * Fused layer of type 2: with x = src*scale[c] + bias[c], dst = max(0, x) + min(0, x)*slope[0]
 * (a scale layer followed by a leaky ReLU with one slope). Layouts and array sizes as for
 * SimdSynetAddBias. src and dst may be the same array.
 */
SIMD_API void SimdSynetFusedLayerForward2(const float* src, const float* scale, const float* bias,
                                          size_t channels, size_t spatial, const float* slope,
                                          float* dst, SimdTensorFormatType format);

/**
 * Fused layer of type 3: a bias followed by a per-channel leaky ReLU. Whatever the names,
 * the second argument is the bias B added first and the third the negative-side slope S:
 * with x = src + B[c], dst = max(0, x) + min(0, x)*S[c]. Layouts and array sizes as for
 * SimdSynetAddBias. src and dst may be the same array.
 */
SIMD_API void SimdSynetFusedLayerForward3(const float* src, const float* scale, const float* bias,
                                          size_t channels, size_t spatial, float* dst,
                                          SimdTensorFormatType format);

/**
 * Fused layer of type 4: with x = src + bias0[c], writes a tensor of 2*channels channels whose
 * channel c is max(0, x) and whose channel channels + c is max(0, x*scale1[0] + bias1[0])
 * (scale1 and bias1 point to one value each). In Nchw the first `channels` planes come first;
 * in Nhwc each pixel holds the `channels` values of the first kind, then those of the second.
 * Blocked formats are accepted only when channels is a multiple of the block; the output then
 * has channels/block blocks of the first kind followed by as many of the second.
 * dst must not overlap src.
 */
SIMD_API void SimdSynetFusedLayerForward4(const float* src, const float* bias0,
                                          const float* scale1, const float* bias1,
                                          size_t channels, size_t spatial, float* dst,
                                          SimdTensorFormatType format);

/**
 * Fused layer of type 8: dst = src0 + src1*src2[c], where src0 and src1 are tensors and src2
 * a per-channel array. Layouts and array sizes as for SimdSynetAddBias. dst may be src0.
 */
SIMD_API void SimdSynetFusedLayerForward8(const float* src0, const float* src1, const float* src2,
                                          size_t channels, size_t spatial, float* dst,
                                          SimdTensorFormatType format);

/**
 * Fused layer of type 9: concatenates src0 (channels0 channels) and src1 (channels1 channels)
 * along the channels into a tensor of CT = channels0 + channels1 channels. dst0 receives
 * max(0, v*scale[c] + bias[c]) for every value v of output channel c; dst1, when not NULL,
 * receives the plain concatenation. In Nhwc the pixel strides are channels0 in src0,
 * channels1 in src1 and CT in the outputs. Blocked formats are accepted only when channels0
 * is a multiple of the block: the outputs are blocked tensors of CT channels made of the
 * blocks of src0 followed by all blocks of src1 (padded lanes included); scale and bias have
 * SimdAlign(CT, block) entries indexed by the output channel. An input with no channels is
 * not read and may be NULL. Outputs must not overlap inputs.
 */
SIMD_API void SimdSynetFusedLayerForward9(const float* src0, const float* src1,
                                          const float* scale, const float* bias,
                                          size_t channels0, size_t channels1, size_t spatial,
                                          float* dst0, float* dst1, SimdTensorFormatType format);

/* ---------------------------------------------------------------------------------------- */
/* Element-wise layers over several tensors: eltwise, shuffle.                                */
/* ---------------------------------------------------------------------------------------- */

/**
 * Eltwise layer: combines `count` arrays of `size` floats element by element into dst.
 * For every j < size the inputs are folded left to right starting from the first pair:
 *  - Product: d = src[0][j]*src[1][j], then d = d*src[i][j];
 *  - Sum:     d = src[0][j]*weight[0] + src[1][j]*weight[1], then d = d + src[i][j]*weight[i]
 *             (the multiply feeding each add may be fused);
 *  - Max:     d = max(src[0][j], src[1][j]), then d = max(d, src[i][j]);
 *  - Min:     likewise with min;
 * and dst[j] = d. count must be at least 2 and every src[i] non-NULL; weight holds `count`
 * values and is read (and required) only for Sum. dst may be src[0] or src[1] (in place);
 * otherwise it must not overlap the inputs. count < 2 or an unknown type is an error.
 */
SIMD_API void SimdSynetEltwiseLayerForward(float const* const* src, const float* weight,
                                           size_t count, size_t size,
                                           SimdSynetEltwiseOperationType type, float* dst);

/**
 * ShuffleNet-v2 channel shuffle followed by a split. The channels of src0 (srcC0 of them) and
 * src1 (srcC1) are taken as one tensor of T = srcC0 + srcC1 channels; its even channels 0, 2,
 * 4, ... become the dstC = T/2 channels of dst0 and its odd channels 1, 3, 5, ... those of
 * dst1. All four tensors have `spatial` pixels in `format`, which must be Nchw or Nhwc (in
 * Nhwc the pixel strides are srcC0, srcC1 and dstC). srcC0 and srcC1 must be even and dstC
 * must equal (srcC0 + srcC1)/2; anything else is an error. An input with no channels may be
 * NULL. The outputs must not overlap the inputs or each other.
 */
SIMD_API void SimdSynetShuffleLayerForward(const float* src0, size_t srcC0, const float* src1,
                                           size_t srcC1, size_t spatial, float* dst0,
                                           float* dst1, size_t dstC,
                                           SimdTensorFormatType format);

/**
 * Concatenation (beyond the seeds' functions: the network runtime's Concat): each src[i] is
 * `outer` rows of size[i] floats, one after another; dst receives `outer` rows of
 * size[0] + ... + size[count-1] floats, row o holding row o of src[0], then row o of src[1],
 * and so on. Values are copied bit for bit (NaN payloads and signed zeros included).
 * NHWC channel concatenation: outer = batch * height * width, size[i] = channels of input i;
 * NCHW: outer = batch, size[i] = channels of input i * height * width. Copies of 32 K floats or
 * more are split over SimdSetThreadNumber threads. count must be at least 1; src, size and dst
 * must not be NULL, nor src[i] where size[i] > 0; dst must not overlap a source; the sum of the
 * sizes times outer must fit in memory. outer == 0 or all sizes 0 is a valid no-op.
 */
SIMD_API void SimdSynetConcatLayerForward(size_t count, const float* const* src,
                                          const size_t* size, size_t outer, float* dst);

/* ---------------------------------------------------------------------------------------- */
/* Conversions: quantization, image input, tensor and filter layouts.                         */
/* ---------------------------------------------------------------------------------------- */

/**
 * Quantizes an FP32 tensor to UINT8 with per-channel scale and shift:
 * dst = min(max(round(src*scale[c] + shift[c]), 0), upper) for every element of channel c,
 * where upper is 180 when (compatibility & SimdSynetCompatibility8iMask) is
 * SimdSynetCompatibility8iNarrowed and 255 otherwise. The product and the sum are separate
 * FP32 operations (never fused), rounding is to nearest with ties to even, NaN gives 0 and
 * values beyond the range (infinities included) saturate to 0 or upper, so the result is
 * bit-exact on every instruction set. The tensors hold batch images of channels x height x
 * width in format Nchw or Nhwc; scale and shift hold `channels` values each.
 */
SIMD_API void SimdSynetConvert32fTo8u(const float* src, size_t batch, size_t channels,
                                      size_t height, size_t width, SimdTensorFormatType format,
                                      const float* scale, const float* shift, uint8_t* dst,
                                      SimdSynetCompatibilityType compatibility);

/**
 * Dequantizes a UINT8 tensor to FP32: dst = float(src)*scale[c] + shift[c] for every element of
 * channel c (the multiply and add may be fused). Layout and arrays as in
 * SimdSynetConvert32fTo8u; compatibility has no effect.
 */
SIMD_API void SimdSynetConvert8uTo32f(const uint8_t* src, size_t batch, size_t channels,
                                      size_t height, size_t width, SimdTensorFormatType format,
                                      const float* scale, const float* shift, float* dst,
                                      SimdSynetCompatibilityType compatibility);

/**
 * Turns an 8-bit image into the normalised FP32 input tensor of a network. The image has
 * width x height pixels, rows `stride` bytes apart, in pixel format Gray8, Bgr24, Bgra32, Rgb24
 * or Rgba32. A sample v of output channel c becomes float(v)*k + lower[c] with
 * k = (upper[c] - lower[c])/255, mapping [0, 255] onto [lower[c], upper[c]].
 * With channels == 3 the output channels are blue, green, red (a gray image is replicated, the
 * alpha byte ignored) in dstFormat Nchw or Nhwc; with channels == 1 the output is the gray value
 * (1868*b + 9617*g + 4899*r + 8192) >> 14 of colour pixels, one plane whatever dstFormat says.
 * A network that wants red first is served by passing Rgb24 for a Bgr24 image (and Rgba32 for
 * Bgra32), or the reverse. lower and upper hold `channels` values.
 */
SIMD_API void SimdSynetSetInput(const uint8_t* src, size_t width, size_t height, size_t stride,
                                SimdPixelFormatType srcFormat, const float* lower,
                                const float* upper, float* dst, size_t channels,
                                SimdTensorFormatType dstFormat);

/**
 * Copies `batch` images of channels x spatial between image layouts. Supported: srcFormat ==
 * dstFormat (a plain copy, padded lanes included), Nchw <-> Nhwc, Nchw or Nhwc to Nchw4c/8c/16c
 * (padded lanes of the last block are set to 0) and Nchw4c/8c/16c to Nchw or Nhwc. Each image
 * of a blocked layout occupies SimdAlign(channels, N)*spatial floats. src and dst must not
 * overlap.
 */
SIMD_API void SimdSynetConvertImage(size_t batch, size_t channels, size_t spatial,
                                    const float* src, SimdTensorFormatType srcFormat, float* dst,
                                    SimdTensorFormatType dstFormat);

/**
 * Copies a convolution filter of `output` x `input` x `kernel` (kernel = kernelY*kernelX)
 * weights between filter layouts. Supported: srcFormat == dstFormat (a plain copy of
 * SimdAlign(output, N)*input*kernel floats), Oiyx <-> Yxio, Oiyx or Yxio to Oyxi4o/8o/16o
 * (output lanes beyond `output` are set to 0) and Oyxi4o/8o/16o to Oiyx or Yxio. src and dst
 * must not overlap.
 */
SIMD_API void SimdSynetConvertFilter(size_t output, size_t input, size_t kernel,
                                     const float* src, SimdTensorFormatType srcFormat,
                                     float* dst, SimdTensorFormatType dstFormat);

/* ---------------------------------------------------------------------------------------- */
/* Pooling.                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/*
 * Common rules of the pooling functions. Output (c, dy, dx) pools the input window of rows
 * [dy*strideY - padY, dy*strideY - padY + kernelY) and columns
 * [dx*strideX - padX, dx*strideX - padX + kernelX), clipped to the input; padY/padX pad only
 * the top/left side and dstH/dstW decide how far the windows reach. Tensors are
 * srcC x srcH x srcW in, srcC (or dstC) x dstH x dstW out, in format Nchw or Nhwc; src and dst
 * must not overlap. A zero size (srcC, srcH, srcW, dstC, dstH or dstW) makes a call a no-op.
 * A window may lie entirely outside the input (in the padding, padY >= kernelY or
 * padX >= kernelX, or past the input where dstH/dstW reach beyond it; in 3D along the
 * channels too): it is empty and gives the initial value of its fold, 0 for averages
 * (excludePad SimdFalse), -FLT_MAX for FP32 max, 0 for UINT8 max and 0xFF80 (-inf) for BF16
 * max. Rejected with a message in SimdSynetGetLastError, writing nothing: NULL src/dst, a format
 * other than Nchw/Nhwc, a SimdBool other than SimdFalse/SimdTrue, a kernel or stride of 0, sizes
 * whose byte counts overflow size_t or whose window coordinates reach 2^62
 * ((dst-1)*stride + kernel or pad along an axis), and excludePad averages over an empty window.
 * Max pooling is exact. It starts from -FLT_MAX and keeps the larger value with
 * max(v, m) = v > m ? v : m, except that NaN propagates (as in PyTorch and ONNX Runtime): a
 * window holding a NaN gives a NaN; when the maximum is zero and the window holds both +0 and
 * -0, either may be returned.
 */

/**
 * Average pooling of an FP32 tensor: dst = (sum of the clipped window) / area, where area is
 * the clipped window's size when excludePad is SimdTrue and kernelY*kernelX otherwise (also at
 * the bottom/right edge; an empty window gives 0). Sums may be re-associated (relative error of
 * a few FP32 ulps of the sum of magnitudes). With excludePad SimdTrue a window entirely outside
 * the input would divide by 0: such calls are rejected (rules above).
 */
SIMD_API void SimdSynetPoolingAverage(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                      size_t kernelY, size_t kernelX, size_t strideY,
                                      size_t strideX, size_t padY, size_t padX, float* dst,
                                      size_t dstH, size_t dstW, SimdBool excludePad,
                                      SimdTensorFormatType format);

/**
 * The older name of SimdSynetPoolingAverage, with identical behaviour.
 */
SIMD_API void SimdSynetPoolingForwardAverage(const float* src, size_t srcC, size_t srcH,
                                             size_t srcW, size_t kernelY, size_t kernelX,
                                             size_t strideY, size_t strideX, size_t padY,
                                             size_t padX, float* dst, size_t dstH, size_t dstW,
                                             SimdBool excludePad, SimdTensorFormatType format);

/**
 * Max pooling of an FP32 tensor, every channel on its own (rules above; an empty window gives
 * -FLT_MAX). trans == SimdFalse means Nchw tensors, SimdTrue means Nhwc.
 */
SIMD_API void SimdSynetPoolingForwardMax(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                         size_t kernelY, size_t kernelX, size_t strideY,
                                         size_t strideX, size_t padY, size_t padX, float* dst,
                                         size_t dstH, size_t dstW, SimdBool trans);

/**
 * Max pooling of an FP32 tensor in 2D or 3D. With kernelC == 1, strideC == 1, padC == 0 and
 * dstC == srcC every channel is pooled on its own; otherwise output channel dc also pools the
 * input channels [dc*strideC - padC, dc*strideC - padC + kernelC) clipped to [0, srcC) (padC
 * pads before channel 0 only; dstC decides how far the channel windows reach). An output whose
 * channel or spatial window is empty gives -FLT_MAX. kernelC and strideC must be at least 1.
 */
SIMD_API void SimdSynetPoolingMax32f(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                     size_t kernelC, size_t kernelY, size_t kernelX,
                                     size_t strideC, size_t strideY, size_t strideX, size_t padC,
                                     size_t padY, size_t padX, float* dst, size_t dstC,
                                     size_t dstH, size_t dstW, SimdTensorFormatType format);

/**
 * Max pooling of a BF16 tensor (values in uint16_t, ABI.md), every channel on its own: values
 * are compared as FP32 like SimdSynetPoolingMax32f, so the result is the bit pattern of the
 * largest input, a window holding a NaN gives one of its NaN patterns, and an empty window gives
 * 0xFF80 (-inf, the BF16 rounding of -FLT_MAX).
 */
SIMD_API void SimdSynetPoolingMax16b(const uint16_t* src, size_t srcC, size_t srcH, size_t srcW,
                                     size_t kernelY, size_t kernelX, size_t strideY,
                                     size_t strideX, size_t padY, size_t padX, uint16_t* dst,
                                     size_t dstH, size_t dstW, SimdTensorFormatType format);

/**
 * Max pooling of a UINT8 tensor, every channel on its own (rules above); the maximum starts from
 * 0, so an empty window gives 0.
 */
SIMD_API void SimdSynetPoolingMax8u(const uint8_t* src, size_t srcC, size_t srcH, size_t srcW,
                                    size_t kernelY, size_t kernelX, size_t strideY,
                                    size_t strideX, size_t padY, size_t padX, uint8_t* dst,
                                    size_t dstH, size_t dstW, SimdTensorFormatType format);

/* @@POOLING@@ */

/* ---------------------------------------------------------------------------------------- */
/* Normalization layers.                                                                      */
/* ---------------------------------------------------------------------------------------- */

/**
 * L2 normalization with a per-channel scale. The tensor holds `batch` items of `channels`
 * channels by `spatial` pixels in `format` (Nchw or Nhwc); scale has `channels` values and eps
 * points to one value. With acrossSpatial == SimdFalse every pixel is divided by the L2 norm of
 * its channel values: dst = src * scale[c] / sqrt(eps[0] + sum over c of src^2). With SimdTrue
 * one norm is taken over all channels and pixels of each batch item. buf may be NULL (it is not
 * used). src and dst may be the same array. Accuracy: relative error about 1e-6. A bad format,
 * an acrossSpatial other than SimdFalse/SimdTrue, NULL pointers or a size too large for memory
 * are errors (SimdSynetGetLastError) and leave dst untouched; a zero size does nothing.
 */
SIMD_API void SimdSynetNormalizeLayerForward(const float* src, size_t batch, size_t channels,
                                             size_t spatial, const float* scale, const float* eps,
                                             SimdBool acrossSpatial, SimdTensorFormatType format,
                                             float* buf, float* dst);

/**
 * Layer normalization over channels: for every batch item and pixel, with mean and variance
 * (divided by channels) of its channel values, dst = (src - mean) / sqrt(variance + eps[0]) *
 * scale[c] + shift[c]. Layouts, arrays and errors as for SimdSynetNormalizeLayerForward; buf may
 * be NULL (it is not used). The mean is computed in two steps, so rows of large mean and tiny
 * variance keep their precision. src and dst may be the same array.
 */
SIMD_API void SimdSynetNormalizeLayerForwardV2(const float* src, size_t batch, size_t channels,
                                               size_t spatial, const float* scale,
                                               const float* shift, const float* eps,
                                               SimdTensorFormatType format, float* buf,
                                               float* dst);

/**
 * Instance normalization over pixels: for every batch item and channel c, with mean and
 * variance (divided by spatial) of the channel's pixel values, dst = (src - mean) /
 * sqrt(variance + eps[0]) * scale[c] + shift[c]. Layouts, arrays and errors as for
 * SimdSynetNormalizeLayerForwardV2; buf may be NULL (it is not used).
 */
SIMD_API void SimdSynetNormalizeLayerForwardV3(const float* src, size_t batch, size_t channels,
                                               size_t spatial, const float* scale,
                                               const float* shift, const float* eps,
                                               SimdTensorFormatType format, float* buf,
                                               float* dst);

/**
 * Channel-norm reweighting: for every batch item, n[c] = sqrt(sum over pixels of src^2) for each
 * channel, r = 1 / (mean of n over channels + eps[0]) (eps is not under a square root), and
 * dst = src * (1 + scale[c] * n[c] * r) + shift[c]. buf is a scratch array of `channels` floats
 * (its content afterwards is unspecified) or NULL, in which case an internal array is allocated
 * for the call (failure to allocate is an error). Layouts and errors as for
 * SimdSynetNormalizeLayerForwardV2. src and dst may be the same array.
 */
SIMD_API void SimdSynetNormalizeLayerForwardV4(const float* src, size_t batch, size_t channels,
                                               size_t spatial, const float* scale,
                                               const float* shift, const float* eps,
                                               SimdTensorFormatType format, float* buf,
                                               float* dst);

/**
 * SimdSynetNormalizeLayerForwardV2 on BF16 tensors (uint16_t holding the upper half of an FP32)
 * in Nhwc only (any other format is an error): inputs are widened exactly, the statistics and
 * the affine step are computed in FP32 and each output is rounded once to BF16 (nearest, ties to
 * even; NaN stays NaN). buf may be NULL (it is not used). src and dst may be the same array.
 */
SIMD_API void SimdSynetNormalizeLayerForward16bV2(const uint16_t* src, size_t batch,
                                                  size_t channels, size_t spatial,
                                                  const float* scale, const float* shift,
                                                  const float* eps, SimdTensorFormatType format,
                                                  float* buf, uint16_t* dst);

/* @@NORMALIZATION@@ */

/**
 * Softmax layer: src and dst are arrays of outer x count x inner floats; for every outer index o
 * and inner index i the count values src[(o*count + c)*inner + i], c < count, are replaced by
 * e^(x_c - m)/sum_c' e^(x_c' - m), where m is their maximum (so large inputs do not overflow).
 * dst may equal src (in place). A zero outer, count or inner is a no-op.
 */
SIMD_API void SimdSynetSoftmaxLayerForward(const float* src, size_t outer, size_t count,
                                           size_t inner, float* dst);

/**
 * Local response normalisation across channels: for channel c of every pixel,
 * dst = src * (k[0] + k[1]*sum)^k[2], where sum adds the squares of src over the channels
 * max(0, c - half) .. min(channels, c + half + 1) - 1 of the same pixel, and the power is
 * evaluated as exp(k[2]*log(k[0] + k[1]*sum)). Callers usually pass k[0] = 1 (or bias),
 * k[1] = alpha/(2*half + 1) and k[2] = -beta. The tensors hold channels x spatial floats in
 * format Nchw or Nhwc (blocked formats are rejected); src and dst must not overlap.
 */
SIMD_API void SimdSynetLrnLayerCrossChannels(const float* src, size_t half, size_t channels,
                                             size_t spatial, const float* k, float* dst,
                                             SimdTensorFormatType format);

/**
 * Fully connected layer: dst[i] = bias[i] + sum_j src[j]*weight[i*size + j] for i < count,
 * with weight stored row by row (count rows of size floats). bias may be NULL (no bias). The
 * summation order is unspecified. A zero count or size is a no-op (dst is not written).
 */
SIMD_API void SimdSynetInnerProductLayerForward(const float* src, const float* weight,
                                                const float* bias, size_t count, size_t size,
                                                float* dst);

/* @@SOFTMAX_LRN_INNERPRODUCT@@ */

/**
 * Matrix product C = alpha[0]*A*B + beta[0]*C of row-major FP32 matrices: A is M x K with rows
 * lda apart (lda >= K), B is K x N with rows ldb apart (ldb >= N when K > 0), C is M x N with
 * rows ldc apart (ldc >= N). alpha and beta point to one float each. When beta[0] == 0, C is only
 * written (its previous content, NaN included, does not matter); K == 0 gives C = beta[0]*C.
 * Sums run in any order with fused multiply-adds (accuracy class ACC). M == 0 or N == 0 is a
 * no-op; NULL pointers (A and B may be NULL when K == 0), leading dimensions below the minimum
 * or matrices whose byte size overflows size_t are rejected without writing C (see
 * SimdSynetGetLastError). The columns of C between N and ldc are not touched. This function
 * satisfies the SimdGemm32fNNPtr contract. Large products split the columns of C over the
 * thread budget of SimdSetThreadNumber; the result is bit-identical for any budget. If the
 * packing scratch cannot be allocated the call reports it (with several threads, the columns
 * of the threads that did get their scratch are already written).
 */
SIMD_API void SimdGemm32fNN(size_t M, size_t N, size_t K, const float* alpha, const float* A,
                            size_t lda, const float* B, size_t ldb, const float* beta, float* C,
                            size_t ldc);

/**
 * Matrix product C = alpha[0]*A*transpose(B) + beta[0]*C: as SimdGemm32fNN, except that B is
 * stored as N x K (row j holds column j of the product's right operand) with rows ldb apart,
 * ldb >= K.
 */
SIMD_API void SimdGemm32fNT(size_t M, size_t N, size_t K, const float* alpha, const float* A,
                            size_t lda, const float* B, size_t ldb, const float* beta, float* C,
                            size_t ldc);

/* @@GEMM@@ */

/* ---------------------------------------------------------------------------------------- */
/* Winograd transforms of a stride-1 convolution, F(bY x bX, kY x kX).                        */
/* ---------------------------------------------------------------------------------------- */

/*
 * The functions below come in seven variants named Kernel<kY>x<kX>Block<bY>x<bX>: output tile
 * (block) bY x bX, kernel kY x kX, input tile tY x tX with tY = bY + kY - 1, tX = bX + kX - 1,
 * and count = tY*tX transformed planes (plane k = i*tX + j). Kernel1x3Block1x4 and
 * Kernel1x5Block1x4 are 1-D along X (tY = 1). trans == SimdFalse means channel-first data
 * (NCHW image, OIYX filter), SimdTrue channel-last data (NHWC image, YXIO filter); any other
 * value is rejected. A convolution runs as: SetFilter once; per image SetInput, then for every
 * plane k a matrix product (trans 0: M_k[dstC x T] = U_k[dstC x srcC] * V_k[srcC x T];
 * trans 1: M_k[T x dstC] = V_k[T x srcC] * U_k[srcC x dstC]), then SetOutput. The transforms are
 * linear (results within 1e-4 relative of the exact products of the transform matrices).
 * Rejected calls (NULL pointer, bad trans, a stride below channels*tiles, sizes whose byte
 * counts overflow size_t) write nothing and record a message for SimdSynetGetLastError.
 * Buffers must not overlap.
 *
 * SetFilter: transforms `size` = srcC*dstC filters g of kY x kX taps into U = G*g*G^T,
 * stored dst[k*size + f]. With trans 0 tap (ky,kx) of filter f = o*srcC + i is
 * src[f*kY*kX + ky*kX + kx]; with trans 1 it is src[(ky*kX + kx)*size + f], f = i*dstC + o.
 * size == 0 does nothing.
 *
 * SetInput: one image of srcChannels x srcHeight x srcWidth ([C][H][W] for trans 0,
 * [H][W][C] for trans 1), padded by padY rows on top, padH below, padX columns left and padW
 * right (padding reads as zero), is cut into tiles of tY x tX starting every bY rows and bX
 * columns: outH = padY + srcHeight + padH - kY + 1, outW likewise, tileH = ceil(outH/bY),
 * tileW = ceil(outW/bX), T = tileH*tileW; tile pixels beyond the padded image are zero. Each
 * tile d becomes V = B^T*d*B stored at dst[k*dstStride + c*T + t] (trans 0) or
 * dst[k*dstStride + t*srcChannels + c] (trans 1), t = ty*tileW + tx; dstStride >=
 * srcChannels*T. Any padding is accepted and follows this definition (the portable set is:
 * 1x3: padX = padW in {0,1}; 1x5: padX = padW in {0,2}, padY = padH = 0 for both; 2x2 blocks:
 * padY = padX, padH = padW, padY + padH <= 1; 3x3 Block2x2/3x3: all four equal, 0 or 1;
 * 3x3 Block4x4: each 0 or 1). A zero channel count, height or width, or an image with
 * padding smaller than the kernel (no tile), does nothing.
 *
 * SetOutput: for tileH = ceil(dstHeight/bY), tileW = ceil(dstWidth/bX), T = tileH*tileW,
 * gathers m from src[k*srcStride + c*T + t] (trans 0) or src[k*srcStride + t*dstChannels + c]
 * (trans 1), srcStride >= dstChannels*T, and assigns Y = A^T*m*A to the output pixels of the
 * tile that lie inside dstHeight x dstWidth (each written once; [C][H][W] for trans 0,
 * [H][W][C] for trans 1). No bias or activation. A zero extent does nothing.
 */

/** Filter transform of F(1x4, 1x3): 1-D, tile 1x6, 6 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel1x3Block1x4SetFilter(const float* src, size_t size, float* dst,
                                          SimdBool trans);
/** Input transform of F(1x4, 1x3): 1-D, tile 1x6, 6 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel1x3Block1x4SetInput(const float* src, size_t srcChannels,
                                         size_t srcHeight, size_t srcWidth, size_t padY,
                                         size_t padX, size_t padH, size_t padW, float* dst,
                                         size_t dstStride, SimdBool trans);
/** Output transform of F(1x4, 1x3): 1-D, tile 1x6, 6 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel1x3Block1x4SetOutput(const float* src, size_t srcStride, float* dst,
                                          size_t dstChannels, size_t dstHeight,
                                          size_t dstWidth, SimdBool trans);

/** Filter transform of F(1x4, 1x5): 1-D, tile 1x8, 8 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel1x5Block1x4SetFilter(const float* src, size_t size, float* dst,
                                          SimdBool trans);
/** Input transform of F(1x4, 1x5): 1-D, tile 1x8, 8 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel1x5Block1x4SetInput(const float* src, size_t srcChannels,
                                         size_t srcHeight, size_t srcWidth, size_t padY,
                                         size_t padX, size_t padH, size_t padW, float* dst,
                                         size_t dstStride, SimdBool trans);
/** Output transform of F(1x4, 1x5): 1-D, tile 1x8, 8 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel1x5Block1x4SetOutput(const float* src, size_t srcStride, float* dst,
                                          size_t dstChannels, size_t dstHeight,
                                          size_t dstWidth, SimdBool trans);

/** Filter transform of F(2x2, 2x2): tile 3x3, 9 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel2x2Block2x2SetFilter(const float* src, size_t size, float* dst,
                                          SimdBool trans);
/** Input transform of F(2x2, 2x2): tile 3x3, 9 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel2x2Block2x2SetInput(const float* src, size_t srcChannels,
                                         size_t srcHeight, size_t srcWidth, size_t padY,
                                         size_t padX, size_t padH, size_t padW, float* dst,
                                         size_t dstStride, SimdBool trans);
/** Output transform of F(2x2, 2x2): tile 3x3, 9 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel2x2Block2x2SetOutput(const float* src, size_t srcStride, float* dst,
                                          size_t dstChannels, size_t dstHeight,
                                          size_t dstWidth, SimdBool trans);

/** Filter transform of F(4x4, 2x2): tile 5x5, 25 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel2x2Block4x4SetFilter(const float* src, size_t size, float* dst,
                                          SimdBool trans);
/** Input transform of F(4x4, 2x2): tile 5x5, 25 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel2x2Block4x4SetInput(const float* src, size_t srcChannels,
                                         size_t srcHeight, size_t srcWidth, size_t padY,
                                         size_t padX, size_t padH, size_t padW, float* dst,
                                         size_t dstStride, SimdBool trans);
/** Output transform of F(4x4, 2x2): tile 5x5, 25 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel2x2Block4x4SetOutput(const float* src, size_t srcStride, float* dst,
                                          size_t dstChannels, size_t dstHeight,
                                          size_t dstWidth, SimdBool trans);

/** Filter transform of F(2x2, 3x3): tile 4x4, 16 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel3x3Block2x2SetFilter(const float* src, size_t size, float* dst,
                                          SimdBool trans);
/** Input transform of F(2x2, 3x3): tile 4x4, 16 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel3x3Block2x2SetInput(const float* src, size_t srcChannels,
                                         size_t srcHeight, size_t srcWidth, size_t padY,
                                         size_t padX, size_t padH, size_t padW, float* dst,
                                         size_t dstStride, SimdBool trans);
/** Output transform of F(2x2, 3x3): tile 4x4, 16 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel3x3Block2x2SetOutput(const float* src, size_t srcStride, float* dst,
                                          size_t dstChannels, size_t dstHeight,
                                          size_t dstWidth, SimdBool trans);

/** Filter transform of F(3x3, 3x3): tile 5x5, 25 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel3x3Block3x3SetFilter(const float* src, size_t size, float* dst,
                                          SimdBool trans);
/** Input transform of F(3x3, 3x3): tile 5x5, 25 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel3x3Block3x3SetInput(const float* src, size_t srcChannels,
                                         size_t srcHeight, size_t srcWidth, size_t padY,
                                         size_t padX, size_t padH, size_t padW, float* dst,
                                         size_t dstStride, SimdBool trans);
/** Output transform of F(3x3, 3x3): tile 5x5, 25 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel3x3Block3x3SetOutput(const float* src, size_t srcStride, float* dst,
                                          size_t dstChannels, size_t dstHeight,
                                          size_t dstWidth, SimdBool trans);

/** Filter transform of F(4x4, 3x3): tile 6x6, 36 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel3x3Block4x4SetFilter(const float* src, size_t size, float* dst,
                                          SimdBool trans);
/** Input transform of F(4x4, 3x3): tile 6x6, 36 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel3x3Block4x4SetInput(const float* src, size_t srcChannels,
                                         size_t srcHeight, size_t srcWidth, size_t padY,
                                         size_t padX, size_t padH, size_t padW, float* dst,
                                         size_t dstStride, SimdBool trans);
/** Output transform of F(4x4, 3x3): tile 6x6, 36 planes. See the Winograd notes above. */
SIMD_API void SimdWinogradKernel3x3Block4x4SetOutput(const float* src, size_t srcStride, float* dst,
                                          size_t dstChannels, size_t dstHeight,
                                          size_t dstWidth, SimdBool trans);

/* @@WINOGRAD@@ */

/**
 * Creates an FP32 convolution context (SUPPLEMENT.md 8) for `batch` images of the shape in
 * *conv (copied). srcT and dstT must be 32f, srcF == dstF either Nchw or Nhwc, dstH/dstW must
 * follow the output-size rule, group must divide srcC and dstC, kernel, stride and dilation
 * must be at least 1, activation one of SimdConvolutionActivationType and batch at least 1;
 * otherwise NULL is returned and SimdSynetGetLastError names the offending field. gemm is an
 * optional matrix product (NULL: the library's own) used by the GEMM-based algorithms, called
 * only from Forward with alpha 1 and beta 0. The algorithm is chosen here per shape and
 * instruction set (see SimdSynetConvolution32fInfo). Destroy the context with SimdRelease.
 */
SIMD_API void* SimdSynetConvolution32fInit(size_t batch, const SimdConvolutionParameters* conv,
                                           SimdGemm32fNNPtr gemm);

/**
 * Number of floats of scratch a Forward call needs when the caller passes its own buffer
 * (at least 1, fixed after Init). Returns 0 for a NULL context.
 */
SIMD_API size_t SimdSynetConvolution32fExternalBufferSize(const void* context);

/**
 * Number of floats the context owns at present: re-ordered weights, copies of bias and
 * activation parameters, and the scratch it allocated for Forward calls without a buffer.
 */
SIMD_API size_t SimdSynetConvolution32fInternalBufferSize(const void* context);

/**
 * Gives the context its parameters (call before Forward; may be called again). weight holds
 * kernelY*kernelX*srcC*dstC/group floats: OIYX for Nchw, YXIO (I = srcC/group) for Nhwc.
 * bias holds dstC floats or is NULL (zeros). params holds the activation parameters (dstC
 * slopes for Prelu) and may be NULL only for Identity, Relu and Gelu. The context copies
 * everything, so *internal (when internal is not NULL) is set to SimdTrue.
 */
SIMD_API void SimdSynetConvolution32fSetParams(void* context, const float* weight,
                                               SimdBool* internal, const float* bias,
                                               const float* params);

/**
 * Convolves the batch of images in src into dst (same layout), adding the bias and applying
 * the activation. buf is NULL (the context uses scratch of its own) or a caller buffer of
 * ExternalBufferSize floats, whose content is overwritten; with a caller buffer the context
 * is only read, so threads with separate buffers may share one context.
 */
SIMD_API void SimdSynetConvolution32fForward(void* context, const float* src, float* buf,
                                             float* dst);

/**
 * Forward with a residual (beyond the seeds; ONNX Runtime's fused Conv + Add): dst =
 * activation(convolution(src) + bias + add), the sum taken before the activation, as a residual
 * block's convolution, Add and ReLU compute it. add holds a tensor of dst's shape and layout
 * (batch * dstC * dstH * dstW floats) and must not overlap dst (or the call fails: outputs
 * stored twice by the kernels would read their own results back as residuals). buf and
 * sharing as for Forward. The GEMM-based algorithms (NHWC direct, NCHW GEMM, Winograd) add it
 * in the epilogue of each output block; the depthwise, grouped and NCHW-rows ones in a pass
 * after the convolution. On a NULL pointer, a context of another framework, a context without
 * SetParams or overlapping add and dst nothing is written and SimdSynetGetLastError says why.
 */
SIMD_API void SimdSynetConvolution32fForwardAdd(void* context, const float* src, float* buf,
                                                const float* add, float* dst);

/**
 * Names the algorithm and instruction set the context runs, e.g. "avx512::nhwc-gemm-12x32"
 * (static for the lifetime of the context; NULL for a NULL context).
 */
SIMD_API const char* SimdSynetConvolution32fInfo(const void* context);

/* ---------------------------------------------------------------------------------------- */
/* INT8 convolution (SUPPLEMENT.md 11).                                                       */
/* ---------------------------------------------------------------------------------------- */

/**
 * Creates an INT8 convolution context for `batch` images of the shape in *conv (copied).
 * conv->srcT and conv->dstT are each SimdTensorData32f or SimdTensorData8u, srcF == dstF either
 * Nchw or Nhwc; geometry, groups (depthwise included), weight layouts and the output-size rule
 * are those of SimdSynetConvolution32fInit. Returns NULL (SimdSynetGetLastError names the
 * field) for anything else. Release the context with SimdRelease.
 *
 * compatibility & SimdSynetCompatibility8iMask selects the integer ranges and arithmetic:
 *  - 8iNarrowed: UINT8 values in [0, 180], INT8 weights in [-90, 90]; exact sums.
 *  - 8iPrecise (0): [0, 255] and [-128, 127]; exact sums.
 *  - 8iOverflow: ranges of 8iPrecise; within each kernel tap the products of input channels
 *    2j and 2j + 1 of the group are summed in int16 with saturation to [-32768, 32767] (the
 *    x86 PMADDUBSW rule) before the INT32 sum; an odd last channel is added alone. Identical
 *    results on every instruction set (AVX-512 VNNI CPUs run PMADDUBSW in this mode).
 *  - any other value of the field (12) acts as 8iPrecise.
 * The other compatibility fields have no effect. On AVX-512 CPUs with AVX512_VNNI the kernels use
 * VPDPBUSD; the environment variable SIMD_SYNET_VNNI=0, read here, keeps the context on the
 * plain AVX-512 kernels (same results).
 */
SIMD_API void* SimdSynetConvolution8iInit(size_t batch, const SimdConvolutionParameters* conv,
                                          SimdSynetCompatibilityType compatibility);

/** Size in BYTES of the scratch buffer Forward needs when the caller passes one (buf); fixed
 * after Init; 0 for a NULL context. */
SIMD_API size_t SimdSynetConvolution8iExternalBufferSize(const void* context);

/** Size in BYTES of the memory the context owns now (quantized and re-ordered weights, the
 * quantization parameters, scratch of Forward calls made with buf NULL). Informational. */
SIMD_API size_t SimdSynetConvolution8iInternalBufferSize(const void* context);

/** Names the instruction set, algorithm, tile and dot product of the context, e.g.
 * "avx512::nhwc-direct-6x64-vnni"; owned by the context (NULL for a NULL context). */
SIMD_API const char* SimdSynetConvolution8iInfo(const void* context);

/**
 * Quantizes the layer (call before Forward; may be called again). weight: FP32 in the layout of
 * SimdSynetConvolution32fSetParams. bias: dstC values or NULL (zeros). params: the activation
 * parameters (dstC slopes for Prelu), NULL only when the activation reads none. stats: four
 * arrays, stats[0]/stats[1] the minimum/maximum of each input channel (srcC values, needed
 * whatever srcT is: they scale the weights), stats[2]/stats[3] those of each output channel
 * (dstC values, read only when dstT is 8u); min <= max is checked. Nothing is kept by pointer.
 *
 * With uMax, iMin, iMax the ranges of the mode, a tensor's quantizer is: signed = any minimum
 * below 0; step q[c] = max(|min[c]|, |max[c]|) / (signed ? iMax : uMax), replaced by 1 below
 * 1e-7; zero point z = signed ? -iMin : 0; x -> clamp(round(x * (1/q[c]) + z), 0, uMax) with
 * the FP32 steps, rounding (half to even) and NaN rule of SimdSynetConvert32fTo8u. Weights of
 * output channel d: w' = w * q_src[ci], s = iMax / max|w'| (1 when max|w'| < 1e-30),
 * w8 = clamp(round(w' * s), iMin, iMax); norm = 1/s and bias' = bias - float(corr) / s with
 * corr the integer sum of w8 * z_src over the filter (FP32 steps in that order).
 */
SIMD_API void SimdSynetConvolution8iSetParams(void* context, const float* weight,
                                              const float* bias, const float* params,
                                              const float* const* stats);

/**
 * Runs the layer on `batch` images: src holds srcT values (FP32 inputs are quantized with the
 * input quantizer; UINT8 inputs are taken as already quantized, and in 8iNarrowed must not
 * exceed 180), dst receives dstT values, both in srcF. Per output: the INT32 sum of w8 * u8 over
 * the window, where taps in the padding read the input zero point (real value 0); then
 * y = float(sum) * norm + bias' in FP32, the activation in FP32 (Identity, Relu, LeakyRelu,
 * RestrictRange, Prelu, Hswish and HardSigmoid evaluated exactly as SUPPLEMENT.md 3.1 writes
 * them, without fused multiply-adds, the others to within 1e-6 relative), then y, or y
 * quantized with the output quantizer. buf is NULL (the context uses its own scratch) or at
 * least ExternalBufferSize bytes of any alignment, overwritten; with a caller buffer the context
 * is only read, so threads with their own buffers may share it. Work is split over the
 * SimdSetThreadNumber budget with identical results for any thread count.
 */
SIMD_API void SimdSynetConvolution8iForward(void* context, const uint8_t* src, uint8_t* buf,
                                            uint8_t* dst);

/* @@CONVOLUTION@@ */

/**
 * Creates an FP32 deconvolution (transposed convolution, SUPPLEMENT.md 9.1) context for `batch`
 * images of the shape in *conv (copied). srcT and dstT must be 32f and srcF == dstF either
 * Nchw (any group dividing srcC and dstC) or Nhwc (group 1 only). dstH and dstW must equal
 * stride*(src - 1) + dilation*(kernel - 1) + 1 minus both pads of that axis (the pads crop the
 * full transposed output) and be at least 1; kernel, stride and dilation must be at least 1,
 * activation one of SimdConvolutionActivationType, batch at least 1. On any violation NULL is
 * returned and SimdSynetGetLastError names the offending field. gemm is an optional matrix
 * product (NULL: the library's own) for the column matrix, called only from Forward with
 * alpha 1 and beta 0. Destroy the context with SimdRelease.
 */
SIMD_API void* SimdSynetDeconvolution32fInit(size_t batch, const SimdConvolutionParameters* conv,
                                             SimdGemm32fNNPtr gemm);

/**
 * Number of floats of scratch one Forward call needs when the caller supplies buf (at least 1,
 * fixed after Init). Returns 0 for a NULL context.
 */
SIMD_API size_t SimdSynetDeconvolution32fExternalBufferSize(const void* context);

/**
 * Number of floats the deconvolution context holds now: re-ordered weights, its copies of bias
 * and activation parameters, and scratch it allocated for Forward calls made with buf NULL.
 */
SIMD_API size_t SimdSynetDeconvolution32fInternalBufferSize(const void* context);

/**
 * Hands the deconvolution its parameters before the first Forward (a later call replaces them).
 * weight holds srcC*(dstC/group)*kernelY*kernelX floats, input channel first: laid out
 * [srcC][dstC/group][kernelY][kernelX] for Nchw and [srcC][kernelY][kernelX][dstC] for Nhwc.
 * bias is dstC floats or NULL (zeros); params are the activation parameters (dstC slopes for
 * Prelu), NULL allowed only when the activation reads none. Everything is copied, so
 * *internal (if internal is not NULL) becomes SimdTrue.
 */
SIMD_API void SimdSynetDeconvolution32fSetParams(void* context, const float* weight,
                                                 SimdBool* internal, const float* bias,
                                                 const float* params);

/**
 * Runs the transposed convolution over the batch in src, writing every value of dst (same
 * layout), bias and activation applied. buf is NULL (the context grows scratch of its own) or
 * at least ExternalBufferSize floats owned by the caller and overwritten; with a caller buffer
 * the context is only read, so threads with their own buffers may share one context. Work is
 * split over the SimdSetThreadNumber budget with results identical for any thread count.
 */
SIMD_API void SimdSynetDeconvolution32fForward(void* context, const float* src, float* buf,
                                               float* dst);

/**
 * Describes the algorithm and instruction set of the context, e.g.
 * "avx512::nchw-gemm-6x64-col2im-band9" (valid while the context lives; NULL for a NULL
 * context).
 */
SIMD_API const char* SimdSynetDeconvolution32fInfo(const void* context);

/**
 * Creates a BF16 deconvolution (transposed convolution) context. Parameters, weight layouts,
 * grouping and the output-size rule are those of SimdSynetDeconvolution32fInit, except that
 * conv->srcT and conv->dstT may each be SimdTensorData32f or SimdTensorData16b. Inputs and
 * weights are rounded to BF16, their products are summed in FP32, bias and activation are
 * applied in FP32 and the result is stored as FP32 or rounded once to BF16 (dstT).
 * Returns NULL (with a message from SimdSynetGetLastError naming the offending field) for any
 * other type, srcF != dstF, a format other than Nchw/Nhwc, Nhwc with group != 1, a size-rule
 * violation or an unknown activation. compatibility is kept for API compatibility and does
 * not change results. Release the context with SimdRelease.
 */
SIMD_API void* SimdSynetDeconvolution16bInit(size_t batch, const SimdConvolutionParameters* conv,
                                             SimdSynetCompatibilityType compatibility);

/** Size in BYTES of the scratch buffer Forward needs when the caller passes one (buf). */
SIMD_API size_t SimdSynetDeconvolution16bExternalBufferSize(const void* context);

/** Size in BYTES of the memory the context currently owns (re-ordered BF16 weights kept as
 * FP32, or as BF16 where AMX tiles multiply them; bias, activation parameters, its own
 * scratch). Informational. */
SIMD_API size_t SimdSynetDeconvolution16bInternalBufferSize(const void* context);

/** Short description of the chosen implementation ("<isa>::<algorithm>..."), owned by the
 * context and valid until the next call on it or its release. */
SIMD_API const char* SimdSynetDeconvolution16bInfo(const void* context);

/**
 * Sets the FP32 weights (layout of SimdSynetDeconvolution32fSetParams), rounded to BF16 and
 * copied; bias (dstC values, NULL means zeros) and the activation parameters are copied in
 * FP32. The caller's arrays are not read afterwards. Must be called before Forward.
 */
SIMD_API void SimdSynetDeconvolution16bSetParams(void* context, const float* weight,
                                                 const float* bias, const float* params);

/**
 * Runs the deconvolution on batch images: src holds srcT values, dst receives dstT values
 * (byte pointers to the tensors of the declared types and format). buf is NULL (the context
 * uses its own scratch) or a caller buffer of at least ExternalBufferSize bytes, any alignment,
 * whose content is overwritten.
 */
SIMD_API void SimdSynetDeconvolution16bForward(void* context, const uint8_t* src, uint8_t* buf,
                                               uint8_t* dst);

/* @@DECONVOLUTION@@ */

/**
 * Creates a context that runs a chain of two or three FP32 convolutions as one layer, keeping
 * the intermediate tensors in cache-sized row bands instead of caller memory. Accepted chains
 * (NHWC, FP32, square kernels, equal strides 1..3, no dilation): expand P (group 1, kernel 1
 * or 3) -> depthwise D (group == channels, kernel 3, 5 or 7) -> projection Q (group 1, 1x1,
 * stride 1); P -> D; D -> Q. Each convs[i+1] must take convs[i]'s output shape.
 * @param batch number of images processed by one Forward (>= 1).
 * @param convs count stage descriptions in execution order; copied.
 * @param count 2 or 3.
 * @param add with count == 3: SimdTrue adds the chain input to the final (activated) output,
 *            which then must have the input's shape; ignored when count == 2.
 * @return the context (release with SimdRelease), or NULL with a message naming the offending
 *         convs[i] field in SimdSynetGetLastError.
 */
SIMD_API void* SimdSynetMergedConvolution32fInit(size_t batch,
                                                 const SimdConvolutionParameters* convs,
                                                 size_t count, SimdBool add);

/**
 * Number of floats of scratch that SimdSynetMergedConvolution32fForward needs when the caller
 * passes its own buffer (at least 1; fixed after Init).
 */
SIMD_API size_t SimdSynetMergedConvolution32fExternalBufferSize(const void* context);

/**
 * Number of floats the context currently owns: packed weights, copies of bias and activation
 * parameters, and scratch allocated by a Forward called with a NULL buffer.
 */
SIMD_API size_t SimdSynetMergedConvolution32fInternalBufferSize(const void* context);

/**
 * Gives the context the weights, biases and activation parameters of every stage; must be
 * called before Forward and may be called again. Everything is copied.
 * @param weight count pointers (required), stage i in the NHWC layout of its convolution.
 * @param internal NULL or count flags, each set to SimdTrue (the caller's arrays are not kept).
 * @param bias NULL (no stage has a bias) or count pointers, each NULL or dstC floats.
 * @param params NULL or count pointers; entry i may be NULL when stage i's activation reads no
 *               parameter.
 */
SIMD_API void SimdSynetMergedConvolution32fSetParams(void* context, const float* const* weight,
                                                     SimdBool* internal, const float* const* bias,
                                                     const float* const* params);

/**
 * Runs the chain on batch images of src (NHWC) into dst. buf is NULL (the context uses its own
 * scratch) or ExternalBufferSize floats of caller scratch; with a caller buffer the context is
 * not modified, so several threads may run one context with separate buffers.
 */
SIMD_API void SimdSynetMergedConvolution32fForward(void* context, const float* src, float* buf,
                                                   float* dst);

/**
 * A text naming the target and algorithm, e.g. "avx512::merged-pdq-band8"; owned by the
 * context, informational only.
 */
SIMD_API const char* SimdSynetMergedConvolution32fInfo(const void* context);

/* @@MERGED_CONVOLUTION@@ */

#ifdef __cplusplus
}
#endif

#endif /* SIMD_SYNET_H */
