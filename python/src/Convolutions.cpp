// The context classes: Convolution32f, Deconvolution32f, Deconvolution16b and
// MergedConvolution32f (SUPPLEMENT.md §8-§10). Each is its Init from keyword parameters, its
// set_params and a ContextApi row; the rest is LayerContext.
#include <memory>

#include "Contexts.h"

namespace simdsynet_python {

namespace {

PyObject* g_gemm32fNN = nullptr;  // simdsynet.gemm32f_nn, the only GEMM a context takes

template <void (*Function)(void*, const float*, float*, float*)>
void ForwardFloats(void* context, const void* src, void* buf, void* dst) {
    Function(context, static_cast<const float*>(src), static_cast<float*>(buf),
             static_cast<float*>(dst));
}

const ContextApi g_convolution32f{"Convolution32f",
                                  SimdSynetConvolution32fExternalBufferSize,
                                  SimdSynetConvolution32fInternalBufferSize,
                                  SimdSynetConvolution32fInfo,
                                  ForwardFloats<SimdSynetConvolution32fForward>,
                                  false,
                                  true};
const ContextApi g_deconvolution32f{"Deconvolution32f",
                                    SimdSynetDeconvolution32fExternalBufferSize,
                                    SimdSynetDeconvolution32fInternalBufferSize,
                                    SimdSynetDeconvolution32fInfo,
                                    ForwardFloats<SimdSynetDeconvolution32fForward>,
                                    false,
                                    true};
const ContextApi g_deconvolution16b{"Deconvolution16b",
                                    SimdSynetDeconvolution16bExternalBufferSize,
                                    SimdSynetDeconvolution16bInternalBufferSize,
                                    SimdSynetDeconvolution16bInfo,
                                    ForwardBytes<SimdSynetDeconvolution16bForward>,
                                    true,
                                    true};
const ContextApi g_mergedConvolution32f{"MergedConvolution32f",
                                        SimdSynetMergedConvolution32fExternalBufferSize,
                                        SimdSynetMergedConvolution32fInternalBufferSize,
                                        SimdSynetMergedConvolution32fInfo,
                                        ForwardFloats<SimdSynetMergedConvolution32fForward>,
                                        false,
                                        true};

SimdGemm32fNNPtr ToGemm(py::handle gemm) {
    if (gemm.is_none()) return nullptr;
    if (gemm.ptr() == g_gemm32fNN) return SimdGemm32fNN;
    throw py::type_error(
        "gemm must be None (the context's own GEMM) or simdsynet.gemm32f_nn (the library's "
        "SimdGemm32fNN as the callback); Python callables cannot be called from the library's "
        "threads");
}

// Convolution32f and Deconvolution32f: the same entry-point signatures.
class Layer32f : public LayerContext {
public:
    using SetParamsFunction = void (*)(void*, const float*, SimdBool*, const float*, const float*);

    Layer32f(const ContextApi& api, SizeRule rule, SetParamsFunction setParams, void* handle,
             size_t batch, const SimdConvolutionParameters& p)
        : LayerContext(api, handle, batch, {p}), rule_(rule), setParams_(setParams) {}

    void SetParams(py::handle weight, py::handle bias, py::handle params) {
        LayerParams l(convs_[0], rule_, weight, bias, params);
        SimdBool internal = SimdFalse;
        Locked(false, [&](void* h) { setParams_(h, l.Weight(), &internal, l.Bias(), l.Params()); });
        borrowed_.clear();
        if (internal != SimdTrue) borrowed_ = l.Objects();
    }

private:
    SizeRule rule_;
    SetParamsFunction setParams_;
};

class Convolution32f : public Layer32f {
public:
    using Layer32f::Layer32f;

    // SimdSynetConvolution32fForwardAdd: out = activation(convolution(src) + bias + add).
    py::array ForwardAdd(py::handle src, py::handle add, py::handle out, py::handle buf) {
        const SimdConvolutionParameters& p = convs_[0];
        py::array s = TypedInput(src, p.srcT, "src", SrcShape());
        py::array a = TypedInput(add, p.dstT, "add", DstShape());
        py::array d = TypedOutput(out, p.dstT, "out", DstShape());
        CheckDisjoint(d, "out", s, "src");
        CheckDisjoint(d, "out", a, "add");
        py::array b = Scratch(buf, s, d);
        const float* sp = static_cast<const float*>(s.data());
        const float* ap = static_cast<const float*>(a.data());
        float* dp = MutableData<float>(d);
        float* bp = b ? MutableData<float>(b) : nullptr;
        Locked(bp != nullptr,
               [&](void* h) { SimdSynetConvolution32fForwardAdd(h, sp, bp, ap, dp); });
        return d;
    }
};

class Deconvolution32f : public Layer32f {
public:
    using Layer32f::Layer32f;
};

class Deconvolution16b : public LayerContext {
public:
    using LayerContext::LayerContext;

    void SetParams(py::handle weight, py::handle bias, py::handle params) {
        // The library rounds and copies everything: nothing stays borrowed.
        LayerParams l(convs_[0], SizeRule::Deconvolution, weight, bias, params);
        Locked(false, [&](void* h) {
            SimdSynetDeconvolution16bSetParams(h, l.Weight(), l.Bias(), l.Params());
        });
        borrowed_.clear();
    }
};

class MergedConvolution32f : public LayerContext {
public:
    using LayerContext::LayerContext;

    // weights: one array per convolution; biases/params: None or one entry per convolution,
    // each None or the array/numbers of that convolution.
    void SetParams(py::sequence weights, py::handle biases, py::handle params) {
        size_t count = convs_.size();
        auto entries = [&](py::handle value, const char* argument) {
            std::vector<py::object> list(count, py::none());
            if (value.is_none()) return list;
            if (!py::isinstance<py::sequence>(value) || py::len(value) != count)
                throw py::value_error(
                    Format("%s must be None or a sequence of %zu entries", argument, count));
            for (size_t i = 0; i < count; ++i)
                list[i] = py::reinterpret_borrow<py::sequence>(value)[i];
            return list;
        };
        if (py::len(weights) != count)
            throw py::value_error(Format("weights must hold %zu arrays", count));
        std::vector<py::object> b = entries(biases, "biases"), a = entries(params, "params");
        std::vector<LayerParams> layers;
        std::vector<const float*> w, bp, ap;
        for (size_t i = 0; i < count; ++i) {
            layers.emplace_back(convs_[i], SizeRule::Convolution, weights[i], b[i], a[i],
                                Format("[%zu]", i));
            w.push_back(layers.back().Weight());
            bp.push_back(layers.back().Bias());
            ap.push_back(layers.back().Params());
        }
        std::vector<SimdBool> internal(count, SimdFalse);
        Locked(false, [&](void* h) {
            SimdSynetMergedConvolution32fSetParams(h, w.data(), internal.data(), bp.data(),
                                                   ap.data());
        });
        borrowed_.clear();
        for (size_t i = 0; i < count; ++i)
            if (internal[i] != SimdTrue)
                for (py::object& o : layers[i].Objects()) borrowed_.push_back(o);
    }
};

// Convolution32f or Deconvolution32f: the class, its Init from keywords, its set_params.
template <class Class>
py::class_<Class, LayerContext> BindLayer32f(
    py::module_& m, const ContextApi& api, SizeRule rule, const char* doc,
    void* (*init)(size_t, const SimdConvolutionParameters*, SimdGemm32fNNPtr),
    Layer32f::SetParamsFunction setParams, const char* weightDoc) {
    py::class_<Class, LayerContext> c(
        m, api.name,
        (std::string(doc) + g_layerKeywords +
         " gemm: None or simdsynet.gemm32f_nn (passed to Init as the GEMM callback).")
            .c_str());
    c.def(py::init([&api, rule, init, setParams](
                       py::object srcC, py::object srcH, py::object srcW, py::object dstC,
                       py::object kernel, py::object stride, py::object dilation, py::object pad,
                       py::object group, py::object activation, py::object format, py::object batch,
                       py::object gemm) {
              SimdConvolutionParameters p =
                  Describe(Fields(srcC, srcH, srcW, dstC, kernel, stride, dilation, pad, group,
                                  activation, format),
                           rule, "nchw");
              size_t n = ToSize(batch, "batch");
              SimdGemm32fNNPtr g = ToGemm(gemm);
              void* handle = Create([&] { return init(n, &p, g); });
              return std::make_unique<Class>(api, rule, setParams, handle, n, p);
          }),
          py::kw_only(), "src_c"_a, "src_h"_a, "src_w"_a, "dst_c"_a, "kernel"_a, "stride"_a = 1,
          "dilation"_a = 1, "pad"_a = 0, "group"_a = 1, "activation"_a = "identity",
          "format"_a = "nchw", "batch"_a = 1, "gemm"_a = py::none());
    c.def("set_params", &Class::SetParams, "weight"_a, "bias"_a = py::none(),
          "params"_a = py::none(),
          (std::string("Gives the context its float32 weight (") + weightDoc +
           "), bias (dst_c values or None) and the activation's parameters (None, or as many "
           "numbers as it reads: 1 for LEAKY_RELU/ELU/MISH/SWISH, 2 for RESTRICT_RANGE/HSWISH/"
           "HARD_SIGMOID, dst_c for PRELU). The context copies them.")
              .c_str());
    return c;
}

}  // namespace

void RegisterContexts(py::module_& m) {
    g_gemm32fNN = m.attr("gemm32f_nn").ptr();
    RegisterLayerContext(m);

    auto convolution32f = BindLayer32f<Convolution32f>(
        m, g_convolution32f, SizeRule::Convolution,
        "A float32 convolution context (SimdSynetConvolution32f*).", SimdSynetConvolution32fInit,
        SimdSynetConvolution32fSetParams,
        "NCHW: (dst_c, src_c/group, kY, kX); NHWC: (kY, kX, src_c/group, dst_c)");
    convolution32f.def(
        "forward_add", &Convolution32f::ForwardAdd, "src"_a, "add"_a, py::kw_only(),
        "out"_a = py::none(), "buf"_a = py::none(),
        "As forward, with a residual: out = activation(convolution(src) + bias + add), the "
        "sum taken before the activation (a residual block's convolution, Add and ReLU in "
        "one layer). add has dst_shape and must not overlap out.");
    BindLayer32f<Deconvolution32f>(
        m, g_deconvolution32f, SizeRule::Deconvolution,
        "A float32 transposed-convolution context (SimdSynetDeconvolution32f*); NHWC takes "
        "group 1 only; the pads crop the full output.",
        SimdSynetDeconvolution32fInit, SimdSynetDeconvolution32fSetParams,
        "NCHW: (src_c, dst_c/group, kY, kX); NHWC: (src_c, kY, kX, dst_c)");

    py::class_<Deconvolution16b, LayerContext> deconvolution16b(
        m, "Deconvolution16b",
        (std::string("A BF16 transposed-convolution context (SimdSynetDeconvolution16b*): "
                     "inputs and weights rounded to BF16, float32 sums, the output float32 or "
                     "rounded once to BF16. src_type/dst_type: TensorData.FLOAT32 (float32 "
                     "arrays) or BF16 (uint16 arrays). Buffer sizes are in bytes.") +
         g_layerKeywords + " compatibility: kept for the API, no effect.")
            .c_str());
    deconvolution16b.def(
        py::init([](py::object srcC, py::object srcH, py::object srcW, py::object dstC,
                    py::object kernel, py::object stride, py::object dilation, py::object pad,
                    py::object group, py::object activation, py::object format, py::object srcType,
                    py::object dstType, py::object batch, py::object compatibility) {
            SimdConvolutionParameters p =
                Describe(Fields(srcC, srcH, srcW, dstC, kernel, stride, dilation, pad, group,
                                activation, format, srcType, dstType),
                         SizeRule::Deconvolution, "nchw");
            size_t n = ToSize(batch, "batch");
            auto c =
                SimdSynetCompatibilityType(ToEnum(compatibility, g_compatibility, "compatibility"));
            void* handle = Create([&] { return SimdSynetDeconvolution16bInit(n, &p, c); });
            return std::make_unique<Deconvolution16b>(g_deconvolution16b, handle, n,
                                                      std::vector<SimdConvolutionParameters>{p});
        }),
        py::kw_only(), "src_c"_a, "src_h"_a, "src_w"_a, "dst_c"_a, "kernel"_a, "stride"_a = 1,
        "dilation"_a = 1, "pad"_a = 0, "group"_a = 1, "activation"_a = "identity",
        "format"_a = "nchw", "src_type"_a = "float32", "dst_type"_a = "float32", "batch"_a = 1,
        "compatibility"_a = 0);
    deconvolution16b.def(
        "set_params", &Deconvolution16b::SetParams, "weight"_a, "bias"_a = py::none(),
        "params"_a = py::none(),
        "Gives the context its float32 weight (NCHW: (src_c, dst_c/group, kY, kX); NHWC: "
        "(src_c, kY, kX, dst_c)), rounded to BF16, bias (dst_c values or None) and the "
        "activation's parameters (None or as many numbers as it reads).");

    py::class_<MergedConvolution32f, LayerContext> merged(
        m, "MergedConvolution32f",
        "A chain of two or three float32 NHWC convolutions run as one layer "
        "(SimdSynetMergedConvolution32f*): expand (group 1, kernel 1 or 3) -> depthwise "
        "(kernel 3, 5 or 7) -> projection (1x1), or expand -> depthwise, or depthwise -> "
        "projection. convs: one dict per convolution with the keywords of Convolution32f "
        "(format defaults to NHWC; src_c/src_h/src_w of a later convolution default to the "
        "previous one's output). add: with three convolutions, adds the input to the output. "
        "Use it as a context manager or call close() to free it at once.");
    merged.def(
        py::init([](py::sequence convs, py::handle add, py::handle batch) {
            std::vector<SimdConvolutionParameters> p;
            for (size_t i = 0; i < convs.size(); ++i) {
                std::string name = Format("convs[%zu]", i);
                p.push_back(Describe(
                    FieldsFromMapping(convs[i], p.empty() ? nullptr : &p.back(), name.c_str()),
                    SizeRule::Convolution, "nhwc"));
            }
            size_t n = ToSize(batch, "batch");
            SimdBool a = ToBool(add, "add");
            void* handle =
                Create([&] { return SimdSynetMergedConvolution32fInit(n, p.data(), p.size(), a); });
            return std::make_unique<MergedConvolution32f>(g_mergedConvolution32f, handle, n, p);
        }),
        "convs"_a, py::kw_only(), "add"_a = false, "batch"_a = 1);
    merged.def("set_params", &MergedConvolution32f::SetParams, "weights"_a, "biases"_a = py::none(),
               "params"_a = py::none(),
               "Gives every convolution its float32 weight ((kY, kX, src_c/group, dst_c) each; "
               "(kY, kX, 1, C) for the depthwise one), bias (biases: None, or one entry per "
               "convolution, each None or dst_c values) and activation parameters (params: "
               "None, or one entry per convolution, each None or numbers). The context copies "
               "them.");
    // Shown as simdsynet.<name>, the module users import.
    for (const char* name : {"LayerContext", "Convolution32f", "Deconvolution32f",
                             "Deconvolution16b", "MergedConvolution32f"})
        m.attr(name).attr("__module__") = "simdsynet";
    RegisterConvolution8i(m);
}

}  // namespace simdsynet_python
