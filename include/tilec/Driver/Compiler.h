//===- Compiler.h - From the tile dialect to GPU binaries -------*- C++ -*-===//
//
// Part of tilec. The pipeline the driver runs after the front end, stage by
// stage, and the description of the result that the header generator
// consumes.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DRIVER_COMPILER_H
#define TILEC_DRIVER_COMPILER_H

#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "tilec/Driver/Targets.h"
#include "tilec/Target/HeaderGen.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace tilec {

/// The stack tilec compiles on: a thread of its own, so that neither the
/// process's stack limit (`ulimit -s`) nor the thread a library user calls
/// from decides how deep the front end may recurse. The front end's limits
/// (docs/robustness.md) need about 16 MiB at worst in a release build.
/// AddressSanitizer's redzones make every frame several times larger, so
/// sanitized builds reserve more; only the pages used take memory.
#ifdef TILEC_SANITIZER_BUILD
constexpr unsigned kCompilerStackSize = 1024u << 20;
#else
constexpr unsigned kCompilerStackSize = 128u << 20;
#endif

/// The LLVM IR a compilation may stop at: none, text or bitcode.
enum class LLVMIRFormat { None, Text, Bitcode };

/// How code is made for one target. tilec's flags set these fields
/// directly (DriverOptions::compile); the driver sets `target` per --arch.
struct CompileOptions {
  const TargetInfo *target = nullptr;
  /// -O0 ... -O3, passed to LLVM's optimizer for the device code.
  unsigned optLevel = 3;
  /// -g / -lineinfo: line tables that map the device code to the .tile
  /// source.
  bool lineInfo = false;
  /// Whether serialization stops at the LLVM IR code generation would
  /// start from, and in which form; the serialized object is that IR.
  LLVMIRFormat llvmIR = LLVMIRFormat::None;
  /// Approximate math: ex2.approx and friends, flush denormals to zero.
  bool fastMath = false;
  /// --fast-math or --no-fast-math was given: the file's pass_configs do
  /// not change `fastMath`.
  bool fastMathFromCommandLine = false;
  /// Fused multiply-adds for a * b + c (the default, as with nvcc).
  bool contractFloat = true;
  /// Hopper features the target has that the compilation may use (all by
  /// default): the bulk tensor copy engine for pipelined copies, wgmma for
  /// gemms, a producer warpgroup for the copies. Turned off, the sm_80 path
  /// (or, for the last, one warpgroup role) is used instead.
  bool allowTma = true;
  bool allowWgmma = true;
  /// With both on sm_90a: a producer warpgroup issues the bulk copies.
  bool allowWarpSpecialize = true;
  /// Pipelines with asynchronous copies (cp.async, TMA) where the target
  /// has them; turned off, through registers, as on AMD.
  bool allowAsyncCopies = true;

  /// The Z3 verifiers (tile-verify-layouts, tile-verify-bounds,
  /// tile-verify-races), the bounds verifier's remark for every tensor
  /// access, and the race verifier's for every store.
  bool verify = true;
  bool boundsRemarks = false;
  bool raceRemarks = false;
  bool alignmentRemarks = false;

  bool useTma() const { return allowTma && target->hasTma; }
  bool useAsyncCopies() const { return allowAsyncCopies && target->isNVIDIA(); }
  bool useWgmma() const { return allowWgmma && target->hasWgmma; }
  bool useWarpSpecialization() const {
    return allowWarpSpecialize && useTma() && useWgmma();
  }
  /// The CUDA toolkit (ptxas, libdevice).
  std::string cudaPath;
  /// A directory with amdgcn/bitcode (ROCm device libraries) and
  /// llvm/bin/ld.lld, as MLIR's ROCDL serializer expects.
  std::string rocmPath;
  /// The host target: what the compiled functions' names start with (the
  /// header's prefix and "_host_").
  std::string hostSymbolPrefix;
};

/// How far `lowerModule` takes a module.
enum class Stage {
  /// The tile dialect as the front end produced it, constants where they
  /// are used.
  Imported,
  /// The tile dialect with constants folded and shared.
  Tile,
  /// The tile dialect with copies as loops and every fragment, loop and
  /// gemm operand tile given its layout.
  Layouts,
  /// Per-thread code outlined into a gpu.module, host side launching it;
  /// for the host target, each kernel a function whose loops run its
  /// blocks.
  GPU,
  /// The gpu.module in the LLVM dialect (NVVM or ROCDL); for the host
  /// target, the whole module.
  LLVM,
  /// The gpu.module compiled to PTX or AMDGCN assembly.
  Assembly,
  /// The gpu.module compiled to a cubin or an hsaco.
  Binary,
};

/// Lowers `module` in place from stage `from` to stage `to`. `configure` is
/// applied to the pass manager first (MLIR's command-line options: IR
/// printing, timing).
mlir::LogicalResult lowerModule(
    mlir::ModuleOp module, const CompileOptions &options, Stage from, Stage to,
    llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)> configure =
        nullptr);

/// The `#tile.target` of a GPU compilation: the chip's figures and the
/// features `options` let the code use. lowerModule sets it on the module.
tile::TargetAttr getTargetAttr(mlir::ModuleOp module,
                               const CompileOptions &options);

/// The assembly or binary a module lowered to Stage::Assembly or
/// Stage::Binary holds.
mlir::FailureOr<std::string> getCompiledObject(mlir::ModuleOp module);

/// Describes the kernels of a module lowered to Stage::GPU (not further:
/// serialization drops the gpu.funcs) for the header generator: parameters,
/// grid expressions, block sizes and shared memory.
mlir::FailureOr<ModuleInfo> describeKernels(mlir::ModuleOp module,
                                            const CompileOptions &options,
                                            llvm::StringRef prefix,
                                            llvm::StringRef sourceName);

/// Describes the kernels of a module at Stage::Tile for the host target's
/// header: their parameters and grids.
mlir::FailureOr<ModuleInfo> describeHostKernels(mlir::ModuleOp module,
                                                llvm::StringRef prefix,
                                                llvm::StringRef sourceName);

/// Writes the layout of every buffer of a module at Stage::Layouts, one
/// line each, in words: where its elements live and how they are spread
/// over threads, registers or shared-memory banks.
void printLayouts(mlir::ModuleOp module, llvm::raw_ostream &os);

/// The default toolkit paths: $CUDA_PATH or /usr/local/cuda; for ROCm, the
/// directory installed beside tilec (`argv0`'s ../lib/tilec/rocm).
std::string getDefaultCudaPath();
std::string getDefaultRocmPath(const char *argv0);

} // namespace tilec

#endif // TILEC_DRIVER_COMPILER_H
