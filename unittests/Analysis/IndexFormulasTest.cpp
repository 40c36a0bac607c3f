//===- IndexFormulasTest.cpp - Integer formulas and the prover ------------===//
//
// Part of tilec. Checks the translation of index arithmetic into formulas
// against what the operations compute, by asking the prover facts that
// hold (proved) and facts that do not (refuted, with the counter-example
// that shows it), and that what the translation cannot model is never
// refuted.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/IndexFormulas.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace tilec;

namespace {

class IndexFormulasTest : public ::testing::Test {
protected:
  IndexFormulasTest() {
    context.loadDialect<affine::AffineDialect, arith::ArithDialect,
                        func::FuncDialect, gpu::GPUDialect,
                        memref::MemRefDialect>();
  }

  /// Parses a function of an index argument, %n, and a memref of indices,
  /// %m, and returns the values its `func.return` returns.
  SmallVector<Value> parse(StringRef body) {
    std::string source = ("func.func @f(%n: index, %m: memref<4xindex>) -> "
                          "(index, i1) {\n" +
                          body + "\n}")
                             .str();
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    auto func = cast<func::FuncOp>(module->getBody()->front());
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    n = func.getArgument(0);
    return SmallVector<Value>(ret.getOperands());
  }

  /// Binds %n to a variable in [1, 1000].
  Formula bindN(IndexFormulas &f) {
    Formula var = f.variable("n", VariableKind::Dimension, 1, 1000);
    f.addFact(f.le(f.constant(1), var));
    f.addFact(f.le(var, f.constant(1000)));
    f.bind(n, var);
    return var;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  Value n;
};

TEST_F(IndexFormulasTest, DivisionsAndRemaindersMatchTheOperations) {
  // q = n / 8, r = n % 8 (unsigned, of a non-negative n): n == 8q + r and
  // r < 8; ceildiv(n, 8) * 8 >= n.
  SmallVector<Value> results = parse(R"(
    %c8 = arith.constant 8 : index
    %q = arith.divui %n, %c8 : index
    %r = arith.remui %n, %c8 : index
    %p = arith.muli %q, %c8 : index
    %s = arith.addi %p, %r : index
    %c = arith.ceildivsi %n, %c8 : index
    %cp = arith.muli %c, %c8 : index
    %ok = arith.cmpi uge, %cp, %n : index
    return %s, %ok : index, i1)");
  IndexFormulas f;
  Formula var = bindN(f);
  EXPECT_EQ(f.prove({}, f.eq(f.of(results[0]), var)), Proof::Proved);
  EXPECT_EQ(f.prove({}, f.of(results[1])), Proof::Proved);
}

TEST_F(IndexFormulasTest, RefutationsCarryTheirCounterExample) {
  // n * 4 + 3 < 4000 fails only for n = 1000.
  SmallVector<Value> results = parse(R"(
    %c4 = arith.constant 4 : index
    %c3 = arith.constant 3 : index
    %c4000 = arith.constant 4000 : index
    %a = arith.muli %n, %c4 : index
    %b = arith.addi %a, %c3 : index
    %ok = arith.cmpi slt, %b, %c4000 : index
    return %b, %ok : index, i1)");
  IndexFormulas f;
  bindN(f);
  CounterExample example;
  EXPECT_EQ(f.prove({}, f.of(results[1]), &example, {f.of(results[0])}),
            Proof::Refuted);
  ASSERT_EQ(example.variables.size(), 1u);
  EXPECT_EQ(f.variables()[example.variables[0].first].name, "n");
  EXPECT_EQ(example.variables[0].second, 1000);
  ASSERT_EQ(example.values.size(), 1u);
  EXPECT_EQ(example.values[0], 4003);
  // Under the assumption n < 1000 it holds.
  EXPECT_EQ(f.prove({f.lt(f.of(n), f.constant(1000))}, f.of(results[1])),
            Proof::Proved);
}

TEST_F(IndexFormulasTest, SignedDivisionTruncates) {
  // (n - 1001) / 2 rounds toward zero: -1 for n = 999, so >= -500 always.
  SmallVector<Value> results = parse(R"(
    %c1001 = arith.constant 1001 : index
    %c2 = arith.constant 2 : index
    %cm500 = arith.constant -500 : index
    %d = arith.subi %n, %c1001 : index
    %q = arith.divsi %d, %c2 : index
    %ok = arith.cmpi sge, %q, %cm500 : index
    %r = arith.remsi %d, %c2 : index
    return %r, %ok : index, i1)");
  IndexFormulas f;
  bindN(f);
  EXPECT_EQ(f.prove({}, f.of(results[1])), Proof::Proved);
  // The remainder takes the dividend's sign: -1 for odd n - 1001 < 0.
  EXPECT_EQ(f.prove({}, f.le(f.constant(0), f.of(results[0]))), Proof::Refuted);
  EXPECT_EQ(f.prove({}, f.le(f.constant(-1), f.of(results[0]))), Proof::Proved);
}

TEST_F(IndexFormulasTest, UnsignedComparisonsSeeNegativesAsLarge) {
  // n - 2 ult 1000 is false for n = 1 (n - 2 = -1 is the largest unsigned).
  SmallVector<Value> results = parse(R"(
    %c2 = arith.constant 2 : index
    %c1000 = arith.constant 1000 : index
    %d = arith.subi %n, %c2 : index
    %ok = arith.cmpi ult, %d, %c1000 : index
    return %d, %ok : index, i1)");
  IndexFormulas f;
  bindN(f);
  CounterExample example;
  EXPECT_EQ(f.prove({}, f.of(results[1]), &example), Proof::Refuted);
  ASSERT_EQ(example.variables.size(), 1u);
  EXPECT_EQ(example.variables[0].second, 1);
  EXPECT_EQ(f.prove({f.le(f.constant(2), f.of(n))}, f.of(results[1])),
            Proof::Proved);
}

TEST_F(IndexFormulasTest, AffineMapsAndMasks) {
  // affine (n floordiv 4) * 4 + n mod 4 == n; n & 7 == n mod 8.
  SmallVector<Value> results = parse(R"(
    %c7 = arith.constant 7 : index
    %a = affine.apply affine_map<(d0) -> ((d0 floordiv 4) * 4 + d0 mod 4)>(%n)
    %masked = arith.andi %n, %c7 : index
    %ok = arith.cmpi ule, %masked, %c7 : index
    return %a, %ok : index, i1)");
  IndexFormulas f;
  Formula var = bindN(f);
  EXPECT_EQ(f.prove({}, f.eq(f.of(results[0]), var)), Proof::Proved);
  EXPECT_EQ(f.prove({}, f.of(results[1])), Proof::Proved);
}

TEST_F(IndexFormulasTest, OpaqueValuesAreNeverRefuted) {
  // A loaded index is unknown: nothing is proved about it, and the failure
  // the prover finds through it is no counter-example.
  SmallVector<Value> results = parse(R"(
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %i = memref.load %m[%c0] : memref<4xindex>
    %ok = arith.cmpi ult, %i, %c4 : index
    return %i, %ok : index, i1)");
  IndexFormulas f;
  bindN(f);
  Formula loaded = f.of(results[0]);
  EXPECT_FALSE(loaded.exact);
  EXPECT_EQ(f.prove({}, f.of(results[1])), Proof::Unknown);
  // Facts about it still prove what follows from them.
  EXPECT_EQ(f.prove({f.lt(loaded, f.constant(4)), f.le(f.constant(0), loaded)},
                    f.of(results[1])),
            Proof::Proved);
}

TEST_F(IndexFormulasTest, BoundsDecideWithoutTheProver) {
  // The thread index below 128 times 4, plus 3, stays below 512: decided
  // from the bounds alone.
  SmallVector<Value> results = parse(R"(
    %c4 = arith.constant 4 : index
    %c3 = arith.constant 3 : index
    %c512 = arith.constant 512 : index
    %t = gpu.thread_id x upper_bound 128
    %a = arith.muli %t, %c4 : index
    %b = arith.addi %a, %c3 : index
    %ok = arith.cmpi ult, %b, %c512 : index
    return %b, %ok : index, i1)");
  IndexFormulas f;
  Formula last = f.of(results[0]);
  EXPECT_EQ(last.lo, 3);
  EXPECT_EQ(last.hi, 511);
  Formula ok = f.of(results[1]);
  EXPECT_EQ(ok.known, true);
  EXPECT_EQ(f.prove({}, ok), Proof::Proved);
  EXPECT_EQ(f.numQueries(), 0u);
  // One more element would not fit: the prover finds the thread.
  CounterExample example;
  EXPECT_EQ(f.prove({}, f.lt(last, f.constant(511)), &example), Proof::Refuted);
  ASSERT_EQ(example.variables.size(), 1u);
  EXPECT_EQ(f.variables()[example.variables[0].first].name, "thread");
  EXPECT_EQ(example.variables[0].second, 127);
}

TEST_F(IndexFormulasTest, CopiesStandForAnotherThread) {
  // i = t mod 64 + n: two threads 64 apart share i; the copy of t is a
  // second thread with the same range, and n (a dimension) is shared.
  SmallVector<Value> results = parse(R"(
    %c64 = arith.constant 64 : index
    %t = gpu.thread_id x upper_bound 128
    %r = arith.remui %t, %c64 : index
    %i = arith.addi %r, %n : index
    %ok = arith.cmpi ult, %i, %n : index
    return %i, %ok : index, i1)");
  IndexFormulas f;
  Formula n = bindN(f);
  Formula i = f.of(results[0]);
  Formula t = *f.threadIndex();
  VariableCopies copies;
  Formula otherI = f.copy(i, copies);
  Formula otherT = f.copy(t, copies);
  EXPECT_EQ(f.copy(n, copies).ast, n.ast);
  EXPECT_NE(otherT.ast, t.ast);
  EXPECT_EQ(otherT.lo, 0);
  EXPECT_EQ(otherT.hi, 127);
  // Different threads, one element: refuted, with the smallest pair.
  Formula collide =
      f.logicalAnd(f.eq(i, otherI), f.logicalNot(f.eq(t, otherT)));
  CounterExample example;
  ASSERT_EQ(f.prove({}, f.logicalNot(collide), &example, {t, otherT, n}),
            Proof::Refuted);
  EXPECT_EQ(example.values[0], 0);
  EXPECT_EQ(example.values[1], 64);
  EXPECT_EQ(example.values[2], 1);
  // Within half the block, the threads' elements differ: the copy's range
  // is a fact like the original's.
  Formula half = f.lt(t, f.constant(64));
  EXPECT_EQ(f.prove({half, f.copy(half, copies)}, f.logicalNot(collide)),
            Proof::Proved);
  // Without the copy's range, t' could be anything.
  Formula unrelated = f.variable("u", VariableKind::ThreadIndex);
  EXPECT_EQ(f.prove({half, f.lt(unrelated, f.constant(64))},
                    f.logicalNot(
                        f.logicalAnd(f.eq(f.mod(t, 64), f.mod(unrelated, 64)),
                                     f.logicalNot(f.eq(t, unrelated))))),
            Proof::Refuted);
}

TEST_F(IndexFormulasTest, DivisionsTheBoundsFixAreConstants) {
  SmallVector<Value> results = parse(R"(
    %c128 = arith.constant 128 : index
    %t = gpu.thread_id x upper_bound 128
    %q = arith.divui %t, %c128 : index
    %ok = arith.cmpi eq, %q, %c128 : index
    return %q, %ok : index, i1)");
  IndexFormulas f;
  Formula q = f.of(results[0]);
  EXPECT_EQ(q.lo, 0);
  EXPECT_EQ(q.hi, 0);
  EXPECT_EQ(q.variables.size(), 1u);
  EXPECT_EQ(f.of(results[1]).known, false);
}

TEST_F(IndexFormulasTest, ExclusiveOrAndMasksAreExact) {
  // The 128-byte swizzle of an offset o = 8t (t < 128): o ^ ((o >> 3) & 56),
  // which permutes the runs of 8 of each row of 64. Its bounds come
  // without the prover; that it keeps rows and runs needs it; a wrong
  // claim is refuted with a real thread. (That it is one-to-one is more
  // than the prover shows in its resource limit: the race verifier
  // compares offsets before the swizzle.)
  SmallVector<Value> results = parse(R"(
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %c56 = arith.constant 56 : index
    %t = gpu.thread_id x upper_bound 128
    %o = arith.muli %t, %c8 : index
    %high = arith.shrui %o, %c3 : index
    %source = arith.andi %high, %c56 : index
    %x = arith.xori %o, %source : index
    %ok = arith.cmpi ult, %x, %o : index
    return %x, %ok : index, i1)");
  IndexFormulas f;
  Formula x = f.of(results[0]);
  ASSERT_TRUE(x.exact);
  EXPECT_EQ(x.lo, 0);
  EXPECT_EQ(x.hi, 1023);
  Formula t = *f.threadIndex();
  Formula o = f.mul(t, f.constant(8));
  EXPECT_EQ(f.prove({}, f.eq(f.floorDiv(x, 64), f.floorDiv(o, 64))),
            Proof::Proved);
  EXPECT_EQ(f.prove({}, f.eq(f.mod(x, 8), f.constant(0))), Proof::Proved);
  // The swizzle moves thread 8's offset 64 to 72: x >= o is not always so.
  CounterExample example;
  ASSERT_EQ(f.prove({}, f.logicalNot(f.of(results[1])), &example, {x}),
            Proof::Refuted);
  ASSERT_EQ(example.variables.size(), 1u);
  EXPECT_EQ(example.variables[0].second, 9);
  EXPECT_EQ(example.values[0], 64);
}

TEST_F(IndexFormulasTest, DistancesCancelAndTheirTermsBoundThem) {
  // Two threads of one block: bx * 128 + 2 * (t mod 4) + 8, less its copy
  // with the same block, is 2 * (t mod 4 - t' mod 4) + 8 in [2, 14], which
  // is never 0; the terms taken apart say so without the prover.
  SmallVector<Value> results = parse(R"(
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %t = gpu.thread_id x upper_bound 128
    %q = arith.remui %t, %c4 : index
    %c = arith.muli %q, %c2 : index
    %b = arith.muli %n, %c128 : index
    %s = arith.addi %b, %c : index
    %i = arith.addi %s, %c8 : index
    %ok = arith.cmpi eq, %i, %n : index
    return %i, %ok : index, i1)");
  IndexFormulas f;
  Formula n = bindN(f);
  Formula i = f.of(results[0]);
  VariableCopies copies;
  Formula shifted = f.sub(i, f.constant(8));
  Formula distance = f.simplify(f.sub(i, f.copy(shifted, copies)));
  EXPECT_EQ(distance.lo, 2);
  EXPECT_EQ(distance.hi, 14);
  EXPECT_FALSE(f.mayReach(distance, 0, 0));
  EXPECT_TRUE(f.mayReach(distance, 8, 8));
  // 64 * (w - w') + (l - l') - 48 for w in [0, 1], l in [0, 7]: the sums
  // reach [-119, -105], [-55, -41] and [9, 23], which the bounds alone
  // ([-119, 23]) do not separate.
  Formula w = f.variable("w", VariableKind::ThreadIndex, 0, 1);
  Formula l = f.variable("l", VariableKind::ThreadIndex, 0, 7);
  Formula otherW = f.copy(w, copies), otherL = f.copy(l, copies);
  Formula spread = f.simplify(
      f.sub(f.add(f.mul(f.constant(64), f.sub(w, otherW)), f.sub(l, otherL)),
            f.constant(48)));
  EXPECT_EQ(spread.lo, -119);
  EXPECT_EQ(spread.hi, 23);
  EXPECT_FALSE(f.mayReach(spread, -1, 1));
  EXPECT_TRUE(f.mayReach(spread, -50, -50));
  (void)n;
}

TEST_F(IndexFormulasTest, TablesGoThroughEveryAssignment) {
  // (t mod 4) * 32 + t / 4 for t < 16, tabulated; out of range variables
  // or too many assignments give none.
  SmallVector<Value> results = parse(R"(
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %t = gpu.thread_id x upper_bound 16
    %q = arith.remui %t, %c4 : index
    %h = arith.muli %q, %c32 : index
    %d = arith.divui %t, %c4 : index
    %i = arith.addi %h, %d : index
    %ok = arith.cmpi eq, %i, %n : index
    return %i, %ok : index, i1)");
  IndexFormulas f;
  Formula i = f.of(results[0]);
  unsigned t = f.threadIndex()->variables.front();
  std::optional<ArrayRef<int64_t>> table = f.tabulate(i, {t}, 16);
  ASSERT_TRUE(table);
  ASSERT_EQ(table->size(), 16u);
  for (int64_t v = 0; v < 16; ++v)
    EXPECT_EQ((*table)[v], (v % 4) * 32 + v / 4);
  EXPECT_FALSE(f.tabulate(i, {t}, 15));
  EXPECT_FALSE(f.tabulate(i, {}, 16));
}

TEST_F(IndexFormulasTest, MultiplesByTheirTerms) {
  // 4 * (n * t) + 16 * t + 32: a multiple of 16 when n is a multiple of 4,
  // which only a fact about n says; of 4 always; never of 64 by terms.
  SmallVector<Value> results = parse(R"(
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %t = gpu.thread_id x upper_bound 128
    %p = arith.muli %n, %t : index
    %a = arith.muli %p, %c4 : index
    %b = arith.muli %t, %c16 : index
    %s = arith.addi %a, %b : index
    %x = arith.addi %s, %c32 : index
    %r = arith.remui %n, %c4 : index
    %c0 = arith.constant 0 : index
    %ok = arith.cmpi eq, %r, %c0 : index
    return %x, %ok : index, i1)");
  IndexFormulas f;
  bindN(f);
  Formula x = f.simplify(f.of(results[0]));
  Formula fact = f.of(results[1]);
  EXPECT_TRUE(f.isMultipleByTerms(x, 4));
  EXPECT_FALSE(f.isMultipleByTerms(x, 16));
  EXPECT_TRUE(f.isMultipleByTerms(x, 16, {fact}));
  EXPECT_FALSE(f.isMultipleByTerms(x, 64, {fact}));
}

} // namespace
