// The AMX BF16 GEMM of gemm/GemmAmxBf16.h.
#include "gemm/GemmAmxBf16.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#define SIMD_AMX_ATTR __attribute__((target("amx-tile,amx-bf16")))

namespace simd {
namespace amx {

namespace {

// The 64-byte tile configuration (palette 1): tiles 0-3 accumulate C, 4-5 hold A, 6-7 hold B,
// all of 16 rows of 64 bytes.
struct alignas(64) TileConfig {
    uint8_t palette = 1, startRow = 0;
    uint8_t reserved[14] = {};
    uint16_t bytesPerRow[16] = {};
    uint8_t rows[16] = {};
};

TileConfig FullTiles() {
    TileConfig config;
    for (int t = 0; t < 8; ++t) {
        config.bytesPerRow[t] = 64;
        config.rows[t] = kTileRows;
    }
    return config;
}

// Copies rows [0, rows) and columns [0, cols) of a stored 16 x 16 tile to c.
void CopyPart(const float* part, float* c, size_t ldc, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; ++r)
        std::memcpy(c + r * ldc, part + r * kTileCols, cols * sizeof(float));
}

// A non-temporal prefetch of each row right after its tile store (a hint, no data change):
// the BF16 deconvolution 3x3 s2 64->32 28x28, whose column GEMM is 784x288x64, took 121 us
// without it and 107 us with it on Sapphire Rapids (4x4: 170 -> 152 us); after the gather's
// later changes a T0 prefetch instead gave 101 us against 95 (4x4: 154 against 148).
void TouchRows(const float* c, size_t ldc) {
    for (size_t r = 0; r < kTileRows; ++r)
        _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_NTA);
}

// Stores tile T to rows [0, rows) and columns [0, cols) of c: whole tiles straight, edge tiles
// through `part`. A macro because GCC's tile intrinsics paste the tile number into the
// instruction text, so it must be a literal.
#define SIMD_AMX_STORE_TILE(T, c, ldc, rows, cols, part)      \
    do {                                                      \
        if ((rows) == kTileRows && (cols) == kTileCols) {     \
            _tile_stored(T, c, (ldc) * sizeof(float));        \
            TouchRows(c, ldc);                                \
        } else {                                              \
            _tile_stored(T, part, kTileCols * sizeof(float)); \
            CopyPart(part, c, ldc, rows, cols);               \
        }                                                     \
    } while (0)

// One block of MT x NT tiles of C (rows from a, columns from the packed B blocks b0, b1) summed
// over the whole depth, then stored. MT and NT are template arguments so that each instance
// holds only the tile instructions it runs (tile numbers must be literals).
template <int MT, int NT>
SIMD_AMX_ATTR void Block(const uint16_t* a, size_t depth, const uint16_t* b0, const uint16_t* b1,
                         float* c, size_t ldc, size_t rows, size_t cols) {
    const size_t aStride = depth * sizeof(uint16_t), bStride = 64;
    const size_t blockValues = kTileDepth * kTileCols;  // BF16 values of one B tile
    _tile_zero(0);
    if (NT > 1) _tile_zero(1);
    if (MT > 1) _tile_zero(2);
    if (MT > 1 && NT > 1) _tile_zero(3);
    for (size_t k = 0, kb = 0; k < depth; k += kTileDepth, ++kb) {
        _tile_loadd(4, a + k, aStride);
        _tile_loadd(6, b0 + kb * blockValues, bStride);
        _tile_dpbf16ps(0, 4, 6);
        if (NT > 1) {
            _tile_loadd(7, b1 + kb * blockValues, bStride);
            _tile_dpbf16ps(1, 4, 7);
        }
        if (MT > 1) {
            _tile_loadd(5, a + kTileRows * depth + k, aStride);
            _tile_dpbf16ps(2, 5, 6);
            if (NT > 1) _tile_dpbf16ps(3, 5, 7);
        }
    }
    alignas(64) float part[kTileRows * kTileCols];
    const size_t rows0 = std::min(rows, kTileRows), cols0 = std::min(cols, kTileCols);
    SIMD_AMX_STORE_TILE(0, c, ldc, rows0, cols0, part);
    if (NT > 1) SIMD_AMX_STORE_TILE(1, c + kTileCols, ldc, rows0, cols - kTileCols, part);
    if (MT > 1) {
        SIMD_AMX_STORE_TILE(2, c + kTileRows * ldc, ldc, rows - kTileRows, cols0, part);
        if (NT > 1)
            SIMD_AMX_STORE_TILE(3, c + kTileRows * ldc + kTileCols, ldc, rows - kTileRows,
                                cols - kTileCols, part);
    }
}

}  // namespace

void PackB(const uint16_t* b, size_t ldb, size_t K, size_t N, uint16_t* packed) {
    const size_t depth = PackedDepth(K), blocks = (N + kTileCols - 1) / kTileCols;
    for (size_t nb = 0; nb < blocks; ++nb)
        for (size_t k = 0; k < depth; ++k)
            for (size_t j = 0; j < kTileCols; ++j) {
                const size_t n = nb * kTileCols + j;
                // Block nb, tile row k / 2 (a pair of K), column j, member k % 2.
                uint16_t* to =
                    packed + nb * depth * kTileCols + (k / 2) * 2 * kTileCols + j * 2 + k % 2;
                *to = k < K && n < N ? b[k * ldb + n] : 0;
            }
}

SIMD_AMX_ATTR void Gemm(size_t M, size_t N, size_t K, const uint16_t* a, const uint16_t* packedB,
                        float* c, size_t ldc) {
    static const TileConfig config = FullTiles();
    const size_t depth = PackedDepth(K), bBlock = depth * kTileCols;
    _tile_loadconfig(&config);
    for (size_t i = 0; i < M; i += 2 * kTileRows) {
        const size_t rows = std::min(M - i, 2 * kTileRows);
        const uint16_t* ai = a + i * depth;
        for (size_t j = 0; j < N; j += 2 * kTileCols) {
            const size_t cols = std::min(N - j, 2 * kTileCols);
            const uint16_t* b0 = packedB + (j / kTileCols) * bBlock;
            const uint16_t* b1 = b0 + bBlock;
            float* cij = c + i * ldc + j;
            if (rows > kTileRows) {
                if (cols > kTileCols)
                    Block<2, 2>(ai, depth, b0, b1, cij, ldc, rows, cols);
                else
                    Block<2, 1>(ai, depth, b0, b1, cij, ldc, rows, cols);
            } else {
                if (cols > kTileCols)
                    Block<1, 2>(ai, depth, b0, b1, cij, ldc, rows, cols);
                else
                    Block<1, 1>(ai, depth, b0, b1, cij, ldc, rows, cols);
            }
        }
    }
    _tile_release();
}

}  // namespace amx
}  // namespace simd

#endif  // __x86_64__
