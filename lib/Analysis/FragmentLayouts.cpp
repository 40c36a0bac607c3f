//===- FragmentLayouts.cpp - Building and deriving fragment layouts -------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

int64_t GridLayoutParams::colGroups() const {
  return llvm::divideCeil(llvm::divideCeil(cols, vector), threadCols);
}

int64_t GridLayoutParams::rowsPerThread() const {
  return llvm::divideCeil(rows, threadRows);
}

GridLayoutParams tilec::chooseGridLayout(ArrayRef<int64_t> shape,
                                         int64_t threads, int64_t maxVector) {
  GridLayoutParams params;
  params.cols = shape.back();
  for (int64_t extent : shape.drop_back())
    params.rows *= extent;
  params.vector = 1;
  while (params.vector * 2 <= maxVector &&
         params.cols % (params.vector * 2) == 0)
    params.vector *= 2;
  auto splitThreads = [&] {
    // Threads per row: a power of two dividing the block, no more than the
    // row has runs.
    int64_t groups = params.cols / params.vector;
    params.threadCols = 1;
    while (params.threadCols * 2 <= groups &&
           threads % (params.threadCols * 2) == 0)
      params.threadCols *= 2;
    params.threadRows = threads / params.threadCols;
  };
  splitThreads();
  // With fewer rows than thread rows, some threads would hold nothing;
  // narrower runs (down to a quarter of the widest) give them work.
  int64_t minVector = std::max<int64_t>(1, maxVector / 4);
  while (params.threadRows > params.rows && params.vector > minVector) {
    params.vector /= 2;
    splitThreads();
  }
  return params;
}

/// The flattened row of an index over all dimensions but the last.
static AffineExpr flattenRows(ArrayRef<int64_t> shape, unsigned rank,
                              MLIRContext *context) {
  AffineExpr row = getAffineConstantExpr(0, context);
  int64_t stride = 1;
  for (int64_t dim = static_cast<int64_t>(rank) - 1; dim >= 0; --dim) {
    row = row + getAffineDimExpr(dim, context) * stride;
    stride *= shape[dim];
  }
  return row;
}

/// The index of `shape` (all but the last dimension) at flattened `row`.
/// The outermost dimension is not wrapped, so that rows past the end give
/// an index outside the shape.
static void unflattenRows(ArrayRef<int64_t> shape, AffineExpr row,
                          SmallVectorImpl<AffineExpr> &results) {
  int64_t stride = 1;
  for (int64_t extent : shape)
    stride *= extent;
  for (auto [dim, extent] : llvm::enumerate(shape)) {
    stride /= extent;
    AffineExpr index = row.floorDiv(stride);
    results.push_back(dim == 0 ? index : index % extent);
  }
}

FragmentLayoutAttr tilec::makeGridLayout(MLIRContext *context,
                                         ArrayRef<int64_t> shape,
                                         int64_t threads,
                                         const GridLayoutParams &p) {
  unsigned rank = shape.size();
  AffineExpr row = flattenRows(shape, rank - 1, context);
  AffineExpr col = getAffineDimExpr(rank - 1, context);
  int64_t groups = p.colGroups();
  AffineExpr thread =
      row % p.threadRows * p.threadCols + col.floorDiv(p.vector) % p.threadCols;
  AffineExpr slot = (row.floorDiv(p.threadRows) * groups +
                     col.floorDiv(p.vector).floorDiv(p.threadCols)) *
                        p.vector +
                    col % p.vector;
  AffineMap map = AffineMap::get(rank, 0, {thread, slot}, context);

  AffineExpr t = getAffineDimExpr(0, context);
  AffineExpr s = getAffineDimExpr(1, context);
  AffineExpr invRow =
      s.floorDiv(groups * p.vector) * p.threadRows + t.floorDiv(p.threadCols);
  AffineExpr invCol =
      (s.floorDiv(p.vector) % groups * p.threadCols + t % p.threadCols) *
          p.vector +
      s % p.vector;
  SmallVector<AffineExpr> inverse;
  unflattenRows(shape.drop_back(), invRow, inverse);
  // A rank-1 tile is one row; threads of the other thread rows hold
  // nothing, which their columns, pushed past the end, say.
  if (rank == 1)
    invCol = invCol + invRow * (groups * p.threadCols * p.vector);
  inverse.push_back(invCol);
  int64_t slots = p.rowsPerThread() * groups * p.vector;
  return FragmentLayoutAttr::get(context, shape, threads, slots, 1, map,
                                 AffineMap::get(2, 0, inverse, context));
}

std::optional<GridLayoutParams>
tilec::matchGridLayout(FragmentLayoutAttr layout) {
  if (!layout || layout.getReplicate() != 1)
    return std::nullopt;
  ArrayRef<int64_t> shape = layout.getShape();
  int64_t threads = layout.getThreads();
  int64_t cols = shape.back();
  // Try every vector width and thread-row split; layouts are uniqued, so a
  // match is an identity comparison.
  for (int64_t vector = 1; vector <= cols; vector *= 2) {
    if (cols % vector != 0)
      break;
    for (int64_t threadCols = 1; threadCols <= threads; threadCols *= 2) {
      if (threads % threadCols != 0)
        break;
      GridLayoutParams params;
      params.cols = cols;
      for (int64_t extent : shape.drop_back())
        params.rows *= extent;
      params.vector = vector;
      params.threadCols = threadCols;
      params.threadRows = threads / threadCols;
      if (makeGridLayout(layout.getContext(), shape, threads, params) == layout)
        return params;
    }
  }
  return std::nullopt;
}

FailureOr<FragmentLayoutAttr>
tilec::dropLastDimension(FragmentLayoutAttr layout) {
  std::optional<GridLayoutParams> p = matchGridLayout(layout);
  if (!p)
    return failure();
  MLIRContext *context = layout.getContext();
  SmallVector<int64_t> shape(layout.getShape().drop_back());
  bool scalar = shape.empty();
  if (scalar)
    shape.push_back(1);
  unsigned rank = shape.size();
  AffineExpr row = scalar ? getAffineConstantExpr(0, context)
                          : flattenRows(shape, rank, context);
  int64_t replicate = p->threadCols;
  AffineExpr replica = getAffineDimExpr(rank, context);
  AffineExpr thread = row % p->threadRows * p->threadCols;
  if (replicate > 1)
    thread = thread + replica;
  AffineExpr slot = row.floorDiv(p->threadRows);
  AffineMap map = AffineMap::get(rank + (replicate > 1 ? 1 : 0), 0,
                                 {thread, slot}, context);

  AffineExpr t = getAffineDimExpr(0, context);
  AffineExpr s = getAffineDimExpr(1, context);
  AffineExpr invRow = s * p->threadRows + t.floorDiv(p->threadCols);
  SmallVector<AffineExpr> inverse;
  if (scalar)
    inverse.push_back(invRow);
  else
    unflattenRows(shape, invRow, inverse);
  if (replicate > 1)
    inverse.push_back(t % p->threadCols);
  return FragmentLayoutAttr::get(context, shape, layout.getThreads(),
                                 p->rowsPerThread(), replicate, map,
                                 AffineMap::get(2, 0, inverse, context));
}

FragmentLayoutAttr tilec::makeReplicatedLayout(MLIRContext *context,
                                               ArrayRef<int64_t> shape,
                                               int64_t threads) {
  unsigned rank = shape.size();
  // The slot is the row-major position of the index.
  AffineExpr slot = flattenRows(shape, rank, context);
  AffineExpr replica = getAffineDimExpr(rank, context);
  AffineMap map = AffineMap::get(rank + 1, 0, {replica, slot}, context);
  AffineExpr t = getAffineDimExpr(0, context);
  AffineExpr s = getAffineDimExpr(1, context);
  SmallVector<AffineExpr> inverse;
  unflattenRows(shape, s, inverse);
  inverse.push_back(t);
  int64_t elements = 1;
  for (int64_t extent : shape)
    elements *= extent;
  return FragmentLayoutAttr::get(context, shape, threads, elements, threads,
                                 map, AffineMap::get(2, 0, inverse, context));
}
