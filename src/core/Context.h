// Base of every object an ...Init function returns, so that SimdRelease can destroy any of them.
#pragma once

namespace simd {

class Context {
public:
    virtual ~Context() = default;
};

}  // namespace simd
