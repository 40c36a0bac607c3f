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
#include <vector>

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
  /// Boolean Z3_asts that give the formula's auxiliary variables their
  /// meaning (the bits of an exclusive or's operands); every query that
  /// mentions the formula asserts them.
  llvm::SmallVector<void *, 0> definitions;
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
  /// A part of another value that a formula introduces to model it exactly
  /// (a bit of an operand of an exclusive or); not shown in
  /// counter-examples.
  Auxiliary,
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
  /// The bitwise exclusive or of two non-negative values, one of them below
  /// 2^kMaxXorBits: exact, through the bits of the low part of each
  /// operand. Null where the bounds do not allow it.
  Formula bitXor(const Formula &a, const Formula &b);
  static constexpr unsigned kMaxXorBits = 12;
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

  /// A sum split in two: the terms of `formula` (simplified) whose
  /// variables all pass `keep`, and the bounds of the sum of the others.
  /// Nullopt when the others have no known bounds.
  struct Split {
    Formula kept;
    int64_t restLo, restHi;
  };
  std::optional<Split> split(const Formula &formula,
                             llvm::function_ref<bool(unsigned)> keep);

  /// `formula` as first + second, where the terms of `first` mention only
  /// variables that pass `inFirst` and those of `second` only others;
  /// constants go to `first`. Nullopt where a term mentions both kinds.
  std::optional<std::pair<Formula, Formula>>
  separate(const Formula &formula, llvm::function_ref<bool(unsigned)> inFirst);

  /// `formula` as a sum of terms and a constant.
  std::pair<Formula, int64_t> splitConstant(const Formula &formula);

  /// The values of `formula` for every assignment of `variables` in their
  /// ranges (the first variable fastest), which must be all it mentions;
  /// nullopt where one has no finite range, the assignments are more than
  /// `maxAssignments`, or the formula cannot be evaluated. Memoized.
  std::optional<llvm::ArrayRef<int64_t>>
  tabulate(const Formula &formula, llvm::ArrayRef<unsigned> variables,
           int64_t maxAssignments);

  /// Whether every term of `formula` (simplified), its constant included,
  /// is a multiple of `divisor`: its coefficient times what `facts` (of the
  /// form x mod d == 0) say its factors are multiples of. A proof, without
  /// the prover, that the formula always is one; it covers products of
  /// run-time values (a row times a run-time width), which the prover's
  /// linear arithmetic does not.
  bool isMultipleByTerms(const Formula &formula, int64_t divisor,
                         llvm::ArrayRef<Formula> facts = {});

  /// Whether `formula` can take a value in [lo, hi], its terms taking any
  /// values in their bounds independently: false is a proof that it
  /// cannot, without the prover (distances whose terms are small ranges
  /// scaled apart, as 64 * (w - w') + (l - l') - 48 is never 0 for w, w'
  /// in [0, 1] and l, l' in [0, 7]).
  bool mayReach(const Formula &formula, int64_t lo, int64_t hi);

  /// Whether `formula` (simplified) is c * x - c * y for two variables and
  /// a positive constant: (x, y, c).
  std::optional<std::tuple<unsigned, unsigned, int64_t>>
  matchScaledDifference(const Formula &formula);

  /// Adds a fact that holds on every execution (a variable's range).
  void addFact(const Formula &fact);

  /// `formula` of a second execution: every variable but the run-time
  /// dimensions (which all threads share) replaced by its copy in
  /// `copies`, made on first use with the original's name, kind and
  /// range, and with copies of the facts about the original. `copies`
  /// maps a variable to itself to keep it, and must outlive this object
  /// (copies are memoized by its address).
  Formula copy(const Formula &formula, VariableCopies &copies);

  /// `formula` with its arithmetic normalized (sums flattened, constants
  /// folded), so that formulas that differ only in how they were built
  /// are the same question, and its bounds recomputed from the normalized
  /// terms (where terms cancel, they are tighter).
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
  /// The thread index of a block of `count` threads, numbered from 0 in
  /// the order of gpu.thread_id x, then y, then z; made on first use.
  Formula blockThread(int64_t count);
  /// The formula of the variable `index` (an index into variables()).
  Formula variableFormula(unsigned index) const;
  unsigned numQueries() const { return queries; }

private:
  /// A sum of constant multiples of terms, and a constant: terms that are
  /// not sums, differences or constant multiples (variables, quotients,
  /// remainders), in the order Z3 made them.
  struct LinearForm {
    llvm::SmallVector<std::pair<void *, int64_t>, 8> terms;
    int64_t constant = 0;
  };
  std::optional<LinearForm> linearize(void *ast);
  /// The values `form` can take, its terms independent: disjoint sorted
  /// ranges.
  std::optional<llvm::SmallVector<std::pair<int64_t, int64_t>, 4>>
  reachOf(const LinearForm &form);
  /// `original` as the sum `form`, with bounds from its terms'.
  Formula fromLinear(const Formula &original, const LinearForm &form);

  Formula copyUncached(const Formula &formula, VariableCopies &copies);
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
  llvm::DenseMap<void *, std::optional<LinearForm>> linearMemo;
  llvm::DenseMap<int64_t, void *> constants;
  std::map<std::pair<void *, llvm::SmallVector<unsigned>>,
           std::optional<std::vector<int64_t>>>
      tables;
  llvm::DenseMap<
      void *, std::optional<llvm::SmallVector<std::pair<int64_t, int64_t>, 4>>>
      reachMemo;
  /// Copies of formulas, by term and the copies of variables they used.
  llvm::DenseMap<std::pair<void *, const void *>, Formula> copyMemo;
  /// Bounds of simplified terms, by Z3_ast.
  llvm::DenseMap<void *, std::optional<std::pair<int64_t, int64_t>>> boundsMemo;
  /// The variable of gpu.thread_id x: one, however many ops read it.
  std::optional<Formula> thread;
  /// What addFact was given: asserted in the queries that mention their
  /// variables, and copied with them.
  llvm::SmallVector<Formula> facts;
  /// The indices into `facts` of those that mention each variable.
  llvm::SmallVector<llvm::SmallVector<unsigned, 2>> factsByVariable;
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
