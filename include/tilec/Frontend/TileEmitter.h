//===- TileEmitter.h - Emission of tile IR for .tile kernels ----*- C++ -*-===//
//
// Part of tilec. Builds the structure of a kernel in the tile dialect: the
// kernel functions, the T.Kernel block, loops and run-time ifs, buffers,
// and the ops of the tile primitives (T.copy, T.gemm...), each at its .tile
// source location. Its operands come checked: the evaluator decides what
// runs at compile time and what becomes IR, and this builds the IR. Scalar
// arithmetic is emitted by the evaluator's operators, which fold what is
// known at compile time.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_TILEEMITTER_H
#define TILEC_FRONTEND_TILEEMITTER_H

#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "tilec/Frontend/Source.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace tilec::frontend {

/// One side of a tile.copy: the buffer, the origin of the region (static
/// offsets, with ShapedType::kDynamic where the next dynamic offset stands)
/// and its extents.
struct CopyRegion {
  mlir::Value memref;
  llvm::SmallVector<mlir::Value> dynamicOffsets;
  llvm::SmallVector<int64_t> staticOffsets;
  llvm::SmallVector<int64_t> extents;
};

class TileEmitter {
public:
  TileEmitter(TileSource &source, mlir::ModuleOp module);

  mlir::OpBuilder &getBuilder() { return builder; }
  mlir::MLIRContext *getContext() { return module.getContext(); }
  mlir::Location getLoc(llvm::SMLoc loc) { return source.getLoc(loc); }

  //===--------------------------------------------------------------------===//
  // Kernel functions
  //===--------------------------------------------------------------------===//

  /// Creates the kernel function `name` at the end of the module, with its
  /// arguments' names in `tile.arg_names`, and leaves the builder at the
  /// start of its body; the caller restores the insertion point. Reports an
  /// error and returns null if the module already defines `name`.
  mlir::func::FuncOp emitKernelFunction(llvm::StringRef name,
                                        llvm::ArrayRef<mlir::Type> argTypes,
                                        llvm::ArrayRef<llvm::StringRef> names,
                                        llvm::SMLoc loc);
  /// Records in `tile.dims` which argument holds each extent of the tensor
  /// argument `arg` (-1 for a static extent).
  void setDynamicDims(mlir::func::FuncOp func, unsigned arg,
                      llvm::ArrayRef<int64_t> dimArgs);
  /// Appends a workspace buffer (T.alloc_global) of `shape` to `func`'s
  /// arguments, marked `tile.workspace`; `dimArgs` as for setDynamicDims,
  /// empty for a static shape. Null where the signature cannot take it.
  mlir::Value emitWorkspace(mlir::func::FuncOp func,
                            llvm::ArrayRef<int64_t> shape,
                            mlir::Type elementType,
                            llvm::ArrayRef<int64_t> dimArgs, llvm::SMLoc loc);
  /// The return that ends a kernel function's body.
  void emitReturn(llvm::SMLoc loc);

  //===--------------------------------------------------------------------===//
  // The kernel body's structure
  //===--------------------------------------------------------------------===//
  // Each returns the body of the new op, whose arguments are its block
  // indices or induction variables.

  /// Whether code emitted now runs per element of a T.Parallel loop.
  bool insideParallel();

  /// A tile.thread_range over threads [first, first + count); returns its
  /// body.
  mlir::Block *emitThreadRange(int64_t first, int64_t count, llvm::SMLoc loc);
  mlir::Block *emitKernel(mlir::ValueRange grid,
                          llvm::ArrayRef<int64_t> threads, llvm::SMLoc loc);
  mlir::Block *emitParallel(llvm::ArrayRef<int64_t> extents, llvm::SMLoc loc);
  /// Makes the parallel loop whose body is `body` and a parallel loop nested
  /// in it one loop nest, as TileLang runs nested parallel loops: the index
  /// arithmetic beside the inner loop moves into it. Returns false, leaving
  /// both loops, when the body does more than compute indices beside it.
  bool fuseNestedParallel(mlir::Block *body);
  /// `order` and `stage` are set when given, even empty.
  mlir::Block *emitPipelined(mlir::Value lowerBound, mlir::Value upperBound,
                             int64_t numStages,
                             const std::optional<std::vector<int64_t>> &order,
                             const std::optional<std::vector<int64_t>> &stage,
                             llvm::SMLoc loc);
  mlir::Block *emitSerial(mlir::Value lowerBound, mlir::Value upperBound,
                          mlir::Value step, llvm::SMLoc loc);
  mlir::Block *emitUnroll(mlir::Value lowerBound, mlir::Value upperBound,
                          mlir::Value step, llvm::SMLoc loc);
  /// A run-time if; the caller fills its regions.
  mlir::scf::IfOp emitIf(mlir::Value condition, bool withElse, llvm::SMLoc loc);

  //===--------------------------------------------------------------------===//
  // Buffers and tile primitives
  //===--------------------------------------------------------------------===//
  // Each op is verified as it is created, so that its diagnostics come at
  // once and at its source line; an op that fails is erased, and those
  // that return a value return null then.

  /// A shared, fragment or local buffer (T.alloc_shared...).
  mlir::Value emitAlloc(tile::MemoryScope scope, llvm::ArrayRef<int64_t> shape,
                        mlir::Type elementType, llvm::SMLoc loc);
  /// A T.alloc_var variable, initialized when `init` is given.
  mlir::Value emitAllocVar(mlir::Type elementType, mlir::Value init,
                           llvm::SMLoc loc);
  /// Gives a buffer's allocation the name it was assigned to, for later
  /// diagnostics.
  void nameBuffer(mlir::Value memref, llvm::StringRef name);

  /// A copy; `noTma` keeps it off the bulk tensor copy engine.
  void emitCopy(const CopyRegion &src, const CopyRegion &dst, llvm::SMLoc loc,
                bool noTma = false);
  /// A copy of the whole of `src`, of static shape, into `dst` of its
  /// shape.
  void emitWholeCopy(mlir::Value src, mlir::Value dst, llvm::SMLoc loc);
  void emitGemm(mlir::Value a, mlir::Value b, mlir::Value c, bool transposeA,
                bool transposeB, tile::GemmWarpPolicy policy, bool clearAccum,
                llvm::SMLoc loc);
  /// Copies `src` into `dst` of the same element type, whose dimension k is
  /// `src`'s dimension permutation[k], as a parallel loop over `src`.
  void emitPermutedCopy(mlir::Value src, mlir::Value dst,
                        llvm::ArrayRef<int64_t> permutation, llvm::SMLoc loc);
  void emitFill(mlir::Value buffer, mlir::Value value, llvm::SMLoc loc);
  void emitClear(mlir::Value buffer, llvm::SMLoc loc);
  void emitReduce(tile::ReduceKind kind, mlir::Value src, mlir::Value dst,
                  int64_t dim, bool clear, llvm::SMLoc loc);
  /// `extents`: the destination region's, when it is a slice. With
  /// `returnPrevious` (a scalar into one element), returns the element's
  /// value before the operation; null otherwise.
  mlir::Value emitAtomic(mlir::arith::AtomicRMWKind kind, mlir::Value value,
                         mlir::Value dst, mlir::ValueRange indices,
                         std::optional<llvm::ArrayRef<int64_t>> extents,
                         bool returnPrevious, llvm::SMLoc loc);
  void emitAssume(mlir::Value condition, llvm::SMLoc loc);
  /// Marks the enclosing kernel to keep its threads' register budgets.
  void emitKeepRegisterBudget();
  void emitUseSwizzle(int64_t panelSize, tile::RasterOrder order,
                      llvm::SMLoc loc);
  void emitAnnotateLayout(mlir::Value buffer, mlir::Attribute layout,
                          llvm::SMLoc loc);

private:
  /// Verifies `op` alone; on failure counts the error and erases it.
  bool verifyNewOp(mlir::Operation *op);

  TileSource &source;
  mlir::ModuleOp module;
  /// Where the builder points outside kernel functions: the only ops made
  /// there stand for values already diagnosed as errors (a poison for a
  /// host value in a condition, say), and go with the emitter.
  std::unique_ptr<mlir::Block> outsideFunctions;
  mlir::OpBuilder builder;
};

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_TILEEMITTER_H
