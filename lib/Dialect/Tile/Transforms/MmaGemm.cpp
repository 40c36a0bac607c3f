//===- MmaGemm.cpp - T.gemm on tensor cores with mma.sync -----------------===//
//
// Part of tilec. Each warp computes its part of the accumulator as a grid
// of m16n8k16 tiles: for every 16-deep step of K, it loads A's 16x16 and
// B's 16x8 operand fragments from shared memory with ldmatrix (transposing
// B when it is stored K-major by rows, that is, not transposed), or takes
// A from registers, and issues one mma.sync per accumulator tile.
//
//===----------------------------------------------------------------------===//

#include "MmaGemm.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

bool tilec::tile::isMmaSyncGemm(GemmOp gemm) {
  Type a = cast<MemRefType>(gemm.getA().getType()).getElementType();
  Type b = cast<MemRefType>(gemm.getB().getType()).getElementType();
  Type c = cast<MemRefType>(gemm.getC().getType()).getElementType();
  if (a != b || !(a.isF16() || a.isBF16()))
    return false;
  if (!isInScope(gemm.getB().getType(), MemoryScope::Shared))
    return false;
  auto k = cast<MemRefType>(gemm.getA().getType())
               .getDimSize(gemm.getTransposeA() ? 0 : 1);
  return k % 16 == 0 && (c.isF32() || (c.isF16() && a.isF16()));
}

namespace {

/// Emits the code of one gemm for one thread.
class MmaGemmEmitter {
public:
  MmaGemmEmitter(OpBuilder &b, GemmOp gemm, WarpPartition p, Value tid)
      : b(b), gemm(gemm), loc(gemm.getLoc()), p(p) {
    auto aType = cast<MemRefType>(gemm.getA().getType());
    auto cType = cast<MemRefType>(gemm.getC().getType());
    m = cType.getDimSize(0);
    n = cType.getDimSize(1);
    k = aType.getDimSize(gemm.getTransposeA() ? 0 : 1);
    tileM = m / p.warpM;
    tileN = n / p.warpN;
    mt = tileM / 16;
    nt = tileN / 8;
    kt = k / 16;
    elementType = aType.getElementType();
    accType = cType.getElementType();
    lane = rem(tid, 32);
    Value warp = div(tid, 32);
    warpRow = mul(div(warp, p.warpN), tileM);
    warpCol = mul(rem(warp, p.warpN), tileN);
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

  /// `buffer` as a memref in the GPU's workgroup address space, which
  /// ldmatrix requires; the cast disappears when the tile dialect's shared
  /// buffers become workgroup memory.
  Value workgroupView(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto cast = MemRefType::get(type.getShape(), type.getElementType(),
                                type.getLayout(), space);
    return memref::MemorySpaceCastOp::create(b, loc, cast, buffer);
  }
  Value ldmatrix(Value buffer, Value row, Value col, int64_t tiles,
                 bool transpose) {
    auto type = VectorType::get({tiles, 2}, elementType);
    return nvgpu::LdMatrixOp::create(b, loc, type, buffer, ValueRange{row, col},
                                     transpose, tiles);
  }
  /// Rows `first` and `first + 1` of a vector<Nx2xT> of ldmatrix registers.
  Value rowPair(Value matrices, int64_t first) {
    SmallVector<Value> elements;
    for (int64_t r = first; r < first + 2; ++r)
      for (int64_t c = 0; c < 2; ++c)
        elements.push_back(vector::ExtractOp::create(b, loc, matrices,
                                                     ArrayRef<int64_t>{r, c}));
    return vector::FromElementsOp::create(
        b, loc, VectorType::get({2, 2}, elementType), elements);
  }
  /// `count` register slots from `base` as a vector<(count/2)x2xT>.
  Value loadSlots(Value regs, int64_t base, int64_t count, Type type) {
    SmallVector<Value> elements;
    for (int64_t i = 0; i < count; ++i)
      elements.push_back(
          memref::LoadOp::create(b, loc, regs, ValueRange{constant(base + i)}));
    return vector::FromElementsOp::create(
        b, loc, VectorType::get({count / 2, 2}, type), elements);
  }

  /// One m16n8k16 mma.sync: `a` is vector<4x2xT>, `b` vector<2x2xT>, `c`
  /// vector<2x2xAcc>.
  Value mma(Value a, Value b, Value c);

  SmallVector<Value> loadA(Value aShared, Value aRegs, int64_t ki);
  SmallVector<Value> loadB(Value bShared, int64_t ki);

  OpBuilder &b;
  GemmOp gemm;
  Location loc;
  WarpPartition p;
  arith::IntegerOverflowFlags noWrap =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  int64_t m, n, k, tileM, tileN, mt, nt, kt;
  Type elementType, accType;
  Value lane, warpRow, warpCol;
};

Value MmaGemmEmitter::mma(Value a, Value bFragment, Value c) {
  if (!elementType.isBF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFragment, c,
                                    ArrayRef<int64_t>{16, 8, 16});
  // nvgpu's mma.sync does not take bf16; NVVM's takes the operands packed
  // in 32-bit registers, two elements each.
  auto packRows = [&](Value matrix, int64_t rows) {
    SmallVector<Value> words;
    for (int64_t r = 0; r < rows; ++r) {
      Value pair = vector::ExtractOp::create(b, loc, matrix, r);
      words.push_back(
          LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair).getResult());
    }
    return words;
  };
  SmallVector<Value> cValues;
  for (int64_t r = 0; r < 4; ++r)
    cValues.push_back(
        vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{r / 2, r % 2}));
  Type f32 = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value result = NVVM::MmaOp::create(
      b, loc, resultType, packRows(a, 4), packRows(bFragment, 2), cValues,
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> d;
  for (int64_t r = 0; r < 4; ++r)
    d.push_back(LLVM::ExtractValueOp::create(b, loc, result, r));
  return vector::FromElementsOp::create(b, loc, cast<VectorType>(c.getType()),
                                        d);
}

SmallVector<Value> MmaGemmEmitter::loadA(Value aShared, Value aRegs,
                                         int64_t ki) {
  SmallVector<Value> fragments;
  for (int64_t mi = 0; mi < mt; ++mi) {
    if (aRegs) {
      // The A operand layout keeps a 16x16 tile's 8 halves together.
      fragments.push_back(loadSlots(aRegs, (mi * kt + ki) * 8, 8, elementType));
      continue;
    }
    // Four 8x8 matrices: rows 0-7 and 8-15 of columns 0-7, then of 8-15.
    // Lane l gives the address of row l % 8 of matrix l / 8.
    Value row, col;
    if (!gemm.getTransposeA()) {
      row = add(add(warpRow, rem(lane, 16)), mi * 16);
      col = add(mul(div(lane, 16), 8), ki * 16);
    } else {
      // A is stored K-major: each matrix is transposed on the way.
      row = add(add(rem(lane, 8), mul(div(lane, 16), 8)), ki * 16);
      col = add(add(warpRow, mul(rem(div(lane, 8), 2), 8)), mi * 16);
    }
    fragments.push_back(ldmatrix(aShared, row, col, 4, gemm.getTransposeA()));
  }
  return fragments;
}

SmallVector<Value> MmaGemmEmitter::loadB(Value bShared, int64_t ki) {
  // B's 16x8 fragments, two per ldmatrix.x4 (one x2 for an odd last one).
  // Stored [K, N] (not transposed), each 8x8 matrix is read transposed.
  bool transposed = gemm.getTransposeB();
  SmallVector<Value> fragments;
  for (int64_t ni = 0; ni < nt; ni += 2) {
    int64_t tiles = ni + 1 < nt ? 4 : 2;
    Value row, col;
    if (!transposed) {
      // Matrices: k 0-7, k 8-15 of columns ni, then of ni + 1.
      row = add(add(rem(lane, 8), mul(rem(div(lane, 8), 2), 8)), ki * 16);
      col = add(warpCol, ni * 8);
      if (tiles == 4)
        col = add(col, mul(div(lane, 16), 8));
    } else {
      // Stored [N, K]: matrices n 0-7 at k 0-7 and k 8-15, then n 8-15.
      row = add(warpCol, ni * 8);
      row = add(row, tiles == 4 ? add(rem(lane, 8), mul(div(lane, 16), 8))
                                : rem(lane, 8));
      col = add(mul(rem(div(lane, 8), 2), 8), ki * 16);
    }
    Value matrices = ldmatrix(bShared, row, col, tiles, !transposed);
    fragments.push_back(rowPair(matrices, 0));
    if (tiles == 4)
      fragments.push_back(rowPair(matrices, 2));
  }
  return fragments;
}

void MmaGemmEmitter::emit(Value cRegs, Value aRegs) {
  Value aShared = aRegs ? Value() : workgroupView(gemm.getA());
  Value bShared = workgroupView(gemm.getB());
  // The accumulators stay in SSA values across the K steps.
  SmallVector<Value> acc;
  auto accVector = VectorType::get({2, 2}, accType);
  for (int64_t tile = 0; tile < mt * nt; ++tile) {
    if (gemm.getClearAccum())
      acc.push_back(arith::ConstantOp::create(b, loc, accVector,
                                              b.getZeroAttr(accVector)));
    else
      acc.push_back(loadSlots(cRegs, tile * 4, 4, accType));
  }
  for (int64_t ki = 0; ki < kt; ++ki) {
    SmallVector<Value> aFragments = loadA(aShared, aRegs, ki);
    SmallVector<Value> bFragments = loadB(bShared, ki);
    for (int64_t mi = 0; mi < mt; ++mi)
      for (int64_t ni = 0; ni < nt; ++ni) {
        Value &c = acc[mi * nt + ni];
        c = mma(aFragments[mi], bFragments[ni], c);
      }
  }
  for (int64_t tile = 0; tile < mt * nt; ++tile)
    for (int64_t r = 0; r < 4; ++r) {
      Value value = vector::ExtractOp::create(b, loc, acc[tile],
                                              ArrayRef<int64_t>{r / 2, r % 2});
      memref::StoreOp::create(b, loc, value, cRegs,
                              ValueRange{constant(tile * 4 + r)});
    }
}

} // namespace

void tilec::tile::emitMmaGemm(OpBuilder &b, GemmOp gemm,
                              WarpPartition partition, Value tid, Value cRegs,
                              Value aRegs) {
  MmaGemmEmitter(b, gemm, partition, tid).emit(cRegs, aRegs);
}
