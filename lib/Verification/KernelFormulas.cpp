//===- KernelFormulas.cpp - A kernel's launch as formulas -----------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Verification/KernelFormulas.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

KernelFormulas::KernelFormulas(func::FuncOp func, KernelOp kernel,
                               unsigned resourceLimit)
    : func(func), kernel(kernel), indexFormulas(resourceLimit) {
  IndexFormulas &f = indexFormulas;
  for (BlockArgument arg : func.getArguments()) {
    if (!arg.getType().isIndex())
      continue;
    Formula dim =
        f.variable(argName(arg.getArgNumber()), VariableKind::Dimension, 1,
                   (int64_t(1) << 31) - 1);
    f.addFact(f.le(f.constant(1), dim));
    f.addFact(f.le(dim, f.constant((int64_t(1) << 31) - 1)));
    f.bind(arg, dim);
  }
  static const char *const axes[] = {"bx", "by", "bz"};
  for (auto [axis, index] : llvm::enumerate(kernel.getBlockIndices())) {
    Formula grid = f.of(kernel.getGrid()[axis]);
    std::optional<int64_t> last;
    if (grid.hi)
      last = *grid.hi - 1;
    Formula block = f.variable(axis < 3 ? axes[axis] : "b",
                               VariableKind::BlockIndex, 0, last);
    f.addFact(f.le(f.constant(0), block));
    f.addFact(f.lt(block, grid));
    f.bind(index, block);
    blocks.push_back(block);
  }
  // In a block of two or three dimensions, each thread index is a part of
  // the block's one thread index, so that the verifiers relate the
  // executions of one thread.
  ArrayRef<int64_t> threads = kernel.getThreads();
  if (threads.size() > 1) {
    int64_t count = kernel.getNumThreads();
    kernel.walk([&](gpu::ThreadIdOp tid) {
      unsigned axis = static_cast<unsigned>(tid.getDimension());
      std::optional<APInt> bound = tid.getUpperBound();
      if (axis >= threads.size() || !bound ||
          bound->getSExtValue() != threads[axis])
        return;
      int64_t stride = 1;
      for (int64_t extent : threads.take_front(axis))
        stride *= extent;
      Formula index = f.blockThread(count);
      if (stride > 1)
        index = f.floorDiv(index, stride);
      if (axis + 1 < threads.size())
        index = f.mod(index, threads[axis]);
      f.bind(tid, index);
    });
  }
  kernel.walk([&](memref::DimOp dim) {
    auto tensor = dyn_cast<BlockArgument>(dim.getSource());
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!tensor || tensor.getOwner()->getParentOp() != func || !index ||
        *index < 0 || *index >= cast<MemRefType>(tensor.getType()).getRank())
      return;
    if (std::optional<Formula> size = extent(tensor, *index))
      f.bind(dim, *size);
  });
}

std::string KernelFormulas::argName(unsigned i) {
  if (auto names = func->getAttrOfType<ArrayAttr>("tile.arg_names"))
    if (i < names.size())
      if (auto name = dyn_cast<StringAttr>(names[i]))
        return name.str();
  return "argument " + std::to_string(i);
}

std::optional<BlockArgument>
KernelFormulas::extentArgument(BlockArgument tensor, unsigned dim) {
  // The dialect verifies that tile.dims names an index argument for each
  // dynamic dimension.
  auto dims = func.getArgAttrOfType<DenseI64ArrayAttr>(tensor.getArgNumber(),
                                                       "tile.dims");
  if (!dims)
    return std::nullopt;
  return func.getArgument(dims[dim]);
}

std::optional<Formula> KernelFormulas::extent(BlockArgument tensor,
                                              unsigned dim) {
  auto type = cast<MemRefType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return indexFormulas.constant(type.getDimSize(dim));
  if (std::optional<BlockArgument> arg = extentArgument(tensor, dim))
    return indexFormulas.of(*arg);
  return std::nullopt;
}

void KernelFormulas::walk(
    function_ref<bool(Operation *, ArrayRef<Formula>)> visit,
    function_ref<void(scf::IfOp, bool)> decided) {
  walk(kernel.getBody().front(), {}, visit, decided);
}

bool KernelFormulas::walk(
    Block &block, SmallVector<Formula> path,
    function_ref<bool(Operation *, ArrayRef<Formula>)> visit,
    function_ref<void(scf::IfOp, bool)> decided) {
  IndexFormulas &f = indexFormulas;
  for (Operation &op : block) {
    if (auto assume = dyn_cast<AssumeOp>(op)) {
      path.push_back(f.of(assume.getCondition()));
      continue;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      unsigned line = 0;
      if (auto fileLoc = dyn_cast<FileLineColLoc>(forOp.getLoc()))
        line = fileLoc.getLine();
      Formula lb = f.of(forOp.getLowerBound());
      Formula ub = f.of(forOp.getUpperBound());
      Formula iv = f.variable(
          line ? llvm::formatv("the loop index at line {0}", line).str()
               : std::string("a loop index"),
          VariableKind::LoopIndex, lb.lo,
          ub.hi ? std::optional<int64_t>(*ub.hi - 1) : std::nullopt);
      f.bind(forOp.getInductionVar(), iv);
      SmallVector<Formula> inner = path;
      llvm::append_range(inner, loopConditions(forOp));
      if (!walk(*forOp.getBody(), inner, visit, decided))
        return false;
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      Formula cond = f.of(ifOp.getCondition());
      bool alwaysThen = false, alwaysElse = false;
      // The bounds decide most conditions. Otherwise, for a caller that
      // folds them, the prover is asked whether a guard always passes;
      // guards that always fail are rare enough not to be worth a query
      // each. Conditions of constants are the canonicalizer's.
      if (cond.known) {
        alwaysThen = *cond.known;
        alwaysElse = !*cond.known;
      } else if (decided && !cond.variables.empty()) {
        alwaysThen = f.prove(path, cond) == Proof::Proved;
      }
      if ((alwaysThen || alwaysElse) && decided)
        decided(ifOp, alwaysThen);
      if (!alwaysElse) {
        SmallVector<Formula> inner = path;
        inner.push_back(cond);
        if (!walk(ifOp.getThenRegion().front(), inner, visit, decided))
          return false;
      }
      if (!alwaysThen && !ifOp.getElseRegion().empty()) {
        SmallVector<Formula> inner = path;
        inner.push_back(f.logicalNot(cond));
        if (!walk(ifOp.getElseRegion().front(), inner, visit, decided))
          return false;
      }
      continue;
    }
    if (!visit(&op, path))
      return false;
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        if (!walk(inner, path, visit, decided))
          return false;
  }
  return true;
}

SmallVector<Formula> KernelFormulas::loopConditions(scf::ForOp loop) {
  IndexFormulas &f = indexFormulas;
  Formula lb = f.of(loop.getLowerBound());
  Formula iv = f.of(loop.getInductionVar());
  SmallVector<Formula> conditions{f.le(lb, iv),
                                  f.lt(iv, f.of(loop.getUpperBound()))};
  APInt step;
  if (matchPattern(loop.getStep(), m_ConstantInt(&step)) &&
      step.isStrictlyPositive() && step.getSignificantBits() <= 63 &&
      !step.isOne())
    conditions.push_back(
        f.eq(f.mod(f.sub(iv, lb), step.getSExtValue()), f.constant(0)));
  return conditions;
}

std::string KernelFormulas::describe(const CounterExample &example) {
  SmallVector<std::string> parts;
  for (auto [index, value] : example.variables) {
    const Variable &var = indexFormulas.variables()[index];
    parts.push_back(llvm::formatv("{0} = {1}", var.name, value).str());
  }
  return llvm::join(parts, ", ");
}
