//===- Mfma.cpp - T.gemm on AMD matrix cores (MFMA) -----------------------===//
//
// Part of tilec. Each wave of 64 lanes computes its part of the accumulator
// as a grid of 16x16 tiles with v_mfma_f32_16x16x16 (f16 or bf16), issued
// with the operands swapped: the instruction computes C^T += B^T A^T, so
// that each lane ends up with four consecutive columns of one row of C
// (FragmentLayouts.h says which), the layout the next gemm takes A in and
// one that stores as 8- or 16-byte vectors. For every step of 16 along K,
// lane l reads row l % 16 of A (column of B) at four K from 4 * (l / 16);
// with both operands in shared memory, the two steps of every 32 take
// their K in an order that gives each lane eight consecutive ones
// (getMfmaOperandElement's kPack), one 16-byte read where K is the
// operand's fastest dimension (A untransposed, B transposed) and the
// swizzle keeps 16 bytes together, one read per element otherwise. The
// swizzle of each operand tile is the one the LDS bank model
// (chooseMfmaSharedSwizzle) finds conflict-free for these reads.
//
//===----------------------------------------------------------------------===//

#include "Mfma.h"

#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

/// The extent of K in `gemm`.
static int64_t getK(GemmOp gemm) {
  return cast<MemRefType>(gemm.getA().getType())
      .getDimSize(gemm.getTransposeA() ? 0 : 1);
}

bool tilec::tile::isMfmaFp8Gemm(GemmOp gemm) {
  Type a = cast<MemRefType>(gemm.getA().getType()).getElementType();
  Type b = cast<MemRefType>(gemm.getB().getType()).getElementType();
  Type c = cast<MemRefType>(gemm.getC().getType()).getElementType();
  return isFnuzFp8Type(a) && isFnuzFp8Type(b) && c.isF32() &&
         isInScope(gemm.getA().getType(), MemoryScope::Shared) &&
         isInScope(gemm.getB().getType(), MemoryScope::Shared) &&
         getK(gemm) % 32 == 0;
}

bool tilec::tile::isMfmaGemm(GemmOp gemm) {
  if (isMfmaFp8Gemm(gemm))
    return true;
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
  return getK(gemm) % 16 == 0;
}

int64_t tilec::tile::getMfmaKPack(GemmOp gemm) {
  if (!isInScope(gemm.getA().getType(), MemoryScope::Shared))
    return 1;
  // As many K as make 16 bytes a lane, where K allows.
  int64_t most = isMfmaFp8Gemm(gemm) ? 4 : 2;
  for (int64_t kPack = most; kPack > 1; kPack /= 2)
    if (getK(gemm) % (16 * kPack) == 0)
      return kPack;
  return 1;
}

std::optional<MfmaOperandTile> tilec::tile::getMfmaOperandTile(GemmOp gemm,
                                                               bool isA) {
  AllocSharedOp alloc = getSharedAlloc(isA ? gemm.getA() : gemm.getB());
  if (!alloc || alloc.getType().getRank() < 2)
    return std::nullopt;
  MemRefType type = alloc.getType();
  MfmaOperandTile tile;
  tile.rows = type.getDimSize(type.getRank() - 2);
  tile.cols = type.getDimSize(type.getRank() - 1);
  tile.elementBytes = type.getElementTypeBitWidth() / 8;
  tile.kFastest = isA ? !gemm.getTransposeA() : gemm.getTransposeB();
  tile.kPack = getMfmaKPack(gemm);
  return tile;
}

namespace {

/// The swizzles of `operand`'s shared buffer, planned and annotated (null
/// for a layout without one): tile-swizzle-shared applies one of them.
SmallVector<SwizzleAttr> getSwizzles(Value operand) {
  SmallVector<SwizzleAttr> swizzles;
  AllocSharedOp alloc = getSharedAlloc(operand);
  if (!alloc)
    return swizzles;
  if (SharedLayoutAttr planned = alloc.getLayoutAttr())
    swizzles.push_back(planned.getSwizzle());
  for (Operation *user : alloc->getUsers())
    if (auto annotate = dyn_cast<AnnotateLayoutOp>(user))
      if (auto layout = dyn_cast<SharedLayoutAttr>(annotate.getLayout()))
        swizzles.push_back(layout.getSwizzle());
  return swizzles;
}

/// Whether a lane's `4 * kPack` operand elements along K can be read from
/// `operand` as one vector: K is its fastest dimension and no swizzle,
/// planned or annotated, splits them.
bool isReadAsVector(Value operand, bool kFastest, int64_t kPack) {
  if (!kFastest || !getSharedAlloc(operand))
    return false;
  MfmaOperandTile tile;
  tile.kFastest = true;
  tile.kPack = kPack;
  return llvm::all_of(getSwizzles(operand), [&](SwizzleAttr swizzle) {
    return isMfmaReadAsVector(tile, swizzle);
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
    kPack = getMfmaKPack(gemm);
    bool fp8 = isMfmaFp8Gemm(gemm);
    steps = fp8 ? kPack / 2 : kPack;
    mfmaK = fp8 ? 32 : 16;
    Value lane = rem(tid, kWaveLanes);
    Value wave = div(tid, kWaveLanes);
    warpRow = mul(div(wave, p.warpN), tileM);
    warpCol = mul(rem(wave, p.warpN), tileN);
    // getMfmaOperandElement, at run time.
    operandRow = rem(lane, 16);
    operandK = mul(div(lane, 16), 4 * kPack);
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

  /// A lane's fragments of `buffer` for the MFMAs of a K block: element
  /// e of the block's `4 * kPack` is at `index(e)`; one vector read of all
  /// of them where they are contiguous. Each of the `steps` MFMAs takes
  /// its share in order: four each for f16 and bf16, all eight for fp8.
  SmallVector<Value> gather(Value buffer, bool contiguous,
                            function_ref<SmallVector<Value>(int64_t)> index) {
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    int64_t count = 4 * kPack, share = count / steps;
    SmallVector<Value> fragments;
    if (!contiguous) {
      for (int64_t step = 0; step < steps; ++step) {
        SmallVector<Value> elements;
        for (int64_t e = step * share; e < (step + 1) * share; ++e)
          elements.push_back(memref::LoadOp::create(b, loc, buffer, index(e)));
        fragments.push_back(vector::FromElementsOp::create(
            b, loc, VectorType::get({share}, element), elements));
      }
      return fragments;
    }
    // Aligned to its size: K starts at a multiple of `count` in rows of
    // whole runs, and swizzles move whole runs.
    auto load = vector::LoadOp::create(
        b, loc, VectorType::get({count}, element), buffer, index(0));
    load.setAlignment(count * element.getIntOrFloatBitWidth() / 8);
    Value run = load;
    if (steps == 1)
      return {run};
    // A shuffle, which lowers to LLVM as it is, for each share.
    for (int64_t step = 0; step < steps; ++step)
      fragments.push_back(
          vector::ShuffleOp::create(b, loc, run, run,
                                    llvm::to_vector(llvm::seq<int64_t>(
                                        step * share, (step + 1) * share))));
    return fragments;
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

  SmallVector<Value> loadA(Value aRegs, int64_t mi, int64_t kb);
  SmallVector<Value> loadB(int64_t ni, int64_t kb);

  OpBuilder &b;
  GemmOp gemm;
  Location loc;
  arith::IntegerOverflowFlags noWrap =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  /// MFMAs per K block of 16 * kPack, and their K: kPack of 16 for f16
  /// and bf16, kPack / 2 of 32 for fp8.
  int64_t mt, nt, kt, kPack, steps, mfmaK;
  Type elementType;
  Value warpRow, warpCol, operandRow, operandK;
};

SmallVector<Value> MfmaGemmEmitter::loadA(Value aRegs, int64_t mi, int64_t kb) {
  if (aRegs)
    return {loadSlots(aRegs, (mi * kt + kb) * 4, elementType)};
  Value row = add(add(warpRow, mi * 16), operandRow);
  Value k0 = add(operandK, kb * 16 * kPack);
  bool contiguous = isReadAsVector(gemm.getA(), !gemm.getTransposeA(), kPack);
  return gather(gemm.getA(), contiguous, [&](int64_t e) -> SmallVector<Value> {
    Value kk = add(k0, e);
    if (gemm.getTransposeA())
      return {kk, row};
    return {row, kk};
  });
}

SmallVector<Value> MfmaGemmEmitter::loadB(int64_t ni, int64_t kb) {
  Value col = add(add(warpCol, ni * 16), operandRow);
  Value k0 = add(operandK, kb * 16 * kPack);
  bool contiguous = isReadAsVector(gemm.getB(), gemm.getTransposeB(), kPack);
  return gather(gemm.getB(), contiguous, [&](int64_t e) -> SmallVector<Value> {
    Value kk = add(k0, e);
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
  for (int64_t kb = 0; kb < kt / kPack; ++kb) {
    SmallVector<SmallVector<Value>> aFragments, bFragments;
    for (int64_t mi = 0; mi < mt; ++mi)
      aFragments.push_back(loadA(aRegs, mi, kb));
    for (int64_t ni = 0; ni < nt; ++ni)
      bFragments.push_back(loadB(ni, kb));
    for (int64_t step = 0; step < steps; ++step)
      for (int64_t mi = 0; mi < mt; ++mi)
        for (int64_t ni = 0; ni < nt; ++ni) {
          Value &c = acc[mi * nt + ni];
          // Swapped: B's fragment is the instruction's A operand.
          c = amdgpu::MFMAOp::create(b, loc, accVector, /*m=*/16, /*n=*/16,
                                     /*k=*/mfmaK, /*blocks=*/1,
                                     bFragments[ni][step], aFragments[mi][step],
                                     c);
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
