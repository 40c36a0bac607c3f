/* Runs saxpy on the CPU through the header of tilec's host target and
 * checks every element. Prints PASS and returns 0, or says what went
 * wrong. */
#include "saxpy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const int64_t n = 1000003;
  /* The header refuses tensors that are not 16-byte aligned, as the GPU's
   * does; malloc's are, on x86-64 Linux. */
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
  float *y0 = malloc(n * sizeof(float));
  int64_t i, wrong = 0;
  if (!x || !y || !y0)
    return 1;
  for (i = 0; i < n; ++i) {
    x[i] = (float)(i % 1000) / 1000.0f;
    y0[i] = y[i] = (float)(i % 7);
  }
  if (saxpy_run(x, y, 2.0f, n) != TILEC_HOST_SUCCESS) {
    fprintf(stderr, "saxpy_run refused its arguments\n");
    return 1;
  }
  for (i = 0; i < n; ++i)
    if (fabsf(y[i] - (2.0f * x[i] + y0[i])) > 1e-6f)
      ++wrong;
  /* What a GPU launch would refuse is refused here too. */
  if (saxpy_run(x, y, 2.0f, 0) != TILEC_HOST_INVALID_VALUE)
    ++wrong;
  printf("%s saxpy on the host CPU: %lld of %lld elements wrong\n",
         wrong ? "FAIL" : "PASS", (long long)wrong, (long long)n);
  free(x);
  free(y);
  free(y0);
  return wrong != 0;
}
