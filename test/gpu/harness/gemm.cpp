// The GEMM test program: C = op(A) op(B) through the generated header of
// test/gpu/kernels/gemm.tile on fresh random inputs, with C poisoned
// first.
//
// Build with -DTEST_M= -DTEST_N= -DTEST_K=, TRANS_A / TRANS_B (0 or 1),
// IN_KIND (0 f16, 1 bf16, 2 int8, 3 f32 computed as tf32, 4 fp8 e4m3, 5 fp8
// e5m2, 6 and 7 their FNUZ variants), OUT_KIND (0 f16, 1 bf16, 2 f32, 3 int32),
// ACC_F16 (half-precision accumulators), and -include the kernel's header. int8
// is checked exactly against a CPU product, fp8 against a float64 one, the rest
// against cuBLAS (links against it), or, with TILEC_TEST_HOST or
// TILEC_TEST_HIP, a float64 product too.
#include "common.h"

#if defined(TILEC_TEST_HOST) || defined(TILEC_TEST_HIP)
#define TILEC_TEST_FLOAT64_GEMM 1
#else
#include <cublas_v2.h>
#endif

#include <algorithm>

#ifndef TILEC_TEST_FLOAT64_GEMM
#define CHECK_CUBLAS(call)                                                     \
  do {                                                                         \
    cublasStatus_t status_ = (call);                                           \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                    \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__,       \
                   #call, int(status_));                                       \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)
#endif

/// Element `i` of a row-major matrix of `cols` columns, as stored with
/// `transposed` (then it is cols x rows in memory).
static size_t at(int64_t row, int64_t col, int64_t rows, int64_t cols,
                 bool transposed) {
  return transposed ? size_t(col) * rows + row : size_t(row) * cols + col;
}

/// Random finite fp8 numbers of magnitude in [0.5, 4) as bits (e4m3: 1
/// sign, 4 exponent bits biased by 7, 3 mantissa bits; e5m2: 5 biased by
/// 15, 2; the FNUZ formats bias by one more), with their values.
static std::vector<uint8_t> randomFp8(size_t count, bool e5m2, bool fnuz,
                                      uint64_t seed,
                                      std::vector<double> &values) {
  std::vector<uint8_t> bits(count);
  values.resize(count);
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < count; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    int sign = (state >> 11) & 1;
    int exponent = int((state >> 20) % 3); // 2^-1, 2^0, 2^1
    int mantissaBits = e5m2 ? 2 : 3;
    int mantissa = int((state >> 30) & ((1 << mantissaBits) - 1));
    int bias = (e5m2 ? 15 : 7) + (fnuz ? 1 : 0);
    bits[i] =
        uint8_t(sign << 7 | (exponent - 1 + bias) << mantissaBits | mantissa);
    values[i] = (sign ? -1.0 : 1.0) * std::ldexp(1.0, exponent - 1) *
                (1.0 + mantissa / double(1 << mantissaBits));
  }
  return bits;
}

int main() {
  Context ctx;
  const int64_t m = TEST_M, n = TEST_N, k = TEST_K;
  const bool transA = TRANS_A, transB = TRANS_B;
  const int inKind = IN_KIND, outKind = OUT_KIND;
  const bool fp8 = inKind >= 4 && inKind <= 7;
  const bool e5m2 = inKind == 5 || inKind == 7, fnuz = inKind >= 6;
  const size_t inBytes = inKind == 2 || fp8 ? 1 : inKind == 3 ? 4 : 2;
  Buffer A(size_t(m) * k, inBytes), B(size_t(k) * n, inBytes);
  std::vector<float> a = ctx.uniform(size_t(m) * k),
                     b = ctx.uniform(size_t(k) * n);
  std::vector<int8_t> a8, b8;
  std::vector<double> aFp8, bFp8;
  if (fp8) {
    std::vector<uint8_t> aBits =
        randomFp8(a.size(), e5m2, fnuz, ctx.seed, aFp8);
    std::vector<uint8_t> bBits =
        randomFp8(b.size(), e5m2, fnuz, ctx.seed + 1, bFp8);
    A.upload(aBits.data());
    B.upload(bBits.data());
  } else if (inKind == 2) {
    // Small integers: exact int32 sums.
    auto quantize = [](const std::vector<float> &values) {
      std::vector<int8_t> result(values.size());
      for (size_t i = 0; i < values.size(); ++i)
        result[i] = int8_t(std::lround(values[i] * 8));
      return result;
    };
    a8 = quantize(a);
    b8 = quantize(b);
    A.upload(a8.data());
    B.upload(b8.data());
  } else if (inKind == 3) {
    A.upload(a.data());
    B.upload(b.data());
  } else {
    std::vector<uint16_t> a16 = toSixteenBits(a, inKind == 1),
                          b16 = toSixteenBits(b, inKind == 1);
    A.upload(a16.data());
    B.upload(b16.data());
  }
  const size_t outBytes = outKind >= 2 ? 4 : 2;
  Buffer C(size_t(m) * n, outBytes);
  C.poison();
  CHECK(LAUNCH(matmul, A.ptr, B.ptr, C.ptr));
  SYNC();

  std::vector<double> got(size_t(m) * n), want(got.size());
  if (outKind == 3) {
    std::vector<int32_t> c(got.size());
    C.download(c.data());
    std::copy(c.begin(), c.end(), got.begin());
  } else if (outKind == 2) {
    std::vector<float> c(got.size());
    C.download(c.data());
    std::copy(c.begin(), c.end(), got.begin());
  } else {
    std::vector<uint16_t> c(got.size());
    C.download(c.data());
    for (size_t i = 0; i < c.size(); ++i)
      got[i] = outKind == 1 ? bf16ToFloat(c[i]) : halfToFloat(c[i]);
  }

  if (fp8) {
    // Products of fp8 numbers are exact in f32; the sums round, and
    // Hopper's fp8 tensor cores add with fewer mantissa bits than f32
    // (errors up to 0.055 in 10 runs on the H200 at K = 128), so the error
    // follows the sum of the products' magnitudes, about 450 there, rather than
    // the result. 2^-11 of that sum keeps a margin of four and still fails a
    // misplaced row or column, which moves results by their own size.
    std::vector<double> tolerance(want.size());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0, magnitude = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          double product =
              aFp8[at(i, kk, m, k, transA)] * bFp8[at(kk, j, k, n, transB)];
          acc += product;
          magnitude += std::fabs(product);
        }
        size_t index = size_t(i) * n + j;
        want[index] = acc;
        double outputRounding = outKind == 2 ? 0x1p-24 : 0x1p-11;
        tolerance[index] =
            0x1p-11 * magnitude + outputRounding * std::fabs(acc);
      }
    return compare(TEST_NAME, got, want, tolerance, ctx.seed) ? 0 : 1;
  }
  if (inKind == 2) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          acc += int64_t(a8[at(i, kk, m, k, transA)]) *
                 b8[at(kk, j, k, n, transB)];
        want[size_t(i) * n + j] = double(acc);
      }
    return compare(TEST_NAME, got, want, 0, 0, ctx.seed) ? 0 : 1;
  }

#ifdef TILEC_TEST_FLOAT64_GEMM
  // The inputs as the kernel sees them (rounded to their type), multiplied
  // in float64.
  auto rounded = [&](const std::vector<float> &values) {
    std::vector<double> result(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      result[i] = inKind == 3   ? values[i]
                  : inKind == 1 ? bf16ToFloat(floatToBf16(values[i]))
                                : halfToFloat(floatToHalf(values[i]));
    return result;
  };
  std::vector<double> aRef = rounded(a), bRef = rounded(b);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += aRef[at(i, kk, m, k, transA)] * bRef[at(kk, j, k, n, transB)];
      want[size_t(i) * n + j] = acc;
    }
#else
  // cuBLAS is column-major: it computes C^T = op(B)^T op(A)^T, reading the
  // row-major operands as their transposes. fp32 accumulation throughout;
  // fp32 inputs are multiplied in full precision.
  Buffer Ref(got.size(), 4);
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  float one = 1, zero = 0;
  cudaDataType_t type = inKind == 1   ? CUDA_R_16BF
                        : inKind == 3 ? CUDA_R_32F
                                      : CUDA_R_16F;
  CHECK_CUBLAS(cublasGemmEx(
      handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
      transA ? CUBLAS_OP_T : CUBLAS_OP_N, int(n), int(m), int(k), &one,
      reinterpret_cast<void *>(B.ptr), type, int(transB ? k : n),
      reinterpret_cast<void *>(A.ptr), type, int(transA ? m : k), &zero,
      reinterpret_cast<void *>(Ref.ptr), CUDA_R_32F, int(n),
      CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT));
  CHECK(cuCtxSynchronize());
  CHECK_CUBLAS(cublasDestroy(handle));
  std::vector<float> ref(got.size());
  Ref.download(ref.data());
  std::copy(ref.begin(), ref.end(), want.begin());
#endif

  // Entries are sums of k products of uniform(-1, 1) numbers: about
  // sqrt(k) / 3 in size. Errors beyond rounding of the output type (and
  // the summation order) mean a wrong element.
  double scale = std::sqrt(double(k)) / 3;
  double rtol = outKind == 1 ? 1.6e-2 : outKind == 0 ? 2e-3 : 1e-4;
  double atol = 1e-3 * scale;
  // tf32 keeps 10 bits of each input's mantissa.
  if (inKind == 3) {
    rtol = std::max(rtol, 5e-3);
    atol = 5e-3 * scale;
  }
  // A half-precision accumulator rounds every partial sum: its error grows
  // like sqrt(k) half-precision roundings of the sum. The tensor cores
  // round once per instruction; the host target rounds every product and
  // every addition, a random walk of 2k roundings whose spread each
  // element's own partial sums give: six standard deviations of it.
  if (ACC_F16) {
    rtol = 1e-2;
    atol = 2e-2 * scale;
    auto ulp = [](double x) {
      return std::ldexp(1.0, std::max(std::ilogb(std::fabs(x)), -14) - 10);
    };
    auto half = [](float x) { return double(halfToFloat(floatToHalf(x))); };
    std::vector<double> tolerance(want.size());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, variance = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          double product = half(a[at(i, kk, m, k, transA)]) *
                           half(b[at(kk, j, k, n, transB)]);
          sum += product;
          double u = ulp(product), v = ulp(sum);
          variance += (u * u + v * v) / 12;
        }
        size_t index = size_t(i) * n + j;
        tolerance[index] = std::max(atol + rtol * std::fabs(want[index]),
                                    6 * std::sqrt(variance));
      }
    return compare(TEST_NAME, got, want, tolerance, ctx.seed) ? 0 : 1;
  }
  return compare(TEST_NAME, got, want, atol, rtol, ctx.seed) ? 0 : 1;
}
