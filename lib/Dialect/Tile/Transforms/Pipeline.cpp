//===- Pipeline.cpp - Overlap global-to-shared copies with compute --------===//
//
// Part of tilec. Software-pipelines T.Pipelined loops: the copies of a loop
// body from global to shared memory are issued num_stages - 1 iterations
// ahead, as asynchronous copies into num_stages copies of their shared
// buffers, so that the loads of later iterations overlap the compute of
// the current one. Each iteration waits for the copies it consumes and
// synchronizes the block once:
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
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

class LoopPipeliner {
public:
  LoopPipeliner(PipelinedOp loop, int64_t stages)
      : loop(loop), stages(stages), body(loop.getBody().front()) {}

  /// Pipelines the loop if it has copies to issue ahead.
  void run();

private:
  /// Issues the producers for iteration `k` into stage `stage`, if
  /// `k < upper bound`, then commits them as one group.
  void issue(OpBuilder &b, Location loc, Value k, Value stage);

  PipelinedOp loop;
  int64_t stages;
  Block &body;
  SmallVector<Producer> producers;
  DenseMap<Operation *, Value> multiBuffers;
};

void LoopPipeliner::issue(OpBuilder &b, Location loc, Value k, Value stage) {
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k,
                                        loop.getUpperBound());
  auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    for (Producer &producer : producers) {
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), k);
      mapping.map(
          producer.buffer.getResult(),
          stageView(b, loc, multiBuffers.lookup(producer.buffer), stage));
      for (Operation *op : producer.slice)
        b.clone(*op, mapping);
      auto copy = cast<CopyOp>(b.clone(*producer.copy, mapping));
      copy.setAsync(true);
    }
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
}

void LoopPipeliner::run() {
  for (Operation &op : body.without_terminator())
    if (auto copy = dyn_cast<CopyOp>(op))
      if (std::optional<Producer> producer = asProducer(loop, copy))
        producers.push_back(*producer);
  if (producers.empty())
    return;

  Location loc = loop.getLoc();
  // num_stages copies of each buffer, allocated where it was.
  for (Producer &producer : producers) {
    OpBuilder b(producer.buffer);
    MemRefType type = producer.buffer.getType();
    SmallVector<int64_t> shape = {stages};
    llvm::append_range(shape, type.getShape());
    auto multiType =
        MemRefType::get(shape, type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    Value multi = AllocSharedOp::create(
        b, producer.buffer.getLoc(), TypeRange{multiType}, ValueRange{},
        producer.buffer->getDiscardableAttrDictionary().getValue());
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

  // Prologue: the first num_stages - 1 iterations' copies.
  OpBuilder b(loop);
  for (int64_t s = 0; s + 1 < stages; ++s) {
    Value k = b.createOrFold<arith::AddIOp>(
        loc, loop.getLowerBound(), arith::ConstantIndexOp::create(b, loc, s));
    issue(b, loc, k, arith::ConstantIndexOp::create(b, loc, s));
  }

  // The body: wait, synchronize, copy ahead, then compute on this stage.
  b.setInsertionPointToStart(&body);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, stages - 2);
  gpu::BarrierOp::create(b, loc);
  Value iteration = arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                          loop.getLowerBound());
  Value numStages = arith::ConstantIndexOp::create(b, loc, stages);
  Value ahead = arith::ConstantIndexOp::create(b, loc, stages - 1);
  Value aheadStage = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, iteration, ahead), numStages);
  issue(b, loc, arith::AddIOp::create(b, loc, loop.getInductionVar(), ahead),
        aheadStage);
  Value current = arith::RemUIOp::create(b, loc, iteration, numStages);
  for (Producer &producer : producers) {
    Value view =
        stageView(b, loc, multiBuffers.lookup(producer.buffer), current);
    producer.copy.erase();
    producer.buffer.getResult().replaceUsesWithIf(
        view, [&](OpOperand &use) { return loop->isAncestor(use.getOwner()); });
  }
  for (Producer &producer : producers)
    producer.buffer.erase();

  // Epilogue: nothing left in flight after the loop.
  b.setInsertionPointAfter(loop);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
}

struct PipelinePass : public tilec::tile::impl::TilePipelineBase<PipelinePass> {
  using TilePipelineBase::TilePipelineBase;

  void runOnOperation() override {
    if (!asyncCopies)
      return;
    SmallVector<PipelinedOp> loops;
    getOperation().walk([&](PipelinedOp loop) {
      if (loop.getNumStages() >= 2)
        loops.push_back(loop);
    });
    for (PipelinedOp loop : loops)
      LoopPipeliner(loop, loop.getNumStages()).run();
  }
};

} // namespace
