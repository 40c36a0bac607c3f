//===- LowerCopies.cpp - Copies, fills and clears as element loops --------===//
//
// Part of tilec. Rewrites tile.copy, tile.fill, tile.clear and the tile form
// of tile.atomic into tile.parallel loops over elements, with the
// bounds checks their semantics ask for; copies the bulk tensor copy engine
// makes become its instructions, or, from shared tiles to global memory,
// bulk copies that tile-lower-bulk-copies issues after synchronization.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILELOWERCOPIES
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// One side of a copy.
struct RegionAccess {
  Value buffer;
  SmallVector<OpFoldResult> offsets;
  ArrayRef<int64_t> extents;

  /// The element indices at loop indices `ivs` over the loop `shape`. The
  /// loop runs over one side's extents; the non-unit dimensions of the two
  /// sides correspond in order.
  SmallVector<Value> indices(OpBuilder &b, Location loc, ValueRange ivs,
                             ArrayRef<int64_t> shape) const {
    // The side the loop runs over is indexed by the loop's own variables,
    // unit dimensions included.
    if (shape == extents) {
      SmallVector<Value> result;
      for (auto [offset, iv] : llvm::zip(offsets, ivs)) {
        std::optional<int64_t> constant = getConstantIntValue(offset);
        result.push_back(
            constant == 0
                ? iv
                : b.createOrFold<arith::AddIOp>(
                      loc, getValueOrCreateConstantIndexOp(b, loc, offset),
                      iv));
      }
      return result;
    }
    SmallVector<Value> nonUnit;
    for (auto [iv, extent] : llvm::zip(ivs, shape))
      if (extent != 1)
        nonUnit.push_back(iv);
    SmallVector<Value> result;
    unsigned next = 0;
    for (auto [offset, extent] : llvm::zip(offsets, extents)) {
      Value base = getValueOrCreateConstantIndexOp(b, loc, offset);
      if (extent == 1) {
        result.push_back(base);
        continue;
      }
      result.push_back(
          b.createOrFold<arith::AddIOp>(loc, base, nonUnit[next++]));
    }
    return result;
  }

  /// `indices` are inside the buffer, checked only in the dimensions where
  /// the region is not known to fit; null when no check is needed.
  Value inBounds(OpBuilder &b, Location loc, ValueRange indices) const {
    auto type = cast<MemRefType>(buffer.getType());
    Value result;
    for (auto [dim, index] : llvm::enumerate(indices)) {
      std::optional<int64_t> offset = getConstantIntValue(offsets[dim]);
      int64_t size = type.getDimSize(dim);
      if (offset && !ShapedType::isDynamic(size) &&
          *offset + extents[dim] <= size)
        continue;
      Value bound =
          ShapedType::isDynamic(size)
              ? memref::DimOp::create(b, loc, buffer, dim).getResult()
              : arith::ConstantIndexOp::create(b, loc, size).getResult();
      // Offsets are non-negative, so one unsigned compare checks both ends.
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                                       bound);
      result =
          result ? arith::AndIOp::create(b, loc, result, ok).getResult() : ok;
    }
    return result;
  }
};

/// The loop shape of a copy: the extents of its fragment side, else of its
/// shared side, so that the loop indexes the on-chip buffer with its own
/// variables (what layout inference matches on); between two global
/// tensors, the extents without unit dimensions.
SmallVector<int64_t> loopShape(const RegionAccess &src,
                               const RegionAccess &dst) {
  for (MemoryScope scope :
       {MemoryScope::Fragment, MemoryScope::Shared, MemoryScope::Local})
    for (const RegionAccess *side : {&dst, &src})
      if (isInScope(side->buffer.getType(), scope))
        return SmallVector<int64_t>(side->extents);
  SmallVector<int64_t> shape;
  for (int64_t extent : src.extents)
    if (extent != 1)
      shape.push_back(extent);
  if (shape.empty())
    shape.push_back(1);
  return shape;
}

/// A parallel loop over `shape` whose body `build` fills, at the loop's
/// position.
void buildParallel(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   function_ref<void(OpBuilder &, ValueRange)> build) {
  auto loop = ParallelOp::create(b, loc, shape);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&loop.getBody().front());
  build(b, loop.getInductionVars());
}

/// Loads `access` at `indices`, zero where `valid` is false.
Value loadOrZero(OpBuilder &b, Location loc, Value buffer, ValueRange indices,
                 Value valid) {
  Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
  if (!valid)
    return memref::LoadOp::create(b, loc, buffer, indices);
  auto ifOp = scf::IfOp::create(
      b, loc, valid,
      [&](OpBuilder &then, Location l) {
        Value v = memref::LoadOp::create(then, l, buffer, indices);
        scf::YieldOp::create(then, l, v);
      },
      [&](OpBuilder &otherwise, Location l) {
        scf::YieldOp::create(otherwise, l,
                             createZero(otherwise, l, elementType));
      });
  return ifOp.getResult(0);
}

/// Runs `build` only where `valid` holds (always when it is null).
void guarded(OpBuilder &b, Location loc, Value valid,
             function_ref<void(OpBuilder &)> build) {
  if (!valid) {
    build(b);
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  build(b);
}

void lowerCopy(CopyOp copy) {
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  RegionAccess src{copy.getSource(), copy.getMixedSourceOffsets(),
                   copy.getSourceExtents()};
  RegionAccess dst{copy.getDest(), copy.getMixedDestOffsets(),
                   copy.getDestExtents()};
  Type dstElement = cast<MemRefType>(dst.buffer.getType()).getElementType();
  SmallVector<int64_t> shape = loopShape(src, dst);
  buildParallel(b, loc, shape, [&](OpBuilder &b, ValueRange ivs) {
    SmallVector<Value> srcIndices = src.indices(b, loc, ivs, shape);
    SmallVector<Value> dstIndices = dst.indices(b, loc, ivs, shape);
    Value value = loadOrZero(b, loc, src.buffer, srcIndices,
                             src.inBounds(b, loc, srcIndices));
    value = convertElement(b, loc, value, dstElement);
    guarded(b, loc, dst.inBounds(b, loc, dstIndices), [&](OpBuilder &b) {
      memref::StoreOp::create(b, loc, value, dst.buffer, dstIndices);
    });
  });
  copy.erase();
}

/// Lowers an async copy to cp.async: a loop over 16-, 8- or 4-byte chunks
/// of the shared tile, one nvgpu.device_async_copy each, zero-filled where
/// the chunk falls outside the tensor. Fails (leaving the copy alone) when
/// the chunks would not be aligned in both buffers or the copy converts
/// elements; the caller then copies synchronously.
LogicalResult lowerAsyncCopy(CopyOp copy) {
  RegionAccess src{copy.getSource(), copy.getMixedSourceOffsets(),
                   copy.getSourceExtents()};
  RegionAccess dst{copy.getDest(), copy.getMixedDestOffsets(),
                   copy.getDestExtents()};
  auto srcType = cast<MemRefType>(src.buffer.getType());
  auto dstType = cast<MemRefType>(dst.buffer.getType());
  if (srcType.getElementType() != dstType.getElementType() ||
      !srcType.getLayout().isIdentity() || !dstType.hasStaticShape() ||
      dst.extents != dstType.getShape() ||
      llvm::any_of(dst.offsets,
                   [](OpFoldResult o) { return getConstantIntValue(o) != 0; }))
    return failure();
  // The tile's rows must be rows of the tensor: contiguous in both.
  int64_t rowLength = dstType.getShape().back();
  int64_t tensorRow = srcType.getShape().back();
  if (src.extents.back() != rowLength || ShapedType::isDynamic(tensorRow))
    return failure();
  unsigned elementBytes = dstType.getElementTypeBitWidth() / 8;
  if (elementBytes == 0)
    return failure();
  OpFoldResult columnOffset = src.offsets.back();
  int64_t column = 0;
  if (std::optional<int64_t> constant = getConstantIntValue(columnOffset))
    column = *constant == 0 ? int64_t(1) << 62 : std::abs(*constant);
  else
    column = getKnownDivisor(cast<Value>(columnOffset));
  int64_t chunkBytes = 0;
  for (int64_t bytes : {16, 8, 4}) {
    if (bytes % elementBytes != 0)
      continue;
    int64_t v = bytes / elementBytes;
    if (rowLength % v == 0 && tensorRow % v == 0 && column % v == 0) {
      chunkBytes = bytes;
      break;
    }
  }
  if (!chunkBytes)
    return failure();
  int64_t vector = chunkBytes / elementBytes;

  OpBuilder b(copy);
  Location loc = copy.getLoc();
  SmallVector<int64_t> elementShape(dstType.getShape());
  SmallVector<int64_t> chunkShape = elementShape;
  chunkShape.back() /= vector;
  auto kernel = copy->getParentOfType<KernelOp>();
  // Consecutive threads take consecutive chunks of a row: coalesced reads,
  // and every bank of shared memory written once per 32 chunks.
  FragmentLayoutAttr layout =
      makeGridLayout(b.getContext(), chunkShape, kernel.getNumThreads(),
                     chooseGridLayout(chunkShape, kernel.getNumThreads(), 1));
  auto loop = ParallelOp::create(b, loc, chunkShape);
  loop.setLayoutAttr(layout);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&loop.getBody().front());
  SmallVector<Value> ivs(loop.getInductionVars());
  ivs.back() = b.createOrFold<arith::MulIOp>(
      loc, ivs.back(), arith::ConstantIndexOp::create(b, loc, vector));
  SmallVector<Value> srcIndices = src.indices(b, loc, ivs, elementShape);
  // A chunk is inside the tensor or outside it as a whole: the tensor's
  // rows are whole chunks.
  Value valid = src.inBounds(b, loc, srcIndices);
  Value srcElements;
  if (valid) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    for (Value &index : srcIndices)
      index = arith::SelectOp::create(b, loc, valid, index, zero);
    srcElements = arith::SelectOp::create(
        b, loc, valid, arith::ConstantIndexOp::create(b, loc, vector), zero);
  }
  AsyncCopyOp::create(b, loc, src.buffer, srcIndices, dst.buffer, ivs, vector,
                      srcElements);
  copy.erase();
  return success();
}

/// Lowers a copy that completes on an mbarrier to the bulk tensor copy
/// engine: the first thread of the block issues one TMA copy per panel of
/// the destination tile's layout (a tile.tensor_map box each), at the
/// region's coordinates; TMA fills what lies outside the tensor with zeros.
/// The pipelining pass has checked that TMA can make the copy.
LogicalResult lowerTmaCopy(CopyOp copy) {
  auto kernel = copy->getParentOfType<KernelOp>();
  std::optional<TmaPanels> panels =
      kernel ? createTmaPanels(kernel, copy.getLoc(), copy.getSource(),
                               copy.getSourceExtents(), copy.getDest())
             : std::nullopt;
  if (!panels)
    return copy.emitOpError() << "completes on a barrier but does not fill a "
                                 "2-D shared tile in a layout TMA writes";

  // A producer warpgroup's code runs on one thread already; elsewhere the
  // first thread of the block issues the copy.
  Location loc = copy.getLoc();
  OpBuilder b(copy);
  auto split = copy->getParentOfType<WarpSpecializeOp>();
  if (!split || !split.getProducer().isAncestor(copy->getParentRegion())) {
    auto ifOp = scf::IfOp::create(
        b, loc, emitIsFirstThread(b, loc, kernel.getThreads()), false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }
  Value barrier = emitSharedPointer(
      b, loc, copy.getBarrier(),
      arith::MulIOp::create(b, loc, copy.getBarrierIndex(),
                            arith::ConstantIndexOp::create(b, loc, 8)));
  emitPerTmaPanel(b, loc, *panels, copy.getMixedSourceOffsets(), copy.getDest(),
                  [&](ValueRange coordinates, Value panel) {
                    TmaLoadOp::create(b, loc, panels->map, coordinates, panel,
                                      barrier);
                  });
  copy.erase();
  return success();
}

/// Whether something in `kernel` reads `tensor` (or may, through a view).
bool isReadIn(KernelOp kernel, Value tensor) {
  for (Operation *user : tensor.getUsers()) {
    if (!kernel->isAncestor(user))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects)
      return true;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffectsOnValue(tensor, instances);
    if (llvm::any_of(instances, [](MemoryEffects::EffectInstance &effect) {
          return isa<MemoryEffects::Read>(effect.getEffect());
        }))
      return true;
  }
  return false;
}

/// Whether the bulk tensor copy engine can make `copy` (one not marked
/// `no_tma`), and then marks it
/// `bulk` and gives its tile the layout the boxes need: a whole shared
/// tile, as allocated, without a layout yet and used only by copies and
/// element accesses (which follow any layout), to a region TMA can
/// describe of a tensor nothing else in the kernel reads (the engine's
/// writes are not ordered with the kernel's own reads). A copy that part
/// of the block makes (T.ws) stays the threads': the bulk copy is issued
/// by the block's first thread.
bool markBulkCopy(CopyOp copy) {
  auto alloc = copy.getSource().getDefiningOp<AllocSharedOp>();
  auto kernel = copy->getParentOfType<KernelOp>();
  auto destType = cast<MemRefType>(copy.getDest().getType());
  if (copy.getNoTma() || !alloc || !kernel || alloc.getLayoutAttr() ||
      copy->getParentOfType<ThreadRangeOp>() ||
      !isInScope(destType, MemoryScope::Global) ||
      copy.getSourceExtents() != alloc.getType().getShape())
    return false;
  if (llvm::any_of(alloc->getUsers(), [](Operation *user) {
        return !isa<CopyOp, memref::LoadOp, memref::StoreOp>(user);
      }))
    return false;
  std::optional<PanelledTile> panels;
  if (!qualifiesForTma(copy.getDest(), copy.getDestExtents(), alloc, panels) ||
      isReadIn(kernel, copy.getDest()))
    return false;
  if (panels)
    alloc.setLayoutAttr(makePanelledLayout(
        copy.getContext(), alloc.getType().getShape(), *panels));
  copy.setBulk(true);
  return true;
}

void lowerFill(Operation *op, Value buffer, Value value) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> shape(type.getShape());
  if (shape.empty())
    shape.push_back(1);
  buildParallel(b, loc, shape, [&](OpBuilder &b, ValueRange ivs) {
    SmallVector<Value> indices(ivs.take_front(type.getRank()));
    memref::StoreOp::create(b, loc, value, buffer, indices);
  });
  op->erase();
}

/// The tile form of tile.atomic: one atomic operation per element,
/// skipping elements outside the destination.
void lowerAtomicTile(AtomicOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto valueType = cast<MemRefType>(op.getValue().getType());
  auto destType = cast<MemRefType>(op.getDest().getType());
  // The tile lands at the region that starts at the indices: its
  // dimensions other than unit ones, in order, on the region's.
  SmallVector<int64_t> extents = op.getRegionExtents();
  RegionAccess dst{op.getDest(), getAsOpFoldResult(op.getIndices()), extents};
  SmallVector<int64_t> shape(valueType.getShape());
  buildParallel(b, loc, shape, [&](OpBuilder &b, ValueRange ivs) {
    Value value = memref::LoadOp::create(b, loc, op.getValue(), ivs);
    value = convertElement(b, loc, value, destType.getElementType());
    SmallVector<Value> steps;
    for (auto [extent, iv] : llvm::zip(shape, ivs))
      if (extent != 1)
        steps.push_back(iv);
    SmallVector<Value> indices;
    auto step = steps.begin();
    for (auto [extent, base] : llvm::zip(extents, op.getIndices()))
      indices.push_back(
          extent == 1 ? base
                      : b.createOrFold<arith::AddIOp>(loc, base, *step++));
    guarded(b, loc, dst.inBounds(b, loc, indices), [&](OpBuilder &b) {
      memref::AtomicRMWOp::create(b, loc, op.getKind(), value, op.getDest(),
                                  indices);
    });
  });
  op.erase();
}

/// The scalar form: one atomic operation, skipped outside the destination
/// (where the previous value it gives is zero).
void lowerAtomicScalar(AtomicOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<int64_t> extents(op.getIndices().size(), 1);
  RegionAccess dst{op.getDest(), getAsOpFoldResult(op.getIndices()), extents};
  SmallVector<Value> indices(op.getIndices());
  Value valid = dst.inBounds(b, loc, indices);
  auto combine = [&](OpBuilder &b) {
    return memref::AtomicRMWOp::create(b, loc, op.getKind(), op.getValue(),
                                       op.getDest(), indices);
  };
  if (!op.getPrevious()) {
    guarded(b, loc, valid, [&](OpBuilder &b) { combine(b); });
  } else if (!valid) {
    op.getPrevious().replaceAllUsesWith(combine(b).getResult());
  } else {
    Type type = op.getPrevious().getType();
    auto ifOp = scf::IfOp::create(b, loc, type, valid, /*withElseRegion=*/true);
    OpBuilder then = OpBuilder::atBlockEnd(ifOp.thenBlock());
    scf::YieldOp::create(then, loc, combine(then).getResult());
    OpBuilder otherwise = OpBuilder::atBlockEnd(ifOp.elseBlock());
    scf::YieldOp::create(
        otherwise, loc,
        arith::ConstantOp::create(otherwise, loc,
                                  cast<TypedAttr>(b.getZeroAttr(type)))
            .getResult());
    op.getPrevious().replaceAllUsesWith(ifOp.getResult(0));
  }
  op.erase();
}

struct LowerCopiesPass
    : public tilec::tile::impl::TileLowerCopiesBase<LowerCopiesPass> {
  using TileLowerCopiesBase::TileLowerCopiesBase;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<CopyOp, FillOp, ClearOp, AtomicOp>(op))
        ops.push_back(op);
    });
    // Bulk copies are chosen while the tiles' users are still copies.
    if (TargetAttr::lookup(getOperation()).has(TargetFeature::Tma))
      llvm::erase_if(ops, [](Operation *op) {
        auto copy = dyn_cast<CopyOp>(op);
        return copy && !copy.getAsync() && markBulkCopy(copy);
      });
    for (Operation *op : ops) {
      if (auto copy = dyn_cast<CopyOp>(op)) {
        if (copy.getBarrier()) {
          if (failed(lowerTmaCopy(copy)))
            return signalPassFailure();
          continue;
        }
        if (!copy.getAsync() || failed(lowerAsyncCopy(copy)))
          lowerCopy(copy);
      } else if (auto fill = dyn_cast<FillOp>(op)) {
        lowerFill(fill, fill.getBuffer(), fill.getValue());
      } else if (auto clear = dyn_cast<ClearOp>(op)) {
        OpBuilder b(clear);
        Type type =
            cast<MemRefType>(clear.getBuffer().getType()).getElementType();
        lowerFill(clear, clear.getBuffer(),
                  createZero(b, clear.getLoc(), type));
      } else if (auto atomic = dyn_cast<AtomicOp>(op)) {
        if (isa<MemRefType>(atomic.getValue().getType()))
          lowerAtomicTile(atomic);
        else
          lowerAtomicScalar(atomic);
      }
    }
  }
};

} // namespace
