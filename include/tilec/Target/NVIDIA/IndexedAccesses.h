//===- IndexedAccesses.h - NVIDIA's ops as indexed accesses -----*- C++ -*-===//
//
// Part of tilec. The models of the tile dialect's IndexedAccessOpInterface
// for the NVIDIA ops the generic passes meet before the conversion to NVVM.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_NVIDIA_INDEXEDACCESSES_H
#define TILEC_TARGET_NVIDIA_INDEXEDACCESSES_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tilec::nvidia {

/// Attaches the indexed-access model to nvgpu.ldmatrix when the nvgpu
/// dialect loads.
void registerIndexedAccessModels(mlir::DialectRegistry &registry);

} // namespace tilec::nvidia

#endif // TILEC_TARGET_NVIDIA_INDEXEDACCESSES_H
