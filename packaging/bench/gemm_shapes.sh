#!/usr/bin/env bash
# The engine's GEMM against PyTorch's (oneDNN) on the zoo's shapes, one thread, fp32 and bf16,
# on every kernel path this CPU has: how the engine's own micro-kernels were chosen over
# linking oneDNN (see the README's "bf16 on the CPU"). A benchmark, not a test (~1 minute).
#   packaging/bench/gemm_shapes.sh        (after a build: build/core/libaccellab_core.a)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
bin=$(mktemp -d)/gemm_shapes
trap 'rm -rf "$(dirname "$bin")"' EXIT
g++ -O3 -march=native -std=c++20 -I"$root" -isystem /usr/include/eigen3 "$root/packaging/bench/gemm_shapes.cpp" \
  "$build/core/libaccellab_core.a" -ltbb -lpthread -o "$bin"
"$bin"
OMP_NUM_THREADS=1 /usr/bin/python3 "$root/packaging/bench/gemm_shapes_torch.py" | tail -n +2
