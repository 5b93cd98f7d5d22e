// libFuzzer target of the network loader (fuzz/README.md): the input is a network file (.ssn).
// The loader must refuse it with a message or build an executor that runs; anything else (a
// crash, a sanitizer report, an exception other than ExecutorError, an empty message) is a
// finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "Loader.h"
#include "NetworkFiles.h"
#include "SimdSynet.h"

using namespace simdsynet_executor;

namespace {

void Check(const ExecutorError& e, const char* when) {
    if (e.what()[0] != '\0') return;
    std::fprintf(stderr, "\n==== simd-synet loader fuzz: an empty message %s\n", when);
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // 64-byte aligned like the C API's copy, so aligned constants are read in place as there.
    uint8_t* bytes = static_cast<uint8_t*>(SimdAllocate(size ? size : 1, 64));
    if (bytes == nullptr) return 0;
    if (size) std::memcpy(bytes, data, size);
    // 4096 floats of arena: every product of the sizes a step reads and writes is bounded by
    // the arena or by the constants (the input), so an accepted file runs in milliseconds even
    // uninstrumented-slow, and a flipped arena size never allocates gigabytes.
    LoadLimits limits;
    limits.maxArenaFloats = 4096;
    std::unique_ptr<Executor> executor;
    try {
        executor = LoadNetwork(bytes, size, limits);
    } catch (const ExecutorError& e) {
        Check(e, "at load");
    }
    if (executor) {
        try {
            netfile::RunOnZeroInputs(*executor);
        } catch (const ExecutorError& e) {
            Check(e, "at run");
        }
        SimdSynetSetLastError(nullptr);
    }
    executor.reset();
    SimdFree(bytes);
    return 0;
}
