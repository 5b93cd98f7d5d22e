#!/usr/bin/env bash
# Builds the libFuzzer targets (clang 14, -O0, ASan + UBSan, coverage instrumentation of the
# whole library) in their own build directory and runs each for a bounded time: synet_fuzz (the
# kernels' C API) from the seeds of fuzz/seeds.txt, then synet_fuzz_loader (the network file
# loader) from seed files written by synet_fuzz_loader_seeds, each plus whatever corpus earlier
# runs left in the build directory.
# Fails on any crash, sanitizer report, contract violation, leak or slow input; the
# reproducer is left as <build>/crash-* (or leak-*, timeout-*; <build>/loader-crash-* and so on
# for the loader): replay it with
#   SIMD_SYNET_FUZZ_VERBOSE=1 <build>/fuzz/synet_fuzz <file>
# which prints the decoded call before running it, or <build>/fuzz/synet_fuzz_loader <file>.
# Usage: bash scripts/fuzz.sh [seconds (60)] [build-dir (build-fuzz)] [libFuzzer options...]
# (the options go to both targets); SIMD_SYNET_FUZZ_LOADER_SECONDS (60) bounds the loader's run.
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
cmake --build "$build" --target synet_fuzz synet_fuzz_loader synet_fuzz_loader_seeds \
    -j"$(nproc)"

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

# The loader: the input is a network file. Its seeds (a valid network and one per step kind,
# about 30 KB) are written by the build, not kept in the repository. -max_len: the largest seed
# is 4 KB; twice that lets mutations grow vectors and tables.
loader_corpus="$build/corpus-loader"
mkdir -p "$loader_corpus"
"$build/fuzz/synet_fuzz_loader_seeds" "$loader_corpus"
"$build/fuzz/synet_fuzz_loader" -max_total_time="${SIMD_SYNET_FUZZ_LOADER_SECONDS:-60}" \
    -timeout=5 -rss_limit_mb=2048 -max_len=8192 -dict=fuzz/loader.dict -print_final_stats=1 \
    -artifact_prefix="$build/loader-" "$@" "$loader_corpus"
