//===- OpHelpers.h - Helpers of the tile ops' verifiers ---------*- C++ -*-===//
//
// Part of tilec. Shared by TileOps.cpp and TileLoopOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILE_IR_OPHELPERS_H
#define TILEC_LIB_DIALECT_TILE_IR_OPHELPERS_H

#include "mlir/IR/BuiltinTypes.h"

#include <string>

namespace tilec::tile {

/// A shape as `128x32`, `?` for a dynamic extent, or `a scalar`.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace tilec::tile

#endif // TILEC_LIB_DIALECT_TILE_IR_OPHELPERS_H
