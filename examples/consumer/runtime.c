/* The runtime's C header from C, linked through pkg-config (simdsynet-runtime.pc): a missing
 * file gives NULL and a message naming it; releasing NULL is a no-op. */
#include <stdio.h>
#include <string.h>

#include "SimdSynetRuntime.h"

int main(void) {
    SimdSynetNetworkOptions options = {2};
    SimdSynetNetwork* network = SimdSynetNetworkLoad("missing.ssn", &options);
    const char* error = SimdSynetGetLastError();
    if (network != NULL || error == NULL || strstr(error, "missing.ssn") == NULL) return 1;
    SimdSynetNetworkRelease(NULL);
    if (SimdSynetGetLastError() != NULL) return 2;
    if (SimdSynetNetworkInputCount(NULL) != 0 || SimdSynetGetLastError() == NULL) return 3;
    printf("simd-synet runtime from C: ok (format version %d)\n",
           SIMD_SYNET_NETWORK_FORMAT_VERSION);
    return 0;
}
