// Benchmarks of SimdSynetSoftmaxLayerForward against the copy baseline of the same traffic
// (one read and one write of the array).
#include <string>

#include "BenchUtil.h"

namespace {

struct Shape {
    const char* name;
    size_t outer, count, inner;
};
// One row of 1000 classes (latency of a classifier head), many short rows (e.g. 21 classes
// per box of a detector), a short softmax across channels of a 56x56 map, and a long row.
const Shape kShapes[] = {{"1x1000x1", 1, 1000, 1},
                         {"256x21x1", 256, 21, 1},
                         {"1x21x3136", 1, 21, 56 * 56},
                         {"1x100000x1", 1, 100000, 1}};

const int kRegistered = [] {
    for (const Shape& s : kShapes) {
        const size_t n = s.outer * s.count * s.inner;
        const Shape shape = s;
        bench::RegisterWithBaseline(
            std::string("Softmax/SoftmaxLayerForward/") + s.name, s.name, 1, n * 4, n * 4,
            [=](benchmark::State& state) {
                bench::Buffer<float> src(n), dst(n);
                for (auto _ : state) {
                    SimdSynetSoftmaxLayerForward(src.data(), shape.outer, shape.count, shape.inner,
                                                 dst.data());
                    benchmark::ClobberMemory();
                }
                bench::SetTraffic(state, 2 * n * sizeof(float));
                state.counters["elements_per_ns"] = benchmark::Counter(
                    double(state.iterations()) * double(n) * 1e-9, benchmark::Counter::kIsRate);
            });
    }
    return 0;
}();

}  // namespace
