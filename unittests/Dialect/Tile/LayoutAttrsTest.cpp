//===- LayoutAttrsTest.cpp - Evaluation of the tile layout attributes -----===//
//
// Part of tilec. Checks that swizzles, shared layouts and fragment layouts
// compute the offsets and (thread, slot) pairs they document.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseSet.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace tilec::tile;

namespace {

class LayoutAttrsTest : public ::testing::Test {
protected:
  LayoutAttrsTest() { context.loadDialect<TileDialect>(); }

  AffineExpr d(unsigned pos) { return getAffineDimExpr(pos, &context); }

  MLIRContext context;
};

TEST_F(LayoutAttrsTest, EvaluateAffineExprFollowsFloorSemantics) {
  AffineExpr expr = d(0).floorDiv(4) + d(0) % 4 * 100;
  EXPECT_EQ(evaluateAffineExpr(expr, {7}), 1 + 300);
  EXPECT_EQ(evaluateAffineExpr(expr, {-1}), -1 + 300);
  EXPECT_EQ(evaluateAffineExpr(d(0).ceilDiv(4), {5}), 2);
  EXPECT_EQ(evaluateAffineExpr(d(0).ceilDiv(4), {-5}), -1);
}

TEST_F(LayoutAttrsTest, EvaluateAffineExprRejectsOverflowAndMissingDims) {
  AffineExpr square = d(0) * d(0);
  EXPECT_FALSE(evaluateAffineExpr(square, {int64_t(1) << 40}).has_value());
  EXPECT_FALSE(evaluateAffineExpr(d(1), {3}).has_value());
  AffineExpr sum = d(0) + d(1);
  EXPECT_FALSE(evaluateAffineExpr(sum, {INT64_MAX, 1}).has_value());
}

TEST_F(LayoutAttrsTest, SwizzleMatchesCuteDefinition) {
  // Swizzle<3, 3, 3> on 16-bit elements: the 128-byte pattern.
  auto swizzle = SwizzleAttr::get(&context, 3, 3, 3);
  // Row 0 is untouched; row 1 (offset 64) flips 8-element chunk 1.
  EXPECT_EQ(swizzle.apply(0), 0);
  EXPECT_EQ(swizzle.apply(64), 64 + 8);
  EXPECT_EQ(swizzle.apply(64 + 8), 64);
  EXPECT_EQ(swizzle.apply(7 * 64 + 5), 7 * 64 + (7 << 3) + 5);
  // A bijection on every block of 2^(bits + base + shift) offsets.
  llvm::DenseSet<int64_t> seen;
  for (int64_t offset = 512; offset < 1024; ++offset) {
    int64_t swizzled = swizzle.apply(offset);
    EXPECT_GE(swizzled, 512);
    EXPECT_LT(swizzled, 1024);
    EXPECT_TRUE(seen.insert(swizzled).second);
  }
}

TEST_F(LayoutAttrsTest, SharedLayoutAppliesMapThenSwizzle) {
  AffineMap rowMajor = AffineMap::get(2, 0, d(0) * 64 + d(1));
  auto plain =
      SharedLayoutAttr::get(&context, {64, 64}, rowMajor, SwizzleAttr());
  EXPECT_EQ(plain.apply({2, 3}), 2 * 64 + 3);
  auto swizzled = SharedLayoutAttr::get(&context, {64, 64}, rowMajor,
                                        SwizzleAttr::get(&context, 3, 3, 3));
  EXPECT_EQ(swizzled.apply({1, 0}), 64 + 8);
  EXPECT_EQ(swizzled.apply({1, 8}), 64);
}

TEST_F(LayoutAttrsTest, FragmentLayoutGivesThreadAndSlot) {
  // 16x8 tile over 32 threads, 4 elements each: m16n8 accumulator rows.
  AffineExpr thread = d(0) % 8 * 4 + d(1).floorDiv(2);
  AffineExpr slot = d(0).floorDiv(8) * 2 + d(1) % 2;
  // The inverse: thread t = 4 * r + c holds rows r and r + 8, columns
  // 2c and 2c + 1; slot s picks the row half (s / 2) and column (s % 2).
  AffineExpr t = d(0), s = d(1);
  AffineMap inverse = AffineMap::get(
      2, 0, {t.floorDiv(4) + s.floorDiv(2) * 8, t % 4 * 2 + s % 2}, &context);
  auto layout = FragmentLayoutAttr::get(
      &context, {16, 8}, 32, 4, 1,
      AffineMap::get(2, 0, {thread, slot}, &context), inverse);
  llvm::DenseSet<std::pair<int64_t, int64_t>> seen;
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t j = 0; j < 8; ++j) {
      auto place = layout.apply({i, j});
      ASSERT_TRUE(place.has_value());
      EXPECT_LT(place->first, 32);
      EXPECT_LT(place->second, 4);
      EXPECT_TRUE(seen.insert(*place).second);
      // The inverse takes the pair back to the index.
      auto index = layout.applyInverse(place->first, place->second);
      ASSERT_TRUE(index.has_value());
      EXPECT_EQ((*index)[0], i);
      EXPECT_EQ((*index)[1], j);
    }
  EXPECT_EQ(seen.size(), 128u);
  EXPECT_EQ(layout.getNumElements(), 128);
}

TEST_F(LayoutAttrsTest, ReplicatedFragmentTakesReplicaIndex) {
  // 4 rows, each held by 32 threads.
  auto layout = FragmentLayoutAttr::get(
      &context, {4}, 128, 1, 32,
      AffineMap::get(2, 0,
                     {d(0) * 32 + d(1), getAffineConstantExpr(0, &context)},
                     &context),
      AffineMap());
  EXPECT_EQ(layout.apply({2}, 5), std::make_pair(int64_t(69), int64_t(0)));
}

TEST_F(LayoutAttrsTest, ScopeOfMemRef) {
  Builder b(&context);
  auto global = MemRefType::get({4}, b.getF32Type());
  EXPECT_EQ(getMemoryScope(global), MemoryScope::Global);
  auto shared =
      MemRefType::get({4}, b.getF32Type(), MemRefLayoutAttrInterface(),
                      MemoryScopeAttr::get(&context, MemoryScope::Shared));
  EXPECT_EQ(getMemoryScope(shared), MemoryScope::Shared);
  EXPECT_TRUE(isInScope(shared, MemoryScope::Shared));
  EXPECT_FALSE(isInScope(b.getF32Type(), MemoryScope::Shared));
  auto foreign = MemRefType::get(
      {4}, b.getF32Type(), MemRefLayoutAttrInterface(), b.getI64IntegerAttr(3));
  EXPECT_EQ(getMemoryScope(foreign), std::nullopt);
}

TEST_F(LayoutAttrsTest, ScopePrintsAsKeyword) {
  Attribute shared = MemoryScopeAttr::get(&context, MemoryScope::Shared);
  std::string text;
  llvm::raw_string_ostream os(text);
  shared.print(os);
  EXPECT_EQ(text, "#tile.shared");
  EXPECT_EQ(parseAttribute("#tile.fragment", &context),
            MemoryScopeAttr::get(&context, MemoryScope::Fragment));
}

TEST_F(LayoutAttrsTest, EmptyShapeIsRejected) {
  // The textual form cannot spell an empty shape; builders can.
  std::string message;
  context.getDiagEngine().registerHandler([&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto layout = SharedLayoutAttr::getChecked(
      UnknownLoc::get(&context), &context, ArrayRef<int64_t>{},
      AffineMap::get(0, 0, getAffineConstantExpr(0, &context)), SwizzleAttr());
  EXPECT_FALSE(layout);
  EXPECT_EQ(message, "layout shape must have at least one dimension");
}

} // namespace
