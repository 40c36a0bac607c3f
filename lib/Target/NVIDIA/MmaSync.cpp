//===- MmaSync.cpp - T.gemm on tensor cores with mma.sync -----------------===//
//
// Part of tilec. Each warp computes its part of the accumulator as a grid
// of m16n8 tiles. For every step of K (16 for 16-bit operands, 32 for
// 8-bit, 8 for tf32) it loads A's 16xk and B's kx8 operand fragments from
// shared memory, or takes A from registers, and issues one mma.sync per
// accumulator tile.
//
// Operand fragments are built from 16-byte rows: a thread's register holds
// four bytes of one row of A (or one column of B) along K. ldmatrix loads
// them where those bytes are contiguous in shared memory: A stored M by K,
// B stored N by K. ldmatrix.trans serves 16-bit operands stored the other
// way; 8- and 32-bit ones are gathered element by element.
//
//===----------------------------------------------------------------------===//

#include "MmaSync.h"
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

/// The K depth of one mma.sync for operands of `type`, or 0 when mma.sync
/// does not take them.
static int64_t mmaDepth(Type type) {
  if (type.isF16() || type.isBF16())
    return 16;
  if (type.isInteger(8))
    return 32;
  if (type.isF32())
    return 8;
  return 0;
}

bool tilec::tile::isMmaSyncGemm(GemmOp gemm) {
  Type a = cast<MemRefType>(gemm.getA().getType()).getElementType();
  Type b = cast<MemRefType>(gemm.getB().getType()).getElementType();
  Type c = cast<MemRefType>(gemm.getC().getType()).getElementType();
  int64_t depth = mmaDepth(a);
  if (a != b || !depth)
    return false;
  if (!isInScope(gemm.getB().getType(), MemoryScope::Shared))
    return false;
  // Registers hold A in the 16-bit operand layout only.
  if (!isInScope(gemm.getA().getType(), MemoryScope::Shared) &&
      !(a.isF16() || a.isBF16()))
    return false;
  auto k = cast<MemRefType>(gemm.getA().getType())
               .getDimSize(gemm.getTransposeA() ? 0 : 1);
  if (k % depth != 0)
    return false;
  if (a.isInteger(8))
    return c.isInteger(32);
  return c.isF32() || (c.isF16() && a.isF16());
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
    elementType = aType.getElementType();
    accType = cType.getElementType();
    elementBytes = elementType.getIntOrFloatBitWidth() / 8;
    perRegister = 4 / elementBytes;
    depth = mmaDepth(elementType);
    tileM = m / p.warpM;
    tileN = n / p.warpN;
    mt = tileM / 16;
    nt = tileN / 8;
    kt = k / depth;
    lane = rem(tid, 32);
    Value warp = div(tid, 32);
    warpRow = mul(div(warp, p.warpN), tileM);
    warpCol = mul(rem(warp, p.warpN), tileN);
    group = div(lane, 4);
    inGroup = rem(lane, 4);
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
  /// A vector of `registers` 32-bit registers' worth of elements.
  VectorType registersType(int64_t registers) {
    return VectorType::get({registers, perRegister}, elementType);
  }
  Value ldmatrix(Value buffer, Value row, Value col, int64_t tiles,
                 bool transpose) {
    return nvgpu::LdMatrixOp::create(b, loc, registersType(tiles), buffer,
                                     ValueRange{row, col}, transpose, tiles);
  }
  /// Registers `first` and `first + 1` of a vector of ldmatrix registers.
  Value registerPair(Value matrices, int64_t first) {
    SmallVector<Value> elements;
    for (int64_t r = first; r < first + 2; ++r)
      for (int64_t e = 0; e < perRegister; ++e)
        elements.push_back(vector::ExtractOp::create(b, loc, matrices,
                                                     ArrayRef<int64_t>{r, e}));
    return vector::FromElementsOp::create(b, loc, registersType(2), elements);
  }
  /// `count` register slots from `base` as a vector of count/2 rows of 2.
  Value loadSlots(Value regs, int64_t base, int64_t count, Type type) {
    SmallVector<Value> elements;
    for (int64_t i = 0; i < count; ++i)
      elements.push_back(
          memref::LoadOp::create(b, loc, regs, ValueRange{constant(base + i)}));
    return vector::FromElementsOp::create(
        b, loc, VectorType::get({count / 2, 2}, type), elements);
  }
  /// Registers gathered element by element: register r holds the
  /// `perRegister` elements at `index(r, e)`.
  Value gather(Value buffer, int64_t registers,
               function_ref<std::pair<Value, Value>(int64_t, int64_t)> index) {
    SmallVector<Value> elements;
    for (int64_t r = 0; r < registers; ++r)
      for (int64_t e = 0; e < perRegister; ++e) {
        auto [row, col] = index(r, e);
        elements.push_back(
            memref::LoadOp::create(b, loc, buffer, ValueRange{row, col}));
      }
    return vector::FromElementsOp::create(b, loc, registersType(registers),
                                          elements);
  }

  /// One mma.sync on the operand fragments of one accumulator tile.
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
  int64_t elementBytes, perRegister, depth;
  Type elementType, accType;
  Value lane, group, inGroup, warpRow, warpCol;
};

Value MmaGemmEmitter::mma(Value a, Value bFragment, Value c) {
  if (!elementType.isBF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFragment, c,
                                    ArrayRef<int64_t>{16, 8, depth},
                                    /*tf32Enabled=*/elementType.isF32());
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
  // Register r of a 16xk fragment: row `group + 8 (r % 2)`, the
  // perRegister elements of K from `inGroup * perRegister + (r / 2) k/2`.
  int64_t chunk = depth / 2;
  SmallVector<Value> fragments;
  for (int64_t mi = 0; mi < mt; ++mi) {
    if (aRegs) {
      // The A operand layout keeps a 16x16 tile's 8 halves together.
      fragments.push_back(loadSlots(aRegs, (mi * kt + ki) * 8, 8, elementType));
      continue;
    }
    Value rowBase = add(warpRow, mi * 16);
    if (!gemm.getTransposeA()) {
      // Four 8x(16 bytes) matrices: rows 0-7 and 8-15 of the first half of
      // K, then of the second. Lane l gives row l % 16 of half l / 16.
      Value row = add(rowBase, rem(lane, 16));
      Value col = add(mul(div(lane, 16), chunk), ki * depth);
      fragments.push_back(ldmatrix(aShared, row, col, 4, false));
    } else if (elementBytes == 2) {
      // Stored K by M: each matrix is read transposed.
      Value row = add(add(rem(lane, 8), mul(div(lane, 16), 8)), ki * depth);
      Value col = add(rowBase, mul(rem(div(lane, 8), 2), 8));
      fragments.push_back(ldmatrix(aShared, row, col, 4, true));
    } else {
      fragments.push_back(gather(aShared, 4, [&](int64_t r, int64_t e) {
        Value m = add(add(rowBase, group), (r % 2) * 8);
        Value kk =
            add(mul(inGroup, perRegister), ki * depth + (r / 2) * chunk + e);
        return std::make_pair(kk, m);
      }));
    }
  }
  return fragments;
}

SmallVector<Value> MmaGemmEmitter::loadB(Value bShared, int64_t ki) {
  // Register r of a kx8 fragment: column `group`, the perRegister elements
  // of K from `inGroup * perRegister + r k/2`. Two fragments per
  // ldmatrix.x4 (one x2 for an odd last one).
  int64_t chunk = depth / 2;
  bool transposed = gemm.getTransposeB();
  SmallVector<Value> fragments;
  if (!transposed && elementBytes != 2) {
    // Stored K by N with 8- or 32-bit elements: no ldmatrix transposes
    // them, so each thread gathers its elements.
    for (int64_t ni = 0; ni < nt; ++ni)
      fragments.push_back(gather(bShared, 2, [&](int64_t r, int64_t e) {
        Value kk = add(mul(inGroup, perRegister), ki * depth + r * chunk + e);
        Value col = add(add(warpCol, group), ni * 8);
        return std::make_pair(kk, col);
      }));
    return fragments;
  }
  for (int64_t ni = 0; ni < nt; ni += 2) {
    int64_t tiles = ni + 1 < nt ? 4 : 2;
    Value row, col;
    if (!transposed) {
      // 16-bit, stored K by N: matrices k 0-7, k 8-15 of columns ni, then
      // of ni + 1, each read transposed.
      row = add(add(rem(lane, 8), mul(rem(div(lane, 8), 2), 8)), ki * depth);
      col = add(warpCol, ni * 8);
      if (tiles == 4)
        col = add(col, mul(div(lane, 16), 8));
    } else {
      // Stored N by K: matrices n 0-7 at both halves of K, then n 8-15.
      row = add(warpCol, ni * 8);
      row = add(row, tiles == 4 ? add(rem(lane, 8), mul(div(lane, 16), 8))
                                : rem(lane, 8));
      col = add(mul(rem(div(lane, 8), 2), chunk), ki * depth);
    }
    Value matrices = ldmatrix(bShared, row, col, tiles, !transposed);
    fragments.push_back(registerPair(matrices, 0));
    if (tiles == 4)
      fragments.push_back(registerPair(matrices, 2));
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
