//===- GpuModuleToBinary.cpp - Compile gpu.modules to binaries ------------===//
//
// Part of tilec. Upstream's serialization of gpu.modules, with repairs of
// the optimized LLVM module where a back end gets it wrong.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/NVIDIA/LLVMIRFixes.h"
#include "tilec/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Module.h"

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
    // LLVM IR is the module code generation would compile: the
    // assembly's, kept as it reaches the back end.
    bool llvmText = format == "ll", llvmBitcode = format == "bc";
    std::optional<gpu::CompilationTarget> target =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
            .Case("bin", gpu::CompilationTarget::Binary)
            .Cases({"isa", "ll", "bc"}, gpu::CompilationTarget::Assembly)
            .Default(std::nullopt);
    if (!target) {
      getOperation()->emitError()
          << "unknown format '" << format << "': expected bin, isa, ll or bc";
      return signalPassFailure();
    }
    std::unique_ptr<SymbolTable> table;
    auto getSymbolTable = [&]() -> SymbolTable * {
      if (!table)
        if (Operation *op = SymbolTable::getNearestSymbolTable(getOperation()))
          table = std::make_unique<SymbolTable>(op);
      return table.get();
    };
    // The LLVM IR of each gpu.module, in the order they are compiled.
    SmallVector<std::string> llvmIR;
    auto repair = [&](llvm::Module &module) {
      if (bf16ComparesInF32)
        tilec::nvidia::compareBf16InF32(module);
      if (!llvmText && !llvmBitcode)
        return;
      std::string &text = llvmIR.emplace_back();
      llvm::raw_string_ostream os(text);
      if (llvmBitcode)
        llvm::WriteBitcodeToFile(module, os);
      else
        module.print(os, /*AAW=*/nullptr);
    };
    gpu::TargetOptions options(toolkit, /*librariesToLink=*/{},
                               /*cmdOptions=*/assemblerOptions,
                               /*elfSection=*/{}, *target, getSymbolTable,
                               /*initialLlvmIRCallback=*/{},
                               /*linkedLlvmIRCallback=*/{}, repair);
    if (failed(gpu::transformGpuModulesToBinaries(
            getOperation(), gpu::OffloadingLLVMTranslationAttrInterface(),
            options)))
      return signalPassFailure();
    if (!llvmText && !llvmBitcode)
      return;
    // Each binary's object becomes its module's LLVM IR.
    unsigned next = 0;
    WalkResult result = getOperation()->walk([&](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute attr : binary.getObjects()) {
        if (next == llvmIR.size()) {
          binary.emitError() << "no LLVM IR was kept for this binary";
          return WalkResult::interrupt();
        }
        auto object = cast<gpu::ObjectAttr>(attr);
        objects.push_back(gpu::ObjectAttr::get(
            object.getTarget(), gpu::CompilationTarget::Offload,
            StringAttr::get(&getContext(), llvmIR[next++]),
            object.getProperties(), object.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(&getContext(), objects));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
