#!/usr/bin/env bash
# Builds the libFuzzer target (clang 14, -O0, ASan + UBSan, coverage instrumentation of the
# whole library) in its own build directory and runs it for a bounded time, starting from the
# seeds of fuzz/seeds.txt plus whatever corpus earlier runs left in the build directory.
# Fails on any crash, sanitizer report, contract violation, leak or slow input; the
# reproducer is left as <build>/crash-* (or leak-*, timeout-*): replay it with
#   SIMD_SYNET_FUZZ_VERBOSE=1 <build>/fuzz/synet_fuzz <file>
# which prints the decoded call before running it.
# Usage: bash scripts/fuzz.sh [seconds (60)] [build-dir (build-fuzz)] [libFuzzer options...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-fuzz}
shift $(($# < 2 ? $# : 2))

bash scripts/deps.sh clang

# -O0: clang 14 with ASan, UBSan and coverage instrumentation at -O1 spent more than 7 CPU
# minutes on convolution/ConvolutionDepthwise.cpp alone (6 s at -O0), and its larger kernel
# files alike; the fuzzer's shapes are small, so unoptimised kernels still run thousands of
# inputs a minute. Every target is compiled, so the fuzzer forces each of them in turn.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O0 -DNDEBUG" \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DSIMD_SYNET_FUZZ=ON \
    -DSIMD_SYNET_TESTS=OFF -DSIMD_SYNET_BENCH=OFF -DSIMD_SYNET_PYTHON=OFF >/dev/null
cmake --build "$build" --target synet_fuzz -j"$(nproc)"

# The seeds: one input per line of fuzz/seeds.txt, hexadecimal bytes ('#' starts a comment).
corpus="$build/corpus"
mkdir -p "$corpus"
n=0
while IFS= read -r line; do
    hex=${line%%#*}
    hex=${hex//[[:space:]]/}
    [ -n "$hex" ] || continue
    n=$((n + 1))
    # shellcheck disable=SC2059 # the format is the escaped bytes
    printf "$(sed 's/../\\x&/g' <<<"$hex")" >"$corpus/seed-$n"
done <fuzz/seeds.txt

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# -timeout: one input may take 5 s at most (they are sized for well under a millisecond; the
# margin is for a loaded machine);
# -rss_limit_mb guards against inputs that make the library allocate without bound.
"$build/fuzz/synet_fuzz" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/" "$@" "$corpus"
