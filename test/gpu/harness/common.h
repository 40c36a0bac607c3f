// Shared helpers of the GPU test programs: device buffers, random data,
// poisoning, half-precision conversion and comparison with a reference.
#ifndef TILEC_TEST_GPU_COMMON_H
#define TILEC_TEST_GPU_COMMON_H

#include "check.h"

#include <cuda.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

inline float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t floatToHalf(float f) {
  // Round to nearest even through the exact float value.
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int32_t exp = int32_t((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mant = bits & 0x7fffffu;
  if (exp >= 31)
    return uint16_t(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10)
      return uint16_t(sign);
    mant |= 0x800000u;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half;
  return uint16_t(sign | half);
}

/// A device buffer of `count` elements of `bytes` each.
struct Buffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  Buffer(size_t count, size_t elementBytes) : bytes(count * elementBytes) {
    CHECK(cuMemAlloc(&ptr, bytes ? bytes : 1));
  }
  ~Buffer() { cuMemFree(ptr); }
  /// NaN for floats, -1 for integers: untouched results stand out.
  void poison() { CHECK(cuMemsetD8(ptr, 0xff, bytes)); }
  void upload(const void *data) { CHECK(cuMemcpyHtoD(ptr, data, bytes)); }
  void download(void *data) { CHECK(cuMemcpyDtoH(data, ptr, bytes)); }
};

struct Context {
  CUcontext context = nullptr;
  std::mt19937_64 rng;
  uint64_t seed;
  Context() {
    CHECK(cuInit(0));
    CUdevice device;
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));
    seed = std::random_device{}();
    if (const char *fixed = std::getenv("TILEC_TEST_SEED"))
      seed = std::strtoull(fixed, nullptr, 10);
    rng.seed(seed);
  }
  std::vector<float> uniform(size_t count, float lo = -1, float hi = 1) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> values(count);
    for (float &v : values)
      v = dist(rng);
    return values;
  }
};

/// bfloat16 from float, rounding to nearest even (finite inputs).
inline uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1);
  return uint16_t((bits + rounding) >> 16);
}

inline float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// The bits of `values` as halves, or bfloat16 with `bf16`.
inline std::vector<uint16_t> toSixteenBits(const std::vector<float> &values,
                                           bool bf16) {
  std::vector<uint16_t> result(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    result[i] = bf16 ? floatToBf16(values[i]) : floatToHalf(values[i]);
  return result;
}

inline std::vector<double> widen(const std::vector<float> &values) {
  return std::vector<double>(values.begin(), values.end());
}

inline std::vector<uint16_t> toHalf(const std::vector<float> &values) {
  std::vector<uint16_t> result(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    result[i] = floatToHalf(values[i]);
  return result;
}

/// Rounds through half precision, as a half input is seen on the GPU.
inline std::vector<float> roundHalf(const std::vector<float> &values) {
  std::vector<float> result(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    result[i] = halfToFloat(floatToHalf(values[i]));
  return result;
}

/// Compares `got` with `want` elementwise: |got - want| <= atol + rtol *
/// |want|. Prints one PASS or FAIL line and returns whether it passed.
/// Compares with a tolerance of each element's own, `tolerance[i]`.
inline bool compare(const std::string &name, const std::vector<double> &got,
                    const std::vector<double> &want,
                    const std::vector<double> &tolerance, uint64_t seed) {
  size_t bad = 0, first = 0;
  double maxErr = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double err = std::fabs(got[i] - want[i]);
    bool ok = err <= tolerance[i] && !std::isnan(got[i]);
    if (!std::isnan(err))
      maxErr = std::max(maxErr, err);
    if (!ok && bad++ == 0)
      first = i;
  }
  if (bad == 0) {
    std::printf("PASS %-48s max|err| %.3g (%zu elements, seed %llu)\n",
                name.c_str(), maxErr, want.size(), (unsigned long long)seed);
    return true;
  }
  std::printf("FAIL %-48s %zu of %zu wrong; first at %zu: got %.6g want "
              "%.6g (seed %llu)\n",
              name.c_str(), bad, want.size(), first, got[first], want[first],
              (unsigned long long)seed);
  return false;
}

inline bool compare(const std::string &name, const std::vector<double> &got,
                    const std::vector<double> &want, double atol, double rtol,
                    uint64_t seed) {
  std::vector<double> tolerance(want.size());
  for (size_t i = 0; i < want.size(); ++i)
    tolerance[i] = atol + rtol * std::fabs(want[i]);
  return compare(name, got, want, tolerance, seed);
}

#endif // TILEC_TEST_GPU_COMMON_H
