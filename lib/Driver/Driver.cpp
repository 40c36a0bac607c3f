//===- Driver.cpp - A run of tilec, from its options to its outputs -------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/Driver.h"
#include "tilec/Driver/Compilation.h"
#include "tilec/Driver/Files.h"
#include "tilec/Driver/InternalErrors.h"
#include "tilec/Driver/SourceDiagnostics.h"
#include "tilec/Driver/Temporaries.h"
#include "tilec/Frontend/Source.h"
#include "tilec/Transforms/Passes.h"
#include "tilec/Warnings.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ProgramStack.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace tilec;

/// The faults --debug-inject-fault injects: in a pass, or in the commit of
/// the outputs.
static constexpr llvm::StringLiteral kPassFaults[] = {
    "invalid-ir", "silent-failure", "reported", "generated-code-error",
    "crash"};
static constexpr llvm::StringLiteral kInterruptAtCommit = "interrupt-at-commit";

bool tilec::isInjectableFault(llvm::StringRef fault) {
  return fault == kInterruptAtCommit || llvm::is_contained(kPassFaults, fault);
}

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

/// Internal errors end the run at once: the IR can no longer be trusted, and
/// no output has been written yet.
[[noreturn]] static void exitAfterInternalError() {
  removePrivateTemporaryFolder();
  llvm::errs().flush();
  std::_Exit(2);
}

/// Compiles one buffer (a file, or one part of a split file), printing its
/// diagnostics with their source lines, or checking them against the
/// buffer's expectations. Text results and binaries go to `os`.
static mlir::LogicalResult
compileBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
              const Compilation &compilation, llvm::StringRef injectFault,
              const DriverOptions &options, llvm::raw_ostream &os,
              CompileResult &result) {
  std::unique_ptr<mlir::MLIRContext> context = createCompilerContext();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  auto configure = [&](mlir::PassManager &pm) -> mlir::LogicalResult {
    if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
      return mlir::failure();
    mlir::applyDefaultTimingPassManagerCLOptions(pm);
    addInternalErrorChecks(pm, exitAfterInternalError);
    if (!injectFault.empty())
      pm.addPass(createTilecTestInjectFault({injectFault.str()}));
    return mlir::success();
  };
  auto run = [&] {
    return compileSource(sourceMgr, *context, compilation, configure, os,
                         result);
  };

  if (!options.verifyDiagnostics) {
    SourceDiagnosticPrinter printer(sourceMgr, context.get());
    printer.setWarningsAsErrors(options.warningsAsErrors);
    // An error fails the run even where the code that reported it went on
    // (MLIR's serializers do).
    bool reportedError = false;
    mlir::DiagnosticEngine::HandlerID counter =
        context->getDiagEngine().registerHandler([&](mlir::Diagnostic &diag) {
          bool warning =
              diag.getSeverity() == mlir::DiagnosticSeverity::Warning;
          // -w and -Wno-<name> drop warnings before the printer sees them.
          if (warning && (options.noWarnings ||
                          llvm::is_contained(options.disabledWarnings,
                                             getWarningNameOf(diag.str()))))
            return mlir::success();
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Error ||
              (warning && options.warningsAsErrors))
            reportedError = true;
          return mlir::failure();
        });
    mlir::LogicalResult status = run();
    context->getDiagEngine().eraseHandler(counter);
    return mlir::failure(mlir::failed(status) || reportedError);
  }
  mlir::SourceMgrDiagnosticVerifierHandler handler(sourceMgr, context.get());
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

std::optional<std::vector<std::string>>
tilec::takeDependencyFlags(llvm::ArrayRef<const char *> argv,
                           DependencyFlags &flags) {
  std::vector<std::string> args;
  for (size_t i = 0; i < argv.size(); ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "-MD" || arg == "-MMD") {
      // There are no system headers to leave out: -MMD is -MD.
      flags.besideOutput = true;
    } else if (arg == "-MF") {
      args.push_back("--depfile");
    } else if (arg == "-MT" || arg == "-MQ") {
      if (i + 1 == argv.size()) {
        llvm::errs() << "tilec: error: " << arg << " needs a target name\n";
        return std::nullopt;
      }
      llvm::StringRef target = argv[++i];
      flags.targets.push_back(arg == "-MQ" ? escapeForDepfile(target)
                                           : target.str());
    } else {
      args.push_back(arg.str());
    }
  }
  return args;
}

void tilec::spellCompilerFlags(std::vector<std::string> &args) {
  std::vector<std::string> spelled;
  auto isNumber = [](llvm::StringRef text) {
    return !text.empty() && llvm::all_of(text, llvm::isDigit);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string &arg = args[i];
    if (arg == "-O" && !(i + 1 < args.size() && isNumber(args[i + 1]))) {
      spelled.push_back("-O1");
    } else if (arg == "-Os" || arg == "-Oz") {
      // tilec has no level that trades speed for size; the GPU binary's
      // size follows the tile sizes, not the optimizer.
      spelled.push_back("-O2");
    } else if (arg == "-Ofast") {
      spelled.push_back("-O3");
      spelled.push_back("--fast-math");
    } else if (arg == "-lineinfo" || arg == "-gline-tables-only") {
      spelled.push_back("--lineinfo");
    } else {
      spelled.push_back(std::move(arg));
    }
  }
  args = std::move(spelled);
}

/// The depfile of a run: every file written depends on every file read,
/// the input and the files it imports.
static std::string makeDepfile(const DriverOptions &options,
                               llvm::ArrayRef<std::string> written,
                               llvm::ArrayRef<std::string> imported) {
  std::string text = llvm::join(options.depfileTargets, " ");
  if (options.depfileTargets.empty()) {
    for (const std::string &path : written) {
      if (path == "-")
        continue;
      if (!text.empty())
        text += " ";
      text += escapeForDepfile(path);
    }
  }
  text += ":";
  if (options.input != "-")
    text += " " + escapeForDepfile(options.input);
  llvm::StringSet<> listed;
  for (const std::string &path : imported)
    if (listed.insert(path).second)
      text += " " + escapeForDepfile(path);
  return text + "\n";
}

/// Picks what to emit from --emit, else from the output's suffix.
static std::optional<Emit> chooseEmit(const DriverOptions &options,
                                      const TargetInfo &target) {
  if (options.verifyOnly)
    return Emit::VerifyOnly;
  auto fail = [&](const llvm::Twine &message) -> std::optional<Emit> {
    llvm::errs() << "tilec: error: " << message << "\n";
    return std::nullopt;
  };
  llvm::StringRef emit = options.emit;
  if (emit.empty()) {
    // An output without a suffix (standard output, /dev/null) gets the
    // tile dialect; a suffix tilec does not write is an error rather than
    // tile dialect under a name that promises something else.
    llvm::StringRef ext = llvm::sys::path::extension(options.output);
    emit = llvm::StringSwitch<llvm::StringRef>(ext)
               .Case(".cubin", "cubin")
               .Case(".hsaco", "hsaco")
               .Case(".ptx", "ptx")
               .Case(".s", "isa")
               .Case(".o", "obj")
               .Case(".h", "header")
               .Case(".ll", "ll")
               .Case(".bc", "bc")
               .Cases({"", ".mlir"}, "tile")
               .Default("");
    if (emit.empty())
      return fail("cannot tell from its suffix what to write to '" +
                  options.output +
                  "': .cubin, .hsaco, .ptx, .s, .o, .ll, .bc, .h and .mlir "
                  "name outputs; give --emit");
  }
  if (target.isHost()) {
    if (emit == "layouts" || emit == "gpu" || emit == "ptx" ||
        emit == "cubin" || emit == "hsaco")
      return fail("--emit=" + emit +
                  " is for GPU targets; the host target emits ast, tile, "
                  "llvm, ll, bc, isa (x86-64 assembly), obj or header");
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
      .Case("ll", Emit::LLVMIR)
      .Case("bc", Emit::Bitcode)
      .Cases({"ptx", "isa"}, Emit::Assembly)
      .Cases({"cubin", "hsaco", "obj"}, Emit::Binary)
      .Case("header", Emit::Header)
      .Default(std::nullopt);
}

/// The targets --arch and --target name; prints an error and returns an
/// empty list if they are not a valid choice.
static llvm::SmallVector<const TargetInfo *>
chooseTargets(const DriverOptions &options) {
  // --arch sm_80,sm_90a: one target per name.
  llvm::SmallVector<const TargetInfo *> targets;
  llvm::SmallVector<llvm::StringRef> names;
  if (options.target == "host") {
    if (options.archGiven) {
      llvm::errs() << "tilec: error: --arch names a GPU; --target host "
                      "compiles for the host CPU\n";
      return {};
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
      return {};
    }
    if (llvm::is_contained(targets, target)) {
      llvm::errs() << "tilec: error: --arch names " << target->name
                   << " twice\n";
      return {};
    }
    if (!targets.empty() && target->isNVIDIA() != targets[0]->isNVIDIA()) {
      llvm::errs() << "tilec: error: --arch mixes NVIDIA and AMD targets; "
                      "their headers use different runtimes, so compile "
                      "them separately\n";
      return {};
    }
    targets.push_back(target);
  }
  return targets;
}

/// Resolves `options` into a compilation and where its header goes (empty
/// if nowhere); prints an error and fails if they do not fit together.
static mlir::LogicalResult prepare(const DriverOptions &options,
                                   const char *argv0, Compilation &compilation,
                                   std::string &headerPath) {
  llvm::SmallVector<const TargetInfo *> targets = chooseTargets(options);
  if (targets.empty())
    return mlir::failure();
  const TargetInfo *target = targets.front();
  std::optional<Emit> emit = chooseEmit(options, *target);
  if (!emit)
    return mlir::failure();
  if (targets.size() > 1 && *emit != Emit::Header) {
    llvm::errs() << "tilec: error: with several --arch targets, tilec writes "
                    "one header that embeds a binary for each: give "
                    "-o FILE.h or --emit=header\n";
    return mlir::failure();
  }

  compilation.emit = *emit;
  compilation.sourceName = llvm::sys::path::filename(options.input).str();
  compilation.prefix =
      prefixFor(options.output != "-" ? options.output : options.input);
  for (const TargetInfo *t : targets) {
    CompileOptions compile = options.compile;
    compile.target = t;
    compile.boundsRemarks |= options.verifyOnly;
    compile.raceRemarks |= options.verifyOnly;
    compile.alignmentRemarks |= options.verifyOnly;
    if (compile.cudaPath.empty())
      compile.cudaPath = getDefaultCudaPath();
    if (compile.rocmPath.empty())
      compile.rocmPath = getDefaultRocmPath(argv0);
    compile.hostSymbolPrefix = compilation.prefix + "_host_";
    compilation.targets.push_back(compile);
  }
  compilation.import.kernel = options.kernel;
  compilation.import.importPaths = options.importPaths;
  // The host runs thread-level code as an NVIDIA GPU does, on warps of 32.
  const TargetInfo &first = *compilation.targets.front().target;
  compilation.import.warpSize =
      first.vendor == TargetInfo::Vendor::Host ? 32 : first.warpSize;
  compilation.import.fnuzFloat8 = first.vendor == TargetInfo::Vendor::AMD;
  bool anyAMD =
      llvm::any_of(compilation.targets, [](const CompileOptions &target) {
        return target.target->vendor == TargetInfo::Vendor::AMD;
      });
  compilation.import.partialBarriers = !anyAMD;
  compilation.import.devicePrint = !anyAMD;
  if (std::optional<TypicalDevice> device = getTypicalDevice(first)) {
    compilation.import.multiprocessors = device->multiprocessors;
    compilation.import.multiprocessorsNote =
        ("the multiprocessors of the " + device->gpu + " (" + first.name +
         "); the kernel runs as compiled on a GPU with another count")
            .str();
  }
  for (const std::string &text : options.defines) {
    std::pair<std::string, std::string> define;
    if (!parseDefine(text, define)) {
      llvm::errs() << "tilec: error: -D takes NAME=VALUE with NAME an "
                      "identifier, got '"
                   << text << "'\n";
      return mlir::failure();
    }
    compilation.import.defines.push_back(define);
  }

  if (compilation.emit == Emit::Assembly && !options.header.empty()) {
    if (target->isHost()) {
      llvm::errs() << "tilec: error: the host target's header goes with its "
                      "object file (-o FILE.o), not with assembly\n";
      return mlir::failure();
    }
    if (!target->isNVIDIA()) {
      llvm::errs() << "tilec: error: --header with assembly output needs "
                      "PTX; an AMD header embeds an hsaco (-o FILE.hsaco)\n";
      return mlir::failure();
    }
    if (options.splitInputFile) {
      llvm::errs() << "tilec: error: --split-input-file writes no header\n";
      return mlir::failure();
    }
    headerPath = options.header;
    compilation.headerWithAssembly = true;
  }
  if (compilation.emit == Emit::Binary) {
    if (options.output == "-") {
      llvm::errs() << "tilec: error: a "
                   << (target->isHost() ? "host object file" : "cubin or hsaco")
                   << " is written to a file; give -o\n";
      return mlir::failure();
    }
    if (options.splitInputFile) {
      llvm::errs() << "tilec: error: --split-input-file only works with "
                      "text output\n";
      return mlir::failure();
    }
    if (!options.header.empty()) {
      headerPath = options.header;
    } else {
      llvm::SmallString<256> path(options.output);
      llvm::sys::path::replace_extension(path, "h");
      headerPath = std::string(path);
    }
  }
  if (!options.header.empty() && headerPath.empty()) {
    llvm::errs() << "tilec: error: --header goes with a binary (-o "
                    "FILE.cubin, FILE.hsaco or FILE.o) or with PTX; this run "
                    "writes neither\n";
    return mlir::failure();
  }
  return mlir::success();
}

/// The whole run, on whatever stack it is called.
static int compile(const DriverOptions &options, const char *argv0) {
  Compilation compilation;
  std::string headerPath;
  if (mlir::failed(prepare(options, argv0, compilation, headerPath)))
    return 1;
  std::vector<std::string> imported;
  compilation.import.importedFiles = &imported;

  // Every destination is checked before any work, and written only when
  // everything has succeeded.
  OutputFiles outputs;
  std::vector<std::string> written = {options.output};
  outputs.add(options.output, "output");
  if (!headerPath.empty()) {
    outputs.add(headerPath, "header");
    written.push_back(headerPath);
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

  // interrupt-at-commit is the commit's fault, not a pass's.
  llvm::StringRef passFault = options.injectFault;
  if (passFault == kInterruptAtCommit)
    passFault = "";
  std::string result;
  llvm::raw_string_ostream os(result);
  std::optional<std::string> headerText;
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     llvm::raw_ostream &chunkOs) {
    CompileResult chunkResult;
    mlir::LogicalResult status =
        compileBuffer(std::move(chunk), compilation, passFault, options,
                      chunkOs, chunkResult);
    if (chunkResult.header)
      headerText = std::move(chunkResult.header);
    return status;
  };
  if (mlir::failed(mlir::splitAndProcessBuffer(
          std::move(buffer), process, os,
          options.splitInputFile ? "# -----" : "", "# -----")))
    return 1;
  std::vector<std::string> contents = {std::move(result)};
  if (!headerPath.empty())
    contents.push_back(headerText.value_or(""));
  if (!options.depfile.empty())
    contents.push_back(makeDepfile(options, written, imported));
  return outputs.commit(contents, llvm::errs(),
                        options.injectFault == kInterruptAtCommit
                            ? CommitFault::InterruptBeforeRename
                            : CommitFault::None)
             ? 0
             : 1;
}

std::string tilec::getVersionText(llvm::StringRef version,
                                  llvm::StringRef commit, const char *argv0) {
  // Each toolkit path, and whether what tilec needs from it is there.
  auto describe = [](const std::string &path, llvm::StringRef needed,
                     llvm::StringRef missing) -> std::string {
    llvm::SmallString<256> shown(path);
    llvm::sys::path::remove_dots(shown, /*remove_dot_dot=*/true);
    llvm::SmallString<256> probe(shown);
    llvm::sys::path::append(probe, needed);
    if (llvm::sys::fs::exists(probe))
      return std::string(shown);
    return std::string(shown) + " (" + missing.str() + ")";
  };
  std::string text = "tilec " + version.str() + " (commit " + commit.str() +
                     ")\nLLVM/MLIR " LLVM_VERSION_STRING "\n";
  text += "CUDA toolkit: " +
          describe(getDefaultCudaPath(), "bin/ptxas",
                   "no ptxas there: NVIDIA binaries need --cuda-path") +
          "\n";
  text += "ROCm device libraries: " +
          describe(getDefaultRocmPath(argv0), "",
                   "missing: AMD binaries need --rocm-path");
  return text;
}

/// Colours diagnostics as -fcolor-diagnostics / -fno-color-diagnostics ask,
/// else not when NO_COLOR is set (no-color.org), else on terminals.
static void chooseDiagnosticColors(std::optional<bool> color) {
  if (!color) {
    const char *noColor = std::getenv("NO_COLOR");
    if (noColor && *noColor)
      color = false;
  }
  if (!color)
    return;
  if (*color)
    llvm::WithColor::setAutoDetectFunction(
        [](const llvm::raw_ostream &) { return true; });
  else
    llvm::WithColor::setAutoDetectFunction(
        [](const llvm::raw_ostream &) { return false; });
}

int tilec::runDriver(const DriverOptions &options, const char *argv0) {
  chooseDiagnosticColors(options.colorDiagnostics);
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
