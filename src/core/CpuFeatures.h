// The library's one direct CPU-feature check, beside Highway's target choice.
//
// Why it exists: Highway 1.0.3 has no target for AVX-512 VNNI that is safe to compile (its
// AVX3_DL target is built with the VEX `avxvnni` flag, so GCC emits VEX VPDPBUSD, an illegal
// instruction on Zen 4, which has only the EVEX form), and no operation for VPDPBUSD at all. The
// INT8 convolution (src/convolution8i/) therefore compiles its VNNI kernels inside the AVX3
// target with a function-level target attribute that adds `avx512vnni`, and chooses them at
// Init only when this check says the CPU has the instruction. Nothing else may call it.
#pragma once

namespace simd {

// True when the CPU executes EVEX AVX512_VNNI instructions (CPUID leaf 7, ECX bit 11) and the
// environment variable SIMD_SYNET_VNNI is not "0". The variable is read on every call, so a test
// can force the plain AVX-512 kernels of a context it creates next; callers ask only after
// Highway chose its AVX3 target, which already implies that the OS saves the ZMM state. Always
// false outside x86.
bool CpuHasAvx512Vnni();

}  // namespace simd
