#!/usr/bin/env bash
# Installs the Debian packages the build, tests and benchmarks need (no-op when present).
# Usage: bash scripts/deps.sh [clang]   (clang: also clang 14 and its sanitizer/libFuzzer
# runtimes, for the fuzzer's build)
#        bash scripts/deps.sh --only <package>...   (those packages instead of the list below)
set -euo pipefail
# python3-dev, pybind11-dev, python3-numpy, python3-pytest: the Python package and its tests
# (for Debian's /usr/bin/python3; nothing comes from PyPI). python3-onnx: simdsynet.onnx reads
# models with it; python3-torch, python3-torchvision: the models of the ONNX tests and of the
# model benchmark are built and exported with them; python3-matplotlib: the benchmark's chart.
# libdnnl-dev: the optional oneDNN comparison of the convolution benchmarks (CI builds it).
# flatbuffers-compiler, libflatbuffers-dev, python3-flatbuffers: the compiled network file
# (runtime/schema: flatc generates its C++ reader and Python writer).
# nodejs, npm: the model benchmark's ONNX Runtime column (npm package onnxruntime-node, pinned
# in python/models/onnxruntime; skipped where node and npm are already on PATH).
packages=(cmake make g++ pkg-config libhwy-dev libgtest-dev libbenchmark-dev libdnnl-dev
          flatbuffers-compiler libflatbuffers-dev python3-flatbuffers python3
          python3-dev pybind11-dev python3-numpy python3-pytest python3-onnx python3-torch
          python3-torchvision python3-matplotlib)
if [ "${1:-}" = clang ]; then packages+=(clang-14 libclang-rt-14-dev); fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
if [ "${1:-}" = --only ]; then packages=("${@:2}"); fi
# The native architecture's package first: once the AArch64 suite (scripts/test-arm64.sh) has
# installed a library's arm64 build too, the bare name is ambiguous to dpkg.
arch=$(dpkg --print-architecture)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p:$arch" >/dev/null 2>&1 || dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
