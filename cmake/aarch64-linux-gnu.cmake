# Cross-compiling for AArch64 Linux with Debian's cross compiler (g++-aarch64-linux-gnu) and the
# arm64 libraries installed through multiarch (libhwy-dev:arm64, libgtest-dev:arm64), which put
# their CMake packages under /usr/lib/aarch64-linux-gnu. Programs built here (tests, gtest
# discovery) run through qemu-user. Used by scripts/test-arm64.sh:
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# The cross toolchain's own sysroot first, then / for the multiarch arm64 packages (their
# libraries sit in /usr/lib/aarch64-linux-gnu, which CMake searches for this compiler's
# library architecture). Programs (pkg-config, python3) are the build machine's.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# -L /: the guest loader and libc are the multiarch ones (/lib/ld-linux-aarch64.so.1 and
# /lib/aarch64-linux-gnu/libc.so.6, one build). With -L /usr/aarch64-linux-gnu the cross
# toolchain's loader met the multiarch libc, a different build, and the pair spun forever in
# pthread_create.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /)
