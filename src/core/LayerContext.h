// The part of a layer context (convolution, deconvolution, merged convolution) that the post-Init
// entry points query without knowing the layer: scratch sizes, the Info string, whether SetParams
// ran, and the context-owned scratch Forward falls back to when the caller gives none.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/AlignedVector.h"
#include "core/Context.h"

namespace simd {

class LayerContext : public Context {
public:
    // Floats of scratch Forward needs when the caller gives `buf` (at least 1).
    virtual size_t ExternalBufferSize() const = 0;
    // Floats owned by the context: weights, bias, activation values, own scratch.
    virtual size_t InternalBufferSize() const = 0;
    const char* Info() const { return info_.c_str(); }
    bool Ready() const { return ready_; }

protected:
    // The scratch Forward runs with: the caller's `buf`, or (NULL) the context's own, grown to
    // ExternalBufferSize() floats on first use.
    float* Scratch(float* buf) {
        if (buf != nullptr) return buf;
        if (scratch_.size() < ExternalBufferSize()) scratch_.resize(ExternalBufferSize());
        return scratch_.data();
    }

public:
    std::string info_;
    AlignedFloats scratch_;
    bool ready_ = false;
};

// Entry-point bodies shared by the layer frameworks. `api` is the public name prefix
// ("SimdSynetConvolution32f"), so messages name the public function; `context` must come from
// that framework's Init.
size_t LayerExternalBufferSize(const void* context, const char* api);
size_t LayerInternalBufferSize(const void* context, const char* api);
const char* LayerInfo(const void* context, const char* api);

}  // namespace simd
