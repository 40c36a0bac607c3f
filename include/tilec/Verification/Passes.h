//===- Passes.h - The verifiers of tile kernels -----------------*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_VERIFICATION_PASSES_H
#define TILEC_VERIFICATION_PASSES_H

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace tilec::tile {

#define GEN_PASS_DECL
#include "tilec/Verification/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Verification/Passes.h.inc"

} // namespace tilec::tile

#endif // TILEC_VERIFICATION_PASSES_H
