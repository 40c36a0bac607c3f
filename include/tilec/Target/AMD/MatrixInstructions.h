//===- MatrixInstructions.h - AMD's matrix instructions ---------*- C++ -*-===//
//
// Part of tilec. MFMA as an implementation of the tile dialect's
// MatrixInstructionAttrInterface.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_AMD_MATRIXINSTRUCTIONS_H
#define TILEC_TARGET_AMD_MATRIXINSTRUCTIONS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tilec::amd {

/// Attaches the MFMA model to #tile.mfma when the tile dialect loads.
void registerMatrixInstructionModels(mlir::DialectRegistry &registry);

} // namespace tilec::amd

#endif // TILEC_TARGET_AMD_MATRIXINSTRUCTIONS_H
