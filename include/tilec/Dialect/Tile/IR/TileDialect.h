//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//
//
// Part of tilec. Declares the tile dialect, its enums and its attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEDIALECT_H
#define TILEC_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"

#include "tilec/Dialect/Tile/IR/TileOpsDialect.h.inc"

#include "tilec/Dialect/Tile/IR/TileAttrs.h"

#endif // TILEC_DIALECT_TILE_IR_TILEDIALECT_H
