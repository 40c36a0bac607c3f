//===- MergeReads.cpp - Merge repeated reads in linear time ---------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

namespace tilec {
#define GEN_PASS_DEF_TILECMERGEREADS
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// Hashes and compares operations as CSE does: by name, attributes,
/// operands and result types, not by location.
struct ReadInfo : public DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    return OperationEquivalence::computeHash(
        const_cast<Operation *>(op), OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue,
        OperationEquivalence::IgnoreLocations);
  }
  static bool isEqual(const Operation *lhs, const Operation *rhs) {
    if (lhs == rhs)
      return true;
    if (lhs == getEmptyKey() || lhs == getTombstoneKey() ||
        rhs == getEmptyKey() || rhs == getTombstoneKey())
      return false;
    return OperationEquivalence::isEquivalentTo(
        const_cast<Operation *>(lhs), const_cast<Operation *>(rhs),
        OperationEquivalence::IgnoreLocations);
  }
};

/// Whether `op` reads memory and does nothing else, without regions.
bool isPlainRead(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && op->getNumRegions() == 0 &&
         effects.onlyHasEffect<MemoryEffects::Read>();
}

struct MergeReadsPass
    : public tilec::impl::TilecMergeReadsBase<MergeReadsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> merged;
    getOperation()->walk([&](Block *block) {
      // The reads since the last operation that may write.
      DenseSet<Operation *, ReadInfo> reads;
      for (Operation &op : *block) {
        if (isMemoryEffectFree(&op))
          continue;
        if (!isPlainRead(&op)) {
          reads.clear();
          continue;
        }
        auto [it, inserted] = reads.insert(&op);
        if (inserted)
          continue;
        op.replaceAllUsesWith(*it);
        merged.push_back(&op);
      }
    });
    for (Operation *op : merged)
      op->erase();
    if (merged.empty())
      markAllAnalysesPreserved();
  }
};

} // namespace
