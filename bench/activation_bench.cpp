// Benchmarks of the activation family against the copy baseline of the same traffic.
#include <string>

#include "BenchUtil.h"

namespace {

struct Sizes {
    const char* name;
    size_t elements;
};
// L1-resident (16 KiB of input), L2-resident (256 KiB working set: 128 KiB in + 128 KiB out),
// and 4 M elements (beyond L2).
const Sizes kSizes[] = {{"16KiB", 4096}, {"256KiB", 32768}, {"4M", 4u << 20}};

template <class Call>
void RegisterUnary(const std::string& function, Call call) {
    for (const Sizes& s : kSizes) {
        const size_t n = s.elements;
        bench::RegisterWithBaseline("Activation/" + function + "/" + s.name, s.name, 1, n * 4,
                                    n * 4, [=](benchmark::State& state) {
                                        bench::Buffer<float> src(n), dst(n);
                                        for (auto _ : state) {
                                            call(src.data(), n, dst.data());
                                            benchmark::ClobberMemory();
                                        }
                                        bench::SetTraffic(state, 2 * n * sizeof(float));
                                        // Elements per nanosecond: a rate counter divides by the
                                        // elapsed seconds.
                                        state.counters["elements_per_ns"] = benchmark::Counter(
                                            double(state.iterations()) * double(n) * 1e-9,
                                            benchmark::Counter::kIsRate);
                                    });
    }
}

const int kRegistered = [] {
    RegisterUnary("Relu32f", [](const float* s, size_t n, float* d) {
        const float slope = 0.1f;
        SimdSynetRelu32f(s, n, &slope, d);
    });
    RegisterUnary("RestrictRange32f", [](const float* s, size_t n, float* d) {
        const float lo = -1.0f, hi = 6.0f;
        SimdSynetRestrictRange32f(s, n, &lo, &hi, d);
    });
    RegisterUnary("Hswish32f", [](const float* s, size_t n, float* d) {
        const float shift = 3.0f, scale = 1.0f / 6.0f;
        SimdSynetHswish32f(s, n, &shift, &scale, d);
    });
    RegisterUnary("Elu32f", [](const float* s, size_t n, float* d) {
        const float alpha = 1.0f;
        SimdSynetElu32f(s, n, &alpha, d);
    });
    RegisterUnary("Sigmoid32f", [](const float* s, size_t n, float* d) {
        const float slope = 1.0f;
        SimdSynetSigmoid32f(s, n, &slope, d);
    });
    RegisterUnary("Softplus32f", [](const float* s, size_t n, float* d) {
        const float beta = 1.0f, threshold = 20.0f;
        SimdSynetSoftplus32f(s, n, &beta, &threshold, d);
    });
    RegisterUnary("Tanh32f", [](const float* s, size_t n, float* d) {
        const float slope = 1.0f;
        SimdSynetTanh32f(s, n, &slope, d);
    });
    RegisterUnary("Gelu32f",
                  [](const float* s, size_t n, float* d) { SimdSynetGelu32f(s, n, SimdFalse, d); });
    RegisterUnary("GeluTanh32f",
                  [](const float* s, size_t n, float* d) { SimdSynetGelu32f(s, n, SimdTrue, d); });
    const struct {
        const char* name;
        SimdSynetUnaryOperation32fType type;
    } kUnary[] = {
        {"Abs", SimdSynetUnaryOperation32fAbs},     {"Exp", SimdSynetUnaryOperation32fExp},
        {"Log", SimdSynetUnaryOperation32fLog},     {"Neg", SimdSynetUnaryOperation32fNeg},
        {"Rsqrt", SimdSynetUnaryOperation32fRsqrt}, {"Sqrt", SimdSynetUnaryOperation32fSqrt},
        {"Tanh", SimdSynetUnaryOperation32fTanh},   {"Zero", SimdSynetUnaryOperation32fZero}};
    for (const auto& u : kUnary) {
        const SimdSynetUnaryOperation32fType type = u.type;
        RegisterUnary(std::string("UnaryOperation32f") + u.name,
                      [type](const float* s, size_t n, float* d) {
                          SimdSynetUnaryOperation32fLayerForward(s, n, type, d);
                      });
    }
    return 0;
}();

}  // namespace
