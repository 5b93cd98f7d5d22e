// The register tile of the INT8 direct convolution: MR output pixels x NV vectors of output
// channels, INT32 sums over 4-byte input words.
//
// No include guard: Convolution8i.cpp includes this body once per Highway target inside
// namespace conv8i::plain, and on the AVX3 target a second time inside conv8i::vnni with
// SIMD_I8_ATTR = __attribute__((target("avx512vnni"))). Every function of that copy then
// carries the attribute, so the VPDPBUSD intrinsic inlines into it (GCC refuses to inline an
// intrinsic into a function compiled without its target, and a template cannot take an
// attribute per instantiation). The plain copy never sees the attribute, so the plain AVX-512
// kernels stay free of VNNI instructions. Requires in scope: hn, D32, V32, Acc32 and the Dot types
// of Dot8i-inl.h; SIMD_I8_VNNI says which copy this is.

#if SIMD_I8_VNNI
// VPDPBUSD (EVEX): acc + the four exact u8 * s8 products of each lane.
struct DotVnni {
    using A = V32;
    static HWY_INLINE SIMD_I8_ATTR A Prepare(V32 a) { return a; }
    static HWY_INLINE SIMD_I8_ATTR Acc32 Apply(Acc32 acc, const A& a, V32 w) {
        return (Acc32)_mm512_dpbusd_epi32((__m512i)acc, a.raw, w.raw);
    }
};
#endif

// out[r][j] = sum over k < words of the dot products of the 4 bytes at rows[r] + offsets[k]
// with word k of the weight panel (NV*L lanes of 4 bytes: one output channel per lane), for
// r < MR, j < NV*L; out rows are NV*L apart. words >= 1; the loop is a do-while because with
// a loop that might not run GCC keeps a copy of the tile on the stack (as in gemm/Gemm-inl.h).
template <class Dot, size_t MR, size_t NV>
HWY_NOINLINE SIMD_I8_ATTR void GemmTile8i(const uint8_t* const* rows, const uint32_t* offsets,
                                          size_t words, const int8_t* panel, int32_t* out) {
    const D32 d;
    constexpr size_t L = hn::MaxLanes(D32());
    Acc32 acc[MR][NV];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (size_t v = 0; v < NV; ++v) acc[r][v] = ToAcc(hn::Zero(d));
    const uint8_t* a[MR];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) a[r] = rows[r];
    const int32_t* b = reinterpret_cast<const int32_t*>(panel);
    size_t k = 0;
    do {
        const size_t offset = offsets[k];
        V32 bv[NV];
#pragma GCC unroll 4
        for (size_t v = 0; v < NV; ++v) bv[v] = hn::LoadU(d, b + v * L);
#pragma GCC unroll 16
        for (size_t r = 0; r < MR; ++r) {
            int32_t word;
            __builtin_memcpy(&word, a[r] + offset, sizeof(word));
            const typename Dot::A pa = Dot::Prepare(hn::Set(d, word));
#pragma GCC unroll 4
            for (size_t v = 0; v < NV; ++v) acc[r][v] = Dot::Apply(acc[r][v], pa, bv[v]);
        }
        b += NV * L;
    } while (++k < words);
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (size_t v = 0; v < NV; ++v) hn::StoreU(FromAcc(acc[r][v]), d, out + (r * NV + v) * L);
}
