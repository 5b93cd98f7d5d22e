// libFuzzer entry point of the simd-synet fuzz target (fuzz/README.md): the first byte picks
// the Highway target, the second the family; the harness decodes the rest.
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "FuzzInput.h"
#include "SimdSynet.h"
#include "hwy/targets.h"

namespace fuzz {

std::string& Call() {
    static std::string call;
    return call;
}

bool Verbose() {
    static const bool verbose = std::getenv("SIMD_SYNET_FUZZ_VERBOSE") != nullptr;
    return verbose;
}

void Describe(const char* format, ...) {
    char text[1024];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    Call() = text;
    if (Verbose()) std::fprintf(stderr, "fuzz call: %s\n", text);
}

void Fail(const char* format, ...) {
    char text[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    std::fprintf(
        stderr, "\n==== simd-synet fuzz: contract violated: %s\n==== target %s, call: %s\n", text,
        hwy::TargetName(hwy::SupportedTargets() & -hwy::SupportedTargets()), Call().c_str());
    const char* error = SimdSynetGetLastError();
    std::fprintf(stderr, "==== SimdSynetGetLastError: %s\n", error ? error : "(NULL)");
    std::abort();
}

void FillFloats(float* p, size_t n, uint32_t seed, bool special) {
    static const float kSpecial[] = {0.0f,
                                     -0.0f,
                                     std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(),
                                     std::numeric_limits<float>::quiet_NaN(),
                                     std::numeric_limits<float>::denorm_min(),
                                     std::numeric_limits<float>::max(),
                                     -std::numeric_limits<float>::max(),
                                     1e30f,
                                     -1e-30f};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t i = 0; i < n; ++i)
        p[i] = special && rng() % 8 == 0 ? kSpecial[rng() % (sizeof(kSpecial) / sizeof(float))]
                                         : dist(rng);
}

void FillBf16(uint16_t* p, size_t n, uint32_t seed, bool special) {
    std::vector<float> f(n);
    FillFloats(f.data(), n, seed, special);
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &f[i], 4);
        p[i] = uint16_t(bits >> 16);  // truncation: any BF16 value will do
    }
}

void FillBytes(void* p, size_t bytes, uint32_t seed) {
    std::mt19937 rng(seed);
    for (size_t i = 0; i < bytes; ++i) static_cast<uint8_t*>(p)[i] = uint8_t(rng());
}

// A byte sequence no kernel produces by accident (a NaN pattern for floats, odd for BF16).
static uint8_t PatternByte(size_t i) {
    return uint8_t(0xA7 ^ (i * 0x3B));
}

void FillPattern(void* p, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i) static_cast<uint8_t*>(p)[i] = PatternByte(i);
}

bool HasPattern(const void* p, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i)
        if (static_cast<const uint8_t*>(p)[i] != PatternByte(i)) return false;
    return true;
}

bool HasPatternIn(const void* base, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
        if (static_cast<const uint8_t*>(base)[i] != PatternByte(i)) return false;
    return true;
}

bool Rejected(std::initializer_list<Output> outputs) {
    const char* error = SimdSynetGetLastError();
    if (error == nullptr) return false;
    if (error[0] == '\0') Fail("the error message is empty");
    for (const Output& o : outputs)
        if (o.data &&
            (o.before ? std::memcmp(o.data, o.before, o.bytes) != 0 : !HasPattern(o.data, o.bytes)))
            Fail("a rejected call wrote to its output (%zu bytes)", o.bytes);
    return true;
}

void ExpectAccepted() {
    if (SimdSynetGetLastError() != nullptr) Fail("a valid call was rejected");
}

void ExpectRejected(std::initializer_list<Output> outputs) {
    if (!Rejected(outputs)) Fail("an invalid call was accepted");
}

void ChooseTarget(Input& in) {
    const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
    hwy::SetSupportedTargetsForTest(targets[in.Byte() % targets.size()]);
}

void ResetTarget() {
    hwy::SetSupportedTargetsForTest(0);
}

}  // namespace fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::Input in(data, size);
    fuzz::ChooseTarget(in);
    switch (in.Byte() % 7) {
        case 0:
            fuzz::FuzzConvolution(in);
            break;
        case 1:
            fuzz::FuzzDeconvolution32f(in);
            break;
        case 2:
            fuzz::FuzzDeconvolution16b(in);
            break;
        case 3:
            fuzz::FuzzMergedConvolution(in);
            break;
        case 4:
            fuzz::FuzzPooling(in);
            break;
        case 5:
            fuzz::FuzzWinograd(in);
            break;
        default:
            fuzz::FuzzNormalization(in);
            break;
    }
    fuzz::ResetTarget();
    SimdSetThreadNumber(1);
    return 0;
}
