//===- Targets.cpp - The GPUs tilec compiles for --------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/Targets.h"

#include "llvm/ADT/StringSwitch.h"

#include <cstdint>

using namespace tilec;

static const TargetInfo kTargets[] = {
    {"sm_80", TargetInfo::Vendor::NVIDIA, 32, 163 * 1024, "NVIDIA A100"},
    {"sm_86", TargetInfo::Vendor::NVIDIA, 32, 99 * 1024,
     "NVIDIA RTX 30 series, A40"},
    {"sm_89", TargetInfo::Vendor::NVIDIA, 32, 99 * 1024,
     "NVIDIA RTX 40 series, L40, L4", /*hasTma=*/false, /*hasWgmma=*/false,
     /*hasMfma=*/false, /*hasMfmaFp8=*/false, /*registersPerThread=*/255,
     /*hasFp8Conversions=*/true},
    {"sm_90", TargetInfo::Vendor::NVIDIA, 32, 227 * 1024,
     "NVIDIA H100, H200 (portable within Hopper: TMA, no wgmma)",
     /*hasTma=*/true, /*hasWgmma=*/false, /*hasMfma=*/false,
     /*hasMfmaFp8=*/false, /*registersPerThread=*/255,
     /*hasFp8Conversions=*/true},
    {"sm_90a", TargetInfo::Vendor::NVIDIA, 32, 227 * 1024,
     "NVIDIA H100, H200 (with the Hopper-only instructions: TMA, wgmma)",
     /*hasTma=*/true, /*hasWgmma=*/true, /*hasMfma=*/false,
     /*hasMfmaFp8=*/false, /*registersPerThread=*/255,
     /*hasFp8Conversions=*/true},
    {"gfx90a", TargetInfo::Vendor::AMD, 64, 64 * 1024, "AMD Instinct MI200",
     /*hasTma=*/false, /*hasWgmma=*/false, /*hasMfma=*/true,
     /*hasMfmaFp8=*/false, /*registersPerThread=*/512},
    {"gfx942", TargetInfo::Vendor::AMD, 64, 64 * 1024, "AMD Instinct MI300",
     /*hasTma=*/false, /*hasWgmma=*/false, /*hasMfma=*/true,
     /*hasMfmaFp8=*/true, /*registersPerThread=*/512},
    {"gfx1100", TargetInfo::Vendor::AMD, 32, 64 * 1024,
     "AMD Radeon RX 7900 series", /*hasTma=*/false, /*hasWgmma=*/false,
     /*hasMfma=*/false, /*hasMfmaFp8=*/false, /*registersPerThread=*/256},
};

llvm::ArrayRef<TargetInfo> tilec::getTargets() { return kTargets; }

const TargetInfo &tilec::getHostTarget() {
  // One thread runs a block; its buffers are on the heap, of any size.
  static const TargetInfo host{"host", TargetInfo::Vendor::Host, 1, INT64_MAX,
                               "the host CPU (x86-64)"};
  return host;
}

const TargetInfo *tilec::lookupTarget(llvm::StringRef name) {
  for (const TargetInfo &target : kTargets)
    if (target.name == name)
      return &target;
  return nullptr;
}

std::optional<TypicalDevice> tilec::getTypicalDevice(const TargetInfo &target) {
  return llvm::StringSwitch<std::optional<TypicalDevice>>(target.name)
      .Case("sm_80", TypicalDevice{108, "A100"})
      .Case("sm_86", TypicalDevice{84, "A40"})
      .Case("sm_89", TypicalDevice{142, "L40 and L40S"})
      .Cases({"sm_90", "sm_90a"}, TypicalDevice{132, "H100 SXM and H200"})
      .Case("gfx90a", TypicalDevice{110, "MI250X, one die of it"})
      .Case("gfx942", TypicalDevice{304, "MI300X"})
      .Case("gfx1100", TypicalDevice{96, "RX 7900 XTX"})
      .Default(std::nullopt);
}
