// The GEMM test program: C = op(A) op(B) through the generated header of
// test/gpu/kernels/gemm.tile, checked against cuBLAS (fp32 accumulation,
// fp32 result) on fresh random inputs, with C poisoned first.
//
// Build with -DTEST_M= -DTEST_N= -DTEST_K=, TRANS_A / TRANS_B (0 or 1),
// IN_BF16 (bf16 inputs, else f16), OUT_KIND (0 f16, 1 bf16, 2 f32),
// ACC_F16 (half-precision accumulators), and -include the kernel's header.
// Links against cuBLAS.
#include "common.h"

#include <cublas_v2.h>

#include <algorithm>

#define CHECK_CUBLAS(call)                                                     \
  do {                                                                         \
    cublasStatus_t status_ = (call);                                           \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                    \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__,       \
                   #call, int(status_));                                       \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

static uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1);
  return uint16_t((bits + rounding) >> 16);
}

static float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

static std::vector<uint16_t> encode(const std::vector<float> &values,
                                    bool bf16) {
  std::vector<uint16_t> result(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    result[i] = bf16 ? floatToBf16(values[i]) : floatToHalf(values[i]);
  return result;
}

int main() {
  Context ctx;
  const int64_t m = TEST_M, n = TEST_N, k = TEST_K;
  const bool transA = TRANS_A, transB = TRANS_B, bf16 = IN_BF16;
  std::vector<uint16_t> a = encode(ctx.uniform(size_t(m) * k), bf16);
  std::vector<uint16_t> b = encode(ctx.uniform(size_t(k) * n), bf16);
  Buffer A(a.size(), 2), B(b.size(), 2);
  A.upload(a.data());
  B.upload(b.data());
  const size_t outBytes = OUT_KIND == 2 ? 4 : 2;
  Buffer C(size_t(m) * n, outBytes), Ref(size_t(m) * n, 4);
  C.poison();
  Ref.poison();
  CHECK(matmul_launch(nullptr, A.ptr, B.ptr, C.ptr));
  CHECK(cuCtxSynchronize());

  // cuBLAS is column-major: it computes C^T = op(B)^T op(A)^T, reading the
  // row-major operands as their transposes.
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  float one = 1, zero = 0;
  cudaDataType_t type = bf16 ? CUDA_R_16BF : CUDA_R_16F;
  CHECK_CUBLAS(cublasGemmEx(
      handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
      transA ? CUBLAS_OP_T : CUBLAS_OP_N, int(n), int(m), int(k), &one,
      reinterpret_cast<void *>(B.ptr), type, int(transB ? k : n),
      reinterpret_cast<void *>(A.ptr), type, int(transA ? m : k), &zero,
      reinterpret_cast<void *>(Ref.ptr), CUDA_R_32F, int(n), CUBLAS_COMPUTE_32F,
      CUBLAS_GEMM_DEFAULT));
  CHECK(cuCtxSynchronize());
  CHECK_CUBLAS(cublasDestroy(handle));

  std::vector<float> ref(size_t(m) * n);
  Ref.download(ref.data());
  std::vector<double> got(ref.size()), want(ref.begin(), ref.end());
  if (OUT_KIND == 2) {
    std::vector<float> c(ref.size());
    C.download(c.data());
    std::copy(c.begin(), c.end(), got.begin());
  } else {
    std::vector<uint16_t> c(ref.size());
    C.download(c.data());
    for (size_t i = 0; i < c.size(); ++i)
      got[i] = OUT_KIND == 1 ? bf16ToFloat(c[i]) : halfToFloat(c[i]);
  }
  // Entries are sums of k products of uniform(-1, 1) numbers: about
  // sqrt(k) / 3 in size. Errors beyond rounding of the output type (and
  // fp32 summation order) mean a wrong element.
  double scale = std::sqrt(double(k)) / 3;
  double rtol = OUT_KIND == 1 ? 1.6e-2 : OUT_KIND == 0 ? 2e-3 : 1e-4;
  double atol = 1e-3 * scale;
  // A half-precision accumulator rounds every partial sum: its error grows
  // like sqrt(k) half-precision roundings of the sum.
  if (ACC_F16) {
    rtol = 1e-2;
    atol = 2e-2 * scale;
  }
  bool ok = compare(TEST_NAME, got, want, atol, rtol, ctx.seed);
  return ok ? 0 : 1;
}
