//===- TileAttrs.h - Memory scopes, enums and layouts -----------*- C++ -*-===//
//
// Part of tilec. Attributes of the tile dialect and helpers to read the
// memory scope of a buffer.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEATTRS_H
#define TILEC_DIALECT_TILE_IR_TILEATTRS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "tilec/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileAttrs.h.inc"

namespace tilec::tile {

/// The memory scope of a buffer: its memory space when that is a scope
/// attribute, global memory when it has none. Returns std::nullopt for a
/// memory space that is not a tile scope.
std::optional<MemoryScope> getMemoryScope(mlir::MemRefType type);

/// Whether `type` is a buffer in `scope`.
bool isInScope(mlir::Type type, MemoryScope scope);

/// Evaluates an affine expression at integer values of its dimensions and
/// symbols. Returns std::nullopt on division by zero or a negative modulus.
std::optional<int64_t> evaluateAffineExpr(mlir::AffineExpr expr,
                                          llvm::ArrayRef<int64_t> dims,
                                          llvm::ArrayRef<int64_t> symbols = {});

} // namespace tilec::tile

#endif // TILEC_DIALECT_TILE_IR_TILEATTRS_H
