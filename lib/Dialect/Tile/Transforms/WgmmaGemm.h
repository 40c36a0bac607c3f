//===- WgmmaGemm.h - T.gemm on Hopper's warpgroup MMA -----------*- C++ -*-===//
//
// Part of tilec. Used by tile-infer-layouts, which plans a gemm's wgmma
// layouts, and tile-distribute, which emits it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILE_TRANSFORMS_WGMMAGEMM_H
#define TILEC_LIB_DIALECT_TILE_TRANSFORMS_WGMMAGEMM_H

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"

namespace tilec::tile {

/// How a gemm runs on wgmma: its warpgroup partition and the panelled
/// layouts of its shared operands.
struct WgmmaPlan {
  WarpgroupPartition partition;
  PanelledTile a, b;
};

/// The wgmma plan of `gemm` in a block of `threads` threads, if it can run
/// on wgmma: f16 or bf16 operands (any order), tf32, int8 or fp8 ones
/// (A stored M by K, B stored N by K) into f32 (int32 for int8), both in
/// shared memory in tiles that take a panelled layout, K a multiple of the
/// instruction's depth, and a warpgroup partition that `gemm`'s policy
/// allows. The operands' buffers must have no layout yet or that panelled
/// one; with `requireLayouts`, they must have it.
std::optional<WgmmaPlan> planWgmmaGemm(GemmOp gemm, int64_t threads,
                                       bool requireLayouts);

/// Emits `gemm`, whose accumulator has the wgmma layout of `plan`, as the
/// per-thread wgmma code of thread `tid`, just before `gemm`: one fence,
/// then for each K step the m64nNk instructions of the thread's warpgroup
/// on shared-memory descriptors, committed as one group and waited for.
/// `cRegs` holds the accumulator's slots.
void emitWgmmaGemm(mlir::OpBuilder &b, GemmOp gemm, const WgmmaPlan &plan,
                   mlir::Value tid, mlir::Value cRegs);

} // namespace tilec::tile

#endif // TILEC_LIB_DIALECT_TILE_TRANSFORMS_WGMMAGEMM_H
