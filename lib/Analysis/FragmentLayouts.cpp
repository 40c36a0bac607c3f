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

int64_t GridLayoutParams::slots() const {
  return rowsPerThread() * colGroups() * vector;
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
    // A block whose size has few factors of two (100, 325 threads) would
    // put whole rows in each thread; a wider power of two that leaves the
    // last threads without elements spreads them better.
    for (int64_t wider = params.threadCols * 2;
         wider <= groups && wider <= threads; wider *= 2) {
      GridLayoutParams candidate = params;
      candidate.threadCols = wider;
      candidate.threadRows = threads / wider;
      if (candidate.slots() < params.slots())
        params = candidate;
    }
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
  // Threads past the grid hold nothing, and neither do, in a rank-1 tile
  // (one row), the threads of the other thread rows: their columns, pushed
  // past the end, say so.
  int64_t rowWidth = groups * p.threadCols * p.vector;
  if (rank == 1)
    invCol = invCol + invRow * rowWidth;
  else if (p.usedThreads() < threads)
    invCol = invCol + t.floorDiv(p.usedThreads()) * rowWidth;
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
      GridLayoutParams params;
      params.cols = cols;
      for (int64_t extent : shape.drop_back())
        params.rows *= extent;
      params.vector = vector;
      params.threadCols = threadCols;
      params.threadRows = threads / threadCols;
      if (params.threadRows == 0)
        break;
      if (makeGridLayout(layout.getContext(), shape, threads, params) == layout)
        return params;
    }
  }
  return std::nullopt;
}

/// The rows of an mma.sync accumulator layout: row i is held by the four
/// lanes of its lane group in every warp of its row of warps.
static FragmentLayoutAttr dropMmaColumns(FragmentLayoutAttr layout,
                                         WarpPartition p) {
  MLIRContext *context = layout.getContext();
  int64_t m = layout.getShape()[0];
  int64_t tileM = m / p.warpM, mt = tileM / 16;
  AffineExpr i = getAffineDimExpr(0, context);
  AffineExpr replica = getAffineDimExpr(1, context);
  AffineExpr ii = i % tileM, r16 = ii % 16;
  AffineExpr thread = (i.floorDiv(tileM) * p.warpN + replica.floorDiv(4)) * 32 +
                      (r16 % 8) * 4 + replica % 4;
  AffineExpr slot = ii.floorDiv(16) * 2 + r16.floorDiv(8);
  AffineMap map = AffineMap::get(2, 0, {thread, slot}, context);
  AffineExpr t = getAffineDimExpr(0, context);
  AffineExpr s = getAffineDimExpr(1, context);
  AffineExpr w = t.floorDiv(32), l = t % 32;
  AffineExpr row = w.floorDiv(p.warpN) * tileM + s.floorDiv(2) * 16 +
                   (s % 2) * 8 + l.floorDiv(4);
  AffineExpr rep = (w % p.warpN) * 4 + l % 4;
  return FragmentLayoutAttr::get(context, {m}, layout.getThreads(), mt * 2,
                                 4 * p.warpN, map,
                                 AffineMap::get(2, 0, {row, rep}, context));
}

/// A row of an MFMA accumulator tile is held by four lanes (`l % 16`
/// equal) of each wave of its row of waves: the result of reducing rows.
static FragmentLayoutAttr dropMfmaColumns(FragmentLayoutAttr layout,
                                          WarpPartition p) {
  MLIRContext *context = layout.getContext();
  int64_t m = layout.getShape()[0];
  int64_t tileM = m / p.warpM, mt = tileM / 16;
  AffineExpr i = getAffineDimExpr(0, context);
  AffineExpr replica = getAffineDimExpr(1, context);
  AffineExpr ii = i % tileM;
  AffineExpr thread =
      (i.floorDiv(tileM) * p.warpN + replica.floorDiv(4)) * kWaveLanes +
      ii % 16 + (replica % 4) * 16;
  AffineExpr slot = ii.floorDiv(16);
  AffineMap map = AffineMap::get(2, 0, {thread, slot}, context);
  AffineExpr t = getAffineDimExpr(0, context);
  AffineExpr s = getAffineDimExpr(1, context);
  AffineExpr w = t.floorDiv(kWaveLanes), l = t % kWaveLanes;
  AffineExpr row = w.floorDiv(p.warpN) * tileM + s * 16 + l % 16;
  AffineExpr rep = (w % p.warpN) * 4 + l.floorDiv(16);
  return FragmentLayoutAttr::get(context, {m}, layout.getThreads(), mt,
                                 4 * p.warpN, map,
                                 AffineMap::get(2, 0, {row, rep}, context));
}

/// A row of a wgmma accumulator is held by the four lanes of its lane
/// group, in the warp of its band of 16 within its band of 64, in every
/// warpgroup of its row of warpgroups.
static FragmentLayoutAttr dropWgmmaColumns(FragmentLayoutAttr layout,
                                           WarpgroupPartition p) {
  MLIRContext *context = layout.getContext();
  int64_t m = layout.getShape()[0];
  int64_t tileM = m / p.m, mInst = tileM / 64;
  AffineExpr i = getAffineDimExpr(0, context);
  AffineExpr replica = getAffineDimExpr(1, context);
  AffineExpr ii = i % tileM, r16 = ii % 16;
  AffineExpr thread = (i.floorDiv(tileM) * p.n + replica.floorDiv(4)) * 128 +
                      (ii % 64).floorDiv(16) * 32 + (r16 % 8) * 4 + replica % 4;
  AffineExpr slot = ii.floorDiv(64) * 2 + r16.floorDiv(8);
  AffineMap map = AffineMap::get(2, 0, {thread, slot}, context);
  AffineExpr t = getAffineDimExpr(0, context);
  AffineExpr s = getAffineDimExpr(1, context);
  AffineExpr g = t.floorDiv(128), w = (t % 128).floorDiv(32), l = t % 32;
  AffineExpr row = g.floorDiv(p.n) * tileM + s.floorDiv(2) * 64 + w * 16 +
                   (s % 2) * 8 + l.floorDiv(4);
  AffineExpr rep = (g % p.n) * 4 + l % 4;
  return FragmentLayoutAttr::get(context, {m}, layout.getThreads(), mInst * 2,
                                 4 * p.n, map,
                                 AffineMap::get(2, 0, {row, rep}, context));
}

FailureOr<FragmentLayoutAttr>
tilec::dropLastDimension(FragmentLayoutAttr layout) {
  if (std::optional<WarpPartition> mma = matchMmaAccumulatorLayout(layout))
    return dropMmaColumns(layout, *mma);
  if (std::optional<WarpPartition> mfma = matchMfmaAccumulatorLayout(layout))
    return dropMfmaColumns(layout, *mfma);
  if (std::optional<WarpgroupPartition> wgmma =
          matchWgmmaAccumulatorLayout(layout))
    return dropWgmmaColumns(layout, *wgmma);
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
  // Threads past the grid hold no row: theirs are pushed past the end.
  if (p->usedThreads() < layout.getThreads())
    invRow = invRow + t.floorDiv(p->usedThreads()) *
                          (p->rowsPerThread() * p->threadRows);
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
  // The slot is the row-major position of the index. A layout of one
  // thread has no replica index: in the map, thread 0 holds each element.
  bool replicated = threads > 1;
  AffineExpr slot = flattenRows(shape, rank, context);
  AffineExpr replica = replicated ? getAffineDimExpr(rank, context)
                                  : getAffineConstantExpr(0, context);
  AffineMap map =
      AffineMap::get(rank + replicated, 0, {replica, slot}, context);
  AffineExpr t = getAffineDimExpr(0, context);
  AffineExpr s = getAffineDimExpr(1, context);
  SmallVector<AffineExpr> inverse;
  unflattenRows(shape, s, inverse);
  if (replicated)
    inverse.push_back(t);
  int64_t elements = 1;
  for (int64_t extent : shape)
    elements *= extent;
  return FragmentLayoutAttr::get(context, shape, threads, elements, threads,
                                 map, AffineMap::get(2, 0, inverse, context));
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

AffineMap tilec::getRowMajorMap(MLIRContext *context, ArrayRef<int64_t> shape) {
  AffineExpr offset = getAffineConstantExpr(0, context);
  int64_t stride = 1;
  for (int64_t dim = shape.size() - 1; dim >= 0; --dim) {
    offset = offset + getAffineDimExpr(dim, context) * stride;
    stride *= shape[dim];
  }
  return AffineMap::get(shape.size(), 0, offset);
}

SwizzleAttr tilec::chooseSharedSwizzle(MLIRContext *context, int64_t rowLength,
                                       int64_t elementBytes) {
  if (elementBytes <= 0 || 16 % elementBytes != 0 ||
      !llvm::isPowerOf2_64(rowLength))
    return {};
  int64_t rowBytes = rowLength * elementBytes;
  unsigned base = llvm::Log2_64(16 / elementBytes);
  if (rowBytes >= 128)
    return SwizzleAttr::get(context, 3, base, llvm::Log2_64(rowLength) - base);
  if (rowBytes < 32)
    return {};
  return SwizzleAttr::get(context, llvm::Log2_64(rowBytes / 16), base, 3);
}

//===----------------------------------------------------------------------===//
// Tensor-core (mma.sync) layouts
//===----------------------------------------------------------------------===//

FailureOr<WarpPartition>
tilec::computeWarpPartition(int64_t m, int64_t n, int64_t numWarps,
                            GemmWarpPolicy policy, int64_t atomM, int64_t atomN,
                            std::string &message, llvm::StringRef unit) {
  auto fits = [&](int64_t warpM, int64_t warpN) {
    return m % (warpM * atomM) == 0 && n % (warpN * atomN) == 0;
  };
  auto describe = [&](int64_t warpM, int64_t warpN) {
    return std::to_string(warpM) + "x" + std::to_string(warpN);
  };
  std::string tile = std::to_string(m) + "x" + std::to_string(n);
  std::string atom = std::to_string(atomM) + "x" + std::to_string(atomN);
  switch (policy) {
  case GemmWarpPolicy::FullRow:
    if (fits(numWarps, 1))
      return WarpPartition{numWarps, 1};
    message = "policy full_row splits the " + tile + " tile into " +
              describe(numWarps, 1) + " " + unit.str() + "s, but each " +
              unit.str() + " needs whole " + atom + " tiles";
    return failure();
  case GemmWarpPolicy::FullCol:
    if (fits(1, numWarps))
      return WarpPartition{1, numWarps};
    message = "policy full_col splits the " + tile + " tile into " +
              describe(1, numWarps) + " " + unit.str() + "s, but each " +
              unit.str() + " needs whole " + atom + " tiles";
    return failure();
  case GemmWarpPolicy::Square:
    break;
  }
  std::optional<WarpPartition> best;
  double bestScore = 0;
  for (int64_t warpM = numWarps; warpM >= 1; --warpM) {
    if (numWarps % warpM != 0)
      continue;
    int64_t warpN = numWarps / warpM;
    if (!fits(warpM, warpN))
      continue;
    double score = std::abs(double(m) / warpM - double(n) / warpN);
    if (!best || score < bestScore) {
      best = WarpPartition{warpM, warpN};
      bestScore = score;
    }
  }
  if (best)
    return *best;
  message = "the " + tile + " tile cannot be split over " +
            std::to_string(numWarps) + " " + unit.str() +
            (numWarps == 1 ? "" : "s") + " in whole " + atom + " tiles";
  return failure();
}

/// The accumulator layout; `replicateN` instead replicates the rows over
/// the warps of a row of warps (the A operand layout), in which case the
/// columns are all one warp's.
static FragmentLayoutAttr buildMmaLayout(MLIRContext *context, int64_t m,
                                         int64_t n, WarpPartition p,
                                         bool replicateN) {
  int64_t warpCols = replicateN ? 1 : p.warpN;
  int64_t tileM = m / p.warpM, tileN = n / warpCols;
  int64_t mt = tileM / 16, nt = tileN / 8;
  AffineExpr i = getAffineDimExpr(0, context);
  AffineExpr j = getAffineDimExpr(1, context);
  AffineExpr ii = i % tileM, jj = j % tileN;
  AffineExpr r16 = ii % 16, c8 = jj % 8;
  AffineExpr lane = (r16 % 8) * 4 + c8.floorDiv(2);
  AffineExpr reg = r16.floorDiv(8) * 2 + c8 % 2;
  AffineExpr warp = i.floorDiv(tileM) * p.warpN;
  int64_t replicate = 1;
  unsigned numDims = 2;
  if (replicateN && p.warpN > 1) {
    warp = warp + getAffineDimExpr(2, context);
    replicate = p.warpN;
    numDims = 3;
  } else if (!replicateN) {
    warp = warp + j.floorDiv(tileN);
  }
  AffineExpr thread = warp * 32 + lane;
  AffineExpr slot = (ii.floorDiv(16) * nt + jj.floorDiv(8)) * 4 + reg;
  AffineMap map = AffineMap::get(numDims, 0, {thread, slot}, context);

  AffineExpr t = getAffineDimExpr(0, context);
  AffineExpr s = getAffineDimExpr(1, context);
  AffineExpr w = t.floorDiv(32), l = t % 32;
  AffineExpr q = s.floorDiv(4), r = s % 4;
  AffineExpr row = w.floorDiv(p.warpN) * tileM + q.floorDiv(nt) * 16 +
                   r.floorDiv(2) * 8 + l.floorDiv(4);
  AffineExpr col = (q % nt) * 8 + (l % 4) * 2 + r % 2;
  SmallVector<AffineExpr> inverse = {row};
  if (replicateN) {
    inverse.push_back(col);
    if (p.warpN > 1)
      inverse.push_back(w % p.warpN);
  } else {
    inverse.push_back((w % p.warpN) * tileN + col);
  }
  int64_t threads = p.warpM * p.warpN * 32;
  return FragmentLayoutAttr::get(context, {m, n}, threads, mt * nt * 4,
                                 replicate, map,
                                 AffineMap::get(2, 0, inverse, context));
}

FragmentLayoutAttr tilec::makeMmaAccumulatorLayout(MLIRContext *context,
                                                   int64_t m, int64_t n,
                                                   WarpPartition partition) {
  return buildMmaLayout(context, m, n, partition, /*replicateN=*/false);
}

FragmentLayoutAttr tilec::makeMmaOperandALayout(MLIRContext *context, int64_t m,
                                                int64_t k,
                                                WarpPartition partition) {
  // A's m16k16 registers are those of two m16n8 accumulator tiles side by
  // side: with one warp column the two layouts are one.
  if (partition.warpN == 1)
    return makeMmaAccumulatorLayout(context, m, k, partition);
  return buildMmaLayout(context, m, k, partition, /*replicateN=*/true);
}

/// The partitions of `layout`'s threads into warps that `build` turns into
/// `layout`, if any.
static std::optional<WarpPartition> matchPartition(
    FragmentLayoutAttr layout, int64_t lanes,
    function_ref<FragmentLayoutAttr(int64_t, int64_t, WarpPartition)> build) {
  ArrayRef<int64_t> shape = layout.getShape();
  if (shape.size() != 2 || layout.getThreads() % lanes != 0)
    return std::nullopt;
  int64_t warps = layout.getThreads() / lanes;
  for (int64_t warpM = 1; warpM <= warps; ++warpM) {
    if (warps % warpM != 0)
      continue;
    WarpPartition p{warpM, warps / warpM};
    if (shape[0] % (16 * p.warpM) != 0)
      continue;
    if (build(shape[0], shape[1], p) == layout)
      return p;
  }
  return std::nullopt;
}

std::optional<WarpPartition>
tilec::matchMmaAccumulatorLayout(FragmentLayoutAttr layout) {
  MLIRContext *context = layout.getContext();
  return matchPartition(layout, 32, [&](int64_t m, int64_t n, WarpPartition p) {
    if (n % (8 * p.warpN) != 0)
      return FragmentLayoutAttr();
    return makeMmaAccumulatorLayout(context, m, n, p);
  });
}

std::optional<WarpPartition>
tilec::matchMmaOperandALayout(FragmentLayoutAttr layout) {
  MLIRContext *context = layout.getContext();
  return matchPartition(layout, 32, [&](int64_t m, int64_t k, WarpPartition p) {
    if (k % 16 != 0)
      return FragmentLayoutAttr();
    return makeMmaOperandALayout(context, m, k, p);
  });
}

/// The MFMA accumulator layout; `replicateN` instead replicates the rows
/// over the waves of a row of waves (the A operand layout), in which case
/// the columns are all one wave's.
static FragmentLayoutAttr buildMfmaLayout(MLIRContext *context, int64_t m,
                                          int64_t n, WarpPartition p,
                                          bool replicateN) {
  int64_t waveCols = replicateN ? 1 : p.warpN;
  int64_t tileM = m / p.warpM, tileN = n / waveCols;
  int64_t mt = tileM / 16, nt = tileN / 16;
  AffineExpr i = getAffineDimExpr(0, context);
  AffineExpr j = getAffineDimExpr(1, context);
  AffineExpr ii = i % tileM, jj = j % tileN;
  AffineExpr c16 = jj % 16;
  AffineExpr lane = ii % 16 + c16.floorDiv(4) * 16;
  AffineExpr wave = i.floorDiv(tileM) * p.warpN;
  int64_t replicate = 1;
  unsigned numDims = 2;
  if (replicateN && p.warpN > 1) {
    wave = wave + getAffineDimExpr(2, context);
    replicate = p.warpN;
    numDims = 3;
  } else if (!replicateN) {
    wave = wave + j.floorDiv(tileN);
  }
  AffineExpr thread = wave * kWaveLanes + lane;
  AffineExpr slot = (ii.floorDiv(16) * nt + jj.floorDiv(16)) * 4 + c16 % 4;
  AffineMap map = AffineMap::get(numDims, 0, {thread, slot}, context);

  AffineExpr t = getAffineDimExpr(0, context);
  AffineExpr s = getAffineDimExpr(1, context);
  AffineExpr w = t.floorDiv(kWaveLanes), l = t % kWaveLanes;
  AffineExpr q = s.floorDiv(4), r = s % 4;
  AffineExpr row = w.floorDiv(p.warpN) * tileM + q.floorDiv(nt) * 16 + l % 16;
  AffineExpr col = (q % nt) * 16 + l.floorDiv(16) * 4 + r;
  SmallVector<AffineExpr> inverse = {row};
  if (replicateN) {
    inverse.push_back(col);
    if (p.warpN > 1)
      inverse.push_back(w % p.warpN);
  } else {
    inverse.push_back((w % p.warpN) * tileN + col);
  }
  int64_t threads = p.warpM * p.warpN * kWaveLanes;
  return FragmentLayoutAttr::get(context, {m, n}, threads, mt * nt * 4,
                                 replicate, map,
                                 AffineMap::get(2, 0, inverse, context));
}

std::pair<int64_t, int64_t> tilec::getMfmaOperandElement(int64_t lane,
                                                         int64_t v,
                                                         int64_t kPack,
                                                         int64_t step) {
  return {lane % 16, 4 * kPack * (lane / 16) + 4 * step + v};
}

FragmentLayoutAttr tilec::makeMfmaAccumulatorLayout(MLIRContext *context,
                                                    int64_t m, int64_t n,
                                                    WarpPartition partition) {
  return buildMfmaLayout(context, m, n, partition, /*replicateN=*/false);
}

FragmentLayoutAttr tilec::makeMfmaOperandALayout(MLIRContext *context,
                                                 int64_t m, int64_t k,
                                                 WarpPartition partition) {
  if (partition.warpN == 1)
    return makeMfmaAccumulatorLayout(context, m, k, partition);
  return buildMfmaLayout(context, m, k, partition, /*replicateN=*/true);
}

std::optional<WarpPartition>
tilec::matchMfmaAccumulatorLayout(FragmentLayoutAttr layout) {
  MLIRContext *context = layout.getContext();
  return matchPartition(layout, kWaveLanes,
                        [&](int64_t m, int64_t n, WarpPartition p) {
                          if (n % (16 * p.warpN) != 0)
                            return FragmentLayoutAttr();
                          return makeMfmaAccumulatorLayout(context, m, n, p);
                        });
}

std::optional<WarpPartition>
tilec::matchMfmaOperandALayout(FragmentLayoutAttr layout) {
  MLIRContext *context = layout.getContext();
  return matchPartition(layout, kWaveLanes,
                        [&](int64_t m, int64_t k, WarpPartition p) {
                          if (k % 16 != 0)
                            return FragmentLayoutAttr();
                          return makeMfmaOperandALayout(context, m, k, p);
                        });
}

//===----------------------------------------------------------------------===//
// Hopper (TMA and wgmma) layouts
//===----------------------------------------------------------------------===//

int64_t PanelledTile::byteOffset(int64_t row, int64_t col) const {
  return (col / panelCols()) * panelBytes() + row * swizzleBytes +
         (col % panelCols()) * elementBytes;
}

std::optional<PanelledTile>
tilec::choosePanelledTile(int64_t rows, int64_t cols, int64_t elementBytes) {
  if (rows <= 0 || cols <= 0 || !llvm::is_contained({1, 2, 4}, elementBytes))
    return std::nullopt;
  int64_t rowBytes = cols * elementBytes;
  for (int64_t swizzle : {128, 64, 32})
    if (rowBytes % swizzle == 0 && rows % 8 == 0)
      return PanelledTile{rows, cols, elementBytes, swizzle};
  return std::nullopt;
}

SharedLayoutAttr tilec::makePanelledLayout(MLIRContext *context,
                                           ArrayRef<int64_t> shape,
                                           const PanelledTile &tile) {
  int64_t rank = shape.size();
  // TMA's swizzle XORs bits [4, 4 + b) of the byte offset with bits
  // [7, 7 + b); in elements the low bit is 4 - log2(elementBytes).
  unsigned bits = llvm::Log2_64(tile.swizzleBytes / 16);
  unsigned base = 4 - llvm::Log2_64(tile.elementBytes);
  auto swizzle = SwizzleAttr::get(context, bits, base, 3);
  if (tile.numPanels() == 1)
    return SharedLayoutAttr::get(context, shape, getRowMajorMap(context, shape),
                                 swizzle);
  AffineExpr stage = getAffineConstantExpr(0, context);
  int64_t stride = 1;
  for (int64_t dim = rank - 3; dim >= 0; --dim) {
    stage = stage + getAffineDimExpr(dim, context) * stride;
    stride *= shape[dim];
  }
  AffineExpr row = getAffineDimExpr(rank - 2, context);
  AffineExpr col = getAffineDimExpr(rank - 1, context);
  int64_t p = tile.panelCols();
  AffineExpr offset = stage * (tile.rows * tile.cols) +
                      col.floorDiv(p) * (tile.rows * p) + row * p + col % p;
  return SharedLayoutAttr::get(context, shape, AffineMap::get(rank, 0, offset),
                               swizzle);
}

std::optional<PanelledTile> tilec::matchPanelledLayout(SharedLayoutAttr layout,
                                                       int64_t elementBytes) {
  if (!layout || layout.getShape().size() < 2)
    return std::nullopt;
  ArrayRef<int64_t> shape = layout.getShape();
  std::optional<PanelledTile> tile =
      choosePanelledTile(shape[shape.size() - 2], shape.back(), elementBytes);
  if (!tile || makePanelledLayout(layout.getContext(), shape, *tile) != layout)
    return std::nullopt;
  return tile;
}

int64_t tilec::getWgmmaInstructionN(int64_t tileN) {
  return tileN <= 256 ? tileN : 256;
}

FailureOr<WarpgroupPartition>
tilec::computeWarpgroupPartition(int64_t m, int64_t n, int64_t numWarpgroups,
                                 GemmWarpPolicy policy, int64_t atomN,
                                 std::string &message) {
  auto fits = [&](int64_t wgM, int64_t wgN) {
    if (m % (wgM * 64) != 0 || n % wgN != 0)
      return false;
    int64_t tileN = n / wgN;
    int64_t instN = getWgmmaInstructionN(tileN);
    return tileN % instN == 0 && instN % atomN == 0;
  };
  std::string tile = std::to_string(m) + "x" + std::to_string(n);
  std::string groups = std::to_string(numWarpgroups) + " warpgroup" +
                       (numWarpgroups == 1 ? "" : "s");
  std::string atom = "64x" + std::to_string(atomN);
  if (policy == GemmWarpPolicy::FullRow) {
    if (fits(numWarpgroups, 1))
      return WarpgroupPartition{numWarpgroups, 1};
    message = "policy full_row splits the " + tile + " tile by rows over " +
              groups + ", but each needs whole " + atom + " wgmma tiles";
    return failure();
  }
  if (policy == GemmWarpPolicy::FullCol) {
    if (fits(1, numWarpgroups))
      return WarpgroupPartition{1, numWarpgroups};
    message = "policy full_col splits the " + tile + " tile by columns over " +
              groups + ", but each needs whole " + atom + " wgmma tiles";
    return failure();
  }
  // Square: the split whose parts are closest to square; on a tie, the one
  // with more rows per warpgroup split, whose instructions are wider.
  std::optional<WarpgroupPartition> best;
  double bestScore = 0;
  for (int64_t wgM = numWarpgroups; wgM >= 1; --wgM) {
    if (numWarpgroups % wgM != 0 || !fits(wgM, numWarpgroups / wgM))
      continue;
    int64_t wgN = numWarpgroups / wgM;
    double score = std::abs(double(m) / wgM - double(n) / wgN);
    if (!best || score < bestScore) {
      best = WarpgroupPartition{wgM, wgN};
      bestScore = score;
    }
  }
  if (best)
    return *best;
  message = "the " + tile + " tile cannot be split over " + groups +
            " in whole " + atom + " wgmma tiles";
  return failure();
}

FragmentLayoutAttr tilec::makeWgmmaAccumulatorLayout(MLIRContext *context,
                                                     int64_t m, int64_t n,
                                                     WarpgroupPartition p) {
  int64_t tileM = m / p.m, tileN = n / p.n;
  // One band of 16 rows per warp: the mma.sync layout of warps by rows.
  if (tileM == 64 && p.n == 1)
    return makeMmaAccumulatorLayout(context, m, n, WarpPartition{4 * p.m, 1});
  int64_t instN = getWgmmaInstructionN(tileN);
  int64_t nInst = tileN / instN, mInst = tileM / 64;
  int64_t regs = instN / 2;
  AffineExpr i = getAffineDimExpr(0, context);
  AffineExpr j = getAffineDimExpr(1, context);
  AffineExpr ii = i % tileM, jj = j % tileN;
  AffineExpr r16 = ii % 16, cN = jj % instN;
  AffineExpr group = i.floorDiv(tileM) * p.n + j.floorDiv(tileN);
  AffineExpr lane = (r16 % 8) * 4 + (cN % 8).floorDiv(2);
  AffineExpr thread = group * 128 + (ii % 64).floorDiv(16) * 32 + lane;
  AffineExpr reg = cN.floorDiv(8) * 4 + r16.floorDiv(8) * 2 + cN % 2;
  AffineExpr slot = (ii.floorDiv(64) * nInst + jj.floorDiv(instN)) * regs + reg;
  AffineMap map = AffineMap::get(2, 0, {thread, slot}, context);

  AffineExpr t = getAffineDimExpr(0, context);
  AffineExpr s = getAffineDimExpr(1, context);
  AffineExpr g = t.floorDiv(128), w = (t % 128).floorDiv(32), l = t % 32;
  AffineExpr q = s.floorDiv(regs), r = s % regs;
  AffineExpr row = g.floorDiv(p.n) * tileM + q.floorDiv(nInst) * 64 + w * 16 +
                   (r % 4).floorDiv(2) * 8 + l.floorDiv(4);
  AffineExpr col = (g % p.n) * tileN + (q % nInst) * instN + r.floorDiv(4) * 8 +
                   (l % 4) * 2 + r % 2;
  return FragmentLayoutAttr::get(context, {m, n}, p.m * p.n * 128,
                                 mInst * nInst * regs, 1, map,
                                 AffineMap::get(2, 0, {row, col}, context));
}

std::optional<WarpgroupPartition>
tilec::matchWgmmaAccumulatorLayout(FragmentLayoutAttr layout) {
  ArrayRef<int64_t> shape = layout.getShape();
  if (shape.size() != 2 || layout.getThreads() % 128 != 0)
    return std::nullopt;
  int64_t groups = layout.getThreads() / 128;
  for (int64_t wgM = 1; wgM <= groups; ++wgM) {
    if (groups % wgM != 0)
      continue;
    WarpgroupPartition p{wgM, groups / wgM};
    if (shape[0] % (64 * p.m) != 0 || shape[1] % (8 * p.n) != 0)
      continue;
    int64_t tileN = shape[1] / p.n;
    if (tileN % getWgmmaInstructionN(tileN) != 0)
      continue;
    // By placement: a layout read back from text need not have the same
    // maps.
    if (areEquivalentLayouts(makeWgmmaAccumulatorLayout(layout.getContext(),
                                                        shape[0], shape[1], p),
                             layout))
      return p;
  }
  return std::nullopt;
}

bool tilec::areEquivalentLayouts(FragmentLayoutAttr a, FragmentLayoutAttr b) {
  if (a == b)
    return true;
  if (a.getShape() != b.getShape() || a.getThreads() != b.getThreads() ||
      a.getSlots() != b.getSlots() || a.getReplicate() != b.getReplicate())
    return false;
  ArrayRef<int64_t> shape = a.getShape();
  SmallVector<int64_t> index(shape.size(), 0);
  while (true) {
    for (int64_t r = 0; r < a.getReplicate(); ++r)
      if (a.apply(index, r) != b.apply(index, r))
        return false;
    int64_t dim = shape.size() - 1;
    while (dim >= 0 && ++index[dim] == shape[dim])
      index[dim--] = 0;
    if (dim < 0)
      return true;
  }
}
