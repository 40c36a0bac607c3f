//===- Utils.cpp - Helpers shared by the tile passes ----------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <functional>
#include <limits>
#include <numeric>

using namespace mlir;

Value tilec::tile::convertElement(OpBuilder &builder, Location loc, Value value,
                                  Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(builder, loc, to, value);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(builder, loc, to, value);
    Value wide =
        arith::ExtFOp::create(builder, loc, builder.getF32Type(), value);
    return arith::TruncFOp::create(builder, loc, to, wide);
  }
  if (fromFloat)
    return arith::FPToSIOp::create(builder, loc, to, value);
  if (toFloat)
    return arith::SIToFPOp::create(builder, loc, to, value);
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth < toWidth)
    return fromWidth == 1
               ? arith::ExtUIOp::create(builder, loc, to, value).getResult()
               : arith::ExtSIOp::create(builder, loc, to, value).getResult();
  return arith::TruncIOp::create(builder, loc, to, value);
}

Value tilec::tile::createZero(OpBuilder &builder, Location loc, Type type) {
  return arith::ConstantOp::create(builder, loc, builder.getZeroAttr(type));
}

Value tilec::tile::emitNonNegativeAffine(OpBuilder &builder, Location loc,
                                         AffineExpr expr, ValueRange dims) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return arith::ConstantIndexOp::create(
        builder, loc, cast<AffineConstantExpr>(expr).getValue());
  case AffineExprKind::DimId:
    return dims[cast<AffineDimExpr>(expr).getPosition()];
  case AffineExprKind::SymbolId:
    llvm_unreachable("layout maps have no symbols");
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  Value lhs = emitNonNegativeAffine(builder, loc, binary.getLHS(), dims);
  Value rhs = emitNonNegativeAffine(builder, loc, binary.getRHS(), dims);
  // Layout values are thread ids, slots and positions in a tile: small
  // non-negative numbers, which the flags let LLVM's analyses assume.
  auto noWrap =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return builder.createOrFold<arith::AddIOp>(loc, lhs, rhs, noWrap);
  case AffineExprKind::Mul:
    return builder.createOrFold<arith::MulIOp>(loc, lhs, rhs, noWrap);
  case AffineExprKind::FloorDiv:
    return builder.createOrFold<arith::DivUIOp>(loc, lhs, rhs);
  case AffineExprKind::CeilDiv:
    return builder.createOrFold<arith::CeilDivUIOp>(loc, lhs, rhs);
  case AffineExprKind::Mod:
    return builder.createOrFold<arith::RemUIOp>(loc, lhs, rhs);
  default:
    llvm_unreachable("unexpected affine expression");
  }
}

tilec::tile::AllocSharedOp tilec::tile::getSharedAlloc(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::CastOp, memref::MemorySpaceCastOp>(def))
      break;
    view = def->getOperand(0);
  }
  return view.getDefiningOp<tilec::tile::AllocSharedOp>();
}

bool tilec::tile::isAnnotated(AllocSharedOp alloc) {
  return llvm::any_of(alloc->getUsers(), [](Operation *user) {
    return isa<AnnotateLayoutOp>(user);
  });
}

void tilec::tile::setSwizzledLayout(AllocSharedOp alloc, SwizzleAttr swizzle) {
  MLIRContext *context = alloc.getContext();
  ArrayRef<int64_t> shape = alloc.getType().getShape();
  alloc.setLayoutAttr(SharedLayoutAttr::get(
      context, shape, getRowMajorMap(context, shape), swizzle));
}

FailureOr<tilec::WarpPartition>
tilec::tile::computeGemmWarpPartition(GemmOp gemm, int64_t atomN,
                                      StringRef unit, std::string &message) {
  int64_t threads = threadScopeOf(gemm).count;
  int64_t lanes = TargetAttr::lookup(gemm).getWarpSize();
  auto cType = cast<MemRefType>(gemm.getC().getType());
  FailureOr<WarpPartition> partition =
      threads % lanes == 0
          ? computeWarpPartition(cType.getDimSize(0), cType.getDimSize(1),
                                 threads / lanes, gemm.getPolicy(),
                                 /*atomM=*/16, atomN, message, unit)
          : FailureOr<WarpPartition>(failure());
  if (failed(partition) && message.empty())
    message = ("the block's " + Twine(threads) + " threads are not whole " +
               unit + "s")
                  .str();
  return partition;
}

bool tilec::tile::qualifiesForTma(Value tensorValue, ArrayRef<int64_t> extents,
                                  Value buffer,
                                  std::optional<PanelledTile> &panels) {
  if (!isa<BlockArgument>(tensorValue) ||
      !isa<func::FuncOp>(
          cast<BlockArgument>(tensorValue).getOwner()->getParentOp()))
    return false;
  auto tensor = cast<MemRefType>(tensorValue.getType());
  auto tileType = cast<MemRefType>(buffer.getType());
  if (tensor.getElementType() != tileType.getElementType() ||
      tileType.getRank() != 2 || tensor.getRank() > 5 ||
      !tensor.getLayout().isIdentity())
    return false;
  unsigned bits = tileType.getElementTypeBitWidth();
  int64_t elementBytes = bits / 8;
  if (bits % 8 != 0 || !llvm::is_contained({1, 2, 4}, elementBytes))
    return false;
  int64_t rows = tileType.getDimSize(0), cols = tileType.getDimSize(1);
  if (extents.back() != cols ||
      llvm::any_of(extents, [](int64_t e) { return e > 256; }))
    return false;
  // Every stride but the innermost dimension's must be a multiple of 16
  // bytes. A run-time extent in one is a factor of unknown value, so the
  // product of the others (the stride's known divisor) must be; the header
  // checks the 2^40 bound of such strides at launch.
  int64_t divisor = elementBytes;
  bool dynamic = false;
  for (int64_t dim = tensor.getRank() - 1; dim > 0; --dim) {
    if (tensor.isDynamicDim(dim))
      dynamic = true;
    else
      divisor *= tensor.getDimSize(dim);
    if (divisor % 16 != 0 || (!dynamic && divisor >= (int64_t(1) << 40)))
      return false;
  }
  if (llvm::any_of(buffer.getUsers(),
                   [](Operation *user) { return isa<AnnotateLayoutOp>(user); }))
    return false;
  panels = choosePanelledTile(rows, cols, elementBytes);
  return panels || (cols * elementBytes % 16 == 0 && cols <= 256);
}

std::optional<tilec::tile::TmaPanels>
tilec::tile::createTmaPanels(KernelOp kernel, Location loc, Value tensor,
                             ArrayRef<int64_t> extents, Value tile) {
  auto type = cast<MemRefType>(tile.getType());
  AllocSharedOp alloc = getSharedAlloc(tile);
  if (!alloc || type.getRank() != 2)
    return std::nullopt;
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  std::optional<PanelledTile> panelled =
      matchPanelledLayout(alloc.getLayoutAttr(), elementBytes);
  if (!panelled && alloc.getLayoutAttr())
    return std::nullopt;
  tilec::tile::TmaPanels panels;
  panels.cols = panelled ? panelled->panelCols() : cols;
  panels.count = cols / panels.cols;
  panels.bytes = rows * panels.cols * elementBytes;
  SmallVector<int64_t> box(extents);
  box.back() = panels.cols;
  OpBuilder kb = OpBuilder::atBlockBegin(&kernel.getBody().front());
  panels.map = TensorMapOp::create(
      kb, loc, LLVM::LLVMPointerType::get(kernel.getContext()), tensor, box,
      panelled ? panelled->swizzleBytes : 0);
  return panels;
}

void tilec::tile::emitPerTmaPanel(
    OpBuilder &builder, Location loc, const TmaPanels &panels,
    ArrayRef<OpFoldResult> offsets, Value tile,
    function_ref<void(ValueRange coordinates, Value panel)> emit) {
  SmallVector<Value> coordinates = llvm::map_to_vector(
      llvm::reverse(offsets), [&](OpFoldResult offset) -> Value {
        return arith::IndexCastOp::create(
            builder, loc, builder.getI32Type(),
            getValueOrCreateConstantIndexOp(builder, loc, offset));
      });
  Value inner = coordinates[0];
  for (int64_t p = 0; p < panels.count; ++p) {
    coordinates.front() = builder.createOrFold<arith::AddIOp>(
        loc, inner,
        arith::ConstantIntOp::create(builder, loc, p * panels.cols, 32));
    emit(coordinates, emitSharedPointer(builder, loc, tile,
                                        arith::ConstantIndexOp::create(
                                            builder, loc, p * panels.bytes)));
  }
}

Value tilec::tile::emitLinearThreadId(OpBuilder &builder, Location loc,
                                      ArrayRef<int64_t> threads) {
  gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                           gpu::Dimension::z};
  Value tid;
  for (size_t i = threads.size(); i-- > 0;) {
    Value id = gpu::ThreadIdOp::create(builder, loc, dims[i],
                                       builder.getIndexAttr(threads[i]));
    if (!tid) {
      tid = id;
      continue;
    }
    Value scaled = arith::MulIOp::create(
        builder, loc, tid,
        arith::ConstantIndexOp::create(builder, loc, threads[i]));
    tid = arith::AddIOp::create(builder, loc, scaled, id);
  }
  return tid;
}

Value tilec::tile::emitIsFirstThread(OpBuilder &builder, Location loc,
                                     ArrayRef<int64_t> threads) {
  return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                               emitLinearThreadId(builder, loc, threads),
                               arith::ConstantIndexOp::create(builder, loc, 0));
}

Value tilec::tile::emitSharedAddress(OpBuilder &builder, Location loc,
                                     Value view) {
  auto type = cast<MemRefType>(view.getType());
  auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, view);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(
      builder, loc, metadata.getBaseBuffer());
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  Value offset = arith::MulIOp::create(
      builder, loc, metadata.getOffset(),
      arith::ConstantIndexOp::create(builder, loc, elementBytes));
  return arith::AddIOp::create(builder, loc, base, offset);
}

Value tilec::tile::emitSharedPointer(OpBuilder &builder, Location loc,
                                     Value view, Value byteOffset) {
  Value address = arith::AddIOp::create(
      builder, loc, emitSharedAddress(builder, loc, view), byteOffset);
  Value wide =
      arith::IndexCastUIOp::create(builder, loc, builder.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 3), wide);
}

std::string tilec::tile::describeFragment(Value fragment) {
  if (Operation *def = fragment.getDefiningOp())
    if (auto name = dyn_cast<NameLoc>(def->getLoc()))
      return ("fragment '" + name.getName().getValue() + "'").str();
  return "a fragment";
}

/// What getKnownDivisor says of zero, a multiple of everything.
static constexpr int64_t kAll = int64_t(1) << 62;

int64_t tilec::tile::multiplyKnownDivisors(int64_t a, int64_t b) {
  int64_t product;
  if (!llvm::MulOverflow(a, b, product))
    return std::min(product, kAll);
  return int64_t(1) << std::min(62, llvm::countr_zero(uint64_t(a)) +
                                        llvm::countr_zero(uint64_t(b)));
}

int64_t tilec::tile::getKnownDivisor(Value value) {
  // Bounded, so that long chains of index arithmetic stay cheap.
  std::function<int64_t(Value, unsigned)> divisor = [&](Value v,
                                                        unsigned depth) {
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant))) {
      if (constant.isZero())
        return kAll;
      APInt magnitude = constant.abs();
      if (magnitude.ugt(uint64_t(kAll)))
        return int64_t(1) << std::min(62u, magnitude.countr_zero());
      return int64_t(magnitude.getZExtValue());
    }
    Operation *op = v.getDefiningOp();
    if (!op || depth > 16)
      return int64_t(1);
    if (isa<arith::MulIOp>(op)) {
      return multiplyKnownDivisors(divisor(op->getOperand(0), depth + 1),
                                   divisor(op->getOperand(1), depth + 1));
    }
    if (isa<arith::AddIOp, arith::SubIOp>(op))
      return std::gcd(divisor(op->getOperand(0), depth + 1),
                      divisor(op->getOperand(1), depth + 1));
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp>(op))
      return divisor(op->getOperand(0), depth + 1);
    return int64_t(1);
  };
  return divisor(value, 0);
}

std::pair<Value, Value>
tilec::tile::emitSwizzledTileIndices(OpBuilder &b, Location loc, Value offset,
                                     SwizzleAttr swizzle, int64_t cols) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  int64_t mask = ((int64_t(1) << swizzle.getBits()) - 1) << swizzle.getBase();
  Value source = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, offset, constant(swizzle.getShift())),
      constant(mask));
  Value swizzled = arith::XOrIOp::create(b, loc, offset, source);
  if (llvm::isPowerOf2_64(cols))
    return {
        arith::ShRUIOp::create(b, loc, swizzled, constant(llvm::Log2_64(cols))),
        arith::AndIOp::create(b, loc, swizzled, constant(cols - 1))};
  return {arith::DivUIOp::create(b, loc, swizzled, constant(cols)),
          arith::RemUIOp::create(b, loc, swizzled, constant(cols))};
}

std::optional<tilec::tile::SwizzledOffset>
tilec::tile::matchSwizzledTileIndices(Value row, Value column, int64_t cols) {
  auto constantOperand = [](Operation *op, int64_t expected) {
    APInt value;
    return matchPattern(op->getOperand(1), m_ConstantInt(&value)) &&
           value.getSExtValue() == expected;
  };
  // (swizzled >> log2(cols), swizzled & (cols - 1)), or division and
  // remainder by cols.
  Operation *rowOp = row.getDefiningOp();
  Operation *columnOp = column.getDefiningOp();
  if (!rowOp || !columnOp || rowOp->getNumOperands() != 2 ||
      columnOp->getNumOperands() != 2 ||
      rowOp->getOperand(0) != columnOp->getOperand(0))
    return std::nullopt;
  bool powerOfTwo = llvm::isPowerOf2_64(cols);
  if (powerOfTwo
          ? !(isa<arith::ShRUIOp>(rowOp) &&
              constantOperand(rowOp, llvm::Log2_64(cols)) &&
              isa<arith::AndIOp>(columnOp) &&
              constantOperand(columnOp, cols - 1))
          : !(isa<arith::DivUIOp>(rowOp) && constantOperand(rowOp, cols) &&
              isa<arith::RemUIOp>(columnOp) && constantOperand(columnOp, cols)))
    return std::nullopt;
  // swizzled = offset ^ ((offset >> shift) & mask).
  auto xorOp = rowOp->getOperand(0).getDefiningOp<arith::XOrIOp>();
  if (!xorOp)
    return std::nullopt;
  auto andOp = xorOp.getRhs().getDefiningOp<arith::AndIOp>();
  auto shrOp =
      andOp ? andOp.getLhs().getDefiningOp<arith::ShRUIOp>() : arith::ShRUIOp();
  APInt mask, shift;
  if (!shrOp || shrOp.getLhs() != xorOp.getLhs() ||
      !matchPattern(andOp.getRhs(), m_ConstantInt(&mask)) ||
      !matchPattern(shrOp.getRhs(), m_ConstantInt(&shift)) ||
      !mask.isShiftedMask() || shift.getZExtValue() > 62)
    return std::nullopt;
  // Only swizzles that SwizzleAttr accepts: bits read and written apart.
  unsigned bits = mask.popcount(), base = mask.countr_zero();
  unsigned shiftBy = shift.getZExtValue();
  if (shiftBy < bits || bits + base + shiftBy > 32)
    return std::nullopt;
  return SwizzledOffset{
      xorOp.getLhs(), SwizzleAttr::get(row.getContext(), bits, base, shiftBy)};
}

Value tilec::tile::Reduction::identity(OpBuilder &b, Location loc) const {
  auto floatType = dyn_cast<FloatType>(type);
  double inf = std::numeric_limits<double>::infinity();
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::AbsSum:
  case ReduceKind::AbsMax:
    return createZero(b, loc, type);
  case ReduceKind::Max:
    if (floatType)
      return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, -inf));
    return arith::ConstantOp::create(
        b, loc,
        b.getIntegerAttr(
            type, APInt::getSignedMinValue(type.getIntOrFloatBitWidth())));
  case ReduceKind::Min:
    if (floatType)
      return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, inf));
    return arith::ConstantOp::create(
        b, loc,
        b.getIntegerAttr(
            type, APInt::getSignedMaxValue(type.getIntOrFloatBitWidth())));
  }
  llvm_unreachable("unknown reduction");
}

Value tilec::tile::Reduction::element(OpBuilder &b, Location loc,
                                      Value value) const {
  if (kind != ReduceKind::AbsMax && kind != ReduceKind::AbsSum)
    return value;
  if (isa<FloatType>(type))
    return math::AbsFOp::create(b, loc, value);
  return math::AbsIOp::create(b, loc, value);
}

Value tilec::tile::Reduction::combine(OpBuilder &b, Location loc, Value lhs,
                                      Value rhs) const {
  bool isFloat = isa<FloatType>(type);
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::AbsSum:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case ReduceKind::Max:
  case ReduceKind::AbsMax:
    return isFloat ? arith::MaxNumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MaxSIOp::create(b, loc, lhs, rhs).getResult();
  case ReduceKind::Min:
    return isFloat ? arith::MinNumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MinSIOp::create(b, loc, lhs, rhs).getResult();
  }
  llvm_unreachable("unknown reduction");
}

bool tilec::tile::isThreadLevelOp(Operation *op) {
  return isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::ShuffleOp, NamedBarrierOp,
             WarpBarrierOp>(op);
}

tilec::tile::ThreadScope tilec::tile::threadScopeOf(ThreadRangeOp range) {
  return {static_cast<int64_t>(range.getFirst()),
          static_cast<int64_t>(range.getCount()), range};
}

tilec::tile::ThreadScope tilec::tile::threadScopeOf(Operation *op) {
  if (auto range = op->getParentOfType<ThreadRangeOp>())
    return threadScopeOf(range);
  auto kernel =
      isa<KernelOp>(op) ? cast<KernelOp>(op) : op->getParentOfType<KernelOp>();
  return {0, kernel ? kernel.getNumThreads() : 1, nullptr};
}

void tilec::tile::createScopeBarrier(OpBuilder &builder, Location loc,
                                     const ThreadScope &scope) {
  if (!scope.range) {
    gpu::BarrierOp::create(builder, loc);
    return;
  }
  ThreadRangeOp range = scope.range;
  NamedBarrierOp::create(builder, loc, *range.getBarrierId(), scope.count);
}

bool tilec::tile::hasDivergentControl(Operation *op) {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return variesAcrossThreads(ifOp.getCondition());
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return variesAcrossThreads(whileOp.getConditionOp().getCondition());
  return llvm::any_of(op->getOperands(), [](Value operand) {
    return variesAcrossThreads(operand);
  });
}

bool tilec::tile::variesAcrossThreads(Value value) {
  using namespace tilec::tile;
  // A walk back through what `value` is computed from, with a worklist
  // rather than recursion: chains of statements can be long.
  DenseSet<Value> visited;
  SmallVector<Value> worklist{value};
  auto visit = [&](ValueRange values) {
    for (Value v : values)
      if (visited.insert(v).second)
        worklist.push_back(v);
  };
  visited.insert(value);
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    Operation *def = current.getDefiningOp();
    if (!def) {
      // A loop's induction variable or carried value: its bounds and
      // inits.
      Operation *owner = current.getParentBlock()->getParentOp();
      if (owner && !isa<KernelOp>(owner))
        visit(owner->getOperands());
      continue;
    }
    if (isThreadLevelOp(def))
      return true;
    visit(def->getOperands());
    // What an if or loop yields.
    for (Region &region : def->getRegions())
      for (Block &block : region)
        if (!block.empty() &&
            block.back().hasTrait<mlir::OpTrait::IsTerminator>())
          visit(block.back().getOperands());
    // A thread's own variable varies with what was stored into it, and
    // with whether the store ran.
    auto load = dyn_cast<memref::LoadOp>(def);
    if (!load || !isInScope(load.getMemRef().getType(), MemoryScope::Local))
      continue;
    Value buffer = load.getMemRef();
    for (Operation *user : buffer.getUsers()) {
      auto store = dyn_cast<memref::StoreOp>(user);
      if (!store || store.getMemRef() != buffer)
        continue;
      visit(store.getValueToStore());
      visit(store.getIndices());
      for (Operation *parent = store->getParentOp();
           parent && !isa<KernelOp>(parent); parent = parent->getParentOp())
        visit(parent->getOperands());
    }
  }
  return false;
}
