// Depthwise INT8 convolution (group == srcC == dstC, SUPPLEMENT.md §11) on every SIMD target.
//
// The dot products of the direct algorithm sum four input channels of one tap; a depthwise
// output has one channel, so it would leave three quarters of every word on zero weights.
// Here the four bytes of a lane are four kernel rows of one channel instead: interleaving the
// blocks of 4*L channels of four image rows within 128-bit lanes gives, per kernel column, four
// vectors of four rows, and one dot product per vector adds four taps (Kernels8i.h,
// DepthwisePixels8i). The channels then come in block order (BlockOrderChannel): for UINT8
// outputs on x86 the weights and output parameters are stored in that order and the epilogue's
// packs restore the channel order; otherwise each block of the padded image is stored with its
// 4-channel groups permuted (Padded8i::PermuteBlocks) so that the vectors hold channels in lane
// order. With whole blocks of channels in block order, the caller's UINT8 NHWC rows are read
// where they are, and only the columns that reach into the padding are made, per row, in a
// small ring. With VNNI, whole blocks of UINT8 NHWC outputs in block order and the cheap
// activations, the 3x3 rings quantize and store each output's bytes themselves
// (FusedEpilogue8i in Kernels8i.h) instead of storing INT32 sums for Epilogue8i. There are no
// pairs of input channels, so 8iOverflow sums exactly here, as its rule says.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution8i/Depthwise8i.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution8i/Convolution8i.h"
#include "convolution8i/Depthwise8i.h"
#include "convolution8i/Dot8i-inl.h"
#include "convolution8i/Padded8i-inl.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "core/AlignedVector.h"
#include "core/CpuFeatures.h"
#include "core/IsaName.h"
#include "core/ThreadPool.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv8i {

#include "convolution8i/Kernels8i.h"  // conv8i::plain and (AVX3) conv8i::vnni

#if HWY_TARGET != HWY_SCALAR
namespace {

constexpr size_t kLanes = hn::MaxLanes(D32());
constexpr size_t kBlock = 4 * kLanes;  // channels per block
constexpr size_t kChunk = 32;          // output pixels per call of the kernels

using DepthwiseFn = void (*)(const uint8_t* const*, size_t, size_t, size_t, size_t, size_t, size_t,
                             const int8_t*, int32_t*);
using RingFn = void (*)(const uint8_t* const*, size_t, size_t, size_t, const int8_t*,
                        int32_t* const*);
// The fused rings: of stride 1, rows as Ring3x3Columns8i's three sets; of stride 2, four rows.
using RingU8Fn = void (*)(const uint8_t* const*, size_t, size_t, const int8_t*, const OutputParams&,
                          uint8_t*, size_t, size_t);

// The kernels of one dot product: the general one, and the 3x3 stride-1 ring for one and two
// output rows, in one or two passes over the vectors of a block (fewer accumulators where the
// register file is small or the dot product needs temporaries).
struct DepthwiseKernel {
    DepthwiseFn fn;
    RingFn ring1[2], ring2[2], ringS2[2];  // second entries: the second pass, or NULL
    const char* dot;
    bool fusable;  // one pass: FusedRings has rings with the epilogue for this dot product
};

template <class Dot>
struct PlainKernels {
    static constexpr DepthwiseFn Pixels() { return &plain::DepthwisePixels8i<Dot>; }
    template <size_t kRows, size_t kFirst, size_t kVecs>
    static constexpr RingFn Ring() {
        return &plain::Depthwise3x3Ring8i<Dot, kRows, kFirst, kVecs>;
    }
    template <size_t kFirst, size_t kVecs>
    static constexpr RingFn RingS2() {
        return &plain::Depthwise3x3s2Ring8i<Dot, kFirst, kVecs>;
    }
};

#if HWY_TARGET == HWY_AVX3
struct VnniKernels {
    static constexpr DepthwiseFn Pixels() { return &vnni::DepthwisePixels8i<vnni::DotVnni>; }
    template <size_t kRows, size_t kFirst, size_t kVecs>
    static constexpr RingFn Ring() {
        return &vnni::Depthwise3x3Ring8i<vnni::DotVnni, kRows, kFirst, kVecs>;
    }
    template <size_t kFirst, size_t kVecs>
    static constexpr RingFn RingS2() {
        return &vnni::Depthwise3x3s2Ring8i<vnni::DotVnni, kFirst, kVecs>;
    }
};
#endif

// kVecs: vectors per pass of the ring (4: one pass, 2: two).
template <class Kernels, size_t kVecs>
DepthwiseKernel KernelsOf(const char* dot) {
    DepthwiseKernel k{Kernels::Pixels(), {}, {}, {}, dot, false};
    k.ring1[0] = Kernels::template Ring<1, 0, kVecs>();
    k.ring2[0] = Kernels::template Ring<2, 0, kVecs>();
    k.ringS2[0] = Kernels::template RingS2<0, kVecs>();
    if (kVecs == 2) {
        k.ring1[1] = Kernels::template Ring<1, 2, 2>();
        k.ring2[1] = Kernels::template Ring<2, 2, 2>();
        k.ringS2[1] = Kernels::template RingS2<2, 2>();
    }
    return k;
}

// An exact dot product in every mode (8iOverflow included: no channel pairs here). Two output
// rows of four vectors keep 24 accumulators, which fit AVX-512's 32 registers with VPDPBUSD;
// the others take two passes of two vectors.
DepthwiseKernel ChooseDepthwise(const Int8Mode& m) {
#if HWY_TARGET == HWY_AVX3
    if (CpuHasAvx512Vnni()) {
        DepthwiseKernel k = KernelsOf<VnniKernels, 4>("vnni");
        k.fusable = true;
        return k;
    }
#endif
#if SIMD_SYNET_INT8_X86
    if (m.narrowed) return KernelsOf<PlainKernels<DotMaddubs>, 2>("maddubs");
#endif
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2
    return KernelsOf<PlainKernels<DotSplit>, 2>("maddubs2");
#else
    (void)m;
    return KernelsOf<PlainKernels<DotWiden<false>>, 2>("widen");
#endif
}

#if HWY_TARGET == HWY_AVX3
template <Act8iKind kKind, bool kShift>
void FusedRingsOf(RingU8Fn* rings) {
    rings[0] = &vnni::Depthwise3x3RingU8i<vnni::DotVnni, 1, kKind, kShift>;
    rings[1] = &vnni::Depthwise3x3RingU8i<vnni::DotVnni, 2, kKind, kShift>;
    rings[2] = &vnni::Depthwise3x3s2RingU8i<vnni::DotVnni, kKind, kShift>;
}
#endif

// The VNNI rings (stride 1 of one and two output rows, stride 2) with the UINT8 epilogue in block
// order fused in (FusedEpilogue8i), as Epilogue8i would run for this activation and output zero
// point; false for the activations that keep the separate epilogue.
bool FusedRings(SimdConvolutionActivationType type, float zero, RingU8Fn* rings) {
#if HWY_TARGET == HWY_AVX3
    return WithAct8iKind(type, [&](auto kind) {
        constexpr Act8iKind kKind = decltype(kind)::value;
        if constexpr (kKind == Act8iKind::kHardSigmoid || kKind == Act8iKind::kOther) {
            return false;
        } else {
            // Epilogue8i's shortcut for ReLU with a zero point of 0 (no max, no add of the zero
            // point).
            if (kKind == Act8iKind::kRelu && zero == 0.0f)
                FusedRingsOf<Act8iKind::kIdentity, false>(rings);
            else
                FusedRingsOf<kKind, true>(rings);
            return true;
        }
    });
#else
    (void)type;
    (void)zero;
    (void)rings;
    return false;
#endif
}

// The UINT8 epilogue of sums in block order (x86 only: the packs restore the order).
EpilogueFn BlockOrderEpilogue(SimdConvolutionActivationType type) {
#if SIMD_SYNET_INT8_X86
    return EpilogueOf<true, true>(type);
#else
    (void)type;
    return nullptr;
#endif
}

class Depthwise8i : public Padded8i {
public:
    Depthwise8i(size_t batch, const SimdConvolutionParameters& p, SimdSynetCompatibilityType c)
        : Padded8i(batch, p, c) {
        const size_t P = RoundUp(q_.srcC, kBlock);
        // UINT8 outputs on x86 keep the channels in block order from the image to the packs of
        // the epilogue, which restore the order (no permutation of the image, and one shuffle
        // less per four output vectors); otherwise the image's blocks are permuted.
        blockOrder_ = kLanes > 4 && dstBytes_ == 1 && SIMD_SYNET_INT8_X86;
        const bool permute = kLanes > 4 && !blockOrder_;
        const bool inPlace = CanReadInPlace() && P == q_.srcC && !permute;
        // The caller's UINT8 NHWC rows read where they are, with only the pixels of the padded
        // borders made in the ring (edges_) instead of whole padded rows: h_dw3x3s2_128_112 on
        // Zen 5, 1 thread, 91-94 -> 75-78 us a call (oneDNN 84-99 us).
        edges_ = !inPlace && !permute && nhwc_ && p_.srcT == SimdTensorData8u && P == q_.srcC;
        SetLayout({P, permute, inPlace, !inPlace});
        if (blockOrder_) epilogue_ = BlockOrderEpilogue(p.activation);
        blocks_ = P / kBlock;
        groups_ = (q_.kY + 3) / 4;
        const bool k3 = q_.kY == 3 && q_.kX == 3 && q_.dY == 1 && q_.dX == 1;
        ring_ = k3 && q_.sY == 1 && q_.sX == 1;
        ringS2_ = k3 && q_.sY == 2 && q_.sX == 2;
        // Padded rows one step of RunRows reads (two output rows for the ring).
        slots_ = std::min(padH_, ((ring_ ? 2 : 1) - 1) * q_.sY + (q_.kY - 1) * q_.dY + 1);
        slotBytes_ = AlignBytes(padW_ * P + 64);
        // Outputs [leftEnd_, rightBegin_) read no padded column (edges_).
        const size_t reach = (q_.kX - 1) * q_.dX;
        leftEnd_ = std::min(q_.dstW, (q_.padX + q_.sX - 1) / q_.sX);
        rightBegin_ = q_.padX + q_.srcW >= reach
                          ? std::min(q_.dstW, (q_.padX + q_.srcW - reach + q_.sX - 1) / q_.sX)
                          : 0;
        if (rightBegin_ <= leftEnd_) edges_ = false;
        kernel_ = ChooseDepthwise(mode_);
        info_ = std::string(IsaNameOf(HWY_TARGET)) + (nhwc_ ? "::nhwc" : "::nchw") + "-depthwise-" +
                std::to_string(q_.kY) + "x" + std::to_string(q_.kX) +
                (ring_     ? "s1-ring-"
                 : ringS2_ ? "s2-ring-"
                           : "-") +
                kernel_.dot;
    }

protected:
    size_t WeightBytes() const override { return weights_.size(); }
    // Per block: groups of kernel rows x kernel columns x 4*L lanes of 4 bytes; for the ring a
    // second such set for the second output row (rows shifted up one byte).
    size_t BlockWeightBytes() const { return (ring_ ? 2 : 1) * groups_ * q_.kX * kBlock * 4; }

    // Per block, group of four kernel rows and kernel column: four vectors, lane i of vector k
    // the weights of channel k*L + i of the block for the four rows (blockOrder_: of channel
    // BlockOrderChannel(k*L + i)).
    void PackWeights() override {
        const size_t C = q_.srcC, kY = q_.kY, kX = q_.kX;
        weights_.assign(blocks_ * BlockWeightBytes(), 0);
        for (size_t c = 0; c < C; ++c) {
            // Lane i of vector k: channel k*L + i of the block, or the block order's.
            size_t k = c % kBlock / kLanes, i = c % kLanes;
            if (blockOrder_) {
                const size_t b = c % kBlock / 16, k4 = c % 16 / 4;
                k = k4;
                i = 4 * b + c % 4;
            }
            const size_t u = c / kBlock;
            for (size_t ky = 0; ky < kY; ++ky)
                for (size_t kx = 0; kx < kX; ++kx) {
                    const size_t g = ky / 4, j = ky % 4;
                    int8_t* block = weights_.data() + u * BlockWeightBytes();
                    const int8_t w = w8_[(c * kY + ky) * kX + kx];
                    block[((g * kX + kx) * 4 + k) * kLanes * 4 + i * 4 + j] = w;
                    if (ring_) block[((kX + kx) * 4 + k) * kLanes * 4 + i * 4 + j + 1] = w;
                }
        }
        if (blockOrder_)
            PadParamsBlockOrder(kBlock, kLanes);
        else
            PadParams(1);
    }

    // Bytes of one part's scratch: the row addresses, the INT32 sums of a chunk, (NCHW) its
    // NHWC band, and (rows on demand) the ring of padded rows with the row each slot holds.
    size_t PartBytes() const override {
        return AlignBytes(16 * groups_ * sizeof(void*)) + AlignBytes(2 * kChunk * kBlock * 4) +
               (nhwc_ ? 0 : AlignBytes(kChunk * kBlock * 4)) + RingBytes();
    }
    size_t RingBytes() const {
        return layout_.rowsOnDemand ? AlignBytes(slots_ * sizeof(size_t)) + slots_ * slotBytes_ : 0;
    }

    // Output rows split over the threads.
    void ConvolveImage(const uint8_t* image, uint8_t* buf, uint8_t* dst) const override {
        const size_t parts = ThreadPartsFor(2.0 * double(q_.dstImage) * double(q_.kY * q_.kX));
        if (!ParallelPartsWithScratch(std::min(parts, q_.dstH), reinterpret_cast<float*>(buf),
                                      (PartBytes() + sizeof(float) - 1) / sizeof(float),
                                      [&](size_t part, size_t count, float* scratch) {
                                          const auto r = PartRange(q_.dstH, part, count);
                                          RunRows(image, dst, r.first, r.second,
                                                  reinterpret_cast<uint8_t*>(scratch));
                                      }))
            throw std::bad_alloc();
    }

    void RunRows(const uint8_t* image, uint8_t* dst, size_t y0, size_t y1, uint8_t* buf) const {
        // The row addresses of a kernel call, then those of the first output of each run.
        const size_t G4 = 4 * groups_;
        const uint8_t** rows = reinterpret_cast<const uint8_t**>(buf);
        const uint8_t** starts = rows + G4;
        int32_t* sums = reinterpret_cast<int32_t*>(buf + AlignBytes(16 * groups_ * sizeof(void*)));
        uint8_t* band = reinterpret_cast<uint8_t*>(sums) + AlignBytes(2 * kChunk * kBlock * 4);
        const size_t P = layout_.pixelBytes, rowBytes = rowPixels_ * P, C = q_.srcC;
        // Rows on demand: padded row r in slot r % slots_ (the rows of one step span at most
        // slots_ rows, so they never share a slot). Against the whole padded image prepared
        // first, written past L2 and read back: h_dw3x3s2_128_112 NHWC UINT8 (1.6 MB) on Zen 5,
        // 146-152 -> 139-143 us a call.
        uint8_t* ring = band + (nhwc_ ? 0 : AlignBytes(kChunk * kBlock * 4));
        size_t* tags = reinterpret_cast<size_t*>(ring);
        ring += AlignBytes(slots_ * sizeof(size_t));
        if (layout_.rowsOnDemand) std::fill(tags, tags + slots_, ~size_t(0));
        const auto rowAt = [&](size_t r) {
            if (!layout_.rowsOnDemand) return image + r * rowBytes;
            uint8_t* slot = ring + r % slots_ * slotBytes_;
            if (tags[r % slots_] != r) {
                if (edges_ && Inside(r))
                    PrepareEdges(image, r, slot);
                else
                    PrepareRow(image, r, slot);
                tags[r % slots_] = r;
            }
            return static_cast<const uint8_t*>(slot);
        };
        // Padded row r from output x on: in the middle outputs of edges_, the caller's row.
        const auto rowFrom = [&](size_t r, size_t x, bool middle) {
            if (middle && Inside(r))
                return image + ((r - q_.padY) * q_.srcW + x * q_.sX - q_.padX) * C;
            return rowAt(r) + x * q_.sX * P;
        };
        // Into UINT8 NHWC in block order: the ring quantizes and stores the bytes itself.
        RingU8Fn fused[3] = {};
        const bool fuse = (ring_ || ringS2_) && nhwc_ && blockOrder_ && kernel_.fusable &&
                          FusedRings(p_.activation, ParamsAt(0).zero, fused);
        // Output columns in runs that read the same kind of rows.
        size_t runs[4] = {0, q_.dstW, q_.dstW, q_.dstW};
        if (edges_) runs[1] = leftEnd_, runs[2] = rightBegin_;
        // The fused stride-1 ring takes a whole output row in one call where padded columns are
        // at most its first two and its last (Ring3x3Columns8i's three sets of rows) instead of
        // three runs, two of one output (each with two columns to start): d_dw3x3s1_256_56 on
        // Zen 5, 1 thread, in a noisy period (the baseline at 147-163 us): 89-92 -> 79-83 us a
        // call. whole3: those sets at the first block.
        const bool whole =
            fuse && ring_ &&
            (!edges_ || q_.dstW < 2 || (q_.padX <= 2 && q_.dstW < q_.padX + q_.srcW));
        const uint8_t* whole3[12];
        for (size_t y = y0; y < y1;) {
            // Two output rows at a time where the ring kernel takes them.
            const size_t outRows = ring_ && y + 1 < y1 ? 2 : 1;
            // The rows of each run's first output, found once a step rather than per block and
            // chunk (the ring's slot of a row takes two divisions): kernel rows past the kernel
            // read its first row (their weights are zero); the two-row ring reads image rows
            // y .. y + 3.
            for (size_t run = 0; run < 3; ++run)
                if (runs[run] < runs[run + 1])
                    for (size_t j = 0; j < G4; ++j) {
                        const size_t ky = j < q_.kY || outRows == 2 ? j : 0;
                        starts[run * G4 + j] = rowFrom(y * q_.sY + ky * q_.dY, runs[run], run == 1);
                    }
            if (whole)
                for (size_t j = 0; j < 4; ++j) {
                    const size_t r = y + (j < 3 || outRows == 2 ? j : 0);
                    whole3[j] = rowFrom(r, 0, edges_ && leftEnd_ == 0);
                    whole3[8 + j] = rowFrom(r, q_.dstW + 1, edges_ && rightBegin_ == q_.dstW);
                    whole3[4 + j] = q_.dstW > 1 ? rowFrom(r, 2, edges_) : whole3[8 + j];
                }
            for (size_t u = 0; u < blocks_; ++u) {
                const size_t cols = std::min(kBlock, C - u * kBlock);
                const OutputParams op = ParamsAt(u * kBlock);
                const int8_t* weights = weights_.data() + u * BlockWeightBytes();
                // Whole blocks only; without sums to keep, a run is one call.
                const bool fuseBlock = fuse && cols == kBlock;
                const size_t chunk = fuseBlock ? q_.dstW : kChunk;
                if (whole && fuseBlock) {
                    const uint8_t* sets[12];
                    for (size_t i = 0; i < 12; ++i) sets[i] = whole3[i] + u * kBlock;
                    fused[outRows - 1](sets, P, q_.dstW, weights, op,
                                       dst + y * q_.dstW * q_.dstC + u * kBlock, q_.dstW * q_.dstC,
                                       q_.dstC);
                    continue;
                }
                for (size_t run = 0; run < 3; ++run)
                    for (size_t x = runs[run]; x < runs[run + 1]; x += chunk) {
                        const size_t n = std::min(chunk, runs[run + 1] - x);
                        for (size_t j = 0; j < G4; ++j)
                            rows[j] =
                                starts[run * G4 + j] + (x - runs[run]) * q_.sX * P + u * kBlock;
                        if (fuseBlock) {
                            const uint8_t* sets[12];
                            for (size_t i = 0; i < 4 && ring_; ++i) {
                                sets[i] = rows[i];
                                sets[4 + i] = rows[i] + 2 * P;
                                sets[8 + i] = rows[i] + (n + 1) * P;
                            }
                            fused[ringS2_ ? 2 : outRows - 1](
                                ring_ ? sets : rows, P, n, weights, op,
                                dst + (y * q_.dstW + x) * q_.dstC + u * kBlock, q_.dstW * q_.dstC,
                                q_.dstC);
                            continue;
                        }
                        int32_t* out[2] = {sums, sums + kChunk * kBlock};
                        if (ring_ || ringS2_) {
                            const RingFn* ring = ringS2_        ? kernel_.ringS2
                                                 : outRows == 2 ? kernel_.ring2
                                                                : kernel_.ring1;
                            for (size_t pass = 0; pass < 2 && ring[pass]; ++pass)
                                ring[pass](rows, P, 0, n, weights, out);
                        } else {
                            kernel_.fn(rows, groups_, q_.kX, q_.dX * P, q_.sX * P, 0, n, weights,
                                       sums);
                        }
                        for (size_t row = 0; row < outRows; ++row) {
                            const size_t pixel = (y + row) * q_.dstW + x;
                            if (nhwc_) {
                                epilogue_(out[row], kBlock, n, cols, op,
                                          dst + (pixel * q_.dstC + u * kBlock) * dstBytes_,
                                          q_.dstC);
                            } else {
                                epilogue_(out[row], kBlock, n, cols, op, band, kBlock);
                                StoreBand(band, kBlock, n, cols, u * kBlock, pixel, dst);
                            }
                        }
                    }
            }
            y += outRows;
        }
    }

    // Padded row r holds image pixels.
    bool Inside(size_t r) const { return r >= q_.padY && r < q_.padY + q_.srcH; }

    // edges_: of padded row r (inside the image), the columns that outputs before leftEnd_ and
    // from rightBegin_ read, into `row` at their places in a padded row.
    void PrepareEdges(const uint8_t* image, size_t r, uint8_t* row) const {
        const size_t C = q_.srcC, reach = (q_.kX - 1) * q_.dX;
        const uint8_t* from = image + (r - q_.padY) * q_.srcW * C;
        const auto columns = [&](size_t begin, size_t end) {
            for (size_t col = begin; col < end; ++col) {
                if (col >= q_.padX && col < q_.padX + q_.srcW)
                    std::memcpy(row + col * C, from + (col - q_.padX) * C, C);
                else
                    std::memset(row + col * C, srcZero_, C);
            }
        };
        if (leftEnd_ > 0) columns(0, (leftEnd_ - 1) * q_.sX + reach + 1);
        if (rightBegin_ < q_.dstW) columns(rightBegin_ * q_.sX, padW_);
    }

    size_t blocks_, groups_, slots_, slotBytes_, leftEnd_, rightBegin_;
    bool blockOrder_;  // sums, weights and output parameters in block order (BlockOrderChannel)
    bool edges_;       // the caller's rows read in place, the borders' columns from the ring
    bool ring_;        // 3x3, stride 1, no dilation: Depthwise3x3Ring8i
    bool ringS2_;      // 3x3, stride 2, no dilation: Depthwise3x3s2Ring8i
    DepthwiseKernel kernel_;
    std::vector<int8_t, CacheAlignedAllocator<int8_t>> weights_;
};

}  // namespace
#endif
}  // namespace conv8i

Convolution8i* Depthwise8iCreate(size_t batch, const SimdConvolutionParameters& p,
                                 SimdSynetCompatibilityType compatibility) {
#if HWY_TARGET != HWY_SCALAR
    return new conv8i::Depthwise8i(batch, p, compatibility);
#else
    (void)batch;
    (void)p;
    (void)compatibility;
    return nullptr;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
