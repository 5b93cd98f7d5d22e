// The loader of network files (runtime/schema/SimdSynetNetwork.fbs): verifies the buffer and
// builds the executor of its plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "Executor.h"

namespace simdsynet_executor {

struct LoadLimits {
    // The most floats of activations a plan may ask for (the arena); a file asking for more is
    // refused before anything is allocated. The fuzzer lowers it.
    size_t maxArenaFloats = size_t(1) << 34;
};

// Builds the executor of the network file in `data` (`size` bytes). The buffer is untrusted:
// the FlatBuffers verifier checks the container, then every count, offset, size and
// enumerator is checked before use, and anything wrong throws ExecutorError naming the step
// and field. Constants that are 64-byte aligned in the buffer are read in place, so the buffer
// must outlive the executor and stay unchanged; others are copied.
std::unique_ptr<Executor> LoadNetwork(const uint8_t* data, size_t size,
                                      const LoadLimits& limits = LoadLimits());

}  // namespace simdsynet_executor
