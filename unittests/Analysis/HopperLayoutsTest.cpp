//===- HopperLayoutsTest.cpp - TMA and wgmma layouts against PTX ----------===//
//
// Part of tilec. Checks the panelled shared layout against TMA's swizzle as
// PTX defines it (on shared-memory byte addresses), and the wgmma
// accumulator layout against PTX's register fragment of m64nNk16, element
// by element.
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

class HopperLayoutTest : public ::testing::Test {
protected:
  HopperLayoutTest() { context.loadDialect<TileDialect>(); }
  MLIRContext context;
};

/// TMA's swizzle of `swizzleBytes` on a byte offset from a base aligned to
/// 8 * swizzleBytes: the 16-byte chunk index (bits 4 and up) is XORed with
/// the index of the row of `swizzleBytes` within its group of 8 (bits 7 and
/// up), on log2(swizzleBytes / 16) bits.
int64_t tmaSwizzle(int64_t byteOffset, int64_t swizzleBytes) {
  int64_t mask = swizzleBytes / 16 - 1;
  return byteOffset ^ (((byteOffset >> 7) & mask) << 4);
}

TEST_F(HopperLayoutTest, PanelWidthIsTheWidestSwizzleThatDividesARow) {
  EXPECT_EQ(choosePanelledTile(128, 32, 2)->swizzleBytes, 64);
  EXPECT_EQ(choosePanelledTile(32, 128, 2)->swizzleBytes, 128);
  EXPECT_EQ(choosePanelledTile(32, 128, 2)->numPanels(), 2);
  EXPECT_EQ(choosePanelledTile(64, 16, 2)->swizzleBytes, 32);
  EXPECT_EQ(choosePanelledTile(64, 96, 2)->swizzleBytes, 64);
  EXPECT_EQ(choosePanelledTile(64, 96, 2)->numPanels(), 3);
  EXPECT_EQ(choosePanelledTile(64, 64, 4)->panelCols(), 32);
  EXPECT_FALSE(choosePanelledTile(64, 8, 2));  // 16-byte rows
  EXPECT_FALSE(choosePanelledTile(12, 64, 2)); // not whole groups of 8 rows
  EXPECT_FALSE(choosePanelledTile(64, 64, 8)); // no 8-byte elements
}

TEST_F(HopperLayoutTest, PanelledLayoutIsWhereTmaPutsEachElement) {
  for (auto [rows, cols, elementBytes] :
       {std::tuple<int64_t, int64_t, int64_t>{128, 32, 2},
        {32, 128, 2},
        {64, 64, 2},
        {64, 16, 2},
        {64, 96, 2},
        {16, 64, 4},
        {64, 256, 1}}) {
    PanelledTile tile = *choosePanelledTile(rows, cols, elementBytes);
    // Two pipeline stages around the tile.
    SharedLayoutAttr layout =
        makePanelledLayout(&context, {2, rows, cols}, tile);
    std::optional<PanelledTile> matched =
        matchPanelledLayout(layout, elementBytes);
    ASSERT_TRUE(matched.has_value());
    EXPECT_EQ(matched->swizzleBytes, tile.swizzleBytes);
    llvm::DenseSet<int64_t> seen;
    for (int64_t stage = 0; stage < 2; ++stage)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          // TMA writes box p (columns [p P, (p + 1) P)) at panel p, rows of
          // swizzleBytes bytes, and swizzles by address.
          int64_t bytes = stage * rows * cols * elementBytes +
                          (c / tile.panelCols()) * tile.panelBytes() +
                          r * tile.swizzleBytes +
                          (c % tile.panelCols()) * elementBytes;
          std::optional<int64_t> offset = layout.apply({stage, r, c});
          ASSERT_TRUE(offset.has_value());
          EXPECT_EQ(*offset * elementBytes,
                    tmaSwizzle(bytes, tile.swizzleBytes))
              << rows << "x" << cols << " at (" << r << ", " << c << ")";
          EXPECT_TRUE(seen.insert(*offset).second);
          EXPECT_LT(*offset, 2 * rows * cols);
        }
  }
}

TEST_F(HopperLayoutTest, UnstagedTileIsTheFirstStage) {
  PanelledTile tile = *choosePanelledTile(64, 128, 2);
  SharedLayoutAttr staged = makePanelledLayout(&context, {3, 64, 128}, tile);
  SharedLayoutAttr single = makePanelledLayout(&context, {64, 128}, tile);
  EXPECT_TRUE(matchPanelledLayout(single, 2).has_value());
  for (int64_t r = 0; r < 64; ++r)
    for (int64_t c = 0; c < 128; ++c)
      EXPECT_EQ(single.apply({r, c}), staged.apply({0, r, c}));
}

TEST_F(HopperLayoutTest, OnePanelIsTheRowMajorSwizzleOfLdmatrixTiles) {
  // Rows of 32, 64 and 128 bytes: the layout the mma.sync path gives them.
  for (int64_t cols : {16, 32, 64}) {
    PanelledTile tile = *choosePanelledTile(64, cols, 2);
    SharedLayoutAttr layout = makePanelledLayout(&context, {64, cols}, tile);
    EXPECT_EQ(layout.getMap(), getRowMajorMap(&context, {64, cols}));
    EXPECT_EQ(layout.getSwizzle(), chooseSharedSwizzle(&context, cols, 2));
  }
}

/// PTX's m64nNk16 accumulator: register `r` of lane `l` of warp `w` of the
/// warpgroup holds row 16 w + l / 4 + 8 ((r >> 1) & 1), column
/// 8 (r >> 2) + 2 (l % 4) + (r & 1).
std::pair<int64_t, int64_t> ptxWgmmaElement(int64_t threadInGroup,
                                            int64_t reg) {
  int64_t w = threadInGroup / 32, l = threadInGroup % 32;
  return {16 * w + l / 4 + 8 * ((reg >> 1) & 1),
          8 * (reg >> 2) + 2 * (l % 4) + (reg & 1)};
}

TEST_F(HopperLayoutTest, WgmmaAccumulatorMatchesPtxFragments) {
  struct Case {
    int64_t m, n;
    WarpgroupPartition p;
  };
  for (Case c :
       {Case{128, 128, {1, 1}}, Case{128, 256, {2, 1}}, Case{256, 128, {2, 2}},
        Case{64, 512, {1, 1}}, Case{192, 64, {1, 1}}, Case{64, 64, {1, 1}}}) {
    FragmentLayoutAttr layout =
        makeWgmmaAccumulatorLayout(&context, c.m, c.n, c.p);
    int64_t tileM = c.m / c.p.m, tileN = c.n / c.p.n;
    int64_t instN = getWgmmaInstructionN(tileN), nInst = tileN / instN;
    ASSERT_EQ(layout.getThreads(), 128 * c.p.m * c.p.n);
    ASSERT_EQ(layout.getSlots(), tileM * tileN / 128);
    for (int64_t t = 0; t < layout.getThreads(); ++t) {
      int64_t g = t / 128;
      for (int64_t slot = 0; slot < layout.getSlots(); ++slot) {
        int64_t instruction = slot / (instN / 2), reg = slot % (instN / 2);
        int64_t mi = instruction / nInst, nj = instruction % nInst;
        auto [r, col] = ptxWgmmaElement(t % 128, reg);
        int64_t row = (g / c.p.n) * tileM + mi * 64 + r;
        int64_t column = (g % c.p.n) * tileN + nj * instN + col;
        auto place = layout.apply({row, column});
        ASSERT_TRUE(place.has_value());
        EXPECT_EQ(place->first, t) << c.m << "x" << c.n;
        EXPECT_EQ(place->second, slot) << c.m << "x" << c.n;
        auto back = layout.applyInverse(t, slot);
        ASSERT_TRUE(back.has_value());
        EXPECT_EQ((*back)[0], row);
        EXPECT_EQ((*back)[1], column);
      }
    }
    std::optional<WarpgroupPartition> matched =
        matchWgmmaAccumulatorLayout(layout);
    ASSERT_TRUE(matched.has_value());
    EXPECT_EQ(matched->m, c.p.m);
    EXPECT_EQ(matched->n, c.p.n);
  }
}

TEST_F(HopperLayoutTest, SixtyFourRowPartsAreTheMmaLayoutOfWarpRows) {
  // So FlashAttention's row reductions and register A operands work on a
  // wgmma accumulator.
  FragmentLayoutAttr wgmma =
      makeWgmmaAccumulatorLayout(&context, 128, 64, {2, 1});
  EXPECT_EQ(wgmma, makeMmaAccumulatorLayout(&context, 128, 64, {8, 1}));
  // Not once a warp holds two bands of rows.
  FragmentLayoutAttr tall =
      makeWgmmaAccumulatorLayout(&context, 128, 64, {1, 1});
  EXPECT_FALSE(areEquivalentLayouts(
      tall, makeMmaAccumulatorLayout(&context, 128, 64, {4, 1})));
}

TEST_F(HopperLayoutTest, TallPartsReduceRowsAndFeedRegisterA) {
  // Warpgroups over 128 or 256 rows (two or four bands of 64 per warp): a
  // row's result goes to the threads that hold the row.
  for (WarpgroupPartition p :
       {WarpgroupPartition{1, 1}, WarpgroupPartition{1, 2},
        WarpgroupPartition{2, 1}}) {
    FragmentLayoutAttr c = makeWgmmaAccumulatorLayout(&context, 256, 128, p);
    FailureOr<FragmentLayoutAttr> rows = dropLastDimension(c);
    ASSERT_TRUE(succeeded(rows));
    EXPECT_EQ(rows->getReplicate(), 4 * p.n);
    for (int64_t t = 0; t < c.getThreads(); ++t)
      for (int64_t s = 0; s < c.getSlots(); ++s) {
        auto element = c.applyInverse(t, s);
        ASSERT_TRUE(element.has_value());
        bool found = false;
        for (int64_t rep = 0; rep < rows->getReplicate(); ++rep) {
          auto place = rows->apply({(*element)[0]}, rep);
          ASSERT_TRUE(place.has_value());
          auto back = rows->applyInverse(place->first, place->second);
          ASSERT_TRUE(back.has_value());
          EXPECT_EQ((*back)[0], (*element)[0]);
          found |= place->first == t;
        }
        EXPECT_TRUE(found) << "thread " << t << " row " << (*element)[0];
      }
  }
}

TEST(WarpgroupPartitionTest, Policies) {
  std::string message;
  auto square = computeWarpgroupPartition(128, 256, 2, GemmWarpPolicy::Square,
                                          8, message);
  ASSERT_TRUE(succeeded(square));
  EXPECT_EQ(square->m, 1);
  EXPECT_EQ(square->n, 2);
  auto rows = computeWarpgroupPartition(128, 256, 2, GemmWarpPolicy::FullRow, 8,
                                        message);
  ASSERT_TRUE(succeeded(rows));
  EXPECT_EQ(rows->m, 2);
  EXPECT_EQ(rows->n, 1);
  // A tie between 64x128 and 128x64 parts goes to the wider instructions.
  auto tie = computeWarpgroupPartition(128, 128, 2, GemmWarpPolicy::Square, 8,
                                       message);
  ASSERT_TRUE(succeeded(tie));
  EXPECT_EQ(tie->m, 2);
  auto cols =
      computeWarpgroupPartition(64, 256, 2, GemmWarpPolicy::Square, 8, message);
  ASSERT_TRUE(succeeded(cols));
  EXPECT_EQ(cols->m, 1);
  EXPECT_EQ(cols->n, 2);
  EXPECT_TRUE(failed(computeWarpgroupPartition(
      64, 128, 2, GemmWarpPolicy::FullRow, 8, message)));
  EXPECT_EQ(message, "policy full_row splits the 64x128 tile by rows over 2 "
                     "warpgroups, but each needs whole 64x8 wgmma tiles");
  // More than 256 columns take several instructions of 256.
  EXPECT_TRUE(succeeded(computeWarpgroupPartition(
      64, 512, 1, GemmWarpPolicy::Square, 8, message)));
  EXPECT_TRUE(failed(computeWarpgroupPartition(
      64, 384, 1, GemmWarpPolicy::Square, 8, message)));
}

} // namespace
