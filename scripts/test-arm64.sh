#!/usr/bin/env bash
# Cross-builds the library and the whole test suite for AArch64 and runs it under qemu-user:
# every kernel on every Highway target compiled for Arm (NEON and the scalar fallback), plus the
# installed-package check with an arm64 consumer, and the twelve models' network files compiled on
# x86 run by the AArch64 runtime. Debian 12 on x86-64, as root or with sudo.
# Usage: bash scripts/test-arm64.sh [build-dir]   (default build-arm64)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-arm64}
jobs=$(nproc)

# Debian's cross compiler, qemu-user and the arm64 builds of the libraries (multiarch: the
# architecture is added before scripts/deps.sh updates the package lists).
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO dpkg --add-architecture arm64
fi
bash scripts/deps.sh --only cmake make pkg-config g++-aarch64-linux-gnu qemu-user-static \
    flatbuffers-compiler libflatbuffers-dev \
    libhwy-dev:arm64 libgtest-dev:arm64

# No benchmarks (not timed under emulation); the Python package turns itself off when
# cross-compiling (no arm64 interpreter beside the native one).
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DSIMD_SYNET_BENCH=OFF >/dev/null
cmake --build "$build" -j"$jobs"
# ctest starts every test program through qemu-aarch64-static (the toolchain file's emulator).
ctest --test-dir "$build" --output-on-failure -j"$jobs"

# Network files compiled on x86 run on Arm: the x86 build's model test (scripts/test.sh, build
# folder $SIMD_SYNET_X86_BUILD, default build) compiles the twelve models into files beside
# PyTorch's outputs, and the AArch64 simdsynet-run runs each under qemu.
x86=${SIMD_SYNET_X86_BUILD:-build}
if [ ! -d "$x86/python/simdsynet" ]; then
    echo "the x86 Python package is not built in $x86 (bash scripts/test.sh $x86 first)" >&2
    exit 1
fi
files="$(cd "$build" && pwd)/network-files"
rm -rf "$files"
SIMD_SYNET_NETWORK_FILES="$files" PYTHONPATH="$x86/python" \
    SIMD_SYNET_MODEL_CACHE="$x86/models" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
    python/tests/test_onnx_models.py -k network_file
/usr/bin/python3 scripts/check-network-files.py "$files" qemu-aarch64-static -L / \
    "$build/runtime/tools/simdsynet-run"
