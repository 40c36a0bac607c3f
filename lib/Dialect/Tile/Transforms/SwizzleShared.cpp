//===- SwizzleShared.cpp - Bank-conflict-free shared tiles ----------------===//
//
// Part of tilec. Gives shared buffers their swizzle: the annotated one, or,
// for buffers that ldmatrix reads, the one chooseSharedSwizzle picks. A
// swizzle permutes the elements of each tile (the last two dimensions of
// the buffer) and is applied by rewriting the indices of every access, so
// it is all or nothing: a buffer with an access this pass does not know
// keeps its plain layout.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
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

/// Collects the accesses to `view` and the views of it; fails on a user it
/// does not understand, or a view that does not keep the tile whole.
LogicalResult collectAccesses(Value view, SmallVectorImpl<Access> &accesses,
                              bool &readByLdmatrix) {
  for (OpOperand &use : view.getUses()) {
    Operation *user = use.getOwner();
    if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      // A pipeline stage: one index of the leading dimensions, the whole
      // tile in the last two.
      auto sourceType = cast<MemRefType>(subview.getSource().getType());
      int64_t rank = sourceType.getRank();
      if (subview.getType().getRank() < 2)
        return failure();
      for (int64_t dim = rank - 2; dim < rank; ++dim)
        if (getConstantIntValue(subview.getMixedOffsets()[dim]) != 0 ||
            getConstantIntValue(subview.getMixedSizes()[dim]) !=
                sourceType.getDimSize(dim))
          return failure();
      if (failed(collectAccesses(subview, accesses, readByLdmatrix)))
        return failure();
      continue;
    }
    if (auto cast = dyn_cast<memref::MemorySpaceCastOp>(user)) {
      if (failed(collectAccesses(cast, accesses, readByLdmatrix)))
        return failure();
      continue;
    }
    if (isa<AnnotateLayoutOp>(user))
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      accesses.push_back({user, load.getIndicesMutable()});
    } else if (auto store = dyn_cast<memref::StoreOp>(user);
               store && store.getMemRef() == view) {
      accesses.push_back({user, store.getIndicesMutable()});
    } else if (auto load = dyn_cast<vector::LoadOp>(user)) {
      accesses.push_back({user, load.getIndicesMutable()});
    } else if (auto store = dyn_cast<vector::StoreOp>(user);
               store && store.getBase() == view) {
      accesses.push_back({user, store.getIndicesMutable()});
    } else if (auto ldmatrix = dyn_cast<nvgpu::LdMatrixOp>(user)) {
      accesses.push_back({user, ldmatrix.getIndicesMutable()});
      readByLdmatrix = true;
    } else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(user);
               copy && copy.getDst() == view) {
      accesses.push_back({user, copy.getDstIndicesMutable()});
    } else {
      return failure();
    }
  }
  return success();
}

/// Rewrites the last two of `access`'s indices, (row, column) of a tile of
/// `rowLength`-element rows, to where `swizzle` puts that element.
void swizzleIndices(Access &access, SwizzleAttr swizzle, int64_t rowLength) {
  OpBuilder b(access.op);
  Location loc = access.op->getLoc();
  unsigned count = access.indices.size();
  Value row = access.indices[count - 2].get();
  Value column = access.indices[count - 1].get();
  auto constant = [&](int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  auto noWrap =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  Value offset = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, constant(rowLength), noWrap),
      column, noWrap);
  int64_t mask = ((int64_t(1) << swizzle.getBits()) - 1) << swizzle.getBase();
  Value source = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, offset, constant(swizzle.getShift())),
      constant(mask));
  Value swizzled = arith::XOrIOp::create(b, loc, offset, source);
  unsigned rowBits = llvm::Log2_64(rowLength);
  access.indices[count - 2].set(
      arith::ShRUIOp::create(b, loc, swizzled, constant(rowBits)));
  access.indices[count - 1].set(
      arith::AndIOp::create(b, loc, swizzled, constant(rowLength - 1)));
}

/// The swizzle of `alloc`'s annotation, if it has one.
FailureOr<SwizzleAttr> annotatedSwizzle(AllocSharedOp alloc) {
  for (Operation *user : alloc->getUsers()) {
    auto annotate = dyn_cast<AnnotateLayoutOp>(user);
    if (!annotate)
      continue;
    auto layout = dyn_cast<SharedLayoutAttr>(annotate.getLayout());
    if (!layout)
      continue;
    // Only the row-major map is understood; its swizzle is what matters.
    if (layout.getMap() !=
        getRowMajorMap(alloc.getContext(), layout.getShape()))
      return annotate.emitError()
             << "shared layouts with a map other than row-major are not "
                "supported yet";
    return layout.getSwizzle();
  }
  return SwizzleAttr();
}

struct SwizzleSharedPass
    : public tilec::tile::impl::TileSwizzleSharedBase<SwizzleSharedPass> {
  void runOnOperation() override {
    SmallVector<AllocSharedOp> allocs;
    getOperation().walk([&](AllocSharedOp alloc) { allocs.push_back(alloc); });
    for (AllocSharedOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (type.getRank() < 2)
        continue;
      int64_t rows = type.getShape()[type.getRank() - 2];
      int64_t rowLength = type.getShape().back();
      SmallVector<Access> accesses;
      bool readByLdmatrix = false;
      bool understood = succeeded(
          collectAccesses(alloc.getResult(), accesses, readByLdmatrix));
      FailureOr<SwizzleAttr> annotated = annotatedSwizzle(alloc);
      if (failed(annotated))
        return signalPassFailure();
      // The annotation, else what layout inference planned, else (for IR
      // that did not go through it) the choice for ldmatrix tiles.
      SwizzleAttr swizzle = *annotated;
      if (!swizzle && alloc.getLayoutAttr())
        swizzle = alloc.getLayoutAttr().getSwizzle();
      if (!swizzle && readByLdmatrix)
        swizzle = chooseSharedSwizzle(&getContext(), rowLength,
                                      type.getElementTypeBitWidth() / 8);
      if (!swizzle)
        continue;
      // The swizzle permutes runs of 2^(base + shift + bits) elements; the
      // tile must be made of whole runs, and each row of whole chunks.
      int64_t period = int64_t(1) << (swizzle.getBase() + swizzle.getShift() +
                                      swizzle.getBits());
      bool fits = llvm::isPowerOf2_64(rowLength) &&
                  (rows * rowLength) % period == 0 &&
                  rowLength % (int64_t(1) << swizzle.getBase()) == 0;
      if (!understood || !fits) {
        alloc.removeLayoutAttr();
        if (*annotated)
          alloc.emitWarning() << "the swizzled layout annotated for this "
                                 "buffer is not applied: "
                              << (fits ? "it is accessed in a way the swizzle "
                                         "does not support"
                                       : "its tile is not a whole number of "
                                         "swizzle periods");
        continue;
      }
      for (Access &access : accesses)
        swizzleIndices(access, swizzle, rowLength);
      alloc.setLayoutAttr(SharedLayoutAttr::get(
          &getContext(), type.getShape(),
          getRowMajorMap(&getContext(), type.getShape()), swizzle));
    }
  }
};

} // namespace
