//===- LdsBanksTest.cpp - The LDS bank model and MFMA swizzles ------------===//
//
// Part of tilec. Checks the LDS bank model on access patterns whose cost
// is known by hand, then that the swizzles tilec picks for the MFMA
// operand tiles of its examples make the fragment reads and the fills
// conflict-free under it, where the unswizzled tiles conflict.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/LdsBanks.h"
#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

std::vector<int64_t> strided(int64_t lanes, int64_t stride) {
  std::vector<int64_t> addresses;
  for (int64_t lane = 0; lane < lanes; ++lane)
    addresses.push_back(lane * stride);
  return addresses;
}

TEST(LdsBanksTest, ConsecutiveAccessesAreConflictFree) {
  for (int64_t bytes : {4, 8, 16}) {
    std::vector<int64_t> addresses = strided(64, bytes);
    EXPECT_EQ(countLdsCycles(addresses, bytes),
              countConflictFreeLdsCycles(64, bytes))
        << bytes << "-byte accesses";
  }
  // 64 lanes of 4 bytes: two phases of 32.
  EXPECT_EQ(countConflictFreeLdsCycles(64, 4), 2);
  // Of 16 bytes: eight phases of 8.
  EXPECT_EQ(countConflictFreeLdsCycles(64, 16), 8);
  // Half-words: two lanes share a word, and a phase is still 32 lanes.
  EXPECT_EQ(countLdsCycles(strided(64, 2), 2), 2);
}

TEST(LdsBanksTest, StridesOfTheBankRowConflict) {
  // 4-byte reads 128 bytes apart: the 32 lanes of a phase in one bank.
  EXPECT_EQ(countLdsCycles(strided(64, 128), 4), 64);
  // 64 bytes apart: two banks' worth, 16-way.
  EXPECT_EQ(countLdsCycles(strided(64, 64), 4), 32);
  // 8-byte reads 64 bytes apart: phases of 16 lanes over 2 of the 16
  // 8-byte bank pairs, 8-way.
  EXPECT_EQ(countLdsCycles(strided(64, 64), 8), 32);
  // 16-byte reads 128 bytes apart: phases of 8 lanes in one 4-bank group.
  EXPECT_EQ(countLdsCycles(strided(64, 128), 16), 64);
  // Every lane reading one word: a broadcast.
  EXPECT_EQ(countLdsCycles(std::vector<int64_t>(64, 40), 4), 2);
}

class MfmaSwizzleTest : public ::testing::Test {
protected:
  MfmaSwizzleTest() { context.loadDialect<TileDialect>(); }

  /// Checks that the swizzle chosen for `tile` makes its reads and fill
  /// conflict-free, and returns it.
  SwizzleAttr expectConflictFree(const MfmaOperandTile &tile) {
    SwizzleAttr swizzle = chooseMfmaSharedSwizzle(&context, tile);
    EXPECT_EQ(countMfmaReadCycles(tile, swizzle),
              countConflictFreeMfmaReadCycles(tile, swizzle));
    int64_t chunks = tile.rows * tile.cols * tile.elementBytes / 16;
    EXPECT_EQ(countTileFillCycles(tile, swizzle),
              countConflictFreeLdsCycles(chunks, 16));
    return swizzle;
  }

  MLIRContext context;
};

TEST_F(MfmaSwizzleTest, PackedReadsAreElementPairsOfTheUnpacked) {
  // Packing reorders K within each step of 32 the same way for A and B:
  // over the two MFMAs, every (lane, K) pair of the step appears once.
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t step = 0; step < 2; ++step)
    for (int64_t lane = 0; lane < kWaveLanes; ++lane)
      for (int64_t v = 0; v < 4; ++v) {
        auto [row, k] = getMfmaOperandElement(lane, v, 2, step);
        EXPECT_EQ(row, lane % 16);
        EXPECT_LT(k, 32);
        EXPECT_TRUE(seen.insert({row + 16 * (lane / 16), k}).second);
        // A lane's eight K are consecutive: one 16-byte read.
        EXPECT_EQ(k, 8 * (lane / 16) + 4 * step + v);
      }
  EXPECT_EQ(seen.size(), 64u * 8);
}

TEST_F(MfmaSwizzleTest, ExampleGemmTiles) {
  // examples/gemm.tile: A 128x32 read along its rows, B 32x128 across
  // them, both packed.
  MfmaOperandTile a{128, 32, 2, /*kFastest=*/true, /*kPack=*/2};
  MfmaOperandTile b{32, 128, 2, /*kFastest=*/false, /*kPack=*/2};
  SwizzleAttr aSwizzle = expectConflictFree(a);
  ASSERT_TRUE(aSwizzle);
  EXPECT_TRUE(isMfmaReadAsVector(a, aSwizzle));
  SwizzleAttr bSwizzle = expectConflictFree(b);
  ASSERT_TRUE(bSwizzle);
  EXPECT_EQ(bSwizzle, SwizzleAttr::get(&context, 2, 3, 6));
  // The ldmatrix swizzle (row XOR chunk) puts rows 8 apart, which the
  // packed reads of B take together, on the same banks: 2-way.
  SwizzleAttr ldmatrix = chooseSharedSwizzle(&context, 128, 2);
  EXPECT_EQ(countMfmaReadCycles(b, ldmatrix),
            2 * countConflictFreeMfmaReadCycles(b, ldmatrix));
  // Unswizzled, both conflict.
  EXPECT_GT(countMfmaReadCycles(a, {}), countConflictFreeMfmaReadCycles(a, {}));
  EXPECT_GT(countMfmaReadCycles(b, {}), countConflictFreeMfmaReadCycles(b, {}));
  // Unpacked 8-byte reads of A cannot avoid a 2-way conflict with 16-byte
  // chunks: 16 rows at one K over 8 chunks of the 128 bytes a phase reads.
  MfmaOperandTile unpacked = a;
  unpacked.kPack = 1;
  SwizzleAttr unpackedSwizzle = chooseMfmaSharedSwizzle(&context, unpacked);
  EXPECT_EQ(countMfmaReadCycles(unpacked, unpackedSwizzle),
            2 * countConflictFreeMfmaReadCycles(unpacked, unpackedSwizzle));
}

TEST_F(MfmaSwizzleTest, FlashAttentionTiles) {
  // Q and K (transposed B) read along their rows of 64 or 128 elements,
  // packed; V across its rows, unpacked (P comes from registers).
  for (int64_t dim : {64, 128}) {
    for (int64_t rows : {64, 128}) {
      SwizzleAttr swizzle =
          expectConflictFree({rows, dim, 2, /*kFastest=*/true, 2});
      EXPECT_TRUE(isMfmaReadAsVector({rows, dim, 2, true, 2}, swizzle));
    }
    // Unswizzled, the eight lanes of a phase read eight rows at one
    // column: 8-way.
    MfmaOperandTile q{64, dim, 2, /*kFastest=*/true, 2};
    EXPECT_EQ(countMfmaReadCycles(q, {}),
              8 * countConflictFreeMfmaReadCycles(q, {}));
    expectConflictFree({64, dim, 2, /*kFastest=*/false, 1});
    expectConflictFree({128, dim, 2, /*kFastest=*/false, 1});
  }
}

TEST_F(MfmaSwizzleTest, Fp8Tiles) {
  // gfx942's fp8 gemm, 128x128x64 tiles packed by 4: A read along K, 16
  // bytes a lane; B across its rows, byte by byte.
  SwizzleAttr a = expectConflictFree({128, 64, 1, /*kFastest=*/true, 4});
  EXPECT_TRUE(isMfmaReadAsVector({128, 64, 1, true, 4}, a));
  expectConflictFree({64, 128, 1, /*kFastest=*/false, 4});
  // Packed by 2 (K = 32), the 8-byte reads of 16 rows share the banks of
  // 16-byte chunks two by two, as unpacked f16 does.
  MfmaOperandTile narrow{128, 32, 1, /*kFastest=*/true, 2};
  SwizzleAttr swizzle = chooseMfmaSharedSwizzle(&context, narrow);
  EXPECT_EQ(countMfmaReadCycles(narrow, swizzle),
            2 * countConflictFreeMfmaReadCycles(narrow, swizzle));
}

TEST_F(MfmaSwizzleTest, SwizzlesFitTheTile) {
  // Not a multiple of the MFMA tile: none.
  EXPECT_FALSE(chooseMfmaSharedSwizzle(&context, {24, 32, 2, true, 1}));
  // Every choice is a whole number of periods of the tile.
  for (int64_t rows : {16, 32, 64, 128})
    for (int64_t cols : {16, 32, 64, 128, 256})
      for (bool kFastest : {false, true})
        if (SwizzleAttr swizzle = chooseMfmaSharedSwizzle(
                &context, {rows, cols, 2, kFastest, 1})) {
          int64_t period = int64_t(1)
                           << (swizzle.getBase() + swizzle.getShift() +
                               swizzle.getBits());
          EXPECT_EQ(rows * cols % period, 0);
          EXPECT_EQ(swizzle.getBase(), 3u);
        }
}

} // namespace
