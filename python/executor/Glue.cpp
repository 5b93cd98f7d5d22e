// The glue steps: data movement the C API has no function for (concatenations, splits and
// slices as block copies, general transposes, padding, nearest resizing). Rows are moved with
// memcpy; nothing here computes.
#include <algorithm>
#include <cstring>

#include "Steps.h"

namespace simdsynet_executor {

namespace {

class CopyStep : public Step {
public:
    CopyStep(const std::string& name, const std::vector<CopyRegion>& regions)
        : Step(name, "copy", Category::Glue), regions_(regions) {}
    void Bind(const Memory& memory) override {
        bound_.clear();
        for (const CopyRegion& r : regions_) bound_.push_back({memory(r.src), memory(r.dst), &r});
    }
    void Run(float*) override {
        for (const Bound& b : bound_) {
            const CopyRegion& r = *b.region;
            const float* src = b.src;
            float* dst = b.dst;
            if (r.length == r.srcStride && r.length == r.dstStride) {
                std::memcpy(dst, src, r.rows * r.length * sizeof(float));
                continue;
            }
            for (size_t i = 0; i < r.rows; ++i, src += r.srcStride, dst += r.dstStride)
                std::memcpy(dst, src, r.length * sizeof(float));
        }
    }

private:
    struct Bound {
        const float* src;
        float* dst;
        const CopyRegion* region;
    };
    std::vector<CopyRegion> regions_;
    std::vector<Bound> bound_;
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
    void Bind(const Memory& memory) override {
        src_ = memory(srcRef_);
        dst_ = memory(dstRef_);
    }
    void Run(float*) override { Permute(src_, shape_, perm_, dst_); }

private:
    Ref srcRef_, dstRef_;
    std::vector<size_t> shape_, perm_;
    const float* src_ = nullptr;
    float* dst_ = nullptr;
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
        index_.resize(rank);
    }
    void Bind(const Memory& memory) override {
        src_ = memory(srcRef_);
        dst_ = memory(dstRef_);
    }
    void Run(float*) override {
        const std::vector<size_t>& dstExtent = dstExtent_;
        const std::vector<size_t>& srcStride = srcStride_;
        std::vector<size_t>& index = index_;
        std::fill(index.begin(), index.end(), 0);
        // Odometer over the destination's outer axes; the last axis is one run of rows.
        const size_t last = shape_.size() - 1;
        size_t outer = 1;
        for (size_t a = 0; a < last; ++a) outer *= dstExtent[a];
        float* dst = dst_;
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
                const float* src = src_ + offset;
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
    std::vector<size_t> dstExtent_, srcStride_, index_;  // set at construction
    size_t row_;
    int mode_;
    float value_;
    const float* src_ = nullptr;
    float* dst_ = nullptr;
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
    void Bind(const Memory& memory) override {
        src_ = memory(srcRef_);
        dst_ = memory(dstRef_);
    }
    void Run(float*) override {
        const size_t c = channels_, dstW = cols_.size();
        float* dst = dst_;
        for (size_t b = 0; b < batch_; ++b) {
            const float* image = src_ + b * srcH_ * srcW_ * c;
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
    const float* src_ = nullptr;
    float* dst_ = nullptr;
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

}  // namespace simdsynet_executor
