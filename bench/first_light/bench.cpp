// Times one tilec kernel through its generated header against a
// device-to-device copy moving the same number of bytes, in one process.
// bench.py compiles it per configuration: -include <header>, BENCH_<KIND>,
// BENCH_M and BENCH_N. Prints one JSON line.
#include "check.h"

#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

/// The median time of `run` in milliseconds over `reps` timed batches.
template <typename Fn> static double timeMs(Fn run, int reps = 21) {
  CUevent start, stop;
  CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  for (int i = 0; i < 5; ++i)
    run();
  CHECK(cuCtxSynchronize());
  std::vector<float> times;
  const int inner = 10;
  for (int r = 0; r < reps; ++r) {
    CHECK(cuEventRecord(start, nullptr));
    for (int i = 0; i < inner; ++i)
      run();
    CHECK(cuEventRecord(stop, nullptr));
    CHECK(cuEventSynchronize(stop));
    float ms;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    times.push_back(ms / inner);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main() {
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  const size_t count = size_t(BENCH_M) * BENCH_N;
#if defined(BENCH_ADD)
  const size_t element = BENCH_ELEMENT_BYTES;
  CUdeviceptr a, b, c;
  CHECK(cuMemAlloc(&a, count * element));
  CHECK(cuMemAlloc(&b, count * element));
  CHECK(cuMemAlloc(&c, count * element));
  CHECK(cuMemsetD8(a, 0, count * element));
  CHECK(cuMemsetD8(b, 0, count * element));
  const size_t bytes = 3 * count * element;
  double ms = timeMs([&] { CHECK(elementwise_add_launch(nullptr, a, b, c)); });
#elif defined(BENCH_RMSNORM) || defined(BENCH_SOFTMAX)
  CUdeviceptr x, y, w;
  CHECK(cuMemAlloc(&x, count * 2));
  CHECK(cuMemAlloc(&y, count * 2));
  CHECK(cuMemAlloc(&w, size_t(BENCH_N) * 2));
  CHECK(cuMemsetD8(x, 0, count * 2));
  CHECK(cuMemsetD8(w, 0, size_t(BENCH_N) * 2));
  const size_t bytes = 2 * count * 2;
#if defined(BENCH_RMSNORM)
  double ms = timeMs([&] { CHECK(rms_norm_launch(nullptr, x, w, y)); });
#else
  (void)w;
  double ms = timeMs([&] { CHECK(softmax_launch(nullptr, x, y)); });
#endif
#else
#error "compile with one BENCH_<KIND> macro"
#endif
  // The baseline: a copy that reads and writes the same number of bytes.
  CUdeviceptr src, dst;
  CHECK(cuMemAlloc(&src, bytes / 2));
  CHECK(cuMemAlloc(&dst, bytes / 2));
  double copyMs =
      timeMs([&] { CHECK(cuMemcpyDtoDAsync(dst, src, bytes / 2, nullptr)); });
  std::printf("{\"ms\": %.5f, \"copy_ms\": %.5f, \"bytes\": %zu}\n", ms, copyMs,
              bytes);
  return 0;
}
