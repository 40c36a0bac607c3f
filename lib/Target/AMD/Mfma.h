//===- Mfma.h - T.gemm on AMD matrix cores (MFMA) ---------------*- C++ -*-===//
//
// Part of tilec. Used by the MFMA matrix instruction's model.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_TARGET_AMD_MFMA_H
#define TILEC_LIB_TARGET_AMD_MFMA_H

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Analysis/LdsBanks.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"

namespace tilec::tile {

/// Whether `gemm` runs on v_mfma_f32_16x16x16 (gfx90a, gfx942): f16 or
/// bf16 operands into f32, K a multiple of 16, B in shared memory, and A
/// in shared memory or, untransposed, in registers; or on gfx942's
/// v_mfma_f32_16x16x32 for FNUZ 8-bit floats (isMfmaFp8Gemm).
bool isMfmaGemm(GemmOp gemm);

/// Whether `gemm` is one of FNUZ 8-bit floats (f8E4M3FNUZ, f8E5M2FNUZ, in
/// any pairing) into f32 with both operands in shared memory and K a
/// multiple of 32: one v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8} per 16x16
/// tile and step of 32, each lane passing eight consecutive K, two packed
/// steps of 16 (getMfmaOperandElement).
bool isMfmaFp8Gemm(GemmOp gemm);

/// The K packing of an MFMA gemm (getMfmaOperandElement): with both
/// operands in shared memory, the largest that gives each lane at most 16
/// consecutive bytes of K at once and divides K into steps of 16 * kPack
/// (2 for f16 and bf16, 4 for fp8); 1 with A in registers, whose layout
/// is the previous gemm's accumulator's.
int64_t getMfmaKPack(GemmOp gemm);

/// The operand tile of `operand` (A if `isA`, else B) of an MFMA gemm as
/// the LDS bank model sees it, if it is a shared buffer.
std::optional<MfmaOperandTile> getMfmaOperandTile(GemmOp gemm, bool isA);

/// Emits `gemm`, whose accumulator has the MFMA accumulator layout of
/// `partition`, as the per-thread code of thread `tid`: operand fragments
/// read from shared memory (or A's slots from `aRegs`, in the A operand
/// layout) and one amdgpu.mfma per 16x16 tile and step of K, just before
/// `gemm`. `cRegs` holds the accumulator's slots.
void emitMfmaGemm(mlir::OpBuilder &b, GemmOp gemm, WarpPartition partition,
                  mlir::Value tid, mlir::Value cRegs, mlir::Value aRegs);

} // namespace tilec::tile

#endif // TILEC_LIB_TARGET_AMD_MFMA_H
