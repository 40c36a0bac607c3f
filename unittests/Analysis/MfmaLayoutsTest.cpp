//===- MfmaLayoutsTest.cpp - AMD MFMA layouts against the ISA -------------===//
//
// Part of tilec. Simulates v_mfma_f32_16x16x16f16 and gfx942's
// v_mfma_f32_16x16x32_fp8_fp8 as AMD's CDNA3 ISA guide (and its matrix
// instruction calculator) defines them, lane by lane, and checks that the
// registers tilec's layouts place in each lane make it compute C += A B: the
// operands of the swapped issue (B's fragment as the instruction's A, A's as
// its B), the accumulator layout for C, the A operand layout for A taken from
// registers, the packed K order of operands read from memory, and the layout of
// a row reduction of the accumulator.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <array>
#include <set>
#include <string>

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The instructions' register layouts, from the ISA: for the 16x16xK ones
/// (K = 16 for f16 and bf16, 32 for gfx942's fp8), the source A (M x K)
/// has A[l % 16][(K / 4) * (l / 16) + v] in element v of lane l, the
/// source B (K x N) has B[(K / 4) * (l / 16) + v][l % 16], and the 16x16
/// destination D has D[4 * (l / 16) + r][l % 16] in register r of lane l.
template <int K> using Operand = std::array<std::array<double, K / 4>, 64>;
using Registers = Operand<16>;

/// D = A B + C on registers, as one wave executes v_mfma_f32_16x16xK.
template <int K>
Registers simulateMfma(const Operand<K> &a, const Operand<K> &b,
                       const Registers &c) {
  double srcA[16][K], srcB[K][16];
  for (int l = 0; l < 64; ++l)
    for (int v = 0; v < K / 4; ++v) {
      srcA[l % 16][(K / 4) * (l / 16) + v] = a[l][v];
      srcB[(K / 4) * (l / 16) + v][l % 16] = b[l][v];
    }
  Registers d;
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < 4; ++r) {
      int row = 4 * (l / 16) + r, col = l % 16;
      double sum = c[l][r];
      for (int k = 0; k < K; ++k)
        sum += srcA[row][k] * srcB[k][col];
      d[l][r] = sum;
    }
  return d;
}

/// Small integers, so that sums are exact in any order.
double valueOf(int64_t i, int64_t j, int64_t salt) {
  return double((i * 7 + j * 13 + salt * 5) % 11) - 5;
}

class MfmaLayoutTest : public ::testing::Test {
protected:
  MfmaLayoutTest() { context.loadDialect<TileDialect>(); }
  MLIRContext context;
};

/// Runs C += A B for an M x N x K tile split over waves as `p` says, with
/// A from registers (its A operand layout) or from memory, B from memory
/// (each lane loading its elements by getMfmaOperandElement), C in its
/// accumulator layout; checks every element of C.
void checkGemm(MLIRContext &context, int64_t m, int64_t n, int64_t k,
               WarpPartition p) {
  FragmentLayoutAttr cLayout = makeMfmaAccumulatorLayout(&context, m, n, p);
  FragmentLayoutAttr aLayout = makeMfmaOperandALayout(&context, m, k, p);
  int64_t waves = p.warpM * p.warpN;
  ASSERT_EQ(cLayout.getThreads(), waves * 64);
  int64_t tileM = m / p.warpM, tileN = n / p.warpN;
  int64_t mt = tileM / 16, nt = tileN / 16, kt = k / 16;
  for (int64_t wave = 0; wave < waves; ++wave) {
    int64_t rowBase = (wave / p.warpN) * tileM;
    int64_t colBase = (wave % p.warpN) * tileN;
    for (int64_t mi = 0; mi < mt; ++mi)
      for (int64_t ni = 0; ni < nt; ++ni) {
        // The accumulator's registers, from C's initial values.
        Registers acc;
        for (int l = 0; l < 64; ++l)
          for (int r = 0; r < 4; ++r) {
            int64_t slot = (mi * nt + ni) * 4 + r;
            auto element = cLayout.applyInverse(wave * 64 + l, slot);
            ASSERT_TRUE(element.has_value());
            acc[l][r] = valueOf((*element)[0], (*element)[1], 3);
          }
        for (int64_t ki = 0; ki < kt; ++ki) {
          Registers aRegs, bRegs;
          for (int l = 0; l < 64; ++l)
            for (int v = 0; v < 4; ++v) {
              // A from registers: the slot of (mi, ki) in A's layout.
              int64_t slot = (mi * kt + ki) * 4 + v;
              auto a = aLayout.applyInverse(wave * 64 + l, slot);
              ASSERT_TRUE(a.has_value());
              auto [row, kk] = getMfmaOperandElement(l, v);
              EXPECT_EQ((*a)[0], rowBase + mi * 16 + row);
              EXPECT_EQ((*a)[1], ki * 16 + kk);
              aRegs[l][v] = valueOf((*a)[0], (*a)[1], 1);
              auto [col, kb] = getMfmaOperandElement(l, v);
              bRegs[l][v] = valueOf(ki * 16 + kb, colBase + ni * 16 + col, 2);
            }
          // Swapped: B's fragment is the instruction's A.
          acc = simulateMfma<16>(bRegs, aRegs, acc);
        }
        for (int l = 0; l < 64; ++l)
          for (int r = 0; r < 4; ++r) {
            int64_t slot = (mi * nt + ni) * 4 + r;
            auto element = cLayout.applyInverse(wave * 64 + l, slot);
            ASSERT_TRUE(element.has_value());
            int64_t i = (*element)[0], j = (*element)[1];
            double want = valueOf(i, j, 3);
            for (int64_t kk = 0; kk < k; ++kk)
              want += valueOf(i, kk, 1) * valueOf(kk, j, 2);
            EXPECT_EQ(acc[l][r], want) << "C[" << i << "][" << j << "]";
          }
      }
  }
}

TEST_F(MfmaLayoutTest, OneWaveComputesTheProduct) {
  checkGemm(context, 16, 16, 16, {1, 1});
  checkGemm(context, 32, 48, 32, {1, 1});
}

TEST_F(MfmaLayoutTest, WavesSplitRowsAndColumns) {
  checkGemm(context, 64, 32, 32, {2, 2});
  checkGemm(context, 128, 64, 16, {4, 1});
  checkGemm(context, 32, 128, 48, {1, 4});
}

/// Checks that `acc`, one 16x16 accumulator tile in its layout, is the
/// product of valueOf's A (salt 1) and B (salt 2) over K = `k`.
void expectProduct(MLIRContext &context, const Registers &acc, int64_t k) {
  FragmentLayoutAttr cLayout =
      makeMfmaAccumulatorLayout(&context, 16, 16, {1, 1});
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < 4; ++r) {
      auto element = cLayout.applyInverse(l, r);
      ASSERT_TRUE(element.has_value());
      int64_t i = (*element)[0], j = (*element)[1];
      double want = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        want += valueOf(i, kk, 1) * valueOf(kk, j, 2);
      EXPECT_EQ(acc[l][r], want) << "C[" << i << "][" << j << "]";
    }
}

TEST_F(MfmaLayoutTest, PackedOperandsComputeTheProduct) {
  // Both operands from memory with K packed: per step of 32, MFMA s takes
  // K 8 * (l / 16) + 4 * s + v of A and of B. One 16x16 tile, K = 96.
  const int64_t k = 96;
  Registers acc{};
  for (int64_t k0 = 0; k0 < k; k0 += 32)
    for (int64_t step = 0; step < 2; ++step) {
      Registers aRegs, bRegs;
      for (int l = 0; l < 64; ++l)
        for (int v = 0; v < 4; ++v) {
          auto [row, kk] = getMfmaOperandElement(l, v, /*kPack=*/2, step);
          aRegs[l][v] = valueOf(row, k0 + kk, 1);
          auto [col, kb] = getMfmaOperandElement(l, v, /*kPack=*/2, step);
          bRegs[l][v] = valueOf(k0 + kb, col, 2);
        }
      acc = simulateMfma<16>(bRegs, aRegs, acc);
    }
  expectProduct(context, acc, k);
}

TEST_F(MfmaLayoutTest, Fp8OperandsComputeTheProduct) {
  // The fp8 instruction takes two packed steps of 16 at once: element v
  // of MFMA j of a block is element v % 4 of step 2 j + v / 4. One 16x16
  // tile, K = 128, packed by 2 (one MFMA a block) and by 4 (two).
  for (int64_t kPack : {2, 4}) {
    const int64_t k = 128;
    Registers acc{};
    for (int64_t k0 = 0; k0 < k; k0 += 16 * kPack)
      for (int64_t j = 0; j < kPack / 2; ++j) {
        Operand<32> aRegs, bRegs;
        for (int l = 0; l < 64; ++l)
          for (int v = 0; v < 8; ++v) {
            auto [row, kk] =
                getMfmaOperandElement(l, v % 4, kPack, 2 * j + v / 4);
            aRegs[l][v] = valueOf(row, k0 + kk, 1);
            auto [col, kb] =
                getMfmaOperandElement(l, v % 4, kPack, 2 * j + v / 4);
            bRegs[l][v] = valueOf(k0 + kb, col, 2);
          }
        acc = simulateMfma<32>(bRegs, aRegs, acc);
      }
    SCOPED_TRACE("kPack " + std::to_string(kPack));
    expectProduct(context, acc, k);
  }
}

TEST_F(MfmaLayoutTest, AccumulatorIsABijectionOverTheBlock) {
  WarpPartition p{2, 2};
  FragmentLayoutAttr layout = makeMfmaAccumulatorLayout(&context, 64, 64, p);
  EXPECT_EQ(layout.getSlots(), 16);
  std::set<std::pair<int64_t, int64_t>> places;
  for (int64_t i = 0; i < 64; ++i)
    for (int64_t j = 0; j < 64; ++j) {
      auto place = layout.apply({i, j});
      ASSERT_TRUE(place.has_value());
      EXPECT_TRUE(places.insert(*place).second);
      auto back = layout.applyInverse(place->first, place->second);
      ASSERT_TRUE(back.has_value());
      EXPECT_EQ((*back)[0], i);
      EXPECT_EQ((*back)[1], j);
    }
  EXPECT_EQ(places.size(), 64u * 64u);
  // Each lane holds four consecutive columns of one row per tile.
  auto first = layout.applyInverse(17, 0), last = layout.applyInverse(17, 3);
  EXPECT_EQ((*first)[0], (*last)[0]);
  EXPECT_EQ((*last)[1] - (*first)[1], 3);
}

TEST_F(MfmaLayoutTest, MatchingRecoversThePartition) {
  for (WarpPartition p : {WarpPartition{1, 1}, WarpPartition{2, 2},
                          WarpPartition{4, 1}, WarpPartition{1, 4}}) {
    FragmentLayoutAttr c = makeMfmaAccumulatorLayout(&context, 64, 64, p);
    auto matched = matchMfmaAccumulatorLayout(c);
    ASSERT_TRUE(matched.has_value());
    EXPECT_EQ(matched->warpM, p.warpM);
    EXPECT_EQ(matched->warpN, p.warpN);
    EXPECT_FALSE(matchMmaAccumulatorLayout(c).has_value());
    FragmentLayoutAttr a = makeMfmaOperandALayout(&context, 64, 32, p);
    auto matchedA = matchMfmaOperandALayout(a);
    ASSERT_TRUE(matchedA.has_value());
    EXPECT_EQ(matchedA->warpM, p.warpM);
  }
  // With one wave per row of waves, a result feeds the next gemm as is.
  EXPECT_EQ(makeMfmaOperandALayout(&context, 64, 64, {4, 1}),
            makeMfmaAccumulatorLayout(&context, 64, 64, {4, 1}));
}

TEST_F(MfmaLayoutTest, RowReductionGoesToTheLanesHoldingTheRow) {
  WarpPartition p{2, 2};
  FragmentLayoutAttr c = makeMfmaAccumulatorLayout(&context, 64, 64, p);
  FailureOr<FragmentLayoutAttr> rows = dropLastDimension(c);
  ASSERT_TRUE(succeeded(rows));
  EXPECT_EQ(rows->getReplicate(), 8); // 4 lanes of each of 2 waves
  for (int64_t t = 0; t < c.getThreads(); ++t)
    for (int64_t s = 0; s < c.getSlots(); ++s) {
      auto element = c.applyInverse(t, s);
      ASSERT_TRUE(element.has_value());
      // The thread holds a replica of its element's row, in slot s / 4 /
      // nt of the result (one per 16-row tile).
      bool found = false;
      for (int64_t rep = 0; rep < rows->getReplicate(); ++rep) {
        auto place = rows->apply({(*element)[0]}, rep);
        ASSERT_TRUE(place.has_value());
        found |= place->first == t;
      }
      EXPECT_TRUE(found) << "thread " << t << " row " << (*element)[0];
    }
}

} // namespace
