//===- FragmentLayoutsTest.cpp - Grid layouts and their derivations -------===//
//
// Part of tilec. Checks, by enumeration, that grid layouts are bijections
// whose inverse is exact, and that a layout without its last dimension
// gives each row to exactly the threads that hold the row.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseSet.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

struct Case {
  SmallVector<int64_t> shape;
  int64_t threads;
  int64_t maxVector;
};

class GridLayoutTest : public ::testing::TestWithParam<Case> {
protected:
  GridLayoutTest() { context.loadDialect<TileDialect>(); }
  MLIRContext context;
};

/// Every index of `shape`, in row-major order.
static void forEachIndex(ArrayRef<int64_t> shape,
                         function_ref<void(ArrayRef<int64_t>)> fn) {
  SmallVector<int64_t> index(shape.size(), 0);
  while (true) {
    fn(index);
    int64_t dim = shape.size() - 1;
    while (dim >= 0 && ++index[dim] == shape[dim])
      index[dim--] = 0;
    if (dim < 0)
      return;
  }
}

TEST_P(GridLayoutTest, IsABijectionWithAnExactInverse) {
  const Case &c = GetParam();
  GridLayoutParams params = chooseGridLayout(c.shape, c.threads, c.maxVector);
  FragmentLayoutAttr layout =
      makeGridLayout(&context, c.shape, c.threads, params);
  ASSERT_TRUE(layout);
  EXPECT_EQ(matchGridLayout(layout).has_value(), true);
  llvm::DenseSet<std::pair<int64_t, int64_t>> seen;
  forEachIndex(c.shape, [&](ArrayRef<int64_t> index) {
    auto place = layout.apply(index);
    ASSERT_TRUE(place.has_value());
    EXPECT_GE(place->first, 0);
    EXPECT_LT(place->first, c.threads);
    EXPECT_GE(place->second, 0);
    EXPECT_LT(place->second, layout.getSlots());
    EXPECT_TRUE(seen.insert(*place).second) << "two elements share a slot";
    auto back = layout.applyInverse(place->first, place->second);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(ArrayRef<int64_t>(*back), index);
  });
  // Every other (thread, slot) pair is outside the shape.
  int64_t valid = 0;
  for (int64_t t = 0; t < c.threads; ++t)
    for (int64_t s = 0; s < layout.getSlots(); ++s)
      if (layout.applyInverse(t, s))
        ++valid;
  EXPECT_EQ(valid, layout.getNumElements());
}

TEST_P(GridLayoutTest, RowsGoToTheThreadsHoldingThem) {
  const Case &c = GetParam();
  GridLayoutParams params = chooseGridLayout(c.shape, c.threads, c.maxVector);
  FragmentLayoutAttr layout =
      makeGridLayout(&context, c.shape, c.threads, params);
  FailureOr<FragmentLayoutAttr> rows = dropLastDimension(layout);
  ASSERT_TRUE(succeeded(rows));
  SmallVector<int64_t> rowShape(c.shape.begin(), c.shape.end() - 1);
  if (rowShape.empty())
    rowShape.push_back(1);
  EXPECT_EQ((*rows).getShape(), ArrayRef<int64_t>(rowShape));
  forEachIndex(rowShape, [&](ArrayRef<int64_t> row) {
    // The threads holding some element of the row...
    llvm::DenseSet<int64_t> holders;
    for (int64_t k = 0; k < c.shape.back(); ++k) {
      SmallVector<int64_t> element(row);
      if (c.shape.size() == 1)
        element.clear();
      element.push_back(k);
      holders.insert(layout.apply(element)->first);
    }
    // ... are the replicas of the row's result, all with the same slot.
    llvm::DenseSet<int64_t> replicas;
    std::optional<int64_t> slot;
    for (int64_t r = 0; r < (*rows).getReplicate(); ++r) {
      auto place = (*rows).apply(row, r);
      ASSERT_TRUE(place.has_value());
      replicas.insert(place->first);
      if (slot) {
        EXPECT_EQ(*slot, place->second);
      }
      slot = place->second;
      auto back = (*rows).applyInverse(place->first, place->second);
      ASSERT_TRUE(back.has_value());
      EXPECT_EQ(ArrayRef<int64_t>(*back).take_front(row.size()), row);
    }
    EXPECT_EQ(holders, replicas);
  });
}

TEST(ChooseGridLayoutTest, PrefersWideRuns) {
  GridLayoutParams p = chooseGridLayout({1, 4096}, 128, 8);
  EXPECT_EQ(p.vector, 8);
  EXPECT_EQ(p.threadCols, 128);
  EXPECT_EQ(p.threadRows, 1);
}

TEST(ChooseGridLayoutTest, NarrowsRunsToKeepThreadsBusy) {
  // 16 runs of 8 per row would leave half the 8 thread rows without a row;
  // runs of 4 give 32 threads per row and 4 thread rows.
  GridLayoutParams p = chooseGridLayout({4, 128}, 128, 8);
  EXPECT_EQ(p.vector, 4);
  EXPECT_EQ(p.threadCols, 32);
  EXPECT_EQ(p.threadRows, 4);
  // But not below a quarter of the widest run.
  p = chooseGridLayout({1, 64}, 128, 8);
  EXPECT_EQ(p.vector, 2);
  EXPECT_EQ(p.threadCols, 32);
}

TEST(ChooseGridLayoutTest, LeavesThreadsIdleRatherThanSerializeRows) {
  // 325 threads have no factor of two: one thread per row would hold all
  // 1024 elements; 256 threads per row hold 4 each and 69 stay idle.
  GridLayoutParams p = chooseGridLayout({1, 1024}, 325, 4);
  EXPECT_EQ(p.vector, 4);
  EXPECT_EQ(p.threadCols, 256);
  EXPECT_EQ(p.threadRows, 1);
  EXPECT_EQ(p.usedThreads(), 256);
  EXPECT_EQ(p.slots(), 4);
  // A power-of-two block keeps every thread.
  p = chooseGridLayout({4, 1024}, 96, 4);
  EXPECT_EQ(p.usedThreads(), 96);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GridLayoutTest,
    ::testing::Values(Case{{128, 128}, 128, 4}, Case{{1, 4096}, 128, 8},
                      Case{{37, 100}, 128, 4}, Case{{4, 100}, 128, 4},
                      Case{{9, 32}, 128, 4}, Case{{64}, 128, 4},
                      Case{{2, 3, 40}, 64, 8}, Case{{130, 64}, 96, 4},
                      Case{{1}, 32, 4}, Case{{200, 1}, 128, 8},
                      // Blocks that leave threads idle.
                      Case{{1, 1024}, 325, 4}, Case{{1024}, 325, 4},
                      Case{{4, 1024}, 100, 4}, Case{{7, 96}, 100, 4},
                      Case{{2, 3, 40}, 75, 8}, Case{{3, 64}, 33, 4}));

} // namespace

namespace {

/// PTX's m16n8 accumulator fragment: register `reg` of `lane` holds row
/// lane / 4 (+ 8 for registers 2 and 3), column 2 * (lane % 4) + reg % 2.
std::pair<int64_t, int64_t> ptxAccumulatorElement(int64_t lane, int64_t reg) {
  return {lane / 4 + 8 * (reg / 2), 2 * (lane % 4) + reg % 2};
}

/// PTX's m16k16 A fragment for 16-bit types: half `h` (0..7) of `lane`.
std::pair<int64_t, int64_t> ptxOperandAElement(int64_t lane, int64_t h) {
  return {lane / 4 + 8 * ((h / 2) % 2), 2 * (lane % 4) + h % 2 + 8 * (h / 4)};
}

class MmaLayoutTest : public ::testing::Test {
protected:
  MmaLayoutTest() { context.loadDialect<TileDialect>(); }
  MLIRContext context;
};

TEST_F(MmaLayoutTest, AccumulatorMatchesPtxFragments) {
  // 64x32 over 2x2 warps: each warp has a 32x16 part of 2x2 m16n8 tiles.
  WarpPartition p{2, 2};
  FragmentLayoutAttr layout = makeMmaAccumulatorLayout(&context, 64, 32, p);
  EXPECT_EQ(layout.getThreads(), 128);
  EXPECT_EQ(layout.getSlots(), 16);
  for (int64_t t = 0; t < 128; ++t) {
    int64_t warp = t / 32, lane = t % 32;
    for (int64_t slot = 0; slot < 16; ++slot) {
      int64_t tileIndex = slot / 4, mi = tileIndex / 2, ni = tileIndex % 2;
      auto [r, c] = ptxAccumulatorElement(lane, slot % 4);
      int64_t row = (warp / 2) * 32 + mi * 16 + r;
      int64_t col = (warp % 2) * 16 + ni * 8 + c;
      auto place = layout.apply({row, col});
      ASSERT_TRUE(place.has_value());
      EXPECT_EQ(place->first, t);
      EXPECT_EQ(place->second, slot);
      auto back = layout.applyInverse(t, slot);
      ASSERT_TRUE(back.has_value());
      EXPECT_EQ((*back)[0], row);
      EXPECT_EQ((*back)[1], col);
    }
  }
  EXPECT_EQ(matchMmaAccumulatorLayout(layout).value().warpM, 2);
  EXPECT_FALSE(matchGridLayout(layout).has_value());
}

TEST_F(MmaLayoutTest, OperandAMatchesPtxFragmentsAndReplicates) {
  // A is 32x32 over 2x2 warps: rows split over the 2 rows of warps, each
  // row of A held by both warps of its row of warps.
  WarpPartition p{2, 2};
  FragmentLayoutAttr layout = makeMmaOperandALayout(&context, 32, 32, p);
  EXPECT_EQ(layout.getReplicate(), 2);
  EXPECT_EQ(layout.getSlots(), 16); // 1 x 2 tiles of m16k16, 8 halves each
  for (int64_t t = 0; t < 128; ++t) {
    int64_t warp = t / 32, lane = t % 32;
    for (int64_t slot = 0; slot < 16; ++slot) {
      int64_t ki = slot / 8;
      auto [r, c] = ptxOperandAElement(lane, slot % 8);
      int64_t row = (warp / 2) * 16 + r;
      int64_t col = ki * 16 + c;
      auto place = layout.apply({row, col}, warp % 2);
      ASSERT_TRUE(place.has_value());
      EXPECT_EQ(place->first, t);
      EXPECT_EQ(place->second, slot);
    }
  }
  EXPECT_EQ(matchMmaOperandALayout(layout).value().warpN, 2);
}

TEST_F(MmaLayoutTest, OperandAIsTheAccumulatorLayoutWithOneWarpColumn) {
  // What lets FlashAttention feed P = softmax(Q K^T) to P V from registers.
  WarpPartition p{4, 1};
  FragmentLayoutAttr a = makeMmaOperandALayout(&context, 64, 64, p);
  FragmentLayoutAttr c = makeMmaAccumulatorLayout(&context, 64, 64, p);
  EXPECT_EQ(a, c);
  for (int64_t t = 0; t < 128; ++t)
    for (int64_t slot = 0; slot < a.getSlots(); ++slot) {
      auto element = a.applyInverse(t, slot);
      ASSERT_TRUE(element.has_value());
      int64_t lane = t % 32;
      auto [r, col] = ptxOperandAElement(lane, slot % 8);
      EXPECT_EQ((*element)[0], (t / 32) * 16 + r);
      EXPECT_EQ((*element)[1], (slot / 8) * 16 + col);
    }
}

TEST_F(MmaLayoutTest, EquivalenceIsByPlacementNotByMap) {
  FragmentLayoutAttr grid =
      makeGridLayout(&context, {16, 16}, 32, chooseGridLayout({16, 16}, 32, 4));
  // The same placement written as a different map: d0 floordiv 16 is 0
  // on the shape, but not as an expression.
  AffineMap map = grid.getMap();
  AffineExpr zero = getAffineDimExpr(0, &context).floorDiv(16);
  auto same = FragmentLayoutAttr::get(
      &context, {16, 16}, 32, grid.getSlots(), 1,
      AffineMap::get(2, 0, {map.getResult(0) + zero, map.getResult(1)},
                     &context),
      grid.getInverse());
  EXPECT_NE(grid, same);
  EXPECT_TRUE(areEquivalentLayouts(grid, same));
  FragmentLayoutAttr mma = makeMmaAccumulatorLayout(&context, 16, 16, {1, 1});
  EXPECT_FALSE(areEquivalentLayouts(grid, mma));
}

TEST(WarpPartitionTest, Policies) {
  std::string message;
  auto square =
      computeWarpPartition(128, 128, 4, GemmWarpPolicy::Square, 16, 8, message);
  ASSERT_TRUE(succeeded(square));
  EXPECT_EQ(square->warpM, 2);
  EXPECT_EQ(square->warpN, 2);
  auto wide =
      computeWarpPartition(64, 256, 8, GemmWarpPolicy::Square, 16, 8, message);
  ASSERT_TRUE(succeeded(wide));
  EXPECT_EQ(wide->warpM, 2);
  EXPECT_EQ(wide->warpN, 4);
  auto rows =
      computeWarpPartition(64, 64, 4, GemmWarpPolicy::FullRow, 16, 8, message);
  ASSERT_TRUE(succeeded(rows));
  EXPECT_EQ(rows->warpM, 4);
  EXPECT_EQ(rows->warpN, 1);
  EXPECT_TRUE(failed(computeWarpPartition(32, 64, 4, GemmWarpPolicy::FullRow,
                                          16, 8, message)));
  EXPECT_EQ(message, "policy full_row splits the 32x64 tile into 4x1 warps, "
                     "but each warp needs whole 16x8 tiles");
}

} // namespace

namespace {

TEST(SharedSwizzleTest, EightRowsAtOneColumnHitEightBankGroups) {
  MLIRContext context;
  context.loadDialect<TileDialect>();
  for (int64_t elementBytes : {2, 4})
    for (int64_t rowBytes : {64, 128, 256, 512}) {
      int64_t rowLength = rowBytes / elementBytes;
      SwizzleAttr swizzle =
          chooseSharedSwizzle(&context, rowLength, elementBytes);
      ASSERT_TRUE(swizzle) << rowBytes;
      int64_t chunk = 16 / elementBytes;
      for (int64_t firstRow = 0; firstRow < 32; firstRow += 8)
        for (int64_t column = 0; column < rowLength; column += chunk) {
          llvm::DenseSet<int64_t> groups;
          for (int64_t row = firstRow; row < firstRow + 8; ++row) {
            int64_t offset = swizzle.apply(row * rowLength + column);
            // The chunk stays whole and in its row.
            EXPECT_EQ(offset % chunk, 0);
            EXPECT_EQ(offset / rowLength, row);
            groups.insert((offset * elementBytes / 16) % 8);
          }
          EXPECT_EQ(groups.size(), 8u)
              << rowBytes << " bytes, column " << column;
        }
    }
  // Rows of 32 bytes pair up in a 128-byte line: 8 rows span 4 groups of
  // two chunks, still all different.
  EXPECT_TRUE(chooseSharedSwizzle(&context, 16, 2));
  EXPECT_FALSE(chooseSharedSwizzle(&context, 8, 2));  // 16-byte rows
  EXPECT_FALSE(chooseSharedSwizzle(&context, 48, 2)); // not a power of two
}

} // namespace
