//===- tilec.cpp - The tilec compiler driver ------------------------------===//
//
// Part of tilec. Reads a .tile file and writes what --emit asks for: the
// syntax tree, the tile dialect, the lowered IR, PTX or AMDGCN assembly, a
// cubin or hsaco with its C header, or the header alone. Errors print as
// `file:line:col: error: ...` with the source line; any error exits with 1
// and writes no output file.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/Compiler.h"
#include "tilec/Driver/Files.h"
#include "tilec/Driver/InternalErrors.h"
#include "tilec/Driver/SourceDiagnostics.h"
#include "tilec/Driver/Temporaries.h"
#include "tilec/Frontend/Import.h"
#include "tilec/Frontend/Source.h"
#include "tilec/InitTilec.h"
#include "tilec/Target/HeaderGen.h"
#include "tilec/Target/HostObject.h"
#include "tilec/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ProgramStack.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>

using namespace tilec;

namespace {

struct Options {
  std::string input;
  std::string output = "-";
  std::string emit;
  std::vector<std::string> defines;
  std::string kernel;
  std::string arch = kDefaultArch.str();
  /// "gpu" (the --arch targets) or "host".
  std::string target = "gpu";
  bool archGiven = false;
  unsigned optLevel = 3;
  bool fastMath = false;
  bool noFma = false;
  bool noTma = false;
  bool noAsyncCopies = false;
  bool noWgmma = false;
  bool noWarpSpecialize = false;
  bool noVerify = false;
  bool verifyOnly = false;
  std::vector<std::string> remarks;
  std::string header;
  std::string cudaPath;
  std::string rocmPath;
  bool splitInputFile = false;
  bool verifyDiagnostics = false;
  /// Where to write a Make-style depfile, if anywhere.
  std::string depfile;
  /// For tests of internal-error reporting: a fault to inject.
  std::string injectFault;
};

/// What --emit produces.
enum class Emit {
  AST,
  Tile,
  Layouts,
  GPU,
  LLVM,
  Assembly,
  Binary,
  Header,
  /// --verify-only: the bounds verifier's remarks, and nothing written.
  VerifyOnly
};

struct Job {
  Emit emit;
  /// One per --arch; several only for header output.
  std::vector<CompileOptions> targets;
  frontend::ImportOptions import;
  /// The C prefix of the header's module functions.
  std::string prefix;
  std::string sourceName;
  /// Where the header goes when a binary is written; empty otherwise.
  std::string headerPath;
  /// A fault for tilec-test-inject-fault to inject, if any.
  std::string injectFault;
};

/// The faults --debug-inject-fault injects: in a pass, or in the commit of
/// the outputs.
constexpr llvm::StringLiteral kPassFaults[] = {"invalid-ir", "silent-failure",
                                               "reported",
                                               "generated-code-error", "crash"};
constexpr llvm::StringLiteral kInterruptAtCommit = "interrupt-at-commit";

} // namespace

/// Checks `NAME=VALUE` and splits it.
static bool parseDefine(llvm::StringRef text,
                        std::pair<std::string, std::string> &define) {
  auto [name, value] = text.split('=');
  if (name.empty() || value.empty() || !text.contains('='))
    return false;
  if (!llvm::isAlpha(name.front()) && name.front() != '_')
    return false;
  for (char c : name)
    if (!llvm::isAlnum(c) && c != '_')
      return false;
  define = {name.str(), value.str()};
  return true;
}

/// A C identifier made from a file name: "gemm-fp16.cubin" -> "gemm_fp16".
static std::string prefixFor(llvm::StringRef path) {
  std::string prefix;
  for (char c : llvm::sys::path::stem(path))
    prefix.push_back(llvm::isAlnum(c) ? c : '_');
  if (prefix.empty() || llvm::isDigit(prefix.front()))
    prefix.insert(0, "tilec_");
  return prefix;
}

static std::string printModule(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// Compiles `module` for each of `job`'s targets and writes one header that
/// embeds all the binaries. The kernels must launch alike on every target.
static mlir::LogicalResult compileForTargets(
    mlir::ModuleOp module, const Job &job,
    llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)> configure,
    llvm::raw_ostream &os) {
  std::optional<ModuleInfo> combined;
  for (const CompileOptions &options : job.targets) {
    mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
    if (mlir::failed(
            lowerModule(*copy, options, Stage::Tile, Stage::GPU, configure)))
      return mlir::failure();
    mlir::FailureOr<ModuleInfo> info =
        describeKernels(*copy, options, job.prefix, job.sourceName);
    if (mlir::failed(info) ||
        mlir::failed(
            lowerModule(*copy, options, Stage::GPU, Stage::Binary, configure)))
      return mlir::failure();
    mlir::FailureOr<std::string> object = getCompiledObject(*copy);
    if (mlir::failed(object))
      return mlir::failure();
    // Each target may launch the kernels its own way (block, shared memory,
    // tensor maps); what the caller passes must not differ.
    auto sameInterface = [](const KernelInfo &a, const KernelInfo &b) {
      return a.name == b.name && a.params == b.params &&
             a.grid[0] == b.grid[0] && a.grid[1] == b.grid[1] &&
             a.grid[2] == b.grid[2];
    };
    if (!combined) {
      combined = *info;
    } else if (combined->kernels.size() != info->kernels.size() ||
               !llvm::all_of(
                   llvm::zip(combined->kernels, info->kernels), [&](auto pair) {
                     return sameInterface(std::get<0>(pair), std::get<1>(pair));
                   })) {
      return mlir::emitError(module.getLoc())
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
  return mlir::success();
}

/// Compiles `module` for the host CPU: the LLVM dialect, x86-64 assembly, or
/// an object file and the header that calls its functions.
static mlir::LogicalResult compileHostModule(
    mlir::ModuleOp module, const Job &job,
    llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)> configure,
    llvm::raw_ostream &os, std::optional<std::string> &headerText) {
  const CompileOptions &options = job.targets.front();
  mlir::FailureOr<ModuleInfo> info =
      describeHostKernels(module, job.prefix, job.sourceName);
  if (mlir::failed(info) ||
      mlir::failed(
          lowerModule(module, options, Stage::Tile, Stage::GPU, configure)))
    return mlir::failure();
  if (job.emit == Emit::VerifyOnly)
    return mlir::success();
  if (mlir::failed(
          lowerModule(module, options, Stage::GPU, Stage::LLVM, configure)))
    return mlir::failure();
  if (job.emit == Emit::LLVM) {
    os << printModule(module);
    return mlir::success();
  }
  std::string header;
  llvm::raw_string_ostream headerOs(header);
  writeHeader(*info, headerOs);
  if (job.emit == Emit::Header) {
    os << header;
    return mlir::success();
  }
  mlir::FailureOr<std::string> object = compileForHost(
      module, options.optLevel, /*assembly=*/job.emit == Emit::Assembly);
  if (mlir::failed(object))
    return mlir::failure();
  os << *object;
  if (job.emit == Emit::Binary)
    headerText = std::move(header);
  return mlir::success();
}

/// Internal errors end the run at once: the IR can no longer be trusted, and
/// no output has been written yet.
[[noreturn]] static void exitAfterInternalError() {
  removePrivateTemporaryFolder();
  llvm::errs().flush();
  std::_Exit(2);
}

/// Compiles one buffer (a file, or one part of a split file). Text results
/// and binaries go to `os`, the header beside a binary to `headerText`.
static mlir::LogicalResult
compileBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer, const Job &job,
              bool verifyDiagnostics, llvm::raw_ostream &os,
              std::optional<std::string> &headerText) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  // One thread: internal-error checks and crash reports follow the passes
  // as they run, and diagnostics come in a stable order.
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // Diagnostics point at .tile lines; an IR dump would only get in the way.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());

  auto run = [&]() -> mlir::LogicalResult {
    if (job.emit == Emit::AST) {
      std::unique_ptr<frontend::Module> ast =
          frontend::parseTileFile(sourceMgr, &context);
      if (!ast)
        return mlir::failure();
      frontend::printAST(*ast, os);
      return mlir::success();
    }
    mlir::OwningOpRef<mlir::ModuleOp> module =
        frontend::importTileFile(sourceMgr, &context, job.import);
    if (!module)
      return mlir::failure();
    auto configure = [&](mlir::PassManager &pm) -> mlir::LogicalResult {
      if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
        return mlir::failure();
      mlir::applyDefaultTimingPassManagerCLOptions(pm);
      addInternalErrorChecks(pm, exitAfterInternalError);
      if (!job.injectFault.empty())
        pm.addPass(createTilecTestInjectFault({job.injectFault}));
      return mlir::success();
    };
    if (mlir::failed(lowerModule(*module, job.targets.front(), Stage::Imported,
                                 Stage::Tile, configure)))
      return mlir::failure();
    if (job.emit == Emit::Tile) {
      os << printModule(*module);
      return mlir::success();
    }
    if (job.targets.front().target->isHost())
      return compileHostModule(*module, job, configure, os, headerText);

    if (job.targets.size() > 1)
      return compileForTargets(*module, job, configure, os);
    const CompileOptions &options = job.targets.front();
    if (mlir::failed(lowerModule(*module, options, Stage::Tile, Stage::Layouts,
                                 configure)))
      return mlir::failure();
    if (job.emit == Emit::Layouts) {
      printLayouts(*module, os);
      return mlir::success();
    }
    if (mlir::failed(lowerModule(*module, options, Stage::Layouts, Stage::GPU,
                                 configure)))
      return mlir::failure();
    if (job.emit == Emit::VerifyOnly)
      return mlir::success();
    if (job.emit == Emit::GPU) {
      os << printModule(*module);
      return mlir::success();
    }
    // The gpu.funcs the description reads are gone after serialization.
    mlir::FailureOr<ModuleInfo> info =
        describeKernels(*module, options, job.prefix, job.sourceName);
    if (mlir::failed(info))
      return mlir::failure();
    if (mlir::failed(
            lowerModule(*module, options, Stage::GPU, Stage::LLVM, configure)))
      return mlir::failure();
    if (job.emit == Emit::LLVM) {
      os << printModule(*module);
      return mlir::success();
    }
    Stage last = job.emit == Emit::Assembly ? Stage::Assembly : Stage::Binary;
    if (mlir::failed(
            lowerModule(*module, options, Stage::LLVM, last, configure)))
      return mlir::failure();
    mlir::FailureOr<std::string> object = getCompiledObject(*module);
    if (mlir::failed(object))
      return mlir::failure();
    ImageInfo image{options.target->name.str(),
                    std::vector<uint8_t>(object->begin(), object->end())};
    if (job.emit == Emit::Assembly) {
      os << *object;
      if (job.headerPath.empty())
        return mlir::success();
      // A header around the PTX: the driver compiles it at load time.
      image.bytes.push_back(0);
      image.isPTX = true;
    }
    info->images.push_back(std::move(image));
    std::string header;
    llvm::raw_string_ostream headerOs(header);
    writeHeader(*info, headerOs);
    if (job.emit == Emit::Header) {
      os << header;
      return mlir::success();
    }
    if (job.emit == Emit::Binary)
      os << *object;
    headerText = std::move(header);
    return mlir::success();
  };

  if (!verifyDiagnostics) {
    SourceDiagnosticPrinter printer(sourceMgr, &context);
    // An error fails the run even where the code that reported it went on
    // (MLIR's serializers do).
    bool reportedError = false;
    mlir::DiagnosticEngine::HandlerID counter =
        context.getDiagEngine().registerHandler([&](mlir::Diagnostic &diag) {
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
            reportedError = true;
          return mlir::failure();
        });
    mlir::LogicalResult result = run();
    context.getDiagEngine().eraseHandler(counter);
    return mlir::failure(mlir::failed(result) || reportedError);
  }
  mlir::SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
  (void)run();
  return handler.verify();
}

/// A path as Make and Ninja read it in a depfile.
static std::string escapeForDepfile(llvm::StringRef path) {
  std::string result;
  for (char c : path) {
    if (c == ' ' || c == '#' || c == '\\')
      result += '\\';
    else if (c == '$')
      result += '$';
    result += c;
  }
  return result;
}

/// The depfile of a run: every file written depends on every file read
/// (the input; .tile files include nothing).
static std::string makeDepfile(const Options &options,
                               llvm::ArrayRef<std::string> written) {
  std::string text;
  for (const std::string &path : written) {
    if (path == "-")
      continue;
    if (!text.empty())
      text += " ";
    text += escapeForDepfile(path);
  }
  text += ":";
  if (options.input != "-")
    text += " " + escapeForDepfile(options.input);
  return text + "\n";
}

/// Picks what to emit from --emit, else from the output's suffix.
static std::optional<Emit> chooseEmit(const Options &options,
                                      const TargetInfo &target) {
  if (options.verifyOnly)
    return Emit::VerifyOnly;
  llvm::StringRef emit = options.emit;
  if (emit.empty()) {
    llvm::StringRef ext = llvm::sys::path::extension(options.output);
    emit = llvm::StringSwitch<llvm::StringRef>(ext)
               .Case(".cubin", "cubin")
               .Case(".hsaco", "hsaco")
               .Case(".ptx", "ptx")
               .Case(".s", "isa")
               .Case(".o", "obj")
               .Case(".h", "header")
               .Default("tile");
  }
  auto fail = [&](const llvm::Twine &message) -> std::optional<Emit> {
    llvm::errs() << "tilec: error: " << message << "\n";
    return std::nullopt;
  };
  if (target.isHost()) {
    if (emit == "layouts" || emit == "gpu" || emit == "ptx" ||
        emit == "cubin" || emit == "hsaco")
      return fail("--emit=" + emit +
                  " is for GPU targets; the host target emits ast, tile, "
                  "llvm, isa (x86-64 assembly), obj or header");
  } else {
    if (emit == "obj")
      return fail("--emit=obj is for --target host; a GPU target's binary "
                  "is a cubin or an hsaco");
    if ((emit == "ptx" || emit == "cubin") && !target.isNVIDIA())
      return fail("--emit=" + emit + " needs an NVIDIA --arch, not " +
                  target.name);
    if (emit == "hsaco" && target.isNVIDIA())
      return fail("--emit=hsaco needs an AMD --arch, not " + target.name);
  }
  return llvm::StringSwitch<std::optional<Emit>>(emit)
      .Case("ast", Emit::AST)
      .Case("tile", Emit::Tile)
      .Case("layouts", Emit::Layouts)
      .Case("gpu", Emit::GPU)
      .Case("llvm", Emit::LLVM)
      .Cases({"ptx", "isa"}, Emit::Assembly)
      .Cases({"cubin", "hsaco", "obj"}, Emit::Binary)
      .Case("header", Emit::Header)
      .Default(std::nullopt);
}

static int compile(const Options &options, const char *argv0) {
  // --arch sm_80,sm_90a: one target per name.
  llvm::SmallVector<const TargetInfo *> targets;
  llvm::SmallVector<llvm::StringRef> names;
  if (options.target == "host") {
    if (options.archGiven) {
      llvm::errs() << "tilec: error: --arch names a GPU; --target host "
                      "compiles for the host CPU\n";
      return 1;
    }
    targets.push_back(&getHostTarget());
  } else {
    llvm::StringRef(options.arch).split(names, ',');
  }
  for (llvm::StringRef name : names) {
    const TargetInfo *target = lookupTarget(name.trim());
    if (!target) {
      llvm::errs() << "tilec: error: unknown --arch '" << name.trim()
                   << "'; supported:";
      for (const TargetInfo &t : getTargets())
        llvm::errs() << " " << t.name;
      llvm::errs() << "\n";
      return 1;
    }
    if (llvm::is_contained(targets, target)) {
      llvm::errs() << "tilec: error: --arch names " << target->name
                   << " twice\n";
      return 1;
    }
    if (!targets.empty() && target->isNVIDIA() != targets[0]->isNVIDIA()) {
      llvm::errs() << "tilec: error: --arch mixes NVIDIA and AMD targets; "
                      "their headers use different runtimes, so compile "
                      "them separately\n";
      return 1;
    }
    targets.push_back(target);
  }
  const TargetInfo *target = targets.front();
  std::optional<Emit> emit = chooseEmit(options, *target);
  if (!emit)
    return 1;
  if (targets.size() > 1 && *emit != Emit::Header) {
    llvm::errs() << "tilec: error: with several --arch targets, tilec writes "
                    "one header that embeds a binary for each: give "
                    "-o FILE.h or --emit=header\n";
    return 1;
  }

  Job job;
  job.emit = *emit;
  for (const TargetInfo *t : targets) {
    CompileOptions compile;
    compile.target = t;
    compile.optLevel = options.optLevel;
    compile.fastMath = options.fastMath;
    compile.contractFloat = !options.noFma;
    compile.allowTma = !options.noTma;
    compile.allowAsyncCopies = !options.noAsyncCopies;
    compile.allowWgmma = !options.noWgmma;
    compile.allowWarpSpecialize = !options.noWarpSpecialize;
    compile.verify = !options.noVerify;
    compile.boundsRemarks =
        options.verifyOnly || llvm::is_contained(options.remarks, "bounds");
    compile.raceRemarks =
        options.verifyOnly || llvm::is_contained(options.remarks, "races");
    compile.alignmentRemarks =
        options.verifyOnly || llvm::is_contained(options.remarks, "alignment");
    compile.cudaPath =
        options.cudaPath.empty() ? getDefaultCudaPath() : options.cudaPath;
    compile.rocmPath =
        options.rocmPath.empty() ? getDefaultRocmPath(argv0) : options.rocmPath;
    job.targets.push_back(compile);
  }
  job.import.kernel = options.kernel;
  if (options.injectFault != kInterruptAtCommit)
    job.injectFault = options.injectFault;
  job.sourceName = llvm::sys::path::filename(options.input).str();
  job.prefix =
      prefixFor(options.output != "-" ? options.output : options.input);
  for (CompileOptions &compile : job.targets)
    compile.hostSymbolPrefix = job.prefix + "_host_";
  for (const std::string &text : options.defines) {
    std::pair<std::string, std::string> define;
    if (!parseDefine(text, define)) {
      llvm::errs() << "tilec: error: -D takes NAME=VALUE with NAME an "
                      "identifier, got '"
                   << text << "'\n";
      return 1;
    }
    job.import.defines.push_back(define);
  }
  if (job.emit == Emit::Assembly && !options.header.empty()) {
    if (target->isHost()) {
      llvm::errs() << "tilec: error: the host target's header goes with its "
                      "object file (-o FILE.o), not with assembly\n";
      return 1;
    }
    if (!target->isNVIDIA()) {
      llvm::errs() << "tilec: error: --header with assembly output needs "
                      "PTX; an AMD header embeds an hsaco (-o FILE.hsaco)\n";
      return 1;
    }
    if (options.splitInputFile) {
      llvm::errs() << "tilec: error: --split-input-file writes no header\n";
      return 1;
    }
    job.headerPath = options.header;
  }
  if (job.emit == Emit::Binary) {
    if (options.output == "-") {
      llvm::errs() << "tilec: error: a "
                   << (target->isHost() ? "host object file" : "cubin or hsaco")
                   << " is written to a file; give -o\n";
      return 1;
    }
    if (options.splitInputFile) {
      llvm::errs() << "tilec: error: --split-input-file only works with "
                      "text output\n";
      return 1;
    }
    if (!options.header.empty()) {
      job.headerPath = options.header;
    } else {
      llvm::SmallString<256> path(options.output);
      llvm::sys::path::replace_extension(path, "h");
      job.headerPath = std::string(path);
    }
  }
  if (!options.header.empty() && job.headerPath.empty()) {
    llvm::errs() << "tilec: error: --header goes with a binary (-o "
                    "FILE.cubin, FILE.hsaco or FILE.o) or with PTX; this run "
                    "writes neither\n";
    return 1;
  }

  // Every destination is checked before any work, and written only when
  // everything has succeeded.
  OutputFiles outputs;
  std::vector<std::string> written = {options.output};
  outputs.add(options.output, "output");
  if (!job.headerPath.empty()) {
    outputs.add(job.headerPath, "header");
    written.push_back(job.headerPath);
  }
  if (!options.depfile.empty())
    outputs.add(options.depfile, "depfile");
  if (!outputs.check(options.input, llvm::errs()))
    return 1;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      readInputFile(options.input, llvm::errs());
  if (!buffer || !enterPrivateTemporaryFolder(llvm::errs()))
    return 1;
  buffer = frontend::normalizeSourceText(std::move(buffer));

  std::string result;
  llvm::raw_string_ostream os(result);
  std::optional<std::string> headerText;
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     llvm::raw_ostream &chunkOs) {
    return compileBuffer(std::move(chunk), job, options.verifyDiagnostics,
                         chunkOs, headerText);
  };
  if (mlir::failed(mlir::splitAndProcessBuffer(
          std::move(buffer), process, os,
          options.splitInputFile ? "# -----" : "", "# -----")))
    return 1;
  std::vector<std::string> contents = {std::move(result)};
  if (!job.headerPath.empty())
    contents.push_back(headerText.value_or(""));
  if (!options.depfile.empty())
    contents.push_back(makeDepfile(options, written));
  return outputs.commit(contents, llvm::errs(),
                        options.injectFault == kInterruptAtCommit
                            ? CommitFault::InterruptBeforeRename
                            : CommitFault::None)
             ? 0
             : 1;
}

/// Runs `compile` on a stack of kCompilerStackSize, turning a crash into an
/// internal error with exit code 2 (sanitizer builds let the sanitizers
/// report it instead).
static int compileSafely(const Options &options, const char *argv0) {
#ifdef TILEC_SANITIZER_BUILD
  int status = 1;
  llvm::runOnNewStack(kCompilerStackSize,
                      [&] { status = compile(options, argv0); });
  removePrivateTemporaryFolder();
  return status;
#else
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  int status = 1;
  if (recovery.RunSafelyOnNewStack([&] { status = compile(options, argv0); },
                                   kCompilerStackSize)) {
    removePrivateTemporaryFolder();
    return status;
  }
  std::string pass = getRunningPassName();
  llvm::errs() << "tilec: internal error: crashed"
               << (recovery.RetCode > 128
                       ? " (signal " + std::to_string(recovery.RetCode - 128) +
                             ")"
                       : std::string())
               << (pass.empty() ? "" : " in pass '" + pass + "'")
               << "; this is a bug in tilec: please report it with the input "
                  "file and the command line\n";
  exitAfterInternalError();
#endif
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  // The device pipelines are assembled from registered passes.
  registerPasses();

  CLI::App app{"tilec: ahead-of-time compiler for TileLang-style .tile "
               "kernels",
               "tilec"};
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.set_version_flag("--version", "tilec 0.1.0 (LLVM/MLIR 22)");
  Options options;
  app.add_option("input", options.input,
                 "The .tile file to compile ('-' reads standard input)")
      ->required();
  app.add_option("-o,--output", options.output,
                 "Where to write the result ('-', the default, is standard "
                 "output); written only when compilation succeeds");
  std::string archHelp =
      "The GPU to compile for (default " + kDefaultArch.str() +
      "); several, comma-separated, for a header that embeds a binary for "
      "each and loads the one that suits the device:";
  for (const TargetInfo &target : getTargets())
    archHelp += " " + target.name.str();
  app.add_option("--arch", options.arch, archHelp)
      ->each([&](const std::string &) { options.archGiven = true; });
  app.add_option("--target", options.target,
                 "gpu (the default: the --arch GPUs) or host: the host CPU "
                 "(x86-64), where each kernel is a C function that runs its "
                 "blocks one after the other (-o FILE.o writes an object "
                 "file and FILE.h; docs/host.md)")
      ->check(CLI::IsMember({"gpu", "host"}));
  app.add_option("--emit", options.emit,
                 "What to produce: ast (the syntax tree), tile (the tile "
                 "dialect), layouts (every buffer's layout, in words), gpu "
                 "(per-thread code in a gpu.module), llvm (the "
                 "LLVM dialect), ptx or isa (assembly), cubin, hsaco or obj "
                 "(the binary, with its C header beside it; obj for --target "
                 "host), header (the header alone). Without --emit, the -o "
                 "suffix decides (.cubin, .hsaco, .o, .ptx, .s, .h), and tile "
                 "otherwise")
      ->check(CLI::IsMember({"ast", "tile", "layouts", "gpu", "llvm", "ptx",
                             "isa", "cubin", "hsaco", "obj", "header"}));
  app.add_option("--header", options.header,
                 "Where the C header goes when a binary is written (default: "
                 "the output with .h); with PTX output, writes a header "
                 "that embeds the PTX, which the driver compiles for the GPU "
                 "it loads on");
  app.add_option("-O", options.optLevel,
                 "Optimization level of the device code (or of the host "
                 "object), 0 to 3 (default 3)")
      ->check(CLI::Range(0, 3));
  app.add_flag("--fast-math", options.fastMath,
               "Approximate division, square root and math functions "
               "(rcp.approx, ex2.approx, the fast device-library variants) "
               "and flush f32 denormals to zero");
  app.add_flag("--no-fma", options.noFma,
               "Round every floating-point multiply and add on its own "
               "rather than fusing a * b + c into one fused multiply-add, "
               "as tilec does by default (like nvcc)")
      ->excludes("--fast-math");
  app.add_flag("--no-tma", options.noTma,
               "On sm_90 and sm_90a, pipeline copies with cp.async rather "
               "than the bulk tensor copy engine (TMA) and mbarriers, and "
               "copy shared tiles to global memory with the threads rather "
               "than TMA stores");
  app.add_flag("--no-cp-async", options.noAsyncCopies,
               "On NVIDIA, pipeline T.Pipelined loops through registers, as "
               "on AMD, rather than with cp.async or TMA copies");
  app.add_flag("--no-wgmma", options.noWgmma,
               "On sm_90a, run T.gemm on mma.sync rather than warpgroup "
               "MMA (wgmma)");
  app.add_flag("--no-warp-specialize", options.noWarpSpecialize,
               "On sm_90a, issue a T.Pipelined loop's bulk copies from the "
               "kernel's own first thread rather than from a producer "
               "warpgroup of their own");
  app.add_flag("--no-verify", options.noVerify,
               "Skip the Z3 verifiers: no proofs of annotated layouts, of "
               "memory accesses or of writes, no errors for accesses that "
               "can leave their buffer or writes that race, and no guards "
               "for accesses not proved in bounds");
  app.add_flag("--verify-only", options.verifyOnly,
               "Run the front end and the tile passes with the Z3 "
               "verifiers, print a remark for every memory access (proved "
               "or guarded) and every write (proved free of races or not), "
               "an error for each access that can leave its buffer and "
               "each write that races, and a summary per kernel, and write "
               "nothing")
      ->excludes("--no-verify")
      ->excludes("--emit")
      ->excludes("--output");
  app.add_option("-R", options.remarks,
                 "Print the remarks of a pass: -Rbounds, the bounds "
                 "verifier's for every memory access; -Rraces, the race "
                 "verifier's for every write; -Ralignment, the alignment "
                 "verifier's for every vector access, cp.async and "
                 "ldmatrix")
      ->check(CLI::IsMember({"bounds", "races", "alignment"}))
      ->type_name("bounds|races|alignment")
      ->allow_extra_args(false);
  app.add_option("-D", options.defines,
                 "Set a compile-time parameter: a module constant, a kernel "
                 "factory parameter or a T.const name (-D M=1024, "
                 "-D dtype=bfloat16, -D shape=(2,3))")
      ->type_name("NAME=VALUE")
      ->take_first();
  app.add_option("--kernel", options.kernel,
                 "Compile only the kernels with these names (comma-separated)");
  app.add_option("--cuda-path", options.cudaPath,
                 "The CUDA toolkit, for ptxas and libdevice (default: "
                 "$CUDA_PATH or /usr/local/cuda)");
  app.add_option("--rocm-path", options.rocmPath,
                 "A directory with amdgcn/bitcode (the ROCm device "
                 "libraries) and llvm/bin/ld.lld (default: $TILEC_ROCM_PATH "
                 "or the one installed beside tilec)");
  app.add_option("--depfile", options.depfile,
                 "Also write a Make-style depfile naming the files read, "
                 "for build systems (-MF FILE is the same; -MD alone writes "
                 "OUTPUT.d)");
  app.add_flag("--split-input-file", options.splitInputFile,
               "For tests: compile each part of the file between '# -----' "
               "lines on its own");
  app.add_flag("--verify-diagnostics", options.verifyDiagnostics,
               "For tests: check the diagnostics against the file's "
               "'expected-error {{...}}' comments");
  app.add_option("--debug-inject-fault", options.injectFault,
                 "For tilec's tests: invalid-ir, silent-failure, reported, "
                 "crash or interrupt-at-commit")
      ->group("");
  app.footer("MLIR's --mlir-* options (--mlir-print-ir-after-all, "
             "--mlir-timing, --mlir-print-debuginfo, ...) are also accepted.");
  app.allow_extras();

  // GCC's depfile spellings, -MD and -MF FILE, are not CLI11 options
  // (CLI11 would read -MD as -M -D): translate them first.
  std::vector<std::string> args;
  bool writeDepfileBesideOutput = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "-MD") {
      writeDepfileBesideOutput = true;
    } else if (arg == "-MF") {
      args.push_back("--depfile");
    } else {
      args.push_back(arg.str());
    }
  }
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError &e) {
    // --help and --version end the parse too; they succeed.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
      return app.exit(e);
    llvm::errs() << "tilec: error: " << e.what() << "; see tilec --help\n";
    return 1;
  }
  if (writeDepfileBesideOutput && options.depfile.empty()) {
    if (options.output == "-") {
      llvm::errs() << "tilec: error: -MD writes OUTPUT.d: give -o, or the "
                      "depfile's path with -MF\n";
      return 1;
    }
    options.depfile = options.output + ".d";
  }
  if (app.count("--kernel") &&
      llvm::StringRef(options.kernel).trim(" \t,").empty()) {
    llvm::errs() << "tilec: error: --kernel names no kernel; leave it out to "
                    "compile them all\n";
    return 1;
  }

  llvm::StringRef fault = options.injectFault;
  if (!fault.empty() && fault != kInterruptAtCommit &&
      !llvm::is_contained(kPassFaults, fault)) {
    llvm::errs() << "tilec: error: --debug-inject-fault takes invalid-ir, "
                    "silent-failure, reported, generated-code-error, crash "
                    "or interrupt-at-commit, not '"
                 << options.injectFault << "'\n";
    return 1;
  }

  // Whatever CLI11 did not know goes to MLIR's option parser, which only
  // accepts its own --mlir-* options.
  std::vector<std::string> extras = app.remaining();
  for (const std::string &extra : extras) {
    if (!llvm::StringRef(extra).starts_with("--mlir-") &&
        !llvm::StringRef(extra).starts_with("-mlir-")) {
      llvm::errs() << "tilec: error: unknown option '" << extra
                   << "'; see tilec --help\n";
      return 1;
    }
  }
  std::vector<const char *> mlirArgs = {argv[0]};
  for (const std::string &extra : extras)
    mlirArgs.push_back(extra.c_str());
  if (!llvm::cl::ParseCommandLineOptions(mlirArgs.size(), mlirArgs.data(),
                                         "tilec", &llvm::errs()))
    return 1;
  return compileSafely(options, argv[0]);
}
