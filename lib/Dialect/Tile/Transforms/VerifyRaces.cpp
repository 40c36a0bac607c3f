//===- VerifyRaces.cpp - Writes proved free of races with Z3 --------------===//
//
// Part of tilec. Two threads race on an element when both write it and
// nothing orders the writes: they run in different blocks (of a tensor's
// element), or in one block between the same two barriers. For every store
// to a tensor argument or a shared buffer, asks Z3 whether two such
// executions of it, one of each thread, can write the same element.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/KernelFormulas.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEVERIFYRACES
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Whether `op` orders the memory accesses of a block's threads: a barrier,
/// or the arrival at or wait on an mbarrier.
bool synchronizes(Operation *op) {
  return isa<gpu::BarrierOp, NVVM::BarrierOp, NVVM::Barrier0Op,
             NVVM::BarrierArriveOp, NVVM::MBarrierArriveOp,
             NVVM::MBarrierArriveExpectTxOp, NVVM::MBarrierTryWaitParityOp,
             NVVM::MBarrierTryWaitOp, NVVM::MBarrierTestWaitOp,
             ROCDL::SBarrierOp>(op);
}

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

class RaceVerifier {
public:
  RaceVerifier(func::FuncOp func, KernelOp kernel, unsigned resourceLimit,
               bool remarks)
      : kernel(func, kernel, resourceLimit), formulas(this->kernel.formulas()),
        remarks(remarks) {}

  LogicalResult run();

private:
  /// A store to memory other threads see, with its indices into the buffer
  /// it views (a tensor argument or a tile.alloc_shared).
  struct Write {
    Operation *op;
    Value buffer;
    Value value;
    SmallVector<Value> indexValues;
    SmallVector<Formula> indices;
    /// The elements it writes along the last dimension.
    int64_t width;
    bool shared;
    /// Lanes of a masked store may not be written: a collision found is
    /// not one for sure.
    bool masked;
  };

  std::optional<Write> matchWrite(Operation *op);
  void computeVariations();
  Variation variationOf(Value value) const { return variations.lookup(value); }
  bool loopSynchronizes(scf::ForOp loop);
  void check(const Write &write, ArrayRef<Formula> path);
  std::string bufferName(const Write &write);
  std::string describeBlock(ArrayRef<int64_t> values);

  KernelFormulas kernel;
  IndexFormulas &formulas;
  bool remarks;
  bool failed = false;
  unsigned numProved = 0, numUnknown = 0;
  DenseMap<Value, Variation> variations;
  DenseMap<Operation *, bool> synchronizingLoops;
  /// The variables of the second thread.
  VariableCopies copies;
};

std::optional<RaceVerifier::Write> RaceVerifier::matchWrite(Operation *op) {
  std::optional<MemoryAccess> access = matchMemoryAccess(op);
  if (!access || !access->isWrite())
    return std::nullopt;
  Write write;
  write.op = op;
  write.masked = access->masked;
  write.value = access->stored;
  write.indexValues = access->indices;
  Value memref = access->memref;
  VectorType vectorType = access->vectorType;
  if (vectorType && vectorType.getRank() != 1)
    return std::nullopt;
  write.width = vectorType ? vectorType.getNumElements() : 1;
  for (Value index : write.indexValues)
    write.indices.push_back(formulas.of(index));
  // Views of a buffer (the stages of a pipelined one): indices into the
  // buffer itself.
  while (auto view = memref.getDefiningOp<memref::SubViewOp>()) {
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
    memref = view.getSource();
  }
  write.buffer = memref;
  if (auto arg = dyn_cast<BlockArgument>(memref);
      arg && arg.getOwner()->getParentOp() == kernel.getFunc()) {
    write.shared = false;
    return write;
  }
  if (memref.getDefiningOp<AllocSharedOp>()) {
    write.shared = true;
    return write;
  }
  return std::nullopt;
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

bool RaceVerifier::loopSynchronizes(scf::ForOp loop) {
  auto [it, inserted] = synchronizingLoops.try_emplace(loop, false);
  if (inserted)
    it->second = loop.getBody()
                     ->walk([](Operation *op) {
                       return synchronizes(op) ? WalkResult::interrupt()
                                               : WalkResult::advance();
                     })
                     .wasInterrupted();
  return it->second;
}

std::string RaceVerifier::bufferName(const Write &write) {
  if (!write.shared)
    return "'" +
           kernel.argName(cast<BlockArgument>(write.buffer).getArgNumber()) +
           "'";
  if (Operation *def = write.buffer.getDefiningOp())
    if (auto loc = dyn_cast<NameLoc>(def->getLoc()))
      return ("shared buffer '" + loc.getName().getValue() + "'").str();
  return "a shared buffer";
}

std::string RaceVerifier::describeBlock(ArrayRef<int64_t> values) {
  static const char *const axes[] = {"bx", "by", "bz"};
  SmallVector<std::string> parts;
  for (auto [axis, value] : llvm::enumerate(values))
    parts.push_back(
        llvm::formatv("{0} = {1}", axis < 3 ? axes[axis] : "b", value).str());
  std::string joined = llvm::join(parts, ", ");
  return parts.size() == 1 ? "block " + joined : "block (" + joined + ")";
}

void RaceVerifier::check(const Write &write, ArrayRef<Formula> path) {
  IndexFormulas &f = formulas;
  std::string name = bufferName(write);
  Variation variation = variationOf(write.value);
  for (Value index : write.indexValues)
    variation |= variationOf(index);
  bool betweenThreads = variation.thread;
  // Blocks have shared memory of their own.
  bool betweenBlocks = !write.shared && (variation.thread || variation.block);
  if (!betweenThreads && !betweenBlocks) {
    // Every thread writes the same value to the same element, as
    // statements outside T.Parallel do.
    ++numProved;
    if (remarks)
      write.op->emitRemark()
          << "this write to " << name << " is the same in every thread";
    return;
  }
  auto unknown = [&] {
    ++numUnknown;
    if (remarks)
      write.op->emitRemark()
          << "this write to " << name << " could not be proved free of races";
  };
  // The thread index the write and its conditions are computed from: a
  // warp-specialized kernel's roles each number their threads from 0, and
  // the lane index is one more. Two of them cannot be related.
  SmallVector<unsigned, 2> threadVariables;
  auto collectThreads = [&](const Formula &formula) {
    for (unsigned var : formula.variables)
      if (f.variables()[var].kind == VariableKind::ThreadIndex &&
          !llvm::is_contained(threadVariables, var))
        threadVariables.push_back(var);
  };
  for (const Formula &index : write.indices)
    collectThreads(index);
  for (const Formula &condition : path)
    collectThreads(condition);
  std::optional<Formula> thread = f.threadIndex();
  if (threadVariables.size() > 1)
    return unknown();
  if (threadVariables.size() == 1)
    thread = f.variableFormula(threadVariables.front());
  if (betweenThreads && !thread)
    return unknown();

  // The second thread's copy of each formula.
  auto other = [&](const Formula &formula) { return f.copy(formula, copies); };
  Formula collide = f.boolean(true);
  unsigned last = write.indices.size() - 1;
  for (auto [dim, index] : llvm::enumerate(write.indices)) {
    Formula distance = f.simplify(f.sub(index, other(index)));
    if (dim == last && write.width > 1)
      collide = f.logicalAnd(
          collide, f.logicalAnd(f.lt(f.constant(-write.width), distance),
                                f.lt(distance, f.constant(write.width))));
    else
      collide = f.logicalAnd(collide, f.eq(distance, f.constant(0)));
  }
  Formula sameBlock = f.boolean(true);
  for (const Formula &block : kernel.blockIndices())
    sameBlock = f.logicalAnd(sameBlock, f.eq(block, other(block)));
  // The loops whose iterations a barrier separates, and the ranges of all
  // enclosing loops.
  Formula sameInterval = f.boolean(true);
  SmallVector<Formula> ranges;
  for (Operation *parent = write.op->getParentOp();
       parent && parent != kernel.getKernel(); parent = parent->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(parent);
    if (!loop)
      continue;
    llvm::append_range(ranges, kernel.loopConditions(loop));
    if (loopSynchronizes(loop)) {
      Formula iv = f.of(loop.getInductionVar());
      sameInterval = f.logicalAnd(sameInterval, f.eq(iv, other(iv)));
    }
  }
  Formula unordered = f.boolean(false);
  if (betweenThreads)
    unordered = f.logicalOr(
        unordered,
        f.logicalAnd(sameBlock,
                     f.logicalAnd(f.logicalNot(f.eq(*thread, other(*thread))),
                                  sameInterval)));
  if (betweenBlocks)
    unordered = f.logicalOr(unordered, f.logicalNot(sameBlock));
  Formula goal = f.logicalNot(f.logicalAnd(collide, unordered));

  auto proved = [&] {
    ++numProved;
    if (remarks)
      write.op->emitRemark()
          << "this write to " << name << " is proved free of races";
  };
  // The loop ranges alone prove most writes; unrolled copies of one store
  // then ask the same question.
  SmallVector<Formula> assumptions = ranges;
  for (const Formula &range : ranges)
    assumptions.push_back(other(range));
  if (f.prove(assumptions, goal) == Proof::Proved)
    return proved();
  // An element computed from an unknown (a value from memory, a swizzle's
  // exclusive or) is only proved with conditions that leave one thread.
  bool exactElement = llvm::all_of(
      write.indices, [](const Formula &index) { return index.exact; });
  bool pathPicksThreads = llvm::any_of(path, [&](const Formula &condition) {
    return llvm::any_of(condition.variables, [&](unsigned var) {
      return f.variables()[var].kind == VariableKind::ThreadIndex;
    });
  });
  if (!exactElement && !pathPicksThreads)
    return unknown();
  assumptions.assign(path.begin(), path.end());
  for (const Formula &condition : path)
    assumptions.push_back(other(condition));
  // The values a message needs: the two threads, their blocks, and the
  // element.
  SmallVector<Formula> evaluate;
  Formula threadFormula = thread ? *thread : f.constant(0);
  evaluate.push_back(threadFormula);
  evaluate.push_back(other(threadFormula));
  for (const Formula &block : kernel.blockIndices()) {
    evaluate.push_back(block);
    evaluate.push_back(other(block));
  }
  for (const Formula &index : write.indices) {
    evaluate.push_back(index);
    evaluate.push_back(other(index));
  }
  CounterExample example;
  Proof proof = f.prove(assumptions, goal, &example, evaluate);
  if (proof == Proof::Proved)
    return proved();
  // Lanes of a masked store may be off.
  if (proof == Proof::Unknown || write.masked)
    return unknown();

  // Pairs of values, the first thread's and the second's; the threads are
  // named in the order of their blocks, then of their indices.
  ArrayRef<int64_t> values = example.values;
  unsigned numAxes = kernel.blockIndices().size();
  auto pairAt = [&](unsigned i) {
    return std::make_pair(values[2 * i], values[2 * i + 1]);
  };
  SmallVector<int64_t> firstBlock, secondBlock;
  for (unsigned axis = 0; axis < numAxes; ++axis) {
    firstBlock.push_back(pairAt(1 + axis).first);
    secondBlock.push_back(pairAt(1 + axis).second);
  }
  auto [first, second] = pairAt(0);
  bool swapped = std::tie(secondBlock, second) < std::tie(firstBlock, first);
  if (swapped) {
    std::swap(first, second);
    std::swap(firstBlock, secondBlock);
  }
  // The element both write: for vectors, the first lane the two share.
  SmallVector<std::string> element;
  for (unsigned dim = 0; dim <= last; ++dim) {
    auto [a, b] = pairAt(1 + numAxes + dim);
    element.push_back(std::to_string(std::max(a, b)));
  }
  std::string who =
      firstBlock == secondBlock
          ? llvm::formatv("threads {0} and {1} of {2}", first, second,
                          describeBlock(firstBlock))
                .str()
          : llvm::formatv("thread {0} of {1} and thread {2} of {3}", first,
                          describeBlock(firstBlock), second,
                          describeBlock(secondBlock))
                .str();
  // The rest of the execution: run-time dimensions and loop indices, each
  // with the second thread's value where it differs.
  DenseMap<unsigned, unsigned> original;
  for (auto [from, to] : copies)
    original[to] = from;
  DenseMap<unsigned, int64_t> valueOf;
  for (auto [index, value] : example.variables)
    valueOf[index] = value;
  SmallVector<std::string> context;
  for (auto [index, value] : example.variables) {
    const Variable &var = f.variables()[index];
    if (original.count(index) || (var.kind != VariableKind::Dimension &&
                                  var.kind != VariableKind::LoopIndex))
      continue;
    int64_t firstValue = value;
    auto copy = copies.find(index);
    if (copy == copies.end() || !valueOf.count(copy->second) ||
        valueOf[copy->second] == value) {
      context.push_back(llvm::formatv("{0} = {1}", var.name, value).str());
      continue;
    }
    int64_t secondValue = valueOf[copy->second];
    if (swapped)
      std::swap(firstValue, secondValue);
    std::string text =
        llvm::formatv("{0} = {1} and {2}", var.name, firstValue, secondValue)
            .str();
    context.push_back(text);
  }
  InFlightDiagnostic diag = write.op->emitError();
  diag << "this write to " << name << " races: " << who
       << " both write element [" << llvm::join(element, ", ") << "]";
  if (!context.empty())
    diag << ", when " << llvm::join(context, ", ");
  diag << "; give each element one writer"
       << (write.shared ? ", or separate the writes with a barrier"
                        : ", or make the write atomic (T.atomic_add)");
  failed = true;
}

LogicalResult RaceVerifier::run() {
  computeVariations();
  // The thread index, for writes whose element does not depend on it.
  kernel.getKernel().walk([&](gpu::ThreadIdOp op) { formulas.of(op); });
  kernel.walk([&](Operation *op, ArrayRef<Formula> path) {
    if (std::optional<Write> write = matchWrite(op))
      check(*write, path);
    return !failed;
  });
  if (failed)
    return failure();
  if (remarks)
    kernel.getKernel().emitRemark()
        << "races of this kernel's " << numProved + numUnknown
        << " writes: " << numProved << " proved free, " << numUnknown
        << " not proved (" << formulas.numQueries() << " queries)";
  return success();
}

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
