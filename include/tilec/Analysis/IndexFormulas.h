//===- IndexFormulas.h - Integer formulas of a kernel's values --*- C++ -*-===//
//
// Part of tilec. Translates the index arithmetic of per-thread code (arith
// and affine on index and integer values, the thread index, and whatever
// the caller binds: block indices, loop induction variables, run-time
// dimensions) into formulas over the integers for the Z3 prover, and asks
// it whether a condition holds on every execution.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_INDEXFORMULAS_H
#define TILEC_ANALYSIS_INDEXFORMULAS_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace tilec {

/// An integer or boolean formula, owned by the IndexFormulas that built it.
///
/// The integers are unbounded: the translation assumes that no index
/// arithmetic overflows. Some operations mean what the IR computes only
/// under conditions (an unsigned division, of a non-negative value), which
/// `exactWhen` collects; `exact` is false when an opaque value (one loaded
/// from memory, or computed by an operation the translation does not model)
/// is involved, about which nothing is known.
struct Formula {
  /// A Z3_ast.
  void *ast = nullptr;
  /// The named variables (indices into IndexFormulas::variables()) the
  /// formula mentions, sorted.
  llvm::SmallVector<unsigned, 4> variables;
  /// Boolean Z3_asts under which the formula is exact.
  llvm::SmallVector<void *, 2> exactWhen;
  bool exact = true;
  /// Bounds of an integer formula on every execution, where known from the
  /// ranges of its variables; what a boolean formula is, where that decides
  /// it. Most queries of static shapes are answered from these, without
  /// the prover.
  std::optional<int64_t> lo, hi;
  std::optional<bool> known;

  /// Whether the bounds make it at least 0 (indices of threads and blocks,
  /// dimensions, their sums, products and quotients), so that unsigned
  /// operations on it need no case for negative values.
  bool nonNegative() const { return lo && *lo >= 0; }

  explicit operator bool() const { return ast != nullptr; }
};

/// What a named variable stands for, for counter-examples.
enum class VariableKind {
  /// A run-time dimension of a tensor (at least 1).
  Dimension,
  /// The block index along an axis of the grid.
  BlockIndex,
  /// The thread index in the block.
  ThreadIndex,
  /// The induction variable of a loop.
  LoopIndex,
  /// An index into a buffer, for properties of layouts.
  ElementIndex,
  /// A value the translation does not model.
  Opaque,
};

struct Variable {
  std::string name;
  VariableKind kind;
  std::optional<int64_t> lo, hi;
};

/// The copies of variables that stand for a second execution (another
/// thread's): the original's index to its copy's.
using VariableCopies = llvm::DenseMap<unsigned, unsigned>;

/// The answer to "does this condition hold on every execution?".
enum class Proof {
  /// It does.
  Proved,
  /// It does not, and the counter-example is an execution where it fails.
  Refuted,
  /// The prover could not tell: its resource limit, non-linear arithmetic,
  /// or a
  /// counter-example only through opaque values.
  Unknown,
};

/// A refuting execution: the values of the named variables that the
/// condition and the assumptions mention (and of the run-time dimensions),
/// in the order the variables were made, and those of the formulas asked
/// for.
struct CounterExample {
  llvm::SmallVector<std::pair<unsigned, int64_t>> variables;
  llvm::SmallVector<int64_t> values;
};

class IndexFormulas {
public:
  /// `resourceLimit` bounds each query, in Z3's deterministic resource
  /// units (its `rlimit`).
  explicit IndexFormulas(unsigned resourceLimit = 200000);
  ~IndexFormulas();
  IndexFormulas(const IndexFormulas &) = delete;
  IndexFormulas &operator=(const IndexFormulas &) = delete;

  /// A new integer variable. Its range is for the caller to add as facts;
  /// `lo` and `hi`, bounds that the facts imply, spare the prover work.
  Formula variable(llvm::StringRef name, VariableKind kind,
                   std::optional<int64_t> lo = std::nullopt,
                   std::optional<int64_t> hi = std::nullopt);
  /// Makes `value` stand for `formula` from now on (block arguments, loop
  /// induction variables, run-time dimensions).
  void bind(mlir::Value value, const Formula &formula);

  Formula constant(int64_t value);
  Formula boolean(bool value);
  Formula add(const Formula &a, const Formula &b);
  Formula sub(const Formula &a, const Formula &b);
  Formula mul(const Formula &a, const Formula &b);
  /// Floor division and the non-negative remainder by a positive constant.
  Formula floorDiv(const Formula &a, int64_t b);
  Formula mod(const Formula &a, int64_t b);
  Formula lt(const Formula &a, const Formula &b);
  Formula le(const Formula &a, const Formula &b);
  Formula eq(const Formula &a, const Formula &b);
  Formula logicalAnd(const Formula &a, const Formula &b);
  Formula logicalOr(const Formula &a, const Formula &b);
  Formula logicalNot(const Formula &a);
  Formula select(const Formula &cond, const Formula &a, const Formula &b);

  /// The formula of an index, integer or i1 value: the arithmetic that
  /// defines it, down to bound values and constants. What is not modelled
  /// becomes an opaque variable. Memoized.
  Formula of(mlir::Value value);

  /// The formula of an affine expression over `dims` and `symbols`; null
  /// where it divides by something other than a positive constant.
  Formula affine(mlir::AffineExpr expr, llvm::ArrayRef<Formula> dims,
                 llvm::ArrayRef<Formula> symbols = {});

  /// Adds a fact that holds on every execution (a variable's range).
  void addFact(const Formula &fact);

  /// `formula` of a second execution: every variable but the run-time
  /// dimensions (which all threads share) replaced by its copy in
  /// `copies`, made on first use with the original's name, kind and
  /// range, and with copies of the facts about the original.
  Formula copy(const Formula &formula, VariableCopies &copies);

  /// `formula` with its arithmetic normalized (sums flattened, constants
  /// folded), so that formulas that differ only in how they were built
  /// are the same question.
  Formula simplify(const Formula &formula);

  /// Whether `goal` holds wherever the facts and all `assumptions` do. A
  /// counter-example is only reported where every formula involved is
  /// exact; otherwise the answer is Unknown.
  Proof prove(llvm::ArrayRef<Formula> assumptions, const Formula &goal,
              CounterExample *counterExample = nullptr,
              llvm::ArrayRef<Formula> evaluate = {});

  llvm::ArrayRef<Variable> variables() const { return vars; }
  /// The thread index in the block, once a formula has read it.
  std::optional<Formula> threadIndex() const { return thread; }
  /// The formula of the variable `index` (an index into variables()).
  Formula variableFormula(unsigned index) const;
  unsigned numQueries() const { return queries; }

private:
  Formula opaque(mlir::Value value, bool isBool);
  Proof solve(llvm::ArrayRef<Formula> assumptions, const Formula &goal,
              CounterExample *counterExample, llvm::ArrayRef<Formula> evaluate);
  Formula translate(mlir::Value value);
  /// A formula of `ast` over `operands`: their variables, exactness and
  /// conditions, and `exactWhen`.
  Formula derive(void *ast, llvm::ArrayRef<const Formula *> operands,
                 void *exactWhen = nullptr);

  struct Impl;
  std::unique_ptr<Impl> impl;
  llvm::SmallVector<Variable> vars;
  llvm::SmallVector<void *> varAsts;
  llvm::DenseMap<mlir::Value, Formula> memo;
  /// The variable of gpu.thread_id x: one, however many ops read it.
  std::optional<Formula> thread;
  /// What addFact was given, for the copies of variables.
  llvm::SmallVector<Formula> facts;
  /// Answers by goal and assumptions.
  std::map<llvm::SmallVector<void *>, Proof> answers;
  unsigned queries = 0;
  /// Queries that ran out of resources; past kMaxExhausted, no more are
  /// asked.
  unsigned exhausted = 0;
  static constexpr unsigned kMaxExhausted = 4;
  /// Checks spent making a counter-example's values small.
  static constexpr unsigned kMaxMinimizingChecks = 256;
};

} // namespace tilec

#endif // TILEC_ANALYSIS_INDEXFORMULAS_H
