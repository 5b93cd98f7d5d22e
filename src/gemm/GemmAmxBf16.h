// BF16 GEMM on the AMX tiles (TDPBF16PS): C[M x N] = A[M x K] * B[K x N], A and B BF16, C and
// its sums FP32. Raw AMX instructions (the intrinsics exception of DEVELOPERS.md: Highway 1.0.3
// has no tile operations), in plain x86-64 functions with a function-level target attribute;
// callers use them only when core/CpuFeatures.h CpuHasAmxBf16() says the CPU and the OS run
// them.
//
// What the tiles compute (Intel SDM, TDPBF16PS): each FP32 lane of C adds the two products of a
// BF16 pair, one pair after another along K, each addition rounded to nearest even, with BF16
// denormal inputs read as zero and denormal results flushed to zero. The products of two BF16
// values are exact in FP32, so the sums are FP32 sums of the exact products in an order fixed
// by the shape (SUPPLEMENT.md §9.2, class ACC), apart from denormals (below 1.2e-38).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__)

namespace simd {
namespace amx {

// A tile holds 16 rows of 64 bytes: 16 x 32 BF16 of A, 16 pairs of K x 16 columns of B, or
// 16 x 16 FP32 of C.
constexpr size_t kTileRows = 16;
constexpr size_t kTileDepth = 32;  // BF16 values of K per tile row of A
constexpr size_t kTileCols = 16;

// K rounded up to whole tiles: the row length (in BF16 values) of the packed A, whose values
// past K must be zero.
constexpr size_t PackedDepth(size_t K) {
    return (K + kTileDepth - 1) / kTileDepth * kTileDepth;
}
// Rows of the packed A: M rounded up to a whole number of the kernel's row blocks (two tiles).
constexpr size_t PackedRows(size_t M) {
    return (M + 2 * kTileRows - 1) / (2 * kTileRows) * (2 * kTileRows);
}
// BF16 values of the packed B of a K x N matrix.
constexpr size_t PackedBSize(size_t K, size_t N) {
    return PackedDepth(K) * ((N + kTileCols - 1) / kTileCols * kTileCols);
}

// Packs B (K x N BF16 values, rows ldb apart) into tiles: per block of 16 columns, per block of
// 32 rows of K, 16 rows of 16 (K even, K odd) pairs; values past K or N are zero.
void PackB(const uint16_t* b, size_t ldb, size_t K, size_t N, uint16_t* packed);

// C[M x N] (rows ldc floats apart) = A * B, overwritten. a: PackedRows(M) rows of
// PackedDepth(K) BF16 values (zero past K; rows past M are read and their sums discarded);
// packedB: from PackB. Loads and releases the tile configuration itself, so it may run on any
// thread.
void Gemm(size_t M, size_t N, size_t K, const uint16_t* a, const uint16_t* packedB, float* c,
          size_t ldc);

}  // namespace amx
}  // namespace simd

#endif  // __x86_64__
