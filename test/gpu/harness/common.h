// Shared helpers of the GPU test programs: device buffers, random data,
// poisoning, half-precision conversion and comparison with a reference.
// Built with TILEC_TEST_HOST, the same programs run the host target's
// functions on buffers of the host's memory; with TILEC_TEST_HIP, an AMD
// GPU's through HIP. LAUNCH(kernel, args...) calls the GPU header's
// kernel_launch or the host header's kernel_run, SYNC() waits for the GPU,
// and INVALID_VALUE is what all of them refuse arguments with.
#ifndef TILEC_TEST_GPU_COMMON_H
#define TILEC_TEST_GPU_COMMON_H

#include "check.h"

#ifdef TILEC_TEST_HOST
#define LAUNCH(kernel, ...) kernel##_run(__VA_ARGS__)
#define SYNC() ((void)0)
#define INVALID_VALUE TILEC_HOST_INVALID_VALUE
#elif defined(TILEC_TEST_HIP)
#include <hip/hip_runtime_api.h>
#define LAUNCH(kernel, ...) kernel##_launch(nullptr, __VA_ARGS__)
#define SYNC() CHECK(hipDeviceSynchronize())
#define INVALID_VALUE hipErrorInvalidValue
#else
#include <cuda.h>
#define LAUNCH(kernel, ...) kernel##_launch(nullptr, __VA_ARGS__)
#define SYNC() CHECK(cuCtxSynchronize())
#define INVALID_VALUE CUDA_ERROR_INVALID_VALUE
#endif

#include <algorithm>
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

#ifdef TILEC_TEST_HOST
/// A buffer of `count` elements of `bytes` each, aligned as cuMemAlloc's.
struct Buffer {
  char *ptr = nullptr;
  size_t bytes = 0;
  Buffer(size_t count, size_t elementBytes) : bytes(count * elementBytes) {
    ptr = static_cast<char *>(
        std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256));
    if (!ptr) {
      std::fprintf(stderr, "out of memory for %zu bytes\n", bytes);
      std::exit(2);
    }
  }
  ~Buffer() { std::free(ptr); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  /// NaN for floats, -1 for integers: untouched results stand out.
  void poison() { std::memset(ptr, 0xff, bytes); }
  void upload(const void *data) { std::memcpy(ptr, data, bytes); }
  void download(void *data) { std::memcpy(data, ptr, bytes); }
};
#elif defined(TILEC_TEST_HIP)
/// A device buffer of `count` elements of `bytes` each.
struct Buffer {
  char *ptr = nullptr;
  size_t bytes = 0;
  Buffer(size_t count, size_t elementBytes) : bytes(count * elementBytes) {
    void *p = nullptr;
    CHECK(hipMalloc(&p, bytes ? bytes : 1));
    ptr = static_cast<char *>(p);
  }
  ~Buffer() { (void)hipFree(ptr); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  /// NaN for floats, -1 for integers: untouched results stand out.
  void poison() { CHECK(hipMemset(ptr, 0xff, bytes)); }
  void upload(const void *data) {
    CHECK(hipMemcpy(ptr, data, bytes, hipMemcpyHostToDevice));
  }
  void download(void *data) {
    CHECK(hipMemcpy(data, ptr, bytes, hipMemcpyDeviceToHost));
  }
};
#else
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
#endif

struct Context {
  std::mt19937_64 rng;
  uint64_t seed;
  Context() {
#if defined(TILEC_TEST_HIP)
    CHECK(hipInit(0));
    CHECK(hipSetDevice(0));
#elif !defined(TILEC_TEST_HOST)
    CUcontext context = nullptr;
    CHECK(cuInit(0));
    CUdevice device;
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));
#endif
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

/// Differential testing: test/gpu/run.py runs a GPU program after the same
/// program built for the host target, both on one seed (so on the same
/// inputs). With TILEC_TEST_RECORD=FILE, compare() appends what it got and
/// its tolerances to FILE; with TILEC_TEST_AGAINST=FILE, it also checks
/// that what it got agrees with the record of the same comparison, element
/// by element, as closely as each must agree with the reference.
class Record {
public:
  static Record &get() {
    static Record record;
    return record;
  }

  void write(const std::string &name, const std::vector<double> &got,
             const std::vector<double> &tolerance) {
    if (!out)
      return;
    uint64_t sizes[2] = {name.size(), got.size()};
    std::fwrite(sizes, sizeof(sizes), 1, out);
    std::fwrite(name.data(), 1, name.size(), out);
    std::fwrite(got.data(), sizeof(double), got.size(), out);
    std::fwrite(tolerance.data(), sizeof(double), tolerance.size(), out);
    std::fflush(out);
  }

  /// Checks `got` against the next comparison of the record, if there is
  /// one; prints a PASS or FAIL line for it.
  bool check(const std::string &name, const std::vector<double> &got,
             const std::vector<double> &tolerance) {
    if (!in)
      return true;
    std::string label = name + " vs host";
    uint64_t sizes[2];
    if (std::fread(sizes, sizeof(sizes), 1, in) != 1 || sizes[0] > 4096) {
      std::printf("FAIL %-48s the host's record ends\n", label.c_str());
      return false;
    }
    std::string theirName(sizes[0], '\0');
    std::vector<double> theirs(sizes[1]), theirTolerance(sizes[1]);
    bool complete =
        std::fread(&theirName[0], 1, sizes[0], in) == sizes[0] &&
        std::fread(theirs.data(), sizeof(double), sizes[1], in) == sizes[1] &&
        std::fread(theirTolerance.data(), sizeof(double), sizes[1], in) ==
            sizes[1];
    if (!complete || theirName != name || theirs.size() != got.size()) {
      std::printf("FAIL %-48s the host compared '%s' of %zu elements\n",
                  label.c_str(), theirName.c_str(), theirs.size());
      return false;
    }
    size_t bad = 0, first = 0;
    double maxDiff = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      double diff = std::fabs(got[i] - theirs[i]);
      bool same = diff <= std::max(tolerance[i], theirTolerance[i]) ||
                  (std::isnan(got[i]) && std::isnan(theirs[i]));
      if (!std::isnan(diff))
        maxDiff = std::max(maxDiff, diff);
      if (!same && bad++ == 0)
        first = i;
    }
    if (bad == 0) {
      std::printf("PASS %-48s max|diff| %.3g\n", label.c_str(), maxDiff);
      return true;
    }
    std::printf("FAIL %-48s %zu of %zu differ; first at %zu: got %.6g, the "
                "host %.6g\n",
                label.c_str(), bad, got.size(), first, got[first],
                theirs[first]);
    return false;
  }

private:
  Record() {
    if (const char *path = std::getenv("TILEC_TEST_RECORD"))
      out = std::fopen(path, "wb");
    if (const char *path = std::getenv("TILEC_TEST_AGAINST")) {
      in = std::fopen(path, "rb");
      if (!in) {
        std::fprintf(stderr, "cannot read the host's record %s\n", path);
        std::exit(2);
      }
    }
  }
  ~Record() {
    if (out)
      std::fclose(out);
    if (in)
      std::fclose(in);
  }

  std::FILE *out = nullptr;
  std::FILE *in = nullptr;
};

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
  if (bad == 0)
    std::printf("PASS %-48s max|err| %.3g (%zu elements, seed %llu)\n",
                name.c_str(), maxErr, want.size(), (unsigned long long)seed);
  else
    std::printf("FAIL %-48s %zu of %zu wrong; first at %zu: got %.6g want "
                "%.6g (seed %llu)\n",
                name.c_str(), bad, want.size(), first, got[first], want[first],
                (unsigned long long)seed);
  Record::get().write(name, got, tolerance);
  bool agrees = Record::get().check(name, got, tolerance);
  return bad == 0 && agrees;
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
