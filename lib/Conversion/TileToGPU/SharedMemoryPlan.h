//===- SharedMemoryPlan.h - Shared buffers by liveness ----------*- C++ -*-===//
//
// Part of tilec. Used by convert-tile-to-gpu.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILETOGPU_SHAREDMEMORYPLAN_H
#define TILEC_LIB_CONVERSION_TILETOGPU_SHAREDMEMORYPLAN_H

#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace tilec {

/// The byte offset of each of `allocs` in `func`'s shared memory, and the
/// bytes they need in all. Buffers whose uses do not overlap in the
/// function's top-level statements share bytes where a block barrier
/// already lies between the last use of one and the first use of the next;
/// where the total would pass `limit` (0 for none), they share bytes also
/// where no barrier lies between, and one is inserted. Where no two
/// buffers share, they are laid out one after the other, in order.
int64_t planSharedOffsets(mlir::gpu::GPUFuncOp func,
                          llvm::ArrayRef<tile::AllocSharedOp> allocs,
                          int64_t limit,
                          llvm::SmallVectorImpl<int64_t> &offsets);

} // namespace tilec

#endif // TILEC_LIB_CONVERSION_TILETOGPU_SHAREDMEMORYPLAN_H
