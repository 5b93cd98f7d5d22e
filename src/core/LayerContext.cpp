#include "core/LayerContext.h"

#include "core/Error.h"

namespace simd {

namespace {

// The context of the query entry point `api` + `query`; NULL, with the error recorded, when the
// caller passed none.
const LayerContext* QueriedContext(const void* context, const char* api, const char* query) {
    ClearLastError();
    if (context == nullptr) SetLastErrorF("%s%s: context is NULL", api, query);
    return static_cast<const LayerContext*>(context);
}

}  // namespace

size_t LayerExternalBufferSize(const void* context, const char* api) {
    const LayerContext* c = QueriedContext(context, api, "ExternalBufferSize");
    return c ? c->ExternalBufferSize() : 0;
}

size_t LayerInternalBufferSize(const void* context, const char* api) {
    const LayerContext* c = QueriedContext(context, api, "InternalBufferSize");
    return c ? c->InternalBufferSize() : 0;
}

const char* LayerInfo(const void* context, const char* api) {
    const LayerContext* c = QueriedContext(context, api, "Info");
    return c ? c->Info() : nullptr;
}

}  // namespace simd
