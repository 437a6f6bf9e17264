#!/bin/sh
# Installs, with apt-get, whatever of TensorPlay's build and test needs is missing on a Debian 12
# machine; does nothing when everything is there. Usage: cmake/install-deps.sh [demo|test|bench]
set -eu
what=${1:-test}
pkgs="g++ cmake ninja-build"
case "$what" in
  demo) ;;
  # The Python binding's build and tests: pybind11, Debian's Python 3 headers, and the NumPy
  # and torch its comparison tests run against; libtorch (and the OpenBLAS it runs on) for the
  # differential test (tests/differential), which is skipped, not passed, without it; pip,
  # venv, setuptools and wheel to build and test the installed package (run_installed.sh); the
  # aarch64 cross compiler and qemu-user for the non-x86 check; the Vulkan headers, glslc, the
  # validation layer and Mesa's lavapipe (a CPU Vulkan device) for the Vulkan backend's tests
  # (TENSORPLAY_USE_VULKAN=ON). bench: Eigen for the reference row of bench/compile_time.py.
  test) pkgs="$pkgs catch2 zlib1g-dev clang pybind11-dev python3-dev python3-numpy python3-matplotlib python3-torch libtorch-dev libopenblas0-pthread python3-pip python3-venv python3-setuptools python3-wheel g++-aarch64-linux-gnu qemu-user mesa-vulkan-drivers libvulkan-dev glslc vulkan-validationlayers" ;;
  bench) pkgs="$pkgs libbenchmark-dev libeigen3-dev libtorch-dev libopenblas0-pthread python3 pybind11-dev python3-dev python3-numpy python3-torch" ;;
  *) echo "usage: $0 [demo|test|bench]" >&2; exit 2 ;;
esac
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing:$missing"
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
