// Global pooling of NHWC tensors (one window covering every pixel).
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_POOLING_NHWC_GLOBAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_POOLING_NHWC_GLOBAL_INL_H_
#undef SIMD_SYNET_POOLING_NHWC_GLOBAL_INL_H_
#else
#define SIMD_SYNET_POOLING_NHWC_GLOBAL_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "pooling/PoolOps-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Global pooling of NHWC input (one window covering every pixel): `pixels` contiguous pixels of
// C channels. kGroup channel vectors are folded across all pixels at once, in registers: every
// pixel contributes one contiguous run of kGroup vectors (streams well, unlike one vector per
// pixel at a C-element stride), and the kGroup independent chains hide the fold latency.
template <size_t kGroup, class D, class Op, class T>
HWY_INLINE void GlobalNhwcGroup(D d, const Op& op, const T* src, size_t C, size_t pixels,
                                float area, size_t c, T* dst) {
    const hn::Rebind<T, D> dt;
    const size_t N = hn::Lanes(d);
    hn::Vec<D> acc[kGroup];
    HWY_UNROLL(16)
    for (size_t g = 0; g < kGroup; ++g) {
        acc[g] = op.Widen(d, hn::LoadU(dt, src + c + g * N));
        if constexpr (!Op::kAverage) acc[g] = op.Fold(op.Init(d), acc[g]);
    }
    for (size_t p = 1; p < pixels; ++p) {
        const T* s = src + p * C + c;
        HWY_UNROLL(16)
        for (size_t g = 0; g < kGroup; ++g)
            acc[g] = op.Fold(acc[g], op.Widen(d, hn::LoadU(dt, s + g * N)));
    }
    HWY_UNROLL(16)
    for (size_t g = 0; g < kGroup; ++g) op.Store(d, acc[g], area, dst + c + g * N);
}

// Global pooling of FP32 NHWC input with many channels: the running results of all channels
// live in an L1 buffer and every pixel is folded into them in turn, so the input is read once,
// front to back, in the order each channel's results are folded anyway. With groups of register
// accumulators each group swept the pixels C floats apart; that stream ran at 70% of a copy of the
// input on Zen 5 (1024x7x7: 1.56-1.63 us against 1.30-1.32 here, copy 1.12-1.15). The buffer sits
// half a page away from the input (modulo 4 KiB): a pixel row of 1024 channels is 4 KiB long, so a
// buffer at the same page offset made every load of the input wait for the buffer store of the same
// offset (4K aliasing: 2.1 us).
constexpr size_t kGlobalInL1MinVectors = 32, kGlobalInL1MaxChannels = 4096;
// Out of line except on AVX-512 (Zen 5, 1024x7x7, us): inlined into the whole pooling kernel,
// AVX2 took 2.02-2.31 and SSE4 3.68-3.79 once the kernel grew; out of line 1.46-1.61 and
// 2.70-3.44 (the spread is code layout: the same code measured both ends in two builds). AVX-512
// measured 1.22-1.44 inlined against 1.44-1.55 out of line.
#undef SIMD_POOL_GLOBAL_IN_L1
#if HWY_TARGET <= HWY_AVX3
#define SIMD_POOL_GLOBAL_IN_L1 HWY_INLINE
constexpr bool kGlobalInL1Unroll = true;
#else
#define SIMD_POOL_GLOBAL_IN_L1 HWY_NOINLINE
constexpr bool kGlobalInL1Unroll = false;
#endif
template <class D, class Op>
SIMD_POOL_GLOBAL_IN_L1 void GlobalNhwcInL1(D d, const Op& op, const float* src, size_t C,
                                           size_t pixels, float area, float* dst) {
    constexpr size_t kPage = 4096, kPageFloats = kPage / sizeof(float), kLine = 64;
    alignas(64) float buffer[kGlobalInL1MaxChannels + kPageFloats];
    const uintptr_t srcOffset = reinterpret_cast<uintptr_t>(src) % kPage;
    const uintptr_t bufferOffset = reinterpret_cast<uintptr_t>(buffer) % kPage;
    const size_t shift = (srcOffset + kPage / 2 + kPage - bufferOffset) % kPage;
    float* acc = buffer + shift / kLine * kLine / sizeof(float);
    const size_t N = hn::Lanes(d), whole = C / N * N;
    for (size_t c = 0; c < whole; c += N) {
        auto a = hn::LoadU(d, src + c);
        if constexpr (!Op::kAverage) a = op.Fold(op.Init(d), a);
        hn::Store(a, d, acc + c);
    }
    for (size_t p = 1; p < pixels; ++p) {
        const float* s = src + p * C;
        size_t c = 0;
        // Four vectors per step on AVX-512 only (Zen 5, 1024x7x7: 1.28-1.44 us one at a time,
        // where code layout moved it between builds, 1.11-1.12 four at a time; AVX2 and SSE4
        // went from 1.41 to 1.9 and from 2.67 to 3.7 us with four).
        for (; kGlobalInL1Unroll && c + 4 * N <= whole; c += 4 * N) {
            const auto a0 = op.Fold(hn::Load(d, acc + c), hn::LoadU(d, s + c));
            const auto a1 = op.Fold(hn::Load(d, acc + c + N), hn::LoadU(d, s + c + N));
            const auto a2 = op.Fold(hn::Load(d, acc + c + 2 * N), hn::LoadU(d, s + c + 2 * N));
            const auto a3 = op.Fold(hn::Load(d, acc + c + 3 * N), hn::LoadU(d, s + c + 3 * N));
            hn::Store(a0, d, acc + c);
            hn::Store(a1, d, acc + c + N);
            hn::Store(a2, d, acc + c + 2 * N);
            hn::Store(a3, d, acc + c + 3 * N);
        }
        for (; c < whole; c += N)
            hn::Store(op.Fold(hn::Load(d, acc + c), hn::LoadU(d, s + c)), d, acc + c);
    }
    // A multiply by the inverse, not a division per vector (64 divisions took a tenth of the
    // time at 1024 channels).
    const float inverse = 1.0f / area;
    for (size_t c = 0; c < whole; c += N)
        op.StoreInverse(d, hn::Load(d, acc + c), inverse, dst + c);
    const hn::CappedTag<float, 1> d1;
    for (size_t c = whole; c < C; ++c) GlobalNhwcGroup<1>(d1, op, src, C, pixels, area, c, dst);
}

template <class Op, class T>
HWY_INLINE void GlobalNhwc(const Op& op, const T* src, size_t C, size_t pixels, float area,
                           T* dst) {
    const hn::ScalableTag<typename Op::C> d;
    const size_t N = hn::Lanes(d);
    if constexpr (std::is_same_v<T, float>) {
        if (C >= kGlobalInL1MinVectors * N && C <= kGlobalInL1MaxChannels) {
            GlobalNhwcInL1(d, op, src, C, pixels, area, dst);
            return;
        }
    }
    // Registers: 32 vector registers on AVX-512 hold 16 accumulators, 16 registers hold 8.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    constexpr size_t kGroup = 16;
#else
    constexpr size_t kGroup = 8;
#endif
    size_t c = 0;
    for (; c + kGroup * N <= C; c += kGroup * N)
        GlobalNhwcGroup<kGroup>(d, op, src, C, pixels, area, c, dst);
    for (; c + 4 * N <= C; c += 4 * N) GlobalNhwcGroup<4>(d, op, src, C, pixels, area, c, dst);
    for (; c + N <= C; c += N) GlobalNhwcGroup<1>(d, op, src, C, pixels, area, c, dst);
    if (c == C) return;
    if (C >= N) {
        // Overlaps channels already written with the same values.
        GlobalNhwcGroup<1>(d, op, src, C, pixels, area, C - N, dst);
        return;
    }
    const hn::CappedTag<typename Op::C, 1> d1;
    for (; c < C; ++c) GlobalNhwcGroup<1>(d1, op, src, C, pixels, area, c, dst);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
