// The layer contexts (convolution, deconvolution FP32/BF16, merged convolution) as Python
// classes. LayerContext holds what they share: the library handle and its release (close(),
// the context-manager exit, or garbage collection), a lock that keeps two threads from using one
// context at once and close() from freeing it under a running call, the queries (info, buffer
// sizes), the tensor shapes, and a generic forward. A context class adds its Init (from keyword
// parameters), its set_params and a row in ContextApi (Convolutions.cpp: the FP32 and BF16
// frameworks; Convolution8i.cpp: the INT8 convolution).
#pragma once

#include <mutex>
#include <shared_mutex>

#include "Common.h"

namespace simdsynet_python {

// The C entry points of one framework.
struct ContextApi {
    const char* name;  // Python class name, for messages
    size_t (*externalBufferSize)(const void*);
    size_t (*internalBufferSize)(const void*);
    const char* (*info)(const void*);
    // Forward with type-erased pointers (src, buf, dst).
    void (*forward)(void*, const void*, void*, void*);
    bool sizesInBytes;  // buffer sizes in bytes (uint8 buf) rather than floats (float32 buf)
    // Forward with a caller buffer only reads the context (threads may share it then).
    bool readOnlyWithBuffer;
};

// The keyword parameters that describe one layer (SimdConvolutionParameters): src_c, src_h,
// src_w, dst_c, kernel, stride, dilation, pad, group, activation, format, src_type, dst_type.
// Unset handles take their defaults. dst_h/dst_w follow from the size rule.
struct LayerFields {
    py::object srcC, srcH, srcW, dstC, kernel, stride, dilation, pad, group, activation, format,
        srcType, dstType;
};

enum class SizeRule { Convolution, Deconvolution };

// The C description of a layer; the library's Init validates it (its message names the field).
SimdConvolutionParameters Describe(const LayerFields& fields, SizeRule rule,
                                   const char* defaultFormat);

// A mapping of the same keywords (a stage of a merged convolution); src_c/src_h/src_w default to
// the previous stage's output when `previous` is given.
LayerFields FieldsFromMapping(py::handle mapping, const SimdConvolutionParameters* previous,
                              const char* argument);

// The parameters as a dict of the keywords above plus dst_h and dst_w.
py::dict DescriptionDict(const SimdConvolutionParameters& p);

// Activation parameters the library reads for an activation (SUPPLEMENT.md §3.1): None (NULL)
// or exactly that many numbers.
size_t ActivationParamCount(SimdConvolutionActivationType activation, size_t dstC);

// A framework's Forward taking bytes, as ContextApi::forward.
template <void (*Function)(void*, const uint8_t*, uint8_t*, uint8_t*)>
void ForwardBytes(void* context, const void* src, void* buf, void* dst) {
    Function(context, static_cast<const uint8_t*>(src), static_cast<uint8_t*>(buf),
             static_cast<uint8_t*>(dst));
}

// Runs an Init; NULL raises simdsynet.Error with the library's message.
template <class Init>
void* Create(Init&& init) {
    void* handle = Run(init);
    if (handle == nullptr) throw LibraryError("the library returned no context");
    return handle;
}

// Weight shape (conv: Nchw (dstC, srcC/g, kY, kX), Nhwc (kY, kX, srcC/g, dstC); deconv: Nchw
// (srcC, dstC/g, kY, kX), Nhwc (srcC, kY, kX, dstC)).
Shape WeightShape(const SimdConvolutionParameters& p, SizeRule rule);

// The arrays of one layer's set_params, checked against its description: weight (exact
// shape), bias (dstC or None), params (the activation's count, or None).
struct LayerParams {
    py::array weight = NoArray(), bias = NoArray();
    py::array_t<float> params = NoArray<py::array_t<float>>();

    LayerParams(const SimdConvolutionParameters& p, SizeRule rule, py::handle w, py::handle b,
                py::handle a, const std::string& suffix = "");
    const float* Weight() const { return Data<float>(weight); }
    const float* Bias() const { return bias ? Data<float>(bias) : nullptr; }
    const float* Params() const { return params ? params.data() : nullptr; }
    std::vector<py::object> Objects() const { return {weight, bias, params}; }
};

LayerFields Fields(py::object srcC, py::object srcH, py::object srcW, py::object dstC,
                   py::object kernel, py::object stride, py::object dilation, py::object pad,
                   py::object group, py::object activation, py::object format,
                   py::object srcType = {}, py::object dstType = {});

// The keywords every layer context's docstring lists.
extern const char* const g_layerKeywords;

class LayerContext {
public:
    // Takes ownership of `handle` (from the framework's Init; NULL raises simdsynet.Error with the
    // library's message).
    LayerContext(const ContextApi& api, void* handle, size_t batch,
                 std::vector<SimdConvolutionParameters> convs);
    virtual ~LayerContext();
    LayerContext(const LayerContext&) = delete;
    LayerContext& operator=(const LayerContext&) = delete;

    void Close();
    bool Closed();
    std::string Info();
    size_t ExternalBufferSize();
    size_t InternalBufferSize();
    Shape SrcShape() const;
    Shape DstShape() const;
    size_t Batch() const { return batch_; }
    py::object Parameters() const;  // a dict, or a list of dicts for several convolutions
    std::string Repr();

    // src (srcT of the first convolution, SrcShape) -> out (dstT of the last, DstShape). buf:
    // None (the context's own scratch; the call holds the context alone) or a caller array of at
    // least ExternalBufferSize elements (float32, or uint8 for sizes in bytes), with which the
    // library only reads the context, so threads with their own buffers run it at once.
    py::array Forward(py::handle src, py::handle out, py::handle buf);

protected:
    // buf checked as Forward's scratch (None: an empty array) beside src and out.
    py::array Scratch(py::handle buf, const py::array& src, const py::array& out);
    // Runs call(handle) without the GIL, holding the context's lock (shared when `shared`):
    // ValueError when the context is closed, simdsynet.Error when the library rejects the call.
    template <class Call>
    void Locked(bool shared, Call&& call);

    // Keeps arrays alive while the library reads them by pointer (SetParams with *internal
    // left SimdFalse); dropped by the next set_params and by close().
    std::vector<py::object> borrowed_;
    const ContextApi& api_;
    const std::vector<SimdConvolutionParameters> convs_;

private:
    std::shared_mutex mutex_;
    void* handle_;
    const size_t batch_;
};

template <class Call>
void LayerContext::Locked(bool shared, Call&& call) {
    std::string error;
    bool closed = false;
    {
        py::gil_scoped_release release;
        auto body = [&] {
            if (handle_ == nullptr) {
                closed = true;
                return;
            }
            call(handle_);
            if (const char* message = SimdSynetGetLastError()) error = message;
        };
        if (shared) {
            std::shared_lock<std::shared_mutex> lock(mutex_);
            body();
        } else {
            std::unique_lock<std::shared_mutex> lock(mutex_);
            body();
        }
    }
    if (closed) throw py::value_error(Format("the %s context is closed", api_.name));
    if (!error.empty()) throw LibraryError(error);
}

// A tensor of element type `type` (32f: float32, 16b: uint16, 8u: uint8) as input or output.
py::array TypedInput(py::handle value, SimdTensorDataType type, const char* argument,
                     const Shape& shape);
py::array TypedOutput(py::handle out, SimdTensorDataType type, const char* argument,
                      const Shape& shape);

// The Python base class with the shared methods and properties; the context classes derive
// from it (py::class_<Derived, LayerContext>).
void RegisterLayerContext(py::module_& m);

// simdsynet.Convolution8i (Convolution8i.cpp); RegisterContexts calls it.
void RegisterConvolution8i(py::module_& m);

}  // namespace simdsynet_python
