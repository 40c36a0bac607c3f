//===- InsertBarriers.cpp - Block barriers between shared accesses --------===//
//
// Part of tilec. Walks the statements of each kernel in order, remembering
// the shared buffers read and written since the last barrier, and inserts a
// gpu.barrier before a statement that would race with them.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec::tile;

namespace {

/// Shared buffers read and written.
struct Accesses {
  llvm::DenseSet<Value> reads, writes;

  void merge(const Accesses &other) {
    reads.insert(other.reads.begin(), other.reads.end());
    writes.insert(other.writes.begin(), other.writes.end());
  }
  void clear() {
    reads.clear();
    writes.clear();
  }
  /// Whether a statement with `next`'s accesses races with these.
  bool conflictsWith(const Accesses &next) const {
    for (Value buffer : next.writes)
      if (reads.contains(buffer) || writes.contains(buffer))
        return true;
    for (Value buffer : next.reads)
      if (writes.contains(buffer))
        return true;
    return false;
  }
};

/// The buffer `def` (a subview or memory-space cast) views, or null.
Value viewedBuffer(Operation *def) {
  if (auto subview = dyn_cast<memref::SubViewOp>(def))
    return subview.getSource();
  if (auto cast = dyn_cast<memref::MemorySpaceCastOp>(def))
    return cast.getSource();
  return Value();
}

/// The shared buffer that `view` (a subview or cast of one, such as a
/// pipeline stage) is part of.
Value rootBuffer(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    Value viewed = viewedBuffer(def);
    if (!viewed)
      break;
    view = viewed;
  }
  return view;
}

/// Whether `view` is (a view of) a pipeline stage filled ahead.
bool isFilledAhead(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (def->hasAttr(kFilledAheadAttr))
      return true;
    view = viewedBuffer(def);
    if (!view)
      return false;
  }
  return false;
}

/// The shared buffers `op` and the ops it holds read and write. Async
/// copies and writes into stages filled ahead do not count: the pipelining
/// pass that issues them synchronizes them itself.
Accesses accessesOf(Operation *op) {
  Accesses result;
  op->walk([&](Operation *inner) {
    if (auto indexed = dyn_cast<IndexedAccessOpInterface>(inner);
        indexed && llvm::all_of(indexed.getIndexedAccesses(),
                                [](const IndexedAccess &access) {
                                  return access.isAsync;
                                }))
      return;
    if (auto copy = dyn_cast<CopyOp>(inner); copy && copy.getAsync())
      return;
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects)
      return;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      Value buffer = effect.getValue();
      if (!buffer || isFilledAhead(buffer))
        continue;
      buffer = rootBuffer(buffer);
      if (!isInScope(buffer.getType(), MemoryScope::Shared))
        continue;
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        result.reads.insert(buffer);
      else if (isa<MemoryEffects::Write>(effect.getEffect()))
        result.writes.insert(buffer);
    }
  });
  return result;
}

bool isLoop(Operation *op) {
  return isa<SerialOp, UnrollOp, PipelinedOp, scf::ForOp, scf::WhileOp>(op);
}

/// Whether `op` holds a read of shared memory through the async proxy: a
/// bulk copy, or, with `gemmsAreAsync`, a gemm (wgmma).
bool readsThroughAsyncProxy(Operation *op, bool gemmsAreAsync) {
  return op
      ->walk([&](Operation *inner) {
        auto copy = dyn_cast<CopyOp>(inner);
        if ((copy && copy.getBulk()) || (gemmsAreAsync && isa<GemmOp>(inner)))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Inserts a barrier before `op` among the threads that run it (the
/// block's, or the named barrier of its tile.thread_range), preceded by an
/// async-proxy fence when `op` reads shared memory through the async proxy.
void insertBarrierBefore(Operation *op, bool proxyFences) {
  OpBuilder b(op);
  if (readsThroughAsyncProxy(op, proxyFences))
    FenceAsyncSharedOp::create(b, op->getLoc());
  createScopeBarrier(b, op->getLoc(), threadScopeOf(op));
}

/// Whether `op` is a barrier of all the threads that run it.
bool isFullBarrier(Operation *op) {
  if (isa<gpu::BarrierOp>(op))
    return true;
  auto named = dyn_cast<NamedBarrierOp>(op);
  return named &&
         static_cast<int64_t>(named.getCount()) == threadScopeOf(op).count;
}

/// Processes the statements of `block` with `pending` accesses since the
/// last barrier, inserting barriers; leaves in `pending` what is unsynced
/// at the end. A barrier before a bulk copy, or with `proxyFences` before a
/// gemm, is preceded by an async-proxy fence, which orders each thread's
/// ordinary shared-memory writes before the async proxy's reads.
void synchronize(Block &block, Accesses &pending, bool proxyFences) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (op.hasTrait<mlir::OpTrait::IsTerminator>())
      continue;
    if (isFullBarrier(&op)) {
      pending.clear();
      continue;
    }
    Accesses own = accessesOf(&op);
    if (own.reads.empty() && own.writes.empty())
      continue;
    if (isLoop(&op) && !hasDivergentControl(&op)) {
      // What came before the loop is synchronized once, before it, rather
      // than at every iteration (FlashAttention's Q tile, written once and
      // read by every iteration's gemm).
      if (pending.conflictsWith(own)) {
        insertBarrierBefore(&op, proxyFences);
        pending.clear();
      }
      // An iteration starts with what the previous iteration left. A while
      // loop's condition runs before its body, and once more at the end.
      Accesses inner = pending;
      inner.merge(own);
      for (Region &region : op.getRegions())
        if (!region.empty())
          synchronize(region.front(), inner, proxyFences);
      pending.merge(inner);
      continue;
    }
    if (auto range = dyn_cast<ThreadRangeOp>(&op)) {
      // The range's statements synchronize among its threads; what it
      // accesses is not synchronized with the other threads until a
      // barrier of them all.
      if (pending.conflictsWith(own)) {
        insertBarrierBefore(&op, proxyFences);
        pending.clear();
      }
      Accesses inner;
      synchronize(range.getBody().front(), inner, proxyFences);
      pending.merge(own);
      continue;
    }
    if (auto split = dyn_cast<WarpSpecializeOp>(&op)) {
      // The producer only makes bulk copies, which the pipeline
      // synchronizes; the consumers' statements are synchronized as usual.
      synchronize(split.getConsumer().front(), pending, proxyFences);
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(&op);
        ifOp && !hasDivergentControl(ifOp)) {
      Accesses thenPending = pending, elsePending = pending;
      if (!ifOp.getThenRegion().empty())
        synchronize(ifOp.getThenRegion().front(), thenPending, proxyFences);
      if (!ifOp.getElseRegion().empty())
        synchronize(ifOp.getElseRegion().front(), elsePending, proxyFences);
      pending = thenPending;
      pending.merge(elsePending);
      continue;
    }
    if (pending.conflictsWith(own)) {
      insertBarrierBefore(&op, proxyFences);
      pending.clear();
    }
    pending.merge(own);
  }
}

struct InsertBarriersPass
    : public tilec::tile::impl::TileInsertBarriersBase<InsertBarriersPass> {
  using TileInsertBarriersBase::TileInsertBarriersBase;

  void runOnOperation() override {
    // wgmma reads shared memory through the async proxy.
    bool proxyFences =
        TargetAttr::lookup(getOperation()).has(TargetFeature::Wgmma);
    WalkResult result = getOperation().walk([&](KernelOp kernel) {
      return failed(insertBlockBarriers(kernel, proxyFences))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

LogicalResult tilec::tile::insertBlockBarriers(KernelOp kernel,
                                               bool proxyFences) {
  // Each range of threads takes a named barrier the kernel does not use
  // otherwise, from the last one down, so that ranges that run at once
  // never share one.
  llvm::SmallBitVector used(16);
  used.set(0);
  kernel.walk([&](NamedBarrierOp named) { used.set(named.getId()); });
  DenseMap<std::pair<int64_t, int64_t>, int64_t> ids;
  int64_t next = 15;
  WalkResult result = kernel.walk([&](ThreadRangeOp range) {
    ThreadScope own = threadScopeOf(range);
    int64_t &id = ids[{own.first, own.count}];
    if (!id) {
      while (next > 0 && used.test(next))
        --next;
      if (next == 0) {
        range.emitError() << "the kernel's ranges of threads need more named "
                             "barriers than the 15 that T.sync_threads(id, "
                             "count) leaves free";
        return WalkResult::interrupt();
      }
      id = next--;
    }
    range.setBarrierId(id);
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  Accesses pending;
  synchronize(kernel.getBody().front(), pending, proxyFences);
  return success();
}
