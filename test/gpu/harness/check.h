// CHECK(call) for CUDA driver calls: a failure prints the call, where it
// is and the error's name, and exits with status 2. Shared by the GPU test
// programs and the benchmarks (bench/). Built with TILEC_TEST_HOST, for
// the host target's functions, which return TILEC_HOST_SUCCESS or an
// error; with TILEC_TEST_HIP, for HIP calls and AMD headers.
#ifndef TILEC_TEST_GPU_CHECK_H
#define TILEC_TEST_GPU_CHECK_H

#include <cstdio>
#include <cstdlib>

#ifdef TILEC_TEST_HOST

#define CHECK(call)                                                            \
  do {                                                                         \
    int check_ = (call);                                                       \
    if (check_ != 0) {                                                         \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__,       \
                   #call, check_);                                             \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

#elif defined(TILEC_TEST_HIP)

#include <hip/hip_runtime_api.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    hipError_t check_ = (call);                                                \
    if (check_ != hipSuccess) {                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,       \
                   #call, hipGetErrorName(check_));                            \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

#else

#include <cuda.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    CUresult check_ = (call);                                                  \
    if (check_ != CUDA_SUCCESS) {                                              \
      const char *name_ = nullptr;                                             \
      cuGetErrorName(check_, &name_);                                          \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,       \
                   #call, name_ ? name_ : "?");                                \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

#endif

#endif // TILEC_TEST_GPU_CHECK_H
