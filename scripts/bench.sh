#!/usr/bin/env bash
# Builds the benchmarks and prints the report: every function's bandwidth as a fraction of a
# copy with the same read/write mix, transcendental throughput per target, validation cost.
# Usage: bash scripts/bench.sh [extra google-benchmark flags, e.g. --benchmark_filter=Scale]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# The same build folder as scripts/test.sh and scripts/models.sh: the library is compiled once.
build=build
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSIMD_SYNET_BENCH=ON >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
out="$build/results"
rm -rf "$out" && mkdir -p "$out"
flags=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
       --benchmark_min_time=0.05 --benchmark_format=json "$@")
# Pin to one core when possible: single-thread figures, less noise.
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
for exe in "$build"/bench/*_bench; do
    name=$(basename "$exe")
    # The convolution and deconvolution benches also time two threads, and the thread pool's
    # bench times nothing else: they may use every core (pinned, their 2-thread figures
    # measured two threads sharing one core).
    if [ "$name" = convolution_bench ] || [ "$name" = deconvolution_bench ] ||
       [ "$name" = threadpool_bench ]; then
        "$exe" "${flags[@]}" >"$out/$name.json"
    else
        "${pin[@]}" "$exe" "${flags[@]}" >"$out/$name.json"
    fi
done
# Figures whose bars are per target, once per target the CPU has (the library reads the cap
# at load): transcendental activations, the softmax row, GEMM.
per_isa=("activation_bench:Activation/.*16KiB" "softmax_bench:Softmax/.*"
         "gemm_bench:Gemm/(FmaPeak|Gemm32fNN/1024x)")
for isa in scalar sse4 avx2 avx512; do
    for entry in "${per_isa[@]}"; do
        exe="$build/bench/${entry%%:*}"
        [ -x "$exe" ] || continue
        SIMD_SYNET_MAX_ISA=$isa "${pin[@]}" "$exe" "${flags[@]}" \
            --benchmark_filter="${entry#*:}" >"$out/isa-$isa-${entry%%:*}.json" 2>/dev/null || true
    done
done
python3 scripts/bench_report.py "$out"
