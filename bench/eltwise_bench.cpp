// Benchmarks of the eltwise family against the copy baselines of the same traffic.
#include <memory>
#include <string>
#include <vector>

#include "BenchUtil.h"

namespace {

struct Sizes {
    const char* name;
    size_t elements;  // per array
};

// Eltwise with k inputs touches k + 1 arrays of n floats; the names give that working set
// for 2 inputs (16 KiB: L1-resident, 256 KiB: L2-resident, 8 MiB: L3-resident, the size of a
// ResNet-50 residual add) or the array length (4M: 16 MiB arrays, 48 MiB or more in all,
// beyond the last-level cache).
const Sizes kSumSizes[] = {{"16KiB", 16 * 1024 / 12 / 16 * 16},
                           {"256KiB", 256 * 1024 / 12 / 16 * 16},
                           {"8MiB", 8 * 1024 * 1024 / 12 / 16 * 16},
                           {"4M", 4u << 20}};
const Sizes kLarge = {"4M", 4u << 20};

const char* TypeName(SimdSynetEltwiseOperationType type) {
    switch (type) {
        case SimdSynetEltwiseOperationProduct:
            return "Product";
        case SimdSynetEltwiseOperationSum:
            return "Sum";
        case SimdSynetEltwiseOperationMax:
            return "Max";
        default:
            return "Min";
    }
}

void RegisterEltwise(SimdSynetEltwiseOperationType type, size_t count, const Sizes& s) {
    const size_t n = s.elements;
    const std::string name =
        std::string("Eltwise/") + TypeName(type) + std::to_string(count) + "/" + s.name;
    bench::RegisterWithBaseline(
        name, s.name, count, n * sizeof(float), n * sizeof(float), [=](benchmark::State& state) {
            std::vector<std::unique_ptr<bench::Buffer<float>>> inputs;
            std::vector<const float*> src;
            for (size_t i = 0; i < count; ++i) {
                inputs.emplace_back(new bench::Buffer<float>(n));
                src.push_back(inputs.back()->data());
            }
            const std::vector<float> weight(count, 0.5f);
            bench::Buffer<float> dst(n);
            for (auto _ : state) {
                SimdSynetEltwiseLayerForward(src.data(), weight.data(), count, n, type, dst.data());
                benchmark::ClobberMemory();
            }
            bench::SetTraffic(state, (count + 1) * n * sizeof(float));
        });
}

// ShuffleNet-v2 stage 2: 116 + 116 channels of 28x28. The baseline is the vector copy loop over
// the same number of bytes (the shuffle is a permuted copy).
void RegisterShuffle(SimdTensorFormatType format, const char* formatName) {
    const size_t channels = 116, spatial = 28 * 28, n = channels * spatial;
    bench::RegisterWithBaseline(
        std::string("Eltwise/Shuffle/") + formatName + "116+116x28x28", "116+116x28x28", 1,
        2 * n * sizeof(float), 2 * n * sizeof(float), [=](benchmark::State& state) {
            bench::Buffer<float> src0(n), src1(n), dst0(n), dst1(n);
            for (auto _ : state) {
                SimdSynetShuffleLayerForward(src0.data(), channels, src1.data(), channels, spatial,
                                             dst0.data(), dst1.data(), channels, format);
                benchmark::ClobberMemory();
            }
            bench::SetTraffic(state, 4 * n * sizeof(float));
        });
}

const int kRegistered = [] {
    for (const Sizes& s : kSumSizes) RegisterEltwise(SimdSynetEltwiseOperationSum, 2, s);
    RegisterEltwise(SimdSynetEltwiseOperationSum, 3, kLarge);
    RegisterEltwise(SimdSynetEltwiseOperationSum, 5, kLarge);
    for (size_t count : {2, 3}) {
        RegisterEltwise(SimdSynetEltwiseOperationProduct, count, kLarge);
        RegisterEltwise(SimdSynetEltwiseOperationMax, count, kLarge);
    }
    RegisterShuffle(SimdTensorFormatNchw, "Nchw");
    RegisterShuffle(SimdTensorFormatNhwc, "Nhwc");
    return 0;
}();

}  // namespace
