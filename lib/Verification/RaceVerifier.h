//===- RaceVerifier.h - The race verifier's model -------------*- C++ -*-===//
//
// Part of tilec. The writes the race verifier compares, how two executions
// of them may be unordered, and the verifier itself, whose proofs are in
// VerifyRaces.cpp and whose reports are in RaceReports.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_VERIFICATION_RACEVERIFIER_H
#define TILEC_LIB_VERIFICATION_RACEVERIFIER_H

#include "tilec/Verification/KernelFormulas.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"

#include <map>

namespace tilec::tile::races {

using llvm::DenseMap;
using mlir::ArrayRef;
using mlir::LogicalResult;
using mlir::Operation;
using mlir::SmallVector;
using mlir::SmallVectorImpl;
using mlir::Value;

/// What a value can differ in between two threads.
struct Variation {
  /// Between two threads of one block: it is computed from the thread
  /// index.
  bool thread = false;
  /// Between two blocks: computed from a block index or the thread index,
  /// or read from memory a block has of its own (fragments, shared).
  bool block = false;

  Variation &operator|=(const Variation &other) {
    thread |= other.thread;
    block |= other.block;
    return *this;
  }
  bool operator!=(const Variation &other) const {
    return thread != other.thread || block != other.block;
  }
};

/// A store to memory other threads see, with its indices into the buffer
/// it views (a tensor argument or a tile.alloc_shared).
struct Write {
  Operation *op;
  Value buffer;
  /// The value written; null for copies, which write what they read from
  /// `sourceIndices`.
  Value value;
  SmallVector<Value> indexValues;
  SmallVector<Value> sourceIndices;
  /// Indices into the buffer; for a swizzled tile, the leading indices and
  /// then the element's offset in the tile before the swizzle.
  SmallVector<Formula> indices;
  /// The elements it writes along the last of `indices`.
  int64_t width;
  bool shared;
  /// Lanes of a masked store may not be written: a collision found is not
  /// one for sure.
  bool masked;
  /// For a swizzled tile: the swizzle, which permutes runs of
  /// 2^base elements, and the tile's shape, to name elements.
  SwizzleAttr swizzle;
  int64_t tileRows = 0, tileCols = 0;
  /// The conditions under which it runs.
  SmallVector<Formula> path;
  /// Whether the prover could not justify treating it as written (a
  /// swizzled vector that may straddle two runs): its pairs are not proved.
  bool unsupported = false;
  /// An asynchronous copy's write lands some time before the wait for it,
  /// perhaps past barriers.
  bool async = false;
};

/// How two executions, of two writes, may be unordered. The second
/// execution's variables are copies but for those `shared` lists (the
/// block indices, for executions in one block; the induction variables of
/// loops they share an iteration of).
/// How the warps of two executions' threads relate, where warp barriers
/// order the executions of threads of one warp but not of two.
enum class WarpRelation { Any, Same, Different };

struct Concurrency {
  bool sameBlock = true;
  /// Loops (scf.for or scf.while) whose iteration the executions share.
  SmallVector<mlir::Operation *> sameLoops;
  /// A loop whose iterations differ by one step, and which execution runs
  /// first: the first write's (forward) or the second's.
  mlir::Operation *adjacentLoop = nullptr;
  bool forward = true;
  WarpRelation warps = WarpRelation::Any;
};

class RaceVerifier {
public:
  RaceVerifier(mlir::func::FuncOp func, KernelOp kernel, unsigned resourceLimit,
               bool remarks)
      : kernel(func, kernel, resourceLimit), formulas(this->kernel.formulas()),
        remarks(remarks) {}

  LogicalResult run();

private:
  std::optional<Write> matchWrite(Operation *op, ArrayRef<Formula> path);
  void computeVariations();
  Variation variationOf(Value value) const { return variations.lookup(value); }
  Variation variationOf(const Write &write) const;
  /// Whether every thread writes the same value, to the same element.
  bool isUniform(const Write &write) const;
  void checkPair(Write &first, Write &second);
  /// The concurrencies under which executions of `first` and `second` may
  /// be unordered: a superset of the real ones, for proofs.
  /// Executions of threads whose warps relate as `warps` says.
  SmallVector<Concurrency> possibleConcurrencies(const Write &first,
                                                 const Write &second,
                                                 WarpRelation warps);
  /// The one under which they are unordered for sure, if any: for errors.
  std::optional<Concurrency> certainConcurrency(const Write &first,
                                                const Write &second,
                                                WarpRelation warps);
  /// The copies of variables for a second execution under `concurrency`.
  VariableCopies &copiesFor(const Concurrency &concurrency);
  /// Whether executions under `concurrency` can write one element; fills
  /// `example` when asked for the values of `evaluate`.
  Proof ask(const Write &first, const Write &second,
            const Concurrency &concurrency, bool withPaths,
            CounterExample *example = nullptr,
            SmallVectorImpl<Formula> *evaluate = nullptr);
  /// Whether two executions of different threads can write one element,
  /// decided by going through the values of the variables of each, where
  /// `distances` (per index, the first's less the second's) separate into
  /// a part of each execution's variables and these are few. Path
  /// conditions are left out: only `false` is a proof. Nullopt where it
  /// does not apply.
  std::optional<bool> collidesByEnumeration(const Write &first,
                                            const Write &second,
                                            ArrayRef<Formula> distances,
                                            VariableCopies &copies,
                                            const Formula &thread);
  /// Proves at once that no two executions of `members` (writes to one
  /// buffer whose indices share the terms of the block indices) by
  /// different threads write one element, whatever orders them: each pair
  /// and each write with itself. False where it cannot tell; the pairs are
  /// then asked one by one.
  bool proveFamily(ArrayRef<Write *> members);
  /// Reports the race of an execution under `concurrency`, if the prover
  /// finds one.
  bool reportRace(const Write &first, const Write &second,
                  const Concurrency &concurrency);
  std::string bufferName(const Write &write);
  std::string describeBlock(ArrayRef<int64_t> values);
  std::string describeElement(const Write &write, ArrayRef<int64_t> indices);
  std::optional<Formula> threadOf(const Write &first, const Write &second);

  KernelFormulas kernel;
  IndexFormulas &formulas;
  bool remarks;
  bool failed = false;
  DenseMap<Value, Variation> variations;
  /// The copies of variables per set of shared ones: a copy's facts tie it
  /// to the variables it was made with, so each set has its own.
  std::map<SmallVector<unsigned>, VariableCopies> copyPools;
  /// Queries asked about pairs of different writes, which grow with the
  /// square of their number: past kMaxPairQueries, pairs are not proved.
  unsigned pairQueries = 0;
  /// Whether the kernel has warp barriers, which order the threads of one
  /// warp only: pairs of threads are then asked about per warp relation.
  bool hasWarpBarriers = false;
  static constexpr unsigned kMaxPairQueries = 2000;
};

} // namespace tilec::tile::races

#endif // TILEC_LIB_VERIFICATION_RACEVERIFIER_H
