//===- SwizzleShared.cpp - Bank-conflict-free shared tiles ----------------===//
//
// Part of tilec. Gives shared buffers their layout: the annotated one, the
// one pipelining or layout inference planned (the panelled layouts of TMA
// and wgmma among them), or, for buffers that ldmatrix reads, the swizzle
// chooseSharedSwizzle picks. A layout permutes the elements of each tile
// (the last two dimensions of the buffer) and is applied by rewriting the
// indices of every access, so it is all or nothing: a buffer with an
// access this pass does not know keeps its plain layout, unless bulk copies
// or wgmma, which take the buffer's address and follow the layout
// themselves, depend on it; that is an error.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"
#include "tilec/Warnings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILESWIZZLESHARED
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// An access to a swizzled buffer: the op and the operand range of its
/// indices into a view whose last two dimensions are the tile's.
struct Access {
  Operation *op;
  MutableOperandRange indices;
};

/// What the users of a shared buffer are.
struct Users {
  SmallVector<Access> accesses;
  /// Some warp reads 16-byte rows of the tile together, a row a lane
  /// (ldmatrix), which a swizzle spreads over the banks.
  bool readInRowsAcrossLanes = false;
  /// Some user takes the buffer's address (bulk copies, wgmma descriptors)
  /// and follows the layout itself.
  bool takesAddress = false;
  /// The first user this pass cannot rewrite, if any.
  Operation *unknown = nullptr;
};

/// Collects the users of `view` and of the views of it, noting the first it
/// does not understand or a view that does not keep the tile whole.
void collectUsers(Value view, Users &users) {
  for (OpOperand &use : view.getUses()) {
    Operation *user = use.getOwner();
    if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      // A pipeline stage: one index of the leading dimensions, the whole
      // tile in the last two.
      auto sourceType = cast<MemRefType>(subview.getSource().getType());
      int64_t rank = sourceType.getRank();
      bool wholeTile = subview.getType().getRank() >= 2;
      for (int64_t dim = rank - 2; wholeTile && dim < rank; ++dim)
        wholeTile = getConstantIntValue(subview.getMixedOffsets()[dim]) == 0 &&
                    getConstantIntValue(subview.getMixedSizes()[dim]) ==
                        sourceType.getDimSize(dim);
      if (!wholeTile) {
        users.unknown = users.unknown ? users.unknown : user;
        continue;
      }
      collectUsers(subview, users);
      continue;
    }
    if (isa<memref::MemorySpaceCastOp, memref::CastOp>(user)) {
      collectUsers(user->getResult(0), users);
      continue;
    }
    if (isa<AnnotateLayoutOp>(user))
      continue;
    if (isa<memref::ExtractStridedMetadataOp,
            memref::ExtractAlignedPointerAsIndexOp>(user)) {
      users.takesAddress = true;
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      users.accesses.push_back({user, load.getIndicesMutable()});
    } else if (auto store = dyn_cast<memref::StoreOp>(user);
               store && store.getMemRef() == view) {
      users.accesses.push_back({user, store.getIndicesMutable()});
    } else if (auto load = dyn_cast<vector::LoadOp>(user)) {
      users.accesses.push_back({user, load.getIndicesMutable()});
    } else if (auto store = dyn_cast<vector::StoreOp>(user);
               store && store.getBase() == view) {
      users.accesses.push_back({user, store.getIndicesMutable()});
    } else if (auto indexed = dyn_cast<IndexedAccessOpInterface>(user)) {
      bool known = false;
      for (const IndexedAccess &access : indexed.getIndexedAccesses()) {
        if (access.memref != view)
          continue;
        users.accesses.push_back({user, access.indices});
        users.readInRowsAcrossLanes |= access.rowsAcrossLanes;
        known = true;
      }
      if (!known && !users.unknown)
        users.unknown = user;
    } else if (!users.unknown) {
      users.unknown = user;
    }
  }
}

/// A layout of a tile (the buffer's last two dimensions) that accesses can
/// be rewritten to: its columns in panels of `panelCols` (all of them for a
/// row-major tile), then the swizzle.
struct TileLayout {
  int64_t panelCols;
  SwizzleAttr swizzle;
};

/// The tile layout of `layout` for a buffer of `type`, if it is a swizzled
/// row-major or panelled one.
std::optional<TileLayout> getTileLayout(SharedLayoutAttr layout,
                                        MemRefType type) {
  if (!layout || !layout.getSwizzle())
    return std::nullopt;
  if (layout.getMap() == getRowMajorMap(layout.getContext(), type.getShape()))
    return TileLayout{type.getShape().back(), layout.getSwizzle()};
  if (std::optional<PanelledTile> tile =
          matchPanelledLayout(layout, type.getElementTypeBitWidth() / 8))
    return TileLayout{tile->panelCols(), layout.getSwizzle()};
  return std::nullopt;
}

/// Rewrites the last two of `access`'s indices, (row, column) of a tile of
/// `rows` x `cols` elements, to where `layout` puts that element.
void applyTileLayout(Access &access, const TileLayout &layout, int64_t rows,
                     int64_t cols) {
  OpBuilder b(access.op);
  Location loc = access.op->getLoc();
  unsigned count = access.indices.size();
  Value row = access.indices[count - 2].get();
  Value column = access.indices[count - 1].get();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  auto noWrap =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  auto mulAdd = [&](Value x, int64_t y, Value z) -> Value {
    Value product = arith::MulIOp::create(b, loc, x, constant(y), noWrap);
    return arith::AddIOp::create(b, loc, product, z, noWrap);
  };
  int64_t p = layout.panelCols;
  Value offset;
  if (p == cols) {
    offset = mulAdd(row, cols, column);
  } else {
    Value panel = arith::DivUIOp::create(b, loc, column, constant(p));
    Value inPanel = arith::RemUIOp::create(b, loc, column, constant(p));
    offset = mulAdd(panel, rows * p, mulAdd(row, p, inPanel));
  }
  auto [newRow, newColumn] =
      emitSwizzledTileIndices(b, loc, offset, layout.swizzle, cols);
  access.indices[count - 2].set(newRow);
  access.indices[count - 1].set(newColumn);
}

/// The layout annotated for `alloc`, if any; fails on one this pass cannot
/// apply.
FailureOr<SharedLayoutAttr> annotatedLayout(AllocSharedOp alloc) {
  for (Operation *user : alloc->getUsers()) {
    auto annotate = dyn_cast<AnnotateLayoutOp>(user);
    if (!annotate)
      continue;
    auto layout = dyn_cast<SharedLayoutAttr>(annotate.getLayout());
    if (!layout)
      continue;
    bool rowMajor = layout.getMap() ==
                    getRowMajorMap(alloc.getContext(), layout.getShape());
    if (!rowMajor && !getTileLayout(layout, alloc.getType()))
      return annotate.emitError()
             << "shared layouts with a map other than row-major or TMA's "
                "panels are not supported yet";
    return layout;
  }
  return SharedLayoutAttr();
}

struct SwizzleSharedPass
    : public tilec::tile::impl::TileSwizzleSharedBase<SwizzleSharedPass> {
  void runOnOperation() override {
    SmallVector<AllocSharedOp> allocs;
    getOperation().walk([&](AllocSharedOp alloc) { allocs.push_back(alloc); });
    for (AllocSharedOp alloc : allocs)
      if (failed(applyLayout(alloc)))
        return signalPassFailure();
  }

  LogicalResult applyLayout(AllocSharedOp alloc) {
    MemRefType type = alloc.getType();
    if (type.getRank() < 2)
      return success();
    int64_t rows = type.getShape()[type.getRank() - 2];
    int64_t cols = type.getShape().back();
    Users users;
    collectUsers(alloc.getResult(), users);
    FailureOr<SharedLayoutAttr> annotated = annotatedLayout(alloc);
    if (failed(annotated))
      return failure();
    // The annotation, else what pipelining or layout inference planned,
    // else (for IR that did not go through them) the choice for ldmatrix
    // tiles.
    SharedLayoutAttr layout = *annotated;
    if (!layout)
      layout = alloc.getLayoutAttr();
    if (!layout && users.readInRowsAcrossLanes)
      if (SwizzleAttr swizzle = chooseSharedSwizzle(
              &getContext(), cols, type.getElementTypeBitWidth() / 8))
        layout = SharedLayoutAttr::get(
            &getContext(), type.getShape(),
            getRowMajorMap(&getContext(), type.getShape()), swizzle);
    std::optional<TileLayout> tileLayout = getTileLayout(layout, type);
    if (!tileLayout)
      return success();
    // The swizzle permutes runs of 2^(base + shift + bits) elements; the
    // tile must be made of whole runs, and each row of whole chunks.
    SwizzleAttr swizzle = tileLayout->swizzle;
    int64_t period = int64_t(1) << (swizzle.getBase() + swizzle.getShift() +
                                    swizzle.getBits());
    bool fits = (rows * cols) % period == 0 &&
                cols % (int64_t(1) << swizzle.getBase()) == 0;
    if (!users.unknown && fits) {
      for (Access &access : users.accesses)
        applyTileLayout(access, *tileLayout, rows, cols);
      alloc.setLayoutAttr(layout);
      return success();
    }
    // Bulk copies and wgmma use the layout whatever this pass does.
    if (users.takesAddress) {
      InFlightDiagnostic diag = alloc.emitError()
                                << "this shared buffer is filled by the bulk "
                                   "tensor copy engine or read by wgmma in a "
                                   "swizzled layout, but ";
      if (users.unknown) {
        diag << "'" << users.unknown->getName()
             << "' also accesses it in a way that cannot follow the layout";
        diag.attachNote(users.unknown->getLoc()) << "the access";
      } else {
        diag << "its tile is not a whole number of swizzle periods";
      }
      return diag;
    }
    alloc.removeLayoutAttr();
    if (*annotated)
      alloc.emitWarning() << "the swizzled layout annotated for this buffer "
                             "is not applied: "
                          << (fits ? "it is accessed in a way the swizzle "
                                     "does not support"
                                   : "its tile is not a whole number of "
                                     "swizzle periods")
                          << getWarningTag(Warning::SwizzleIgnored);
    return success();
  }
};

} // namespace
