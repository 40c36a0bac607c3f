//===- Targets.h - The GPUs tilec compiles for ------------------*- C++ -*-===//
//
// Part of tilec. A target is a description the passes consult: vendor, chip
// name, warp size, the shared memory a block may use and the Hopper
// features.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DRIVER_TARGETS_H
#define TILEC_DRIVER_TARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

#include <cstdint>

namespace tilec {

struct TargetInfo {
  enum class Vendor { NVIDIA, AMD, Host };
  /// The name given to --arch: "sm_90a", "gfx942".
  llvm::StringRef name;
  Vendor vendor;
  /// The hardware threads of a warp (wavefront).
  int warpSize;
  /// The shared memory (LDS) one block may use, in bytes.
  int64_t maxSharedMemoryBytes;
  /// A short description for --help.
  llvm::StringRef description;
  /// The bulk tensor copy engine (TMA) with transaction barriers: sm_90.
  bool hasTma = false;
  /// Warpgroup MMA (wgmma) and register reallocation (setmaxnreg): sm_90a.
  bool hasWgmma = false;
  /// Matrix cores (MFMA) on waves of 64: CDNA2 and CDNA3 (gfx90a, gfx942).
  bool hasMfma = false;
  /// MFMA on FNUZ 8-bit floats: CDNA3 (gfx942).
  bool hasMfmaFp8 = false;
  /// The 32-bit registers one thread may hold: 255 on NVIDIA, 512 on CDNA
  /// (256 VGPRs and 256 AGPRs), 256 on RDNA3.
  int64_t registersPerThread = 255;
  /// cvt between pairs of 8-bit floats (e4m3, e5m2) and f16 or f32: sm_89
  /// on.
  bool hasFp8Conversions = false;

  bool isNVIDIA() const { return vendor == Vendor::NVIDIA; }
  /// The host CPU: kernels run their blocks one after the other.
  bool isHost() const { return vendor == Vendor::Host; }
};

/// The multiprocessors (compute units) of the GPU a target is most often
/// compiled for, which answer TileLang's device queries, and that GPU.
struct TypicalDevice {
  int64_t multiprocessors;
  llvm::StringRef gpu;
};
std::optional<TypicalDevice> getTypicalDevice(const TargetInfo &target);

/// The architecture tilec compiles for when --arch is not given.
inline constexpr llvm::StringLiteral kDefaultArch = "sm_90a";

/// Every supported GPU target.
llvm::ArrayRef<TargetInfo> getTargets();
/// The host CPU target (--target host).
const TargetInfo &getHostTarget();
/// The target named `name`, or null.
const TargetInfo *lookupTarget(llvm::StringRef name);

} // namespace tilec

#endif // TILEC_DRIVER_TARGETS_H
