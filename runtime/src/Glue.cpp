// The glue steps, what the C API has no function for: data movement (splits and slices as block
// copies, general transposes, padding, tiling, nearest resizing), rows moved with memcpy; and a
// few computations (bilinear resizing, dilated max pooling, reductions over any axes) in plain
// loops over the innermost axis, which the compiler vectorises. Block copies that form a
// concatenation (or one whole array) go to SimdSynetConcatLayerForward, which splits them over
// the library's threads.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "SimdSynet.h"
#include "Steps.h"

namespace simdsynet_executor {

namespace {

class CopyStep : public Step {
public:
    CopyStep(const std::string& name, const std::vector<CopyRegion>& regions)
        : Step(name, "copy", Category::Glue), regions_(regions) {
        if (IsConcat(regions))
            for (const CopyRegion& r : regions) concatSizes_.push_back(r.length);
    }
    void Run(const Memory& memory, float*) const override {
        if (!concatSizes_.empty()) {
            std::vector<const float*> src;
            for (const CopyRegion& r : regions_) src.push_back(memory(r.src));
            SimdSynetConcatLayerForward(src.size(), src.data(), concatSizes_.data(),
                                        regions_[0].rows, memory(regions_[0].dst));
            return;
        }
        for (const CopyRegion& r : regions_) {
            const float* src = memory(r.src);
            float* dst = memory(r.dst);
            if (r.length == r.srcStride && r.length == r.dstStride) {
                std::memcpy(dst, src, r.rows * r.length * sizeof(float));
                continue;
            }
            for (size_t i = 0; i < r.rows; ++i, src += r.srcStride, dst += r.dstStride)
                std::memcpy(dst, src, r.length * sizeof(float));
        }
    }

private:
    // Regions that fill one array of `rows` rows side by side: the same rows, each source's rows
    // contiguous, destinations one after another in the arena and rows as long as all of them.
    static bool IsConcat(const std::vector<CopyRegion>& regions) {
        if (regions.empty()) return false;
        size_t total = 0;
        for (const CopyRegion& r : regions) total += r.length;
        size_t offset = regions[0].dst.index;
        for (const CopyRegion& r : regions) {
            if (r.dst.kind != Ref::Arena || r.dst.index != offset || r.rows != regions[0].rows ||
                r.length == 0 || r.srcStride != r.length || (r.rows > 1 && r.dstStride != total))
                return false;
            offset += r.length;
        }
        return true;
    }

    std::vector<CopyRegion> regions_;
    // The regions' lengths when they form a concatenation (IsConcat), else empty.
    std::vector<size_t> concatSizes_;
};

class TransposeStep : public Step {
public:
    TransposeStep(const std::string& name, Ref src, const std::vector<size_t>& shape,
                  const std::vector<size_t>& perm, Ref dst)
        : Step(name, "transpose", Category::Glue),
          srcRef_(src),
          dstRef_(dst),
          shape_(shape),
          perm_(perm) {}
    void Run(const Memory& memory, float*) const override {
        Permute(memory(srcRef_), shape_, perm_, memory(dstRef_));
    }

private:
    Ref srcRef_, dstRef_;
    std::vector<size_t> shape_, perm_;
};

class PadStep : public Step {
public:
    PadStep(const std::string& name, Ref src, const std::vector<size_t>& shape,
            const std::vector<size_t>& before, const std::vector<size_t>& after, int mode,
            float value, Ref dst)
        : Step(name, "pad", Category::Glue),
          srcRef_(src),
          dstRef_(dst),
          mode_(mode),
          value_(value) {
        // Trailing axes without padding are one row.
        size_t rank = shape.size();
        size_t row = 1;
        while (rank > 1 && before[rank - 1] == 0 && after[rank - 1] == 0) row *= shape[--rank];
        for (size_t a = 0; a < rank; ++a) {
            shape_.push_back(shape[a]);
            before_.push_back(before[a]);
            after_.push_back(after[a]);
        }
        row_ = row;
        dstExtent_.resize(rank);
        srcStride_.resize(rank);
        for (size_t a = 0; a < rank; ++a) dstExtent_[a] = before_[a] + shape_[a] + after_[a];
        for (size_t a = rank, stride = row_; a-- > 0;) {
            srcStride_[a] = stride;
            stride *= shape_[a];
        }
    }
    void Run(const Memory& memory, float*) const override {
        const std::vector<size_t>& dstExtent = dstExtent_;
        const std::vector<size_t>& srcStride = srcStride_;
        std::vector<size_t> index(dstExtent.size(), 0);
        const float* source = memory(srcRef_);
        // Odometer over the destination's outer axes; the last axis is one run of rows.
        const size_t last = shape_.size() - 1;
        size_t outer = 1;
        for (size_t a = 0; a < last; ++a) outer *= dstExtent[a];
        float* dst = memory(dstRef_);
        const size_t lastExtent = dstExtent[last];
        for (size_t o = 0; o < outer; ++o) {
            bool padded = false;
            size_t offset = 0;
            for (size_t a = 0; a < last; ++a) {
                ptrdiff_t i = Source(index[a], a, padded);
                offset += size_t(i) * srcStride[a];
            }
            if (padded) {
                std::fill(dst, dst + lastExtent * row_, value_);
            } else {
                const float* src = source + offset;
                for (size_t x = 0; x < lastExtent; ++x) {
                    bool pad = false;
                    ptrdiff_t i = Source(x, last, pad);
                    if (pad)
                        std::fill(dst + x * row_, dst + (x + 1) * row_, value_);
                    else if (x == before_[last]) {
                        // The unpadded middle of the row in one copy.
                        std::memcpy(dst + x * row_, src, shape_[last] * row_ * sizeof(float));
                        x += shape_[last] - 1;
                    } else
                        std::memcpy(dst + x * row_, src + size_t(i) * row_, row_ * sizeof(float));
                }
            }
            dst += lastExtent * row_;
            for (size_t a = last; a-- > 0;) {
                if (++index[a] < dstExtent[a]) break;
                index[a] = 0;
            }
        }
    }

private:
    // The source index along axis `a` of destination index `i`; `padded` is set where the
    // constant mode has no source.
    ptrdiff_t Source(size_t i, size_t a, bool& padded) const {
        ptrdiff_t j = ptrdiff_t(i) - ptrdiff_t(before_[a]);
        const ptrdiff_t n = ptrdiff_t(shape_[a]);
        if (j >= 0 && j < n) return j;
        if (mode_ == 0) {
            padded = true;
            return 0;
        }
        if (mode_ == 1) return j < 0 ? -j : 2 * (n - 1) - j;
        return j < 0 ? 0 : n - 1;
    }

    Ref srcRef_, dstRef_;
    std::vector<size_t> shape_, before_, after_;
    std::vector<size_t> dstExtent_, srcStride_;
    size_t row_;
    int mode_;
    float value_;
};

class ResizeNearestStep : public Step {
public:
    ResizeNearestStep(const std::string& name, Ref src, size_t batch, size_t srcH, size_t srcW,
                      size_t channels, const std::vector<size_t>& rows,
                      const std::vector<size_t>& cols, Ref dst)
        : Step(name, "resize", Category::Glue),
          srcRef_(src),
          dstRef_(dst),
          batch_(batch),
          srcH_(srcH),
          srcW_(srcW),
          channels_(channels),
          rows_(rows),
          cols_(cols) {}
    void Run(const Memory& memory, float*) const override {
        const size_t c = channels_, dstW = cols_.size();
        const float* src = memory(srcRef_);
        float* dst = memory(dstRef_);
        for (size_t b = 0; b < batch_; ++b) {
            const float* image = src + b * srcH_ * srcW_ * c;
            for (size_t y = 0; y < rows_.size(); ++y) {
                // Rows that repeat the previous source row are copies of the row just written.
                if (y > 0 && rows_[y] == rows_[y - 1]) {
                    std::memcpy(dst, dst - dstW * c, dstW * c * sizeof(float));
                    dst += dstW * c;
                    continue;
                }
                const float* row = image + rows_[y] * srcW_ * c;
                for (size_t x = 0; x < dstW; ++x, dst += c)
                    std::memcpy(dst, row + cols_[x] * c, c * sizeof(float));
            }
        }
    }

private:
    Ref srcRef_, dstRef_;
    size_t batch_, srcH_, srcW_, channels_;
    std::vector<size_t> rows_, cols_;
};

class ResizeLinearStep : public Step {
public:
    ResizeLinearStep(const std::string& name, Ref src, size_t batch, size_t srcH, size_t srcW,
                     size_t channels, const LinearTaps& rows, const LinearTaps& cols, Ref dst)
        : Step(name, "resize linear", Category::Glue),
          srcRef_(src),
          dstRef_(dst),
          batch_(batch),
          srcH_(srcH),
          srcW_(srcW),
          channels_(channels),
          rows_(rows),
          cols_(cols) {
        const size_t dstW = cols_.first.size();
        for (size_t r = 0; r < rows_.first.size(); ++r)
            if (rows_.first[r] >= srcH || rows_.second[r] >= srcH)
                throw ExecutorError(name + ": a row tap is outside the image");
        for (size_t x = 0; x < dstW; ++x) {
            if (cols_.first[x] >= srcW || cols_.second[x] >= srcW)
                throw ExecutorError(name + ": a column tap is outside the image");
            // Offsets of whole pixels, so the x loop indexes the row directly.
            cols_.first[x] *= channels;
            cols_.second[x] *= channels;
        }
    }
    // Two input rows blended along x, each a whole output row wide.
    size_t ScratchFloats() const override { return 2 * cols_.first.size() * channels_; }
    void Run(const Memory& memory, float* scratch) const override {
        const size_t c = channels_, rowFloats = cols_.first.size() * c;
        const float* src = memory(srcRef_);
        float* dst = memory(dstRef_);
        for (size_t b = 0; b < batch_; ++b) {
            const float* image = src + b * srcH_ * srcW_ * c;
            // The input row each scratch row holds: upsampling reads each input row for
            // several output rows, and blending it along x once serves them all.
            size_t held[2] = {SIZE_MAX, SIZE_MAX};
            for (size_t y = 0; y < rows_.first.size(); ++y, dst += rowFloats) {
                const size_t r0 = rows_.first[y], r1 = rows_.second[y];
                const int keep = held[0] == r1 ? 0 : held[1] == r1 ? 1 : -1;
                const int s0 = Held(r0, keep, held, image, scratch);
                const int s1 = Held(r1, s0, held, image, scratch);
                const float* t0 = scratch + s0 * rowFloats;
                const float* t1 = scratch + s1 * rowFloats;
                if (s0 == s1) {
                    std::memcpy(dst, t0, rowFloats * sizeof(float));
                    continue;
                }
                const float w0 = rows_.firstWeight[y], w1 = rows_.secondWeight[y];
                for (size_t i = 0; i < rowFloats; ++i) dst[i] = w0 * t0[i] + w1 * t1[i];
            }
        }
    }

private:
    // The scratch row (0 or 1) that holds input row r blended along x, blending it into the
    // row other than `keep` when neither holds it.
    int Held(size_t r, int keep, size_t* held, const float* image, float* scratch) const {
        if (held[0] == r) return 0;
        if (held[1] == r) return 1;
        const int slot = keep == 0 ? 1 : 0;
        held[slot] = r;
        const size_t c = channels_, dstW = cols_.first.size();
        const float* row = image + r * srcW_ * c;
        float* out = scratch + slot * dstW * c;
        for (size_t x = 0; x < dstW; ++x, out += c) {
            const float* a = row + cols_.first[x];
            const float* b = row + cols_.second[x];
            const float w0 = cols_.firstWeight[x], w1 = cols_.secondWeight[x];
            for (size_t i = 0; i < c; ++i) out[i] = w0 * a[i] + w1 * b[i];
        }
        return slot;
    }

    Ref srcRef_, dstRef_;
    size_t batch_, srcH_, srcW_, channels_;
    LinearTaps rows_, cols_;
};

class DilatedMaxPoolingStep : public Step {
public:
    DilatedMaxPoolingStep(const std::string& name, const PoolingShape& shape, size_t dilationY,
                          size_t dilationX, Ref src, Ref dst)
        : Step(name, "dilated max pooling", Category::Glue),
          s_(shape),
          dilationY_(dilationY),
          dilationX_(dilationX),
          srcRef_(src),
          dstRef_(dst) {}
    void Run(const Memory& memory, float*) const override {
        const size_t c = s_.channels;
        const float* src = memory(srcRef_);
        float* dst = memory(dstRef_);
        for (size_t b = 0; b < s_.batch; ++b) {
            const float* image = src + b * s_.srcH * s_.srcW * c;
            for (size_t oy = 0; oy < s_.dstH; ++oy)
                for (size_t ox = 0; ox < s_.dstW; ++ox, dst += c) {
                    bool first = true;
                    for (size_t ky = 0; ky < s_.kernelY; ++ky) {
                        const ptrdiff_t y =
                            ptrdiff_t(oy * s_.strideY + ky * dilationY_) - ptrdiff_t(s_.padY);
                        if (y < 0 || y >= ptrdiff_t(s_.srcH)) continue;
                        for (size_t kx = 0; kx < s_.kernelX; ++kx) {
                            const ptrdiff_t x =
                                ptrdiff_t(ox * s_.strideX + kx * dilationX_) - ptrdiff_t(s_.padX);
                            if (x < 0 || x >= ptrdiff_t(s_.srcW)) continue;
                            const float* pixel = image + (size_t(y) * s_.srcW + size_t(x)) * c;
                            if (first) {
                                std::memcpy(dst, pixel, c * sizeof(float));
                                first = false;
                                continue;
                            }
                            // A NaN, once taken or met, stays: max(NaN, v) = max(v, NaN) = NaN.
                            for (size_t i = 0; i < c; ++i) {
                                const float v = pixel[i], m = dst[i];
                                dst[i] = (v > m || v != v) ? v : m;
                            }
                        }
                    }
                }
        }
    }

private:
    PoolingShape s_;
    size_t dilationY_, dilationX_;
    Ref srcRef_, dstRef_;
};

// The accumulation of one reduction: Start, Add per element, End per output.
template <Reduction kind>
struct Accumulate {
    static double Start() {
        if (kind == Reduction::Max) return -HUGE_VAL;
        if (kind == Reduction::Min) return HUGE_VAL;
        return kind == Reduction::Prod ? 1.0 : 0.0;
    }
    static double Add(double a, float value) {
        const double v = value;
        switch (kind) {
            case Reduction::Max:
                return (v > a || v != v) ? v : a;  // a NaN met stays
            case Reduction::Min:
                return (v < a || v != v) ? v : a;
            case Reduction::Prod:
                return a * v;
            case Reduction::SumSquare:
            case Reduction::L2:
                return a + v * v;
            case Reduction::L1:
                return a + std::fabs(v);
            default:
                return a + v;
        }
    }
    static float End(double a, size_t count) {
        if (kind == Reduction::Mean) return float(a / double(count));
        if (kind == Reduction::L2) return float(std::sqrt(a));
        return float(a);
    }
};

class ReduceStep : public Step {
public:
    ReduceStep(const std::string& name, Reduction kind, Ref src, const std::vector<size_t>& shape,
               const std::vector<bool>& reduced, Ref dst)
        : Step(name, "reduce", Category::Glue), kind_(kind), srcRef_(src), dstRef_(dst) {
        // Neighbouring axes of the same kind are one; extent-1 axes are none.
        for (size_t a = 0; a < shape.size(); ++a) {
            if (shape[a] == 1) continue;
            if (reduced[a]) count_ *= shape[a];
            if (!extent_.empty() && reduced_.back() == reduced[a])
                extent_.back() *= shape[a];
            else {
                extent_.push_back(shape[a]);
                reduced_.push_back(reduced[a]);
            }
        }
        if (extent_.empty()) {
            extent_.push_back(1);
            reduced_.push_back(false);
        }
        // Strides in the output (0 along reduced axes); the input is read in its order.
        dstStride_.assign(extent_.size(), 0);
        for (size_t a = extent_.size(), stride = 1; a-- > 0;)
            if (!reduced_[a]) {
                dstStride_[a] = stride;
                stride *= extent_[a];
                outputs_ = stride;
            }
    }
    // The accumulators, one double per output (the scratch is 64-byte aligned).
    size_t ScratchFloats() const override { return outputs_ * sizeof(double) / sizeof(float); }
    void Run(const Memory& memory, float* scratch) const override {
        const float* src = memory(srcRef_);
        float* dst = memory(dstRef_);
        double* acc = reinterpret_cast<double*>(scratch);
        switch (kind_) {
            case Reduction::Sum:
                return Reduce<Reduction::Sum>(src, acc, dst);
            case Reduction::Mean:
                return Reduce<Reduction::Mean>(src, acc, dst);
            case Reduction::Max:
                return Reduce<Reduction::Max>(src, acc, dst);
            case Reduction::Min:
                return Reduce<Reduction::Min>(src, acc, dst);
            case Reduction::Prod:
                return Reduce<Reduction::Prod>(src, acc, dst);
            case Reduction::SumSquare:
                return Reduce<Reduction::SumSquare>(src, acc, dst);
            case Reduction::L1:
                return Reduce<Reduction::L1>(src, acc, dst);
            case Reduction::L2:
                return Reduce<Reduction::L2>(src, acc, dst);
        }
    }

private:
    template <Reduction kind>
    void Reduce(const float* src, double* accumulators, float* dst) const {
        using A = Accumulate<kind>;
        std::fill(accumulators, accumulators + outputs_, A::Start());
        const size_t last = extent_.size() - 1, run = extent_[last];
        size_t outer = 1;
        for (size_t a = 0; a < last; ++a) outer *= extent_[a];
        std::vector<size_t> index(last, 0);
        size_t at = 0;  // output offset of the current run
        for (size_t o = 0; o < outer; ++o, src += run) {
            double* acc = accumulators + at;
            if (reduced_[last]) {
                double a = acc[0];
                for (size_t i = 0; i < run; ++i) a = A::Add(a, src[i]);
                acc[0] = a;
            } else {
                for (size_t i = 0; i < run; ++i) acc[i] = A::Add(acc[i], src[i]);
            }
            for (size_t a = last; a-- > 0;) {
                at += dstStride_[a];
                if (++index[a] < extent_[a]) break;
                at -= dstStride_[a] * extent_[a];
                index[a] = 0;
            }
        }
        for (size_t i = 0; i < outputs_; ++i) dst[i] = A::End(accumulators[i], count_);
    }

    Reduction kind_;
    Ref srcRef_, dstRef_;
    std::vector<size_t> extent_, dstStride_;
    std::vector<bool> reduced_;
    size_t count_ = 1, outputs_ = 1;
};

class TileStep : public Step {
public:
    TileStep(const std::string& name, Ref src, const std::vector<size_t>& srcShape,
             const std::vector<size_t>& dstShape, Ref dst)
        : Step(name, "tile", Category::Glue),
          srcRef_(src),
          dstRef_(dst),
          src_(srcShape),
          dst_(dstShape) {
        if (srcShape.size() != dstShape.size())
            throw ExecutorError(name + ": tiling needs shapes of one rank");
        for (size_t a = 0; a < srcShape.size(); ++a)
            if (srcShape[a] == 0 || dstShape[a] % srcShape[a])
                throw ExecutorError(name + ": an extent is not a multiple of the source's");
        // The trailing axes the tiling keeps are rows copied whole.
        rowAxis_ = srcShape.size();
        while (rowAxis_ > 0 && srcShape[rowAxis_ - 1] == dstShape[rowAxis_ - 1]) --rowAxis_;
        row_ = 1;
        for (size_t a = rowAxis_; a < srcShape.size(); ++a) row_ *= srcShape[a];
        srcInner_.assign(rowAxis_ + 1, row_);
        dstInner_.assign(rowAxis_ + 1, row_);
        for (size_t a = rowAxis_; a-- > 0;) {
            srcInner_[a] = srcInner_[a + 1] * srcShape[a];
            dstInner_[a] = dstInner_[a + 1] * dstShape[a];
        }
    }
    void Run(const Memory& memory, float*) const override {
        Fill(0, memory(srcRef_), memory(dstRef_));
    }

private:
    // Axis a of the source at s into the destination at d: its source extent recursively, then
    // that block repeated by doubling copies of what is already written.
    void Fill(size_t a, const float* s, float* d) const {
        if (a == rowAxis_) {
            std::memcpy(d, s, row_ * sizeof(float));
            return;
        }
        for (size_t i = 0; i < src_[a]; ++i)
            Fill(a + 1, s + i * srcInner_[a + 1], d + i * dstInner_[a + 1]);
        const size_t total = dstInner_[a];
        for (size_t filled = src_[a] * dstInner_[a + 1]; filled < total;) {
            const size_t n = std::min(filled, total - filled);
            std::memcpy(d + filled, d, n * sizeof(float));
            filled += n;
        }
    }

    Ref srcRef_, dstRef_;
    std::vector<size_t> src_, dst_;
    size_t rowAxis_, row_;
    std::vector<size_t> srcInner_, dstInner_;  // floats per index of each axis, and the whole
};

}  // namespace

StepPtr MakeCopy(const std::string& name, const std::vector<CopyRegion>& regions) {
    return std::make_unique<CopyStep>(name, regions);
}

StepPtr MakeTranspose(const std::string& name, Ref src, const std::vector<size_t>& shape,
                      const std::vector<size_t>& perm, Ref dst) {
    return std::make_unique<TransposeStep>(name, src, shape, perm, dst);
}

StepPtr MakePad(const std::string& name, Ref src, const std::vector<size_t>& shape,
                const std::vector<size_t>& before, const std::vector<size_t>& after, int mode,
                float value, Ref dst) {
    return std::make_unique<PadStep>(name, src, shape, before, after, mode, value, dst);
}

StepPtr MakeResizeNearest(const std::string& name, Ref src, size_t batch, size_t srcH, size_t srcW,
                          size_t channels, const std::vector<size_t>& rows,
                          const std::vector<size_t>& cols, Ref dst) {
    return std::make_unique<ResizeNearestStep>(name, src, batch, srcH, srcW, channels, rows, cols,
                                               dst);
}

StepPtr MakeResizeLinear(const std::string& name, Ref src, size_t batch, size_t srcH, size_t srcW,
                         size_t channels, const LinearTaps& rows, const LinearTaps& cols, Ref dst) {
    return std::make_unique<ResizeLinearStep>(name, src, batch, srcH, srcW, channels, rows, cols,
                                              dst);
}

StepPtr MakeDilatedMaxPooling(const std::string& name, const PoolingShape& shape, size_t dilationY,
                              size_t dilationX, Ref src, Ref dst) {
    return std::make_unique<DilatedMaxPoolingStep>(name, shape, dilationY, dilationX, src, dst);
}

StepPtr MakeReduce(const std::string& name, Reduction kind, Ref src,
                   const std::vector<size_t>& shape, const std::vector<bool>& reduced, Ref dst) {
    if (shape.size() != reduced.size())
        throw ExecutorError(name + ": one reduction flag per axis is needed");
    return std::make_unique<ReduceStep>(name, kind, src, shape, reduced, dst);
}

StepPtr MakeTile(const std::string& name, Ref src, const std::vector<size_t>& srcShape,
                 const std::vector<size_t>& dstShape, Ref dst) {
    return std::make_unique<TileStep>(name, src, srcShape, dstShape, dst);
}

}  // namespace simdsynet_executor
