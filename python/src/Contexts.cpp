// LayerContext (see Contexts.h) and the keyword description of a layer.
#include "Contexts.h"

#include "SimdSynet.hpp"

namespace simdsynet_python {

// ---------------------------------------------------------------------------------------------
// Keyword description.

namespace {

// An int or a (y, x) pair.
std::pair<size_t, size_t> Pair(py::handle value, const char* argument) {
    std::vector<size_t> v = ToSizes(value, 2, argument);
    return {v[0], v[1]};
}

// An int, (y, x) or (top, left, bottom, right).
std::vector<size_t> Pads(py::handle value) {
    if (py::isinstance<py::sequence>(value) && !py::isinstance<py::str>(value) &&
        py::len(value) == 2) {
        auto [y, x] = Pair(value, "pad");
        return {y, x, y, x};
    }
    return ToSizes(value, 4, "pad");
}

// The output extent of one axis by the rule of the layer, 0 where the rule gives none (the
// library then rejects the layer with its message) and SIZE_MAX beyond size_t.
size_t Extent(SizeRule rule, size_t src, size_t kernel, size_t stride, size_t dilation,
              size_t padBefore, size_t padAfter) {
    if (src == 0 || kernel == 0 || stride == 0 || dilation == 0) return 0;
    using Wide = __int128;
    Wide extent = Wide(dilation) * Wide(kernel - 1) + 1;
    Wide result = rule == SizeRule::Convolution
                      ? (Wide(src) + padBefore + padAfter - extent) < 0
                            ? Wide(0)
                            : (Wide(src) + padBefore + padAfter - extent) / Wide(stride) + 1
                      : Wide(stride) * Wide(src - 1) + extent - padBefore - padAfter;
    if (result < 1) return 0;
    return result > Wide(SIZE_MAX) ? SIZE_MAX : size_t(result);
}

// The keyword's value, or `fallback` when it was not given (or given as None).
py::object Or(const py::object& value, py::object fallback) {
    return value && !value.is_none() ? value : fallback;
}

}  // namespace

SimdConvolutionParameters Describe(const LayerFields& f, SizeRule rule, const char* defaultFormat) {
    const std::pair<const py::object*, const char*> required[] = {{&f.srcC, "src_c"},
                                                                  {&f.srcH, "src_h"},
                                                                  {&f.srcW, "src_w"},
                                                                  {&f.dstC, "dst_c"},
                                                                  {&f.kernel, "kernel"}};
    for (auto [value, name] : required)
        if (!*value || value->is_none()) throw py::type_error(Format("the layer needs %s", name));
    SimdConvolutionParameters p{};
    p.srcC = ToSize(f.srcC, "src_c");
    p.srcH = ToSize(f.srcH, "src_h");
    p.srcW = ToSize(f.srcW, "src_w");
    p.dstC = ToSize(f.dstC, "dst_c");
    std::tie(p.kernelY, p.kernelX) = Pair(f.kernel, "kernel");
    std::tie(p.strideY, p.strideX) = Pair(Or(f.stride, py::int_(1)), "stride");
    std::tie(p.dilationY, p.dilationX) = Pair(Or(f.dilation, py::int_(1)), "dilation");
    std::vector<size_t> pads = Pads(Or(f.pad, py::int_(0)));
    p.padY = pads[0];
    p.padX = pads[1];
    p.padH = pads[2];
    p.padW = pads[3];
    p.group = ToSize(Or(f.group, py::int_(1)), "group");
    p.activation = SimdConvolutionActivationType(
        ToEnum(Or(f.activation, py::str("identity")), g_activation, "activation"));
    // Formats other than NCHW/NHWC are the library's to reject; the tensor shapes below are
    // computed only for contexts it accepted.
    p.srcF = p.dstF = SimdTensorFormatType(
        ToEnum(Or(f.format, py::str(defaultFormat)), g_tensorFormat, "format"));
    p.srcT =
        SimdTensorDataType(ToEnum(Or(f.srcType, py::str("float32")), g_tensorData, "src_type"));
    p.dstT =
        SimdTensorDataType(ToEnum(Or(f.dstType, py::str("float32")), g_tensorData, "dst_type"));
    p.dstH = Extent(rule, p.srcH, p.kernelY, p.strideY, p.dilationY, p.padY, p.padH);
    p.dstW = Extent(rule, p.srcW, p.kernelX, p.strideX, p.dilationX, p.padX, p.padW);
    return p;
}

LayerFields FieldsFromMapping(py::handle mapping, const SimdConvolutionParameters* previous,
                              const char* argument) {
    if (!py::isinstance<py::dict>(mapping))
        throw py::type_error(Format("%s must be a dict of layer keywords", argument));
    LayerFields f;
    std::pair<const char*, py::object*> keys[] = {
        {"src_c", &f.srcC},        {"src_h", &f.srcH},
        {"src_w", &f.srcW},        {"dst_c", &f.dstC},
        {"kernel", &f.kernel},     {"stride", &f.stride},
        {"dilation", &f.dilation}, {"pad", &f.pad},
        {"group", &f.group},       {"activation", &f.activation},
        {"format", &f.format},     {"src_type", &f.srcType},
        {"dst_type", &f.dstType}};
    for (auto item : py::reinterpret_borrow<py::dict>(mapping)) {
        std::string key = py::str(item.first);
        bool known = false;
        for (auto& [name, field] : keys)
            if (key == name) {
                *field = py::reinterpret_borrow<py::object>(item.second);
                known = true;
            }
        if (!known)
            throw py::type_error(Format("%s: unexpected keyword '%s'", argument, key.c_str()));
    }
    if (previous) {
        if (!f.srcC) f.srcC = py::int_(previous->dstC);
        if (!f.srcH) f.srcH = py::int_(previous->dstH);
        if (!f.srcW) f.srcW = py::int_(previous->dstW);
    }
    return f;
}

py::dict DescriptionDict(const SimdConvolutionParameters& p) {
    return py::dict("src_c"_a = p.srcC, "src_h"_a = p.srcH, "src_w"_a = p.srcW, "dst_c"_a = p.dstC,
                    "dst_h"_a = p.dstH, "dst_w"_a = p.dstW,
                    "kernel"_a = py::make_tuple(p.kernelY, p.kernelX),
                    "stride"_a = py::make_tuple(p.strideY, p.strideX),
                    "dilation"_a = py::make_tuple(p.dilationY, p.dilationX),
                    "pad"_a = py::make_tuple(p.padY, p.padX, p.padH, p.padW), "group"_a = p.group,
                    "activation"_a = FromEnum(g_activation, p.activation),
                    "format"_a = FromEnum(g_tensorFormat, p.srcF),
                    "src_type"_a = FromEnum(g_tensorData, p.srcT),
                    "dst_type"_a = FromEnum(g_tensorData, p.dstT));
}

Shape WeightShape(const SimdConvolutionParameters& p, SizeRule rule) {
    auto s = [](size_t v) { return py::ssize_t(v); };
    bool nhwc = p.srcF == SimdTensorFormatNhwc;
    if (rule == SizeRule::Convolution)
        return nhwc ? Shape{s(p.kernelY), s(p.kernelX), s(p.srcC / p.group), s(p.dstC)}
                    : Shape{s(p.dstC), s(p.srcC / p.group), s(p.kernelY), s(p.kernelX)};
    return nhwc ? Shape{s(p.srcC), s(p.kernelY), s(p.kernelX), s(p.dstC)}
                : Shape{s(p.srcC), s(p.dstC / p.group), s(p.kernelY), s(p.kernelX)};
}

LayerParams::LayerParams(const SimdConvolutionParameters& p, SizeRule rule, py::handle w,
                         py::handle b, py::handle a, const std::string& suffix) {
    weight = Input<float>(w, ("weight" + suffix).c_str(), WeightShape(p, rule));
    if (!b.is_none()) bias = Vector(b, ("bias" + suffix).c_str(), p.dstC);
    if (!a.is_none())
        params = Floats(a, ("params" + suffix).c_str(),
                        Simd::ConvolutionActivationParams(p.activation, p.dstC));
}

LayerFields Fields(py::object srcC, py::object srcH, py::object srcW, py::object dstC,
                   py::object kernel, py::object stride, py::object dilation, py::object pad,
                   py::object group, py::object activation, py::object format, py::object srcType,
                   py::object dstType) {
    return {srcC, srcH,  srcW,       dstC,   kernel,  stride, dilation,
            pad,  group, activation, format, srcType, dstType};
}

const char* const g_layerKeywords =
    " Keywords: src_c, src_h, src_w, dst_c, kernel (int or (y, x)), stride, dilation (default "
    "1), pad (int, (y, x) or (top, left, bottom, right); default 0), group (default 1), "
    "activation (Activation; default IDENTITY), format (NCHW or NHWC), batch (images per "
    "forward, default 1). dst_h/dst_w follow from the size rule. Use it as a context manager or "
    "call close() to free it at once.";

// ---------------------------------------------------------------------------------------------
// Typed tensors.

py::array TypedInput(py::handle value, SimdTensorDataType type, const char* argument,
                     const Shape& shape) {
    switch (type) {
        case SimdTensorData32f:
            return Input<float>(value, argument, shape);
        case SimdTensorData16b:
            return Input<uint16_t>(value, argument, shape);
        case SimdTensorData8u:
            return Input<uint8_t>(value, argument, shape);
        default:
            throw py::value_error(Format("%s: tensor type %d has no binding", argument, int(type)));
    }
}

py::array TypedOutput(py::handle out, SimdTensorDataType type, const char* argument,
                      const Shape& shape) {
    switch (type) {
        case SimdTensorData32f:
            return Output<float>(out, argument, shape);
        case SimdTensorData16b:
            return Output<uint16_t>(out, argument, shape);
        case SimdTensorData8u:
            return Output<uint8_t>(out, argument, shape);
        default:
            throw py::value_error(Format("%s: tensor type %d has no binding", argument, int(type)));
    }
}

// ---------------------------------------------------------------------------------------------
// LayerContext.

LayerContext::LayerContext(const ContextApi& api, void* handle, size_t batch,
                           std::vector<SimdConvolutionParameters> convs)
    : api_(api), convs_(std::move(convs)), handle_(handle), batch_(batch) {}

LayerContext::~LayerContext() {
    // The object is being collected: no other thread can hold a reference to it.
    if (handle_) SimdRelease(handle_);
}

void LayerContext::Close() {
    {
        py::gil_scoped_release release;
        std::unique_lock<std::shared_mutex> lock(mutex_);
        if (handle_) SimdRelease(handle_);
        handle_ = nullptr;
    }
    borrowed_.clear();
}

bool LayerContext::Closed() {
    std::shared_lock<std::shared_mutex> lock(mutex_, std::try_to_lock);
    // A call in flight holds the lock exclusively: the context is open then.
    return lock.owns_lock() ? handle_ == nullptr : false;
}

std::string LayerContext::Info() {
    std::string info;
    // Exclusive: the BF16 context's text is valid until the next Info call on it.
    Locked(false, [&](void* h) {
        const char* text = api_.info(h);
        if (text) info = text;
    });
    return info;
}

size_t LayerContext::ExternalBufferSize() {
    size_t size = 0;
    Locked(true, [&](void* h) { size = api_.externalBufferSize(h); });
    return size;
}

size_t LayerContext::InternalBufferSize() {
    size_t size = 0;
    Locked(false, [&](void* h) { size = api_.internalBufferSize(h); });
    return size;
}

namespace {

Shape TensorShape(size_t batch, SimdTensorFormatType format, size_t c, size_t h, size_t w) {
    if (format == SimdTensorFormatNhwc)
        return {py::ssize_t(batch), py::ssize_t(h), py::ssize_t(w), py::ssize_t(c)};
    return {py::ssize_t(batch), py::ssize_t(c), py::ssize_t(h), py::ssize_t(w)};
}

}  // namespace

Shape LayerContext::SrcShape() const {
    const SimdConvolutionParameters& p = convs_.front();
    return TensorShape(batch_, p.srcF, p.srcC, p.srcH, p.srcW);
}

Shape LayerContext::DstShape() const {
    const SimdConvolutionParameters& p = convs_.back();
    return TensorShape(batch_, p.dstF, p.dstC, p.dstH, p.dstW);
}

py::object LayerContext::Parameters() const {
    if (convs_.size() == 1) return DescriptionDict(convs_[0]);
    py::list list;
    for (const SimdConvolutionParameters& p : convs_) list.append(DescriptionDict(p));
    return list;
}

std::string LayerContext::Repr() {
    if (Closed()) return Format("<simdsynet.%s (closed)>", api_.name);
    return Format("<simdsynet.%s %s -> %s: %s>", api_.name, ShapeText(SrcShape()).c_str(),
                  ShapeText(DstShape()).c_str(), Info().c_str());
}

py::array LayerContext::Scratch(py::handle buf, const py::array& src, const py::array& out) {
    if (buf.is_none()) return NoArray();
    py::array b = api_.sizesInBytes ? Input<uint8_t>(buf, "buf") : Input<float>(buf, "buf");
    CheckWritable(b, "buf");
    CheckDisjoint(b, "buf", src, "src");
    CheckDisjoint(b, "buf", out, "out");
    size_t needed = ExternalBufferSize();
    if (size_t(b.size()) < needed)
        throw py::value_error(
            Format("buf holds %zu elements; the context needs %zu", size_t(b.size()), needed));
    return b;
}

py::array LayerContext::Forward(py::handle src, py::handle out, py::handle buf) {
    py::array s = TypedInput(src, convs_.front().srcT, "src", SrcShape());
    py::array d = TypedOutput(out, convs_.back().dstT, "out", DstShape());
    CheckDisjoint(d, "out", s, "src");
    py::array b = Scratch(buf, s, d);
    const void* sp = s.data();
    void* dp = MutableData<uint8_t>(d);
    void* bp = b ? MutableData<uint8_t>(b) : nullptr;
    // With a caller buffer the library only reads the context.
    Locked(bp != nullptr && api_.readOnlyWithBuffer, [&](void* h) { api_.forward(h, sp, bp, dp); });
    return d;
}

namespace {

py::tuple ShapeTuple(const Shape& shape) {
    py::tuple tuple(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) tuple[i] = py::int_(shape[i]);
    return tuple;
}

}  // namespace

void RegisterLayerContext(py::module_& m) {
    py::class_<LayerContext>(m, "LayerContext",
                             "Base of the layer contexts: close() (or leaving a with block) "
                             "frees the library context; a closed context raises ValueError.")
        .def("close", &LayerContext::Close,
             "Frees the library context now (SimdRelease). Calling it again does nothing.")
        .def_property_readonly("closed", &LayerContext::Closed)
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__",
             [](LayerContext& self, py::handle, py::handle, py::handle) {
                 self.Close();
                 return false;
             })
        .def("info", &LayerContext::Info,
             "The algorithm and instruction set the context runs, e.g. "
             "\"avx512::nhwc-gemm-12x32\" (the framework's Info).")
        .def_property_readonly("external_buffer_size", &LayerContext::ExternalBufferSize,
                               "Scratch forward needs when given buf: floats, or bytes for the "
                               "BF16 deconvolution.")
        .def_property_readonly("internal_buffer_size", &LayerContext::InternalBufferSize,
                               "Memory the context owns now: floats, or bytes for the BF16 "
                               "deconvolution.")
        .def_property_readonly(
            "src_shape", [](const LayerContext& c) { return ShapeTuple(c.SrcShape()); },
            "The shape forward takes: (batch, C, H, W) for NCHW, (batch, H, W, C) for NHWC.")
        .def_property_readonly(
            "dst_shape", [](const LayerContext& c) { return ShapeTuple(c.DstShape()); },
            "The shape forward returns.")
        .def_property_readonly("batch", &LayerContext::Batch)
        .def_property_readonly("parameters", &LayerContext::Parameters,
                               "The layer description the context was made from (a dict; a "
                               "list of dicts for a merged convolution), dst_h/dst_w included.")
        .def("forward", &LayerContext::Forward, "src"_a, py::kw_only(), "out"_a = py::none(),
             "buf"_a = py::none(),
             "Runs the layer on src (src_shape) and returns out (dst_shape; allocated when "
             "None). buf: None, or caller scratch of at least external_buffer_size elements "
             "(float32; uint8 for sizes in bytes), with which threads that each have their own "
             "buffer may run one context at once.")
        .def("__repr__", &LayerContext::Repr);
}

}  // namespace simdsynet_python
