#include "BenchUtil.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace bench {

void SetTraffic(benchmark::State& state, size_t bytesPerCall) {
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytesPerCall));
    state.counters["bytes"] = double(bytesPerCall);
}

void RegisterWithBaseline(const std::string& name, const std::string& caseName, size_t inputs,
                          size_t readBytesEach, size_t writeBytes,
                          std::function<void(benchmark::State&)> body) {
    const std::string mix = std::to_string(inputs) + "x" + std::to_string(readBytesEach) + "to" +
                            std::to_string(writeBytes);
    // L1-resident float streams are measured against a load -> multiply-add -> store loop (on
    // current cores that mix tops out well below a copy in L1); everything else against copy.
    const bool l1 = inputs * readBytesEach + writeBytes <= kL1Bytes &&
                    readBytesEach == writeBytes && writeBytes % (16 * sizeof(float)) == 0;
    const std::string copyName = (l1 ? "MulAddLoop/" : "Copy/") + mix + "/" + caseName;
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        body(state);
        state.SetLabel("vs " + copyName);
    })->Unit(benchmark::kMicrosecond);
    // One baseline per distinct traffic shape and case is enough.
    static std::vector<std::string> registered;
    for (const auto& r : registered)
        if (r == copyName) return;
    registered.push_back(copyName);
    benchmark::RegisterBenchmark(copyName.c_str(), [=](benchmark::State& state) {
        std::vector<std::unique_ptr<Buffer<uint8_t>>> in;
        std::vector<const uint8_t*> ptrs;
        for (size_t k = 0; k < inputs; ++k) {
            in.emplace_back(new Buffer<uint8_t>(readBytesEach));
            ptrs.push_back(in.back()->data());
        }
        Buffer<uint8_t> out(writeBytes);
        // The multiply-add loop gets float inputs of ordinary magnitude: bytes read as floats
        // are mostly subnormal, which Intel cores handle in microcode assists (the baseline
        // then ran about 20x slower there, while Zen cores did not care).
        std::vector<std::unique_ptr<Buffer<float>>> floatIn;
        std::vector<const float*> floats;
        for (size_t k = 0; l1 && k < inputs; ++k) {
            floatIn.emplace_back(new Buffer<float>(readBytesEach / sizeof(float)));
            floats.push_back(floatIn.back()->data());
        }
        for (auto _ : state) {
            if (l1)
                MulAddMix(floats.data(), inputs, writeBytes / sizeof(float),
                          reinterpret_cast<float*>(out.data()));
            else
                CopyMix(ptrs.data(), inputs, readBytesEach, out.data(), writeBytes);
            benchmark::ClobberMemory();
        }
        SetTraffic(state, inputs * readBytesEach + writeBytes);
    })->Unit(benchmark::kMicrosecond);
}

}  // namespace bench
