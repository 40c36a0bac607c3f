//===- TileOps.h - Operations of the tile dialect ---------------*- C++ -*-===//
//
// Part of tilec. Declares the ops of the tile dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEOPS_H
#define TILEC_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

namespace tilec::tile {
/// Fails with a diagnostic unless `op` is nested in a `tile.kernel`.
mlir::LogicalResult verifyInKernel(mlir::Operation *op);

namespace OpTrait {
/// The op runs on the threads of a block, so it must be inside a kernel.
template <typename ConcreteType>
class InKernel : public mlir::OpTrait::TraitBase<ConcreteType, InKernel> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyInKernel(op);
  }
};
} // namespace OpTrait
} // namespace tilec::tile

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.h.inc"

#endif // TILEC_DIALECT_TILE_IR_TILEOPS_H
