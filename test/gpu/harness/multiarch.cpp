// A header with binaries for several targets loads the one that suits the
// device, or refuses with CUDA_ERROR_NO_BINARY_FOR_GPU when none does.
// Built against test/gpu/kernels/copy.tile's elementwise kernel compiled
// with the --arch list in ARCHS (a C string).
#include "common.h"

#include <cstring>

/// Whether `arch` ("sm_80", "sm_90a") runs on a device of compute
/// capability major.minor, as the header's choice should decide.
static bool suits(const std::string &arch, int major, int minor) {
  int value = std::atoi(arch.c_str() + 3);
  bool specific = arch.back() == 'a';
  if (specific)
    return value == major * 10 + minor;
  return value / 10 == major && value % 10 <= minor;
}

int main() {
  Context ctx;
  CUdevice device;
  int major, minor;
  CHECK(cuCtxGetDevice(&device));
  CHECK(cuDeviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  CHECK(cuDeviceGetAttribute(
      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  bool expectBinary = false;
  std::string archs = ARCHS;
  for (size_t start = 0; start <= archs.size();) {
    size_t end = archs.find(',', start);
    if (end == std::string::npos)
      end = archs.size();
    expectBinary |= suits(archs.substr(start, end - start), major, minor);
    start = end + 1;
  }

  const int64_t m = 100, n = 64;
  std::vector<float> x = ctx.uniform(size_t(m) * n);
  Buffer X(x.size(), 4), Y(x.size(), 4), Z(x.size(), 4);
  X.upload(x.data());
  Y.poison();
  Z.poison();
  CUresult result = copy2d_launch(nullptr, X.ptr, Y.ptr, Z.ptr, m, n);
  std::string name =
      std::string(TEST_NAME) + " on sm_" + std::to_string(major * 10 + minor);
  if (!expectBinary) {
    bool ok = result == CUDA_ERROR_NO_BINARY_FOR_GPU;
    std::printf("%s %-48s %s\n", ok ? "PASS" : "FAIL", name.c_str(),
                ok ? "refused: no binary for this GPU" : "not refused");
    return ok ? 0 : 1;
  }
  CHECK(result);
  CHECK(cuCtxSynchronize());
  std::vector<float> y(x.size());
  Y.download(y.data());
  return compare(name, widen(y), widen(x), 0, 0, ctx.seed) ? 0 : 1;
}
