/* Runs saxpy through the header tilec generated for saxpy.tile and checks
 * every element. Prints PASS and returns 0, or says what went wrong. */
#include "saxpy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    CUresult err_ = (call);                                                    \
    if (err_ != CUDA_SUCCESS) {                                                \
      const char *name_ = NULL;                                                \
      cuGetErrorName(err_, &name_);                                            \
      fprintf(stderr, "%s failed: %s\n", #call, name_ ? name_ : "?");          \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(void) {
  const int64_t n = 1000003;
  CUdevice device;
  CUcontext context;
  CUdeviceptr x, y;
  float *hx = malloc(n * sizeof(float)), *hy = malloc(n * sizeof(float));
  float *out = malloc(n * sizeof(float));
  int64_t i, wrong = 0;
  if (!hx || !hy || !out)
    return 1;
  for (i = 0; i < n; ++i) {
    hx[i] = (float)(i % 1000) / 1000.0f;
    hy[i] = (float)(i % 7);
  }
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  CHECK(cuMemAlloc(&x, n * sizeof(float)));
  CHECK(cuMemAlloc(&y, n * sizeof(float)));
  CHECK(cuMemcpyHtoD(x, hx, n * sizeof(float)));
  CHECK(cuMemcpyHtoD(y, hy, n * sizeof(float)));
  CHECK(saxpy_launch(NULL, x, y, 2.0f, n));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(out, y, n * sizeof(float)));
  for (i = 0; i < n; ++i)
    if (fabsf(out[i] - (2.0f * hx[i] + hy[i])) > 1e-6f)
      ++wrong;
  printf("%s saxpy through the %s header: %lld of %lld elements wrong\n",
         wrong ? "FAIL" : "PASS", SAXPY_ARCH, (long long)wrong, (long long)n);
  return wrong != 0;
}
