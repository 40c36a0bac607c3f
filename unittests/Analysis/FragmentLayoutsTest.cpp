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

INSTANTIATE_TEST_SUITE_P(
    Shapes, GridLayoutTest,
    ::testing::Values(Case{{128, 128}, 128, 4}, Case{{1, 4096}, 128, 8},
                      Case{{37, 100}, 128, 4}, Case{{4, 100}, 128, 4},
                      Case{{9, 32}, 128, 4}, Case{{64}, 128, 4},
                      Case{{2, 3, 40}, 64, 8}, Case{{130, 64}, 96, 4},
                      Case{{1}, 32, 4}, Case{{200, 1}, 128, 8}));

} // namespace
