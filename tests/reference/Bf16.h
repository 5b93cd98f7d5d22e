// ABI.md "BF16" conversions for the references: FP32 -> BF16 rounds to nearest even (add
// 0x7FFF + ((bits >> 16) & 1) to the pattern, keep the upper 16 bits) and keeps a NaN a NaN (its
// upper half with the quiet bit); BF16 -> FP32 is exact (the 16 bits become the upper half).
#pragma once

#include <cstdint>
#include <cstring>

namespace ref {

inline float Bf16ToFloat(uint16_t v) {
    const uint32_t bits = uint32_t(v) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

inline uint16_t FloatToBf16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t((bits >> 16) | 0x40u);
    return uint16_t((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

// f rounded to the nearest BF16 value, as FP32.
inline float RoundBf16(float f) {
    return Bf16ToFloat(FloatToBf16(f));
}

}  // namespace ref
