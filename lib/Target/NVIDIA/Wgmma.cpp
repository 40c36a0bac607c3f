//===- Wgmma.cpp - T.gemm on Hopper's warpgroup MMA -----------------------===//
//
// Part of tilec. Each warpgroup (4 consecutive warps) computes its part of
// the accumulator as a grid of m64nN tiles; for every 32-byte step of K it
// issues one wgmma per tile, reading A and B from shared memory through
// matrix descriptors. The operands' tiles have the panelled layout TMA
// writes (PanelledTile): panels of `swizzleBytes`-byte rows, swizzled, which
// is one of wgmma's canonical layouts in either major order:
//
//   K-major (A stored M by K, B stored N by K): rows of the panel are rows
//     of M (N); groups of 8 rows are 8 * swizzleBytes apart (the stride
//     byte offset), a K step moves 32 bytes along the row, and the next
//     panel is the next 64 (128, ...) bytes of K.
//   MN-major (16-bit A stored K by M, B stored K by N): rows of the panel
//     are rows of K, 8 of them 8 * swizzleBytes apart; an instruction wider
//     than a panel continues in the next one, a panel's bytes away (the
//     leading byte offset).
//
// Descriptors hold the address in 16-byte units, so stepping through the
// tiles adds constants to one base descriptor per operand and warpgroup.
//
//===----------------------------------------------------------------------===//

#include "Wgmma.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

/// The PTX type of wgmma operands of `type`, if wgmma takes them.
static std::optional<NVVM::WGMMATypes> getWgmmaType(Type type) {
  if (type.isF16())
    return NVVM::WGMMATypes::f16;
  if (type.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (type.isF32())
    return NVVM::WGMMATypes::tf32;
  if (type.isInteger(8))
    return NVVM::WGMMATypes::s8;
  if (isa<Float8E4M3FNType>(type))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(type))
    return NVVM::WGMMATypes::e5m2;
  return std::nullopt;
}

/// The panelled tile of a gemm operand in shared memory, checked against
/// the layout its buffer already has.
static std::optional<PanelledTile> operandTile(Value operand,
                                               bool requireLayout) {
  auto type = cast<MemRefType>(operand.getType());
  AllocSharedOp alloc = getSharedAlloc(operand);
  if (!alloc)
    return std::nullopt;
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  std::optional<PanelledTile> tile =
      choosePanelledTile(type.getDimSize(0), type.getDimSize(1), elementBytes);
  if (!tile)
    return std::nullopt;
  if (SharedLayoutAttr layout = alloc.getLayoutAttr()) {
    std::optional<PanelledTile> existing =
        matchPanelledLayout(layout, elementBytes);
    if (!existing || existing->swizzleBytes != tile->swizzleBytes)
      return std::nullopt;
  } else if (requireLayout ||
             llvm::any_of(alloc->getUsers(), [](Operation *user) {
               return isa<AnnotateLayoutOp>(user);
             })) {
    return std::nullopt;
  }
  return tile;
}

std::optional<WgmmaPlan>
tilec::tile::planWgmmaGemm(GemmOp gemm, int64_t threads, bool requireLayouts) {
  auto aType = cast<MemRefType>(gemm.getA().getType());
  auto bType = cast<MemRefType>(gemm.getB().getType());
  auto cType = cast<MemRefType>(gemm.getC().getType());
  bool aInRegisters = isInScope(aType, MemoryScope::Fragment);
  if ((!aInRegisters && !isInScope(aType, MemoryScope::Shared)) ||
      !isInScope(bType, MemoryScope::Shared) || threads % 128 != 0)
    return std::nullopt;
  Type a = aType.getElementType(), c = cType.getElementType();
  if (a != bType.getElementType() || !getWgmmaType(a))
    return std::nullopt;
  bool integer = a.isInteger(8);
  if (integer ? !c.isInteger(32) : !c.isF32())
    return std::nullopt;
  // Only 16-bit operands may be stored MN-major.
  bool sixteenBit = a.isF16() || a.isBF16();
  if (!sixteenBit && (gemm.getTransposeA() || !gemm.getTransposeB()))
    return std::nullopt;
  int64_t elementBytes = aType.getElementTypeBitWidth() / 8;
  int64_t k = aType.getDimSize(gemm.getTransposeA() ? 0 : 1);
  if (k % (32 / elementBytes) != 0)
    return std::nullopt;
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  std::string message;
  FailureOr<WarpgroupPartition> partition = computeWarpgroupPartition(
      m, n, threads / 128, gemm.getPolicy(), integer ? 16 : 8, message);
  if (failed(partition))
    return std::nullopt;
  // Registers hold A as the accumulator of an [M, K] tile: each warp's 16
  // rows of each of its warpgroup's bands of 64.
  if (aInRegisters && (!sixteenBit || gemm.getTransposeA() ||
                       partition->n != 1 || k % getWgmmaInstructionN(k) != 0))
    return std::nullopt;
  std::optional<PanelledTile> aTile;
  if (!aInRegisters) {
    aTile = operandTile(gemm.getA(), requireLayouts);
    if (!aTile)
      return std::nullopt;
  }
  std::optional<PanelledTile> bTile = operandTile(gemm.getB(), requireLayouts);
  if (!bTile)
    return std::nullopt;
  // An MN-major B instruction starts at a panel.
  int64_t tileN = n / partition->n;
  if (!gemm.getTransposeB() &&
      (tileN % bTile->panelCols() != 0 ||
       getWgmmaInstructionN(tileN) % bTile->panelCols() != 0))
    return std::nullopt;
  return WgmmaPlan{*partition, aTile, *bTile};
}

FragmentLayoutAttr tilec::tile::getWgmmaOperandALayout(GemmOp gemm,
                                                       const WgmmaPlan &plan) {
  // Band mi's step ki of 16 columns is slots 8 (mi * kSteps + ki) to 8
  // (mi * kSteps + ki) + 7, in the register order of an m64k16 fragment,
  // which is that of two n8 accumulator tiles: the accumulator layout.
  auto aType = cast<MemRefType>(gemm.getA().getType());
  return makeWgmmaAccumulatorLayout(gemm.getContext(), aType.getDimSize(0),
                                    aType.getDimSize(1),
                                    WarpgroupPartition{plan.partition.m, 1});
}

namespace {

class WgmmaEmitter {
public:
  WgmmaEmitter(OpBuilder &b, GemmOp gemm, const WgmmaPlan &plan)
      : b(b), gemm(gemm), loc(gemm.getLoc()), plan(plan) {
    auto aType = cast<MemRefType>(gemm.getA().getType());
    auto cType = cast<MemRefType>(gemm.getC().getType());
    elementType = aType.getElementType();
    accType = cType.getElementType();
    elementBytes = aType.getElementTypeBitWidth() / 8;
    depth = 32 / elementBytes;
    int64_t k = aType.getDimSize(gemm.getTransposeA() ? 0 : 1);
    kSteps = k / depth;
    tileM = cType.getDimSize(0) / plan.partition.m;
    tileN = cType.getDimSize(1) / plan.partition.n;
    instN = getWgmmaInstructionN(tileN);
    mInst = tileM / 64;
    nInst = tileN / instN;
    regs = instN / 2;
    aKMajor = !gemm.getTransposeA();
    bKMajor = gemm.getTransposeB();
  }

  void emit(Value tid, Value cRegs, Value aRegs);

private:
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value i64(int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 64);
  }

  /// The descriptor bits that do not depend on the address: the leading
  /// and stride byte offsets and the swizzle mode.
  static uint64_t layoutBits(const PanelledTile &tile, bool kMajor) {
    uint64_t leading = kMajor ? 1 : tile.panelBytes() >> 4;
    uint64_t stride = (8 * tile.swizzleBytes) >> 4;
    uint64_t mode = tile.swizzleBytes == 128  ? 1
                    : tile.swizzleBytes == 64 ? 2
                                              : 3;
    return (leading << 16) | (stride << 32) | (mode << 62);
  }
  /// The descriptor of the operand tile at shared byte address `address`.
  Value descriptor(Value address, const PanelledTile &tile, bool kMajor) {
    Value wide = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
    Value field = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, wide, i64(4)), i64(0x3FFF));
    return arith::OrIOp::create(b, loc, field, i64(layoutBits(tile, kMajor)));
  }
  /// The byte offset, from its warpgroup's part, of the operand tile that
  /// starts at row or column `mn` (of M or N) and `k` of K.
  static int64_t tileOffset(const PanelledTile &tile, bool kMajor, int64_t mn,
                            int64_t k) {
    return kMajor ? tile.byteOffset(mn, k) : tile.byteOffset(k, mn);
  }
  /// The byte address of a warpgroup's part of an operand whose rows (M or
  /// N) start at `first`.
  Value partAddress(Value operand, const PanelledTile &tile, bool kMajor,
                    Value first) {
    Value base = emitSharedAddress(b, loc, operand);
    Value offset;
    if (kMajor) {
      offset = arith::MulIOp::create(b, loc, first, index(tile.swizzleBytes));
    } else {
      // Parts start at panels (planWgmmaGemm checked it).
      Value panel =
          arith::DivUIOp::create(b, loc, first, index(tile.panelCols()));
      offset = arith::MulIOp::create(b, loc, panel, index(tile.panelBytes()));
    }
    return arith::AddIOp::create(b, loc, base, offset);
  }
  /// Pins `values` (accumulator registers) at this point of the program:
  /// wgmma reads and writes them asynchronously, so nothing may move their
  /// other uses across the fence or the wait. No op expresses this, hence
  /// an empty inline asm that claims to modify them.
  Value pinRegisters(Value values) {
    auto type = cast<LLVM::LLVMStructType>(values.getType());
    unsigned count = type.getBody().size();
    std::string constraints;
    StringRef kind = accType.isF32() ? "f" : "r";
    for (unsigned i = 0; i < count; ++i)
      constraints += (i ? ",=" : "=") + kind.str();
    for (unsigned i = 0; i < count; ++i)
      constraints += "," + std::to_string(i);
    SmallVector<Value> elements;
    for (unsigned i = 0; i < count; ++i)
      elements.push_back(LLVM::ExtractValueOp::create(b, loc, values, i));
    return LLVM::InlineAsmOp::create(
               b, loc, type, elements, b.getStringAttr(""),
               b.getStringAttr(constraints), b.getUnitAttr(), UnitAttr(),
               LLVM::TailCallKindAttr::get(
                   b.getContext(), LLVM::tailcallkind::TailCallKind::None),
               LLVM::AsmDialectAttr(), ArrayAttr())
        .getResult(0);
  }

  /// One wgmma with A from registers (`a`, four 32-bit registers of 16-bit
  /// pairs) and B from shared memory. The NVVM op only reads A from shared
  /// memory, hence inline PTX.
  Value registerAWgmma(Value acc, ArrayRef<Value> a, Value descB, bool zero);

  OpBuilder &b;
  GemmOp gemm;
  Location loc;
  const WgmmaPlan &plan;
  Type elementType, accType;
  int64_t elementBytes, depth, kSteps;
  int64_t tileM, tileN, instN, mInst, nInst, regs;
  bool aKMajor, bKMajor;
};

Value WgmmaEmitter::registerAWgmma(Value acc, ArrayRef<Value> a, Value descB,
                                   bool zero) {
  auto type = cast<LLVM::LLVMStructType>(acc.getType());
  unsigned count = type.getBody().size();
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  StringRef name = elementType.isF16() ? "f16" : "bf16";
  // Operands: the accumulators out ($0...), tied to the same in, then A's
  // registers, B's descriptor and whether to add to the accumulators.
  unsigned a0 = 2 * count;
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << a0 + 5 << ", 0;\n"
     << "wgmma.mma_async.sync.aligned.m64n" << instN << "k16.f32." << name
     << "." << name << " {";
  for (unsigned i = 0; i < count; ++i)
    os << (i ? ", $" : "$") << i;
  os << "}, {$" << a0 << ", $" << a0 + 1 << ", $" << a0 + 2 << ", $" << a0 + 3
     << "}, $" << a0 + 4 << ", p, 1, 1, " << (bKMajor ? 0 : 1) << ";\n}\n";
  std::string constraints;
  for (unsigned i = 0; i < count; ++i)
    constraints += i ? ",=f" : "=f";
  for (unsigned i = 0; i < count; ++i)
    constraints += "," + std::to_string(i);
  constraints += ",r,r,r,r,l,r";
  SmallVector<Value> operands;
  for (unsigned i = 0; i < count; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  llvm::append_range(operands, a);
  operands.push_back(descB);
  operands.push_back(arith::ConstantIntOp::create(b, loc, zero ? 0 : 1, 32));
  return LLVM::InlineAsmOp::create(
             b, loc, type, operands, b.getStringAttr(ptx),
             b.getStringAttr(constraints), b.getUnitAttr(), UnitAttr(),
             LLVM::TailCallKindAttr::get(
                 b.getContext(), LLVM::tailcallkind::TailCallKind::None),
             LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

void WgmmaEmitter::emit(Value tid, Value cRegs, Value aRegs) {
  MLIRContext *context = b.getContext();
  // The thread's warpgroup and the rows and columns of its part.
  Value group = arith::DivUIOp::create(b, loc, tid, index(128));
  Value rows = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, group, index(plan.partition.n)),
      index(tileM));
  Value cols = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, group, index(plan.partition.n)),
      index(tileN));
  Value aBase;
  if (plan.a)
    aBase = descriptor(partAddress(gemm.getA(), *plan.a, aKMajor, rows),
                       *plan.a, aKMajor);
  Value bBase = descriptor(partAddress(gemm.getB(), plan.b, bKMajor, cols),
                           plan.b, bKMajor);

  // The accumulators, as wgmma's register structs.
  auto structType = LLVM::LLVMStructType::getLiteral(
      context, SmallVector<Type>(regs, accType));
  SmallVector<Value> acc;
  for (int64_t tile = 0; tile < mInst * nInst; ++tile) {
    if (gemm.getClearAccum()) {
      // The first K step ignores them (scale-d 0).
      acc.push_back(LLVM::ZeroOp::create(b, loc, structType));
      continue;
    }
    Value value = LLVM::UndefOp::create(b, loc, structType);
    for (int64_t r = 0; r < regs; ++r) {
      Value slot = memref::LoadOp::create(b, loc, cRegs,
                                          ValueRange{index(tile * regs + r)});
      value = LLVM::InsertValueOp::create(b, loc, value, slot, r);
    }
    acc.push_back(value);
  }
  // A in registers: band mi's step ki of 16 columns is slots
  // 8 (mi * kSteps + ki) to 8 (mi * kSteps + ki) + 7, in pairs; all packed
  // before the fence, so that no register wgmma reads is written after it.
  SmallVector<Value> aPairs;
  if (aRegs) {
    auto pair = VectorType::get({2}, elementType);
    for (int64_t slot = 0; slot < mInst * kSteps * 8; slot += 2) {
      SmallVector<Value> halves;
      for (int64_t h = 0; h < 2; ++h)
        halves.push_back(
            memref::LoadOp::create(b, loc, aRegs, ValueRange{index(slot + h)}));
      Value packed = vector::FromElementsOp::create(b, loc, pair, halves);
      aPairs.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), packed));
    }
  }
  for (Value &value : acc)
    value = pinRegisters(value);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);

  NVVM::WGMMATypes type = *getWgmmaType(elementType);
  NVVM::WGMMATypes accumulator =
      accType.isF32() ? NVVM::WGMMATypes::f32 : NVVM::WGMMATypes::s32;
  auto shape = NVVM::MMAShapeAttr::get(context, 64, instN, depth);
  NVVM::MMALayout layoutA =
      aKMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  NVVM::MMALayout layoutB =
      bKMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  for (int64_t ki = 0; ki < kSteps; ++ki) {
    NVVM::WGMMAScaleOut scaleD = gemm.getClearAccum() && ki == 0
                                     ? NVVM::WGMMAScaleOut::zero
                                     : NVVM::WGMMAScaleOut::one;
    for (int64_t mi = 0; mi < mInst; ++mi) {
      ArrayRef<Value> aWords;
      if (aRegs)
        aWords = ArrayRef<Value>(aPairs).slice((mi * kSteps + ki) * 4, 4);
      Value descA;
      if (plan.a)
        descA = arith::AddIOp::create(
            b, loc, aBase,
            i64(tileOffset(*plan.a, aKMajor, mi * 64, ki * depth) >> 4));
      for (int64_t nj = 0; nj < nInst; ++nj) {
        int64_t bOffset = tileOffset(plan.b, bKMajor, nj * instN, ki * depth);
        Value descB = arith::AddIOp::create(b, loc, bBase, i64(bOffset >> 4));
        Value &value = acc[mi * nInst + nj];
        if (aRegs) {
          value = registerAWgmma(value, aWords, descB,
                                 scaleD == NVVM::WGMMAScaleOut::zero);
          continue;
        }
        value = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, structType, value, descA, descB, shape, type, type,
            accumulator, scaleD, NVVM::WGMMAScaleIn::one,
            NVVM::WGMMAScaleIn::one, layoutA, layoutB,
            /*satfinite=*/NVVM::MMAIntOverflowAttr());
      }
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  for (auto [tile, value] : llvm::enumerate(acc)) {
    value = pinRegisters(value);
    for (int64_t r = 0; r < regs; ++r)
      memref::StoreOp::create(b, loc,
                              LLVM::ExtractValueOp::create(b, loc, value, r),
                              cRegs, ValueRange{index(tile * regs + r)});
  }
}

} // namespace

void tilec::tile::emitWgmmaGemm(OpBuilder &b, GemmOp gemm,
                                const WgmmaPlan &plan, Value tid, Value cRegs,
                                Value aRegs) {
  WgmmaEmitter(b, gemm, plan).emit(tid, cRegs, aRegs);
}
