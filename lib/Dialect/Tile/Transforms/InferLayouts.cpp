//===- InferLayouts.cpp - Fragment and loop layout inference --------------===//
//
// Part of tilec. Gives every fragment and every tile.parallel loop a layout:
// annotations first, then propagation between loops and the fragments they
// index, then the grid layout for whatever is still free.
//
//===----------------------------------------------------------------------===//

#include "FragmentSlots.h"
#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"
#include "tilec/Warnings.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace tilec::tile {
#define GEN_PASS_DEF_TILEINFERLAYOUTS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// A fragment element access in a loop body.
struct FragmentAccess {
  Operation *op;
  Value buffer;
  SmallVector<Value> indices;
};

/// The fragment (a tile.alloc_fragment result) `value` is, if any.
AllocFragmentOp getFragment(Value value) {
  return value.getDefiningOp<AllocFragmentOp>();
}

void collectAccesses(ParallelOp loop, SmallVectorImpl<FragmentAccess> &out) {
  loop.getBody().walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (getFragment(load.getMemRef()))
        out.push_back(
            {op, load.getMemRef(), SmallVector<Value>(load.getIndices())});
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (getFragment(store.getMemRef()))
        out.push_back(
            {op, store.getMemRef(), SmallVector<Value>(store.getIndices())});
    }
  });
}

/// Whether `indices` are the loop's induction variables, in order, for the
/// first `count` of them.
bool indexesLeading(ArrayRef<Value> indices, ValueRange ivs, size_t count) {
  if (indices.size() != count || count > ivs.size())
    return false;
  for (size_t i = 0; i < count; ++i)
    if (indices[i] != ivs[i])
      return false;
  return true;
}

/// A conflict between the layouts two uses of a fragment need, which a
/// copy through shared memory resolves: `user`, a tile.parallel loop, a
/// tile.reduce or a read outside the loops, gets the fragment's elements
/// from shared memory instead.
struct Conversion {
  Operation *user;
  AllocFragmentOp fragment;
  std::string reason;
};

class LayoutSolver {
public:
  /// A solver for the code of `kernel` that runs on `threads` threads
  /// together (the block's, or those of T.ws ranges of that size), and for
  /// the fragments `owners` gives to them.
  LayoutSolver(KernelOp kernel, int64_t threads,
               const DenseMap<Operation *, int64_t> &owners,
               int64_t maxVectorBytes, TargetAttr target)
      : kernel(kernel), threads(threads), owners(owners),
        maxVectorBytes(maxVectorBytes), target(target), slotFinder(threads) {}

  /// Lays out the kernel. Fails with a diagnostic, or without one when the
  /// layouts conflict in a way `takeConversion` says how to resolve.
  LogicalResult run();

  std::optional<Conversion> takeConversion() {
    return std::exchange(conversion, std::nullopt);
  }

private:
  struct Assignment {
    FragmentLayoutAttr layout;
    Location from;
  };

  /// Gives `alloc` `layout`, required by `from`; fails on a conflict.
  LogicalResult require(AllocFragmentOp alloc, FragmentLayoutAttr layout,
                        Operation *from, bool &changed);
  LogicalResult propagate(bool &changed);
  /// The next loop without a layout to give the grid layout: the one of
  /// highest rank and then most iterations, so that the 1-D loops over row
  /// statistics follow the 2-D loops over the rows instead of fixing a
  /// layout the reductions that write them cannot give. Loops that convert
  /// layouts go last, as their fragments' layouts come from elsewhere.
  ParallelOp nextFreeLoop();
  /// Records a conversion of `alloc` for the use of it at `from`, when
  /// that use can take it from shared memory.
  bool recordConversion(AllocFragmentOp alloc, Operation *from,
                        const Twine &reason);
  /// Records a conversion for the first read of a fragment by code outside
  /// the loops, which every thread runs, and fails.
  LogicalResult convertScalarReads();
  /// Records a conversion for the first fragment access of a loop that its
  /// thread does not hold in the layouts found, and fails.
  LogicalResult checkAccessesReach();
  /// Why `access` in `loop`, run in `layout`, cannot reach a fragment laid
  /// out as `held` from registers, or null when it can.
  const char *whyOutOfReach(ParallelOp loop, FragmentLayoutAttr layout,
                            const FragmentAccess &access,
                            FragmentLayoutAttr held);
  FragmentLayoutAttr defaultLayout(ArrayRef<int64_t> shape,
                                   unsigned elementBytes);
  FragmentLayoutAttr defaultLoopLayout(ParallelOp loop);
  /// Records on each gemm the first of the target's matrix instructions
  /// that runs it, and gives its accumulator, its A in registers and its
  /// shared operands the layouts that instruction reads; rejects A in
  /// registers for the gemms that run on none of them.
  LogicalResult seedGemmLayouts();
  /// Rejects fragments and loops whose share per thread is too large to
  /// unroll.
  LogicalResult checkThreadShares();
  /// Warns when the fragments need more registers than a thread has, and
  /// rejects kernels that need many times more, or whose gemms on CUDA
  /// cores unroll too many multiply-adds per thread.
  LogicalResult checkRegisterFootprint();

  /// Whether `op` is this solver's: a fragment of its threads, or code
  /// they run.
  bool owns(Operation *op) const {
    if (isa<AllocFragmentOp>(op))
      return owners.lookup(op) == threads;
    return threadScopeOf(op).count == threads;
  }

  KernelOp kernel;
  int64_t threads;
  const DenseMap<Operation *, int64_t> &owners;
  int64_t maxVectorBytes;
  TargetAttr target;
  llvm::MapVector<Operation *, Assignment> fragments;
  /// Gemms that run on CUDA cores or vector ALUs, a dot product per
  /// accumulator element.
  SmallVector<GemmOp> scalarGemms;
  DenseMap<Operation *, FragmentLayoutAttr> loops;
  SmallVector<ParallelOp> loopOrder;
  SmallVector<ReduceOp> reduces;
  SlotFinder slotFinder;
  std::optional<Conversion> conversion;
};

bool isConversionLoop(ParallelOp loop) {
  return loop->hasAttr(kLayoutConversionAttrName);
}

bool LayoutSolver::recordConversion(AllocFragmentOp alloc, Operation *from,
                                    const Twine &reason) {
  Operation *user = from;
  if (!isa<ReduceOp>(from))
    user = from->getParentOfType<ParallelOp>();
  if (!user)
    return false;
  if (auto loop = dyn_cast<ParallelOp>(user); loop && isConversionLoop(loop))
    return false;
  conversion = Conversion{user, alloc, reason.str()};
  return true;
}

LogicalResult LayoutSolver::require(AllocFragmentOp alloc,
                                    FragmentLayoutAttr layout, Operation *from,
                                    bool &changed) {
  auto it = fragments.find(alloc);
  if (it == fragments.end()) {
    fragments.insert({alloc, Assignment{layout, from->getLoc()}});
    changed = true;
    return success();
  }
  if (areEquivalentLayouts(it->second.layout, layout))
    return success();
  if (recordConversion(alloc, from,
                       "another use fixed its layout in another way"))
    return failure();
  InFlightDiagnostic diag = from->emitError()
                            << describeFragment(alloc)
                            << " is distributed over the threads in two ways "
                               "that do not match";
  diag.attachNote(it->second.from) << "its layout was fixed here";
  diag.attachNote(alloc.getLoc()) << "the fragment is allocated here";
  return diag;
}

LogicalResult LayoutSolver::propagate(bool &changed) {
  for (ParallelOp loop : loopOrder) {
    SmallVector<FragmentAccess> accesses;
    collectAccesses(loop, accesses);
    ValueRange ivs = loop.getInductionVars();
    size_t rank = ivs.size();

    // A loop that indexes a laid-out fragment with its own variables runs
    // in that fragment's layout.
    if (!loops.count(loop)) {
      for (const FragmentAccess &access : accesses) {
        auto it = fragments.find(getFragment(access.buffer));
        if (it != fragments.end() &&
            indexesLeading(access.indices, ivs, rank) &&
            it->second.layout.getShape() == loop.getExtents()) {
          loops[loop] = it->second.layout;
          changed = true;
          break;
        }
      }
    }
    auto loopLayout = loops.find(loop);
    if (loopLayout == loops.end())
      continue;

    for (const FragmentAccess &access : accesses) {
      AllocFragmentOp alloc = getFragment(access.buffer);
      // A loop over part of a fragment does not lay out the rest of it.
      if (indexesLeading(access.indices, ivs, rank) &&
          cast<MemRefType>(alloc.getType()).getShape() == loop.getExtents()) {
        if (failed(require(alloc, loopLayout->second, access.op, changed)))
          return failure();
      } else if (rank > 1 && indexesLeading(access.indices, ivs, rank - 1) &&
                 !fragments.count(alloc)) {
        // `b[i]` in a loop over (i, j): b is held by the threads of row i.
        FailureOr<FragmentLayoutAttr> rows =
            dropLastDimension(loopLayout->second);
        if (succeeded(rows) &&
            (*rows).getShape() == cast<MemRefType>(alloc.getType()).getShape())
          if (failed(require(alloc, *rows, access.op, changed)))
            return failure();
      }
    }
  }

  for (ReduceOp reduce : reduces) {
    AllocFragmentOp src = getFragment(reduce.getSource());
    AllocFragmentOp dst = getFragment(reduce.getDest());
    if (!src || !dst)
      return reduce.emitError() << "reductions of shared or local buffers "
                                   "are not supported yet; reduce a fragment";
    int64_t rank = cast<MemRefType>(src.getType()).getRank();
    if (reduce.getDimAttr().getInt() != rank - 1)
      return reduce.emitError()
             << "reductions over dimension " << reduce.getDimAttr().getInt()
             << " of a rank-" << rank
             << " fragment are not supported yet; only the last dimension";
    auto it = fragments.find(src);
    if (it == fragments.end())
      continue;
    FailureOr<FragmentLayoutAttr> rows = dropLastDimension(it->second.layout);
    if (failed(rows) &&
        recordConversion(src, reduce, "its layout cannot be split into rows"))
      return failure();
    if (failed(rows))
      return reduce.emitError()
             << "the layout of the reduced fragment cannot be split into "
                "rows; reductions support grid layouts for now";
    if ((*rows).getShape() != cast<MemRefType>(dst.getType()).getShape())
      return reduce.emitError()
             << "the result of a reduction is written to a buffer of the "
                "reduced shape; keeping the reduced dimension is not "
                "supported yet";
    if (failed(require(dst, *rows, reduce, changed)))
      return failure();
  }
  return success();
}

LogicalResult LayoutSolver::seedGemmLayouts() {
  SmallVector<Attribute> instructions = target.getMatrixInstructions();
  WalkResult result = kernel.walk([&](GemmOp gemm) {
    if (!owns(gemm))
      return WalkResult::advance();
    MatrixInstructionAttrInterface chosen;
    for (Attribute attr : instructions) {
      auto instruction = cast<MatrixInstructionAttrInterface>(attr);
      std::string warning;
      if (instruction.runsGemm(gemm, warning)) {
        chosen = instruction;
        break;
      }
      if (!warning.empty())
        gemm.emitWarning() << warning << getWarningTag(Warning::GemmFallback);
    }
    if (!chosen) {
      // On CUDA cores each thread reads whole rows of A, which no layout of
      // A in registers gives it next to the accumulator's.
      if (!getFragment(gemm.getA())) {
        scalarGemms.push_back(gemm);
        return WalkResult::advance();
      }
      std::string operandType;
      llvm::raw_string_ostream(operandType)
          << cast<MemRefType>(gemm.getA().getType()).getElementType();
      gemm.emitError()
          << "T.gemm with A in registers runs only on tensor cores: f16 or "
             "bf16 operands, in whole 16x8 warp tiles on NVIDIA or 16x16 "
             "wave tiles on AMD gfx90a and gfx942; this gemm, of "
          << operandType
          << " operands, does not, so tilec has no layout for its A: stage "
             "A in shared memory (T.alloc_shared and T.copy) instead";
      return WalkResult::interrupt();
    }
    gemm.setInstructionAttr(chosen);
    chosen.chooseSharedLayouts(gemm);
    bool changed = false;
    if (AllocFragmentOp c = getFragment(gemm.getC()))
      if (failed(require(c, chosen.getAccumulatorLayout(gemm), gemm, changed)))
        return WalkResult::interrupt();
    if (AllocFragmentOp a = getFragment(gemm.getA())) {
      if (gemm.getTransposeA()) {
        gemm.emitError() << "T.gemm with A in registers takes it "
                            "untransposed (transpose_A=False)";
        return WalkResult::interrupt();
      }
      if (failed(require(a, chosen.getOperandALayout(gemm), gemm, changed)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

FragmentLayoutAttr LayoutSolver::defaultLayout(ArrayRef<int64_t> shape,
                                               unsigned elementBytes) {
  int64_t maxVector = std::max<int64_t>(1, maxVectorBytes / elementBytes);
  GridLayoutParams params = chooseGridLayout(shape, threads, maxVector);
  return makeGridLayout(kernel.getContext(), shape, threads, params);
}

FragmentLayoutAttr LayoutSolver::defaultLoopLayout(ParallelOp loop) {
  // Vectors as wide as the widest element of global or shared memory the
  // loop touches allows, so that those accesses coalesce into 16-byte
  // pieces; fragments only live in registers.
  unsigned elementBytes = 0, fragmentBytes = 4;
  loop.getBody().walk([&](Operation *op) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemRef();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemRef();
    if (!memref)
      return;
    auto type = cast<MemRefType>(memref.getType());
    unsigned bytes =
        std::max(1u, type.getElementType().getIntOrFloatBitWidth() / 8);
    if (isInScope(type, MemoryScope::Global) ||
        isInScope(type, MemoryScope::Shared))
      elementBytes = std::max(elementBytes, bytes);
    else
      fragmentBytes = bytes;
  });
  return defaultLayout(loop.getExtents(),
                       elementBytes ? elementBytes : fragmentBytes);
}

LogicalResult LayoutSolver::checkThreadShares() {
  // Each thread's share of a fragment or loop is unrolled. Far past what a
  // thread's 255 registers hold, it only makes compilation slow: ptxas
  // takes 16 s over a softmax row of 1024 floats in one thread, and 23 s
  // over three fragments of 4096.
  constexpr int64_t kMaxShare = 1024;
  constexpr int64_t kMaxTotal = 4096;
  auto eachThread = [&] {
    return threads == 1
               ? std::string("the block's one thread")
               : llvm::formatv("each of the {0} threads", threads).str();
  };
  int64_t total = 0;
  auto checkTotal = [&](Operation *op, int64_t share) -> LogicalResult {
    total += share;
    if (total <= kMaxTotal)
      return success();
    return op->emitError()
           << "with this one, the kernel's fragments and T.Parallel loops "
              "give "
           << eachThread() << " " << total
           << " elements and iterations in all; at most " << kMaxTotal
           << " can be unrolled: use smaller tiles, more threads, shared "
              "memory or T.serial loops";
  };
  for (auto [op, assignment] : fragments) {
    int64_t share = assignment.layout.getSlots();
    if (share > kMaxShare)
      return op->emitError()
             << describeFragment(cast<AllocFragmentOp>(op)) << " puts " << share
             << " elements in " << eachThread() << "; at most " << kMaxShare
             << " can be unrolled (and 255 registers hold far fewer): use a "
                "smaller tile, more threads or shared memory";
    if (failed(checkTotal(op, share)))
      return failure();
  }
  // Unrolled loops copy their bodies: long bodies make even short shares
  // slow (a body of 243 operations over 1024 iterations: 1.7 s to the LLVM
  // dialect).
  constexpr int64_t kMaxCopiedOps = int64_t(1) << 16;
  int64_t copiedOps = 0;
  for (ParallelOp loop : loopOrder) {
    int64_t share = loops[loop].getSlots();
    if (share > kMaxShare)
      return loop.emitError()
             << "this T.Parallel loop gives " << eachThread() << " " << share
             << " iterations; at most " << kMaxShare
             << " can be unrolled: put a T.serial loop around a smaller "
                "T.Parallel, or use more threads";
    if (failed(checkTotal(loop, share)))
      return failure();
    int64_t bodyOps = 0;
    loop.getBody().walk([&](Operation *) { ++bodyOps; });
    copiedOps += share * bodyOps;
    if (copiedOps > kMaxCopiedOps)
      return loop.emitError()
             << "with this loop's body of " << bodyOps << " operations over "
             << share << " iterations per thread, the kernel's T.Parallel "
             << "loops copy " << copiedOps << " operations in all when "
             << "unrolled; at most " << kMaxCopiedOps
             << ": use more threads, or T.serial loops for long bodies";
  }
  return success();
}

LogicalResult LayoutSolver::run() {
  kernel.walk([&](Operation *op) {
    if (!owns(op))
      return;
    if (auto loop = dyn_cast<ParallelOp>(op)) {
      loopOrder.push_back(loop);
      if (FragmentLayoutAttr layout = loop.getLayoutAttr())
        loops[loop] = layout;
      else if (!loop.isCollective())
        loops[loop] = makeReplicatedLayout(kernel.getContext(),
                                           loop.getExtents(), threads);
    } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
      reduces.push_back(reduce);
    } else if (auto alloc = dyn_cast<AllocFragmentOp>(op)) {
      if (FragmentLayoutAttr layout = alloc.getLayoutAttr())
        fragments.insert({alloc, Assignment{layout, alloc.getLoc()}});
    }
  });
  bool ignored = false;
  WalkResult annotations = kernel.walk([&](AnnotateLayoutOp annotate) {
    if (AllocFragmentOp alloc = getFragment(annotate.getBuffer());
        alloc && owns(alloc))
      if (failed(require(alloc, cast<FragmentLayoutAttr>(annotate.getLayout()),
                         annotate, ignored)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (annotations.wasInterrupted())
    return failure();
  for (auto [alloc, assignment] : fragments)
    if (assignment.layout.getThreads() != threads)
      return alloc->emitError()
             << describeFragment(cast<AllocFragmentOp>(alloc))
             << " has a layout over " << assignment.layout.getThreads()
             << " threads, but its kernel runs " << threads;

  if (failed(seedGemmLayouts()))
    return failure();

  while (true) {
    bool changed = false;
    if (failed(propagate(changed)))
      return failure();
    if (changed)
      continue;
    // Nothing constrains what is left: a free loop takes the grid layout,
    // and propagation resumes from it.
    ParallelOp free = nextFreeLoop();
    if (!free)
      break;
    loops[free] = defaultLoopLayout(free);
  }

  // Fragments no loop or reduction reaches keep the grid layout.
  kernel.walk([&](AllocFragmentOp alloc) {
    if (fragments.count(alloc) || !owns(alloc))
      return;
    auto type = cast<MemRefType>(alloc.getType());
    unsigned bytes =
        std::max(1u, type.getElementType().getIntOrFloatBitWidth() / 8);
    fragments.insert({alloc, Assignment{defaultLayout(type.getShape(), bytes),
                                        alloc.getLoc()}});
  });

  if (failed(convertScalarReads()) || failed(checkAccessesReach()) ||
      failed(checkThreadShares()) || failed(checkRegisterFootprint()))
    return failure();
  for (auto [op, assignment] : fragments)
    cast<AllocFragmentOp>(op).setLayoutAttr(assignment.layout);
  for (ParallelOp loop : loopOrder)
    loop.setLayoutAttr(loops[loop]);
  return success();
}

ParallelOp LayoutSolver::nextFreeLoop() {
  ParallelOp best;
  auto key = [](ParallelOp loop) {
    ArrayRef<int64_t> extents = loop.getExtents();
    int64_t iterations = 1;
    for (int64_t extent : extents)
      iterations *= extent;
    return std::make_tuple(!isConversionLoop(loop), extents.size(), iterations);
  };
  for (ParallelOp loop : loopOrder)
    if (!loops.count(loop) && (!best || key(loop) > key(best)))
      best = loop;
  return best;
}

LogicalResult LayoutSolver::convertScalarReads() {
  WalkResult result = kernel.walk([&](memref::LoadOp load) {
    AllocFragmentOp alloc = getFragment(load.getMemRef());
    if (!alloc || !owns(alloc) || load->getParentOfType<ParallelOp>())
      return WalkResult::advance();
    conversion = Conversion{load, alloc,
                            "code outside the T.Parallel loops, which every "
                            "thread runs, reads it"};
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

const char *LayoutSolver::whyOutOfReach(ParallelOp loop,
                                        FragmentLayoutAttr layout,
                                        const FragmentAccess &access,
                                        FragmentLayoutAttr held) {
  ValueRange ivs = loop.getInductionVars();
  for (int64_t slot = 0; slot < layout.getSlots(); ++slot) {
    // Registers are named at compile time: in one step of the loop, every
    // thread must find its element at the same slot.
    std::optional<int64_t> stepSlot;
    for (int64_t t = 0; t < threads; ++t) {
      std::optional<SmallVector<int64_t>> index = layout.applyInverse(t, slot);
      if (!index)
        continue;
      DenseMap<Value, int64_t> env;
      for (auto [iv, value] : llvm::zip(ivs, *index))
        env[iv] = value;
      IndexEvaluator evaluator(env);
      SmallVector<int64_t> element;
      for (Value value : access.indices) {
        std::optional<int64_t> i = evaluator.eval(value);
        if (!i)
          return "the loop indexes it with a value that is not computed from "
                 "its variables and constants";
        element.push_back(*i);
      }
      std::optional<int64_t> found = slotFinder.find(held, element, t);
      if (!found)
        return "the loop reads or writes elements its layout gives to other "
               "threads";
      if (stepSlot && *stepSlot != *found)
        return "the threads hold the elements one step of the loop reads or "
               "writes at different registers";
      stepSlot = found;
    }
  }
  return nullptr;
}

LogicalResult LayoutSolver::checkAccessesReach() {
  for (ParallelOp loop : loopOrder) {
    FragmentLayoutAttr layout = loops[loop];
    if (!layout.getInverse())
      continue;
    SmallVector<FragmentAccess> accesses;
    collectAccesses(loop, accesses);
    ValueRange ivs = loop.getInductionVars();
    for (const FragmentAccess &access : accesses) {
      AllocFragmentOp alloc = getFragment(access.buffer);
      auto assignment = fragments.find(alloc);
      // Accesses by the loop's own variables hold by construction.
      if (assignment == fragments.end() ||
          (indexesLeading(access.indices, ivs, ivs.size()) &&
           assignment->second.layout.getShape() == loop.getExtents()))
        continue;
      const char *reason =
          whyOutOfReach(loop, layout, access, assignment->second.layout);
      if (reason && recordConversion(alloc, access.op, reason))
        return failure();
    }
  }
  return success();
}

LogicalResult LayoutSolver::checkRegisterFootprint() {
  // What the fragments hold, in 32-bit registers (narrower elements packed).
  // Past the register file the rest spills to local memory; past several
  // times it the back ends take minutes (an f32 accumulator of 128x256 on
  // 32 threads: 1024 registers, 57 s in LLVM's NVPTX back end).
  constexpr int64_t kMaxOverRegisterFile = 4;
  int64_t registers = 0;
  Operation *largest = nullptr;
  int64_t largestRegisters = 0;
  for (auto [op, assignment] : fragments) {
    auto type = cast<MemRefType>(cast<AllocFragmentOp>(op).getType());
    int64_t bits = std::max<int64_t>(type.getElementTypeBitWidth(), 1);
    int64_t fragmentRegisters =
        llvm::divideCeil(assignment.layout.getSlots() * bits, 32);
    registers += fragmentRegisters;
    if (fragmentRegisters > largestRegisters) {
      largest = op;
      largestRegisters = fragmentRegisters;
    }
  }
  int64_t registersPerThread = target.getRegisters();
  if (registersPerThread > 0 && registers > registersPerThread) {
    bool tooMany = registers > kMaxOverRegisterFile * registersPerThread;
    InFlightDiagnostic diag =
        tooMany ? largest->emitError() : largest->emitWarning();
    diag << "the kernel's fragments need " << registers
         << " 32-bit registers per thread (this one " << largestRegisters
         << "); a thread has " << registersPerThread
         << ", and the rest spills to local memory, "
         << (tooMany ? "more than the back end can compile in reasonable "
                       "time"
                     : "which is slow")
         << ": use smaller tiles or more threads"
         << (tooMany ? "" : getWarningTag(Warning::RegisterSpill));
    if (tooMany)
      return failure();
  }
  // A gemm on CUDA cores is a dot product of K terms per accumulator
  // element, which the back end unrolls: 4096 multiply-adds per thread
  // compile in about 4 s (int8, 128x64 on 32 threads, K 16, on gfx90a and
  // gfx1100), 8192 in 4 to 21 s.
  constexpr int64_t kMaxScalarGemmTerms = 4096;
  bool onAmd = target.has(TargetFeature::Mfma);
  for (GemmOp gemm : scalarGemms) {
    AllocFragmentOp c = getFragment(gemm.getC());
    if (!c)
      continue;
    auto aType = cast<MemRefType>(gemm.getA().getType());
    int64_t k = aType.getDimSize(gemm.getTransposeA() ? 0 : 1);
    auto assignment = fragments.find(c);
    if (assignment == fragments.end())
      continue;
    int64_t terms = assignment->second.layout.getSlots() * k;
    if (terms > kMaxScalarGemmTerms)
      return gemm.emitError()
             << "T.gemm runs on " << (onAmd ? "the vector ALUs" : "CUDA cores")
             << " here, and gives each thread " << terms
             << " multiply-adds to unroll (its accumulator elements times K); "
                "at most "
             << kMaxScalarGemmTerms
             << " compile in reasonable time: use more threads, a smaller "
                "tile or a smaller K step, or operands the "
             << (onAmd ? "matrix" : "tensor") << " cores take";
  }
  return success();
}

/// A buffer in `scope` of `fragment`'s shape and element type, allocated
/// at the start of `kernel` and named after the fragment.
Value allocateLike(KernelOp kernel, AllocFragmentOp fragment, MemoryScope scope,
                   StringRef suffix) {
  MLIRContext *context = kernel.getContext();
  auto type = cast<MemRefType>(fragment.getType());
  auto newType = MemRefType::get(type.getShape(), type.getElementType(),
                                 MemRefLayoutAttrInterface(),
                                 MemoryScopeAttr::get(context, scope));
  Location loc = fragment.getLoc();
  if (auto name = dyn_cast<NameLoc>(loc))
    loc = NameLoc::get(
        StringAttr::get(context, name.getName().strref() + " (" + suffix + ")"),
        name.getChildLoc());
  OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
  if (scope == MemoryScope::Shared)
    return AllocSharedOp::create(b, loc, TypeRange{newType}, ValueRange{},
                                 ArrayRef<NamedAttribute>{});
  return AllocFragmentOp::create(b, loc, TypeRange{newType}, ValueRange{},
                                 ArrayRef<NamedAttribute>{});
}

/// At `b`'s insertion point, the loop `dst[...] = src[...]` over the whole
/// of both, marked as a layout conversion for `reason`.
void emitCopyLoop(OpBuilder &b, Location loc, Value dst, Value src,
                  StringRef reason) {
  auto loop =
      ParallelOp::create(b, loc, cast<MemRefType>(src.getType()).getShape());
  loop->setAttr(kLayoutConversionAttrName, b.getStringAttr(reason));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&loop.getBody().front());
  ValueRange ivs = loop.getInductionVars();
  Value value = memref::LoadOp::create(b, loc, src, ivs);
  memref::StoreOp::create(b, loc, value, dst, ivs);
}

/// Gives `conversion.user` the fragment's elements through shared memory.
/// A loop, or a read outside the loops, reads and writes a shared copy in
/// place of the fragment, which lets any thread reach any element; a
/// reduction gets a fragment of its own, laid out as it needs, copied from
/// and to the original through the shared copy.
void applyConversion(KernelOp kernel, const Conversion &conversion) {
  AllocFragmentOp fragment = conversion.fragment;
  Value original = fragment.getResult();
  Operation *user = conversion.user;
  Location loc = user->getLoc();
  StringRef reason = conversion.reason;
  Value shared =
      allocateLike(kernel, fragment, MemoryScope::Shared, "shared copy");
  OpBuilder before(user);
  OpBuilder after(user->getContext());
  after.setInsertionPointAfter(user);

  if (auto loop = dyn_cast<ParallelOp>(user)) {
    emitCopyLoop(before, loc, shared, original, reason);
    bool writes = false;
    loop.getBody().walk([&](Operation *op) {
      if (auto load = dyn_cast<memref::LoadOp>(op);
          load && load.getMemRef() == original)
        load.getMemrefMutable().assign(shared);
      if (auto store = dyn_cast<memref::StoreOp>(op);
          store && store.getMemRef() == original) {
        store.getMemrefMutable().assign(shared);
        writes = true;
      }
    });
    if (writes)
      emitCopyLoop(after, loc, original, shared, reason);
    return;
  }

  if (auto load = dyn_cast<memref::LoadOp>(user)) {
    emitCopyLoop(before, loc, shared, original, reason);
    load.getMemrefMutable().assign(shared);
    return;
  }

  auto reduce = cast<ReduceOp>(user);
  Value converted =
      allocateLike(kernel, fragment, MemoryScope::Fragment, "converted");
  bool isSource = reduce.getSource() == original;
  if (isSource || !reduce.getClear()) {
    emitCopyLoop(before, loc, shared, original, reason);
    emitCopyLoop(before, loc, converted, shared, reason);
  }
  if (isSource) {
    reduce.getSourceMutable().assign(converted);
    return;
  }
  reduce.getDestMutable().assign(converted);
  emitCopyLoop(after, loc, shared, converted, reason);
  emitCopyLoop(after, loc, original, shared, reason);
}

/// Gives each fragment of `kernel` to the number of threads that use it
/// together: the block's, or that of the T.ws ranges it is used in. The
/// threads of each range hold their own registers, so ranges of one size
/// share a layout; uses by threads of different numbers are an error.
LogicalResult assignFragmentThreads(KernelOp kernel,
                                    DenseMap<Operation *, int64_t> &owners) {
  // The first use of each fragment, in program order.
  DenseMap<Operation *, Operation *> firstUses;
  WalkResult result = kernel.walk([&](Operation *user) {
    if (isa<AnnotateLayoutOp>(user))
      return WalkResult::advance();
    for (Value operand : user->getOperands()) {
      auto alloc = operand.getDefiningOp<AllocFragmentOp>();
      if (!alloc)
        continue;
      int64_t count = threadScopeOf(user).count;
      auto [it, first] = firstUses.try_emplace(alloc, user);
      if (first) {
        owners[alloc] = count;
        continue;
      }
      int64_t threads = owners[alloc];
      if (count == threads)
        continue;
      InFlightDiagnostic diag =
          user->emitError()
          << describeFragment(alloc) << " is used here by " << count
          << " threads together, and by " << threads
          << " before; a fragment is spread over one number of threads, "
             "so give each its own fragment";
      diag.attachNote(it->second->getLoc()) << "used by " << threads << " here";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  kernel.walk([&](AllocFragmentOp alloc) {
    owners.try_emplace(alloc, kernel.getNumThreads());
  });
  return success();
}

struct InferLayoutsPass
    : public tilec::tile::impl::TileInferLayoutsBase<InferLayoutsPass> {
  using TileInferLayoutsBase::TileInferLayoutsBase;

  /// Lays out `kernel`, converting fragments through shared memory where
  /// their uses need different layouts. Each conversion takes one use of a
  /// fragment off it, so the number of fragment uses bounds the rounds.
  LogicalResult layOut(KernelOp kernel, TargetAttr target) {
    // The code of each size of thread range is laid out on its own: the
    // block's, and that of T.ws ranges.
    std::set<int64_t> counts{kernel.getNumThreads()};
    kernel.walk([&](ThreadRangeOp range) {
      counts.insert(static_cast<int64_t>(range.getCount()));
    });
    for (int64_t threads : counts) {
      while (true) {
        DenseMap<Operation *, int64_t> owners;
        if (failed(assignFragmentThreads(kernel, owners)))
          return failure();
        LayoutSolver solver(kernel, threads, owners, maxVectorBytes, target);
        if (succeeded(solver.run()))
          break;
        std::optional<Conversion> conversion = solver.takeConversion();
        if (!conversion)
          return failure();
        applyConversion(kernel, *conversion);
      }
    }
    return success();
  }

  void runOnOperation() override {
    TargetAttr target = TargetAttr::lookup(getOperation());
    WalkResult result = getOperation().walk([&](KernelOp kernel) {
      if (failed(layOut(kernel, target)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
