//===- MfmaGemm.cpp - T.gemm on AMD matrix cores (MFMA)
//--------------------===//
//
// Part of tilec. Each wave of 64 lanes computes its part of the accumulator
// as a grid of 16x16 tiles with v_mfma_f32_16x16x16 (f16 or bf16), issued
// with the operands swapped: the instruction computes C^T += B^T A^T, so
// that each lane ends up with four consecutive columns of one row of C
// (FragmentLayouts.h says which), the layout the next gemm takes A in and
// one that stores as 8- or 16-byte vectors. For every step of 16 along K,
// lane l reads row l % 16 of A (column of B) at the four K from
// 4 * (l / 16): one 8-byte read where K is the operand's fastest
// dimension (A untransposed, B transposed), four 2-byte reads otherwise.
// The swizzles tilec picks permute chunks of 16 bytes, so the 8-byte reads
// stay whole.
//
//===----------------------------------------------------------------------===//

#include "MfmaGemm.h"

#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

bool tilec::tile::isMfmaGemm(GemmOp gemm) {
  Type a = cast<MemRefType>(gemm.getA().getType()).getElementType();
  Type b = cast<MemRefType>(gemm.getB().getType()).getElementType();
  Type c = cast<MemRefType>(gemm.getC().getType()).getElementType();
  if (a != b || !(a.isF16() || a.isBF16()) || !c.isF32())
    return false;
  if (!isInScope(gemm.getB().getType(), MemoryScope::Shared))
    return false;
  if (!isInScope(gemm.getA().getType(), MemoryScope::Shared) &&
      gemm.getTransposeA())
    return false;
  auto k = cast<MemRefType>(gemm.getA().getType())
               .getDimSize(gemm.getTransposeA() ? 0 : 1);
  return k % 16 == 0;
}

namespace {

/// Whether a lane's four operand elements along K can be read from
/// `operand` as one vector: K is its fastest dimension and no swizzle,
/// planned or annotated, splits runs of four elements.
bool isReadAsVector(Value operand, bool kFastest) {
  AllocSharedOp alloc = getSharedAlloc(operand);
  if (!kFastest || !alloc)
    return false;
  SmallVector<SharedLayoutAttr> layouts;
  if (SharedLayoutAttr planned = alloc.getLayoutAttr())
    layouts.push_back(planned);
  for (Operation *user : alloc->getUsers())
    if (auto annotate = dyn_cast<AnnotateLayoutOp>(user))
      if (auto layout = dyn_cast<SharedLayoutAttr>(annotate.getLayout()))
        layouts.push_back(layout);
  return llvm::all_of(layouts, [](SharedLayoutAttr layout) {
    return !layout.getSwizzle() || layout.getSwizzle().getBase() >= 2;
  });
}

/// Emits the code of one gemm for one thread.
class MfmaGemmEmitter {
public:
  MfmaGemmEmitter(OpBuilder &b, GemmOp gemm, WarpPartition p, Value tid)
      : b(b), gemm(gemm), loc(gemm.getLoc()) {
    auto aType = cast<MemRefType>(gemm.getA().getType());
    auto cType = cast<MemRefType>(gemm.getC().getType());
    int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
    int64_t k = aType.getDimSize(gemm.getTransposeA() ? 0 : 1);
    elementType = aType.getElementType();
    int64_t tileM = m / p.warpM, tileN = n / p.warpN;
    mt = tileM / 16;
    nt = tileN / 16;
    kt = k / 16;
    Value lane = rem(tid, kWaveLanes);
    Value wave = div(tid, kWaveLanes);
    warpRow = mul(div(wave, p.warpN), tileM);
    warpCol = mul(rem(wave, p.warpN), tileN);
    // getMfmaOperandElement, at run time.
    operandRow = rem(lane, 16);
    operandK = mul(div(lane, 16), 4);
  }

  void emit(Value cRegs, Value aRegs);

private:
  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(Value x, Value y) {
    return b.createOrFold<arith::AddIOp>(loc, x, y, noWrap);
  }
  Value add(Value x, int64_t y) { return y ? add(x, constant(y)) : x; }
  Value mul(Value x, int64_t y) {
    return b.createOrFold<arith::MulIOp>(loc, x, constant(y), noWrap);
  }
  Value div(Value x, int64_t y) {
    return b.createOrFold<arith::DivUIOp>(loc, x, constant(y));
  }
  Value rem(Value x, int64_t y) {
    return b.createOrFold<arith::RemUIOp>(loc, x, constant(y));
  }

  /// The four elements of a lane's operand fragment: element v is at
  /// `index(v)` of `buffer`; one vector read where they are contiguous.
  Value gather(Value buffer, bool contiguous,
               function_ref<SmallVector<Value>(int64_t)> index) {
    auto type = VectorType::get({4}, elementType);
    if (contiguous)
      return vector::LoadOp::create(b, loc, type, buffer, index(0));
    SmallVector<Value> elements;
    for (int64_t v = 0; v < 4; ++v)
      elements.push_back(memref::LoadOp::create(b, loc, buffer, index(v)));
    return vector::FromElementsOp::create(b, loc, type, elements);
  }
  /// Four consecutive slots of `regs` from `base`, as a vector of `type`.
  Value loadSlots(Value regs, int64_t base, Type type) {
    SmallVector<Value> elements;
    for (int64_t v = 0; v < 4; ++v)
      elements.push_back(
          memref::LoadOp::create(b, loc, regs, ValueRange{constant(base + v)}));
    return vector::FromElementsOp::create(b, loc, VectorType::get({4}, type),
                                          elements);
  }

  Value loadA(Value aRegs, int64_t mi, int64_t ki);
  Value loadB(int64_t ni, int64_t ki);

  OpBuilder &b;
  GemmOp gemm;
  Location loc;
  arith::IntegerOverflowFlags noWrap =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  int64_t mt, nt, kt;
  Type elementType;
  Value warpRow, warpCol, operandRow, operandK;
};

Value MfmaGemmEmitter::loadA(Value aRegs, int64_t mi, int64_t ki) {
  if (aRegs)
    return loadSlots(aRegs, (mi * kt + ki) * 4, elementType);
  Value row = add(add(warpRow, mi * 16), operandRow);
  Value k0 = add(operandK, ki * 16);
  bool contiguous = isReadAsVector(gemm.getA(), !gemm.getTransposeA());
  return gather(gemm.getA(), contiguous, [&](int64_t v) -> SmallVector<Value> {
    Value kk = add(k0, v);
    if (gemm.getTransposeA())
      return {kk, row};
    return {row, kk};
  });
}

Value MfmaGemmEmitter::loadB(int64_t ni, int64_t ki) {
  Value col = add(add(warpCol, ni * 16), operandRow);
  Value k0 = add(operandK, ki * 16);
  bool contiguous = isReadAsVector(gemm.getB(), gemm.getTransposeB());
  return gather(gemm.getB(), contiguous, [&](int64_t v) -> SmallVector<Value> {
    Value kk = add(k0, v);
    if (gemm.getTransposeB())
      return {col, kk};
    return {kk, col};
  });
}

void MfmaGemmEmitter::emit(Value cRegs, Value aRegs) {
  Type f32 = b.getF32Type();
  auto accVector = VectorType::get({4}, f32);
  // The accumulators stay in SSA values across the K steps.
  SmallVector<Value> acc;
  for (int64_t tile = 0; tile < mt * nt; ++tile) {
    if (gemm.getClearAccum())
      acc.push_back(arith::ConstantOp::create(b, loc, accVector,
                                              b.getZeroAttr(accVector)));
    else
      acc.push_back(loadSlots(cRegs, tile * 4, f32));
  }
  for (int64_t ki = 0; ki < kt; ++ki) {
    SmallVector<Value> aFragments, bFragments;
    for (int64_t mi = 0; mi < mt; ++mi)
      aFragments.push_back(loadA(aRegs, mi, ki));
    for (int64_t ni = 0; ni < nt; ++ni)
      bFragments.push_back(loadB(ni, ki));
    for (int64_t mi = 0; mi < mt; ++mi)
      for (int64_t ni = 0; ni < nt; ++ni) {
        Value &c = acc[mi * nt + ni];
        // Swapped: B's fragment is the instruction's A operand.
        c = amdgpu::MFMAOp::create(b, loc, accVector, /*m=*/16, /*n=*/16,
                                   /*k=*/16, /*blocks=*/1, bFragments[ni],
                                   aFragments[mi], c);
      }
  }
  for (int64_t tile = 0; tile < mt * nt; ++tile)
    for (int64_t r = 0; r < 4; ++r) {
      Value value = vector::ExtractOp::create(b, loc, acc[tile], r);
      memref::StoreOp::create(b, loc, value, cRegs,
                              ValueRange{constant(tile * 4 + r)});
    }
}

} // namespace

void tilec::tile::emitMfmaGemm(OpBuilder &b, GemmOp gemm,
                               WarpPartition partition, Value tid, Value cRegs,
                               Value aRegs) {
  MfmaGemmEmitter(b, gemm, partition, tid).emit(cRegs, aRegs);
}
