//===- Wgmma.h - T.gemm on Hopper's warpgroup MMA ---------------*- C++ -*-===//
//
// Part of tilec. Used by the wgmma matrix instruction's model, which plans
// a gemm's layouts and emits it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_TARGET_NVIDIA_WGMMA_H
#define TILEC_LIB_TARGET_NVIDIA_WGMMA_H

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"

namespace tilec::tile {

/// How a gemm runs on wgmma: its warpgroup partition and the panelled
/// layouts of its shared operands (A's none when it is in registers).
struct WgmmaPlan {
  WarpgroupPartition partition;
  std::optional<PanelledTile> a;
  PanelledTile b;
};

/// The wgmma plan of `gemm` in a block of `threads` threads, if it can run
/// on wgmma: f16 or bf16 operands (any order), tf32, int8 or fp8 ones
/// (A stored M by K, B stored N by K) into f32 (int32 for int8), B in
/// shared memory in a tile that takes a panelled layout, A too or, 16-bit
/// and M by K, in registers when each warpgroup has whole rows of the
/// output to itself; K a multiple of the instruction's depth, and a warpgroup
/// partition that `gemm`'s policy allows. The operands' buffers must have
/// no layout yet or that panelled one; with `requireLayouts`, they must
/// have it.
std::optional<WgmmaPlan> planWgmmaGemm(GemmOp gemm, int64_t threads,
                                       bool requireLayouts);

/// The layout A in registers must have for `plan`: per warp, the mma.sync
/// m16k16 A fragments of its 16 rows of each band of 64, which wgmma takes
/// alike; that is the wgmma accumulator layout of an [M, K] tile, so the
/// previous gemm's result feeds this one slot for slot.
FragmentLayoutAttr getWgmmaOperandALayout(GemmOp gemm, const WgmmaPlan &plan);

/// Emits `gemm`, whose accumulator has the wgmma layout of `plan`, as the
/// per-thread wgmma code of thread `tid`, just before `gemm`: one fence,
/// then for each K step the m64nNk instructions of the thread's warpgroup
/// on shared-memory descriptors, committed as one group and waited for.
/// `cRegs` holds the accumulator's slots and, when A is in registers,
/// `aRegs` A's.
void emitWgmmaGemm(mlir::OpBuilder &b, GemmOp gemm, const WgmmaPlan &plan,
                   mlir::Value tid, mlir::Value cRegs, mlir::Value aRegs);

} // namespace tilec::tile

#endif // TILEC_LIB_TARGET_NVIDIA_WGMMA_H
