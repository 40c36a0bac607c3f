//===- MemoryAccess.h - How the verifiers see an access ---------*- C++ -*-===//
//
// Part of tilec. The one model of a memory access that the bounds, race
// and alignment verifiers share, and the one matcher that builds it for
// every op of per-thread code that reads or writes a buffer.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_VERIFICATION_MEMORYACCESS_H
#define TILEC_VERIFICATION_MEMORYACCESS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tilec::tile {

/// `elements` consecutive elements along the last dimension of `memref`,
/// from `indices`, read or written by `op`.
struct MemoryAccess {
  mlir::Operation *op;
  mlir::Value memref;
  llvm::SmallVector<mlir::Value> indices;
  /// 1 for a scalar; the width of a 1-D vector or of a copy's run.
  int64_t elements = 1;
  /// The type of a vector access (of any rank); null otherwise.
  mlir::VectorType vectorType;
  bool isWrite = false;
  /// The value a store writes; null for loads, atomics and copies.
  mlir::Value stored;
  /// A masked store, whose lanes may not all be written.
  bool masked = false;
  /// A read-modify-write that other threads' cannot race with.
  bool atomic = false;
  /// It lands after the op, ordered by the waits for asynchronous copies.
  bool isAsync = false;
  /// The alignment, in bytes, the address must have: one a vector access
  /// declares (above its element's), which can be lowered to what is
  /// proved, or one the instruction fixes; 0 for none.
  int64_t alignment = 0;
  bool alignmentAdjustable = false;
  /// The bounds verifier may guard it: loads and stores are skipped, ops of
  /// the IndexedAccessOpInterface guard the accesses they say they can.
  bool guardable = false;
  /// For an op of the IndexedAccessOpInterface, the access's position
  /// among the op's.
  std::optional<unsigned> indexedPosition;
  /// What it is, for messages: "vector read of", "ldmatrix read of".
  llvm::StringRef description;
};

/// The accesses `op` makes: none for an op that touches no buffer, two for
/// a copy (its source, then its destination).
llvm::SmallVector<MemoryAccess, 2> matchMemoryAccesses(mlir::Operation *op);

} // namespace tilec::tile

#endif // TILEC_VERIFICATION_MEMORYACCESS_H
