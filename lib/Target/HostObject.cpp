//===- HostObject.cpp - An object file for the host CPU -------------------===//
//
// Part of tilec. Translates a module in the LLVM dialect to LLVM IR,
// optimizes it with LLVM's default pipeline for the chosen level, and emits
// an x86-64 object file (or its assembly) for the generic x86-64 CPU, so that
// it runs on any x86-64 machine.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/HostObject.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;
using namespace tilec;

static constexpr const char *kHostTriple = "x86_64-unknown-linux-gnu";
static constexpr const char *kHostCpu = "x86-64";

FailureOr<std::string> tilec::compileForHost(ModuleOp module, unsigned optLevel,
                                             HostOutput output) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
  });

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, "tilec");
  if (!llvmModule)
    return module.emitError()
           << "the host code could not be translated to LLVM IR";

  llvm::Triple triple(kHostTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError() << "no x86-64 code generator: " << error;
  llvm::CodeGenOptLevel codegenLevel =
      optLevel == 0   ? llvm::CodeGenOptLevel::None
      : optLevel == 1 ? llvm::CodeGenOptLevel::Less
      : optLevel == 2 ? llvm::CodeGenOptLevel::Default
                      : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, kHostCpu, "", llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, codegenLevel));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  // LLVM's own pipeline for the level: unrolling and vectorizing the loops
  // of whole tiles is most of what makes the host code fast.
  if (optLevel > 0) {
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager cgscc;
    llvm::ModuleAnalysisManager modules;
    llvm::PassBuilder builder(machine.get());
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(cgscc);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, cgscc, modules);
    llvm::OptimizationLevel level = optLevel == 1 ? llvm::OptimizationLevel::O1
                                    : optLevel == 2
                                        ? llvm::OptimizationLevel::O2
                                        : llvm::OptimizationLevel::O3;
    builder.buildPerModuleDefaultPipeline(level).run(*llvmModule, modules);
  }

  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  if (output == HostOutput::LLVMIR) {
    llvmModule->print(stream, /*AAW=*/nullptr);
    return std::string(buffer);
  }
  if (output == HostOutput::Bitcode) {
    llvm::WriteBitcodeToFile(*llvmModule, stream);
    return std::string(buffer);
  }
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, stream, nullptr,
                                   output == HostOutput::Assembly
                                       ? llvm::CodeGenFileType::AssemblyFile
                                       : llvm::CodeGenFileType::ObjectFile))
    return module.emitError() << "x86-64 code generation failed";
  codegen.run(*llvmModule);
  return std::string(buffer);
}
