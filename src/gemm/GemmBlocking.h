// Cache blocking of the GEMM kernels (target-independent part).
#pragma once

#include <cstddef>

namespace simd {

// Data cache sizes of one core in bytes, read once from sysfs (CPU 0) and clamped to sane
// minimums (L1 >= 16 KiB, L2 >= 128 KiB, L3 >= L2) so a missing or odd sysfs entry can only
// make the blocks smaller, never unusable.
struct GemmCacheSizes {
    size_t l1, l2, l3;
};
const GemmCacheSizes& GemmCaches();

// Block sizes of one GEMM call: C is produced in mc x nc blocks, the sum over K in kc chunks.
// The packed B block (kc x nc) is reused by all row blocks, the packed A block (mc x kc) by all
// column panels of the B block, and one B micro-panel (kc x nr) by all micro-panels of A.
struct GemmBlocks {
    size_t mc, nc, kc;
};

// Picks the blocks for an M x N x K product and a micro-kernel of mr rows and nr columns:
// kc so that a B micro-panel is about twice L1 (128..512), mc so that the A block fills about a
// quarter of L2, nc so that the B block stays well inside L3; each then shrunk to split its
// dimension into equal chunks (no thin last chunk). mc is a multiple of mr, nc of nr.
GemmBlocks GemmChooseBlocks(size_t M, size_t N, size_t K, size_t mr, size_t nr);

// A column block for products of one row block (M <= mc): the packed B block (kc x nc) then
// serves that block alone, so it is sized to half of L2, where the micro-kernels find it right
// after packing; a multiple of nr, N split into equal chunks.
size_t GemmColumnBlockInL2(size_t N, size_t kc, size_t nr);

}  // namespace simd
