//===- VerifyRaces.cpp - Writes proved free of races with Z3 --------------===//
//
// Part of tilec. Two threads race on an element when both write it and
// nothing orders the writes: they run in different blocks (of a tensor's
// element), or in one block between the same two barriers. For every pair
// of stores to one tensor argument or shared buffer (a store and itself
// included), asks Z3 whether two such executions, one of each thread, can
// write the same element.
//
//===----------------------------------------------------------------------===//

#include "RaceVerifier.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"
#include "tilec/Verification/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>
#include <map>

namespace tilec::tile {
#define GEN_PASS_DEF_TILEVERIFYRACES
#include "tilec/Verification/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Whether `op` orders the memory accesses of a block's threads: a barrier,
/// or the arrival at or wait on an mbarrier; with `warpBarriers`, also a
/// barrier of the warp, for threads of one warp.
bool synchronizes(Operation *op, bool warpBarriers) {
  return isa<gpu::BarrierOp>(op) ||
         op->hasTrait<tile::OpTrait::Synchronizes>() ||
         (warpBarriers && isa<WarpBarrierOp>(op));
}

/// Whether `op` synchronizes or holds an op that does.
bool holdsSynchronization(Operation *op, bool warpBarriers) {
  return op
      ->walk([&](Operation *inner) {
        return synchronizes(inner, warpBarriers) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
      })
      .wasInterrupted();
}

} // namespace

namespace tilec::tile::races {

std::optional<Write> RaceVerifier::matchWrite(Operation *op,
                                              ArrayRef<Formula> path) {
  Write write;
  write.op = op;
  write.path.assign(path.begin(), path.end());
  Value memref;
  SmallVector<MemoryAccess, 2> accesses = matchMemoryAccesses(op);
  auto written = llvm::find_if(
      accesses, [](const MemoryAccess &access) { return access.isWrite; });
  // Atomics do not race; a vector write is checked along one dimension.
  if (written == accesses.end() || written->atomic ||
      (written->vectorType && written->vectorType.getRank() != 1))
    return std::nullopt;
  memref = written->memref;
  write.indexValues = written->indices;
  write.value = written->stored;
  // A copy writes what it reads: its reads' indices stand for the value.
  for (const MemoryAccess &access : accesses)
    if (!access.isWrite)
      llvm::append_range(write.sourceIndices, access.indices);
  write.width = written->elements;
  write.masked = written->masked;
  write.async = written->isAsync;
  // Casts keep the elements where they are.
  auto skipCasts = [](Value value) {
    while (true) {
      if (auto cast = value.getDefiningOp<memref::MemorySpaceCastOp>())
        value = cast.getSource();
      else if (auto cast = value.getDefiningOp<memref::CastOp>())
        value = cast.getSource();
      else
        return value;
    }
  };
  memref = skipCasts(memref);
  for (Value index : write.indexValues)
    write.indices.push_back(formulas.of(index));
  // Views of a buffer (the stages of a pipelined one): indices into the
  // buffer itself. `wholeTiles` says whether the views keep the last two
  // dimensions as they are.
  bool wholeTiles = true;
  while (auto view = memref.getDefiningOp<memref::SubViewOp>()) {
    auto sourceShape = cast<MemRefType>(view.getSource().getType()).getShape();
    for (unsigned dim =
             sourceShape.size() - std::min<size_t>(2, sourceShape.size());
         dim < sourceShape.size(); ++dim)
      wholeTiles &=
          getConstantIntValue(view.getMixedOffsets()[dim]) == 0 &&
          getConstantIntValue(view.getMixedSizes()[dim]) == sourceShape[dim] &&
          view.getStaticStrides()[dim] == 1;
    ArrayRef<int64_t> strides = view.getStaticStrides();
    if (llvm::any_of(strides, ShapedType::isDynamic))
      return std::nullopt;
    llvm::SmallBitVector dropped = view.getDroppedDims();
    unsigned last = strides.size() - 1;
    if (write.width > 1 && (dropped[last] || strides[last] != 1))
      return std::nullopt;
    SmallVector<Formula> indices;
    unsigned kept = 0;
    for (auto [dim, offset] : llvm::enumerate(view.getMixedOffsets())) {
      Formula start = isa<Attribute>(offset)
                          ? formulas.constant(*getConstantIntValue(offset))
                          : formulas.of(cast<Value>(offset));
      if (dropped[dim]) {
        indices.push_back(start);
        continue;
      }
      indices.push_back(
          formulas.add(start, formulas.mul(formulas.constant(strides[dim]),
                                           write.indices[kept++])));
    }
    write.indices = std::move(indices);
    memref = skipCasts(view.getSource());
  }
  write.buffer = memref;
  if (auto arg = dyn_cast<BlockArgument>(memref);
      arg && arg.getOwner()->getParentOp() == kernel.getFunc()) {
    write.shared = false;
    return write;
  }
  auto alloc = memref.getDefiningOp<AllocSharedOp>();
  if (!alloc)
    return std::nullopt;
  write.shared = true;
  // A swizzled tile: the swizzle is a bijection of the tile's offsets, and
  // moves runs of 2^base elements whole, so two writes within runs meet
  // where their unswizzled offsets do. Asking about those spares the
  // prover the exclusive or.
  ArrayRef<int64_t> shape = alloc.getType().getShape();
  unsigned rank = shape.size();
  if (rank >= 2 && write.indexValues.size() >= 2 && wholeTiles) {
    // The tile's two indices are the view's last two, which a stage does
    // not offset.
    std::optional<SwizzledOffset> swizzled = matchSwizzledTileIndices(
        write.indexValues[write.indexValues.size() - 2],
        write.indexValues.back(), shape.back());
    if (swizzled) {
      write.swizzle = swizzled->swizzle;
      write.tileRows = shape[rank - 2];
      write.tileCols = shape.back();
      write.indices.resize(rank - 2);
      write.indices.push_back(formulas.of(swizzled->offset));
      int64_t run = int64_t(1) << write.swizzle.getBase();
      if (write.width > 1) {
        // The run holds the whole vector: offset mod run + width <= run.
        Formula offset = write.indices.back();
        Formula within =
            formulas.le(formulas.add(formulas.mod(offset, run),
                                     formulas.constant(write.width)),
                        formulas.constant(run));
        write.unsupported = formulas.prove(write.path, within) != Proof::Proved;
      }
    }
  }
  return write;
}

void RaceVerifier::computeVariations() {
  KernelOp kernelOp = kernel.getKernel();
  Block &body = kernelOp.getBody().front();
  for (Value index : kernelOp.getBlockIndices())
    variations[index].block = true;
  auto isOwnMemory = [&](Value memref) {
    while (auto view = memref.getDefiningOp<memref::SubViewOp>())
      memref = view.getSource();
    auto arg = dyn_cast<BlockArgument>(memref);
    return !arg || arg.getOwner()->getParentOp() != kernel.getFunc();
  };
  // The buffer private to each thread that `op` stores into, if any.
  auto localStoreTarget = [](Operation *op) -> Value {
    Value memref;
    if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemRef();
    else if (auto store = dyn_cast<vector::StoreOp>(op))
      memref = store.getBase();
    else
      return Value();
    while (auto view = memref.getDefiningOp<memref::SubViewOp>())
      memref = view.getSource();
    return isInScope(memref.getType(), MemoryScope::Local) ? memref : Value();
  };
  // Loops carry values around: repeat until nothing changes (each round
  // crosses one more back edge; the variations only grow).
  bool changed = true;
  while (changed) {
    changed = false;
    auto merge = [&](Value value, Variation variation) {
      Variation &entry = variations[value];
      Variation before = entry;
      entry |= variation;
      changed |= entry != before;
    };
    body.walk([&](Operation *op) {
      Variation operands;
      for (Value operand : op->getOperands())
        operands |= variationOf(operand);
      if (isa<gpu::ThreadIdOp, gpu::LaneIdOp>(op)) {
        operands.thread = operands.block = true;
      } else if (isa<memref::LoadOp, vector::LoadOp, vector::MaskedLoadOp,
                     vector::TransferReadOp>(op)) {
        if (llvm::any_of(op->getOperands(), [&](Value operand) {
              return isa<MemRefType>(operand.getType()) && isOwnMemory(operand);
            }))
          operands.block = true;
      } else if (auto forOp = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
        for (auto [i, result] : llvm::enumerate(forOp.getResults())) {
          Variation carried = variationOf(forOp.getInitArgs()[i]);
          carried |= variationOf(yield.getOperand(i));
          carried |= variationOf(forOp.getLowerBound());
          carried |= variationOf(forOp.getUpperBound());
          merge(forOp.getRegionIterArg(i), carried);
          merge(result, carried);
        }
        return;
      } else if (Value local = localStoreTarget(op)) {
        // A thread's own buffer holds what each thread stored: its loads
        // vary as the stored values and places do, and as the control
        // under which the store runs.
        for (Operation *parent = op->getParentOp(); parent != kernelOp;
             parent = parent->getParentOp())
          for (Value operand : parent->getOperands())
            operands |= variationOf(operand);
        merge(local, operands);
        return;
      } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
          Variation chosen = variationOf(ifOp.getCondition());
          for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
            if (!region->empty())
              chosen |=
                  variationOf(region->front().getTerminator()->getOperand(i));
          merge(result, chosen);
        }
        return;
      }
      for (Value result : op->getResults())
        merge(result, operands);
    });
  }
}

Variation RaceVerifier::variationOf(const Write &write) const {
  Variation variation = write.value ? variationOf(write.value) : Variation();
  for (Value index : write.indexValues)
    variation |= variationOf(index);
  for (Value index : write.sourceIndices)
    variation |= variationOf(index);
  return variation;
}

bool RaceVerifier::isUniform(const Write &write) const {
  Variation variation = variationOf(write);
  return !variation.thread && (write.shared || !variation.block);
}

//===----------------------------------------------------------------------===//
// When two executions can be unordered
//===----------------------------------------------------------------------===//

/// Whether `op` is a loop of the kernel: an scf.for, or an scf.while, whose
/// iterations have no induction variable to tell them apart.
static bool isLoop(Operation *op) { return isa<scf::ForOp, scf::WhileOp>(op); }

/// The block a loop runs once per iteration.
static Block *iterationBody(Operation *loop) {
  if (auto whileOp = dyn_cast<scf::WhileOp>(loop))
    return whileOp.getAfterBody();
  return cast<scf::ForOp>(loop).getBody();
}

/// The loops around `op` in the kernel, outermost first.
static SmallVector<Operation *> enclosingLoops(Operation *op, KernelOp kernel) {
  SmallVector<Operation *> loops;
  for (Operation *parent = op->getParentOp(); parent && parent != kernel;
       parent = parent->getParentOp())
    if (isLoop(parent))
      loops.push_back(parent);
  std::reverse(loops.begin(), loops.end());
  return loops;
}

/// The innermost block that holds both `a` and `b`.
static Block *commonBlock(Operation *a, Operation *b) {
  llvm::SmallPtrSet<Block *, 8> blocks;
  for (Block *block = a->getBlock(); block;
       block = block->getParentOp() ? block->getParentOp()->getBlock()
                                    : nullptr)
    blocks.insert(block);
  for (Block *block = b->getBlock(); block;
       block = block->getParentOp() ? block->getParentOp()->getBlock()
                                    : nullptr)
    if (blocks.contains(block))
      return block;
  return nullptr;
}

/// Whether an op of `block` that `counts` strictly between `a` and `b`
/// (ops of `block`, in either order).
static bool anyBetween(Block *block, Operation *a, Operation *b,
                       function_ref<bool(Operation *)> counts) {
  if (a == b)
    return false;
  if (b->isBeforeInBlock(a))
    std::swap(a, b);
  for (Operation *op = a->getNextNode(); op && op != b; op = op->getNextNode())
    if (counts(op))
      return true;
  return false;
}

/// Whether every iteration of `loop` runs a synchronizing op of its body.
static bool separatesIterations(Operation *loop, bool warpBarriers) {
  return llvm::any_of(*iterationBody(loop), [&](Operation &op) {
    return synchronizes(&op, warpBarriers);
  });
}

SmallVector<Concurrency>
RaceVerifier::possibleConcurrencies(const Write &first, const Write &second,
                                    WarpRelation warps) {
  // A warp barrier may order the threads only when they share a warp.
  bool warpBarriers = warps == WarpRelation::Same;
  auto orders = [&](Operation *op) { return synchronizes(op, warpBarriers); };
  // An asynchronous copy's write is unordered with everything up to the
  // wait for it, in whatever iteration: no barrier is known to order it.
  if (first.async || second.async) {
    Concurrency any;
    any.warps = warps;
    return {any};
  }
  KernelOp kernelOp = kernel.getKernel();
  SmallVector<Operation *> firstLoops = enclosingLoops(first.op, kernelOp);
  SmallVector<Operation *> secondLoops = enclosingLoops(second.op, kernelOp);
  SmallVector<Operation *> common;
  for (auto [a, b] : llvm::zip(firstLoops, secondLoops)) {
    if (a != b)
      break;
    common.push_back(a);
  }
  // Iterations of a loop whose body synchronizes are ordered unless they
  // are the same, or neighbours with no barrier between the two writes
  // across the end of an iteration; iterations of other loops never are.
  SmallVector<Operation *> separating;
  for (Operation *loop : common)
    if (separatesIterations(loop, warpBarriers))
      separating.push_back(loop);
  SmallVector<Concurrency> result;
  Block *block = commonBlock(first.op, second.op);
  Operation *firstAncestor = block->findAncestorOpInBlock(*first.op);
  Operation *secondAncestor = block->findAncestorOpInBlock(*second.op);
  if (!anyBetween(block, firstAncestor, secondAncestor, orders))
    result.push_back({true, separating, {}, true, warps});
  for (auto [j, loop] : llvm::enumerate(separating)) {
    Block *body = iterationBody(loop);
    Operation *x = body->findAncestorOpInBlock(*first.op);
    Operation *y = body->findAncestorOpInBlock(*second.op);
    // From `from` in one iteration to `to` in the next: no synchronizing
    // op after `from` or before `to` in the body.
    auto wraps = [&](Operation *from, Operation *to) {
      for (Operation *op = from->getNextNode(); op; op = op->getNextNode())
        if (orders(op))
          return false;
      for (Operation *op = to->getPrevNode(); op; op = op->getPrevNode())
        if (orders(op))
          return false;
      return true;
    };
    SmallVector<Operation *> outer(separating.begin(), separating.begin() + j);
    if (wraps(x, y))
      result.push_back({true, outer, loop, true, warps});
    if (wraps(y, x))
      result.push_back({true, outer, loop, false, warps});
  }
  return result;
}

std::optional<Concurrency>
RaceVerifier::certainConcurrency(const Write &first, const Write &second,
                                 WarpRelation warps) {
  // Nothing that synchronizes runs between the two: no such op between
  // them, nor in what holds either, and the same iteration of every loop
  // around both that holds one. A warp barrier may order threads unless
  // they are known to be of different warps.
  bool warpBarriers = warps != WarpRelation::Different;
  auto holds = [&](Operation *op) {
    return holdsSynchronization(op, warpBarriers);
  };
  KernelOp kernelOp = kernel.getKernel();
  Block *block = commonBlock(first.op, second.op);
  Operation *firstAncestor = block->findAncestorOpInBlock(*first.op);
  Operation *secondAncestor = block->findAncestorOpInBlock(*second.op);
  if (first.op != second.op &&
      (holds(firstAncestor) || holds(secondAncestor) ||
       anyBetween(block, firstAncestor, secondAncestor, holds)))
    return std::nullopt;
  Concurrency concurrency;
  concurrency.warps = warps;
  for (Operation *parent = block->getParentOp(); parent && parent != kernelOp;
       parent = parent->getParentOp())
    if (isLoop(parent) && holds(parent))
      concurrency.sameLoops.push_back(parent);
  return concurrency;
}

VariableCopies &RaceVerifier::copiesFor(const Concurrency &concurrency) {
  SmallVector<unsigned> shared;
  if (concurrency.sameBlock)
    for (const Formula &block : kernel.blockIndices())
      llvm::append_range(shared, block.variables);
  // A while loop's iterations have no variable of their own: values
  // computed in one differ between the executions, conservatively.
  for (Operation *loop : concurrency.sameLoops)
    if (auto forOp = dyn_cast<scf::ForOp>(loop))
      llvm::append_range(shared,
                         formulas.of(forOp.getInductionVar()).variables);
  llvm::sort(shared);
  shared.erase(llvm::unique(shared), shared.end());
  auto [it, inserted] = copyPools.try_emplace(shared);
  if (inserted)
    for (unsigned var : shared)
      it->second[var] = var;
  return it->second;
}

std::optional<Formula> RaceVerifier::threadOf(const Write &first,
                                              const Write &second) {
  // The thread index the writes and their conditions are computed from: a
  // warp-specialized kernel's roles each number their threads from 0, and
  // the lane index is one more. Two of them cannot be related.
  IndexFormulas &f = formulas;
  SmallVector<unsigned, 2> threads;
  auto collect = [&](const Formula &formula) {
    for (unsigned var : formula.variables)
      if (f.variables()[var].kind == VariableKind::ThreadIndex &&
          !llvm::is_contained(threads, var))
        threads.push_back(var);
  };
  for (const Write *write : {&first, &second}) {
    llvm::for_each(write->indices, collect);
    llvm::for_each(write->path, collect);
  }
  if (threads.size() > 1)
    return std::nullopt;
  if (threads.size() == 1)
    return f.variableFormula(threads.front());
  return f.threadIndex();
}

Proof RaceVerifier::ask(const Write &first, const Write &second,
                        const Concurrency &concurrency, bool withPaths,
                        CounterExample *example,
                        SmallVectorImpl<Formula> *evaluate) {
  IndexFormulas &f = formulas;
  VariableCopies &copies = copiesFor(concurrency);
  auto other = [&](const Formula &formula) { return f.copy(formula, copies); };
  // The elements overlap: equal leading indices, and runs of the last one
  // that meet.
  Formula collide = f.boolean(true);
  unsigned last = first.indices.size() - 1;
  SmallVector<Formula> distances;
  for (auto [dim, index] : llvm::enumerate(first.indices)) {
    Formula distance = f.simplify(f.sub(index, other(second.indices[dim])));
    distances.push_back(distance);
    int64_t low = dim == last ? 1 - second.width : 0;
    int64_t high = dim == last ? first.width - 1 : 0;
    if (!f.mayReach(distance, low, high)) {
      collide = f.boolean(false);
      break;
    }
    if (dim == last && (first.width > 1 || second.width > 1))
      collide = f.logicalAnd(
          collide, f.logicalAnd(f.lt(f.constant(-second.width), distance),
                                f.lt(distance, f.constant(first.width))));
    else
      collide = f.logicalAnd(collide, f.eq(distance, f.constant(0)));
  }
  Formula unordered = f.boolean(true);
  if (concurrency.sameBlock) {
    std::optional<Formula> thread = threadOf(first, second);
    if (!thread)
      return Proof::Unknown;
    unordered = f.logicalNot(f.eq(*thread, other(*thread)));
    if (concurrency.warps != WarpRelation::Any) {
      // Warps are runs of the target's warp size of the block's linear
      // thread index, which only a one-dimensional block's thread
      // variable is.
      KernelOp kernelOp = kernel.getKernel();
      std::optional<Formula> linear = f.threadIndex();
      if (kernelOp.getThreads().size() != 1 || !linear ||
          thread->variables != linear->variables)
        return Proof::Unknown;
      int64_t warp = TargetAttr::lookup(kernelOp).getWarpSize();
      Formula sameWarp =
          f.eq(f.floorDiv(*thread, warp), f.floorDiv(other(*thread), warp));
      unordered =
          f.logicalAnd(unordered, concurrency.warps == WarpRelation::Same
                                      ? sameWarp
                                      : f.logicalNot(sameWarp));
    }
    if (collide.known != false && !concurrency.adjacentLoop && !evaluate &&
        distances.size() == first.indices.size() &&
        collidesByEnumeration(first, second, distances, copies, *thread) ==
            false)
      return Proof::Proved;
  } else {
    Formula sameBlock = f.boolean(true);
    for (const Formula &block : kernel.blockIndices())
      sameBlock = f.logicalAnd(sameBlock, f.eq(block, other(block)));
    unordered = f.logicalNot(sameBlock);
  }
  if (auto loop = dyn_cast_or_null<scf::ForOp>(concurrency.adjacentLoop)) {
    Formula iv = f.of(loop.getInductionVar());
    Formula next = other(iv);
    Formula earlier = concurrency.forward ? iv : next;
    Formula later = concurrency.forward ? next : iv;
    APInt step;
    if (matchPattern(loop.getStep(), m_ConstantInt(&step)) &&
        step.getSignificantBits() <= 63)
      unordered =
          f.logicalAnd(unordered, f.eq(f.simplify(f.sub(later, earlier)),
                                       f.constant(step.getSExtValue())));
    else
      unordered = f.logicalAnd(unordered, f.lt(earlier, later));
  }
  Formula goal = f.logicalNot(f.logicalAnd(collide, unordered));
  // Writes of different blocks: elements are most often a block's offset
  // plus a part within the block's tile. With the other parts replaced by
  // their bounds, the question is about the blocks alone, which is cheaper
  // and shared by the writes that differ only in those parts.
  if (!concurrency.sameBlock && !evaluate) {
    SmallVector<unsigned> blockVariables;
    for (const Formula &block : kernel.blockIndices()) {
      llvm::append_range(blockVariables, block.variables);
      llvm::append_range(blockVariables, other(block).variables);
    }
    auto isBlockOrDimension = [&](unsigned var) {
      return llvm::is_contained(blockVariables, var) ||
             f.variables()[var].kind == VariableKind::Dimension;
    };
    Formula relaxed = f.boolean(true);
    bool relaxable = true;
    // Block variables that the collision forces equal to their copies: a
    // dimension whose index is c * b plus less than c in magnitude.
    SmallVector<unsigned> forced;
    for (auto [dim, index] : llvm::enumerate(first.indices)) {
      std::optional<IndexFormulas::Split> parts =
          f.split(f.sub(index, other(second.indices[dim])), isBlockOrDimension);
      if (!parts) {
        relaxable = false;
        break;
      }
      // kept + rest meets the collision's range, for some rest in bounds.
      int64_t low = (dim == last ? -second.width + 1 : 0) - parts->restHi;
      int64_t high = (dim == last ? first.width - 1 : 0) - parts->restLo;
      if (auto difference = f.matchScaledDifference(parts->kept)) {
        auto [x, y, scale] = *difference;
        if (low > -scale && high < scale) {
          forced.push_back(x);
          forced.push_back(y);
        }
      }
      relaxed = f.logicalAnd(relaxed,
                             f.logicalAnd(f.le(f.constant(low), parts->kept),
                                          f.le(parts->kept, f.constant(high))));
    }
    if (relaxable) {
      bool allForced =
          llvm::all_of(kernel.blockIndices(), [&](const Formula &b) {
            return llvm::all_of(b.variables, [&](unsigned var) {
              return llvm::is_contained(forced, var) &&
                     llvm::is_contained(forced, other(b).variables.front());
            });
          });
      if (allForced ||
          f.prove({}, f.logicalNot(f.logicalAnd(relaxed, unordered))) ==
              Proof::Proved)
        return Proof::Proved;
    }
  }
  // Each execution in an iteration of every loop around it.
  SmallVector<Formula> assumptions;
  KernelOp kernelOp = kernel.getKernel();
  for (Operation *loop : enclosingLoops(first.op, kernelOp))
    if (auto forOp = dyn_cast<scf::ForOp>(loop))
      llvm::append_range(assumptions, kernel.loopConditions(forOp));
  for (Operation *loop : enclosingLoops(second.op, kernelOp))
    if (auto forOp = dyn_cast<scf::ForOp>(loop))
      for (const Formula &condition : kernel.loopConditions(forOp))
        assumptions.push_back(other(condition));
  if (withPaths) {
    llvm::append_range(assumptions, first.path);
    for (const Formula &condition : second.path)
      assumptions.push_back(other(condition));
  }
  if (!evaluate)
    return f.prove(assumptions, goal, example);
  // The values a message needs: the threads, their blocks, the elements.
  std::optional<Formula> thread = threadOf(first, second);
  Formula threadFormula = thread ? *thread : f.constant(0);
  evaluate->push_back(threadFormula);
  evaluate->push_back(other(threadFormula));
  for (const Formula &block : kernel.blockIndices()) {
    evaluate->push_back(block);
    evaluate->push_back(other(block));
  }
  for (auto [index, otherIndex] : llvm::zip(first.indices, second.indices)) {
    evaluate->push_back(index);
    evaluate->push_back(other(otherIndex));
  }
  return f.prove(assumptions, goal, example, *evaluate);
}

std::optional<bool> RaceVerifier::collidesByEnumeration(
    const Write &first, const Write &second, ArrayRef<Formula> distances,
    VariableCopies &copies, const Formula &thread) {
  IndexFormulas &f = formulas;
  // Copies are the second execution's; kept variables (blocks, loops of a
  // shared iteration) and dimensions must cancel out.
  DenseMap<unsigned, unsigned> original;
  for (auto [from, to] : copies)
    if (from != to)
      original[to] = from;
  auto isSecond = [&](unsigned var) { return original.count(var) != 0; };
  SmallVector<Formula> firstParts, secondParts;
  SmallVector<unsigned> firstVariables;
  for (const Formula &distance : distances) {
    auto parts =
        f.separate(distance, [&](unsigned var) { return !isSecond(var); });
    if (!parts)
      return std::nullopt;
    llvm::append_range(firstVariables, parts->first.variables);
    firstParts.push_back(parts->first);
    // The second part, negated: the first's must equal it.
    secondParts.push_back(parts->second);
  }
  llvm::append_range(firstVariables, thread.variables);
  llvm::sort(firstVariables);
  firstVariables.erase(llvm::unique(firstVariables), firstVariables.end());
  // The second execution's variables are the copies of the first's; a
  // variable both share (a block index that did not cancel out) or that
  // stands for no single value (an opaque one) leaves the question to Z3.
  SmallVector<unsigned> secondVariables;
  for (unsigned var : firstVariables) {
    auto copy = copies.find(var);
    if (copy == copies.end() || copy->second == var ||
        f.variables()[var].kind == VariableKind::Opaque)
      return std::nullopt;
    secondVariables.push_back(copy->second);
  }
  for (const Formula &part : secondParts)
    for (unsigned var : part.variables)
      if (!llvm::is_contained(secondVariables, var))
        return std::nullopt;
  // Each part's values over its execution's variables, the first fastest;
  // parts that differ in a constant (unrolled copies) share a table.
  constexpr int64_t kMaxExecutions = 4096;
  auto tabulate = [&](ArrayRef<Formula> parts, ArrayRef<unsigned> variables)
      -> std::optional<SmallVector<std::pair<ArrayRef<int64_t>, int64_t>>> {
    SmallVector<std::pair<ArrayRef<int64_t>, int64_t>> tables;
    for (const Formula &part : parts) {
      auto [terms, offset] = f.splitConstant(part);
      std::optional<ArrayRef<int64_t>> table =
          f.tabulate(terms, variables, kMaxExecutions);
      if (!table)
        return std::nullopt;
      tables.push_back({*table, offset});
    }
    return tables;
  };
  auto firstTables = tabulate(firstParts, firstVariables);
  auto secondTables = tabulate(secondParts, secondVariables);
  if (!firstTables || !secondTables)
    return std::nullopt;
  // The thread's value in each execution: its variable's digit.
  auto threadTable = f.tabulate(thread, firstVariables, kMaxExecutions);
  if (!threadTable)
    return std::nullopt;
  size_t executions = threadTable->size();
  size_t numDims = firstTables->size();
  // The first execution's elements, sorted: leading indices, last index,
  // thread.
  std::vector<int64_t> entries(executions * (numDims + 1));
  auto entry = [&](size_t n) {
    return ArrayRef<int64_t>(entries).slice(n * (numDims + 1), numDims + 1);
  };
  for (size_t n = 0; n < executions; ++n) {
    for (auto [dim, table] : llvm::enumerate(*firstTables))
      entries[n * (numDims + 1) + dim] = table.first[n] + table.second;
    entries[n * (numDims + 1) + numDims] = (*threadTable)[n];
  }
  std::vector<size_t> order(executions);
  for (size_t n = 0; n < executions; ++n)
    order[n] = n;
  llvm::sort(order, [&](size_t a, size_t b) { return entry(a) < entry(b); });
  // The second's, against them: its parts negated are the first's, and
  // first + second lies in [1 - secondWidth, firstWidth - 1] on the last.
  // Its variables are the copies of the first's, in the same order, so
  // the thread's table is the first's.
  SmallVector<int64_t> probe(numDims + 1);
  for (size_t n = 0; n < executions; ++n) {
    for (auto [dim, table] : llvm::enumerate(*secondTables))
      probe[dim] = -(table.first[n] + table.second);
    int64_t target = probe[numDims - 1];
    probe[numDims - 1] = target + 1 - second.width;
    probe[numDims] = std::numeric_limits<int64_t>::min();
    auto it = llvm::lower_bound(order, probe, [&](size_t a, const auto &key) {
      return entry(a) < ArrayRef<int64_t>(key);
    });
    int64_t otherThread = (*threadTable)[n];
    for (; it != order.end(); ++it) {
      ArrayRef<int64_t> found = entry(*it);
      if (found.take_front(numDims - 1) !=
              ArrayRef<int64_t>(probe).take_front(numDims - 1) ||
          found[numDims - 1] > target + first.width - 1)
        break;
      if (found[numDims] != otherThread)
        return true;
    }
  }
  return false;
}

bool RaceVerifier::proveFamily(ArrayRef<Write *> members) {
  IndexFormulas &f = formulas;
  const Write &first = *members.front();
  std::optional<Formula> thread = threadOf(first, first);
  if (!thread)
    return false;
  for (Write *member : members) {
    std::optional<Formula> own = threadOf(*member, first);
    if (!own || own->ast != thread->ast)
      return false;
  }
  SmallVector<unsigned> blockVariables;
  for (const Formula &block : kernel.blockIndices())
    llvm::append_range(blockVariables, block.variables);
  auto isBlockOrDimension = [&](unsigned var) {
    return llvm::is_contained(blockVariables, var) ||
           f.variables()[var].kind == VariableKind::Dimension;
  };
  // Each index: its block part, the same in every member, and the rest.
  unsigned numDims = first.indices.size();
  SmallVector<Formula> blockParts;
  SmallVector<SmallVector<Formula>> ownParts;
  SmallVector<unsigned> variables(thread->variables.begin(),
                                  thread->variables.end());
  for (Write *member : members) {
    SmallVector<Formula> parts;
    for (auto [dim, index] : llvm::enumerate(member->indices)) {
      auto split = f.separate(index, isBlockOrDimension);
      if (!split)
        return false;
      // The constant goes with the rest: unrolled copies differ in it.
      auto [blockPart, offset] = f.splitConstant(split->first);
      if (member == &first)
        blockParts.push_back(blockPart);
      else if (blockPart.ast != blockParts[dim].ast)
        return false;
      split->second = f.add(split->second, f.constant(offset));
      for (unsigned var : split->second.variables) {
        VariableKind kind = f.variables()[var].kind;
        if (kind != VariableKind::ThreadIndex &&
            kind != VariableKind::LoopIndex)
          return false;
        if (!llvm::is_contained(variables, var))
          variables.push_back(var);
      }
      parts.push_back(split->second);
    }
    ownParts.push_back(std::move(parts));
  }
  // Every execution of every member, by the values of the variables: its
  // element less the block part, and its thread.
  constexpr int64_t kMaxExecutions = 4096;
  std::optional<ArrayRef<int64_t>> threads =
      f.tabulate(*thread, variables, kMaxExecutions);
  if (!threads)
    return false;
  size_t executions = threads->size();
  struct Entry {
    SmallVector<int64_t, 4> element;
    int64_t width, thread;
  };
  std::vector<Entry> entries;
  entries.reserve(executions * members.size());
  SmallVector<int64_t, 4> lows(numDims, std::numeric_limits<int64_t>::max());
  SmallVector<int64_t, 4> highs(numDims, std::numeric_limits<int64_t>::min());
  int64_t widest = 1;
  for (auto [m, member] : llvm::enumerate(members)) {
    SmallVector<ArrayRef<int64_t>> tables;
    for (const Formula &part : ownParts[m]) {
      std::optional<ArrayRef<int64_t>> table =
          f.tabulate(part, variables, kMaxExecutions);
      if (!table)
        return false;
      tables.push_back(*table);
    }
    widest = std::max(widest, member->width);
    for (size_t n = 0; n < executions; ++n) {
      Entry entry{{}, member->width, (*threads)[n]};
      for (auto [dim, table] : llvm::enumerate(tables)) {
        entry.element.push_back(table[n]);
        lows[dim] = std::min(lows[dim], table[n]);
        highs[dim] =
            std::max(highs[dim],
                     table[n] + (dim + 1 == numDims ? member->width - 1 : 0));
      }
      entries.push_back(std::move(entry));
    }
  }
  // Threads of one block: two entries of different threads that overlap.
  llvm::sort(entries, [](const Entry &a, const Entry &b) {
    return std::tie(a.element, a.thread) < std::tie(b.element, b.thread);
  });
  for (size_t i = 0; i < entries.size(); ++i) {
    ArrayRef<int64_t> leading = ArrayRef(entries[i].element).drop_back();
    int64_t end = entries[i].element.back() + entries[i].width;
    for (size_t j = i + 1; j < entries.size(); ++j) {
      if (ArrayRef(entries[j].element).drop_back() != leading ||
          entries[j].element.back() >= end)
        break;
      if (entries[j].thread != entries[i].thread)
        return false;
    }
  }
  // Threads of different blocks, for tensors: the parts within a block span
  // [low, high] along each dimension, so elements of two blocks meet only
  // where their block parts are that close.
  if (first.shared)
    return true;
  Concurrency otherBlocks;
  otherBlocks.sameBlock = false;
  VariableCopies &copies = copiesFor(otherBlocks);
  Formula close = f.boolean(true);
  for (unsigned dim = 0; dim < numDims; ++dim) {
    int64_t spread = highs[dim] - lows[dim];
    Formula distance =
        f.simplify(f.sub(blockParts[dim], f.copy(blockParts[dim], copies)));
    if (!f.mayReach(distance, -spread, spread)) {
      close = f.boolean(false);
      break;
    }
    close =
        f.logicalAnd(close, f.logicalAnd(f.le(f.constant(-spread), distance),
                                         f.le(distance, f.constant(spread))));
  }
  Formula sameBlock = f.boolean(true);
  for (const Formula &block : kernel.blockIndices())
    sameBlock = f.logicalAnd(sameBlock, f.eq(block, f.copy(block, copies)));
  return f.prove({},
                 f.logicalNot(f.logicalAnd(close, f.logicalNot(sameBlock)))) ==
         Proof::Proved;
}

//===----------------------------------------------------------------------===//
// Checks and messages
//===----------------------------------------------------------------------===//

void RaceVerifier::checkPair(Write &first, Write &second) {
  bool self = &first == &second;
  if (first.unsupported || second.unsupported)
    return;
  Variation variation = variationOf(first);
  variation |= variationOf(second);
  // Every thread of a block writes the same value to the same element, as
  // statements outside T.Parallel do: not a race inside the block. Such a
  // global write that depends on the block index can still collide with
  // another block's.
  bool alikeInBlock = !variation.thread &&
                      (self || (first.value && first.value == second.value &&
                                first.indexValues == second.indexValues));
  if (alikeInBlock && (first.shared || !variation.block))
    return;
  if (!self && pairQueries >= kMaxPairQueries) {
    first.unsupported = true;
    return;
  }
  // Blocks have shared memory of their own; every thread runs a uniform
  // write, so two of a block can collide.
  bool betweenBlocks = !first.shared && (variation.thread || variation.block);
  SmallVector<Concurrency> cases;
  if (!alikeInBlock && !hasWarpBarriers) {
    cases = possibleConcurrencies(first, second, WarpRelation::Any);
  } else if (!alikeInBlock) {
    cases = possibleConcurrencies(first, second, WarpRelation::Same);
    llvm::append_range(
        cases, possibleConcurrencies(first, second, WarpRelation::Different));
  }
  if (betweenBlocks)
    cases.push_back({false, {}, {}, true});
  for (const Concurrency &concurrency : cases) {
    unsigned before = formulas.numQueries();
    Proof proof = ask(first, second, concurrency, /*withPaths=*/false);
    if (proof != Proof::Proved)
      proof = ask(first, second, concurrency, /*withPaths=*/true);
    if (!self)
      pairQueries += formulas.numQueries() - before;
    if (proof == Proof::Proved)
      continue;
    // Not proved: an error only for executions unordered for sure.
    if (proof == Proof::Refuted && !first.masked && !second.masked) {
      std::optional<Concurrency> certain =
          concurrency.sameBlock
              ? certainConcurrency(first, second, concurrency.warps)
              : std::optional<Concurrency>(concurrency);
      if (certain && reportRace(first, second, *certain))
        return;
    }
    first.unsupported = true;
    if (!self)
      second.unsupported = true;
    return;
  }
}

LogicalResult RaceVerifier::run() {
  computeVariations();
  hasWarpBarriers =
      kernel.getKernel()
          .walk([](WarpBarrierOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  // The thread index, for writes whose element does not depend on it.
  kernel.getKernel().walk([&](gpu::ThreadIdOp op) { formulas.of(op); });
  // Writes by buffer, in the order of the code.
  SmallVector<Value> buffers;
  DenseMap<Value, SmallVector<Write, 4>> writes;
  kernel.walk([&](Operation *op, ArrayRef<Formula> path) {
    if (std::optional<Write> write = matchWrite(op, path)) {
      auto [it, inserted] = writes.try_emplace(write->buffer);
      if (inserted)
        buffers.push_back(write->buffer);
      it->second.push_back(std::move(*write));
    }
    return true;
  });
  unsigned numProved = 0, numUnknown = 0;
  for (Value buffer : buffers) {
    SmallVector<Write, 4> &group = writes[buffer];
    // Writes of one width and element type whose pairs are all proved at
    // once, by family (unrolled copies of a statement, say): their pairs
    // are not asked again.
    SmallVector<unsigned> family(group.size());
    SmallVector<Write *> members;
    for (Write &write : group)
      if (!write.unsupported && !write.masked)
        members.push_back(&write);
    bool familyProved = members.size() > 1 && proveFamily(members);
    for (auto [i, write] : llvm::enumerate(group))
      family[i] = familyProved && !write.unsupported && !write.masked;
    // Each write with itself first: its races are the simplest to follow.
    for (unsigned i = 0; i < group.size() && !failed; ++i)
      if (!family[i])
        checkPair(group[i], group[i]);
    for (unsigned i = 0; i < group.size() && !failed; ++i)
      for (unsigned j = i + 1; j < group.size() && !failed; ++j)
        if (!family[i] || !family[j])
          checkPair(group[i], group[j]);
    if (failed)
      return failure();
    for (const Write &write : group) {
      ++(write.unsupported ? numUnknown : numProved);
      if (remarks)
        write.op->emitRemark()
            << "this write to " << bufferName(write)
            << (write.unsupported  ? " could not be proved free of races"
                : isUniform(write) ? " is the same in every thread"
                                   : " is proved free of races");
    }
  }
  if (remarks)
    kernel.getKernel().emitRemark()
        << "races of this kernel's " << numProved + numUnknown
        << " writes: " << numProved << " proved free, " << numUnknown
        << " not proved (" << formulas.numQueries() << " queries)";
  return success();
}

} // namespace tilec::tile::races

namespace {

using races::RaceVerifier;

struct VerifyRacesPass
    : public tilec::tile::impl::TileVerifyRacesBase<VerifyRacesPass> {
  using TileVerifyRacesBase::TileVerifyRacesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    WalkResult result = func.walk([&](KernelOp kernel) {
      RaceVerifier verifier(func, kernel, resourceLimit, remarks);
      return failed(verifier.run()) ? WalkResult::interrupt()
                                    : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
