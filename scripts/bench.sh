#!/usr/bin/env bash
# Builds the benchmarks and prints the report: every function's bandwidth as a fraction of a
# copy with the same read/write mix, transcendental throughput per target, validation cost.
# Usage: bash scripts/bench.sh [extra google-benchmark flags, e.g. --benchmark_filter=Scale]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=build-bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSIMD_SYNET_TESTS=OFF >/dev/null
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
    "${pin[@]}" "$exe" "${flags[@]}" >"$out/$name.json"
done
# Transcendental activations once per target the CPU has (the library reads the cap at load).
if [ -x "$build/bench/activation_bench" ]; then
    for isa in scalar sse4 avx2 avx512; do
        SIMD_SYNET_MAX_ISA=$isa "${pin[@]}" "$build/bench/activation_bench" "${flags[@]}" \
            --benchmark_filter='Activation/.*16KiB' >"$out/isa-$isa.json" 2>/dev/null || true
    done
fi
python3 scripts/bench_report.py "$out"
