// The NHWC column algorithm of the deconvolution frameworks, group 1 (Info
// "nhwc-gemm-RxC-col2im", "nhwc-usergemm-col2im", "nhwc-amx-col2im" for the BF16 framework on
// AMX tiles, and "nchw-via-nhwc-gemm-..." between transposes): per band of source rows
// (ColumnBands-inl.h), col[band pixels x kY*kX*dstC] = src * W (the weights, already
// [srcC x kY*kX*dstC], packed into B panels at SetParams), then each output pixel gathers its
// taps along the channels.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "deconvolution/DeconvolutionNhwcGemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "deconvolution/Algorithms.h"
#include "convolution/Activate-inl.h"
#include "convolution/Geometry.h"
#include "core/VectorSteps-inl.h"
#include "deconvolution/ColumnBands-inl.h"
#include "deconvolution/ElementTypes-inl.h"
#include "deconvolution/NchwViaNhwc-inl.h"
#include "gemm/Gemm-inl.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "gemm/GemmAmxBf16.h"
#include "gemm/GemmBlocking.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace deconv32f {

using conv32f::Act;
using conv32f::BiasActivatePixels;

// NHWC: col[pixels x K*dstC] = src * W, gathered per output pixel along the channels.
class NhwcGemm : public Banded {
    using D = hn::ScalableTag<float>;
    using T = GemmTraits<D>;

public:
    NhwcGemm(size_t batch, const SimdConvolutionParameters& p, SimdGemm32fNNPtr gemm, bool bf16)
        : Banded(batch, p, gemm, bf16) {
        N_ = q_.K * q_.dstC;
        amx_ = gemm == nullptr && AmxBf16Usable(bf16);
        ldc_ = N_;
        if (amx_) {
            // Tile stores write 16 rows ldc_ apart: a multiple of 1 KiB puts them in two L1
            // sets, and a column buffer beyond a quarter of L2 makes the stores, not the tiles,
            // the bound (784x512x64 GEMM, Sapphire Rapids: rows 2048 bytes apart 122 us, 2112
            // bytes 68 us; 392 rows 32 us, the dot products alone 27 us).
            if (N_ % 256 == 0) ldc_ += 16;
            colPerRow_ = ldc_ * q_.srcW;
            const size_t target = GemmCaches().l2 / 4 / sizeof(float);
            bandRows_ = std::min(q_.srcH, std::max<size_t>(1, target / colPerRow_));
        }
        blocks_ = GemmChooseBlocks(bandRows_ * q_.srcW, N_, q_.srcC, T::kRows, T::kCols);
        info_ =
            std::string(TargetIsa()) + (gemm   ? "::nhwc-usergemm-col2im"
                                        : amx_ ? "::nhwc-amx-col2im"
                                               : "::nhwc-gemm-" + std::to_string(T::kRows) + "x" +
                                                     std::to_string(T::kCols) + "-col2im");
        info_ += "-band" + std::to_string(bandRows_) + TypeSuffix(*this);
    }

protected:
    // One image (the NCHW wrapper's step).
    void RunImage(const float* src, float* buf, float* dst) const { RunImages(src, buf, dst, 1); }
    size_t PackFloats() const override {
#if SIMD_SYNET_DECONV_AMX
        // The band's pixels as BF16 rows of whole tiles (two BF16 values per float).
        if (amx_) return amx::PackedRows(bandRows_ * q_.srcW) * amx::PackedDepth(q_.srcC) / 2;
#endif
        return gemm_ ? 0 : GemmPackedASize<D>(blocks_.mc, blocks_.kc);
    }
    size_t BOffset(size_t j, size_t k, size_t nc) const {
        return j * q_.srcC + k * RoundUp(nc, T::kCols);
    }
    void PackWeights(const float* weight) override {
        std::vector<float> rounded;
        const float* w = FrameworkWeights(*this, weight, q_.srcC * N_, rounded);
        if (gemm_) {
            weights_.assign(w, w + q_.srcC * N_);
            return;
        }
#if SIMD_SYNET_DECONV_AMX
        if (amx_) {
            // w is already rounded to BF16: its upper halves are the BF16 values, exactly.
            std::vector<uint16_t> bits(q_.srcC * N_);
            ConvertRow(w, bits.size(), bits.data());
            weights_.assign(amx::PackedBSize(q_.srcC, N_) / 2, 0.0f);
            amx::PackB(bits.data(), N_, q_.srcC, N_, reinterpret_cast<uint16_t*>(weights_.data()));
            return;
        }
#endif
        const D d;
        weights_.assign(q_.srcC * RoundUp(N_, T::kCols), 0.0f);
        for (size_t j = 0; j < N_; j += blocks_.nc) {
            const size_t nc = std::min(blocks_.nc, N_ - j);
            for (size_t k = 0; k < q_.srcC; k += blocks_.kc) {
                const size_t kc = std::min(blocks_.kc, q_.srcC - k);
                GemmPackB(d, kc, nc, w + k * N_ + j, N_, weights_.data() + BOffset(j, k, nc));
            }
        }
    }

    void Columns(const void* image, size_t g, size_t a, size_t e, float* pack,
                 float* col) const override {
        WithSourceReader(*this, [&](auto read) {
            ColumnsOf<decltype(read)>(static_cast<const typename decltype(read)::Elem*>(image), g,
                                      a, e, pack, col);
        });
    }
    template <class Read>
    void ColumnsOf(const typename Read::Elem* image, size_t, size_t a, size_t e, float* pack,
                   float* col) const {
        const size_t M = (e - a) * q_.srcW;
        const auto* A = image + a * q_.srcW * q_.srcC;
        if constexpr (std::is_same_v<Read, GemmReadF32>) {
            if (gemm_) {
                const float one = 1.0f, zero = 0.0f;
                gemm_(M, N_, q_.srcC, &one, A, q_.srcC, weights_.data(), N_, &zero, col, N_);
                return;
            }
        }
#if SIMD_SYNET_DECONV_AMX
        if (amx_) {
            ColumnsAmx(A, M, reinterpret_cast<uint16_t*>(pack), col);
            return;
        }
#endif
        const D d;
        for (size_t i = 0; i < M; i += blocks_.mc) {
            const size_t mc = std::min(blocks_.mc, M - i);
            for (size_t k = 0; k < q_.srcC; k += blocks_.kc) {
                const size_t kc = std::min(blocks_.kc, q_.srcC - k);
                GemmPackA<Read>(d, mc, kc, A + i * q_.srcC + k, q_.srcC, pack);
                const GemmStore mode = k == 0 ? GemmStore::kOverwrite : GemmStore::kAccumulate;
                for (size_t j = 0; j < N_; j += blocks_.nc) {
                    const size_t nc = std::min(blocks_.nc, N_ - j);
                    GemmMacroKernel(d, mc, nc, kc, pack, weights_.data() + BOffset(j, k, nc),
                                    col + i * N_ + j, N_, 1.0f, 0.0f, mode);
                }
            }
        }
    }

#if SIMD_SYNET_DECONV_AMX
    // The GEMM on AMX tiles: the M source pixels at A as BF16 rows of whole tiles (rounded from
    // FP32 here, the one rounding of the source; copied from BF16), then col = A * W.
    template <class Elem>
    void ColumnsAmx(const Elem* A, size_t M, uint16_t* a16, float* col) const {
        const size_t depth = amx::PackedDepth(q_.srcC), rows = amx::PackedRows(M);
        for (size_t r = 0; r < M; ++r) {
            uint16_t* row = a16 + r * depth;
            if constexpr (std::is_same_v<Elem, uint16_t>)
                std::memcpy(row, A + r * q_.srcC, q_.srcC * sizeof(uint16_t));
            else
                ConvertRow(A + r * q_.srcC, q_.srcC, row);
            std::fill(row + q_.srcC, row + depth, uint16_t(0));
        }
        std::fill(a16 + M * depth, a16 + rows * depth, uint16_t(0));
        amx::Gemm(M, N_, q_.srcC, a16, reinterpret_cast<const uint16_t*>(weights_.data()), col,
                  ldc_);
    }
#endif

    // pix[c] = (init ? pix[c] : 0) + sum of col[base[i] + c] over the n taps (c < dstC); with
    // kFinish, the pixel's last taps, the bias and activation are applied before the store
    // (a separate pass over the finished row cost 16 of 179 us of a 4x4 s2 64->32 28x28 layer).
    template <bool kFinish>
    void AccumulateChannels(const float* col, const size_t* base, size_t n, bool init,
                            float* pix) const {
        const D d;
        const hn::CappedTag<float, 1> d1;
        const size_t L = hn::Lanes(d), C = q_.dstC;
        const Act act{p_.activation, param0_, param1_};
        const float* slope = slope_.empty() ? nullptr : slope_.data();
        size_t c = 0;
        for (; c + 2 * L <= C; c += 2 * L) {
            auto acc0 = init ? hn::LoadU(d, pix + c) : hn::Zero(d);
            auto acc1 = init ? hn::LoadU(d, pix + c + L) : hn::Zero(d);
            for (size_t i = 0; i < n; ++i) {
                acc0 = hn::Add(acc0, hn::LoadU(d, col + base[i] + c));
                acc1 = hn::Add(acc1, hn::LoadU(d, col + base[i] + c + L));
            }
            hn::StoreU(Finish<kFinish>(d, acc0, c, act, slope), d, pix + c);
            hn::StoreU(Finish<kFinish>(d, acc1, c + L, act, slope), d, pix + c + L);
        }
        for (; c + L <= C; c += L) {
            auto acc = init ? hn::LoadU(d, pix + c) : hn::Zero(d);
            for (size_t i = 0; i < n; ++i) acc = hn::Add(acc, hn::LoadU(d, col + base[i] + c));
            hn::StoreU(Finish<kFinish>(d, acc, c, act, slope), d, pix + c);
        }
        for (; c < C; ++c) {
            auto acc = init ? hn::LoadU(d1, pix + c) : hn::Zero(d1);
            for (size_t i = 0; i < n; ++i) acc = hn::Add(acc, hn::LoadU(d1, col + base[i] + c));
            hn::StoreU(Finish<kFinish>(d1, acc, c, act, slope), d1, pix + c);
        }
    }

    // A finished pixel's channels [c, c + Lanes(dv)): bias added and activated.
    template <bool kFinish, class DV, class V>
    HWY_INLINE V Finish(DV dv, V acc, size_t c, const Act& act, const float* slope) const {
        if constexpr (!kFinish) return acc;
        const V s = slope ? hn::LoadU(dv, slope + c) : hn::Zero(dv);
        return conv32f::Activate(dv, hn::Add(acc, hn::LoadU(dv, bias_.data() + c)), s, act);
    }

    // The run gather (no x dilation) rounds each finished row to BF16 itself, while in L1.
    bool FinishesBf16() const override {
        return q_.dX == 1;
    }

    // Without dilation along x, the kX taps of one source pixel and kernel row reach kX
    // neighbouring output pixels: one contiguous run of kX*dstC column values adds onto one run
    // of the output row. Rows are summed run by run in place, source pixels from the right, so
    // each output value still takes its taps in (ky, kx) order, as the per-pixel gather did (the
    // same bits), without per-pixel tap lists; finished rows then get bias and activation while
    // in L1.
    void Gather(const OutRows& out, size_t g, const float* col, size_t a, size_t e, size_t r0,
                size_t r1, size_t partialBelow, size_t finishBelow, float* temp) const override {
        if (q_.dX != 1)
            return GatherPixels(out, g, col, a, e, r0, r1, partialBelow, finishBelow, temp);
        const Act act{p_.activation, param0_, param1_};
        const float* slope = slope_.empty() ? nullptr : slope_.data();
        const size_t C = q_.dstC, W = q_.dstW;
        for (size_t dy = r0; dy < r1; ++dy) {
            float* row = out.base + (dy - out.first) * W * C;
            if (dy >= partialBelow) std::fill(row, row + W * C, 0.0f);
            for (size_t y = yFirst_[dy]; y < yFirst_[dy + 1]; ++y) {
                const size_t ky = yTaps_[y].k, sy = yTaps_[y].s;
                if (sy < a || sy >= e) continue;
                const float* taps = col + (sy - a) * q_.srcW * ldc_ + ky * q_.kX * C;
                for (size_t sx = q_.srcW; sx-- > 0;) {
                    // Output column of tap kx: x0 + kx; the taps inside the row: [k0, k1).
                    const ptrdiff_t x0 = ptrdiff_t(sx * q_.sX) - ptrdiff_t(q_.padX);
                    const size_t k0 = x0 < 0 ? size_t(-x0) : 0;
                    const size_t k1 =
                        x0 >= ptrdiff_t(W) ? 0 : std::min(q_.kX, size_t(ptrdiff_t(W) - x0));
                    if (k0 < k1)
                        AddInPlace(taps + sx * ldc_ + k0 * C, (k1 - k0) * C,
                                   row + size_t(x0 + ptrdiff_t(k0)) * C);
                }
            }
            if (dy < finishBelow) {
                BiasActivatePixels(row, W, C, C, bias_.data(), slope, act);
                if (out.bf16) ConvertRow(row, W * C, out.bf16 + dy * W * C);
            }
        }
    }

    // Dilated kernels: each output pixel gathers its taps from their column rows.
    void GatherPixels(const OutRows& out, size_t, const float* col, size_t a, size_t e, size_t r0,
                      size_t r1, size_t partialBelow, size_t finishBelow, float*) const {
        size_t base[kTapChunk];
        for (size_t dy = r0; dy < r1; ++dy) {
            float* row = out.base + (dy - out.first) * q_.dstW * q_.dstC;
            const bool partial = dy < partialBelow, finished = dy < finishBelow;
            for (size_t dx = 0; dx < q_.dstW; ++dx) {
                float* pix = row + dx * q_.dstC;
                size_t n = 0;
                bool init = partial;
                for (size_t y = yFirst_[dy]; y < yFirst_[dy + 1]; ++y) {
                    const size_t ky = yTaps_[y].k, sy = yTaps_[y].s;
                    if (sy < a || sy >= e) continue;
                    for (size_t x = xFirst_[dx]; x < xFirst_[dx + 1]; ++x) {
                        const size_t kx = xTaps_[x].k, sx = xTaps_[x].s;
                        base[n] = ((sy - a) * q_.srcW + sx) * ldc_ + (ky * q_.kX + kx) * q_.dstC;
                        if (++n == kTapChunk) {
                            AccumulateChannels<false>(col, base, n, init, pix);
                            init = true;
                            n = 0;
                        }
                    }
                }
                if (finished)
                    AccumulateChannels<true>(col, base, n, init, pix);
                else if (n > 0 || !init)
                    AccumulateChannels<false>(col, base, n, init, pix);
            }
        }
    }

    size_t N_, ldc_;  // columns of the GEMM; floats between rows of the column buffer
    bool amx_;
    GemmBlocks blocks_;
};

Deconvolution32f* CreateNhwcGemm(size_t batch, const SimdConvolutionParameters& p,
                                 SimdGemm32fNNPtr gemm, bool bf16, bool nchw) {
    if (nchw) return new NchwVia<NhwcGemm>(batch, p, gemm, bf16);
    return new NhwcGemm(batch, p, gemm, bf16);
}

}  // namespace deconv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
