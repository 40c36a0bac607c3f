//===- WarpTiledInstruction.h - Models of warp-tiled MMAs -------*- C++ -*-===//
//
// Part of tilec. What the models of mma.sync and MFMA share: each warp (or
// wave) computes whole 16 x N tiles of the accumulator, split over the
// block as the gemm's policy asks, and takes A from registers in the layout
// of that split.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_WARPTILEDINSTRUCTION_H
#define TILEC_DIALECT_TILE_TRANSFORMS_WARPTILEDINSTRUCTION_H

#include "tilec/Dialect/Tile/Transforms/Utils.h"

namespace tilec::tile {

/// The accumulator and register-A layouts and the emitter of a
/// MatrixInstructionAttrInterface model, from what `Derived` gives:
/// `kName` (for messages), `kAtomN` and `kUnit` (the tile's width and what
/// a warp is called), and static `makeAccumulatorLayout`,
/// `makeOperandALayout` and `emit`. `Derived` adds `runsGemm` and
/// `chooseSharedLayouts`.
template <typename Derived, typename Attr>
struct WarpTiledInstructionModel
    : public MatrixInstructionAttrInterface::ExternalModel<Derived, Attr> {
  /// The split of the accumulator over the block's warps; the message says
  /// why there is none.
  static mlir::FailureOr<WarpPartition> getPartition(GemmOp gemm,
                                                     std::string &message) {
    return computeGemmWarpPartition(gemm, Derived::kAtomN, Derived::kUnit,
                                    message);
  }

  FragmentLayoutAttr getAccumulatorLayout(mlir::Attribute,
                                          mlir::Operation *op) const {
    auto gemm = mlir::cast<GemmOp>(op);
    std::string message;
    mlir::FailureOr<WarpPartition> partition = getPartition(gemm, message);
    if (mlir::failed(partition))
      return {};
    auto cType = mlir::cast<mlir::MemRefType>(gemm.getC().getType());
    return Derived::makeAccumulatorLayout(gemm.getContext(),
                                          cType.getDimSize(0),
                                          cType.getDimSize(1), *partition);
  }

  FragmentLayoutAttr getOperandALayout(mlir::Attribute,
                                       mlir::Operation *op) const {
    auto gemm = mlir::cast<GemmOp>(op);
    std::string message;
    mlir::FailureOr<WarpPartition> partition = getPartition(gemm, message);
    if (mlir::failed(partition) || gemm.getTransposeA())
      return {};
    auto aType = mlir::cast<mlir::MemRefType>(gemm.getA().getType());
    return Derived::makeOperandALayout(gemm.getContext(), aType.getDimSize(0),
                                       aType.getDimSize(1), *partition);
  }

  mlir::LogicalResult emitGemm(mlir::Attribute, mlir::OpBuilder &builder,
                               mlir::Operation *op, mlir::Value threadId,
                               mlir::Value cRegisters,
                               mlir::Value aRegisters) const {
    auto gemm = mlir::cast<GemmOp>(op);
    std::string message;
    mlir::FailureOr<WarpPartition> partition = getPartition(gemm, message);
    if (mlir::failed(partition))
      return gemm.emitError()
             << "T.gemm does not run on " << Derived::kName << ": " << message;
    Derived::emit(builder, gemm, *partition, threadId, cRegisters, aRegisters);
    return mlir::success();
  }
};

} // namespace tilec::tile

#endif // TILEC_DIALECT_TILE_TRANSFORMS_WARPTILEDINSTRUCTION_H
