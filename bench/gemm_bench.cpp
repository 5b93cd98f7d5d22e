// Benchmarks of the GEMM family against this machine's single-core FMA peak (bench/FmaPeak.cpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "BenchUtil.h"

namespace bench {

namespace {

using GemmFunction = void (*)(size_t, size_t, size_t, const float*, const float*, size_t,
                              const float*, size_t, const float*, float*, size_t);

void RegisterGemm(const std::string& function, GemmFunction gemm, bool transB, size_t M, size_t N,
                  size_t K) {
    const std::string shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
    benchmark::RegisterBenchmark(("Gemm/" + function + "/" + shape).c_str(), [=](benchmark::State&
                                                                                     state) {
        Buffer<float> A(M * K), B(K * N), C(M * N);
        const float alpha = 1.0f, beta = 0.0f;
        const auto start = std::chrono::steady_clock::now();
        for (auto _ : state) {
            gemm(M, N, K, &alpha, A.data(), K, B.data(), transB ? K : N, &beta, C.data(), N);
            benchmark::ClobberMemory();
        }
        // Wall time of the loop, as for the peak (the library's own time is set only after
        // this function returns).
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        SetTraffic(state, (M * K + K * N + M * N) * sizeof(float));
        // 2*M*N*K FLOP per call against the peak of the same target, measured in-process.
        const double flops = 2.0 * double(M) * double(N) * double(K);
        const double gflops = double(state.iterations()) * flops * 1e-9 / std::max(1e-12, seconds);
        const double peak = FmaPeakGflops();
        state.counters["GFLOPS"] = gflops;
        state.counters["peak_GFLOPS"] = peak;
        state.counters["pct_of_peak"] = 100.0 * gflops / peak;
        char label[64];
        std::snprintf(label, sizeof(label), "%.1f%% of FMA peak", 100.0 * gflops / peak);
        state.SetLabel(label);
    })->Unit(benchmark::kMillisecond);
}

// The FMA peak itself, as a benchmark so that it appears in the report next to the products.
void RegisterPeak() {
    benchmark::RegisterBenchmark("Gemm/FmaPeak/registers", [](benchmark::State& state) {
        float sink = 0.0f;
        double flops = 0.0;
        for (auto _ : state) flops += FmaPeakRun(size_t(1) << 16, &sink);
        benchmark::DoNotOptimize(sink);
        state.counters["GFLOPS"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsRate);
    });
}

const int kRegistered = [] {
    RegisterPeak();
    RegisterGemm("Gemm32fNN", SimdGemm32fNN, false, 1024, 1024, 1024);
    RegisterGemm("Gemm32fNT", SimdGemm32fNT, true, 1024, 1024, 1024);
    const struct {
        size_t M, N, K;
    } kConvShapes[] = {{3136, 64, 576}, {3136, 256, 64}, {196, 256, 2304}};
    for (const auto& s : kConvShapes) {
        RegisterGemm("Gemm32fNN", SimdGemm32fNN, false, s.M, s.N, s.K);
        RegisterGemm("Gemm32fNT", SimdGemm32fNT, true, s.M, s.N, s.K);
    }
    return 0;
}();

}  // namespace
}  // namespace bench
