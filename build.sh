#!/usr/bin/env bash
#===- build.sh - Set up, build tilec and compile the example GEMM ---------===#
#
# On Debian 12: installs the packages tilec needs that are missing, then
# configures and builds tilec in build/ and compiles the example kernel.
# Pass extra CMake options as arguments, e.g. -DCMAKE_BUILD_TYPE=Debug.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

packages=(
  cmake ninja-build g++ ccache python3
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  libz3-dev libcli11-dev libfmt-dev googletest libgtest-dev
  rocm-device-libs libamdhip64-dev clang-22
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  echo "build.sh: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
fi

if [[ ! -x /usr/local/cuda/bin/ptxas ]]; then
  echo "build.sh: note: no CUDA toolkit at /usr/local/cuda; NVIDIA code" \
       "will not be produced" >&2
fi

cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build

mkdir -p build/examples
if [[ -x /usr/local/cuda/bin/ptxas ]]; then
  build/bin/tilec examples/gemm.tile -D M=4096 -D N=4096 -D K=4096 \
    -o build/examples/gemm.cubin
  echo "build.sh: built build/bin/tilec; compiled examples/gemm.tile to" \
       "build/examples/gemm.cubin and build/examples/gemm.h"
else
  # PTX needs the toolkit's libdevice too; the LLVM dialect needs nothing.
  build/bin/tilec examples/gemm.tile -D M=4096 -D N=4096 -D K=4096 \
    --emit=llvm -o build/examples/gemm.mlir
  echo "build.sh: built build/bin/tilec; compiled examples/gemm.tile to" \
       "build/examples/gemm.mlir (no CUDA toolkit, so no PTX or cubin)"
fi
