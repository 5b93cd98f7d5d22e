// Data-movement kernels shared by SimdSynetConvertImage and SimdSynetConvertFilter: a tiled
// 2-D transpose with row-address callbacks, plane <-> pixel interleaving for 2 and 3 channels,
// and the copy of channel segments between pixel-interleaved and blocked layouts.
//
// Every kernel moves bit patterns only (loads, shuffles, stores), so results are exact.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVERSION_LAYOUT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVERSION_LAYOUT_INL_H_
#undef SIMD_SYNET_CONVERSION_LAYOUT_INL_H_
#else
#define SIMD_SYNET_CONVERSION_LAYOUT_INL_H_
#endif

#include <cstddef>
#include <cstring>

#include "hwy/highway.h"
#include "core/Loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Internal linkage: other families may name their helpers alike.
namespace {

// ----------------------------------------------------------------------------------------------
// Tiled transpose.

// Side of the square tile: 4 floats (one 128-bit vector per tile row) on every SIMD target,
// a single element on the scalar target.
#if HWY_TARGET == HWY_SCALAR
constexpr size_t kTile = 1;
#else
constexpr size_t kTile = 4;
#endif

// Transposes the kTile x kTile tile whose source rows start at s[0..3] (nullptr: a row of
// zeros) into the destination rows t[0..3] (nullptr: not stored), each at column `r0`.
HWY_INLINE void TransposeTile(const float* const* s, size_t c0, float* const* t, size_t r0) {
#if HWY_TARGET == HWY_SCALAR
    if (t[0]) t[0][r0] = s[0] ? s[0][c0] : 0.0f;
#else
    const hn::CappedTag<float, 4> d;
    const hn::Repartition<uint64_t, decltype(d)> d64;
    const auto v0 = s[0] ? hn::LoadU(d, s[0] + c0) : hn::Zero(d);        // a0 a1 a2 a3
    const auto v1 = s[1] ? hn::LoadU(d, s[1] + c0) : hn::Zero(d);        // b0 b1 b2 b3
    const auto v2 = s[2] ? hn::LoadU(d, s[2] + c0) : hn::Zero(d);        // c0 c1 c2 c3
    const auto v3 = s[3] ? hn::LoadU(d, s[3] + c0) : hn::Zero(d);        // d0 d1 d2 d3
    const auto ab01 = hn::BitCast(d64, hn::InterleaveLower(d, v0, v1));  // a0 b0 a1 b1
    const auto cd01 = hn::BitCast(d64, hn::InterleaveLower(d, v2, v3));  // c0 d0 c1 d1
    const auto ab23 = hn::BitCast(d64, hn::InterleaveUpper(d, v0, v1));  // a2 b2 a3 b3
    const auto cd23 = hn::BitCast(d64, hn::InterleaveUpper(d, v2, v3));  // c2 d2 c3 d3
    if (t[0]) hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, ab01, cd01)), d, t[0] + r0);
    if (t[1]) hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, ab01, cd01)), d, t[1] + r0);
    if (t[2]) hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, ab23, cd23)), d, t[2] + r0);
    if (t[3]) hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, ab23, cd23)), d, t[3] + r0);
#endif
}

// dst(c)[r] = src(r)[c] for r < rows, c < cols, where src(r) is the address of source row r
// (nullptr: the row reads as zeros) and dst(c) the address of destination row c (nullptr:
// that row is not written). The callbacks let one kernel serve every re-layout whose rows are
// contiguous on both sides, including 3-D permutations (filters) and blocked layouts.
//
// Tiles are kTile x kTile. Ragged edges are covered by a last tile shifted back to end at the
// edge: it rewrites a few elements with the same values, so no partial vectors are needed.
// Only shapes with fewer than kTile rows or columns take the element-by-element path. The
// loops walk blocks of kBlockRows x kBlockCols elements so that the rows being read and the
// rows being written stay in L1 while a block is in flight.
template <class SrcRow, class DstRow>
HWY_INLINE void TransposeRows(size_t rows, size_t cols, const SrcRow& src, const DstRow& dst) {
    if (rows < kTile || cols < kTile) {
        for (size_t c = 0; c < cols; ++c) {
            float* t = dst(c);
            if (!t) continue;
            for (size_t r = 0; r < rows; ++r) {
                const float* s = src(r);
                t[r] = s ? s[c] : 0.0f;
            }
        }
        return;
    }
    constexpr size_t kBlockRows = 16, kBlockCols = 16;  // as TransposeStridedTiles
    for (size_t rb = 0; rb < rows; rb += kBlockRows) {
        const size_t re = rb + kBlockRows < rows ? rb + kBlockRows : rows;
        for (size_t cb = 0; cb < cols; cb += kBlockCols) {
            const size_t ce = cb + kBlockCols < cols ? cb + kBlockCols : cols;
            for (size_t r = rb; r < re; r += kTile) {
                const size_t r0 = r + kTile <= rows ? r : rows - kTile;
                const float* s[4];
                for (size_t i = 0; i < kTile; ++i) s[i] = src(r0 + i);
                for (size_t c = cb; c < ce; c += kTile) {
                    const size_t c0 = c + kTile <= cols ? c : cols - kTile;
                    float* t[4];
                    for (size_t i = 0; i < kTile; ++i) t[i] = dst(c0 + i);
                    TransposeTile(s, c0, t, r0);
                }
            }
        }
    }
}

// ----------------------------------------------------------------------------------------------
// Tiled transpose with constant row strides (the hot NCHW <-> NHWC case): no callbacks and no
// zero rows, so a tile is loads, shuffles and stores only. 16x16 tiles of 512-bit vectors on
// AVX-512, 8x8 tiles of 256-bit vectors where the target has them (24 shuffles per 64 floats,
// against 32 for four 4x4 tiles), else 4x4.

#if HWY_TARGET != HWY_SCALAR
// dst[c*dstStride + r] = src[r*srcStride + c] for r, c < 4.
HWY_INLINE void Transpose4x4(const float* src, size_t srcStride, float* dst, size_t dstStride) {
    const hn::CappedTag<float, 4> d;
    const hn::Repartition<uint64_t, decltype(d)> d64;
    const auto v0 = hn::LoadU(d, src + 0 * srcStride);
    const auto v1 = hn::LoadU(d, src + 1 * srcStride);
    const auto v2 = hn::LoadU(d, src + 2 * srcStride);
    const auto v3 = hn::LoadU(d, src + 3 * srcStride);
    const auto ab01 = hn::BitCast(d64, hn::InterleaveLower(d, v0, v1));
    const auto cd01 = hn::BitCast(d64, hn::InterleaveLower(d, v2, v3));
    const auto ab23 = hn::BitCast(d64, hn::InterleaveUpper(d, v0, v1));
    const auto cd23 = hn::BitCast(d64, hn::InterleaveUpper(d, v2, v3));
    hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, ab01, cd01)), d, dst + 0 * dstStride);
    hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, ab01, cd01)), d, dst + 1 * dstStride);
    hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, ab23, cd23)), d, dst + 2 * dstStride);
    hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, ab23, cd23)), d, dst + 3 * dstStride);
}
#endif

#if HWY_TARGET != HWY_SCALAR && HWY_MAX_BYTES >= 32
constexpr bool kHaveTile8 = true;
// dst[c*dstStride + r] = src[r*srcStride + c] for r, c < 8: interleave 32-bit lanes, then
// 64-bit lanes (both within 128-bit blocks), then swap 128-bit halves.
HWY_INLINE void Transpose8x8(const float* src, size_t srcStride, float* dst, size_t dstStride) {
    const hn::CappedTag<float, 8> d;
    const hn::Repartition<uint64_t, decltype(d)> d64;
    using V64 = hn::Vec<decltype(d64)>;
    const auto r0 = hn::LoadU(d, src + 0 * srcStride), r1 = hn::LoadU(d, src + 1 * srcStride);
    const auto r2 = hn::LoadU(d, src + 2 * srcStride), r3 = hn::LoadU(d, src + 3 * srcStride);
    const auto r4 = hn::LoadU(d, src + 4 * srcStride), r5 = hn::LoadU(d, src + 5 * srcStride);
    const auto r6 = hn::LoadU(d, src + 6 * srcStride), r7 = hn::LoadU(d, src + 7 * srcStride);
    // t0 = a0 b0 a1 b1 | a4 b4 a5 b5, t1 = a2 b2 a3 b3 | a6 b6 a7 b7 (rows a, b = r0, r1) ...
    const V64 t0 = hn::BitCast(d64, hn::InterleaveLower(d, r0, r1));
    const V64 t1 = hn::BitCast(d64, hn::InterleaveUpper(d, r0, r1));
    const V64 t2 = hn::BitCast(d64, hn::InterleaveLower(d, r2, r3));
    const V64 t3 = hn::BitCast(d64, hn::InterleaveUpper(d, r2, r3));
    const V64 t4 = hn::BitCast(d64, hn::InterleaveLower(d, r4, r5));
    const V64 t5 = hn::BitCast(d64, hn::InterleaveUpper(d, r4, r5));
    const V64 t6 = hn::BitCast(d64, hn::InterleaveLower(d, r6, r7));
    const V64 t7 = hn::BitCast(d64, hn::InterleaveUpper(d, r6, r7));
    // u0 = a0 b0 c0 d0 | a4 b4 c4 d4, u1 = columns 1 | 5, u2 = 2 | 6, u3 = 3 | 7; u4..u7 the
    // same for rows e..h.
    const auto u0 = hn::BitCast(d, hn::InterleaveLower(d64, t0, t2));
    const auto u1 = hn::BitCast(d, hn::InterleaveUpper(d64, t0, t2));
    const auto u2 = hn::BitCast(d, hn::InterleaveLower(d64, t1, t3));
    const auto u3 = hn::BitCast(d, hn::InterleaveUpper(d64, t1, t3));
    const auto u4 = hn::BitCast(d, hn::InterleaveLower(d64, t4, t6));
    const auto u5 = hn::BitCast(d, hn::InterleaveUpper(d64, t4, t6));
    const auto u6 = hn::BitCast(d, hn::InterleaveLower(d64, t5, t7));
    const auto u7 = hn::BitCast(d, hn::InterleaveUpper(d64, t5, t7));
    hn::StoreU(hn::ConcatLowerLower(d, u4, u0), d, dst + 0 * dstStride);
    hn::StoreU(hn::ConcatLowerLower(d, u5, u1), d, dst + 1 * dstStride);
    hn::StoreU(hn::ConcatLowerLower(d, u6, u2), d, dst + 2 * dstStride);
    hn::StoreU(hn::ConcatLowerLower(d, u7, u3), d, dst + 3 * dstStride);
    hn::StoreU(hn::ConcatUpperUpper(d, u4, u0), d, dst + 4 * dstStride);
    hn::StoreU(hn::ConcatUpperUpper(d, u5, u1), d, dst + 5 * dstStride);
    hn::StoreU(hn::ConcatUpperUpper(d, u6, u2), d, dst + 6 * dstStride);
    hn::StoreU(hn::ConcatUpperUpper(d, u7, u3), d, dst + 7 * dstStride);
}
#else
constexpr bool kHaveTile8 = false;
HWY_INLINE void Transpose8x8(const float*, size_t, float*, size_t) {}
#endif

#if HWY_TARGET <= HWY_AVX3
constexpr bool kHaveTile16 = true;
// dst[c*dstStride + r] = src[r*srcStride + c] for r, c < 16: interleave 32-bit and 64-bit
// lanes within 128-bit blocks (columns j, j+4, j+8, j+12 of 4 rows per vector), then gather
// 128-bit blocks across vectors twice. 64 shuffles per 256 floats against 96 for four 8x8
// tiles; Highway 1.0.3 has no op that picks 128-bit blocks from two 512-bit vectors, hence
// the raw VSHUFF32X4 (and the raw unpacks next to it).
HWY_INLINE void Transpose16x16(const float* src, size_t srcStride, float* dst, size_t dstStride) {
    __m512 t[16], u[16];
    for (size_t i = 0; i < 8; ++i) {
        const __m512 a = _mm512_loadu_ps(src + (2 * i) * srcStride);
        const __m512 b = _mm512_loadu_ps(src + (2 * i + 1) * srcStride);
        t[2 * i] = _mm512_unpacklo_ps(a, b);
        t[2 * i + 1] = _mm512_unpackhi_ps(a, b);
    }
    // u[4g + j]: block m holds column j + 4m of rows 4g..4g+3.
    for (size_t g = 0; g < 4; ++g) {
        const __m512d lo0 = _mm512_castps_pd(t[4 * g]), hi0 = _mm512_castps_pd(t[4 * g + 1]);
        const __m512d lo1 = _mm512_castps_pd(t[4 * g + 2]), hi1 = _mm512_castps_pd(t[4 * g + 3]);
        u[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo0, lo1));
        u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo0, lo1));
        u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi0, hi1));
        u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi0, hi1));
    }
    for (size_t j = 0; j < 4; ++j) {
        // Blocks 0 and 2 (0x88) or 1 and 3 (0xdd) of the first operand, then of the second.
        const __m512 even01 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88);
        const __m512 odd01 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xdd);
        const __m512 even23 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
        const __m512 odd23 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xdd);
        _mm512_storeu_ps(dst + j * dstStride, _mm512_shuffle_f32x4(even01, even23, 0x88));
        _mm512_storeu_ps(dst + (j + 8) * dstStride, _mm512_shuffle_f32x4(even01, even23, 0xdd));
        _mm512_storeu_ps(dst + (j + 4) * dstStride, _mm512_shuffle_f32x4(odd01, odd23, 0x88));
        _mm512_storeu_ps(dst + (j + 12) * dstStride, _mm512_shuffle_f32x4(odd01, odd23, 0xdd));
    }
}
#else
constexpr bool kHaveTile16 = false;
HWY_INLINE void Transpose16x16(const float*, size_t, float*, size_t) {}
#endif

#if HWY_TARGET != HWY_SCALAR
// Tiles of kT x kT in blocks of kRB x kCB elements, the ragged edges covered by tiles
// shifted back to end at the edge (rows, cols >= kT).
template <size_t kT>
HWY_INLINE void TransposeStridedTiles(const float* src, size_t srcStride, float* dst,
                                      size_t dstStride, size_t rows, size_t cols) {
    // Blocks of kRB x 16: a block reads one 64-byte line from each of kRB source rows and
    // writes kRB/16 lines to each of 16 destination rows. Few long source rows (NCHW to NHWC)
    // want kRB = 16; many short ones (NHWC to NCHW: every destination row is a stream) want
    // fewer visits per destination row, kRB = 64 (measured on Zen4 with 64x56x56 tensors
    // among 8..256: 10-25% apart).
    const size_t kRB = rows > cols ? 64 : 16, kCB = 16;
    for (size_t rb = 0; rb < rows; rb += kRB) {
        const size_t re = rb + kRB < rows ? rb + kRB : rows;
        for (size_t cb = 0; cb < cols; cb += kCB) {
            const size_t ce = cb + kCB < cols ? cb + kCB : cols;
            for (size_t r = rb; r < re; r += kT) {
                const size_t r0 = r + kT <= rows ? r : rows - kT;
                for (size_t c = cb; c < ce; c += kT) {
                    const size_t c0 = c + kT <= cols ? c : cols - kT;
                    const float* s = src + r0 * srcStride + c0;
                    float* t = dst + c0 * dstStride + r0;
                    if constexpr (kT == 16)
                        Transpose16x16(s, srcStride, t, dstStride);
                    else if constexpr (kT == 8)
                        Transpose8x8(s, srcStride, t, dstStride);
                    else
                        Transpose4x4(s, srcStride, t, dstStride);
                }
            }
        }
    }
}
#endif

// dst[c*dstStride + r] = src[r*srcStride + c] for r < rows, c < cols.
HWY_INLINE void TransposeStrided(const float* src, size_t srcStride, float* dst, size_t dstStride,
                                 size_t rows, size_t cols) {
#if HWY_TARGET != HWY_SCALAR
    if (kHaveTile16 && rows >= 16 && cols >= 16) {
        TransposeStridedTiles<16>(src, srcStride, dst, dstStride, rows, cols);
        return;
    }
    if (kHaveTile8 && rows >= 8 && cols >= 8) {
        TransposeStridedTiles<8>(src, srcStride, dst, dstStride, rows, cols);
        return;
    }
    if (rows >= 4 && cols >= 4) {
        TransposeStridedTiles<4>(src, srcStride, dst, dstStride, rows, cols);
        return;
    }
#endif
    TransposeRows(
        rows, cols, [=](size_t r) { return src + r * srcStride; },
        [=](size_t c) { return dst + c * dstStride; });
}

// ----------------------------------------------------------------------------------------------
// Planes <-> interleaved pixels for 2 and 3 channels (too narrow for 4x4 tiles).

// dst[s*C + c] = src[c*S + s] for C = 2 or 3.
HWY_INLINE void InterleavePlanes(const float* src, size_t C, size_t S, float* dst) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t s = 0;
    if (C == 2) {
        for (; s + L <= S; s += L)
            hn::StoreInterleaved2(hn::LoadU(d, src + s), hn::LoadU(d, src + S + s), d, dst + 2 * s);
        const DF1 d1;
        for (; s < S; ++s)
            hn::StoreInterleaved2(hn::LoadU(d1, src + s), hn::LoadU(d1, src + S + s), d1,
                                  dst + 2 * s);
        return;
    }
    for (; s + L <= S; s += L)
        hn::StoreInterleaved3(hn::LoadU(d, src + s), hn::LoadU(d, src + S + s),
                              hn::LoadU(d, src + 2 * S + s), d, dst + 3 * s);
    const DF1 d1;
    for (; s < S; ++s)
        hn::StoreInterleaved3(hn::LoadU(d1, src + s), hn::LoadU(d1, src + S + s),
                              hn::LoadU(d1, src + 2 * S + s), d1, dst + 3 * s);
}

// dst[c*S + s] = src[s*C + c] for C = 2 or 3.
HWY_INLINE void DeinterleavePixels(const float* src, size_t C, size_t S, float* dst) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t s = 0;
    if (C == 2) {
        for (; s + L <= S; s += L) {
            hn::Vec<DF> v0, v1;
            hn::LoadInterleaved2(d, src + 2 * s, v0, v1);
            hn::StoreU(v0, d, dst + s);
            hn::StoreU(v1, d, dst + S + s);
        }
        const DF1 d1;
        for (; s < S; ++s) {
            hn::Vec<DF1> v0, v1;
            hn::LoadInterleaved2(d1, src + 2 * s, v0, v1);
            hn::StoreU(v0, d1, dst + s);
            hn::StoreU(v1, d1, dst + S + s);
        }
        return;
    }
    for (; s + L <= S; s += L) {
        hn::Vec<DF> v0, v1, v2;
        hn::LoadInterleaved3(d, src + 3 * s, v0, v1, v2);
        hn::StoreU(v0, d, dst + s);
        hn::StoreU(v1, d, dst + S + s);
        hn::StoreU(v2, d, dst + 2 * S + s);
    }
    const DF1 d1;
    for (; s < S; ++s) {
        hn::Vec<DF1> v0, v1, v2;
        hn::LoadInterleaved3(d1, src + 3 * s, v0, v1, v2);
        hn::StoreU(v0, d1, dst + s);
        hn::StoreU(v1, d1, dst + S + s);
        hn::StoreU(v2, d1, dst + 2 * S + s);
    }
}

// ----------------------------------------------------------------------------------------------
// Short copies and zero fills (n up to a block of 16 floats; any n works).

// Moves one piece of Lanes(CappedTag<float, kCap>) floats if that many remain. Called with
// decreasing caps after the whole-vector loop, each piece runs at most once.
template <size_t kCap>
HWY_INLINE void CopyPiece(const float* src, size_t n, float* dst, size_t& i) {
    const hn::CappedTag<float, kCap> d;
    if (i + hn::Lanes(d) <= n) {
        hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
        i += hn::Lanes(d);
    }
}
template <size_t kCap>
HWY_INLINE void ZeroPiece(size_t n, float* dst, size_t& i) {
    const hn::CappedTag<float, kCap> d;
    if (i + hn::Lanes(d) <= n) {
        hn::StoreU(hn::Zero(d), d, dst + i);
        i += hn::Lanes(d);
    }
}

HWY_INLINE void CopyFloats(const float* src, size_t n, float* dst) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (; i + L <= n; i += L) hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
    CopyPiece<8>(src, n, dst, i);
    CopyPiece<4>(src, n, dst, i);
    CopyPiece<2>(src, n, dst, i);
    while (i < n) CopyPiece<1>(src, n, dst, i);
}

HWY_INLINE void ZeroFloats(size_t n, float* dst) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (; i + L <= n; i += L) hn::StoreU(hn::Zero(d), d, dst + i);
    ZeroPiece<8>(n, dst, i);
    ZeroPiece<4>(n, dst, i);
    ZeroPiece<2>(n, dst, i);
    while (i < n) ZeroPiece<1>(n, dst, i);
}

// ----------------------------------------------------------------------------------------------
// Pixel-interleaved (S pixels of C channels) <-> blocked (ceil(C/N) blocks of S pixels of N
// lanes). Each pixel's channels are copied block segment by block segment; reading pixels in
// order keeps the source stream sequential and the writes go to ceil(C/N) sequential streams.

// Copies one whole block segment of kN floats.
template <size_t kN>
HWY_INLINE void CopyBlock(const float* src, float* dst) {
    const hn::CappedTag<float, kN> d;
    for (size_t i = 0; i < kN; i += hn::Lanes(d)) hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
}

// dst[(cb*S + s)*N + i] = src[s*C + cb*N + i], padded lanes (cb*N + i >= C) set to 0.
template <size_t kN>
HWY_INLINE void InterleavedToBlockedN(const float* src, size_t C, size_t S, float* dst) {
    const size_t full = C / kN, last = C - full * kN;
    for (size_t s = 0; s < S; ++s) {
        const float* pixel = src + s * C;
        for (size_t cb = 0; cb < full; ++cb)
            CopyBlock<kN>(pixel + cb * kN, dst + (cb * S + s) * kN);
        if (last) {
            float* tail = dst + (full * S + s) * kN;
            CopyFloats(pixel + full * kN, last, tail);
            ZeroFloats(kN - last, tail + last);
        }
    }
}

// dst[s*C + cb*N + i] = src[(cb*S + s)*N + i] for cb*N + i < C.
template <size_t kN>
HWY_INLINE void BlockedToInterleavedN(const float* src, size_t C, size_t S, float* dst) {
    const size_t full = C / kN, last = C - full * kN;
    for (size_t s = 0; s < S; ++s) {
        float* pixel = dst + s * C;
        for (size_t cb = 0; cb < full; ++cb)
            CopyBlock<kN>(src + (cb * S + s) * kN, pixel + cb * kN);
        if (last) CopyFloats(src + (full * S + s) * kN, last, pixel + full * kN);
    }
}

HWY_INLINE void InterleavedToBlocked(const float* src, size_t C, size_t S, size_t N, float* dst) {
    if (N == 4)
        InterleavedToBlockedN<4>(src, C, S, dst);
    else if (N == 8)
        InterleavedToBlockedN<8>(src, C, S, dst);
    else
        InterleavedToBlockedN<16>(src, C, S, dst);
}

HWY_INLINE void BlockedToInterleaved(const float* src, size_t C, size_t S, size_t N, float* dst) {
    if (N == 4)
        BlockedToInterleavedN<4>(src, C, S, dst);
    else if (N == 8)
        BlockedToInterleavedN<8>(src, C, S, dst);
    else
        BlockedToInterleavedN<16>(src, C, S, dst);
}

}  // namespace

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_CONVERSION_LAYOUT_INL_H_
