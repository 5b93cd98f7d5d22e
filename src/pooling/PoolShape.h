// Geometry of one pooling call, shared by the entry points and every per-target kernel (one
// definition outside the per-target namespaces, so the dispatch tables share the signature).
#pragma once

#include <cstddef>
#include <cstdint>

namespace simd {

struct PoolShape {
    size_t srcC, srcH, srcW;
    size_t kernelC, kernelY, kernelX;
    size_t strideC, strideY, strideX;
    size_t padC, padY, padX;
    size_t dstC, dstH, dstW;
    bool nhwc;        // false: Nchw
    bool channel3d;   // Max32f pools across channels too (SUPPLEMENT.md §5.3)
    bool excludePad;  // average pooling divides by the clipped window area
};

// Clipped window [begin, end) of output index `d` along one axis of `size` input elements
// (SUPPLEMENT.md §5 window rule); begin == end for a window entirely outside the input.
struct PoolRange {
    size_t begin, end;
};
inline PoolRange ClipWindow(size_t d, size_t stride, size_t pad, size_t kernel, size_t size) {
    // The entry points guarantee d*stride + kernel and pad stay below 2^62.
    const ptrdiff_t first = ptrdiff_t(d * stride) - ptrdiff_t(pad);
    ptrdiff_t end = first + ptrdiff_t(kernel);
    if (end > ptrdiff_t(size)) end = ptrdiff_t(size);
    const ptrdiff_t begin = first < 0 ? 0 : first;
    if (end < begin) end = begin;
    return {size_t(begin), size_t(end)};
}

// Output indices [begin, end) of one axis whose windows hold at least one input element (src >= 1,
// kernel, stride >= 1): window d is empty exactly when d*stride + kernel <= pad (it ends before
// element 0) or d*stride >= src + pad (it starts after the last one), so the windows before
// `begin` lie in the padding and those from `end` on past the input (SUPPLEMENT.md §5: the
// caller's dst sizes decide how far windows reach).
inline PoolRange NonEmptyWindows(size_t src, size_t kernel, size_t stride, size_t pad, size_t dst) {
    size_t begin = pad >= kernel ? (pad - kernel) / stride + 1 : 0;
    // The first d with d*stride >= src + pad. A sum past SIZE_MAX (byte-sized tensors may have
    // 2^63 elements per axis) saturates: its windows reach past (dst-1)*stride < 2^62 anyway.
    const size_t reach = src > SIZE_MAX - pad ? SIZE_MAX : src + pad;
    size_t end = (reach - 1) / stride + 1;
    if (end > dst) end = dst;
    if (begin > end) begin = end;
    return {begin, end};
}

}  // namespace simd

namespace simd {

// Widest vector (in lanes) of any target and lane type: a UINT8 AVX-512 vector.
constexpr size_t kPoolMaxLanes = 64;

// Elements of the padded row the separable NCHW kernels build for one output row (also used
// for the channel axis of 3D NHWC pooling): the input row with `pad` initial values before it
// and enough after it for every column the horizontal pass reads with vectors of up to
// kPoolMaxLanes lanes. 0 when the windows reach far beyond the input (huge pads, strides or
// output sizes): the kernels then read each window directly.
inline size_t PoolRowScratch(size_t src, size_t kernel, size_t stride, size_t pad, size_t dst) {
    if (stride > kPoolMaxLanes || kernel > (size_t(1) << 20) || pad > (size_t(1) << 20) ||
        src > (size_t(1) << 40))
        return 0;
    const size_t reach = (dst - 1) * stride + kernel;  // below 2^62 (entry point checks)
    const size_t span =
        (pad + src > reach ? pad + src : reach) + stride * kPoolMaxLanes + kPoolMaxLanes;
    return span > 4 * (src + kernel) + 4096 ? 0 : span;
}

}  // namespace simd
