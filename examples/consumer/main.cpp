// Uses the installed library the way an inference engine would: ReLU, then reads the last error.
#include <cstdio>

#include "SimdSynet.h"

int main() {
    float data[5] = {-2.0f, -0.5f, 0.0f, 1.5f, 3.0f};
    const float slope = 0.5f;
    SimdSynetRelu32f(data, 5, &slope, data);
    if (SimdSynetGetLastError() != nullptr) return 1;
    const float expected[5] = {-1.0f, -0.25f, 0.0f, 1.5f, 3.0f};
    for (int i = 0; i < 5; ++i)
        if (data[i] != expected[i]) return 2;
    SimdSynetRelu32f(nullptr, 5, &slope, data);
    if (SimdSynetGetLastError() == nullptr) return 3;
    std::printf("simd-synet %s on %s: ok\n", SimdVersion(), SimdSynetIsa());
    return 0;
}
