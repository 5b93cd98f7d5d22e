#include "core/LayerContext.h"

#include "core/Error.h"

namespace simd {

size_t LayerExternalBufferSize(const void* context, const char* api) {
    ClearLastError();
    if (context == nullptr) {
        SetLastErrorF("%sExternalBufferSize: context is NULL", api);
        return 0;
    }
    return static_cast<const LayerContext*>(context)->ExternalBufferSize();
}

size_t LayerInternalBufferSize(const void* context, const char* api) {
    ClearLastError();
    if (context == nullptr) {
        SetLastErrorF("%sInternalBufferSize: context is NULL", api);
        return 0;
    }
    return static_cast<const LayerContext*>(context)->InternalBufferSize();
}

const char* LayerInfo(const void* context, const char* api) {
    ClearLastError();
    if (context == nullptr) {
        SetLastErrorF("%sInfo: context is NULL", api);
        return nullptr;
    }
    return static_cast<const LayerContext*>(context)->Info();
}

}  // namespace simd
