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
        bench::RegisterWithBaseline(
            "Activation/" + function + "/" + s.name, s.name, 1, n * 4, n * 4,
            [=](benchmark::State& state) {
                bench::Buffer<float> src(n), dst(n);
                for (auto _ : state) {
                    call(src.data(), n, dst.data());
                    benchmark::ClobberMemory();
                }
                bench::SetTraffic(state, 2 * n * sizeof(float));
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
    return 0;
}();

}  // namespace
