// The checks of a network file's values (Loader.cpp): StepChecker names the step in every
// error and checks sizes, products and array references against the arena and the constants;
// the functions below read one kind of field each, refusing what is out of range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "Executor.h"
#include "SimdSynetNetwork_generated.h"
#include "Steps.h"

namespace simdsynet_executor {
namespace loader {

namespace file = SimdSynetFile;

template <class T>
using Vec = flatbuffers::Vector<T>;

// Checks the values of one step, naming it in every error.
class StepChecker {
public:
    StepChecker(std::string where, size_t arenaFloats, const std::vector<size_t>& constantFloats)
        : where_(std::move(where)), arena_(arenaFloats), constants_(constantFloats) {}

    size_t Arena() const { return arena_; }
    [[noreturn]] void Fail(const std::string& what) const {
        throw ExecutorError(where_ + ": " + what);
    }
    void Require(bool condition, const char* what) const {
        if (!condition) Fail(what);
    }

    // a*b, refused on size_t overflow.
    size_t Mul(size_t a, size_t b) const {
        if (b != 0 && a > std::numeric_limits<size_t>::max() / b) Fail("a size overflows");
        return a * b;
    }
    // The size of an array of `values` extents. An empty array is not bounded by the arena, but
    // the steps still loop over its other extents (images, rows): those must stay within the
    // arena, or a hostile file of zero channels and 2^56 images keeps a run busy for ever.
    size_t Mul(std::initializer_list<size_t> values) const {
        size_t p = 1;
        for (size_t v : values) p = Mul(p, v);
        if (p == 0)
            for (size_t v : values) Empty(v);
        return p;
    }
    void Empty(size_t extent) const {
        if (extent > std::max<size_t>(arena_, 1))
            Fail("an empty array has an extent of " + std::to_string(extent) +
                 ", more than the arena");
    }
    size_t Add(size_t a, size_t b) const {
        if (a > std::numeric_limits<size_t>::max() - b) Fail("a size overflows");
        return a + b;
    }
    size_t Product(const Vec<uint64_t>* v) const {
        size_t p = 1;
        for (uint64_t e : Vector(v, "a shape")) p = Mul(p, Size(e));
        if (p == 0)
            for (uint64_t e : *v) Empty(Size(e));
        return p;
    }
    size_t Size(uint64_t v) const {
        if (v > std::numeric_limits<size_t>::max()) Fail("a size overflows");
        return size_t(v);
    }
    // Floats a run of `rows` rows of `length` floats, rows `stride` apart, spans.
    size_t Span(size_t rows, size_t length, size_t stride) const {
        if (length == 0) Empty(rows);
        return rows == 0 ? 0 : Add(Mul(rows - 1, stride), length);
    }

    // The reference `r` (NULL: absent) to an array of `floats` floats; `required` refuses an
    // absent one, `written` one into a constant.
    Ref Take(const file::Ref* r, size_t floats, const char* field, bool required = true,
             bool written = false) const {
        if (r == nullptr || r->kind() == file::RefKind::None) {
            if (required) Fail(std::string(field) + " is missing");
            return Ref();
        }
        const uint64_t index = r->index();
        switch (r->kind()) {
            case file::RefKind::Arena:
                if (index > arena_ || floats > arena_ - index)
                    Fail(std::string(field) + " (" + std::to_string(floats) +
                         " floats at arena offset " + std::to_string(index) +
                         ") lies outside the arena of " + std::to_string(arena_) + " floats");
                return Ref::InArena(size_t(index));
            case file::RefKind::Constant:
                if (written) Fail(std::string(field) + " is written and cannot be a constant");
                if (index >= constants_.size())
                    Fail(std::string(field) + " refers to constant " + std::to_string(index) +
                         " of " + std::to_string(constants_.size()));
                if (constants_[index] < floats)
                    Fail(std::string(field) + " needs " + std::to_string(floats) +
                         " floats; constant " + std::to_string(index) + " has " +
                         std::to_string(constants_[index]));
                return {Ref::Constant, size_t(index)};
            default:
                Fail(std::string(field) + " has an unknown reference kind");
        }
    }
    Ref Written(const file::Ref* r, size_t floats, const char* field, bool required = true) const {
        return Take(r, floats, field, required, true);
    }
    // Glue that copies with memcpy, and the library functions whose documentation says so,
    // read `src` while they write `dst`: overlapping arrays are undefined there (the fuzzer
    // found memcpy-param-overlap in both), and a plan never has them (steps other than
    // element-wise ones get an output buffer of their own).
    void Disjoint(const Ref& src, size_t srcFloats, const Ref& dst, size_t dstFloats) const {
        if (src.kind != Ref::Arena || dst.kind != Ref::Arena || srcFloats == 0 || dstFloats == 0)
            return;
        if (src.index < dst.index + dstFloats && dst.index < src.index + srcFloats)
            Fail("src and dst overlap in the arena");
    }

    // The verifier checks a vector's length field for 4-byte alignment only: a hostile file can
    // place vectors of 8-byte elements (ulong, Ref, ConvolutionDesc, CopyRegion) where each read
    // of them would be misaligned, so their start is checked here (the buffer itself is
    // aligned: mapped, or copied to 64 bytes).
    template <class T>
    const Vec<T>& Vector(const Vec<T>* v, const char* field) const {
        if (v == nullptr) Fail(std::string(field) + " is missing");
        using Element = std::remove_cv_t<std::remove_pointer_t<T>>;
        // (An empty vector is never read; the C++ builder does not align those.)
        if (v->size() != 0 && reinterpret_cast<uintptr_t>(v->Data()) % alignof(Element) != 0)
            Fail(std::string(field) + " is misaligned in the file");
        return *v;
    }
    std::vector<size_t> Sizes(const Vec<uint64_t>* v, const char* field) const {
        std::vector<size_t> out;
        for (uint64_t e : Vector(v, field)) out.push_back(Size(e));
        return out;
    }
    std::vector<float> Floats(const Vec<float>* v, const char* field, size_t count) const {
        if (v == nullptr && count == 0) return {};
        const Vec<float>& f = Vector(v, field);
        if (f.size() != count)
            Fail(std::string(field) + " needs " + std::to_string(count) + " values, not " +
                 std::to_string(f.size()));
        return std::vector<float>(f.begin(), f.end());
    }

private:
    std::string where_;
    size_t arena_;
    const std::vector<size_t>& constants_;
};

// The fields of one kind each: the value, or an error naming the field.
SimdTensorFormatType Format(const StepChecker& c, file::TensorFormat f);

SimdTensorDataType DataType(const StepChecker& c, file::TensorType t);

// A convolution description: every size, the activation in range, whole groups.
SimdConvolutionParameters Describe(const StepChecker& c, const file::ConvolutionDesc* d);

// Floats of a tensor of `values` values of `type` in the arena (uint8 tensors take bytes from
// their float offset on).
size_t TensorFloats(const StepChecker& c, size_t values, SimdTensorDataType type);

// Floats of a convolution's input and output tensors of `batch` images.
size_t SrcFloats(const StepChecker& c, size_t batch, const SimdConvolutionParameters& p);

size_t DstFloats(const StepChecker& c, size_t batch, const SimdConvolutionParameters& p);

// The floats of `params` the activation reads.
size_t ActivationParams(const SimdConvolutionParameters& p);

// The constant data of a reference that must be a constant (weights converted at load).
const float* ConstantData(const StepChecker& c, const Ref& ref, const std::vector<Floats>& data,
                          const char* field);

// Convolution weights in ONNX's order (O x I/group x kY x kX), in the layout the context of `p`
// reads: that order for NCHW, YXIO for NHWC.
const float* ConvolutionWeights(const StepChecker& c, const SimdConvolutionParameters& p,
                                const float* oiyx, std::vector<float>& converted);

// Floats of a convolution's weights.
size_t WeightFloats(const StepChecker& c, const SimdConvolutionParameters& p);

// A pooling shape: no zero kernel or stride.
PoolingShape Pooling(const StepChecker& c, const file::PoolingShape* s);

// Parameters of each executor activation (Steps.h).
size_t StepActivationParams(Activation kind);

// An executor activation of the file's enumerator.
Activation StepActivation(const StepChecker& c, file::ActivationKind kind);

// Checks that a dilated window always holds a tap inside the image along one axis. Each window
// is checked in constant time: a hostile file's kernel and padding may be 2^60 taps wide.
void CheckDilatedAxis(const StepChecker& c, size_t src, size_t dst, size_t kernel, size_t stride,
                      size_t pad, size_t dilation);

// Indices (resize rows and columns) below `bound`.
void CheckIndices(const StepChecker& c, const std::vector<size_t>& v, size_t bound,
                  const char* what);

// The taps of bilinear resizing along one axis: four arrays of one length, indices inside.
LinearTaps Taps(const StepChecker& c, const file::LinearTaps* t, size_t bound, const char* what);

// Whether `perm` holds each axis 0 .. size-1 once.
bool IsPermutation(std::vector<size_t> perm);

}  // namespace loader
}  // namespace simdsynet_executor
