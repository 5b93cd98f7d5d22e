#!/usr/bin/env bash
# CI: the threading tests under ThreadSanitizer (any report fails the run). A separate build
# (default build-tsan) of the library and of the nine test binaries that hold threading tests;
# the tests run are those whose names contain "Thread": the thread pool's and the per-thread
# last-error slot's (core_test), and, for every family that splits its work over threads
# (GEMM, inner product, convolution FP32 with Winograd and INT8, deconvolution FP32 and BF16,
# merged convolution, pooling, the scale and fused layers), the thread-count tests (bit-identical results for every budget) and the
# shared-context tests (tests/ConcurrentForward.h: two user threads calling Forward of one
# context, library budgets 1-3). Usage: bash scripts/tsan.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-tsan}
start=$SECONDS
bash scripts/deps.sh

# -O1 as in the sanitizer build of .ci/run (compile time); -g1 gives the reports line numbers.
# One vector target, AVX2, next to the scalar baseline (Highway's fallback, which cannot be
# left out: with one target compiled, HWY_EXPORT makes one-entry tables that SIMD_DISPATCH
# would index past). The threading code (the pool, the parallel drivers, the per-part scratch)
# is the same template on every target, and each target costs a full compile of the library;
# the SSE4 and AVX-512 instantiations (e.g. AVX-512's 14-row tiles) are not run under TSan.
flags="-fsanitize=thread -g1 -UHWY_DISABLED_TARGETS"
flags+=" -DHWY_DISABLED_TARGETS=HWY_SSSE3+HWY_SSE4+HWY_AVX3+HWY_AVX3_DL"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" -DSIMD_SYNET_BENCH=OFF >/dev/null
binaries=(core_test gemm_test innerproduct_test convolution_test convolution8i_test
          deconvolution_test mergedconvolution_test pooling_test scale_test)
cmake --build "$build" -j"$(nproc)" --target "${binaries[@]}"
echo "tsan build: $((SECONDS - start)) s"

# halt_on_error: the first report ends the binary with a failure (exit code 66). The tests run
# on AVX2 only: the scalar instances repeat the same threading at many times the cost (a CPU
# without AVX2 runs them instead, as nothing else would run).
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
# As under ctest (CMakeLists.txt): the load watch off, so that the threads do split.
export SIMD_SYNET_LOAD_AWARE=0
filter='*Thread*-*/SCALAR'
grep -qw avx2 /proc/cpuinfo 2>/dev/null || filter='*Thread*'
for binary in "${binaries[@]}"; do
    echo "== $binary (ThreadSanitizer) =="
    "$build/tests/$binary" --gtest_filter="$filter"
done
echo "tsan finished in $((SECONDS - start)) s"
