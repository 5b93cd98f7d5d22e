// The thread budget of SimdSetThreadNumber and the process-wide pool that spends it.
#pragma once

#include <cstddef>
#include <utility>

#include "core/ScratchCache.h"

namespace simd {

// Threads one call may use: SimdSetThreadNumber's (1 by default), at most the cores that other
// runnable threads leave (CpuLoad.h), and 1 during a serial spell, while the machine has been
// seen too busy to run the pool's workers (ThreadPool.cpp).
size_t ThreadBudget();

// Work of one parallel call: `run(context, part, parts)` computes part `part` of `parts`.
using ParallelTask = void (*)(void* context, size_t part, size_t parts);

// Runs task(context, part, parts) for every part < parts and returns when all are done. The
// caller and up to budget - 1 workers of one pool (created on first use, grown up to the
// budget, reused by every later call) claim parts one at a time, so any thread may compute any
// part, and a caller whose workers have not been scheduled computes them all itself. Calls
// made while the pool is busy (another thread's call, or a nested one) and parts == 1 run on
// the calling thread, in order. Which thread computes a part never changes what it computes,
// so callers that split independent outputs (with scratch per part, not per thread) get
// bit-identical results for any thread count.
void RunParts(size_t parts, ParallelTask task, void* context);

// RunParts over a callable `f(part, parts)`.
template <class F>
void ParallelParts(size_t parts, F&& f) {
    RunParts(
        parts,
        [](void* context, size_t part, size_t count) {
            (*static_cast<std::remove_reference_t<F>*>(context))(part, count);
        },
        const_cast<void*>(static_cast<const void*>(&f)));
}

// Parts worth splitting `flop` floating-point operations that stream `bytes` from beyond the
// caches into: the thread budget, or 1 below about half a million operations and 256 KiB. A
// parallel region costs about 1 us while the workers spin (threadpool_bench), and 0.5 MFLOP
// take 3-4 us of a core's convolution time, more in depthwise layers; at 2 threads, lowering
// the limit from 2 MFLOP made regnet_x_400mf 4.61 -> 4.28 ms and mobilenet_v2 2.56 -> 2.48 ms
// (Sapphire Rapids). The bytes count where a layer is bound by streaming its weights, not by
// arithmetic (a classifier's 1x1 convolution on one pixel, 1024 -> 1000: 2.0 MFLOP over 4 MB of
// weights, 184 us on one Xeon core; each core adds bandwidth of its own).
inline size_t ThreadPartsFor(double flop, double bytes = 0.0) {
    return flop < double(1 << 19) && bytes < double(1 << 18) ? 1 : ThreadBudget();
}

// ParallelParts for work that needs `floats` of scratch per part: `f(part, parts, scratch)`.
// `parts` is capped at the thread budget (callers split their work so that the split never
// changes a result). Part 0 gets `buf`, the caller's scratch; the others share one block taken
// for this call from the scratch cache (ScratchCache.h: no fresh pages per call), so a context
// with caller scratch stays re-entrant. Returns false, having run nothing, when that block
// cannot be allocated.
template <class F>
bool ParallelPartsWithScratch(size_t parts, float* buf, size_t floats, F&& f) {
    const size_t budget = ThreadBudget();
    if (parts > budget) parts = budget;
    if (parts <= 1) {
        f(size_t(0), size_t(1), buf);
        return true;
    }
    const CachedScratch extra((parts - 1) * floats);
    float* others = extra.data();
    if (!others) return false;
    ParallelParts(parts, [&](size_t part, size_t count) {
        f(part, count, part == 0 ? buf : others + (part - 1) * floats);
    });
    return true;
}

// [begin, end) of part `part` when `count` items are split into `parts` nearly equal ranges.
inline std::pair<size_t, size_t> PartRange(size_t count, size_t part, size_t parts) {
    const size_t base = count / parts, extra = count % parts;
    const size_t begin = part * base + (part < extra ? part : extra);
    return {begin, begin + base + (part < extra ? 1 : 0)};
}

}  // namespace simd
