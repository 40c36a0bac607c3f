//===- KernelFormulas.h - A kernel's launch as formulas ---------*- C++ -*-===//
//
// Part of tilec. What the Z3 verifiers of per-thread code share: the
// formulas of a kernel's run-time dimensions, block indices and tensor
// extents, and a walk of its statements with the conditions under which
// each runs.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_VERIFICATION_KERNELFORMULAS_H
#define TILEC_VERIFICATION_KERNELFORMULAS_H

#include "tilec/Analysis/IndexFormulas.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Verification/MemoryAccess.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>
#include <string>

namespace tilec::tile {

class KernelFormulas {
public:
  /// Binds the run-time dimensions (in [1, INT32_MAX], which the generated
  /// header checks before every launch), the block indices (below the
  /// grid's extents) and the extents read back from the tensors.
  KernelFormulas(mlir::func::FuncOp func, KernelOp kernel,
                 unsigned resourceLimit);

  IndexFormulas &formulas() { return indexFormulas; }
  mlir::func::FuncOp getFunc() { return func; }
  KernelOp getKernel() { return kernel; }

  /// The name of argument `i` of the function, for messages.
  std::string argName(unsigned i);
  /// The index argument that holds the run-time extent of dimension `dim`
  /// of a tensor argument, if the dimension is dynamic.
  std::optional<mlir::BlockArgument> extentArgument(mlir::BlockArgument tensor,
                                                    unsigned dim);
  /// The extent of dimension `dim` of a tensor argument.
  std::optional<Formula> extent(mlir::BlockArgument tensor, unsigned dim);
  /// The formulas of the block indices, by axis.
  llvm::ArrayRef<Formula> blockIndices() const { return blocks; }

  /// Calls `visit` on every operation of the kernel other than loops, ifs
  /// and assumptions, with the conditions under which it runs: loop ranges
  /// (the induction variables bound to variables), enclosing conditions,
  /// T.assume facts. Branches that the bounds of values show never run are
  /// skipped. Given `decided`, the prover is also asked whether each `if`
  /// always runs its `then` branch, and `decided` hears of each `if` whose
  /// condition is known, and which way.
  /// `visit` returns false to stop the walk.
  void walk(llvm::function_ref<bool(mlir::Operation *, llvm::ArrayRef<Formula>)>
                visit,
            llvm::function_ref<void(mlir::scf::IfOp, bool)> decided = {});

  /// The conditions of an iteration of `loop`, whose induction variable the
  /// walk bound: within its bounds, on its step.
  llvm::SmallVector<Formula> loopConditions(mlir::scf::ForOp loop);

  /// "M = 1, bx = 0, thread = 64": the variables of a counter-example.
  std::string describe(const CounterExample &example);

private:
  bool walk(mlir::Block &block, llvm::SmallVector<Formula> path,
            llvm::function_ref<bool(mlir::Operation *, llvm::ArrayRef<Formula>)>
                visit,
            llvm::function_ref<void(mlir::scf::IfOp, bool)> decided);

  mlir::func::FuncOp func;
  KernelOp kernel;
  IndexFormulas indexFormulas;
  llvm::SmallVector<Formula, 3> blocks;
};

} // namespace tilec::tile

#endif // TILEC_VERIFICATION_KERNELFORMULAS_H
