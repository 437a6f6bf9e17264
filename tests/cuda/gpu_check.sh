#!/usr/bin/env bash
# The CUDA backend's checks on a machine with a GPU (issue 15, point 10): builds the CUDA test
# binary against the toolkit (header-only, Release, every core), runs all of its CTest entries,
# the [device] tests included (cuda.device exits 77, "skipped", where no GPU is seen; here that
# is a failure), then the benchmark beside the machine's PyTorch (bench/cuda/compare_torch.py). Needs CMake, a C++20 compiler, Catch2 v2 and the CUDA toolkit
# (CUDAToolkit_ROOT if not in /usr/local/cuda). Usage: tests/cuda/gpu_check.sh [build-dir]
# Not run by CI (CI has no GPU): it runs the no-device half instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/cuda-gpu}
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
command -v nvidia-smi > /dev/null && nvidia-smi -L
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTENSORPLAY_USE_CUDA=ON \
  -DTENSORPLAY_USE_VULKAN=OFF -DTENSORPLAY_BUILD_COMPILED=OFF -DTENSORPLAY_BUILD_PYTHON=OFF \
  -DTENSORPLAY_BUILD_EXAMPLES=OFF -DTENSORPLAY_BUILD_BENCHMARKS=OFF \
  -DTENSORPLAY_BUILD_LIBTORCH_DIFF=OFF
cmake --build "$build" --target tensorplay_cuda_tests -j "$(nproc)"
start=$(date +%s)
log="$build/gpu_check.log"
ctest --test-dir "$build" -R '^cuda' --output-on-failure --no-tests=error 2>&1 | tee "$log"
# A skipped device run means the GPU was not seen: fail rather than report it as a pass.
if grep -qE "cuda[.](device|train_mlp) .*Skipped" "$log"; then
  echo "FAILED: a device test was skipped: no CUDA device was found"
  exit 1
fi
echo "CUDA GPU checks passed in $(( $(date +%s) - start )) s (tests only)"
# The figures beside the machine's PyTorch (skipped, not failed, without torch's CUDA).
if python3 -c "import torch" 2> /dev/null; then
  python3 bench/cuda/compare_torch.py "$build/tests/cuda/tensorplay_cuda_bench" || true
else
  echo "no PyTorch here: the tensorplay figures alone"
  "$build/tests/cuda/tensorplay_cuda_bench"
fi
