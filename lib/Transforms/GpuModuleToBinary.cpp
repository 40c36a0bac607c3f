//===- GpuModuleToBinary.cpp - Compile gpu.modules to binaries ------------===//
//
// Part of tilec. Upstream's serialization of gpu.modules, with repairs of
// the optimized LLVM module where a back end gets it wrong.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/NVIDIA/LLVMIRFixes.h"
#include "tilec/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSwitch.h"

namespace tilec {
#define GEN_PASS_DEF_TILECGPUMODULETOBINARY
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct GpuModuleToBinaryPass
    : public tilec::impl::TilecGpuModuleToBinaryBase<GpuModuleToBinaryPass> {
  using TilecGpuModuleToBinaryBase::TilecGpuModuleToBinaryBase;

  void runOnOperation() override {
    std::optional<gpu::CompilationTarget> target =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
            .Case("bin", gpu::CompilationTarget::Binary)
            .Case("isa", gpu::CompilationTarget::Assembly)
            .Default(std::nullopt);
    if (!target) {
      getOperation()->emitError()
          << "unknown format '" << format << "': expected bin or isa";
      return signalPassFailure();
    }
    std::unique_ptr<SymbolTable> table;
    auto getSymbolTable = [&]() -> SymbolTable * {
      if (!table)
        if (Operation *op = SymbolTable::getNearestSymbolTable(getOperation()))
          table = std::make_unique<SymbolTable>(op);
      return table.get();
    };
    auto repair = [&](llvm::Module &module) {
      if (bf16ComparesInF32)
        tilec::nvidia::compareBf16InF32(module);
    };
    gpu::TargetOptions options(toolkit, /*librariesToLink=*/{},
                               /*cmdOptions=*/{}, /*elfSection=*/{}, *target,
                               getSymbolTable, /*initialLlvmIRCallback=*/{},
                               /*linkedLlvmIRCallback=*/{}, repair);
    if (failed(gpu::transformGpuModulesToBinaries(
            getOperation(), gpu::OffloadingLLVMTranslationAttrInterface(),
            options)))
      signalPassFailure();
  }
};

} // namespace
