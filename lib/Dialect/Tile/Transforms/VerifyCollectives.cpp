//===- VerifyCollectives.cpp - Tile ops reached by every thread -----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEVERIFYCOLLECTIVES
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec::tile;

namespace {

/// The innermost statement around `op`, inside its kernel or thread range,
/// whose threads may take different paths; null if there is none.
Operation *divergentAncestor(Operation *op) {
  for (Operation *parent = op->getParentOp();
       parent && !isa<KernelOp, ThreadRangeOp>(parent);
       parent = parent->getParentOp())
    if (hasDivergentControl(parent))
      return parent;
  return nullptr;
}

struct VerifyCollectivesPass
    : public tilec::tile::impl::TileVerifyCollectivesBase<
          VerifyCollectivesPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](Operation *op) {
      auto collective = dyn_cast<CollectiveOpInterface>(op);
      bool isBarrier = isa<gpu::BarrierOp>(op);
      if (!isBarrier && !(collective && collective.isCollective()))
        return WalkResult::advance();
      if (isBarrier && op->getParentOfType<ThreadRangeOp>()) {
        op->emitError() << "T.sync_threads() waits for every thread of the "
                           "block, which T.ws runs part of; "
                           "T.sync_threads(id, count) synchronizes the "
                           "threads of the T.ws";
        return WalkResult::interrupt();
      }
      Operation *divergent = divergentAncestor(op);
      if (!divergent)
        return WalkResult::advance();
      InFlightDiagnostic diag = op->emitError();
      if (isBarrier)
        diag << "T.sync_threads() waits for every thread of the block, but "
                "it is under a condition that differs between threads, so "
                "some would never arrive; T.sync_threads(id, count) "
                "synchronizes part of the block";
      else
        diag << "every thread of the block runs this tile operation "
                "together, but it is under a condition that differs between "
                "threads, so part of the block would skip its share: move it "
                "out of the condition";
      diag.attachNote(divergent->getLoc()) << "the condition is here";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
