// CHECK(call) for CUDA driver calls: a failure prints the call, where it
// is and the error's name, and exits with status 2. Shared by the GPU test
// programs and the benchmarks (bench/).
#ifndef TILEC_TEST_GPU_CHECK_H
#define TILEC_TEST_GPU_CHECK_H

#include <cuda.h>

#include <cstdio>
#include <cstdlib>

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

#endif // TILEC_TEST_GPU_CHECK_H
