//===- MmaSync.h - T.gemm on tensor cores with mma.sync ---------*- C++ -*-===//
//
// Part of tilec. Used by the mma.sync matrix instruction's model.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_TARGET_NVIDIA_MMASYNC_H
#define TILEC_LIB_TARGET_NVIDIA_MMASYNC_H

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"

namespace tilec::tile {

/// Whether `gemm` runs on mma.sync: f16 or bf16 operands into f32 (or f16
/// into f16), i8 into i32, or f32 computed as tf32, with K a multiple of
/// the instruction's depth, B in shared memory, and A in shared memory (or
/// in registers, 16-bit types only).
bool isMmaSyncGemm(GemmOp gemm);

/// Emits `gemm`, whose accumulator has the mma.sync accumulator layout of
/// `partition`, as the per-thread ldmatrix and mma.sync code of thread
/// `tid`, just before `gemm`. `cRegs` holds the accumulator's slots and,
/// when A is a fragment (with the A operand layout), `aRegs` A's.
void emitMmaGemm(mlir::OpBuilder &b, GemmOp gemm, WarpPartition partition,
                 mlir::Value tid, mlir::Value cRegs, mlir::Value aRegs);

} // namespace tilec::tile

#endif // TILEC_LIB_TARGET_NVIDIA_MMASYNC_H
