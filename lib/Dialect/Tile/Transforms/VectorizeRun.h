//===- VectorizeRun.h - One loop body for a run of iterations --*- C++ -*-===//
//
// Part of tilec. Used by tile-distribute.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILE_TRANSFORMS_VECTORIZERUN_H
#define TILEC_LIB_DIALECT_TILE_TRANSFORMS_VECTORIZERUN_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace tilec::tile {

/// Where a fragment access of the body reads or writes, for the first
/// iteration of the run: `registers` at `slot`, then the next slots.
struct RunFragmentAccess {
  mlir::Value registers;
  int64_t slot;
};

/// Emits, at `b`'s insertion point, the body of a tile.parallel loop once
/// for `width` iterations that differ only in the last induction variable,
/// by 0 to width - 1: accesses to memory contiguous along it become vector
/// loads and stores, element-wise ops vector ops, and fragment accesses
/// loads and stores of consecutive register slots. `ivs` are the induction
/// variables' values at the first iteration. Emits nothing and fails when
/// the body does something this cannot express (a conditional that
/// differs between the iterations, an access that is not contiguous or not
/// provably aligned, an op it does not know); the caller then emits the
/// iterations one by one.
mlir::LogicalResult
emitVectorizedRun(mlir::OpBuilder &b, mlir::Block &body, mlir::ValueRange ivs,
                  int64_t width,
                  const llvm::DenseMap<mlir::Operation *, RunFragmentAccess>
                      &fragmentAccesses);

} // namespace tilec::tile

#endif // TILEC_LIB_DIALECT_TILE_TRANSFORMS_VECTORIZERUN_H
