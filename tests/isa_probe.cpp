// Prints the instruction set the library chose; used by core_test to check SIMD_SYNET_MAX_ISA.
#include <cstdio>

#include "SimdSynet.h"

int main() {
    std::printf("%s\n", SimdSynetIsa());
    return 0;
}
