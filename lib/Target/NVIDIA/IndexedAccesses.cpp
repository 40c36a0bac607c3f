//===- IndexedAccesses.cpp - NVIDIA's ops as indexed accesses -------------===//
//
// Part of tilec. nvgpu.ldmatrix, which the mma.sync emitter makes, seen by
// the verifiers and tile-swizzle-shared as the tile dialect's indexed
// accesses: each lane names one 16-byte row of a matrix.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/NVIDIA/IndexedAccesses.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace tilec::tile;

namespace {

struct LdMatrixModel
    : IndexedAccessOpInterface::ExternalModel<LdMatrixModel,
                                              nvgpu::LdMatrixOp> {
  SmallVector<IndexedAccess, 2> getIndexedAccesses(Operation *op) const {
    auto ldmatrix = cast<nvgpu::LdMatrixOp>(op);
    auto type = cast<MemRefType>(ldmatrix.getSrcMemref().getType());
    int64_t bits = type.getElementTypeBitWidth();
    IndexedAccess row(ldmatrix.getSrcMemref(), ldmatrix.getIndicesMutable(),
                      bits ? 128 / bits : 1, /*isWrite=*/false);
    row.requiredAlignment = 16;
    row.rowsAcrossLanes = true;
    row.description = "ldmatrix read of";
    return {row};
  }
};

} // namespace

void tilec::nvidia::registerIndexedAccessModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, nvgpu::NVGPUDialect *) {
    nvgpu::LdMatrixOp::attachInterface<LdMatrixModel>(*context);
  });
}
