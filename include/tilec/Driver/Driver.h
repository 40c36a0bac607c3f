//===- Driver.h - A run of tilec, from its options to its outputs -*- C++
//-*-===//
//
// Part of tilec. DriverOptions is what the command line says, field for
// field; runDriver checks it, compiles the input (each part of it, with
// --split-input-file) and writes the outputs, the header and the depfile
// together or not at all.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DRIVER_DRIVER_H
#define TILEC_DRIVER_DRIVER_H

#include "tilec/Driver/Compiler.h"
#include "tilec/Driver/Targets.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// A run of tilec, as its command line describes it.
struct DriverOptions {
  /// The .tile file; "-" is standard input.
  std::string input;
  std::string output = "-";
  /// --emit; empty: chosen by the output's suffix.
  std::string emit;
  /// `NAME=VALUE` texts of -D, checked when the run starts.
  std::vector<std::string> defines;
  /// -I: folders `import` searches after the importing file's own.
  std::vector<std::string> importPaths;
  /// Comma-separated kernel names; empty: all.
  std::string kernel;
  /// Comma-separated GPU names, and whether the command line gave any.
  std::string arch = kDefaultArch.str();
  bool archGiven = false;
  /// "gpu" (the --arch targets) or "host".
  std::string target = "gpu";
  /// How each target's code is made. Its `target` is set per --arch; empty
  /// toolkit paths are the defaults (getDefaultCudaPath and
  /// getDefaultRocmPath).
  CompileOptions compile;
  /// --verify-only: the verifiers' remarks, and nothing written.
  bool verifyOnly = false;
  /// Where the header goes (default: beside the binary).
  std::string header;
  /// Where to write a Make-style depfile, if anywhere.
  std::string depfile;
  /// The depfile's targets as -MT and -MQ give them (-MQ's quoted for
  /// Make); empty: the files written.
  std::vector<std::string> depfileTargets;
  bool splitInputFile = false;
  bool verifyDiagnostics = false;
  /// -Werror: warnings are errors; -w: warnings are not printed.
  bool warningsAsErrors = false;
  bool noWarnings = false;
  /// -Wno-<name>: the warnings not printed (tilec/Warnings.h).
  std::vector<std::string> disabledWarnings;
  /// -fcolor-diagnostics (true) or -fno-color-diagnostics (false); unset:
  /// on terminals, unless NO_COLOR is set.
  std::optional<bool> colorDiagnostics;
  /// For tests of internal-error reporting: a fault to inject (see
  /// isInjectableFault).
  std::string injectFault;
};

/// GCC's dependency-file flags, which an option parser would misread (-MD
/// as -M -D): -MD and -MMD ask for OUTPUT_STEM.d, -MF FILE names the
/// depfile, -MT and -MQ name its targets.
struct DependencyFlags {
  bool besideOutput = false;
  std::vector<std::string> targets;
};

/// The arguments of `argv` after the program's name, with -MF rewritten to
/// --depfile and the other flags above taken out into `flags`; nullopt,
/// after a message, when -MT or -MQ lacks its target.
std::optional<std::vector<std::string>>
takeDependencyFlags(llvm::ArrayRef<const char *> argv, DependencyFlags &flags);

/// GCC's, clang's and nvcc's spellings of flags tilec has under other
/// names, rewritten in place: -O alone (not followed by a number, as in
/// `-O 2`) is -O1, -Os and -Oz (size) are -O2, -Ofast is -O3 with
/// --fast-math, and -lineinfo and -gline-tables-only are --lineinfo.
void spellCompilerFlags(std::vector<std::string> &args);

/// What --version prints: tilec's version and commit, LLVM's version, and
/// the CUDA toolkit and ROCm device libraries tilec uses by default, each
/// with a word where it is missing.
std::string getVersionText(llvm::StringRef version, llvm::StringRef commit,
                           const char *argv0);

/// Whether --debug-inject-fault takes `fault`: a fault of the
/// tilec-test-inject-fault pass, or "interrupt-at-commit".
bool isInjectableFault(llvm::StringRef fault);

/// Compiles as `options` say, on a stack of kCompilerStackSize, and returns
/// the exit status: 0, or 1 after errors. Internal errors and crashes exit
/// with status 2 at once (sanitizer builds leave crashes to the
/// sanitizers). `argv0` locates the ROCm toolkit installed beside tilec.
int runDriver(const DriverOptions &options, const char *argv0);

} // namespace tilec

#endif // TILEC_DRIVER_DRIVER_H
