//===- MatrixInstructions.h - NVIDIA's matrix instructions ------*- C++ -*-===//
//
// Part of tilec. mma.sync and wgmma as implementations of the tile
// dialect's MatrixInstructionAttrInterface.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_NVIDIA_MATRIXINSTRUCTIONS_H
#define TILEC_TARGET_NVIDIA_MATRIXINSTRUCTIONS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tilec::nvidia {

/// Attaches the mma.sync and wgmma models to #tile.mma_sync and #tile.wgmma
/// when the tile dialect loads.
void registerMatrixInstructionModels(mlir::DialectRegistry &registry);

} // namespace tilec::nvidia

#endif // TILEC_TARGET_NVIDIA_MATRIXINSTRUCTIONS_H
