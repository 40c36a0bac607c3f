// Times one tilec GEMM kernel through its generated header: C = A B (or
// A B^T with BENCH_TRANS_B) on random 16-bit inputs. Prints one JSON line
// with the median time in milliseconds.
//
// Build with -DBENCH_M= -DBENCH_N= -DBENCH_K= [-DBENCH_TRANS_B] and
// -include the kernel's header.
#include "check.h"

#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

/// Random 16-bit floats in [-1, 1): halves and bfloat16 alike are built
/// from the same bits, as values near 1 in magnitude.
static void fillRandom(CUdeviceptr buffer, size_t count, bool bf16) {
  std::vector<uint16_t> host(count);
  uint64_t state = 0x9e3779b97f4a7c15ull ^ count;
  for (uint16_t &value : host) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    uint16_t sign = (state >> 40) & 1;
    uint16_t mantissa = (state >> 20) & (bf16 ? 0x7f : 0x3ff);
    // Exponent of 0.5..1: 14 for halves, 126 for bfloat16.
    value = bf16 ? uint16_t(sign << 15 | 126 << 7 | mantissa)
                 : uint16_t(sign << 15 | 14 << 10 | mantissa);
  }
  CHECK(cuMemcpyHtoD(buffer, host.data(), count * 2));
}

int main() {
  CHECK(cuInit(0));
  CUdevice device;
  CUcontext context;
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  const size_t m = BENCH_M, n = BENCH_N, k = BENCH_K;
  CUdeviceptr a, b, c;
  CHECK(cuMemAlloc(&a, m * k * 2));
  CHECK(cuMemAlloc(&b, k * n * 2));
  CHECK(cuMemAlloc(&c, m * n * 2));
  fillRandom(a, m * k, BENCH_BF16);
  fillRandom(b, k * n, BENCH_BF16);
  CUevent start, stop;
  CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  // Warm up (the first launch loads the module), then the median of 21
  // samples of enough launches for about 20 ms.
  for (int i = 0; i < 3; ++i)
    CHECK(matmul_launch(nullptr, a, b, c));
  CHECK(cuCtxSynchronize());
  CHECK(cuEventRecord(start, nullptr));
  CHECK(matmul_launch(nullptr, a, b, c));
  CHECK(cuEventRecord(stop, nullptr));
  CHECK(cuEventSynchronize(stop));
  float once;
  CHECK(cuEventElapsedTime(&once, start, stop));
  int inner = std::max(1, std::min(100, int(20.0f / std::max(once, 1e-3f))));
  std::vector<float> samples;
  for (int r = 0; r < 21; ++r) {
    CHECK(cuEventRecord(start, nullptr));
    for (int i = 0; i < inner; ++i)
      CHECK(matmul_launch(nullptr, a, b, c));
    CHECK(cuEventRecord(stop, nullptr));
    CHECK(cuEventSynchronize(stop));
    float ms;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    samples.push_back(ms / inner);
  }
  std::sort(samples.begin(), samples.end());
  std::printf("{\"ms\": %.6f}\n", samples[samples.size() / 2]);
  return 0;
}
