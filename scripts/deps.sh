#!/usr/bin/env bash
# Installs the Debian packages the build, tests and benchmarks need (no-op when present).
set -euo pipefail
packages=(cmake make g++ pkg-config libhwy-dev libgtest-dev libbenchmark-dev python3)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
