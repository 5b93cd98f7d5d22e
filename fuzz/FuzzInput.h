// Pieces every harness of the fuzz target shares: the byte decoder, exactly-sized heap buffers
// (one allocation each, so AddressSanitizer reports any access past them), the description of
// the call under test (printed with every contract violation, and for each call when
// SIMD_SYNET_FUZZ_VERBOSE is set) and the contract checks of the C API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>

namespace fuzz {

// Reads the fuzz input front to back; an exhausted input reads as zero bytes, so every input
// decodes to some call.
class Input {
public:
    Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    uint8_t Byte() {
        if (size_ == 0) return 0;
        --size_;
        return *data_++;
    }
    // A value in [lo, hi] from one byte (two when the range is wider than a byte).
    size_t Range(size_t lo, size_t hi) {
        const size_t span = hi - lo + 1;
        size_t v = Byte();
        if (span > 256) v = v << 8 | Byte();
        return lo + v % span;
    }
    bool Flag() { return Byte() & 1; }
    // True for one byte value in `n`: the rare, usually invalid, choices. Zero bytes (and an
    // exhausted input) choose the common case here and in every decoder.
    bool OneIn(unsigned n) { return Byte() % n == n - 1; }
    uint32_t Seed() { return uint32_t(Byte()) << 8 | Byte(); }

private:
    const uint8_t* data_;
    size_t size_;
};

// Sizes no harness exceeds, so that one execution stays cheap under the sanitizers.
constexpr size_t kMaxElements = size_t(1) << 18;

// n * m, or SIZE_MAX when that overflows.
inline size_t Mul(size_t n, size_t m) {
    size_t r;
    return __builtin_mul_overflow(n, m, &r) ? SIZE_MAX : r;
}
inline size_t Mul(size_t a, size_t b, size_t c) {
    return Mul(Mul(a, b), c);
}
inline size_t Mul(size_t a, size_t b, size_t c, size_t d) {
    return Mul(Mul(a, b, c), d);
}

// The description of the call under test; Describe() fills it before each call.
std::string& Call();
void Describe(const char* format, ...) __attribute__((format(printf, 1, 2)));
bool Verbose();

// Prints the violated rule and the call, then aborts (libFuzzer saves the input).
[[noreturn]] void Fail(const char* format, ...) __attribute__((format(printf, 1, 2)));

// A heap array of exactly `n` elements (malloc(0) for n == 0: any access is reported).
template <class T>
class Buffer {
public:
    explicit Buffer(size_t n) : n_(n) {
        data_ = static_cast<T*>(std::malloc(n * sizeof(T)));
        if (!data_ && n) Fail("out of memory allocating %zu elements", n);
    }
    ~Buffer() { std::free(data_); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    T* data() { return data_; }
    const T* data() const { return data_; }
    size_t size() const { return n_; }
    size_t Bytes() const { return n_ * sizeof(T); }
    T& operator[](size_t i) { return data_[i]; }

private:
    T* data_;
    size_t n_;
};

// Values of the tensors: uniform in [-1, 1] from `seed`, or with `special` also infinities,
// NaNs, zeros of both signs, denormals and large magnitudes.
void FillFloats(float* p, size_t n, uint32_t seed, bool special);
void FillBf16(uint16_t* p, size_t n, uint32_t seed, bool special);
void FillBytes(void* p, size_t bytes, uint32_t seed);
// A recognisable pattern for outputs, so that a rejected call can be checked to write nothing.
void FillPattern(void* p, size_t bytes);
bool HasPattern(const void* p, size_t bytes);
// The bytes [begin, end) of a buffer filled by FillPattern still hold the pattern.
bool HasPatternIn(const void* base, size_t begin, size_t end);

// The error contract after a call that may be rejected: returns true when the call was
// rejected (message set). `outputs` must then be unchanged: equal to `before` when given, else
// still holding FillPattern's pattern.
struct Output {
    const void* data;
    size_t bytes;
    const void* before = nullptr;
};
bool Rejected(std::initializer_list<Output> outputs);
// A call the harness knows to be valid must not be rejected.
void ExpectAccepted();
// A call the harness knows to be invalid must be rejected, writing nothing.
void ExpectRejected(std::initializer_list<Output> outputs);

// Forces one of the Highway targets compiled in and supported by this CPU for the execution.
void ChooseTarget(Input& in);
void ResetTarget();

// The harnesses, one per family; each decodes the rest of the input and runs its calls.
void FuzzConvolution(Input& in);
void FuzzDeconvolution32f(Input& in);
void FuzzDeconvolution16b(Input& in);
void FuzzMergedConvolution(Input& in);
void FuzzPooling(Input& in);
void FuzzWinograd(Input& in);
void FuzzNormalization(Input& in);

}  // namespace fuzz
