// The bandwidth bars of the benchmarks, compiled for every target like the library itself so
// that a baseline runs on the same instruction set as the function it is compared with.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "Baselines.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Reads `count` arrays of readBytesEach bytes and writes writeBytes bytes, 4 vectors per step,
// no arithmetic beyond OR-ing the inputs together (so every load is used).
void CopyMixKernel(const uint8_t* const* inputs, size_t count, size_t readBytesEach,
                   uint8_t* output, size_t writeBytes) {
    const hn::ScalableTag<uint8_t> d;
    const size_t L = hn::Lanes(d);
    if (readBytesEach >= writeBytes) {
        const size_t ratio = readBytesEach / writeBytes;
        for (size_t o = 0, i = 0; o + 4 * L <= writeBytes; o += 4 * L, i += 4 * ratio * L) {
            for (size_t u = 0; u < 4; ++u) {
                const size_t at = i + u * ratio * L;
                auto v = hn::LoadU(d, inputs[0] + at);
                for (size_t r = 1; r < ratio; ++r)
                    v = hn::Or(v, hn::LoadU(d, inputs[0] + at + r * L));
                for (size_t k = 1; k < count; ++k)
                    for (size_t r = 0; r < ratio; ++r)
                        v = hn::Or(v, hn::LoadU(d, inputs[k] + at + r * L));
                hn::StoreU(v, d, output + o + u * L);
            }
        }
    } else if (count == 1 && writeBytes == 4 * readBytesEach) {
        // 1 read : 4 written (uint8 -> float): the store count dominates; write whole groups of
        // 4 vectors per loaded vector with the ratio known at compile time.
        for (size_t i = 0, o = 0; i + L <= readBytesEach; i += L, o += 4 * L) {
            const auto v = hn::LoadU(d, inputs[0] + i);
            hn::StoreU(v, d, output + o + 0 * L);
            hn::StoreU(v, d, output + o + 1 * L);
            hn::StoreU(v, d, output + o + 2 * L);
            hn::StoreU(v, d, output + o + 3 * L);
        }
    } else {
        const size_t ratio = writeBytes / readBytesEach;
        for (size_t i = 0, o = 0; i + L <= readBytesEach; i += L, o += ratio * L) {
            auto v = hn::LoadU(d, inputs[0] + i);
            for (size_t k = 1; k < count; ++k) v = hn::Or(v, hn::LoadU(d, inputs[k] + i));
            for (size_t r = 0; r < ratio; ++r) hn::StoreU(v, d, output + o + r * L);
        }
    }
}

// dst = src0*a + b (+ src_k*a for more inputs): the load -> multiply-add -> store loop that
// bounds L1-resident element-wise work on cores where that mix is slower than a copy.
void MulAddMixKernel(const float* const* inputs, size_t count, size_t n, float* output) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    const auto a = hn::Set(d, 1.5f), b = hn::Set(d, 0.25f);
    for (size_t i = 0; i + 4 * L <= n; i += 4 * L) {
        auto v0 = hn::MulAdd(hn::LoadU(d, inputs[0] + i + 0 * L), a, b);
        auto v1 = hn::MulAdd(hn::LoadU(d, inputs[0] + i + 1 * L), a, b);
        auto v2 = hn::MulAdd(hn::LoadU(d, inputs[0] + i + 2 * L), a, b);
        auto v3 = hn::MulAdd(hn::LoadU(d, inputs[0] + i + 3 * L), a, b);
        for (size_t k = 1; k < count; ++k) {
            v0 = hn::MulAdd(hn::LoadU(d, inputs[k] + i + 0 * L), a, v0);
            v1 = hn::MulAdd(hn::LoadU(d, inputs[k] + i + 1 * L), a, v1);
            v2 = hn::MulAdd(hn::LoadU(d, inputs[k] + i + 2 * L), a, v2);
            v3 = hn::MulAdd(hn::LoadU(d, inputs[k] + i + 3 * L), a, v3);
        }
        hn::StoreU(v0, d, output + i + 0 * L);
        hn::StoreU(v1, d, output + i + 1 * L);
        hn::StoreU(v2, d, output + i + 2 * L);
        hn::StoreU(v3, d, output + i + 3 * L);
    }
}

// data[i] += 0.25 over n floats in place, 4 vectors per step: the bar of an in-place layer
// (one buffer read and written back), which a copy between two buffers does not measure.
void LoadAddStoreKernel(float* data, size_t n) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    const auto b = hn::Set(d, 0.25f);
    for (size_t i = 0; i + 4 * L <= n; i += 4 * L) {
        const auto v0 = hn::Add(hn::LoadU(d, data + i + 0 * L), b);
        const auto v1 = hn::Add(hn::LoadU(d, data + i + 1 * L), b);
        const auto v2 = hn::Add(hn::LoadU(d, data + i + 2 * L), b);
        const auto v3 = hn::Add(hn::LoadU(d, data + i + 3 * L), b);
        hn::StoreU(v0, d, data + i + 0 * L);
        hn::StoreU(v1, d, data + i + 1 * L);
        hn::StoreU(v2, d, data + i + 2 * L);
        hn::StoreU(v3, d, data + i + 3 * L);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "BenchUtil.h"

namespace bench {
HWY_EXPORT(CopyMixKernel);
HWY_EXPORT(MulAddMixKernel);
HWY_EXPORT(LoadAddStoreKernel);

// Every mix, the plain copy included, runs the same vector loop: memcpy's `rep movsb` moves
// L2-resident data at a different rate than vector loads and stores, so one-input functions
// measured against it and multi-input ones against the loop were not read against one bar.
void CopyMix(const uint8_t* const* inputs, size_t count, size_t readBytesEach, uint8_t* output,
             size_t writeBytes) {
    HWY_DYNAMIC_DISPATCH(CopyMixKernel)(inputs, count, readBytesEach, output, writeBytes);
}

void MulAddMix(const float* const* inputs, size_t count, size_t n, float* output) {
    HWY_DYNAMIC_DISPATCH(MulAddMixKernel)(inputs, count, n, output);
}
void LoadAddStore(float* data, size_t n) {
    HWY_DYNAMIC_DISPATCH(LoadAddStoreKernel)(data, n);
}
}  // namespace bench
#endif  // HWY_ONCE
