// simdsynet.Convolution8i: the INT8 convolution context (SimdSynetConvolution8i*, SUPPLEMENT.md
// §11). Its set_params takes the quantization statistics besides the FP32 parameters; sizes are
// in bytes; the rest is LayerContext.
#include <memory>

#include "Contexts.h"

namespace simdsynet_python {

namespace {

const ContextApi g_convolution8i{"Convolution8i",
                                 SimdSynetConvolution8iExternalBufferSize,
                                 SimdSynetConvolution8iInternalBufferSize,
                                 SimdSynetConvolution8iInfo,
                                 ForwardBytes<SimdSynetConvolution8iForward>,
                                 true,
                                 true};

class Convolution8i : public LayerContext {
public:
    using LayerContext::LayerContext;

    // stats: (src_min, src_max, dst_min, dst_max), src_c or dst_c numbers each; the dst entries
    // may be None (NULL: the library reads them only for a uint8 output and says so).
    void SetParams(py::handle weight, py::handle bias, py::handle params, py::handle stats) {
        const SimdConvolutionParameters& p = convs_[0];
        LayerParams l(p, SizeRule::Convolution, weight, bias, params);
        if (!py::isinstance<py::sequence>(stats) || py::isinstance<py::str>(stats) ||
            py::len(stats) != 4)
            throw py::type_error(
                "stats must be a sequence of 4 entries: src_min, src_max (src_c values each), "
                "dst_min, dst_max (dst_c values each, or None for a float32 output)");
        auto entries = py::reinterpret_borrow<py::sequence>(stats);
        std::vector<py::array_t<float>> arrays;
        const float* pointers[4] = {};
        for (size_t i = 0; i < 4; ++i) {
            py::object entry = entries[i];
            if (entry.is_none()) continue;
            arrays.push_back(
                Floats(entry, Format("stats[%zu]", i).c_str(), i < 2 ? p.srcC : p.dstC));
            pointers[i] = arrays.back().data();
        }
        // The library copies and quantizes everything: nothing stays borrowed.
        Locked(false, [&](void* h) {
            SimdSynetConvolution8iSetParams(h, l.Weight(), l.Bias(), l.Params(), pointers);
        });
        borrowed_.clear();
    }
};

}  // namespace

void RegisterConvolution8i(py::module_& m) {
    py::class_<Convolution8i, LayerContext> c(
        m, g_convolution8i.name,
        (std::string(
             "An INT8 convolution context (SimdSynetConvolution8i*, SUPPLEMENT.md 11): the input "
             "quantized to UINT8 per channel, the weights to INT8 per output channel, INT32 sums, "
             "then FP32 dequantization, bias and activation. src_type/dst_type: "
             "TensorData.FLOAT32 (float32 arrays) or UINT8 (uint8 arrays already in, or "
             "returned in, the quantized representation of the statistics given to "
             "set_params). Buffer sizes are in bytes.") +
         g_layerKeywords +
         " compatibility: Compatibility.INT8_NARROWED (UINT8 in [0, 180], INT8 in [-90, 90]), "
         "INT8_OVERFLOW (pairs of products saturated to int16, the PMADDUBSW rule) or 0 (exact "
         "sums, the default).")
            .c_str());
    c.def(
        py::init([](py::object srcC, py::object srcH, py::object srcW, py::object dstC,
                    py::object kernel, py::object stride, py::object dilation, py::object pad,
                    py::object group, py::object activation, py::object format, py::object srcType,
                    py::object dstType, py::object batch, py::object compatibility) {
            SimdConvolutionParameters p =
                Describe(Fields(srcC, srcH, srcW, dstC, kernel, stride, dilation, pad, group,
                                activation, format, srcType, dstType),
                         SizeRule::Convolution, "nchw");
            size_t n = ToSize(batch, "batch");
            auto mode =
                SimdSynetCompatibilityType(ToEnum(compatibility, g_compatibility, "compatibility"));
            void* handle = Create([&] { return SimdSynetConvolution8iInit(n, &p, mode); });
            return std::make_unique<Convolution8i>(g_convolution8i, handle, n,
                                                   std::vector<SimdConvolutionParameters>{p});
        }),
        py::kw_only(), "src_c"_a, "src_h"_a, "src_w"_a, "dst_c"_a, "kernel"_a, "stride"_a = 1,
        "dilation"_a = 1, "pad"_a = 0, "group"_a = 1, "activation"_a = "identity",
        "format"_a = "nchw", "src_type"_a = "float32", "dst_type"_a = "float32", "batch"_a = 1,
        "compatibility"_a = 0);
    c.def("set_params", &Convolution8i::SetParams, "weight"_a, "bias"_a = py::none(),
          "params"_a = py::none(), py::kw_only(), "stats"_a,
          "Quantizes the layer: its float32 weight (NCHW: (dst_c, src_c/group, kY, kX); NHWC: "
          "(kY, kX, src_c/group, dst_c)), bias (dst_c values or None), the activation's "
          "parameters (None or as many numbers as it reads) and stats = (src_min, src_max, "
          "dst_min, dst_max): the minimum and maximum of every input channel (src_c values "
          "each, needed whatever src_type is: they scale the weights) and of every output "
          "channel (dst_c values each; None allowed for a float32 output). A tensor is "
          "quantized as signed (zero point 128, or 90 narrowed) when any minimum is negative, "
          "with the step max(|min|, |max|) / 127 (255 unsigned) per channel. The context "
          "copies everything.");
    m.attr(g_convolution8i.name).attr("__module__") = "simdsynet";
}

}  // namespace simdsynet_python
