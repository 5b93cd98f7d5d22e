// One context's Forward called from two user threads at once (users run one network from
// several threads), for the families whose contexts promise that with caller scratch: the
// outputs must have the bits of lone single-thread calls, whatever the library's own thread
// budget (SimdSetThreadNumber) is meanwhile.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

#include "SimdSynet.h"

namespace test {

// forward(input, buf, dst) runs one Forward of input 0 or 1 into dst (dstBytes bytes) with
// caller scratch buf (bufBytes bytes, float-aligned). First each input alone on this thread
// with a budget of 1 thread; then, under budgets 1, 2 and 3, two threads that each own a
// scratch buffer and an output run `repeats` Forward calls of their input at the same time.
// Every concurrent output must equal the lone one bit for bit. Restores the budget to 1.
template <class Forward>
::testing::AssertionResult ConcurrentForwardMatchesLoneCalls(size_t bufBytes, size_t dstBytes,
                                                             const Forward& forward,
                                                             int repeats = 4) {
    // Float storage: the FP32 frameworks read their scratch as floats.
    auto bytes = [](size_t n) {
        return std::vector<float>((n + sizeof(float) - 1) / sizeof(float));
    };
    auto at = [](std::vector<float>& v) { return static_cast<void*>(v.data()); };
    SimdSetThreadNumber(1);
    std::vector<float> lone[2] = {bytes(dstBytes), bytes(dstBytes)};
    {
        std::vector<float> buf = bytes(bufBytes);
        for (int i = 0; i < 2; ++i) forward(i, at(buf), at(lone[i]));
    }
    for (size_t budget : {1, 2, 3}) {
        SimdSetThreadNumber(budget);
        std::vector<float> got[2] = {bytes(dstBytes), bytes(dstBytes)};
        auto work = [&](int i) {
            std::vector<float> buf = bytes(bufBytes);
            for (int r = 0; r < repeats; ++r) forward(i, at(buf), at(got[i]));
        };
        std::thread first(work, 0), second(work, 1);
        first.join();
        second.join();
        for (int i = 0; i < 2; ++i)
            if (std::memcmp(got[i].data(), lone[i].data(), dstBytes) != 0) {
                SimdSetThreadNumber(1);
                return ::testing::AssertionFailure()
                       << "input " << i << ", budget " << budget
                       << " threads: the concurrent output differs from a lone call";
            }
    }
    SimdSetThreadNumber(1);
    if (std::memcmp(lone[0].data(), lone[1].data(), dstBytes) == 0)
        return ::testing::AssertionFailure() << "the two inputs give the same output";
    return ::testing::AssertionSuccess();
}

}  // namespace test
