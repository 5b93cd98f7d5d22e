// Uses the installed library the way an inference engine would: ReLU, then reads the last error.
#include <cstdio>

#include "SimdSynet.h"
#include "SimdSynet.hpp"

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
    // The C++ helper: a 2x1 BGR image into a 3-channel NCHW tensor mapped to [0, 1].
    Simd::View<Simd::Allocator> image(2, 1, Simd::View<Simd::Allocator>::Bgr24);
    for (size_t i = 0; i < 6; ++i) image.data[i] = static_cast<uint8_t>(i * 51);
    const float lower[3] = {0, 0, 0}, upper[3] = {1, 1, 1};
    float tensor[6];
    Simd::SynetSetInput(image, lower, upper, tensor, 3, SimdTensorFormatNchw);
    if (SimdSynetGetLastError() != nullptr || tensor[0] != 0.0f || tensor[5] != 1.0f) return 4;
    std::printf("simd-synet %s on %s: ok\n", SimdVersion(), SimdSynetIsa());
    return 0;
}
