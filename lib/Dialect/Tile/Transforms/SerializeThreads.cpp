//===- SerializeThreads.cpp - Thread-level code one thread at a time -----===//
//
// Part of tilec. For targets that run a block on one thread: the stretches
// of a kernel's thread-level statements between barriers become loops over
// the block's threads, shuffles become exchanges through memory, and what
// a thread keeps across stretches (its own buffers, values) gets a copy
// per thread.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILESERIALIZETHREADS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Statements of the whole block, which run once.
bool isBlockWide(Operation *op) {
  return isa<ParallelOp, GemmOp, ReduceOp, CopyOp, FillOp, ClearOp,
             AnnotateLayoutOp, WarpSpecializeOp>(op);
}

/// A barrier among part of the block (named) or of a warp. On one thread,
/// where the threads that meet it run one after another, it is a barrier
/// of the whole block.
bool isPartialBarrier(Operation *op) {
  return isa<NamedBarrierOp, WarpBarrierOp>(op);
}

bool isBarrier(Operation *op) {
  return isa<gpu::BarrierOp>(op) || isPartialBarrier(op);
}

/// Whether `op` is or holds an op that `matches`.
bool holds(Operation *op, function_ref<bool(Operation *)> matches) {
  return op
      ->walk([&](Operation *inner) {
        return matches(inner) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether `op` is or holds what ends a stretch of thread-level code: a
/// barrier, a block-wide statement, or code part of the block runs (whose
/// stretches loop over its threads only).
bool endsStretch(Operation *op) {
  return holds(op, [](Operation *inner) {
    return isBarrier(inner) || isBlockWide(inner) || isa<ThreadRangeOp>(inner);
  });
}

/// Gives each range of threads that uses a fragment its own: on a GPU the
/// threads of each hold their own registers, where one thread runs them
/// all here.
void splitRangeFragments(KernelOp kernel) {
  SmallVector<AllocFragmentOp> fragments;
  kernel.walk([&](AllocFragmentOp alloc) { fragments.push_back(alloc); });
  for (AllocFragmentOp alloc : fragments) {
    llvm::MapVector<std::pair<int64_t, int64_t>, SmallVector<OpOperand *>>
        byRange;
    for (OpOperand &use : alloc->getUses()) {
      ThreadScope scope = threadScopeOf(use.getOwner());
      byRange[{scope.first, scope.count}].push_back(&use);
    }
    for (auto &uses : llvm::drop_begin(llvm::make_second_range(byRange))) {
      OpBuilder b(alloc);
      Operation *copy = b.clone(*alloc);
      for (OpOperand *use : uses)
        use->set(copy->getResult(0));
    }
  }
}

/// Replaces each tile.thread_range of `kernel` by its body: once its
/// thread-level code loops over its threads alone, what is left runs once
/// for the block, as the range's threads together run it.
void inlineThreadRanges(KernelOp kernel) {
  splitRangeFragments(kernel);
  SmallVector<ThreadRangeOp> ranges;
  kernel.walk([&](ThreadRangeOp range) { ranges.push_back(range); });
  for (ThreadRangeOp range : ranges) {
    Block &body = range.getBody().front();
    body.getTerminator()->erase();
    range->getBlock()->getOperations().splice(range->getIterator(),
                                              body.getOperations());
    range.erase();
  }
}

/// Moves `ops` (consecutive, in order) into an `scf.if` on `condition`
/// before `before`, which yields the values they compute that other ops
/// use (a zero where the condition is false, which those uses, guarded by
/// the same condition, never see). Side-effect-free ops and allocations
/// on values from outside stay unguarded.
LogicalResult guard(ArrayRef<Operation *> ops, Value condition,
                    Operation *before) {
  OpBuilder b(before);
  SmallVector<Operation *> guarded;
  llvm::SmallPtrSet<Operation *, 8> moved(ops.begin(), ops.end());
  for (Operation *op : ops) {
    bool fromOutside = llvm::all_of(op->getOperands(), [&](Value operand) {
      Operation *def = operand.getDefiningOp();
      return !def || !moved.contains(def) ||
             def->getBlock() == before->getBlock();
    });
    // A thread's own buffer is made for every thread alike.
    bool allocation = isa<AllocLocalOp, AllocVarOp, memref::AllocaOp>(op);
    if (op->getNumRegions() == 0 && (isMemoryEffectFree(op) || allocation) &&
        fromOutside) {
      op->moveBefore(before);
      continue;
    }
    guarded.push_back(op);
  }
  if (guarded.empty())
    return success();
  llvm::SmallPtrSet<Operation *, 8> inside(guarded.begin(), guarded.end());
  auto isInside = [&](Operation *user) {
    for (Operation *op = user; op; op = op->getParentOp())
      if (inside.contains(op))
        return true;
    return false;
  };
  SmallVector<Value> escaping;
  for (Operation *op : guarded)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !isInside(user); }))
        escaping.push_back(result);
  Location loc = guarded.front()->getLoc();
  SmallVector<Type> types;
  for (Value value : escaping) {
    if (!isa<IntegerType, IndexType, FloatType>(value.getType()))
      return guarded.front()->emitError()
             << "on a target that runs a block on one thread, a barrier "
                "under a condition that differs between threads cannot "
                "follow a value of type "
             << value.getType() << " computed under it";
    types.push_back(value.getType());
  }
  auto ifOp = scf::IfOp::create(b, loc, types, condition,
                                /*withElseRegion=*/!types.empty());
  // Without results, the if comes with its terminator; with them, the
  // yields come after the ops.
  Block *then = ifOp.thenBlock();
  Block::iterator end =
      types.empty() ? then->getTerminator()->getIterator() : then->end();
  for (Operation *op : guarded)
    op->moveBefore(then, end);
  // Uses outside take the if's results (before its yield uses the values).
  for (auto [value, result] : llvm::zip(escaping, ifOp.getResults()))
    value.replaceUsesWithIf(
        result, [&](OpOperand &use) { return !isInside(use.getOwner()); });
  if (types.empty())
    return success();
  OpBuilder thenBuilder = OpBuilder::atBlockEnd(then);
  scf::YieldOp::create(thenBuilder, loc, escaping);
  OpBuilder elseBuilder = OpBuilder::atBlockEnd(ifOp.elseBlock());
  SmallVector<Value> zeros;
  for (Type type : types)
    zeros.push_back(arith::ConstantOp::create(
        elseBuilder, loc, cast<TypedAttr>(elseBuilder.getZeroAttr(type))));
  scf::YieldOp::create(elseBuilder, loc, zeros);
  return success();
}

/// Moves the statements of `body` into an `if` on `condition` there.
scf::IfOp wrapBody(Block &body, Value condition, Location loc) {
  SmallVector<Operation *> statements;
  for (Operation &inner : body.without_terminator())
    statements.push_back(&inner);
  OpBuilder b(body.getTerminator());
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, condition,
                                /*withElseRegion=*/false);
  for (Operation *statement : statements)
    statement->moveBefore(ifOp.thenBlock()->getTerminator());
  return ifOp;
}

/// `if c { S1 ... Sn }`, where c differs between threads and the S hold
/// barriers among the threads that take the branch, becomes statements
/// that every thread runs: each barrier alone, each loop around barriers
/// with its body under `if c`, and the statements between under `if c`.
/// The barriers end up where serialize() meets them.
LogicalResult distribute(scf::IfOp ifOp) {
  if (ifOp.getNumResults() != 0)
    return ifOp.emitError()
           << "on a target that runs a block on one thread, a branch that "
              "holds a barrier cannot yield values";
  bool elseHolds = false;
  ifOp.getElseRegion().walk(
      [&](Operation *op) { elseHolds |= isPartialBarrier(op); });
  if (elseHolds)
    return ifOp.emitError()
           << "on a target that runs a block on one thread, barriers in "
              "the else branch of a condition that differs between threads "
              "are not supported";
  Value condition = ifOp.getCondition();
  SmallVector<Operation *> run;
  auto flush = [&]() {
    LogicalResult result = guard(run, condition, ifOp);
    run.clear();
    return result;
  };
  for (Operation &op :
       llvm::make_early_inc_range(ifOp.thenBlock()->without_terminator())) {
    if (!holds(&op, isPartialBarrier)) {
      run.push_back(&op);
      continue;
    }
    if (failed(flush()))
      return failure();
    op.moveBefore(ifOp);
    if (isPartialBarrier(&op))
      continue;
    if (auto nested = dyn_cast<scf::IfOp>(&op)) {
      // Its branches run where both conditions hold: `if c and d`, whose
      // else is guarded by c. The next round distributes it.
      OpBuilder b(nested);
      nested.getConditionMutable().assign(arith::AndIOp::create(
          b, nested.getLoc(), condition, nested.getCondition()));
      if (!nested.getElseRegion().empty() &&
          !nested.elseBlock()->without_terminator().empty())
        wrapBody(*nested.elseBlock(), condition, ifOp.getLoc());
      continue;
    }
    if (!isa<SerialOp, UnrollOp, scf::ForOp>(op) || op.getNumResults() != 0)
      return op.emitError()
             << "on a target that runs a block on one thread, a barrier "
                "under a condition that differs between threads must be "
                "in the branch itself, in loops or in ifs there";
    if (failed(distribute(
            wrapBody(op.getRegion(0).front(), condition, ifOp.getLoc()))))
      return failure();
  }
  if (failed(flush()))
    return failure();
  if (ifOp.getElseRegion().empty())
    ifOp.erase();
  return success();
}

/// Distributes every `if` on a condition that differs between threads
/// around barriers among part of the block, outermost first, until none
/// is left (the branches in one may hold barriers still).
LogicalResult distributeDivergentBranches(KernelOp kernel) {
  while (true) {
    SmallVector<scf::IfOp> branches;
    kernel.walk<WalkOrder::PreOrder>([&](scf::IfOp ifOp) {
      if (variesAcrossThreads(ifOp.getCondition()) &&
          holds(ifOp, isPartialBarrier)) {
        branches.push_back(ifOp);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    if (branches.empty())
      return success();
    for (scf::IfOp ifOp : branches)
      if (failed(distribute(ifOp)))
        return failure();
  }
}

class KernelSerializer {
public:
  KernelSerializer(KernelOp kernel, int64_t warpSize)
      : kernel(kernel), warpSize(warpSize), threads(kernel.getNumThreads()) {}

  LogicalResult run();

private:
  /// A buffer of one `type` per thread, at the top of the kernel.
  Value perThreadBuffer(Type type, Location loc);
  /// This thread's block-linear index, from gpu.thread_id ops at `b`.
  Value linearThreadId(OpBuilder &b, Location loc);
  /// Rewrites `shuffle` as a store of its operands, a barrier and a load
  /// of the value of the lane it names.
  void exchange(gpu::ShuffleOp shuffle);

  /// Splits `block` into stretches, each a loop over the threads.
  LogicalResult serialize(Block &block);
  /// Moves `stretch` into a loop over the threads before `before`.
  void wrap(ArrayRef<Operation *> stretch, Block &block,
            Block::iterator before);
  /// The loop over the threads that holds `op`, if any.
  scf::ForOp loopOf(Operation *op) const;

  /// Gives values used outside the loop that computes them a copy per
  /// thread (while thread indices still tell which values differ between
  /// threads), then maps gpu.thread_id to the loops' threads.
  LogicalResult connectLoops();
  /// `value`, computed in `loop`, recomputed at `b` from values defined
  /// outside it when it is side-effect-free arithmetic on them, cloning at
  /// most `budget` more ops (`clones` holds those made for this use);
  /// null otherwise.
  Value rematerialize(Value value, scf::ForOp loop, OpBuilder &b,
                      IRMapping &clones, int &budget);
  /// Gives the thread's own buffers that several loops use a copy per
  /// thread.
  LogicalResult expandLocals();

  KernelOp kernel;
  int64_t warpSize;
  int64_t threads;
  /// The loops over the threads, with each one's thread index per
  /// dimension.
  llvm::MapVector<Operation *, SmallVector<Value, 3>> loops;
};

Value KernelSerializer::perThreadBuffer(Type type, Location loc) {
  // A plain alloca: it may hold indices, which tile buffers do not.
  OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
  return memref::AllocaOp::create(b, loc, MemRefType::get({threads}, type));
}

Value KernelSerializer::linearThreadId(OpBuilder &b, Location loc) {
  return emitLinearThreadId(b, loc, kernel.getThreads());
}

void KernelSerializer::exchange(gpu::ShuffleOp shuffle) {
  OpBuilder b(shuffle);
  Location loc = shuffle.getLoc();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto toIndex = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  };
  Value values = perThreadBuffer(shuffle.getValue().getType(), loc);
  Value offsets = perThreadBuffer(b.getI32Type(), loc);
  Value tid = linearThreadId(b, loc);
  memref::StoreOp::create(b, loc, shuffle.getValue(), values, tid);
  memref::StoreOp::create(b, loc, shuffle.getOffset(), offsets, tid);
  gpu::BarrierOp::create(b, loc);

  // After the barrier, as PTX's shfl.sync computes the source lane j of
  // `lane` within groups of `width`: the group's lanes are
  // [minLane, maxLane]; a j outside (above for bfly, down and idx, below
  // for up), past the warp or past the block, gives the lane its own value.
  tid = linearThreadId(b, loc);
  Value delta = toIndex(memref::LoadOp::create(b, loc, offsets, tid));
  Value width = toIndex(shuffle.getWidth());
  Value warp = index(warpSize);
  Value lane = arith::RemUIOp::create(b, loc, tid, warp);
  Value warpBase = arith::SubIOp::create(b, loc, tid, lane);
  Value groupMask = arith::SubIOp::create(b, loc, warp, width);
  Value minLane = arith::AndIOp::create(b, loc, lane, groupMask);
  Value maxLane = arith::OrIOp::create(
      b, loc, minLane, arith::SubIOp::create(b, loc, width, index(1)));
  Value source;
  Value inGroup;
  auto ule = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, x, y);
  };
  switch (shuffle.getMode()) {
  case gpu::ShuffleMode::XOR:
    source = arith::XOrIOp::create(b, loc, lane, delta);
    inGroup = ule(source, maxLane);
    break;
  case gpu::ShuffleMode::DOWN:
    source = arith::AddIOp::create(b, loc, lane, delta);
    inGroup = ule(source, maxLane);
    break;
  case gpu::ShuffleMode::UP:
    // Below minLane, including below 0 (a wrapped, huge index).
    source = arith::SubIOp::create(b, loc, lane, delta);
    inGroup =
        arith::AndIOp::create(b, loc, ule(delta, lane), ule(minLane, source));
    break;
  case gpu::ShuffleMode::IDX:
    source = arith::OrIOp::create(
        b, loc, minLane,
        arith::AndIOp::create(b, loc, delta,
                              arith::SubIOp::create(b, loc, width, index(1))));
    inGroup = ule(source, maxLane);
    break;
  }
  Value sourceThread = arith::AddIOp::create(b, loc, warpBase, source);
  Value valid = arith::AndIOp::create(
      b, loc, inGroup,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, sourceThread,
                            index(threads)));
  Value from = arith::SelectOp::create(b, loc, valid, sourceThread, tid);
  Value result = memref::LoadOp::create(b, loc, values, from);
  shuffle.getShuffleResult().replaceAllUsesWith(result);
  shuffle.getValid().replaceAllUsesWith(valid);
  shuffle.erase();
}

scf::ForOp KernelSerializer::loopOf(Operation *op) const {
  for (Operation *parent = op; parent; parent = parent->getParentOp()) {
    if (loops.count(parent))
      return cast<scf::ForOp>(parent);
    if (parent == kernel)
      break;
  }
  return nullptr;
}

void KernelSerializer::wrap(ArrayRef<Operation *> stretch, Block &block,
                            Block::iterator before) {
  if (stretch.empty())
    return;
  Location loc = stretch.front()->getLoc();
  OpBuilder b(&block, before);
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // The threads that run the stretch: the block's, or those of its T.ws.
  ThreadScope scope = threadScopeOf(stretch.front());
  auto loop = scf::ForOp::create(b, loc, index(scope.first),
                                 index(scope.first + scope.count), index(1));
  Block *body = loop.getBody();
  for (Operation *op : stretch)
    op->moveBefore(body->getTerminator());
  // The thread's index along each dimension, x varying fastest.
  OpBuilder ib = OpBuilder::atBlockBegin(body);
  SmallVector<Value, 3> ids;
  Value rest = loop.getInductionVar();
  ArrayRef<int64_t> extents = kernel.getThreads();
  for (int64_t extent : extents.drop_back()) {
    Value e = arith::ConstantIndexOp::create(ib, loc, extent);
    ids.push_back(arith::RemUIOp::create(ib, loc, rest, e));
    rest = arith::DivUIOp::create(ib, loc, rest, e);
  }
  ids.push_back(rest);
  loops[loop] = ids;
}

LogicalResult KernelSerializer::serialize(Block &block) {
  SmallVector<Operation *> stretch;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (op.hasTrait<mlir::OpTrait::IsTerminator>())
      break;
    // Constants, thread indices and buffers stay where they are, for
    // every loop.
    if (isa<gpu::ThreadIdOp, AllocLocalOp, AllocVarOp, AllocSharedOp,
            AllocFragmentOp, memref::AllocaOp>(op) ||
        matchPattern(&op, m_Constant()))
      continue;
    if (!endsStretch(&op)) {
      stretch.push_back(&op);
      continue;
    }
    wrap(stretch, block, op.getIterator());
    stretch.clear();
    if (isBarrier(&op)) {
      op.erase();
      continue;
    }
    if (isBlockWide(&op))
      continue;
    // A loop or if around barriers or block-wide statements runs once, so
    // its control must be the same for every thread.
    for (Value operand : op.getOperands())
      if (variesAcrossThreads(operand))
        return op.emitError()
               << "on a target that runs a block on one thread, a barrier "
                  "or warp shuffle under a condition or loop bound that "
                  "differs between threads is not supported";
    if (auto whileOp = dyn_cast<scf::WhileOp>(op);
        whileOp && variesAcrossThreads(whileOp.getConditionOp().getCondition()))
      return op.emitError()
             << "on a target that runs a block on one thread, a barrier or "
                "warp shuffle in a loop whose condition differs between "
                "threads is not supported";
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        if (failed(serialize(inner)))
          return failure();
  }
  wrap(stretch, block, block.getTerminator()->getIterator());
  return success();
}

Value KernelSerializer::rematerialize(Value value, scf::ForOp loop,
                                      OpBuilder &b, IRMapping &clones,
                                      int &budget) {
  Operation *def = value.getDefiningOp();
  if (!def || loopOf(def) != loop)
    return value;
  if (Value again = clones.lookupOrNull(value))
    return again;
  if (budget-- <= 0 || def->getNumRegions() != 0 || !isMemoryEffectFree(def))
    return Value();
  for (Value operand : def->getOperands())
    if (!rematerialize(operand, loop, b, clones, budget))
      return Value();
  return b.clone(*def, clones)
      ->getResult(cast<OpResult>(value).getResultNumber());
}

LogicalResult KernelSerializer::connectLoops() {
  // Values one loop computes and others (or the statements between them)
  // use: kept per thread in memory. A statement of the whole block takes
  // the first thread's, which every thread computed alike.
  for (Operation *loopOp : llvm::make_first_range(loops)) {
    auto loop = cast<scf::ForOp>(loopOp);
    for (Operation &op : llvm::make_early_inc_range(*loop.getBody())) {
      for (Value result : op.getResults()) {
        SmallVector<OpOperand *> outside;
        for (OpOperand &use : result.getUses())
          if (loopOf(use.getOwner()) != loop)
            outside.push_back(&use);
        // Arithmetic on what every loop sees is recomputed where used.
        for (OpOperand *use : llvm::make_early_inc_range(outside)) {
          OpBuilder b(use->getOwner());
          IRMapping clones;
          int budget = 16;
          if (Value again = rematerialize(result, loop, b, clones, budget)) {
            use->set(again);
            llvm::erase(outside, use);
          }
        }
        if (outside.empty())
          continue;
        Location loc = op.getLoc();
        Value copies = perThreadBuffer(result.getType(), loc);
        OpBuilder after(&op);
        after.setInsertionPointAfter(&op);
        memref::StoreOp::create(after, loc, result, copies,
                                loop.getInductionVar());
        for (OpOperand *use : outside) {
          Operation *user = use->getOwner();
          OpBuilder b(user);
          Value thread;
          if (scf::ForOp userLoop = loopOf(user)) {
            thread = userLoop.getInductionVar();
          } else {
            if (variesAcrossThreads(result))
              return user->emitError()
                     << "a statement of the whole block uses a value that "
                        "differs between threads";
            thread = arith::ConstantIndexOp::create(b, loc, 0);
          }
          use->set(memref::LoadOp::create(b, loc, copies, thread));
        }
      }
    }
  }
  // Thread indices: the thread of the loop that uses them.
  SmallVector<gpu::ThreadIdOp> ids;
  kernel.walk([&](gpu::ThreadIdOp id) { ids.push_back(id); });
  for (gpu::ThreadIdOp id : ids) {
    unsigned dim = static_cast<unsigned>(id.getDimension());
    for (OpOperand &use : llvm::make_early_inc_range(id->getUses())) {
      scf::ForOp loop = loopOf(use.getOwner());
      if (!loop)
        return use.getOwner()->emitError()
               << "a statement of the whole block uses the thread index";
      SmallVector<Value, 3> &loopIds = loops[loop];
      if (dim >= loopIds.size())
        return id.emitError() << "thread dimension " << dim
                              << " is outside the block's threads";
      use.set(loopIds[dim]);
    }
    id.erase();
  }

  return success();
}

LogicalResult KernelSerializer::expandLocals() {
  SmallVector<Operation *> allocs;
  kernel.walk([&](Operation *op) {
    if (isa<AllocLocalOp, AllocVarOp>(op) && !loopOf(op))
      allocs.push_back(op);
  });
  for (Operation *alloc : allocs) {
    Value buffer = alloc->getResult(0);
    bool inLoops = false, outside = false;
    for (Operation *user : buffer.getUsers()) {
      bool elementAccess = isa<memref::LoadOp, memref::StoreOp>(user);
      if (loopOf(user) && elementAccess)
        inLoops = true;
      else
        outside = true;
    }
    if (!inLoops)
      continue;
    if (outside)
      return alloc->emitError()
             << "a thread's own buffer that both thread-level code and "
                "statements of the whole block use is not supported on a "
                "target that runs a block on one thread";
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<int64_t> shape{threads};
    llvm::append_range(shape, type.getShape());
    OpBuilder b(alloc);
    auto expandedType =
        MemRefType::get(shape, type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    Value expanded =
        AllocLocalOp::create(b, alloc->getLoc(), TypeRange{expandedType},
                             ValueRange{}, ArrayRef<NamedAttribute>{});
    for (Operation *user : llvm::make_early_inc_range(buffer.getUsers())) {
      OpBuilder ub(user);
      Value thread = loopOf(user).getInductionVar();
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        SmallVector<Value> indices{thread};
        llvm::append_range(indices, load.getIndices());
        load.replaceAllUsesWith(
            memref::LoadOp::create(ub, load.getLoc(), expanded, indices)
                .getResult());
        load.erase();
      } else {
        auto store = cast<memref::StoreOp>(user);
        SmallVector<Value> indices{thread};
        llvm::append_range(indices, store.getIndices());
        memref::StoreOp::create(ub, store.getLoc(), store.getValueToStore(),
                                expanded, indices);
        store.erase();
      }
    }
    alloc->erase();
  }
  return success();
}

LogicalResult KernelSerializer::run() {
  // Stages overlap nothing on one thread: a pipelined loop is a serial one,
  // which barriers can go into.
  SmallVector<PipelinedOp> pipelined;
  kernel.walk([&](PipelinedOp loop) { pipelined.push_back(loop); });
  for (PipelinedOp loop : pipelined) {
    OpBuilder b(loop);
    Value step = arith::ConstantIndexOp::create(b, loop.getLoc(), 1);
    auto serial = SerialOp::create(b, loop.getLoc(), loop.getLowerBound(),
                                   loop.getUpperBound(), step);
    serial.getBody().takeBody(loop.getBody());
    loop.erase();
  }
  // The barriers the GPU would run, which end the stretches here.
  if (failed(insertBlockBarriers(kernel, /*proxyFences=*/false)))
    return failure();
  // A variable's initial value is each thread's first store into it, made
  // where the thread's other statements run.
  kernel.walk([&](AllocVarOp var) {
    if (Value init = var.getInit()) {
      OpBuilder b(var);
      b.setInsertionPointAfter(var);
      memref::StoreOp::create(b, var.getLoc(), init, var.getBuffer());
      var.getInitMutable().clear();
    }
  });
  // A lane is the block-linear thread index modulo the warp size.
  SmallVector<gpu::LaneIdOp> lanes;
  kernel.walk([&](gpu::LaneIdOp lane) { lanes.push_back(lane); });
  for (gpu::LaneIdOp lane : lanes) {
    OpBuilder b(lane);
    Location loc = lane.getLoc();
    Value index = arith::RemUIOp::create(
        b, loc, linearThreadId(b, loc),
        arith::ConstantIndexOp::create(b, loc, warpSize));
    lane.replaceAllUsesWith(index);
    lane.erase();
  }
  SmallVector<gpu::ShuffleOp> shuffles;
  kernel.walk([&](gpu::ShuffleOp shuffle) { shuffles.push_back(shuffle); });
  for (gpu::ShuffleOp shuffle : shuffles)
    exchange(shuffle);
  if (failed(distributeDivergentBranches(kernel)) ||
      failed(serialize(kernel.getBody().front())))
    return failure();
  if (failed(connectLoops()) || failed(expandLocals()))
    return failure();
  inlineThreadRanges(kernel);
  return success();
}

struct SerializeThreadsPass
    : public tilec::tile::impl::TileSerializeThreadsBase<SerializeThreadsPass> {
  using TileSerializeThreadsBase::TileSerializeThreadsBase;

  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](KernelOp kernel) {
      bool threadLevel = kernel
                             .walk([](Operation *op) {
                               return isThreadLevelOp(op)
                                          ? WalkResult::interrupt()
                                          : WalkResult::advance();
                             })
                             .wasInterrupted();
      if (!threadLevel) {
        inlineThreadRanges(kernel);
        return WalkResult::advance();
      }
      KernelSerializer serializer(kernel, warpSize);
      return failed(serializer.run()) ? WalkResult::interrupt()
                                      : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
