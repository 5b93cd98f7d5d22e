/* The public header compiled as C: types, enums and a call. */
#include <stdio.h>

#include "SimdSynet.h"

int main(void) {
    float data[3] = {-1.0f, 0.5f, 2.0f};
    const float lower = 0.0f, upper = 1.0f;
    SimdSynetRestrictRange32f(data, 3, &lower, &upper, data);
    if (data[0] != 0.0f || data[1] != 0.5f || data[2] != 1.0f) return 1;
    if (SimdSynetTensorAlignment(SimdTensorFormatNchw8c) != 8) return 2;
    printf("C consumer: ok\n");
    return 0;
}
