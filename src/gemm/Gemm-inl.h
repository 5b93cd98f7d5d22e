// The GEMM compute core, per Highway target: packing of A and B into panels, the register-blocked
// micro-kernel and the blocked driver. Other families (convolution, inner product) include this
// header from their own foreach_target translation unit and call the pieces directly:
//
//   GemmTraits<D>::kRows x kCols    the micro-tile (rows of A x columns of B, kCols = kVecs
//                                   vectors) of this target
//   GemmPackB / GemmPackBTransposed a kc x nc block of B into column panels of kCols, each kc
//                                   rows of kCols floats, zero-padded to whole panels
//   GemmPackA                       an mc x kc block of A into row micro-panels of kRows rows of
//                                   kc floats, zero-padded to whole micro-panels
//   GemmMacroKernel                 C block (mc x nc) op= alpha * packedA * packedB
//   Gemm32f                         the whole product with cache blocking and its own scratch
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_GEMM_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_GEMM_GEMM_INL_H_
#undef SIMD_SYNET_GEMM_GEMM_INL_H_
#else
#define SIMD_SYNET_GEMM_GEMM_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "core/ScratchCache.h"
#include "core/VectorSteps-inl.h"
#include "gemm/GemmBlocking.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Micro-tile shape per target: kRows x kVecs accumulators plus kVecs loaded B vectors and one
// broadcast A value must fit the register file (16 vector registers on SSE4/AVX2, 32 on
// AVX-512 and NEON). Measured on Zen4 at 1024^3 (bench/gemm_bench.cpp): AVX-512 6x4 ~91% of
// the FMA peak, 12x2 ~87%, 8x3 ~68% (48 columns also waste work on N = 64); AVX2 6x2 ~92%.
template <class D>
struct GemmTraits {
#if HWY_TARGET == HWY_SCALAR
    static constexpr size_t kRows = 4, kVecs = 4;
#elif HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3
    static constexpr size_t kRows = 6, kVecs = 2;
#elif HWY_ARCH_X86
    static constexpr size_t kRows = 6, kVecs = 4;
#else
    static constexpr size_t kRows = 8, kVecs = 3;
#endif
    static constexpr size_t kLanes = hn::MaxLanes(D());
    static constexpr size_t kCols = kVecs * kLanes;
};

// The micro-tile of a product whose B has `cols` columns (convolution output channels) and A
// `m` rows (output pixels): kRows x kVecs, except that with 4-vector tiles (AVX-512) at most 32
// columns take 14 rows of 2 vectors and at most 16 columns 14 rows of 1 vector, where the wide
// tile would leave half or more of every panel on zeros (14 divides the 112/56/28-pixel rows of
// first layers), and that a single row (m == 1: a classifier's 1x1 convolution on a 1x1 image)
// takes a 1-row tile of the full width, where kRows rows would multiply kRows - 1 rows of zeros
// (1x1 1024->1000 on Zen 5: 41-43 -> 40-41 us; streaming its weights takes 34-41 us).
template <class D>
struct GemmTileShape {
    using T = GemmTraits<D>;
    static constexpr size_t kNarrowRows = 14;
    size_t rows, vecs;
    explicit GemmTileShape(size_t cols, size_t m = 0)
        : rows(T::kVecs == 4 && cols <= 2 * T::kLanes ? kNarrowRows : T::kRows),
          vecs(T::kVecs != 4 || cols > 2 * T::kLanes ? T::kVecs
               : cols > T::kLanes                    ? 2
                                                     : 1) {
        if (m == 1 && vecs == T::kVecs) rows = 1;
    }
    size_t Cols() const { return vecs * T::kLanes; }
};

// Calls f(rows, vecs), both std::integral_constant, for the tile `shape`.
template <class D, class F>
HWY_INLINE void WithGemmTile(const GemmTileShape<D>& shape, const F& f) {
    using T = GemmTraits<D>;
    using Rows = std::integral_constant<size_t, GemmTileShape<D>::kNarrowRows>;
    if (shape.rows == 1)
        return f(std::integral_constant<size_t, 1>(), std::integral_constant<size_t, T::kVecs>());
    if constexpr (T::kVecs == 4) {
        if (shape.vecs == 1) return f(Rows(), std::integral_constant<size_t, 1>());
        if (shape.vecs == 2) return f(Rows(), std::integral_constant<size_t, 2>());
    }
    f(std::integral_constant<size_t, T::kRows>(), std::integral_constant<size_t, T::kVecs>());
}

// How the finished tile combines with C: the first K chunk writes alpha*AB (beta == 0: C is
// never read, so NaN there does not matter) or alpha*AB + beta*C; later chunks add alpha*AB.
enum class GemmStore { kOverwrite, kBlend, kAccumulate };

template <class D>
HWY_INLINE hn::Vec<D> GemmCombine(D d, hn::Vec<D> acc, const float* c, hn::Vec<D> alpha,
                                  hn::Vec<D> beta, GemmStore mode) {
    if (mode == GemmStore::kOverwrite) return hn::Mul(alpha, acc);
    if (mode == GemmStore::kAccumulate) return hn::MulAdd(alpha, acc, hn::LoadU(d, c));
    return hn::MulAdd(alpha, acc, hn::Mul(beta, hn::LoadU(d, c)));
}

// Lines [begin, end) that a micro-kernel requests into L2 while it computes, perStep lines
// per K step (none when begin is null): the next B panel, fetched behind this one's FMAs.
struct GemmLinePrefetch {
    const char* begin = nullptr;
    const char* end = nullptr;
    size_t perStep = 0;
};

// Tile t's share of the lines of the `floats`-long B panel at `next` (the panel a caller takes
// after the current one), when the `tiles` tiles of the current panel fetch it between them
// over their kc K steps: as few lines per step as cover the share (one where there are at least
// as many tiles as the panel has vectors), no request when there is no next panel.
inline GemmLinePrefetch GemmPrefetchShare(const float* next, size_t floats, size_t tiles, size_t t,
                                          size_t kc) {
    constexpr size_t kLine = 64;
    const size_t lines = (floats * sizeof(float) + kLine - 1) / kLine;
    const size_t share = (lines + tiles - 1) / tiles;
    GemmLinePrefetch pf;
    if (!next || t * share >= lines) return pf;
    pf.begin = reinterpret_cast<const char*>(next) + t * share * kLine;
    pf.end = reinterpret_cast<const char*>(next) + std::min(lines, (t + 1) * share) * kLine;
    pf.perStep = (share + kc - 1) / kc;
    return pf;
}

// acc[r][v] += sum over k < kc of a[r*aStride + k] * b[k*bStride + v*lanes ...]: the register
// tile of the micro-kernels (R rows of A, `aStride` apart; kc rows of a B micro-panel NR = NV
// vectors wide: the target's kCols, or fewer for narrow products; its rows NR floats apart when
// packed, further when read in place). kc >= 1: every caller runs K blocks of a non-empty K.
// The do-while matters: with a loop that might not run, GCC 12 kept a copy of the tile on the
// stack for the path that skips it (zeroed before the loop, spilled after it), 2 x R x NV extra
// stores per tile. With kPrefetch, each K step also requests pf->perStep lines of pf's range
// into L2 (prefetcht1 on x86), advancing pf->begin.
template <bool kPrefetch = false, class D, class V, size_t R, size_t NV>
HWY_INLINE void GemmAccumulate(D d, size_t kc, const float* HWY_RESTRICT a, size_t aStride,
                               const float* HWY_RESTRICT b, V (&acc)[R][NV],
                               size_t bStride = NV * GemmTraits<D>::kLanes,
                               GemmLinePrefetch* pf = nullptr) {
    constexpr size_t L = GemmTraits<D>::kLanes;
    size_t k = 0;
    do {
        if constexpr (kPrefetch) {
            for (size_t i = 0; i < pf->perStep && pf->begin < pf->end; ++i) {
                __builtin_prefetch(pf->begin, 0, 2);
                pf->begin += 64;
            }
        }
        V bv[NV];
#pragma GCC unroll 4
        for (size_t v = 0; v < NV; ++v) bv[v] = hn::LoadU(d, b + v * L);
#pragma GCC unroll 16
        for (size_t r = 0; r < R; ++r) {
            const V av = hn::Set(d, a[r * aStride + k]);
#pragma GCC unroll 4
            for (size_t v = 0; v < NV; ++v) acc[r][v] = hn::MulAdd(av, bv[v], acc[r][v]);
        }
        b += bStride;
    } while (++k < kc);
}

// What happens to finished values on their way to C. A plain product stores them as they are;
// a convolution passes an epilogue that adds the bias and applies the activation in registers
// (`Vector(x, v, p)` for vector v of a whole tile row, `At(x, j, p)` for columns [j, j + lanes)
// of a partial one; p is where the values go, for an epilogue that reads a residual there).
struct GemmNoEpilogue {
    template <class V>
    HWY_INLINE V Vector(V x, size_t, const float*) const {
        return x;
    }
    template <class V>
    HWY_INLINE V At(V x, size_t, const float*) const {
        return x;
    }
};

// Stores the register tile into C (rows x cols of it, at most kRows x kCols) with `mode`.
template <class D, class V, size_t R, size_t NV, class Epi = GemmNoEpilogue>
HWY_INLINE void GemmStoreTile(D d, const V (&acc)[R][NV], float* HWY_RESTRICT c, size_t ldc,
                              size_t rows, size_t cols, float alpha, float beta, GemmStore mode,
                              const Epi& epi = Epi()) {
    constexpr size_t L = GemmTraits<D>::kLanes, NR = NV * L;
    if (rows == R && cols == NR) {
        // A local copy: a vector store may alias anything, so the fields of `epi` would be
        // re-read after each one; the copy's address never escapes, so they stay in registers.
        const Epi e = epi;
        const V va = hn::Set(d, alpha), vb = hn::Set(d, beta);
#pragma GCC unroll 16
        for (size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
            for (size_t v = 0; v < NV; ++v) {
                float* p = c + r * ldc + v * L;
                hn::StoreU(e.Vector(GemmCombine(d, acc[r][v], p, va, vb, mode), v, p), d, p);
            }
        return;
    }
    // A partial tile: through a buffer, each row in steps of whole vectors, then 8, 4 and 1
    // lanes (ForEachVectorStep), the epilogue applied on the way.
    HWY_ALIGN float tile[R * NR];
    for (size_t r = 0; r < R; ++r)
        for (size_t v = 0; v < NV; ++v) hn::Store(acc[r][v], d, tile + r * NR + v * L);
    for (size_t r = 0; r < rows; ++r) {
        float* p = c + r * ldc;
        ForEachVectorStep(d, cols, [&](auto dv, size_t j) HWY_ATTR {
            hn::StoreU(epi.At(GemmCombine(dv, hn::LoadU(dv, tile + r * NR + j), p + j,
                                          hn::Set(dv, alpha), hn::Set(dv, beta), mode),
                              j, p + j),
                       dv, p + j);
        });
    }
}

// C tile (rows x cols, at most R x NR) op= alpha * A micro-panel * B micro-panel: R x NV
// vectors, the target's kRows x kVecs unless given. a: R rows of kc floats, `aStride` apart;
// b: kc rows of NR = NV vectors, `bStride` apart (packed: NR). Rows and columns
// beyond the tile are computed on the zero padding of the panels and not stored.
template <class D, size_t R = GemmTraits<D>::kRows, size_t NV = GemmTraits<D>::kVecs,
          class Epi = GemmNoEpilogue>
HWY_INLINE void GemmMicroKernel(D d, size_t kc, const float* HWY_RESTRICT a, size_t aStride,
                                const float* HWY_RESTRICT b, float* HWY_RESTRICT c, size_t ldc,
                                size_t rows, size_t cols, float alpha, float beta, GemmStore mode,
                                const Epi& epi = Epi(), size_t bStride = NV * GemmTraits<D>::kLanes,
                                GemmLinePrefetch prefetch = GemmLinePrefetch()) {
    using V = hn::Vec<D>;
    if (rows == 1) {
        // A single row (a matrix-vector product such as a 1x1 convolution of one pixel): the
        // zero rows of the panel would cost kRows times the useful FMAs.
        V row[1][NV];
#pragma GCC unroll 4
        for (size_t v = 0; v < NV; ++v) row[0][v] = hn::Zero(d);
        GemmAccumulate(d, kc, a, aStride, b, row, bStride);
        GemmStoreTile(d, row, c, ldc, 1, cols, alpha, beta, mode, epi);
        return;
    }
    V acc[R][NV];
#pragma GCC unroll 16
    for (size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (size_t v = 0; v < NV; ++v) acc[r][v] = hn::Zero(d);
    if (prefetch.begin)
        GemmAccumulate<true>(d, kc, a, aStride, b, acc, bStride, &prefetch);
    else
        GemmAccumulate(d, kc, a, aStride, b, acc, bStride);
    GemmStoreTile(d, acc, c, ldc, rows, cols, alpha, beta, mode, epi);
}

// A run of consecutive K values read in place (no packing) by GemmMicroKernelSegments: `len`
// values at a + offset for the first row, a + offset + r*aStride for row r.
struct GemmASegment {
    size_t offset, len;
};

// As GemmMicroKernel with alpha 1 and beta 0 and a whole tile of R rows, for an A that is not
// packed: its K values are the segments, in order (for a convolution, the kernel taps of R
// output pixels read straight from the image). B is the packed micro-panel of all the
// segments' K values in the same order, so each sum runs in the packed kernel's order.
template <class D, size_t R = GemmTraits<D>::kRows, size_t NV = GemmTraits<D>::kVecs,
          class Epi = GemmNoEpilogue>
HWY_INLINE void GemmMicroKernelSegments(D d, const float* HWY_RESTRICT a, size_t aStride,
                                        const GemmASegment* segments, size_t count,
                                        const float* HWY_RESTRICT b, float* HWY_RESTRICT c,
                                        size_t ldc, size_t cols, GemmStore mode,
                                        const Epi& epi = Epi(),
                                        GemmLinePrefetch prefetch = GemmLinePrefetch()) {
    using V = hn::Vec<D>;
    constexpr size_t NR = NV * GemmTraits<D>::kLanes;
    V acc[R][NV];
#pragma GCC unroll 16
    for (size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (size_t v = 0; v < NV; ++v) acc[r][v] = hn::Zero(d);
    // count >= 1 and every segment non-empty; do-while as in GemmAccumulate.
    size_t s = 0;
    if (prefetch.begin) {
        do {
            GemmAccumulate<true>(d, segments[s].len, a + segments[s].offset, aStride, b, acc, NR,
                                 &prefetch);
            b += segments[s].len * NR;
        } while (++s < count);
    } else {
        do {
            GemmAccumulate(d, segments[s].len, a + segments[s].offset, aStride, b, acc);
            b += segments[s].len * NR;
        } while (++s < count);
    }
    GemmStoreTile(d, acc, c, ldc, R, cols, 1.0f, 0.0f, mode, epi);
}

// How the packing routines read the matrix they pack: Elem is the stored element type and
// Load(d, p) gives the FP32 vector the micro-kernel multiplies. The plain GEMM reads FP32 as it
// is; a caller with another operand type (the BF16 deconvolution) passes its own reader, so
// the conversion happens once per packed panel and the micro-kernel stays the FP32 one.
struct GemmReadF32 {
    using Elem = float;
    template <class D>
    static HWY_INLINE hn::Vec<D> Load(D d, const float* p) {
        return hn::LoadU(d, p);
    }
};

// Copies n values as FP32 (whole vectors, then 1-lane tails).
template <class Read = GemmReadF32, class D>
HWY_INLINE void GemmCopy(D d, const typename Read::Elem* HWY_RESTRICT src, size_t n,
                         float* HWY_RESTRICT dst) {
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (; i + 2 * L <= n; i += 2 * L) {
        hn::StoreU(Read::Load(d, src + i), d, dst + i);
        hn::StoreU(Read::Load(d, src + i + L), d, dst + i + L);
    }
    for (; i + L <= n; i += L) hn::StoreU(Read::Load(d, src + i), d, dst + i);
    const hn::CappedTag<float, 1> d1;
    for (; i < n; ++i) hn::StoreU(Read::Load(d1, src + i), d1, dst + i);
}

template <class D>
HWY_INLINE void GemmZero(D d, size_t n, float* HWY_RESTRICT dst) {
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (; i + L <= n; i += L) hn::StoreU(hn::Zero(d), d, dst + i);
    const hn::CappedTag<float, 1> d1;
    for (; i < n; ++i) hn::StoreU(hn::Zero(d1), d1, dst + i);
}

// Number of floats GemmPackA / GemmPackB write for an mc x kc / kc x nc block. The A size is
// rounded up to whole 64-byte lines: a packed B block placed after it in one allocation then
// starts on a line, so no vector load of B splits a line (with 6 rows and an odd kc it did).
// mr: the rows of an A micro-panel (as GemmPackA's).
template <class D>
constexpr size_t GemmPackedASize(size_t mc, size_t kc, size_t mr = GemmTraits<D>::kRows) {
    constexpr size_t kLineFloats = 64 / sizeof(float);
    const size_t floats = (mc + mr - 1) / mr * mr * kc;
    return (floats + kLineFloats - 1) / kLineFloats * kLineFloats;
}
template <class D>
constexpr size_t GemmPackedBSize(size_t kc, size_t nc) {
    using T = GemmTraits<D>;
    return (nc + T::kCols - 1) / T::kCols * T::kCols * kc;
}

// Packs rows [0, mc) x columns [0, kc) of A (row stride lda) as micro-panels of mr (kRows unless
// a narrow micro-kernel reads them) rows of kc floats; the rows that complete the last
// micro-panel are zero. A plain row copy: the copy
// gives the kernel rows a small stride (no L1 set conflicts for power-of-two lda, few pages).
// Read: how A is stored (GemmReadF32 unless the caller converts while packing).
template <class Read = GemmReadF32, class D>
void GemmPackA(D d, size_t mc, size_t kc, const typename Read::Elem* A, size_t lda, float* packed,
               size_t mr = GemmTraits<D>::kRows) {
    const size_t rows = (mc + mr - 1) / mr * mr;
    for (size_t r = 0; r < mc; ++r) GemmCopy<Read>(d, A + r * lda, kc, packed + r * kc);
    GemmZero(d, (rows - mc) * kc, packed + mc * kc);
}

// Packs rows [0, kc) x columns [0, nc) of a row-major B (row stride ldb) as panels of NR
// columns (kCols unless a narrow micro-kernel reads them): panel p holds kc rows of NR floats,
// columns beyond nc are zero. Read: how B is stored (as for GemmPackA).
template <class D, size_t NR = GemmTraits<D>::kCols, class Read = GemmReadF32>
void GemmPackB(D d, size_t kc, size_t nc, const typename Read::Elem* B, size_t ldb, float* packed) {
    for (size_t j = 0; j < nc; j += NR, packed += kc * NR) {
        const size_t cols = nc - j < NR ? nc - j : NR;
        if (cols == NR) {
            for (size_t k = 0; k < kc; ++k) GemmCopy<Read>(d, B + k * ldb + j, NR, packed + k * NR);
        } else {
            for (size_t k = 0; k < kc; ++k) {
                GemmCopy<Read>(d, B + k * ldb + j, cols, packed + k * NR);
                GemmZero(d, NR - cols, packed + k * NR + cols);
            }
        }
    }
}

// As GemmPackB for B stored transposed (N x K, row stride ldb): element (k, j) is B[j*ldb + k].
// Full vectors of a panel are gathered (lane t reads row j + t); the columns of a partial panel
// and strides too large for 32-bit gather offsets go one lane at a time.
template <class D>
void GemmPackBTransposed(D d, size_t kc, size_t nc, const float* B, size_t ldb, float* packed) {
    using T = GemmTraits<D>;
    constexpr size_t NR = T::kCols;
    const size_t L = hn::Lanes(d);
    const hn::RebindToSigned<D> di;
    const bool gather = ldb <= size_t(INT32_MAX) / L;
    const auto offsets = hn::Mul(hn::Iota(di, 0), hn::Set(di, int32_t(gather ? ldb : 0)));
    const hn::CappedTag<float, 1> d1;
    for (size_t j = 0; j < nc; j += NR, packed += kc * NR) {
        const size_t cols = nc - j < NR ? nc - j : NR;
        size_t c = 0;
        if (gather)
            for (; c + L <= cols; c += L) {
                const float* column = B + (j + c) * ldb;
                for (size_t k = 0; k < kc; ++k)
                    hn::StoreU(hn::GatherIndex(d, column + k, offsets), d, packed + k * NR + c);
            }
        for (; c < cols; ++c) {
            const float* column = B + (j + c) * ldb;
            for (size_t k = 0; k < kc; ++k)
                hn::StoreU(hn::LoadU(d1, column + k), d1, packed + k * NR + c);
        }
        for (; c < NR; ++c)
            for (size_t k = 0; k < kc; ++k) hn::StoreU(hn::Zero(d1), d1, packed + k * NR + c);
    }
}

// Asks for the C rows of a tile ahead of the micro-kernel that writes them: when C is larger
// than L2 (or its rows alias in L1, as with power-of-two strides) its lines come from memory
// for writing, and a request made a few tiles early hides that latency behind the FMAs.
constexpr size_t kGemmPrefetchTiles = 2;
template <size_t MR>
HWY_INLINE void GemmPrefetchTile(const float* c, size_t ldc, size_t cols) {
    for (size_t r = 0; r < MR; ++r)
        for (size_t x = 0; x < cols; x += 64 / sizeof(float))
            __builtin_prefetch(c + r * ldc + x, 1);
}

// C block (mc x nc, row stride ldc) op= alpha * A block * B block: packed A; the B panel of
// columns [j, j + NR) starts at B + j * panelScale and its rows are bStride apart.
template <class D>
HWY_INLINE void GemmMacroKernelB(D d, size_t mc, size_t nc, size_t kc, const float* packedA,
                                 const float* B, size_t panelScale, size_t bStride, float* C,
                                 size_t ldc, float alpha, float beta, GemmStore mode) {
    using T = GemmTraits<D>;
    constexpr size_t MR = T::kRows, NR = T::kCols;
    for (size_t j = 0; j < nc; j += NR) {
        const size_t cols = nc - j < NR ? nc - j : NR;
        const float* b = B + j * panelScale;
        for (size_t i = 0; i < mc; i += MR) {
            const size_t rows = mc - i < MR ? mc - i : MR;
            if (i + (kGemmPrefetchTiles + 1) * MR <= mc)
                GemmPrefetchTile<MR>(C + (i + kGemmPrefetchTiles * MR) * ldc + j, ldc, cols);
            GemmMicroKernel(d, kc, packedA + i * kc, kc, b, C + i * ldc + j, ldc, rows, cols, alpha,
                            beta, mode, GemmNoEpilogue(), bStride);
        }
    }
}

// C block (mc x nc, row stride ldc) op= alpha * A block * B block from the packed forms.
template <class D>
void GemmMacroKernel(D d, size_t mc, size_t nc, size_t kc, const float* packedA,
                     const float* packedB, float* C, size_t ldc, float alpha, float beta,
                     GemmStore mode) {
    GemmMacroKernelB(d, mc, nc, kc, packedA, packedB, kc, GemmTraits<D>::kCols, C, ldc, alpha, beta,
                     mode);
}

// As GemmMacroKernel (alpha 1, beta 0) for a B read in place: row-major with row stride ldb,
// nc a multiple of kCols (the kernels read whole panels). For products whose B is large and
// serves few rows of A (an NCHW pointwise convolution: 64 output channels against a 3 MB
// image), packing B was a fifth of the time, the copy of data that feeds only mc FMAs per
// float. Reading the image rows in place: 1x1 256->64 56x56 NCHW 873-889 -> 717-727 us on
// Intel AVX-512.
template <class D>
void GemmMacroKernelInPlaceB(D d, size_t mc, size_t nc, size_t kc, const float* packedA,
                             const float* B, size_t ldb, float* C, size_t ldc, GemmStore mode) {
    GemmMacroKernelB(d, mc, nc, kc, packedA, B, 1, ldb, C, ldc, 1.0f, 0.0f, mode);
}

// C (M x N) = beta*C row by row (K == 0); beta == 0 writes zeros without reading C.
template <class D>
void GemmScaleC(D d, size_t M, size_t N, float beta, float* C, size_t ldc) {
    const size_t L = hn::Lanes(d);
    const hn::CappedTag<float, 1> d1;
    for (size_t i = 0; i < M; ++i) {
        float* c = C + i * ldc;
        if (beta == 0.0f) {
            GemmZero(d, N, c);
            continue;
        }
        size_t j = 0;
        for (; j + L <= N; j += L)
            hn::StoreU(hn::Mul(hn::Set(d, beta), hn::LoadU(d, c + j)), d, c + j);
        for (; j < N; ++j) hn::StoreU(hn::Mul(hn::Set(d1, beta), hn::LoadU(d1, c + j)), d1, c + j);
    }
}

// C = alpha*A*op(B) + beta*C with op(B) = B (transB false, B is K x N) or B^T (B is N x K).
// Returns false, before writing anything, when the scratch buffer cannot be allocated.
template <class D>
bool Gemm32f(D d, bool transB, size_t M, size_t N, size_t K, float alpha, const float* A,
             size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc) {
    using T = GemmTraits<D>;
    if (K == 0) {
        GemmScaleC(d, M, N, beta, C, ldc);
        return true;
    }
    GemmBlocks blocks = GemmChooseBlocks(M, N, K, T::kRows, T::kCols);
    // One row block: an L3-sized B block went out to L3 while it was packed, and every panel's
    // first tile then waited on it (64 x 3136 x 576 on Sapphire Rapids: 2.05-2.15 -> 1.82-1.92
    // ms).
    if (M <= blocks.mc) blocks.nc = GemmColumnBlockInL2(N, blocks.kc, T::kCols);
    const size_t sizeA = GemmPackedASize<D>(blocks.mc, blocks.kc);
    const size_t sizeB = GemmPackedBSize<D>(blocks.kc, blocks.nc);
    const CachedScratch scratch(sizeA + sizeB);  // panels sized to L2/L3: reused, not re-faulted
    float* packedA = scratch.data();
    if (!packedA) return false;
    float* packedB = packedA + sizeA;
    for (size_t j = 0; j < N; j += blocks.nc) {
        const size_t nc = N - j < blocks.nc ? N - j : blocks.nc;
        for (size_t k = 0; k < K; k += blocks.kc) {
            const size_t kc = K - k < blocks.kc ? K - k : blocks.kc;
            if (transB)
                GemmPackBTransposed(d, kc, nc, B + j * ldb + k, ldb, packedB);
            else
                GemmPackB(d, kc, nc, B + k * ldb + j, ldb, packedB);
            const GemmStore mode = k > 0          ? GemmStore::kAccumulate
                                   : beta == 0.0f ? GemmStore::kOverwrite
                                                  : GemmStore::kBlend;
            for (size_t i = 0; i < M; i += blocks.mc) {
                const size_t mc = M - i < blocks.mc ? M - i : blocks.mc;
                GemmPackA(d, mc, kc, A + i * lda + k, lda, packedA);
                GemmMacroKernel(d, mc, nc, kc, packedA, packedB, C + i * ldc + j, ldc, alpha, beta,
                                mode);
            }
        }
    }
    return true;
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
