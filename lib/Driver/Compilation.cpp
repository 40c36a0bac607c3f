//===- Compilation.cpp - One source through every stage -------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/Compilation.h"
#include "tilec/Frontend/Import.h"
#include "tilec/InitTilec.h"
#include "tilec/Target/HostObject.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"

using namespace mlir;
using namespace tilec;

namespace {
using ConfigureFn = function_ref<LogicalResult(PassManager &)>;

/// Records whether a pass that failed was one of the verifiers.
struct VerifierFailureRecorder : public PassInstrumentation {
  explicit VerifierFailureRecorder(bool &verifierFailed)
      : verifierFailed(verifierFailed) {}
  void runAfterPassFailed(Pass *pass, Operation *) override {
    if (pass->getArgument().starts_with("tile-verify-"))
      verifierFailed = true;
  }
  bool &verifierFailed;
};
} // namespace

std::unique_ptr<MLIRContext> tilec::createCompilerContext() {
  DialectRegistry registry;
  registerDialects(registry);
  auto context =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  context->printOpOnDiagnostic(false);
  return context;
}

static void printModule(ModuleOp module, llvm::raw_ostream &os) {
  std::string text;
  llvm::raw_string_ostream textOs(text);
  module->print(textOs);
  os << text;
}

/// Compiles `module` for each of the compilation's targets and writes one
/// header that embeds all the binaries. The kernels must launch alike on
/// every target.
static LogicalResult compileForTargets(ModuleOp module,
                                       const Compilation &compilation,
                                       ConfigureFn configure,
                                       llvm::raw_ostream &os) {
  std::optional<ModuleInfo> combined;
  for (const CompileOptions &options : compilation.targets) {
    OwningOpRef<ModuleOp> copy = module.clone();
    if (failed(lowerModule(*copy, options, Stage::Tile, Stage::GPU, configure)))
      return failure();
    FailureOr<ModuleInfo> info = describeKernels(
        *copy, options, compilation.prefix, compilation.sourceName);
    if (failed(info) || failed(lowerModule(*copy, options, Stage::GPU,
                                           Stage::Binary, configure)))
      return failure();
    FailureOr<std::string> object = getCompiledObject(*copy);
    if (failed(object))
      return failure();
    // Each target may launch the kernels its own way (block, shared memory,
    // tensor maps); what the caller passes must not differ.
    auto sameInterface = [](const KernelInfo &a, const KernelInfo &b) {
      return a.name == b.name && a.params == b.params &&
             llvm::equal(a.launches, b.launches,
                         [](const LaunchInfo &x, const LaunchInfo &y) {
                           return x.symbol == y.symbol && x.sameGrid(y);
                         });
    };
    if (!combined) {
      combined = *info;
    } else if (combined->kernels.size() != info->kernels.size() ||
               !llvm::all_of(
                   llvm::zip(combined->kernels, info->kernels), [&](auto pair) {
                     return sameInterface(std::get<0>(pair), std::get<1>(pair));
                   })) {
      return emitError(module.getLoc())
             << "the kernels compiled for " << combined->getArchList()
             << " and for " << options.target->name
             << " take different parameters or grids; compile them to "
                "separate headers";
    }
    ImageInfo image{options.target->name.str(),
                    std::vector<uint8_t>(object->begin(), object->end())};
    image.kernels = info->kernels;
    combined->images.push_back(std::move(image));
  }
  writeHeader(*combined, os);
  return success();
}

/// Compiles `module` for the host CPU: the LLVM dialect, LLVM IR, x86-64
/// assembly, or an object file and the header that calls its functions.
static LogicalResult compileHostModule(ModuleOp module,
                                       const Compilation &compilation,
                                       ConfigureFn configure,
                                       llvm::raw_ostream &os,
                                       CompileResult &result) {
  const CompileOptions &options = compilation.targets.front();
  Emit emit = compilation.emit;
  // The header is written from the tile-level signatures.
  FailureOr<ModuleInfo> info =
      describeHostKernels(module, compilation.prefix, compilation.sourceName);
  if (failed(info))
    return failure();
  result.kernels = *info;
  if (failed(lowerModule(module, options, Stage::Tile, Stage::GPU, configure)))
    return failure();
  if (emit == Emit::VerifyOnly)
    return success();
  if (failed(lowerModule(module, options, Stage::GPU, Stage::LLVM, configure)))
    return failure();
  if (emit == Emit::LLVM) {
    printModule(module, os);
    return success();
  }
  std::string header;
  llvm::raw_string_ostream headerOs(header);
  writeHeader(*info, headerOs);
  if (emit == Emit::Header) {
    os << header;
    return success();
  }
  HostOutput output = emit == Emit::Assembly  ? HostOutput::Assembly
                      : emit == Emit::LLVMIR  ? HostOutput::LLVMIR
                      : emit == Emit::Bitcode ? HostOutput::Bitcode
                                              : HostOutput::Object;
  FailureOr<std::string> object =
      compileForHost(module, options.optLevel, output);
  if (failed(object))
    return failure();
  os << *object;
  if (emit == Emit::Binary)
    result.header = std::move(header);
  return success();
}

/// Runs the verifiers on copies of `module`, at `stage`, lowered for each
/// target as far as the verifiers run, so that an output taken before them
/// (the tile dialect, the layouts) is written only for kernels they accept.
/// A kernel the lowering stops on before the verifiers get to it is left to
/// the compilation that needs the lowering, which reports why.
static LogicalResult verifyAhead(ModuleOp module,
                                 const Compilation &compilation, Stage stage,
                                 ConfigureFn configure) {
  for (const CompileOptions &options : compilation.targets) {
    if (!options.verify)
      continue;
    bool verifierFailed = false;
    auto watched = [&](PassManager &pm) -> LogicalResult {
      if (failed(configure(pm)))
        return failure();
      pm.addInstrumentation(
          std::make_unique<VerifierFailureRecorder>(verifierFailed));
      return success();
    };
    OwningOpRef<ModuleOp> copy = module.clone();
    LogicalResult lowered = success();
    {
      // Quietly first: only the verifiers' findings are this output's.
      ScopedDiagnosticHandler quiet(module.getContext(),
                                    [](Diagnostic &) { return success(); });
      lowered = lowerModule(*copy, options, stage, Stage::GPU, watched);
    }
    if (succeeded(lowered) || !verifierFailed)
      continue;
    // Again, to report what the verifiers found.
    copy = module.clone();
    (void)lowerModule(*copy, options, stage, Stage::GPU, configure);
    return failure();
  }
  return success();
}

/// Compiles `module` for one GPU, as far as the compilation asks.
static LogicalResult compileGPUModule(ModuleOp module,
                                      const Compilation &compilation,
                                      ConfigureFn configure,
                                      llvm::raw_ostream &os,
                                      CompileResult &result) {
  const CompileOptions &options = compilation.targets.front();
  Emit emit = compilation.emit;
  if (failed(
          lowerModule(module, options, Stage::Tile, Stage::Layouts, configure)))
    return failure();
  if (emit == Emit::Layouts) {
    if (failed(verifyAhead(module, compilation, Stage::Layouts, configure)))
      return failure();
    printLayouts(module, os);
    return success();
  }
  if (failed(
          lowerModule(module, options, Stage::Layouts, Stage::GPU, configure)))
    return failure();
  if (emit == Emit::VerifyOnly)
    return success();
  if (emit == Emit::GPU) {
    printModule(module, os);
    return success();
  }
  // The gpu.funcs the description reads are gone after serialization.
  FailureOr<ModuleInfo> info = describeKernels(
      module, options, compilation.prefix, compilation.sourceName);
  if (failed(info))
    return failure();
  result.kernels = *info;
  if (failed(lowerModule(module, options, Stage::GPU, Stage::LLVM, configure)))
    return failure();
  if (emit == Emit::LLVM) {
    printModule(module, os);
    return success();
  }
  bool llvmIR = emit == Emit::LLVMIR || emit == Emit::Bitcode;
  CompileOptions serialized = options;
  if (llvmIR)
    serialized.llvmIR =
        emit == Emit::LLVMIR ? LLVMIRFormat::Text : LLVMIRFormat::Bitcode;
  Stage last = emit == Emit::Binary || emit == Emit::Header ? Stage::Binary
                                                            : Stage::Assembly;
  if (failed(lowerModule(module, serialized, Stage::LLVM, last, configure)))
    return failure();
  FailureOr<std::string> object = getCompiledObject(module);
  if (failed(object))
    return failure();
  if (llvmIR) {
    os << *object;
    return success();
  }
  ImageInfo image{options.target->name.str(),
                  std::vector<uint8_t>(object->begin(), object->end())};
  if (emit == Emit::Assembly) {
    os << *object;
    if (!compilation.headerWithAssembly)
      return success();
    // A header around the PTX: the driver compiles it at load time.
    image.bytes.push_back(0);
    image.isPTX = true;
  }
  info->images.push_back(std::move(image));
  std::string header;
  llvm::raw_string_ostream headerOs(header);
  writeHeader(*info, headerOs);
  if (emit == Emit::Header) {
    os << header;
    return success();
  }
  if (emit == Emit::Binary)
    os << *object;
  result.header = std::move(header);
  return success();
}

Compilation tilec::applyPassConfigs(ModuleOp module,
                                    const Compilation &compilation) {
  Compilation result = compilation;
  auto settings =
      module->getAttrOfType<DictionaryAttr>(frontend::kPassConfigsAttr);
  if (!settings)
    return result;
  module->removeAttr(frontend::kPassConfigsAttr);
  for (CompileOptions &options : result.targets) {
    // Fast math contracts multiplies and adds, which --no-fma forbids.
    if (auto fastMath = settings.getAs<BoolAttr>("fast_math");
        fastMath && !options.fastMathFromCommandLine && options.contractFloat)
      options.fastMath = fastMath.getValue();
    if (auto tma = settings.getAs<BoolAttr>("tma"); tma && !tma.getValue())
      options.allowTma = false;
    if (auto split = settings.getAs<BoolAttr>("warp_specialize");
        split && !split.getValue())
      options.allowWarpSpecialize = false;
  }
  return result;
}

LogicalResult tilec::compileSource(llvm::SourceMgr &sources,
                                   MLIRContext &context,
                                   const Compilation &compilation,
                                   ConfigureFn configure, llvm::raw_ostream &os,
                                   CompileResult &result) {
  if (compilation.emit == Emit::AST) {
    std::unique_ptr<frontend::Module> ast =
        frontend::parseTileFile(sources, &context);
    if (!ast)
      return failure();
    frontend::printAST(*ast, os);
    return success();
  }
  OwningOpRef<ModuleOp> module =
      frontend::importTileFile(sources, &context, compilation.import);
  if (!module)
    return failure();
  // The kernels' pass_configs, where the command line leaves a choice.
  const Compilation effective = applyPassConfigs(*module, compilation);
  if (failed(lowerModule(*module, effective.targets.front(), Stage::Imported,
                         Stage::Tile, configure)))
    return failure();
  if (effective.emit == Emit::Tile) {
    if (failed(verifyAhead(*module, effective, Stage::Tile, configure)))
      return failure();
    printModule(*module, os);
    return success();
  }
  if (effective.targets.front().target->isHost())
    return compileHostModule(*module, effective, configure, os, result);
  if (effective.targets.size() > 1)
    return compileForTargets(*module, effective, configure, os);
  return compileGPUModule(*module, effective, configure, os, result);
}
