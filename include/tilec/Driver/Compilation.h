//===- Compilation.h - One source through every stage -----------*- C++ -*-===//
//
// Part of tilec. The order of the stages, from a .tile buffer to what --emit
// asks for: the front end, the lowering for each target, the header (for
// several targets, one that embeds a binary for each) or the host target's
// object file. tilec and tilec-fuzz compile through it; how diagnostics are
// shown and where outputs go is theirs.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DRIVER_COMPILATION_H
#define TILEC_DRIVER_COMPILATION_H

#include "tilec/Driver/Compiler.h"
#include "tilec/Frontend/Import.h"
#include "tilec/Target/HeaderGen.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// What a compilation produces.
enum class Emit {
  AST,
  Tile,
  Layouts,
  GPU,
  LLVM,
  /// The LLVM IR code generation starts from, as text (.ll) or bitcode
  /// (.bc): the device module, optimized and linked with the device
  /// libraries, or the host's.
  LLVMIR,
  Bitcode,
  Assembly,
  Binary,
  Header,
  /// The verifiers' remarks and errors only (--verify-only).
  VerifyOnly
};

/// A compilation of one source, its options resolved.
struct Compilation {
  Emit emit = Emit::Tile;
  /// One per target; several only for Emit::Header, and never the host.
  std::vector<CompileOptions> targets;
  frontend::ImportOptions import;
  /// The C prefix of the header's module functions.
  std::string prefix;
  /// The source's file name, as the header names it.
  std::string sourceName;
  /// Whether Emit::Assembly writes a header around the PTX too.
  bool headerWithAssembly = false;
};

/// What a compilation produces besides its main output.
struct CompileResult {
  /// The header that goes beside a binary, or beside PTX when asked for.
  std::optional<std::string> header;
  /// With one target: its kernels as the header describes them (without
  /// images), once a stage that knows them has run.
  std::optional<ModuleInfo> kernels;
};

/// `compilation` with what the kernels' `@tilelang.jit(pass_configs=...)`
/// ask (recorded by the front end on `module`, and removed from it): fast
/// math unless the command line chose (--fast-math, --no-fast-math,
/// --no-fma), and no TMA or no warp specialization.
Compilation applyPassConfigs(mlir::ModuleOp module,
                             const Compilation &compilation);

/// A context for one compilation: tilec's dialects, one thread (so that
/// internal-error checks and crash reports follow the passes as they run,
/// and diagnostics come in a stable order), and diagnostics without IR
/// dumps, which would only get in the way of the .tile lines.
std::unique_ptr<mlir::MLIRContext> createCompilerContext();

/// Compiles the main buffer of `sources` as `compilation` asks, writing the
/// main output (text, or a binary) to `os`. Errors are reported through
/// `context`'s diagnostics; `configure` prepares each pass manager, as for
/// lowerModule. Fails if a stage failed, not if a stage reported an error
/// and went on (the caller's diagnostic handler sees those).
mlir::LogicalResult compileSource(
    llvm::SourceMgr &sources, mlir::MLIRContext &context,
    const Compilation &compilation,
    llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)> configure,
    llvm::raw_ostream &os, CompileResult &result);

} // namespace tilec

#endif // TILEC_DRIVER_COMPILATION_H
