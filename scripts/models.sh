#!/usr/bin/env bash
# Main job: the model benchmark. Installs what it needs, builds the library and the Python
# package (release, in build/ like scripts/test.sh: the two share the library's objects),
# installs ONNX Runtime's npm package (python/models/onnxruntime, version pinned by its lock
# file; --ignore-scripts: its install script only fetches GPU providers), exports the twelve
# torchvision CNNs and three newer networks (ConvNeXt, ViT, DeepLab; random weights, cached in
# build-models/models), runs each through simdsynet.onnx, through PyTorch's fastest CPU mode
# (traced, frozen, optimized for inference) and through ONNX Runtime's (optimisation "all") at 1
# thread and at all cores, prints a table for each group and writes build-models/results.json
# and build-models/speedup.png.
# Usage: bash scripts/models.sh [--quick] [--models resnet18,...] [--repeat N] [--threads 1,2]
#   --quick: three CNNs and the newer networks at 32x32, one repetition (exercises the
#     command; CI runs it).
#   --no-onnxruntime: without the ONNX Runtime columns.
#   --int8: also the INT8 plans (convolutions on SimdSynetConvolution8i): their time against our
#     FP32 plan's, top-1 agreement and relative output difference with it (--agreement N inputs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=build
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSIMD_SYNET_PYTHON=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target simdsynet_python simdsynet_executor simdsynet_python_file_schema >/dev/null
if [ ! -d python/models/onnxruntime/node_modules/onnxruntime-node ]; then
    (cd python/models/onnxruntime && npm ci --ignore-scripts --no-audit --no-fund >/dev/null)
fi
PYTHONPATH="$build/python" /usr/bin/python3 python/models/benchmark.py --out build-models "$@"
