//===- VerifyBounds.cpp - Tensor accesses proved in bounds with Z3 --------===//
//
// Part of tilec. Walks a kernel's per-thread code with the conditions under
// which each statement runs (loop ranges, enclosing ifs, T.assume facts)
// and asks Z3 whether each tensor access can leave its tensor.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/KernelFormulas.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEVERIFYBOUNDS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// A load or store of a tensor argument: its indices and, for vectors, the
/// extent of the vector along each trailing dimension.
struct Access {
  Operation *op;
  BlockArgument tensor;
  SmallVector<Value> indices;
  SmallVector<int64_t> widths;
  bool isWrite;
};

std::optional<Access> matchAccess(Operation *op) {
  // Masked stores are this pass's own guards.
  std::optional<MemoryAccess> memory = matchMemoryAccess(op);
  if (!memory || memory->masked)
    return std::nullopt;
  Access access;
  access.op = op;
  access.indices = memory->indices;
  access.isWrite = memory->isWrite();
  VectorType vectorType = memory->vectorType;
  // Vector accesses are guarded with a mask along the last dimension.
  if (vectorType && vectorType.getRank() != 1)
    return std::nullopt;
  auto tensor = dyn_cast<BlockArgument>(memory->memref);
  if (!tensor || !isa<func::FuncOp>(tensor.getOwner()->getParentOp()))
    return std::nullopt;
  access.tensor = tensor;
  access.widths.assign(access.indices.size(), 1);
  if (vectorType) {
    ArrayRef<int64_t> shape = vectorType.getShape();
    for (auto [i, extent] : llvm::enumerate(llvm::reverse(shape)))
      if (i < access.widths.size())
        access.widths[access.widths.size() - 1 - i] = extent;
  }
  return access;
}

class BoundsVerifier {
public:
  BoundsVerifier(func::FuncOp func, KernelOp kernel, unsigned resourceLimit,
                 bool guard, bool remarks)
      : kernel(func, kernel, resourceLimit), formulas(this->kernel.formulas()),
        guard(guard), remarks(remarks) {}

  LogicalResult run();

private:
  void checkAccess(const Access &access, ArrayRef<Formula> path);
  void guardAccess(const Access &access);
  Value extentValue(OpBuilder &b, Location loc, BlockArgument tensor,
                    unsigned dim);

  KernelFormulas kernel;
  IndexFormulas &formulas;
  bool guard, remarks;
  bool failed = false;
  unsigned numProved = 0;
  SmallVector<Access> toGuard;
  SmallVector<std::pair<scf::IfOp, bool>> toFold;
};

LogicalResult BoundsVerifier::run() {
  kernel.walk(
      [&](Operation *op, ArrayRef<Formula> path) {
        if (std::optional<Access> access = matchAccess(op))
          checkAccess(*access, path);
        return !failed;
      },
      [&](scf::IfOp ifOp, bool thenBranch) {
        toFold.push_back({ifOp, thenBranch});
      });
  if (failed)
    return failure();
  if (remarks)
    kernel.getKernel().emitRemark()
        << "bounds of this kernel's " << numProved + toGuard.size()
        << " tensor accesses: " << numProved << " proved, " << toGuard.size()
        << " guarded; " << toFold.size()
        << " branches decided at compile time (" << formulas.numQueries()
        << " queries)";

  IRRewriter rewriter(kernel.getKernel().getContext());
  for (const Access &access : toGuard)
    guardAccess(access);
  // Ifs whose branch is known run it unconditionally. Inner ifs of a dead
  // branch were not collected, so every op here is still alive.
  for (auto [ifOp, thenBranch] : toFold) {
    Region &region = thenBranch ? ifOp.getThenRegion() : ifOp.getElseRegion();
    if (region.empty()) {
      rewriter.eraseOp(ifOp);
      continue;
    }
    Block &block = region.front();
    auto yield = cast<scf::YieldOp>(block.getTerminator());
    SmallVector<Value> results(yield.getOperands());
    rewriter.inlineBlockBefore(&block, ifOp);
    rewriter.eraseOp(yield);
    rewriter.replaceOp(ifOp, results);
  }
  return success();
}

void BoundsVerifier::checkAccess(const Access &access, ArrayRef<Formula> path) {
  std::string tensorName = kernel.argName(access.tensor.getArgNumber());
  const char *verb = access.isWrite ? "write to" : "read of";
  auto proved = [&] {
    ++numProved;
    if (remarks)
      access.op->emitRemark()
          << "this " << verb << " '" << tensorName << "' is proved in bounds";
  };
  // Per dimension: the index, the extent, and that the index and the last
  // lane stay inside it.
  struct DimBounds {
    Formula index, size, inBounds;
  };
  SmallVector<std::optional<DimBounds>, 4> dims;
  for (auto [dim, indexValue] : llvm::enumerate(access.indices)) {
    std::optional<Formula> size = kernel.extent(access.tensor, dim);
    if (!size) {
      dims.push_back(std::nullopt);
      continue;
    }
    Formula index = formulas.of(indexValue);
    Formula last =
        formulas.add(index, formulas.constant(access.widths[dim] - 1));
    dims.push_back(
        DimBounds{index, *size,
                  formulas.logicalAnd(formulas.le(formulas.constant(0), index),
                                      formulas.lt(last, *size))});
  }
  // All dimensions at once first: most accesses are in bounds.
  if (llvm::all_of(dims, [](const auto &d) { return d.has_value(); })) {
    Formula all = formulas.boolean(true);
    for (const std::optional<DimBounds> &d : dims)
      all = formulas.logicalAnd(all, d->inBounds);
    if (formulas.prove(path, all) == Proof::Proved)
      return proved();
  }
  bool unknown = false;
  for (auto [dim, bounds] : llvm::enumerate(dims)) {
    if (!bounds) {
      unknown = true;
      continue;
    }
    CounterExample example;
    Proof proof = formulas.prove(path, bounds->inBounds, &example,
                                 {bounds->index, bounds->size});
    if (proof == Proof::Proved)
      continue;
    if (proof == Proof::Unknown) {
      unknown = true;
      continue;
    }
    std::string element =
        access.widths[dim] > 1
            ? llvm::formatv("indices {0} to {1}", example.values[0],
                            example.values[0] + access.widths[dim] - 1)
                  .str()
            : llvm::formatv("index {0}", example.values[0]).str();
    access.op->emitError()
        << "this " << verb << " '" << tensorName
        << "' can be out of bounds: " << element << " along dimension " << dim
        << ", of extent " << example.values[1] << ", when "
        << kernel.describe(example)
        << "; guard it with an if, or state what the launch guarantees "
           "with T.assume";
    failed = true;
    return;
  }
  if (unknown) {
    if (guard)
      toGuard.push_back(access);
    if (remarks)
      access.op->emitRemark() << "this " << verb << " '" << tensorName
                              << "' could not be proved in bounds"
                              << (guard ? "; it is guarded" : "");
    return;
  }
  proved();
}

Value BoundsVerifier::extentValue(OpBuilder &b, Location loc,
                                  BlockArgument tensor, unsigned dim) {
  auto type = cast<MemRefType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
  if (std::optional<BlockArgument> arg = kernel.extentArgument(tensor, dim))
    return *arg;
  return memref::DimOp::create(b, loc, tensor, dim);
}

void BoundsVerifier::guardAccess(const Access &access) {
  Operation *op = access.op;
  OpBuilder b(op);
  Location loc = op->getLoc();
  // For vectors, the in-bounds lanes of the last dimension form a mask;
  // the other dimensions are in bounds or not as a whole.
  Value inBounds;
  // Lanes [skipped, lanes) of a vector are inside the last dimension.
  Value skipped, lanes;
  int64_t lastDim = access.indices.size() - 1;
  for (auto [dim, index] : llvm::enumerate(access.indices)) {
    Value size = extentValue(b, loc, access.tensor, dim);
    if (static_cast<int64_t>(dim) == lastDim && access.widths[dim] > 1) {
      // Lane k touches index + k: it is inside when -index <= k <
      // size - index. Both bounds are clamped to [0, width], in signed
      // arithmetic.
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value width = arith::ConstantIndexOp::create(b, loc, access.widths[dim]);
      auto clamp = [&](Value v) {
        return arith::MinSIOp::create(
            b, loc, arith::MaxSIOp::create(b, loc, v, zero), width);
      };
      lanes = clamp(arith::SubIOp::create(b, loc, size, index));
      skipped = clamp(arith::SubIOp::create(b, loc, zero, index));
      continue;
    }
    Value ok =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, size);
    inBounds = inBounds ? arith::AndIOp::create(b, loc, inBounds, ok) : ok;
  }
  if (lanes) {
    if (inBounds)
      lanes = arith::SelectOp::create(
          b, loc, inBounds, lanes, arith::ConstantIndexOp::create(b, loc, 0));
    VectorType type = isa<vector::LoadOp>(op)
                          ? cast<vector::LoadOp>(op).getVectorType()
                          : cast<vector::StoreOp>(op).getVectorType();
    // Lane k is in bounds when k < lanes: a comparison with the lane
    // numbers, which every target lowers (vector.create_mask is not).
    int64_t width = type.getNumElements();
    auto laneType = VectorType::get({width}, b.getI32Type());
    SmallVector<int32_t> laneNumbers(width);
    for (int64_t k = 0; k < width; ++k)
      laneNumbers[k] = k;
    Value numbers = arith::ConstantOp::create(
        b, loc, laneType, DenseIntElementsAttr::get(laneType, laneNumbers));
    auto broadcast = [&](Value v) {
      Value narrow = arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
      return vector::BroadcastOp::create(b, loc, laneType, narrow);
    };
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        numbers, broadcast(lanes));
    Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                        numbers, broadcast(skipped));
    Value mask = arith::AndIOp::create(b, loc, below, above);
    if (auto load = dyn_cast<vector::LoadOp>(op)) {
      Value zero = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
      Value masked = vector::MaskedLoadOp::create(
          b, loc, type, load.getBase(), load.getIndices(), mask, zero);
      load.replaceAllUsesWith(masked);
    } else {
      auto store = cast<vector::StoreOp>(op);
      vector::MaskedStoreOp::create(b, loc, store.getBase(), store.getIndices(),
                                    mask, store.getValueToStore());
    }
    op->erase();
    return;
  }
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    Type type = load.getType();
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, inBounds,
                                  /*withElseRegion=*/true);
    OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
    Operation *moved = thenBuilder.clone(*op);
    scf::YieldOp::create(thenBuilder, loc, moved->getResults());
    OpBuilder elseBuilder = ifOp.getElseBodyBuilder();
    Value zero = arith::ConstantOp::create(elseBuilder, loc, type,
                                           elseBuilder.getZeroAttr(type));
    scf::YieldOp::create(elseBuilder, loc, zero);
    load.replaceAllUsesWith(ifOp.getResult(0));
    op->erase();
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, inBounds,
                                /*withElseRegion=*/false);
  op->moveBefore(ifOp.thenBlock()->getTerminator());
}

struct VerifyBoundsPass
    : public tilec::tile::impl::TileVerifyBoundsBase<VerifyBoundsPass> {
  using TileVerifyBoundsBase::TileVerifyBoundsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    WalkResult result = func.walk([&](KernelOp kernel) {
      BoundsVerifier verifier(func, kernel, resourceLimit, guard, remarks);
      return failed(verifier.run()) ? WalkResult::interrupt()
                                    : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
