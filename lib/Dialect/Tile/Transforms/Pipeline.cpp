//===- Pipeline.cpp - Overlap global-to-shared copies with compute --------===//
//
// Part of tilec. Software-pipelines T.Pipelined loops: the copies of a loop
// body from global to shared memory are issued num_stages - 1 iterations
// ahead into num_stages copies of their shared buffers, so that the loads
// of later iterations overlap the compute of the current one.
//
// With cp.async (sm_80 and later), each iteration waits for the copies it
// consumes and synchronizes the block once:
//
//   prologue:  for s < num_stages - 1: copy iteration s into stage s; commit
//   loop k:    wait until at most num_stages - 2 copy groups are pending
//              barrier
//              copy iteration k + num_stages - 1 into its stage; commit
//              the rest of the body, reading stage k % num_stages
//   epilogue:  wait for all copies
//
// The barrier makes iteration k's stage visible to every thread and tells
// each thread that the others are done with the stage it is about to
// overwrite, which the previous iteration read.
//
// With the bulk tensor copy engine (sm_90), one thread issues each stage's
// copies, which complete on that stage's mbarrier:
//
//   prologue:  init one mbarrier per stage; for s < num_stages - 1: arm
//              barrier s with the stage's bytes, copy iteration s into it
//   loop k:    wait for barrier k % num_stages (phase k / num_stages)
//              the rest of the body, reading stage k % num_stages
//              barrier
//              arm and copy iteration k + num_stages - 1 into its stage
//
// Here the block barrier comes last: it tells the issuing thread that
// every thread is done with the stage the next copy overwrites, the one
// the previous iteration read, and the mbarrier alone publishes the data.
//
// Without asynchronous copies (AMD), the next iteration's tiles wait in
// registers while the current one computes, over two stages:
//
//   prologue:  copy iteration 0 into stage 0
//   loop k:    load iteration k + 1 into a fragment per buffer
//              the rest of the body, reading stage k % 2
//              store the fragments into stage (k + 1) % 2
//              barrier
//
// The store overwrites the stage iteration k - 1 read, which every thread
// finished before the previous barrier; this barrier publishes it to
// iteration k + 1. tile-insert-barriers leaves the stores to the pipeline
// (their stage views carry kFilledAheadAttr), as it does async copies.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"
#include "tilec/Warnings.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// A copy of the loop body that the pipeline issues ahead: its shared
/// buffer and the side-effect-free ops of the body that compute its
/// operands.
struct Producer {
  CopyOp copy;
  AllocSharedOp buffer;
  SmallVector<Operation *> slice;
};

/// The op in `block` that holds `op`, or null.
Operation *inBlock(Block &block, Operation *op) {
  return block.findAncestorOpInBlock(*op);
}

/// Whether `copy`, a statement of `loop`, can be issued ahead: it copies
/// global memory into a whole shared buffer that nothing else writes and
/// that only `loop`'s body reads, and its operands are computed by pure
/// ops of the body (or outside it).
std::optional<Producer> asProducer(PipelinedOp loop, CopyOp copy) {
  if (!isInScope(copy.getSource().getType(), MemoryScope::Global))
    return std::nullopt;
  auto buffer = copy.getDest().getDefiningOp<AllocSharedOp>();
  if (!buffer)
    return std::nullopt;
  Block &body = loop.getBody().front();
  for (Operation *user : buffer->getUsers()) {
    if (user == copy || isa<AnnotateLayoutOp>(user))
      continue;
    if (!inBlock(body, user))
      return std::nullopt;
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects || effects.getEffectOnValue<MemoryEffects::Write>(buffer))
      return std::nullopt;
  }
  Producer producer{copy, buffer, {}};
  BackwardSliceOptions options;
  options.inclusive = false;
  bool pure = true;
  options.filter = [&](Operation *op) {
    if (op->getBlock() != &body)
      return false;
    if (op == copy)
      return true;
    if (!isMemoryEffectFree(op) || op->getNumRegions() != 0)
      pure = false;
    return true;
  };
  llvm::SetVector<Operation *> slice;
  if (failed(getBackwardSlice(copy.getOperation(), &slice, options)) || !pure)
    return std::nullopt;
  producer.slice.assign(slice.begin(), slice.end());
  return producer;
}

/// Whether the bulk tensor copy engine can make `producer`'s copy: the
/// whole tile, from a region qualifiesForTma accepts.
bool qualifiesForTma(Producer &producer, std::optional<PanelledTile> &tile) {
  CopyOp copy = producer.copy;
  MemRefType dstType = producer.buffer.getType();
  if (copy.getNoTma() || copy.getDestExtents() != dstType.getShape() ||
      llvm::any_of(copy.getMixedDestOffsets(),
                   [](OpFoldResult o) { return getConstantIntValue(o) != 0; }))
    return false;
  return tilec::tile::qualifiesForTma(copy.getSource(), copy.getSourceExtents(),
                                      producer.buffer, tile);
}

/// Stage `stage` of a multi-buffered shared allocation, as a buffer of the
/// original shape.
Value stageView(OpBuilder &b, Location loc, Value buffers, Value stage) {
  auto type = cast<MemRefType>(buffers.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[0] = stage;
  SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t extent : type.getShape().drop_front())
    sizes.push_back(b.getIndexAttr(extent));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), buffers,
                                   offsets, sizes, strides);
}

/// A whole-buffer copy of `source` into `dest`.
CopyOp createWholeCopy(OpBuilder &b, Location loc, Value source, Value dest) {
  auto zeros = [&](Value buffer) {
    return b.getDenseI64ArrayAttr(
        SmallVector<int64_t>(cast<MemRefType>(buffer.getType()).getRank(), 0));
  };
  auto shape = [&](Value buffer) {
    return b.getDenseI64ArrayAttr(
        cast<MemRefType>(buffer.getType()).getShape());
  };
  return CopyOp::create(b, loc, source, ValueRange{}, zeros(source),
                        shape(source), dest, ValueRange{}, zeros(dest),
                        shape(dest), /*async=*/UnitAttr(), /*bulk=*/UnitAttr(),
                        /*barrier=*/Value(), /*barrier_index=*/Value());
}

/// Whether `producer`'s copy fills its whole buffer.
bool fillsWholeBuffer(Producer producer) {
  CopyOp copy = producer.copy;
  return copy.getDestExtents() == producer.buffer.getType().getShape() &&
         llvm::all_of(copy.getMixedDestOffsets(), [](OpFoldResult o) {
           return getConstantIntValue(o) == 0;
         });
}

class LoopPipeliner {
public:
  LoopPipeliner(PipelinedOp loop, int64_t stages, bool tma, bool proxyFence,
                bool warpSpecialize, int64_t sharedMemoryLimit = 0)
      : loop(loop), stages(stages), body(loop.getBody().front()), tma(tma),
        proxyFence(proxyFence), warpSpecialize(warpSpecialize),
        sharedMemoryLimit(sharedMemoryLimit) {}

  /// Pipelines the loop if it has copies to issue ahead.
  void run();
  /// Pipelines the loop through registers if it has whole-buffer copies to
  /// issue ahead (targets without asynchronous copies).
  void runThroughRegisters();

private:
  /// Finds the copies the loop can issue ahead, keeping those `accept`
  /// takes; false if there are none.
  bool findProducers(function_ref<bool(Producer)> accept);
  /// Gives each producer's buffer `stages` copies (annotated layouts carry
  /// over); the TMA ones in the layout TMA writes.
  void multiBufferProducers();
  /// The statements before the loop that the consumers alone may run: those
  /// with effects or regions and what depends on them (allocations and
  /// annotations excepted). Fails when the loop cannot be split over a
  /// producer warpgroup: it is not a statement of its kernel, the kernel is
  /// not whole warpgroups in one dimension, or what the producer computes
  /// depends on such a statement.
  FailureOr<SmallVector<Operation *>> planWarpSpecialization();
  /// Runs the copies on a producer warpgroup and the rest on the kernel's
  /// threads (tile.warp_specialize); `consumerOnly` are the statements
  /// before the loop that move to the consumers.
  void runWarpSpecialized(ArrayRef<Operation *> consumerOnly);
  /// Replaces the producers' buffers in the loop with their stage
  /// `current`, and erases the producers; leaves `b` after the stage
  /// views.
  void useStages(OpBuilder &b, Location loc, Value current);
  /// Issues the producers for iteration `k` into stage `stage`, if
  /// `k < upper bound`: as one cp.async group, or as bulk copies on the
  /// stage's mbarrier, armed with their bytes.
  void issue(OpBuilder &b, Location loc, Value k, Value stage);
  /// Clones the producers for iteration `k` into stage `stage`, as async
  /// copies, completing on `barrier[stage]` when `barrier` is given.
  void cloneProducers(OpBuilder &b, Location loc, Value k, Value stage,
                      Value barrier);
  /// Arms `barrier[stage]` with the bytes of one stage of the producers'
  /// copies.
  void armStage(OpBuilder &b, Location loc, Value barrier, Value stage);

  PipelinedOp loop;
  int64_t stages;
  Block &body;
  bool tma;
  bool proxyFence;
  bool warpSpecialize;
  /// The shared memory a block may have, in bytes; 0 for no limit.
  int64_t sharedMemoryLimit;
  SmallVector<Producer> producers;
  DenseMap<Operation *, Value> multiBuffers;
  /// With TMA: one mbarrier per stage, and the first thread of the block.
  Value barriers, firstThread;
};

void LoopPipeliner::cloneProducers(OpBuilder &b, Location loc, Value k,
                                   Value stage, Value barrier) {
  for (Producer &producer : producers) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), k);
    mapping.map(producer.buffer.getResult(),
                stageView(b, loc, multiBuffers.lookup(producer.buffer), stage));
    for (Operation *op : producer.slice)
      b.clone(*op, mapping);
    auto copy = cast<CopyOp>(b.clone(*producer.copy, mapping));
    copy.setAsync(true);
    if (barrier) {
      copy.getBarrierMutable().assign(barrier);
      copy.getBarrierIndexMutable().assign(stage);
    }
  }
}

void LoopPipeliner::armStage(OpBuilder &b, Location loc, Value barrier,
                             Value stage) {
  int64_t bytes = 0;
  for (Producer &producer : producers) {
    MemRefType type = producer.buffer.getType();
    bytes += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  }
  MBarrierArriveOp::create(b, loc, barrier, stage, b.getI64IntegerAttr(bytes));
}

void LoopPipeliner::issue(OpBuilder &b, Location loc, Value k, Value stage) {
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k,
                                        loop.getUpperBound());
  auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    if (tma) {
      // The stage's bytes are what its barrier waits for, then.
      auto arm = scf::IfOp::create(b, loc, firstThread, false);
      OpBuilder ab = OpBuilder::atBlockBegin(&arm.getThenRegion().front());
      armStage(ab, loc, barriers, stage);
    }
    cloneProducers(b, loc, k, stage, tma ? barriers : Value());
  }
  if (!tma)
    AsyncCommitGroupOp::create(b, loc);
}

bool LoopPipeliner::findProducers(function_ref<bool(Producer)> accept) {
  for (Operation &op : body.without_terminator())
    if (auto copy = dyn_cast<CopyOp>(op))
      if (std::optional<Producer> producer = asProducer(loop, copy))
        if (accept(*producer))
          producers.push_back(*producer);
  return !producers.empty();
}

void LoopPipeliner::multiBufferProducers() {
  // The bulk copy engine takes all of the loop's copies or none.
  SmallVector<std::optional<PanelledTile>> tiles(producers.size());
  for (auto [producer, tile] : llvm::zip(producers, tiles))
    tma = tma && qualifiesForTma(producer, tile);

  // num_stages copies of each buffer, allocated where it was; those the
  // bulk copy engine fills in the layout it writes.
  for (auto [producer, tile] : llvm::zip(producers, tiles)) {
    OpBuilder b(producer.buffer);
    MemRefType type = producer.buffer.getType();
    SmallVector<int64_t> shape = {stages};
    llvm::append_range(shape, type.getShape());
    auto multiType =
        MemRefType::get(shape, type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    auto multi = AllocSharedOp::create(
        b, producer.buffer.getLoc(), TypeRange{multiType}, ValueRange{},
        producer.buffer->getDiscardableAttrDictionary().getValue());
    if (tma && tile)
      multi.setLayoutAttr(makePanelledLayout(b.getContext(), shape, *tile));
    multiBuffers[producer.buffer] = multi;
    // An annotated layout carries over to every stage.
    for (Operation *user :
         llvm::make_early_inc_range(producer.buffer->getUsers())) {
      auto annotate = dyn_cast<AnnotateLayoutOp>(user);
      if (!annotate)
        continue;
      OpBuilder ab(annotate);
      Attribute layout = annotate.getLayout();
      if (auto shared = dyn_cast<SharedLayoutAttr>(layout))
        layout = SharedLayoutAttr::get(b.getContext(), shape,
                                       getRowMajorMap(b.getContext(), shape),
                                       shared.getSwizzle());
      AnnotateLayoutOp::create(ab, annotate.getLoc(), multi, layout);
      annotate.erase();
    }
  }
}

void LoopPipeliner::run() {
  if (!findProducers([](Producer) { return true; }))
    return;
  multiBufferProducers();
  Location loc = loop.getLoc();
  if (tma && warpSpecialize) {
    FailureOr<SmallVector<Operation *>> consumerOnly = planWarpSpecialization();
    if (succeeded(consumerOnly)) {
      runWarpSpecialized(*consumerOnly);
      return;
    }
  }

  OpBuilder b(loop);
  if (tma) {
    // One mbarrier per stage, initialized by one thread for one arrival
    // (the arming) plus the copies' bytes. The barrier before makes a loop
    // entered again wait until no thread still waits on the old phases.
    auto kernel = loop->getParentOfType<KernelOp>();
    auto type = MemRefType::get(
        {stages}, b.getI64Type(), MemRefLayoutAttrInterface(),
        MemoryScopeAttr::get(b.getContext(), MemoryScope::Shared));
    barriers = AllocSharedOp::create(
        b, NameLoc::get(b.getStringAttr("mbarriers"), loc), type,
        SharedLayoutAttr());
    firstThread = emitIsFirstThread(b, loc, kernel.getThreads());
    gpu::BarrierOp::create(b, loc);
    auto init = scf::IfOp::create(b, loc, firstThread, false);
    {
      OpBuilder ib = OpBuilder::atBlockBegin(&init.getThenRegion().front());
      for (int64_t s = 0; s < stages; ++s)
        MBarrierInitOp::create(ib, loc, barriers,
                               arith::ConstantIndexOp::create(ib, loc, s),
                               ib.getI64IntegerAttr(1));
    }
    gpu::BarrierOp::create(b, loc);
  }

  // Prologue: the first num_stages - 1 iterations' copies.
  for (int64_t s = 0; s + 1 < stages; ++s) {
    Value k = b.createOrFold<arith::AddIOp>(
        loc, loop.getLowerBound(), arith::ConstantIndexOp::create(b, loc, s));
    issue(b, loc, k, arith::ConstantIndexOp::create(b, loc, s));
  }

  // The body: wait, synchronize, copy ahead, then compute on this stage
  // (cp.async); or wait, compute, synchronize, copy ahead (TMA).
  b.setInsertionPointToStart(&body);
  if (!tma) {
    AsyncWaitGroupOp::create(b, loc, stages - 2);
    // cp.async writes through the generic proxy; wgmma reads through the
    // async one.
    if (proxyFence)
      FenceAsyncSharedOp::create(b, loc);
    gpu::BarrierOp::create(b, loc);
  }
  Value iteration = arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                          loop.getLowerBound());
  Value numStages = arith::ConstantIndexOp::create(b, loc, stages);
  Value ahead = arith::ConstantIndexOp::create(b, loc, stages - 1);
  Value aheadStage = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, iteration, ahead), numStages);
  Value aheadK = arith::AddIOp::create(b, loc, loop.getInductionVar(), ahead);
  Value current;
  if (tma) {
    current = arith::RemUIOp::create(b, loc, iteration, numStages);
    Value round = arith::DivUIOp::create(b, loc, iteration, numStages);
    MBarrierWaitOp::create(b, loc, barriers, current, round);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(body.getTerminator());
    gpu::BarrierOp::create(b, loc);
    issue(b, loc, aheadK, aheadStage);
  } else {
    issue(b, loc, aheadK, aheadStage);
    current = arith::RemUIOp::create(b, loc, iteration, numStages);
  }
  useStages(b, loc, current);

  // Epilogue: nothing left in flight after the loop. Bulk copies are only
  // issued for iterations that wait for them.
  if (!tma) {
    b.setInsertionPointAfter(loop);
    AsyncWaitGroupOp::create(b, loc, 0);
  }
}

void LoopPipeliner::runThroughRegisters() {
  stages = 2;
  if (!findProducers(fillsWholeBuffer))
    return;
  // A second stage of every tile must fit beside the kernel's other
  // buffers, laid out as tile-to-gpu will; a loop that would not fit keeps
  // one stage and runs as written.
  if (sharedMemoryLimit > 0) {
    Operation *scope = loop->getParentOfType<KernelOp>();
    if (!scope)
      scope = loop->getParentOfType<func::FuncOp>();
    int64_t total = 0;
    scope->walk([&](AllocSharedOp alloc) {
      bool staged = llvm::any_of(
          producers, [&](Producer &p) { return p.buffer == alloc; });
      total = llvm::alignTo(total, getSharedAlignment(alloc)) +
              getSharedBytes(alloc) * (staged ? 2 : 1);
    });
    if (total > sharedMemoryLimit) {
      loop.emitWarning()
          << "T.Pipelined runs unpipelined: a second stage of its tiles "
             "would take the shared memory to "
          << total << " bytes, more than the target's " << sharedMemoryLimit
          << getWarningTag(Warning::Unpipelined);
      return;
    }
  }
  multiBufferProducers();
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto index = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ob, loc, v);
  };
  // Clones, for iteration `k`, each producer's operands and its copy from
  // global memory, its destination mapped to `dest`.
  auto cloneCopies = [&](OpBuilder &ob, Value k,
                         function_ref<Value(Producer &)> dest) {
    for (Producer &producer : producers) {
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), k);
      mapping.map(producer.buffer.getResult(), dest(producer));
      for (Operation *op : producer.slice)
        ob.clone(*op, mapping);
      ob.clone(*producer.copy, mapping);
    }
  };
  auto ifInRange = [&](OpBuilder &ob, Value k) {
    Value inRange = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::slt, k,
                                          loop.getUpperBound());
    return scf::IfOp::create(ob, loc, inRange, /*withElseRegion=*/false);
  };

  // A fragment per buffer holds the next iteration's tile.
  DenseMap<Operation *, Value> staging;
  for (Producer &producer : producers) {
    OpBuilder ab(multiBuffers.lookup(producer.buffer).getDefiningOp());
    MemRefType type = producer.buffer.getType();
    auto fragmentType = MemRefType::get(
        type.getShape(), type.getElementType(), MemRefLayoutAttrInterface(),
        MemoryScopeAttr::get(b.getContext(), MemoryScope::Fragment));
    // Named after its buffer, for --emit=layouts and diagnostics.
    Location fragmentLoc = producer.buffer.getLoc();
    if (auto name = dyn_cast<NameLoc>(fragmentLoc))
      fragmentLoc =
          NameLoc::get(b.getStringAttr(name.getName().getValue() + "_next"),
                       name.getChildLoc());
    staging[producer.buffer] = AllocFragmentOp::create(
        ab, fragmentLoc, fragmentType, FragmentLayoutAttr());
  }

  // Prologue: the first iteration's tiles, into stage 0.
  {
    auto first = ifInRange(b, loop.getLowerBound());
    OpBuilder fb(first.getThenRegion().front().getTerminator());
    cloneCopies(fb, loop.getLowerBound(), [&](Producer &producer) {
      return stageView(fb, loc, multiBuffers.lookup(producer.buffer),
                       index(fb, 0));
    });
  }

  // The loop: load ahead into the fragments, compute, store them into the
  // other stage, synchronize.
  b.setInsertionPointToStart(&body);
  Value iteration = arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                          loop.getLowerBound());
  Value next =
      arith::AddIOp::create(b, loc, loop.getInductionVar(), index(b, 1));
  {
    auto load = ifInRange(b, next);
    OpBuilder lb(load.getThenRegion().front().getTerminator());
    cloneCopies(lb, next, [&](Producer &producer) {
      return staging.lookup(producer.buffer);
    });
  }
  Value current = arith::RemUIOp::create(b, loc, iteration, index(b, 2));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(body.getTerminator());
    Value other = arith::SubIOp::create(b, loc, index(b, 1), current);
    auto store = ifInRange(b, next);
    OpBuilder sb(store.getThenRegion().front().getTerminator());
    for (Producer &producer : producers) {
      Value stage =
          stageView(sb, loc, multiBuffers.lookup(producer.buffer), other);
      stage.getDefiningOp()->setAttr(kFilledAheadAttr, sb.getUnitAttr());
      createWholeCopy(sb, loc, staging.lookup(producer.buffer), stage);
    }
    // wgmma reads the stores through the async proxy.
    if (proxyFence)
      FenceAsyncSharedOp::create(b, loc);
    gpu::BarrierOp::create(b, loc);
  }
  useStages(b, loc, current);
}

void LoopPipeliner::useStages(OpBuilder &b, Location loc, Value current) {
  SmallVector<Value> views;
  for (Producer &producer : producers)
    views.push_back(
        stageView(b, loc, multiBuffers.lookup(producer.buffer), current));
  // Only then are the copies erased: the builder may insert before one of
  // them (the body's first op, when the loop computes nothing for its
  // operands).
  for (auto [producer, view] : llvm::zip(producers, views)) {
    producer.copy.erase();
    producer.buffer.getResult().replaceUsesWithIf(
        view, [&](OpOperand &use) { return loop->isAncestor(use.getOwner()); });
  }
  for (Producer &producer : producers)
    producer.buffer.erase();
  b.setInsertionPointAfterValue(views.back());
}

FailureOr<SmallVector<Operation *>> LoopPipeliner::planWarpSpecialization() {
  // Two consumer warpgroups or more: a single one keeps the first thread
  // issuing, as its blocks are small enough for several to share a
  // multiprocessor, which hides the copies better than a producer.
  auto kernel = dyn_cast<KernelOp>(loop->getParentOp());
  if (!kernel || kernel.getThreads().size() != 1 ||
      kernel.getThreads()[0] % 128 != 0 || kernel.getThreads()[0] < 256)
    return failure();
  // One split per kernel, and none where the kernel specializes its
  // threads itself.
  if (kernel
          .walk([](Operation *op) {
            return isa<WarpSpecializeOp, ThreadRangeOp>(op)
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted())
    return failure();
  SmallVector<Operation *> consumerOnly;
  llvm::SmallPtrSet<Operation *, 16> moved;
  for (Operation &op : kernel.getBody().front()) {
    if (&op == loop.getOperation())
      break;
    if (isa<AllocSharedOp, AllocFragmentOp, AllocLocalOp, AllocVarOp,
            AnnotateLayoutOp, UseSwizzleOp>(op))
      continue;
    bool dependent = llvm::any_of(op.getOperands(), [&](Value v) {
      return v.getDefiningOp() && moved.contains(v.getDefiningOp());
    });
    if (dependent || !isMemoryEffectFree(&op) || op.getNumRegions() != 0) {
      moved.insert(&op);
      consumerOnly.push_back(&op);
    }
  }
  // What the producer uses from before the loop must stay for it.
  auto available = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return !def || !moved.contains(def);
  };
  if (!available(loop.getLowerBound()) || !available(loop.getUpperBound()))
    return failure();
  auto producerCanCompute = [&](Operation *op) {
    return llvm::all_of(op->getOperands(), [&](Value operand) {
      return loop->isAncestor(operand.getParentBlock()->getParentOp()) ||
             available(operand);
    });
  };
  for (Producer &producer : producers)
    if (!producerCanCompute(producer.copy) ||
        !llvm::all_of(producer.slice, producerCanCompute))
      return failure();
  return consumerOnly;
}

void LoopPipeliner::runWarpSpecialized(ArrayRef<Operation *> consumerOnly) {
  auto kernel = cast<KernelOp>(loop->getParentOp());
  int64_t consumers = kernel.getThreads()[0];
  Location loc = loop.getLoc();
  MLIRContext *context = loop.getContext();
  OpBuilder b(loop);
  auto barrierType =
      MemRefType::get({stages}, b.getI64Type(), MemRefLayoutAttrInterface(),
                      MemoryScopeAttr::get(context, MemoryScope::Shared));
  // `full[s]`: stage s holds its copies (one arrival, the arming, plus the
  // bytes); `empty[s]`: every consumer is done with it.
  Value full = AllocSharedOp::create(
      b, NameLoc::get(b.getStringAttr("full_barriers"), loc), barrierType,
      SharedLayoutAttr());
  Value empty = AllocSharedOp::create(
      b, NameLoc::get(b.getStringAttr("empty_barriers"), loc), barrierType,
      SharedLayoutAttr());
  // Every thread of the block, producer warpgroup included, runs this.
  Value first = emitIsFirstThread(b, loc, {consumers + 128});
  gpu::BarrierOp::create(b, loc);
  auto init = scf::IfOp::create(b, loc, first, false);
  {
    OpBuilder ib = OpBuilder::atBlockBegin(&init.getThenRegion().front());
    for (int64_t s = 0; s < stages; ++s) {
      Value stage = arith::ConstantIndexOp::create(ib, loc, s);
      MBarrierInitOp::create(ib, loc, full, stage, ib.getI64IntegerAttr(1));
      MBarrierInitOp::create(ib, loc, empty, stage,
                             ib.getI64IntegerAttr(consumers));
    }
  }
  gpu::BarrierOp::create(b, loc);

  auto split = WarpSpecializeOp::create(b, loc);
  for (Region *region : {&split.getProducer(), &split.getConsumer()}) {
    region->push_back(new Block());
    OpBuilder rb = OpBuilder::atBlockEnd(&region->front());
    YieldOp::create(rb, loc);
  }

  // The consumers: the statements before the loop that need them, the loop,
  // and the rest of the kernel.
  Block &consumer = split.getConsumer().front();
  for (Operation *op : consumerOnly)
    op->moveBefore(consumer.getTerminator());
  Block &kernelBody = kernel.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(Block::iterator(loop.getOperation()),
                            Block::iterator(kernelBody.getTerminator()))))
    op.moveBefore(consumer.getTerminator());

  auto index = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ob, loc, v);
  };

  // The producer: for every iteration, once the consumers have released
  // the stage (from the second round on), arm it and issue its copies.
  {
    OpBuilder pb(split.getProducer().front().getTerminator());
    auto issueLoop = scf::ForOp::create(pb, loc, loop.getLowerBound(),
                                        loop.getUpperBound(), index(pb, 1));
    OpBuilder lb = OpBuilder::atBlockBegin(issueLoop.getBody());
    Value k = issueLoop.getInductionVar();
    Value iteration = arith::SubIOp::create(lb, loc, k, loop.getLowerBound());
    Value stage = arith::RemUIOp::create(lb, loc, iteration, index(lb, stages));
    Value round = arith::DivUIOp::create(lb, loc, iteration, index(lb, stages));
    Value reused = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::uge,
                                         iteration, index(lb, stages));
    auto reuse = scf::IfOp::create(lb, loc, reused, false);
    {
      OpBuilder rb = OpBuilder::atBlockBegin(&reuse.getThenRegion().front());
      // The round before this one released it.
      MBarrierWaitOp::create(
          rb, loc, empty, stage,
          arith::SubIOp::create(rb, loc, round, index(rb, 1)));
    }
    armStage(lb, loc, full, stage);
    cloneProducers(lb, loc, k, stage, full);
  }

  // The loop: wait until the stage is full, compute, release it.
  b.setInsertionPointToStart(&body);
  Value iteration = arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                          loop.getLowerBound());
  Value current = arith::RemUIOp::create(b, loc, iteration, index(b, stages));
  Value round = arith::DivUIOp::create(b, loc, iteration, index(b, stages));
  MBarrierWaitOp::create(b, loc, full, current, round);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(body.getTerminator());
    MBarrierArriveOp::create(b, loc, empty, current, IntegerAttr());
  }
  useStages(b, loc, current);
}

/// Whether `loop` runs on part of the block, or holds code that does: its
/// stages would be the threads' of the range, which the pipeline's
/// barriers and copies do not tell apart yet, so it runs as written.
bool hasThreadRanges(PipelinedOp loop) {
  return loop->getParentOfType<ThreadRangeOp>() ||
         loop.getBody()
             .walk([](ThreadRangeOp) { return WalkResult::interrupt(); })
             .wasInterrupted();
}

struct PipelinePass : public tilec::tile::impl::TilePipelineBase<PipelinePass> {
  using TilePipelineBase::TilePipelineBase;

  void runOnOperation() override {
    TargetAttr target = TargetAttr::lookup(getOperation());
    bool asyncCopies = target.has(TargetFeature::AsyncCopy);
    bool tma = target.has(TargetFeature::Tma);
    bool warpSpecialize = tma && target.has(TargetFeature::WarpSpecialization);
    // The schedule is this pass's own: a hand-written order and stage,
    // which name the body's statements as written, would no longer match
    // the body once it is pipelined or its copies are lowered.
    SmallVector<PipelinedOp> loops;
    getOperation().walk([&](PipelinedOp loop) {
      loop.removeOrderAttr();
      loop.removeStageAttr();
      if (loop.getNumStages() >= 2 && !hasThreadRanges(loop))
        loops.push_back(loop);
    });
    if (!asyncCopies && !registerStages)
      return;
    for (PipelinedOp loop : loops) {
      // wgmma reads shared memory through the async proxy, which cp.async's
      // writes must be fenced for.
      LoopPipeliner pipeliner(loop, loop.getNumStages(), tma && asyncCopies,
                              /*proxyFence=*/target.has(TargetFeature::Wgmma),
                              warpSpecialize, target.getSharedMemory());
      if (asyncCopies)
        pipeliner.run();
      else
        pipeliner.runThroughRegisters();
    }
  }
};

} // namespace
