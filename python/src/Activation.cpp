// Activation functions and unary operations (SUPPLEMENT.md §3, §4.10): element-wise over a
// float32 array of any shape; out may be src itself.
#include "Common.h"

namespace simdsynet_python {

namespace {

// src (any shape, float32, C order) -> out of the same shape; `call(src, size, dst)` runs the
// C function.
template <class Call>
py::array Elementwise(py::handle src, py::handle out, Call call) {
    py::array s = Input<float>(src, "src");
    py::array d = Output<float>(out, "out", ShapeOf(s));
    CheckDisjointOrSame(d, "out", s, "src");
    const float* sp = Data<float>(s);
    float* dp = MutableData<float>(d);
    size_t size = size_t(s.size());
    Run([&] { call(sp, size, dp); });
    return d;
}

}  // namespace

void RegisterActivations(py::module_& m) {
    m.def(
        "relu32f",
        [](py::handle src, float slope, py::handle out) {
            return Elementwise(src, out, [&](const float* s, size_t n, float* d) {
                SimdSynetRelu32f(s, n, &slope, d);
            });
        },
        "src"_a, "slope"_a = 0.0f, py::kw_only(), "out"_a = py::none(),
        "Leaky ReLU, max(0, x) + slope*min(x, 0) (SimdSynetRelu32f). out may be src.");
    m.def(
        "restrict_range32f",
        [](py::handle src, float lower, float upper, py::handle out) {
            return Elementwise(src, out, [&](const float* s, size_t n, float* d) {
                SimdSynetRestrictRange32f(s, n, &lower, &upper, d);
            });
        },
        "src"_a, "lower"_a, "upper"_a, py::kw_only(), "out"_a = py::none(),
        "Clamp, max(lower, min(upper, x)); lower > upper is an error "
        "(SimdSynetRestrictRange32f). out may be src.");
    m.def(
        "hswish32f",
        [](py::handle src, float shift, float scale, py::handle out) {
            return Elementwise(src, out, [&](const float* s, size_t n, float* d) {
                SimdSynetHswish32f(s, n, &shift, &scale, d);
            });
        },
        "src"_a, "shift"_a = 3.0f, "scale"_a = 1.0f / 6.0f, py::kw_only(), "out"_a = py::none(),
        "Hard swish, (max(min(x, shift) + shift, 0)*scale)*x (SimdSynetHswish32f). out may be "
        "src.");
    m.def(
        "elu32f",
        [](py::handle src, float alpha, py::handle out) {
            return Elementwise(src, out, [&](const float* s, size_t n, float* d) {
                SimdSynetElu32f(s, n, &alpha, d);
            });
        },
        "src"_a, "alpha"_a = 1.0f, py::kw_only(), "out"_a = py::none(),
        "ELU, x >= 0 ? x : alpha*(exp(x) - 1) (SimdSynetElu32f). out may be src.");
    m.def(
        "sigmoid32f",
        [](py::handle src, float slope, py::handle out) {
            return Elementwise(src, out, [&](const float* s, size_t n, float* d) {
                SimdSynetSigmoid32f(s, n, &slope, d);
            });
        },
        "src"_a, "slope"_a = 1.0f, py::kw_only(), "out"_a = py::none(),
        "Logistic sigmoid, 1/(1 + exp(-x*slope)) (SimdSynetSigmoid32f). out may be src.");
    m.def(
        "softplus32f",
        [](py::handle src, float beta, float threshold, py::handle out) {
            return Elementwise(src, out, [&](const float* s, size_t n, float* d) {
                SimdSynetSoftplus32f(s, n, &beta, &threshold, d);
            });
        },
        "src"_a, "beta"_a = 1.0f, "threshold"_a = 20.0f, py::kw_only(), "out"_a = py::none(),
        "Softplus, x > threshold ? x : log(1 + exp(x*beta))/beta; beta == 0 is an error "
        "(SimdSynetSoftplus32f). out may be src.");
    m.def(
        "tanh32f",
        [](py::handle src, float slope, py::handle out) {
            return Elementwise(src, out, [&](const float* s, size_t n, float* d) {
                SimdSynetTanh32f(s, n, &slope, d);
            });
        },
        "src"_a, "slope"_a = 1.0f, py::kw_only(), "out"_a = py::none(),
        "tanh(x*slope) (SimdSynetTanh32f). out may be src.");
    m.def(
        "gelu32f",
        [](py::handle src, bool approximate, py::handle out) {
            return Elementwise(src, out, [&](const float* s, size_t n, float* d) {
                SimdSynetGelu32f(s, n, approximate ? SimdTrue : SimdFalse, d);
            });
        },
        "src"_a, "approximate"_a = false, py::kw_only(), "out"_a = py::none(),
        "GELU, x*(1 + erf(x/sqrt(2)))/2, or with approximate its tanh form "
        "x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3)))/2 (SimdSynetGelu32f). out may be src.");
    m.def(
        "unary_operation32f_layer_forward",
        [](py::handle src, py::handle type, py::handle out) {
            auto t = SimdSynetUnaryOperation32fType(ToEnum(type, g_unaryOperation, "type"));
            return Elementwise(src, out, [&](const float* s, size_t n, float* d) {
                SimdSynetUnaryOperation32fLayerForward(s, n, t, d);
            });
        },
        "src"_a, "type"_a, py::kw_only(), "out"_a = py::none(),
        "Element-wise ABS, EXP, LOG, NEG, RSQRT, SQRT, TANH or ZERO "
        "(SimdSynetUnaryOperation32fLayerForward; type: UnaryOperation). out may be src.");
}

}  // namespace simdsynet_python
