//===- Distribute.cpp - Block-wide fragment code to per-thread code -------===//
//
// Part of tilec. Fragments become per-thread register arrays; tile.parallel
// loops, reductions and (for now, with shared operands) gemms become the
// code one thread runs, at every slot of their layouts. Which thread holds
// which element is decided by layout inference; this pass enumerates the
// layouts to check that every thread only touches the elements it holds and
// to compute the register slot of each access as a constant.
//
//===----------------------------------------------------------------------===//

#include "FragmentSlots.h"
#include "VectorizeRun.h"
#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

namespace tilec::tile {
#define GEN_PASS_DEF_TILEDISTRIBUTE
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// An element access to a fragment.
struct FragmentAccess {
  Operation *op;
  Value buffer;
  OperandRange indices;
};

std::optional<FragmentAccess> asFragmentAccess(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    if (isInScope(load.getMemRef().getType(), MemoryScope::Fragment))
      return FragmentAccess{op, load.getMemRef(), load.getIndices()};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    if (isInScope(store.getMemRef().getType(), MemoryScope::Fragment))
      return FragmentAccess{op, store.getMemRef(), store.getIndices()};
  return std::nullopt;
}

class KernelDistributor {
public:
  KernelDistributor(KernelOp kernel, TargetAttr target)
      : kernel(kernel), threads(kernel.getNumThreads()), target(target),
        slotFinder(threads) {}

  LogicalResult run();

private:
  FragmentLayoutAttr layoutOf(Value fragment) {
    auto alloc = fragment.getDefiningOp<AllocFragmentOp>();
    return alloc ? alloc.getLayoutAttr() : FragmentLayoutAttr();
  }

  /// The slot of `access` when thread `thread` runs the iteration whose
  /// induction variables have the values in `env`; fails with a diagnostic
  /// when the thread does not hold the element.
  FailureOr<int64_t> slotOf(const FragmentAccess &access,
                            const DenseMap<Value, int64_t> &env,
                            int64_t thread);
  /// The per-thread index values that `inverse` gives for constant `slot`.
  SmallVector<Value> emitInverse(OpBuilder &b, Location loc, AffineMap inverse,
                                 int64_t slot, unsigned count);
  /// The condition that thread-dependent `values` (from `layout`'s inverse
  /// at `slot`) are inside `extents`, checked only where some thread can
  /// fall outside; null when all can't.
  Value emitValidity(OpBuilder &b, Location loc, FragmentLayoutAttr layout,
                     int64_t slot, ValueRange values,
                     ArrayRef<int64_t> extents);

  LogicalResult distributeParallel(ParallelOp loop);
  /// How many consecutive slots of `loop`'s layout one vector body can
  /// run: slots that every thread runs together, at consecutive elements
  /// of the last dimension, inside the loop or outside it together, with
  /// fragment accesses at consecutive slots; 1 when no run qualifies or the
  /// loop touches no global or shared memory.
  int64_t runWidth(ParallelOp loop, ArrayRef<bool> anyThread,
                   ArrayRef<SmallVector<int64_t>> accessSlots);
  LogicalResult distributeReduce(ReduceOp reduce);
  LogicalResult distributeGemm(GemmOp gemm);
  /// Makes the threads that run `op` the ones the distribution is for:
  /// their number, and each one's index among them.
  void enterScope(Operation *op);
  /// Rewrites each tile.thread_range as an `if` on the thread index.
  void lowerThreadRanges();

  KernelOp kernel;
  int64_t threads;
  TargetAttr target;
  /// The block's linear thread index, and the current scope's: the index
  /// among the threads of a T.ws range.
  Value blockTid, tid;
  ThreadScope scope;
  DenseMap<Operation *, Value> rangeTids;
  DenseMap<Value, Value> registers;
  SlotFinder slotFinder;
  /// The shared buffers the cross-warp reductions exchange partials in, by
  /// element type and the first thread and count of the threads that run
  /// them (ranges run at once, so each has its own).
  llvm::MapVector<std::tuple<Type, int64_t, int64_t>,
                  SmallVector<AllocSharedOp>>
      reductionScratch;
  /// Gives the reductions of each element type and range of threads one
  /// scratch buffer, as large as the largest of theirs: each reduction's
  /// use of it lies between barriers of those threads, so none overlaps
  /// another's.
  void shareReductionScratch();
};

FailureOr<int64_t>
KernelDistributor::slotOf(const FragmentAccess &access,
                          const DenseMap<Value, int64_t> &env, int64_t thread) {
  FragmentLayoutAttr layout = layoutOf(access.buffer);
  if (!layout)
    return access.op->emitError()
           << describeFragment(access.buffer)
           << " has no layout; run layout inference first";
  IndexEvaluator evaluator(env);
  SmallVector<int64_t> index;
  for (Value value : access.indices) {
    std::optional<int64_t> i = evaluator.eval(value);
    if (!i)
      return access.op->emitError()
             << describeFragment(access.buffer)
             << " is indexed with a value that is not computed from the "
                "T.Parallel loop variables and constants";
    index.push_back(*i);
  }
  if (std::optional<int64_t> slot = slotFinder.find(layout, index, thread))
    return *slot;
  InFlightDiagnostic diag = access.op->emitError()
                            << "thread " << thread
                            << " reads or writes element [";
  llvm::interleaveComma(index, diag);
  diag << "] of " << describeFragment(access.buffer)
       << ", which its layout gives to another thread";
  diag.attachNote(access.buffer.getLoc()) << "the fragment is allocated here";
  diag.attachNote() << "a thread can only reach the fragment elements it "
                       "holds; to rearrange elements between threads, go "
                       "through shared memory (T.alloc_shared and T.copy)";
  return diag;
}

SmallVector<Value> KernelDistributor::emitInverse(OpBuilder &b, Location loc,
                                                  AffineMap inverse,
                                                  int64_t slot,
                                                  unsigned count) {
  MLIRContext *context = b.getContext();
  SmallVector<Value> values;
  for (unsigned i = 0; i < count; ++i) {
    // Substituting the slot folds the constant parts; a full simplification
    // would turn `t mod 32` into `t - (t floordiv 32) * 32`, which range
    // analysis bounds less tightly.
    AffineExpr expr = inverse.getResult(i).replaceDims(
        {getAffineDimExpr(0, context), getAffineConstantExpr(slot, context)});
    values.push_back(emitNonNegativeAffine(b, loc, expr, {tid, tid}));
  }
  return values;
}

Value KernelDistributor::emitValidity(OpBuilder &b, Location loc,
                                      FragmentLayoutAttr layout, int64_t slot,
                                      ValueRange values,
                                      ArrayRef<int64_t> extents) {
  Value valid;
  for (auto [dim, value] : llvm::enumerate(values)) {
    bool canFail = false;
    for (int64_t t = 0; t < threads && !canFail; ++t) {
      std::optional<int64_t> v =
          evaluateAffineExpr(layout.getInverse().getResult(dim), {t, slot});
      canFail = !v || *v >= extents[dim];
    }
    if (!canFail)
      continue;
    Value bound = arith::ConstantIndexOp::create(b, loc, extents[dim]);
    Value ok =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, value, bound);
    valid = valid ? arith::AndIOp::create(b, loc, valid, ok).getResult() : ok;
  }
  return valid;
}

LogicalResult KernelDistributor::distributeParallel(ParallelOp loop) {
  FragmentLayoutAttr layout = loop.getLayoutAttr();
  if (!layout)
    return loop.emitError() << "loop has no layout; run layout inference "
                               "first";
  if (!layout.getInverse())
    return loop.emitError()
           << "the loop's layout has no inverse map, which distribution "
              "needs to know the element each thread's slot holds";
  if (loop->getParentOfType<ParallelOp>())
    return loop.emitError() << "T.Parallel loops cannot be nested";
  Block &body = loop.getBody().front();
  SmallVector<FragmentAccess> accesses;
  body.walk([&](Operation *op) {
    if (std::optional<FragmentAccess> access = asFragmentAccess(op))
      accesses.push_back(*access);
  });

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  ArrayRef<int64_t> extents = loop.getExtents();
  ValueRange ivs = loop.getInductionVars();
  // For every slot: whether any thread runs an iteration there, and the
  // slot each fragment access then touches, the same for every thread (or
  // an error).
  int64_t slots = layout.getSlots();
  SmallVector<bool> anyThread(slots, false);
  SmallVector<SmallVector<int64_t>> accessSlots(
      slots, SmallVector<int64_t>(accesses.size(), -1));
  for (int64_t slot = 0; slot < slots; ++slot) {
    for (int64_t t = 0; t < threads; ++t) {
      std::optional<SmallVector<int64_t>> index = layout.applyInverse(t, slot);
      if (!index)
        continue;
      anyThread[slot] = true;
      DenseMap<Value, int64_t> env;
      for (auto [iv, value] : llvm::zip(ivs, *index))
        env[iv] = value;
      for (auto [i, access] : llvm::enumerate(accesses)) {
        FailureOr<int64_t> s = slotOf(access, env, t);
        if (failed(s))
          return failure();
        int64_t &known = accessSlots[slot][i];
        if (known == -1) {
          known = *s;
        } else if (known != *s) {
          return access.op->emitError()
                 << describeFragment(access.buffer)
                 << " is accessed at different register slots by different "
                    "threads in one step of the loop; its layout does not "
                    "match the loop's";
        }
      }
    }
  }

  // Every replica of an element runs its iteration; writes that other
  // threads see (tensors, shared memory, atomics) come from the first
  // replica alone, so that no two threads write one element.
  bool firstReplicaWrites =
      layout.getReplicate() > 1 &&
      body.walk([](Operation *op) {
            Value memref;
            if (auto store = dyn_cast<memref::StoreOp>(op))
              memref = store.getMemRef();
            else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op))
              memref = atomic.getMemref();
            bool visible =
                memref && !isInScope(memref.getType(), MemoryScope::Fragment) &&
                !isInScope(memref.getType(), MemoryScope::Local);
            return visible ? WalkResult::interrupt() : WalkResult::advance();
          })
          .wasInterrupted();
  // The element of a slot, and the condition under which the thread runs
  // its iteration (null: always).
  auto emitSlotIndices = [&](int64_t slot) {
    SmallVector<Value> indices = emitInverse(b, loc, layout.getInverse(), slot,
                                             ivs.size() + firstReplicaWrites);
    Value replica = firstReplicaWrites ? indices.pop_back_val() : Value();
    Value valid = emitValidity(b, loc, layout, slot, indices, extents);
    if (replica) {
      Value first =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, replica,
                                arith::ConstantIndexOp::create(b, loc, 0));
      valid = valid ? arith::AndIOp::create(b, loc, valid, first).getResult()
                    : first;
    }
    return std::make_pair(indices, valid);
  };

  // One iteration of the body per slot...
  auto emitSlot = [&](int64_t slot) {
    auto [indices, valid] = emitSlotIndices(slot);
    OpBuilder::InsertionGuard guard(b);
    if (valid) {
      auto ifOp = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    IRMapping mapping;
    mapping.map(ivs, indices);
    for (Operation &op : body.without_terminator())
      b.clone(op, mapping);
    for (auto [access, s] : llvm::zip(accesses, accessSlots[slot])) {
      Operation *clone = mapping.lookup(access.op);
      OpBuilder rewriter(clone);
      Value regs = registers.lookup(access.buffer);
      Value index =
          arith::ConstantIndexOp::create(rewriter, clone->getLoc(), s);
      if (auto load = dyn_cast<memref::LoadOp>(clone)) {
        Value value =
            memref::LoadOp::create(rewriter, load.getLoc(), regs, index);
        load.replaceAllUsesWith(value);
      } else {
        auto store = cast<memref::StoreOp>(clone);
        memref::StoreOp::create(rewriter, store.getLoc(),
                                store.getValueToStore(), regs, index);
      }
      clone->erase();
    }
  };
  // ...or one vector body per run of slots along the last dimension.
  auto emitRun = [&](int64_t slot, int64_t width) {
    auto [indices, valid] = emitSlotIndices(slot);
    OpBuilder::InsertionGuard guard(b);
    if (valid) {
      auto ifOp = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    DenseMap<Operation *, RunFragmentAccess> fragmentAccesses;
    for (auto [access, s] : llvm::zip(accesses, accessSlots[slot]))
      fragmentAccesses[access.op] = {registers.lookup(access.buffer), s};
    return emitVectorizedRun(b, body, indices, width, fragmentAccesses);
  };

  int64_t width = runWidth(loop, anyThread, accessSlots);
  for (int64_t slot = 0; slot < slots; slot += width) {
    if (!anyThread[slot])
      continue;
    if (width > 1 && succeeded(emitRun(slot, width)))
      continue;
    for (int64_t s = slot; s < slot + width; ++s)
      if (anyThread[s])
        emitSlot(s);
  }
  loop.erase();
  return success();
}

int64_t
KernelDistributor::runWidth(ParallelOp loop, ArrayRef<bool> anyThread,
                            ArrayRef<SmallVector<int64_t>> accessSlots) {
  FragmentLayoutAttr layout = loop.getLayoutAttr();
  ArrayRef<int64_t> extents = loop.getExtents();
  unsigned rank = extents.size();
  // At most 16 bytes per access to global or shared memory.
  int64_t maxWidth = 0;
  loop.getBody().walk([&](Operation *op) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemRef();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemRef();
    if (!memref || isInScope(memref.getType(), MemoryScope::Fragment) ||
        isInScope(memref.getType(), MemoryScope::Local))
      return;
    auto type = cast<MemRefType>(memref.getType());
    unsigned bits = type.getElementTypeBitWidth();
    // Bool and int4 elements take a byte each in memory but a bit or four
    // in a vector: they are accessed one at a time.
    int64_t limit = bits % 8 == 0 ? std::max<int64_t>(1, 128 / bits) : 1;
    maxWidth = maxWidth ? std::min(maxWidth, limit) : limit;
  });
  int64_t slots = layout.getSlots();
  for (int64_t width = maxWidth; width > 1; width /= 2) {
    if (slots % width != 0 || extents.back() % width != 0)
      continue;
    bool ok = true;
    for (int64_t slot = 0; ok && slot < slots; slot += width) {
      for (int64_t k = 1; ok && k < width; ++k) {
        ok = anyThread[slot + k] == anyThread[slot];
        for (auto [first, next] :
             llvm::zip(accessSlots[slot], accessSlots[slot + k]))
          ok = ok && (first == -1 || next == first + k);
      }
      for (int64_t t = 0; ok && t < threads; ++t) {
        std::optional<SmallVector<int64_t>> first =
            layout.applyInverse(t, slot);
        for (int64_t k = 1; ok && k < width; ++k) {
          std::optional<SmallVector<int64_t>> next =
              layout.applyInverse(t, slot + k);
          if (!first || !next) {
            ok = !first && !next;
            continue;
          }
          // The same element but k further along the last dimension,
          // starting a run at a multiple of the width (so that a bound
          // check of the run's first element holds for all of it).
          for (unsigned d = 0; ok && d < first->size(); ++d)
            ok = (*next)[d] == (*first)[d] + (d == rank - 1 ? k : 0);
          ok = ok && (*first)[rank - 1] % width == 0;
        }
      }
    }
    if (ok)
      return width;
  }
  return 1;
}

LogicalResult KernelDistributor::distributeReduce(ReduceOp reduce) {
  Value src = reduce.getSource(), dst = reduce.getDest();
  FragmentLayoutAttr srcLayout = layoutOf(src), dstLayout = layoutOf(dst);
  if (!srcLayout || !dstLayout || !dstLayout.getInverse())
    return reduce.emitError() << "reductions need fragments with layouts; "
                                 "run layout inference first";
  auto srcType = cast<MemRefType>(src.getType());
  int64_t extent = srcType.getShape().back();
  Reduction reduction{reduce.getKind(), srcType.getElementType()};
  Location loc = reduce.getLoc();
  // Lanes of a warp (a wave on AMD) combine through shuffles, warps through
  // shared memory.
  int64_t lanes = target.getWarpSize();
  int64_t numWarps = llvm::divideCeil(threads, lanes);
  unsigned dstRank = cast<MemRefType>(dst.getType()).getRank();
  bool scalarResult = srcType.getRank() == 1;

  // For every result slot: the source slots a thread may combine itself
  // (the union over threads; a thread skips those that hold nothing of its
  // row) and the lanes, as XOR masks, that hold the rest of the row. The
  // masks must be the same for every thread, so that the code is too.
  struct Step {
    int64_t slot;
    SmallVector<int64_t> localSlots;
    SmallVector<int64_t> masks;
  };
  // Where the elements of each source row are, by the row's row-major
  // position: each holding thread's slots, in the row's order, and the
  // first element it holds. Computed once per row, not once per thread of
  // the row, so that the work is linear in the source's size.
  struct RowPlaces {
    llvm::MapVector<int64_t, std::pair<int64_t, SmallVector<int64_t>>> holders;
  };
  DenseMap<int64_t, RowPlaces> rowPlaces;
  ArrayRef<int64_t> rowShape = srcType.getShape().drop_back();
  auto placesOf = [&](ArrayRef<int64_t> row) -> const RowPlaces * {
    auto [it, inserted] = rowPlaces.try_emplace(linearizeIndex(row, rowShape));
    if (!inserted)
      return &it->second;
    for (int64_t k = 0; k < extent; ++k) {
      SmallVector<int64_t> element(row);
      element.push_back(k);
      std::optional<std::pair<int64_t, int64_t>> place =
          srcLayout.apply(element);
      if (!place)
        return nullptr;
      auto &holder = it->second.holders[place->first];
      if (holder.second.empty())
        holder.first = k;
      holder.second.push_back(place->second);
    }
    return &it->second;
  };
  SmallVector<Step> steps;
  for (int64_t slot = 0; slot < dstLayout.getSlots(); ++slot) {
    llvm::SmallSetVector<int64_t, 16> localSlots;
    std::optional<SmallVector<int64_t>> masks;
    // The row each thread reduces at this slot, for the check below.
    DenseMap<int64_t, SmallVector<int64_t>> rowOf;
    for (int64_t t = 0; t < threads; ++t) {
      std::optional<SmallVector<int64_t>> index =
          dstLayout.applyInverse(t, slot);
      if (!index)
        continue;
      SmallVector<int64_t> row(index->begin(), index->begin() + dstRank);
      if (scalarResult)
        row.clear();
      llvm::SmallSetVector<int64_t, 8> partners;
      for (int64_t r = 0; r < dstLayout.getReplicate(); ++r) {
        SmallVector<int64_t> element(index->begin(), index->begin() + dstRank);
        std::optional<std::pair<int64_t, int64_t>> replica =
            dstLayout.apply(element, r);
        if (replica)
          partners.insert(replica->first ^ t);
      }
      const RowPlaces *places = placesOf(row);
      if (!places)
        return reduce.emitError() << "the source layout cannot be evaluated";
      for (const auto &[holder, held] : places->holders) {
        if (!partners.contains(holder ^ t))
          return reduce.emitError()
                 << "element " << held.first << " of a row is held by thread "
                 << holder
                 << ", which does not hold the row's result; the layouts of "
                    "the source and the result do not match";
        if (holder == t)
          localSlots.insert(held.second.begin(), held.second.end());
      }
      rowOf[t] = row;
      SmallVector<int64_t> sortedMasks(partners.begin(), partners.end());
      llvm::sort(sortedMasks);
      if (!masks)
        masks = sortedMasks;
      else if (*masks != sortedMasks)
        return reduce.emitError()
               << "the threads that share a row of this reduction are not "
                  "grouped alike across the block";
    }
    if (!masks)
      continue;
    // A slot a thread combines holds an element of that thread's row, or
    // nothing (a padding slot, skipped at run time).
    for (int64_t s : localSlots) {
      for (int64_t t = 0; t < threads; ++t) {
        std::optional<SmallVector<int64_t>> element =
            srcLayout.applyInverse(t, s);
        if (!element)
          continue;
        auto row = rowOf.find(t);
        SmallVector<int64_t> expected =
            row == rowOf.end() ? SmallVector<int64_t>{} : row->second;
        SmallVector<int64_t> actual(element->begin(), element->end() - 1);
        if (row == rowOf.end() || actual != expected)
          return reduce.emitError()
                 << "thread " << t << " holds, in register " << s
                 << ", an element of another row than the one it reduces; "
                    "the layouts of the source and the result do not match";
      }
    }
    // The partners must be the lanes reachable by XOR butterflies: all
    // combinations of some bits, and nothing else.
    SmallVector<int64_t> basis;
    int64_t bits = 0;
    for (int64_t mask : *masks) {
      if (mask != 0 && llvm::isPowerOf2_64(mask)) {
        basis.push_back(mask);
        bits |= mask;
      }
    }
    bool closed = llvm::all_of(*masks, [&](int64_t m) { return !(m & ~bits); });
    if (!closed ||
        static_cast<int64_t>(masks->size()) != (int64_t(1) << basis.size()))
      return reduce.emitError()
             << "the threads that share a row of this reduction are not a "
                "power-of-two group of lanes";
    steps.push_back({slot,
                     SmallVector<int64_t>(localSlots.begin(), localSlots.end()),
                     std::move(basis)});
  }

  OpBuilder b(reduce);
  Value srcRegs = registers.lookup(src), dstRegs = registers.lookup(dst);
  SmallVector<Value> partials;
  bool crossWarp = false;
  for (const Step &step : steps) {
    Value identity = reduction.identity(b, loc);
    Value acc;
    for (int64_t s : step.localSlots) {
      Value index = arith::ConstantIndexOp::create(b, loc, s);
      Value value = memref::LoadOp::create(b, loc, srcRegs, index);
      value = reduction.element(b, loc, value);
      // Padding slots, past the end of a row, contribute nothing.
      SmallVector<Value> element =
          emitInverse(b, loc, srcLayout.getInverse(), s, srcType.getRank());
      if (Value valid =
              emitValidity(b, loc, srcLayout, s, element, srcType.getShape()))
        value = arith::SelectOp::create(b, loc, valid, value, identity);
      acc = acc ? reduction.combine(b, loc, acc, value) : value;
    }
    if (!acc)
      acc = identity;
    for (int64_t mask : step.masks) {
      if (mask >= lanes) {
        crossWarp = true;
        continue;
      }
      // Shuffles move 32-bit words: narrow floats travel widened.
      Value moved = acc;
      bool narrow = acc.getType().getIntOrFloatBitWidth() < 32;
      if (narrow)
        moved = convertElement(b, loc, acc, b.getF32Type());
      auto shuffle = gpu::ShuffleOp::create(b, loc, moved, mask, lanes,
                                            gpu::ShuffleMode::XOR);
      Value other = shuffle.getShuffleResult();
      if (narrow)
        other = convertElement(b, loc, other, acc.getType());
      acc = reduction.combine(b, loc, acc, other);
    }
    partials.push_back(acc);
  }

  if (crossWarp) {
    // Each warp leaves its partial in shared memory, then every thread
    // combines the partials of the warps of its group. Warps past the grid
    // (blocks of 100 or 325 threads) have groups that reach past the last
    // warp; the scratch covers them so that their reads stay inside.
    int64_t perStep =
        static_cast<int64_t>(llvm::PowerOf2Ceil(numWarps)) * lanes;
    Block *kernelBody = &kernel.getBody().front();
    OpBuilder allocBuilder = OpBuilder::atBlockBegin(kernelBody);
    auto scratchType = MemRefType::get(
        {static_cast<int64_t>(steps.size()) * perStep}, reduction.type,
        MemRefLayoutAttrInterface(),
        MemoryScopeAttr::get(b.getContext(), MemoryScope::Shared));
    auto scratch =
        AllocSharedOp::create(allocBuilder, loc, TypeRange{scratchType},
                              ValueRange{}, ArrayRef<NamedAttribute>{});
    reductionScratch[{reduction.type, scope.first, scope.count}].push_back(
        scratch);
    Value warpSize = arith::ConstantIndexOp::create(b, loc, lanes);
    Value lane = arith::RemUIOp::create(b, loc, tid, warpSize);
    Value warp = arith::DivUIOp::create(b, loc, tid, warpSize);
    auto slotIndex = [&](int64_t step, Value warpIndex) {
      Value base = arith::ConstantIndexOp::create(b, loc, step * perStep);
      Value offset = arith::MulIOp::create(b, loc, warpIndex, warpSize);
      return arith::AddIOp::create(b, loc, base,
                                   arith::AddIOp::create(b, loc, offset, lane));
    };
    createScopeBarrier(b, loc, scope);
    for (auto [i, acc] : llvm::enumerate(partials))
      memref::StoreOp::create(b, loc, acc, scratch,
                              ValueRange{slotIndex(i, warp)});
    createScopeBarrier(b, loc, scope);
    for (auto [i, step] : llvm::enumerate(steps)) {
      SmallVector<int64_t> warpMasks;
      for (int64_t mask : step.masks)
        if (mask >= lanes)
          warpMasks.push_back(mask / lanes);
      // The group's warps are `first ^ offset` over all XOR combinations of
      // the masks. When the masks are single bits, every warp of a group
      // combines the partials in the same order, starting from the group's
      // first warp, so that all replicas of a result are bitwise equal
      // (floating-point sums depend on the order).
      bool singleBits = llvm::all_of(
          warpMasks, [](int64_t mask) { return llvm::isPowerOf2_64(mask); });
      int64_t bits = 0;
      for (int64_t mask : warpMasks)
        bits |= mask;
      Value first = warp;
      if (singleBits)
        first = arith::AndIOp::create(
            b, loc, warp, arith::ConstantIndexOp::create(b, loc, ~bits));
      for (int64_t combo = singleBits ? 0 : 1;
           combo < (int64_t(1) << warpMasks.size()); ++combo) {
        int64_t offset = 0;
        for (auto [bit, mask] : llvm::enumerate(warpMasks))
          if (combo & (int64_t(1) << bit))
            offset ^= mask;
        Value other = arith::XOrIOp::create(
            b, loc, first, arith::ConstantIndexOp::create(b, loc, offset));
        Value value = memref::LoadOp::create(b, loc, scratch,
                                             ValueRange{slotIndex(i, other)});
        partials[i] =
            combo == 0 ? value : reduction.combine(b, loc, partials[i], value);
      }
    }
    createScopeBarrier(b, loc, scope);
  }

  for (auto [step, acc] : llvm::zip(steps, partials)) {
    Value index = arith::ConstantIndexOp::create(b, loc, step.slot);
    Value result = acc;
    if (!reduce.getClear()) {
      Value old = memref::LoadOp::create(b, loc, dstRegs, index);
      result = reduction.combine(b, loc, old, acc);
    }
    SmallVector<Value> dstIndex =
        emitInverse(b, loc, dstLayout.getInverse(), step.slot,
                    dstLayout.getInverse().getNumResults());
    SmallVector<int64_t> extents(cast<MemRefType>(dst.getType()).getShape());
    if (dstLayout.getReplicate() > 1)
      extents.push_back(dstLayout.getReplicate());
    Value valid = emitValidity(b, loc, dstLayout, step.slot, dstIndex, extents);
    OpBuilder::InsertionGuard guard(b);
    if (valid) {
      auto ifOp = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    memref::StoreOp::create(b, loc, result, dstRegs, index);
  }
  reduce.erase();
  return success();
}

LogicalResult KernelDistributor::distributeGemm(GemmOp gemm) {
  Value c = gemm.getC();
  FragmentLayoutAttr layout = layoutOf(c);
  if (MatrixInstructionAttrInterface instruction = gemm.getInstructionAttr()) {
    if (!llvm::is_contained(target.getMatrixInstructions(),
                            Attribute(instruction)))
      return gemm.emitError()
             << "the gemm runs on " << instruction << ", which the target ("
             << target.getChip() << ") does not have";
    std::string warning;
    if (!instruction.runsGemm(gemm, warning))
      return gemm.emitError() << "the gemm's types, shapes or block do not "
                                 "run on its instruction, "
                              << instruction;
    if (!layout ||
        !areEquivalentLayouts(layout, instruction.getAccumulatorLayout(gemm)))
      return gemm.emitError() << "the accumulator is not in the layout "
                              << instruction << " gives it";
    Value aRegisters;
    if (isInScope(gemm.getA().getType(), MemoryScope::Fragment)) {
      FragmentLayoutAttr aLayout = instruction.getOperandALayout(gemm);
      if (!aLayout || !areEquivalentLayouts(layoutOf(gemm.getA()), aLayout))
        return gemm.emitError() << "A in registers is not in the layout "
                                << instruction << " reads it in";
      aRegisters = registers.lookup(gemm.getA());
    }
    OpBuilder b(gemm);
    if (failed(instruction.emitGemm(b, gemm, tid, registers.lookup(c),
                                    aRegisters)))
      return failure();
    gemm.erase();
    return success();
  }

  // Elsewhere, multiply-adds on CUDA cores or vector ALUs.
  if (!isInScope(gemm.getB().getType(), MemoryScope::Shared))
    return gemm.emitError() << "T.gemm reads B from shared memory; B in "
                               "registers is not supported";
  if (!isInScope(gemm.getA().getType(), MemoryScope::Shared))
    return gemm.emitError()
           << "T.gemm with A in registers runs only on tensor cores: f16 or "
              "bf16 operands, in whole 16x8 warp tiles on NVIDIA or 16x16 "
              "wave tiles on AMD gfx90a and gfx942";
  if (!layout || !layout.getInverse() || layout.getReplicate() != 1)
    return gemm.emitError() << "the accumulator needs a layout";
  auto aType = cast<MemRefType>(gemm.getA().getType());
  auto cType = cast<MemRefType>(c.getType());
  int64_t k = aType.getDimSize(gemm.getTransposeA() ? 0 : 1);
  Type accType = cType.getElementType();
  Location loc = gemm.getLoc();
  OpBuilder b(gemm);
  Value regs = registers.lookup(c);
  // One loop over k around every accumulator slot the thread holds, as an
  // outer product: the operands each slot reads are loaded once per step,
  // and the back end sees one loop of bounded size rather than a loop per
  // slot, which it would unroll entirely (minutes on AMD for 4096
  // multiply-adds per thread).
  struct Slot {
    int64_t index;
    SmallVector<Value> ij;
    Value valid;
  };
  SmallVector<Slot> slots;
  SmallVector<Value> inits;
  for (int64_t slot = 0; slot < layout.getSlots(); ++slot) {
    bool any = false;
    for (int64_t t = 0; t < threads && !any; ++t)
      any = layout.applyInverse(t, slot).has_value();
    if (!any)
      continue;
    SmallVector<Value> ij = emitInverse(b, loc, layout.getInverse(), slot, 2);
    Value valid = emitValidity(b, loc, layout, slot, ij, cType.getShape());
    Value slotIndex = arith::ConstantIndexOp::create(b, loc, slot);
    inits.push_back(
        gemm.getClearAccum()
            ? createZero(b, loc, accType)
            : memref::LoadOp::create(b, loc, regs, slotIndex).getResult());
    slots.push_back({slot, std::move(ij), valid});
  }
  if (slots.empty()) {
    gemm.erase();
    return success();
  }
  auto multiplyAdd = [&](OpBuilder &lb, Location l, Value kk, const Slot &slot,
                         Value acc) -> Value {
    SmallVector<Value> aIndex = gemm.getTransposeA()
                                    ? SmallVector<Value>{kk, slot.ij[0]}
                                    : SmallVector<Value>{slot.ij[0], kk};
    SmallVector<Value> bIndex = gemm.getTransposeB()
                                    ? SmallVector<Value>{slot.ij[1], kk}
                                    : SmallVector<Value>{kk, slot.ij[1]};
    Value av = memref::LoadOp::create(lb, l, gemm.getA(), aIndex);
    Value bv = memref::LoadOp::create(lb, l, gemm.getB(), bIndex);
    av = convertElement(lb, l, av, accType);
    bv = convertElement(lb, l, bv, accType);
    if (isa<FloatType>(accType))
      return arith::AddFOp::create(lb, l, acc,
                                   arith::MulFOp::create(lb, l, av, bv));
    return arith::AddIOp::create(lb, l, acc,
                                 arith::MulIOp::create(lb, l, av, bv));
  };
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value kBound = arith::ConstantIndexOp::create(b, loc, k);
  auto loop = scf::ForOp::create(
      b, loc, zero, kBound, one, inits,
      [&](OpBuilder &lb, Location l, Value kk, ValueRange accs) {
        SmallVector<Value> sums;
        for (auto [slot, acc] : llvm::zip_equal(slots, accs)) {
          if (!slot.valid) {
            sums.push_back(multiplyAdd(lb, l, kk, slot, acc));
            continue;
          }
          // A thread that holds no element at this slot reads nothing.
          auto ifOp = scf::IfOp::create(lb, l, TypeRange{accType}, slot.valid,
                                        /*withElseRegion=*/true);
          OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
          scf::YieldOp::create(thenBuilder, l,
                               multiplyAdd(thenBuilder, l, kk, slot, acc));
          OpBuilder elseBuilder = ifOp.getElseBodyBuilder();
          scf::YieldOp::create(elseBuilder, l, acc);
          sums.push_back(ifOp.getResult(0));
        }
        scf::YieldOp::create(lb, l, sums);
      });
  for (auto [slot, sum] : llvm::zip_equal(slots, loop.getResults())) {
    OpBuilder::InsertionGuard guard(b);
    if (slot.valid) {
      auto ifOp =
          scf::IfOp::create(b, loc, slot.valid, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    Value slotIndex = arith::ConstantIndexOp::create(b, loc, slot.index);
    memref::StoreOp::create(b, loc, sum, regs, slotIndex);
  }
  gemm.erase();
  return success();
}

void KernelDistributor::shareReductionScratch() {
  for (SmallVector<AllocSharedOp> &scratches :
       llvm::make_second_range(reductionScratch)) {
    if (scratches.size() < 2)
      continue;
    AllocSharedOp largest =
        *llvm::max_element(scratches, [](AllocSharedOp a, AllocSharedOp b) {
          return a.getType().getNumElements() < b.getType().getNumElements();
        });
    for (AllocSharedOp scratch : scratches) {
      if (scratch == largest)
        continue;
      // Only element loads and stores at 1-D indices use a scratch buffer,
      // which read the larger one the same.
      scratch.getResult().replaceAllUsesWith(largest.getResult());
      scratch.erase();
    }
  }
}

void KernelDistributor::enterScope(Operation *op) {
  ThreadScope next = threadScopeOf(op);
  if (next.range == scope.range && next.count == scope.count)
    return;
  scope = next;
  threads = scope.count;
  slotFinder = SlotFinder(threads);
  if (!scope.range) {
    tid = blockTid;
    return;
  }
  Value &rangeTid = rangeTids[scope.range];
  if (!rangeTid) {
    OpBuilder b = OpBuilder::atBlockBegin(&scope.range.getBody().front());
    Location loc = scope.range.getLoc();
    rangeTid = arith::SubIOp::create(
        b, loc, blockTid, arith::ConstantIndexOp::create(b, loc, scope.first));
  }
  tid = rangeTid;
}

void KernelDistributor::lowerThreadRanges() {
  SmallVector<ThreadRangeOp> ranges;
  kernel.walk([&](ThreadRangeOp range) { ranges.push_back(range); });
  for (ThreadRangeOp range : ranges) {
    OpBuilder b(range);
    Location loc = range.getLoc();
    ThreadScope scope = threadScopeOf(range);
    auto constant = [&](int64_t value) {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    // One unsigned compare: tid - first < count.
    Value offset =
        arith::SubIOp::create(b, loc, blockTid, constant(scope.first));
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         offset, constant(scope.count));
    auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    Block &then = ifOp.getThenRegion().front();
    Block &body = range.getBody().front();
    body.getTerminator()->erase();
    then.getOperations().splice(then.begin(), body.getOperations());
    range.erase();
  }
}

LogicalResult KernelDistributor::run() {
  Block *body = &kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(body);
  Location loc = kernel.getLoc();
  blockTid = tid = emitLinearThreadId(b, loc, kernel.getThreads());
  scope = threadScopeOf(kernel);

  SmallVector<AllocFragmentOp> fragments;
  kernel.walk([&](AllocFragmentOp alloc) { fragments.push_back(alloc); });
  for (AllocFragmentOp alloc : fragments) {
    FragmentLayoutAttr layout = alloc.getLayoutAttr();
    if (!layout)
      return alloc.emitError() << "fragment has no layout; run layout "
                                  "inference first";
    OpBuilder allocBuilder(alloc);
    auto type =
        MemRefType::get({layout.getSlots()}, alloc.getType().getElementType());
    registers[alloc] =
        memref::AllocaOp::create(allocBuilder, alloc.getLoc(), type);
  }

  SmallVector<Operation *> work;
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<ParallelOp, ReduceOp, GemmOp>(op)) {
      work.push_back(op);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  for (Operation *op : work) {
    enterScope(op);
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](ParallelOp loop) { return distributeParallel(loop); })
            .Case([&](ReduceOp reduce) { return distributeReduce(reduce); })
            .Case([&](GemmOp gemm) { return distributeGemm(gemm); });
    if (failed(result))
      return failure();
  }

  shareReductionScratch();
  lowerThreadRanges();

  for (AllocFragmentOp alloc : fragments) {
    for (Operation *user : alloc->getUsers()) {
      if (isa<AnnotateLayoutOp>(user))
        continue;
      InFlightDiagnostic diag =
          user->emitError()
          << describeFragment(alloc)
          << " is used outside a T.Parallel loop; a fragment's elements are "
             "spread over the threads and can only be reached from one";
      return diag;
    }
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      user->erase();
    alloc.erase();
  }
  return success();
}

struct DistributePass
    : public tilec::tile::impl::TileDistributeBase<DistributePass> {
  using TileDistributeBase::TileDistributeBase;

  void runOnOperation() override {
    TargetAttr target = TargetAttr::lookup(getOperation());
    WalkResult result = getOperation().walk([&](KernelOp kernel) {
      if (failed(KernelDistributor(kernel, target).run()))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
