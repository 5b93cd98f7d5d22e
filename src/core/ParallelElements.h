// Element-wise and per-channel work split over the thread budget (SimdSetThreadNumber). Such
// work is bound by memory or cache bandwidth, and each core adds its own: a residual Add over
// 56x56x256 floats took 0.40 ms on one Sapphire Rapids core and the same with a budget of 2
// before it split. Every element's result is computed the same way whichever part it falls in
// (the kernels treat tails as 1-lane vectors), so results stay bit-identical for any budget.
#pragma once

#include <algorithm>
#include <cstddef>

#include "SimdSynet.h"
#include "core/ThreadPool.h"

namespace simd {

// Elements below which element-wise work stays on the calling thread, and the least a part
// gets: 32 K floats read and written take about 3 us from L2 and 10 us from L3 on one core,
// against about 1 us for a parallel region (threadpool_bench).
constexpr size_t kSplitElements = size_t(1) << 15;
// Parts start on multiples of this many elements (whole groups of vectors of any target).
constexpr size_t kSplitGrain = 64;

inline size_t ElementParts(size_t size) {
    if (size < kSplitElements) return 1;
    return std::max<size_t>(1, std::min(ThreadBudget(), size / (kSplitElements / 2)));
}

// Runs f(begin, end) over [0, size) in one part, or in one part per thread when size is large.
template <class F>
void ParallelElements(size_t size, F&& f) {
    const size_t parts = ElementParts(size);
    if (parts <= 1) {
        f(size_t(0), size);
        return;
    }
    const size_t groups = (size + kSplitGrain - 1) / kSplitGrain;
    ParallelParts(parts, [&](size_t part, size_t count) {
        const auto r = PartRange(groups, part, count);
        const size_t begin = r.first * kSplitGrain, end = std::min(size, r.second * kSplitGrain);
        if (begin < end) f(begin, end);
    });
}

// Per-channel work on channels x spatial floats in `format` (`block` channels per block for
// the NCHWxc layouts, else 1), split as ParallelElements would split channels * spatial: NHWC
// by pixels, the channel-major layouts by whole channels or channel blocks. Calls
// f(channel0, channels, pixel0, pixels) for each part: the part covers channels
// [channel0, channel0 + channels) of pixels [pixel0, pixel0 + pixels); its data start at
// channel0 * spatial + pixel0 * (NHWC: all channels; else 0 since one of the two is 0).
template <class F>
void ParallelPerChannel(size_t channels, size_t spatial, SimdTensorFormatType format, size_t block,
                        F&& f) {
    const size_t parts = ElementParts(channels * spatial);
    if (parts <= 1) {
        f(size_t(0), channels, size_t(0), spatial);
        return;
    }
    const size_t blocks = (channels + block - 1) / block;
    // NHWC, and one NCHW channel, split their pixels; the others split whole channel blocks (one
    // block of NCHWxc stays whole).
    if (format == SimdTensorFormatNhwc || (blocks < 2 && format == SimdTensorFormatNchw)) {
        ParallelParts(parts, [&](size_t part, size_t count) {
            const auto r = PartRange(spatial, part, count);
            if (r.first < r.second) f(size_t(0), channels, r.first, r.second - r.first);
        });
        return;
    }
    ParallelParts(std::min(parts, blocks), [&](size_t part, size_t count) {
        const auto r = PartRange(blocks, part, count);
        const size_t c0 = r.first * block, c1 = std::min(channels, r.second * block);
        if (c0 < c1) f(c0, c1 - c0, size_t(0), spatial);
    });
}

// ParallelPerChannel for functions whose tensors all have the call's shape: f(at, c0, n, pixels)
// with `at` the part's first element, the same offset in each such tensor.
template <class F>
void ParallelPerChannelAt(size_t channels, size_t spatial, SimdTensorFormatType format,
                          size_t block, F&& f) {
    const bool nhwc = format == SimdTensorFormatNhwc;
    ParallelPerChannel(channels, spatial, format, block,
                       [&](size_t c0, size_t n, size_t p0, size_t pixels) {
                           f(c0 * spatial + p0 * (nhwc ? channels : 1), c0, n, pixels);
                       });
}

}  // namespace simd
