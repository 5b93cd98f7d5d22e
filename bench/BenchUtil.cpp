#include "BenchUtil.h"

#include <cstring>
#include <memory>
#include <vector>

#include "hwy/highway.h"

namespace bench {
namespace hn = hwy::HWY_NAMESPACE;

// Static dispatch is enough here: the bench binary is built for this machine's baseline and
// the baseline's speed only has to be a fair streaming loop, which memcpy is for 1:1 traffic.
void CopyMix(const uint8_t* const* inputs, size_t count, size_t readBytesEach, uint8_t* output,
             size_t writeBytes) {
    if (count == 1 && readBytesEach == writeBytes) {
        std::memcpy(output, inputs[0], writeBytes);
        return;
    }
    // Unequal mixes: every output byte comes from one input byte (OR of the inputs), reading
    // the inputs at readBytesEach/writeBytes of the output's pace.
    const hn::ScalableTag<uint8_t> d;
    const size_t L = hn::Lanes(d);
    if (readBytesEach >= writeBytes) {
        const size_t ratio = readBytesEach / writeBytes;  // 1 or 4: read ratio vectors, write 1
        for (size_t o = 0, i = 0; o + L <= writeBytes; o += L, i += ratio * L) {
            auto v = hn::LoadU(d, inputs[0] + i);
            for (size_t r = 1; r < ratio; ++r) v = hn::Or(v, hn::LoadU(d, inputs[0] + i + r * L));
            for (size_t k = 1; k < count; ++k)
                for (size_t r = 0; r < ratio; ++r) v = hn::Or(v, hn::LoadU(d, inputs[k] + i + r * L));
            hn::StoreU(v, d, output + o);
        }
    } else {
        const size_t ratio = writeBytes / readBytesEach;  // read 1 vector, write ratio vectors
        for (size_t i = 0, o = 0; i + L <= readBytesEach; i += L, o += ratio * L) {
            auto v = hn::LoadU(d, inputs[0] + i);
            for (size_t k = 1; k < count; ++k) v = hn::Or(v, hn::LoadU(d, inputs[k] + i));
            for (size_t r = 0; r < ratio; ++r) hn::StoreU(v, d, output + o + r * L);
        }
    }
}

void SetTraffic(benchmark::State& state, size_t bytesPerCall) {
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytesPerCall));
    state.counters["bytes"] = double(bytesPerCall);
}

void RegisterWithBaseline(const std::string& name, const std::string& caseName, size_t inputs,
                          size_t readBytesEach, size_t writeBytes,
                          std::function<void(benchmark::State&)> body) {
    const std::string mix = std::to_string(inputs) + "x" + std::to_string(readBytesEach) + "to" +
                            std::to_string(writeBytes);
    const std::string copyName = "Copy/" + mix + "/" + caseName;
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
        for (auto _ : state) {
            CopyMix(ptrs.data(), inputs, readBytesEach, out.data(), writeBytes);
            benchmark::ClobberMemory();
        }
        SetTraffic(state, inputs * readBytesEach + writeBytes);
    })->Unit(benchmark::kMicrosecond);
}

}  // namespace bench
