// The library's one direct CPU-feature check, beside Highway's target choice.
//
// Why it exists: Highway 1.0.3 reaches none of these instructions. It has no target for
// AVX-512 VNNI that is safe to compile (its AVX3_DL target is built with the VEX `avxvnni`
// flag, so GCC emits VEX VPDPBUSD, an illegal instruction on Zen 4, which has only the EVEX
// form) and no operation for VPDPBUSD at all; nor anything for the AMX tiles. Kernels that use
// them are compiled inside the AVX3 target (or, for AMX, as plain x86 functions) with a
// function-level target attribute, and are chosen at Init only when these checks say the CPU
// (and, for AMX, the operating system) runs them. Nothing else may detect CPU features.
#pragma once

namespace simd {

// True when the CPU executes EVEX AVX512_VNNI instructions (CPUID leaf 7, ECX bit 11) and the
// environment variable SIMD_SYNET_VNNI is not "0". The variable is read on every call, so a test
// can force the plain AVX-512 kernels of a context it creates next; callers ask only after
// Highway chose its AVX3 target, which already implies that the OS saves the ZMM state. Always
// false outside x86.
bool CpuHasAvx512Vnni();

// True when the CPU has AMX tiles with BF16 dot products (CPUID leaf 7, EDX bits 24 and 22),
// Linux granted this process the tile data state (arch_prctl ARCH_REQ_XCOMP_PERM, asked once;
// without it the first tile instruction faults), and the environment variable SIMD_SYNET_AMX is
// not "0" (read on every call, as SIMD_SYNET_VNNI). Always false outside x86-64 Linux.
bool CpuHasAmxBf16();

}  // namespace simd
