// INT8 convolution framework (SUPPLEMENT.md §11): SimdSynetConvolution8iInit / ExternalBufferSize
// / InternalBufferSize / Info / SetParams / Forward, and its direct algorithm.
//
// The direct algorithm reads a UINT8 NHWC image: the caller's (UINT8 NHWC without padding and
// with whole 4-byte channel groups), else a copy in the scratch that is quantized (FP32), moved
// (UINT8) and transposed (NCHW) as needed, with a border of the input zero point where the
// layer pads, so that padded taps contribute the zero point (§11) and no tile needs a border
// case. The reduction of an output runs over 4-byte words of that image: per kernel tap
// ceil(Cg/4) words, or, with one group and no horizontal dilation, ceil(kX*C/4) words per
// kernel row (first layers: 1 or 2 channels then waste less of each word); bytes past the
// tap's channels meet zero weights. With input zero point 0, padded taps add nothing: pixels
// are ordered by the kernel rows and columns that fall inside the image, and each tile reads
// only the words of those (BuildOrder). Tiles of MR output pixels in that order x NV vectors of
// output channels (Kernels8i.h) sum whole words with the target's dot product (Dot8i-inl.h;
// VNNI on AVX-512 CPUs that have it, core/CpuFeatures.h), then Epilogue8i-inl.h dequantizes,
// activates and stores. NCHW outputs go through an NHWC band per panel, transposed as soon as it
// is computed.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution8i/Convolution8i.cpp"
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

constexpr size_t kLanes = hn::MaxLanes(D32());

using TileFn = void (*)(const uint8_t*, const size_t*, const uint32_t*, size_t, const int8_t*,
                        int32_t*, bool);

// A register tile: its kernel, MR pixels x NV vectors, and the dot product's name for Info.
struct Tile8i {
    TileFn fn;
    size_t rows, vecs;
    const char* dot;
};

template <class Dot>
struct PlainTiles {
    template <size_t MR, size_t NV>
    static TileFn Fn() {
        return &plain::GemmTile8i<Dot, MR, NV>;
    }
};

#if HWY_TARGET == HWY_AVX3
struct VnniTiles {
    template <size_t MR, size_t NV>
    static TileFn Fn() {
        return &vnni::GemmTile8i<vnni::DotVnni, MR, NV>;
    }
};
#endif

// The tile for Dg output channels per group: kRows x kVecs, or kNarrowRows x 1 (2) when one
// (two) vectors hold all of them, so a first layer's few channels do not fill most of the tile
// with the panel's zero padding; a single output pixel (a classifier's 1x1 convolution on a 1x1
// image) takes one row of kVecs, where kRows rows would compute kRows - 1 rows of padding.
template <class Tiles, size_t kRows, size_t kVecs, size_t kNarrowRows>
Tile8i PickTile(size_t dg, size_t pixels, const char* dot) {
    if (kVecs > 1 && dg <= kLanes)
        return {Tiles::template Fn<kNarrowRows, 1>(), kNarrowRows, 1, dot};
    if (kVecs > 2 && dg <= 2 * kLanes)
        return {Tiles::template Fn<kNarrowRows, 2>(), kNarrowRows, 2, dot};
    if (pixels == 1) return {Tiles::template Fn<1, kVecs>(), 1, kVecs, dot};
    return {Tiles::template Fn<kRows, kVecs>(), kRows, kVecs, dot};
}

// The dot product for the mode on this target (Dot8i-inl.h) and its tile.
Tile8i ChooseTile(const Int8Mode& m, size_t dg, size_t pixels) {
#if HWY_TARGET == HWY_AVX3
    // 8iOverflow keeps PMADDUBSW on VNNI CPUs: its saturation is what the mode computes.
    // Narrow VNNI tiles of 14 rows: 28 accumulators, the two weight vectors and the broadcast
    // fill the 32 registers, and each weight load serves 14 pixels (e_3x3s2_3-32_224 on Zen 5,
    // 1 thread: 12 rows 71.8 us a call, 14 rows 63.9, 15 rows 66.7, 16 rows 73.6).
    if (!m.overflow && CpuHasAvx512Vnni()) return PickTile<VnniTiles, 6, 4, 14>(dg, pixels, "vnni");
    if (m.narrowed || m.overflow)
        return PickTile<PlainTiles<DotMaddubs>, 5, 4, 10>(dg, pixels, "maddubs");
    return PickTile<PlainTiles<DotSplit>, 4, 4, 8>(dg, pixels, "maddubs2");
#elif HWY_TARGET == HWY_AVX2
    if (m.narrowed || m.overflow)
        return PickTile<PlainTiles<DotMaddubs>, 4, 2, 8>(dg, pixels, "maddubs");
    return PickTile<PlainTiles<DotSplit>, 4, 2, 6>(dg, pixels, "maddubs2");
#elif HWY_TARGET == HWY_SSE4
    // Narrowed: one exact PMADDUBSW; the other modes run the portable widening so that the x86
    // tests cover the code NEON runs.
    if (m.narrowed) return PickTile<PlainTiles<DotMaddubs>, 4, 2, 8>(dg, pixels, "maddubs");
    if (m.overflow) return PickTile<PlainTiles<DotWiden<true>>, 4, 2, 6>(dg, pixels, "widen-sat");
    return PickTile<PlainTiles<DotWiden<false>>, 4, 2, 6>(dg, pixels, "widen");
#elif HWY_TARGET == HWY_SCALAR
    if (m.overflow) return PickTile<PlainTiles<DotScalar<true>>, 4, 4, 4>(dg, pixels, "scalar-sat");
    return PickTile<PlainTiles<DotScalar<false>>, 4, 4, 4>(dg, pixels, "scalar");
#else
    if (m.overflow) return PickTile<PlainTiles<DotWiden<true>>, 4, 2, 6>(dg, pixels, "widen-sat");
    return PickTile<PlainTiles<DotWiden<false>>, 4, 2, 6>(dg, pixels, "widen");
#endif
}

class Direct8i : public Padded8i {
public:
    Direct8i(size_t batch, const SimdConvolutionParameters& p, SimdSynetCompatibilityType c)
        : Padded8i(batch, p, c) {
        SetLayout({q_.srcC, false, CanReadInPlace() && q_.Cg % 4 == 0, false});
        BuildWords();
        tile_ = ChooseTile(mode_, q_.Dg, q_.pixels);
        nr_ = tile_.vecs * kLanes;
        panels_ = (q_.Dg + nr_ - 1) / nr_;
        dgPad_ = panels_ * nr_;
        // Words per chunk of the reduction: a chunk of a panel (nr_ lanes of 4 bytes a word)
        // stays in L2 while the tiles of a block pass over it. Chunks sized for L1 (20 KiB)
        // were slower: 3x3 256->256 14x14 (a 147 KiB panel) 257 us a call in 8 chunks, 246-250
        // us streaming the whole panel from L2 (Zen 5, 1 thread; the tile reads 21 bytes of
        // weights a cycle), as the sums of every tile are stored and reloaded per chunk; 3x3
        // 64->64 56x56 and the 1x1 1024->1000 did not change. Pixels per block: the image rows
        // a block reads stay in L2, and its INT32 sums of one panel (block x nr_) too.
        chunk_ = std::max<size_t>((size_t(512) << 10) / (nr_ * 4), 16);
        if (words_ <= chunk_ + chunk_ / 2) chunk_ = words_;
        const size_t k = words_ * 4;
        block_ = RoundUp(std::min<size_t>(std::max<size_t>((size_t(96) << 10) / k, 64), 256),
                         tile_.rows);
        info_ = std::string(IsaNameOf(HWY_TARGET)) + (nhwc_ ? "::nhwc" : "::nchw") + "-direct-" +
                std::to_string(tile_.rows) + "x" + std::to_string(nr_) + "-" + tile_.dot;
    }

protected:
    size_t WeightBytes() const override { return packed_.size(); }

    // The 4-byte words each output pixel reads (offsets_: bytes from its first tap), and for
    // every byte of the reduction the weight it meets (tap * Cg + ci, or -1 for a byte past
    // the tap's channels).
    void BuildWords() {
        const size_t C = q_.srcC, Cg = q_.Cg, rowBytes = rowPixels_ * C;
        // One run per kernel row when its taps are neighbouring pixels of one group, where that
        // saves words; not in 8iOverflow with an odd Cg, whose pairs would then span two taps.
        const bool rows =
            q_.G == 1 && q_.dX == 1 && q_.kX > 1 && Cg % 4 != 0 && (Cg % 2 == 0 || !mode_.overflow);
        rowWords_ = rows;
        if (rows) {
            for (size_t ky = 0; ky < q_.kY; ++ky) {
                const size_t bytes = q_.kX * C, words = (bytes + 3) / 4;
                for (size_t i = 0; i < words * 4; ++i) {
                    if (i % 4 == 0) offsets_.push_back(uint32_t(ky * q_.dY * rowBytes + i));
                    kIndex_.push_back(i < bytes ? int((ky * q_.kX + i / C) * Cg + i % C) : -1);
                }
            }
        } else {
            const size_t words = (Cg + 3) / 4;
            for (size_t ky = 0; ky < q_.kY; ++ky)
                for (size_t kx = 0; kx < q_.kX; ++kx)
                    for (size_t i = 0; i < words * 4; ++i) {
                        if (i % 4 == 0)
                            offsets_.push_back(
                                uint32_t(ky * q_.dY * rowBytes + kx * q_.dX * C + i));
                        kIndex_.push_back(i < Cg ? int((ky * q_.kX + kx) * Cg + i) : -1);
                    }
        }
        words_ = offsets_.size();
    }

    void PackWeights() override {
        const size_t G = q_.G, Dg = q_.Dg, taps = q_.kY * q_.kX, Cg = q_.Cg;
        packed_.assign(G * dgPad_ * words_ * 4, 0);
        for (size_t g = 0; g < G; ++g)
            for (size_t d = 0; d < Dg; ++d) {
                const size_t panel = d / nr_, lane = d % nr_;
                int8_t* to = packed_.data() + ((g * panels_ + panel) * words_ * nr_ + lane) * 4;
                const int8_t* w = w8_.data() + (g * Dg + d) * taps * Cg;
                for (size_t k = 0; k < words_; ++k)
                    for (size_t b = 0; b < 4; ++b) {
                        const int idx = kIndex_[k * 4 + b];
                        to[k * nr_ * 4 + b] = idx < 0 ? 0 : w[idx];
                    }
            }
        PadParams(dgPad_);
        BuildOrder();
    }

    // The kernel rows [y0, y1) and columns [x0, x1) of output pixel `px` whose taps fall inside
    // the image (at least one of each: a tap in the padding reads the zero point).
    struct Taps {
        size_t y0, y1, x0, x1;
    };
    Taps ValidTaps(size_t px) const {
        const auto range = [](size_t o, size_t s, size_t d, size_t pad, size_t k, size_t n,
                              size_t* lo, size_t* hi) {
            *lo = k, *hi = 0;
            for (size_t i = 0; i < k; ++i) {
                const ptrdiff_t at = ptrdiff_t(o * s + i * d) - ptrdiff_t(pad);
                if (at >= 0 && at < ptrdiff_t(n)) *lo = std::min(*lo, i), *hi = i + 1;
            }
            if (*hi == 0) *lo = 0, *hi = 1;
        };
        Taps t;
        range(px / q_.dstW, q_.sY, q_.dY, q_.padY, q_.kY, q_.srcH, &t.y0, &t.y1);
        range(px % q_.dstW, q_.sX, q_.dX, q_.padX, q_.kX, q_.srcW, &t.x0, &t.x1);
        if (rowWords_) t.x0 = 0, t.x1 = q_.kX;  // words span the kernel row
        return t;
    }

    // With input zero point 0 a tap in the padding adds nothing, so a tile skips the words of
    // the kernel rows and columns that lie in the padding for all its pixels. Pixels go in
    // order of their valid taps (row-major within a class), so that border pixels share tiles:
    // 3x3 256->256 14x14 then computes 279 tile-taps instead of 297 (oneDNN skips them too).
    // order_: pixel of each position; runs_ from runsAt_[tile] to runsAt_[tile + 1]: the word
    // ranges of each tile of MR positions.
    void BuildOrder() {
        const size_t pixels = q_.pixels, MR = tile_.rows;
        std::vector<Taps> taps(pixels);
        std::vector<uint64_t> keys(pixels);
        order_.resize(pixels);
        for (size_t px = 0; px < pixels; ++px) {
            taps[px] = srcZero_ == 0 ? ValidTaps(px) : Taps{0, q_.kY, 0, q_.kX};
            const Taps& t = taps[px];
            keys[px] =
                (uint64_t(t.y0) << 48) | (uint64_t(t.y1) << 32) | (uint64_t(t.x0) << 16) | t.x1;
            order_[px] = uint32_t(px);
        }
        std::stable_sort(order_.begin(), order_.end(),
                         [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
        // Computed here: the divisions per pixel in RunRange cost 27 us a call in
        // e_3x3s2_3-32_224 (12544 pixels).
        firstTap_.resize(pixels);
        consecutive_.resize(pixels);
        for (size_t i = pixels; i-- > 0;)
            consecutive_[i] = i + 1 < pixels && order_[i + 1] == order_[i] + 1 ? consecutive_[i + 1]
                                                                               : uint32_t(i + 1);
        for (size_t i = 0; i < pixels; ++i) {
            const size_t y = order_[i] / q_.dstW, x = order_[i] % q_.dstW;
            firstTap_[i] = (y * q_.sY * rowPixels_ + x * q_.sX) * q_.srcC;
        }
        // The rows of a last partial tile repeat the last pixel.
        firstTap_.resize(RoundUp(pixels, MR), firstTap_[pixels - 1]);
        const size_t tapWords = rowWords_ ? words_ / q_.kY : words_ / (q_.kY * q_.kX);
        runs_.clear();
        runsAt_.assign(1, 0);
        for (size_t p0 = 0; p0 < pixels; p0 += MR) {
            Taps u = taps[order_[p0]];
            for (size_t p = p0; p < std::min(pixels, p0 + MR); ++p) {
                const Taps& t = taps[order_[p]];
                u = {std::min(u.y0, t.y0), std::max(u.y1, t.y1), std::min(u.x0, t.x0),
                     std::max(u.x1, t.x1)};
            }
            if (rowWords_) {
                runs_.push_back({uint32_t(u.y0 * tapWords), uint32_t(u.y1 * tapWords)});
            } else if (u.x0 == 0 && u.x1 == q_.kX) {
                runs_.push_back(
                    {uint32_t(u.y0 * q_.kX * tapWords), uint32_t(u.y1 * q_.kX * tapWords)});
            } else {
                for (size_t y = u.y0; y < u.y1; ++y)
                    runs_.push_back({uint32_t((y * q_.kX + u.x0) * tapWords),
                                     uint32_t((y * q_.kX + u.x1) * tapWords)});
            }
            runsAt_.push_back(uint32_t(runs_.size()));
        }
    }

    // Bytes of one part's scratch: the INT32 sums of a block and (NCHW) the NHWC band of one
    // panel.
    size_t PartBytes() const override {
        return AlignBytes(block_ * nr_ * 4) + (nhwc_ ? 0 : AlignBytes(block_ * nr_ * 4));
    }

    // Output pixels of one image split over the threads: ranges of whole tiles, or of panels
    // when the image has too few pixels. Integer sums are exact, so any split gives the same
    // bits.
    void ConvolveImage(const uint8_t* image, uint8_t* buf, uint8_t* dst) const override {
        const size_t pixels = q_.pixels, panels = q_.G * panels_;
        const size_t tiles = (pixels + tile_.rows - 1) / tile_.rows;
        const size_t parts =
            ThreadPartsFor(2.0 * double(pixels) * double(q_.dstC) * double(words_ * 4),
                           double(q_.dstC) * double(words_ * 4));  // the INT8 weights
        const bool byPixels = tiles >= parts * 4 || panels < parts;
        const size_t units = byPixels ? tiles : panels;
        if (!ParallelPartsWithScratch(std::min(parts, units), reinterpret_cast<float*>(buf),
                                      (PartBytes() + sizeof(float) - 1) / sizeof(float),
                                      [&](size_t part, size_t count, float* scratch) {
                                          const auto r = PartRange(units, part, count);
                                          uint8_t* s = reinterpret_cast<uint8_t*>(scratch);
                                          if (byPixels)
                                              RunRange(image, dst, r.first * tile_.rows,
                                                       std::min(pixels, r.second * tile_.rows), 0,
                                                       panels, s);
                                          else
                                              RunRange(image, dst, 0, pixels, r.first, r.second, s);
                                      }))
            throw std::bad_alloc();
    }

    // Output pixels [p0, p1) x panels [j0, j1) (over all groups) of one image.
    void RunRange(const uint8_t* image, uint8_t* dst, size_t p0, size_t p1, size_t j0, size_t j1,
                  uint8_t* buf) const {
        int32_t* sums = reinterpret_cast<int32_t*>(buf);
        uint8_t* band = reinterpret_cast<uint8_t*>(sums) + AlignBytes(block_ * nr_ * 4);
        const size_t MR = tile_.rows;
        for (size_t b0 = p0; b0 < p1; b0 += block_) {
            const size_t b1 = std::min(p1, b0 + block_), n = b1 - b0;
            for (size_t j = j0; j < j1; ++j) {
                const size_t g = j / panels_, c0 = (j % panels_) * nr_;
                // The tiles add each pixel's first tap to the group's first channel: the row
                // addresses of a block, written first, cost e_3x3s2_3-32_224 (12544 pixels)
                // 77.9 -> 72.4 us a call on Zen 5.
                const uint8_t* base = image + g * q_.Cg;
                const size_t cols = std::min(nr_, q_.Dg - c0), channel = g * q_.Dg + c0;
                const int8_t* panel = packed_.data() + j * words_ * nr_ * 4;
                const OutputParams op = ParamsAt(g * dgPad_ + c0);
                for (size_t k = 0; k < words_; k += chunk_) {
                    const size_t kEnd = std::min(words_, k + chunk_);
                    for (size_t t = 0; t < n; t += MR) {
                        const size_t tile = (b0 + t) / MR;
                        const Run* run = runs_.data() + runsAt_[tile];
                        const Run* end = runs_.data() + runsAt_[tile + 1];
                        for (const size_t first = run->begin; run < end; ++run) {
                            const size_t lo = std::max<size_t>(run->begin, k);
                            const size_t hi = std::min<size_t>(run->end, kEnd);
                            if (lo < hi)
                                tile_.fn(base, firstTap_.data() + b0 + t, offsets_.data() + lo,
                                         hi - lo, panel + lo * nr_ * 4, sums + t * nr_,
                                         lo != first);
                        }
                    }
                }
                // Positions of consecutive pixels go through the epilogue together.
                for (size_t s = 0, e; s < n; s = e) {
                    const size_t px = order_[b0 + s];
                    e = std::min<size_t>(n, consecutive_[b0 + s] - b0);
                    if (nhwc_) {
                        epilogue_(sums + s * nr_, nr_, e - s, cols, op,
                                  dst + (px * q_.dstC + channel) * dstBytes_, q_.dstC);
                    } else {
                        uint8_t* at = band + s * nr_ * dstBytes_;
                        epilogue_(sums + s * nr_, nr_, e - s, cols, op, at, nr_);
                        StoreBand(at, nr_, e - s, cols, channel, px, dst);
                    }
                }
            }
        }
    }

    std::vector<uint32_t> offsets_;
    std::vector<int> kIndex_;
    size_t words_ = 0;
    bool rowWords_ = false;
    struct Run {
        uint32_t begin, end;
    };
    std::vector<uint32_t> order_, runsAt_;
    std::vector<uint32_t> consecutive_;  // the end of each position's run of consecutive pixels
    std::vector<size_t> firstTap_;       // image bytes to each position's first tap (group 0)
    std::vector<Run> runs_;
    Tile8i tile_;
    size_t nr_, panels_, dgPad_, block_, chunk_;
    std::vector<int8_t, CacheAlignedAllocator<int8_t>> packed_;
};

}  // namespace conv8i

// The algorithm for this shape on this target (parameters already validated).
Convolution8i* Convolution8iCreate(size_t batch, const SimdConvolutionParameters* p,
                                   SimdSynetCompatibilityType compatibility) {
    if (p->group == p->srcC && p->group == p->dstC) {
        if (Convolution8i* planes = DepthwiseNchw8iCreate(batch, *p, compatibility)) return planes;
        if (Convolution8i* depthwise = Depthwise8iCreate(batch, *p, compatibility))
            return depthwise;
    }
    return new conv8i::Direct8i(batch, *p, compatibility);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "SimdSynet.h"

#include "convolution/ContextApi.h"
#include "core/Dispatch.h"
#include "core/Error.h"

namespace simd {
HWY_EXPORT(Convolution8iCreate);

namespace {

constexpr const char* kApi = "SimdSynetConvolution8i";

// A caller's byte buffer of any alignment holds the scratch from its next 64-byte boundary.
constexpr size_t kBufSlack = 64;

bool ValidConvolution8i(size_t batch, const SimdConvolutionParameters* p) {
    const char* f = "SimdSynetConvolution8iInit";
    if (p == nullptr) return SetLastErrorF("%s: conv is NULL", f);
    if (batch == 0) return SetLastErrorF("%s: batch is 0", f);
    if (p->srcT != SimdTensorData32f && p->srcT != SimdTensorData8u)
        return SetLastErrorF("%s: srcT is neither 32f nor 8u", f);
    if (p->dstT != SimdTensorData32f && p->dstT != SimdTensorData8u)
        return SetLastErrorF("%s: dstT is neither 32f nor 8u", f);
    return ValidConvolutionShape(batch, *p, f);
}

// The context of an entry point after the NULL check (message named after `function`).
Convolution8i* ContextOf(void* context, const char* function) {
    if (context == nullptr) SetLastErrorF("%s%s: context is NULL", kApi, function);
    return static_cast<Convolution8i*>(context);
}

}  // namespace
}  // namespace simd

extern "C" {

SIMD_API void* SimdSynetConvolution8iInit(size_t batch, const SimdConvolutionParameters* conv,
                                          SimdSynetCompatibilityType compatibility) {
    simd::ClearLastError();
    if (!simd::ValidConvolution8i(batch, conv)) return nullptr;
    try {
        return SIMD_DISPATCH(simd::Convolution8iCreate)(batch, conv, compatibility);
    } catch (const std::bad_alloc&) {
        simd::SetLastError("SimdSynetConvolution8iInit: out of memory");
        return nullptr;
    }
}

SIMD_API size_t SimdSynetConvolution8iExternalBufferSize(const void* context) {
    const size_t floats = simd::LayerExternalBufferSize(context, simd::kApi);
    return floats == 0 ? 0 : floats * sizeof(float) + simd::kBufSlack;
}

SIMD_API size_t SimdSynetConvolution8iInternalBufferSize(const void* context) {
    return simd::LayerInternalBufferSize(context, simd::kApi) * sizeof(float);
}

SIMD_API const char* SimdSynetConvolution8iInfo(const void* context) {
    return simd::LayerInfo(context, simd::kApi);
}

SIMD_API void SimdSynetConvolution8iSetParams(void* context, const float* weight, const float* bias,
                                              const float* params, const float* const* stats) {
    simd::ClearLastError();
    simd::Convolution8i* c = simd::ContextOf(context, "SetParams");
    if (c == nullptr) return;
    const char* f = "SimdSynetConvolution8iSetParams";
    const SimdConvolutionParameters& p = c->p_;
    if (weight == nullptr) {
        simd::SetLastErrorF("%s: weight is NULL", f);
        return;
    }
    if (params == nullptr && simd::ActivationReadsParams(p.activation)) {
        simd::SetLastErrorF("%s: params is NULL but the activation reads it", f);
        return;
    }
    const bool dst8 = p.dstT == SimdTensorData8u;
    if (stats == nullptr || stats[0] == nullptr || stats[1] == nullptr ||
        (dst8 && (stats[2] == nullptr || stats[3] == nullptr))) {
        simd::SetLastErrorF("%s: stats or one of the arrays it needs is NULL", f);
        return;
    }
    for (size_t i = 0; i < p.srcC; ++i)
        if (!(stats[0][i] <= stats[1][i])) {
            simd::SetLastErrorF("%s: stats[0][%zu] is not <= stats[1][%zu]", f, i, i);
            return;
        }
    for (size_t i = 0; dst8 && i < p.dstC; ++i)
        if (!(stats[2][i] <= stats[3][i])) {
            simd::SetLastErrorF("%s: stats[2][%zu] is not <= stats[3][%zu]", f, i, i);
            return;
        }
    try {
        c->SetParams(weight, bias, params, stats);
    } catch (const std::bad_alloc&) {
        simd::SetLastErrorF("%s: out of memory", f);
    }
}

SIMD_API void SimdSynetConvolution8iForward(void* context, const uint8_t* src, uint8_t* buf,
                                            uint8_t* dst) {
    simd::ClearLastError();
    simd::Convolution8i* c = simd::ContextOf(context, "Forward");
    if (c == nullptr) return;
    if (src == nullptr || dst == nullptr) {
        simd::SetLastError("SimdSynetConvolution8iForward: src or dst is NULL");
        return;
    }
    if (!c->Ready()) {
        simd::SetLastError("SimdSynetConvolution8iForward: SetParams was not called");
        return;
    }
    float* scratch = nullptr;
    if (buf != nullptr) {
        const uintptr_t at = reinterpret_cast<uintptr_t>(buf);
        scratch = reinterpret_cast<float*>(
            buf + ((simd::kBufSlack - at % simd::kBufSlack) % simd::kBufSlack));
    }
    try {
        c->Forward(src, scratch, dst);
    } catch (const std::bad_alloc&) {
        simd::SetLastError("SimdSynetConvolution8iForward: out of memory");
    }
}

}  // extern "C"

#endif  // HWY_ONCE
