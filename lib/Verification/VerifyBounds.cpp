//===- VerifyBounds.cpp - Memory accesses proved in bounds with Z3 --------===//
//
// Part of tilec. Walks a kernel's per-thread code with the conditions under
// which each statement runs (loop ranges, enclosing ifs, T.assume facts)
// and asks Z3 whether each access of a tensor, shared or local buffer, and
// each region a copy reads or writes, can leave its buffer.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Utils.h"
#include "tilec/Verification/KernelFormulas.h"
#include "tilec/Verification/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEVERIFYBOUNDS
#include "tilec/Verification/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Where a buffer lives.
enum class BufferKind { Tensor, Shared, Local };

/// What reads or writes the elements of a region.
enum class AccessForm {
  /// A load or store, which a guard can skip.
  Plain,
  /// An access of an op of the IndexedAccessOpInterface, which the op
  /// guards if it can (a copy's source becomes a zero fill).
  Indexed,
  /// A view of a buffer (the stage of a pipelined one), which cannot be
  /// guarded.
  View,
};

/// An access of a buffer: its indices into the memref it names and, for
/// vectors and copies, the extent of the region along each trailing
/// dimension.
struct Access {
  Operation *op;
  /// The memref as the access names it (a view, for shared buffers).
  Value buffer;
  BufferKind kind;
  AccessForm form;
  /// Values, but for the constant offsets of views.
  SmallVector<OpFoldResult> indices;
  SmallVector<int64_t> widths;
  bool isWrite;
  /// Whether a guard can skip it (the op makes the guard, for
  /// AccessForm::Indexed), and for AccessForm::Indexed its position among
  /// the op's accesses.
  bool guardable = false;
  unsigned indexedAccess = 0;

  const char *verb() const {
    return form == AccessForm::View ? "view of"
           : isWrite                ? "write to"
                                    : "read of";
  }
};

/// The buffer `memref` is a view of, and where it lives; nullopt for
/// memory the verifier does not know.
std::optional<std::pair<Value, BufferKind>> rootBuffer(Value memref,
                                                       func::FuncOp func) {
  while (true) {
    if (auto view = memref.getDefiningOp<memref::SubViewOp>())
      memref = view.getSource();
    else if (auto cast = memref.getDefiningOp<memref::MemorySpaceCastOp>())
      memref = cast.getSource();
    else if (auto cast = memref.getDefiningOp<memref::CastOp>())
      memref = cast.getSource();
    else
      break;
  }
  if (auto arg = dyn_cast<BlockArgument>(memref))
    if (arg.getOwner()->getParentOp() == func)
      return std::make_pair(memref, BufferKind::Tensor);
  if (memref.getDefiningOp<AllocSharedOp>())
    return std::make_pair(memref, BufferKind::Shared);
  if (memref.getDefiningOp<memref::AllocaOp>())
    return std::make_pair(memref, BufferKind::Local);
  return std::nullopt;
}

/// The widths of a region of `extents` along the trailing dimensions of
/// `rank` indices.
SmallVector<int64_t> trailingWidths(unsigned rank, ArrayRef<int64_t> extents) {
  SmallVector<int64_t> widths(rank, 1);
  for (auto [i, extent] : llvm::enumerate(llvm::reverse(extents)))
    if (i < rank)
      widths[rank - 1 - i] = extent;
  return widths;
}

/// The accesses `op` makes of buffers the verifier knows: none, one, or
/// two (a copy's source and destination).
SmallVector<Access, 2> matchAccesses(Operation *op, func::FuncOp func) {
  SmallVector<Access, 2> accesses;
  auto add = [&](Value memref, ArrayRef<OpFoldResult> indices,
                 ArrayRef<int64_t> extents, bool isWrite, AccessForm form) {
    std::optional<std::pair<Value, BufferKind>> root = rootBuffer(memref, func);
    if (!root)
      return;
    Access access{op,
                  memref,
                  root->second,
                  form,
                  SmallVector<OpFoldResult>(indices),
                  trailingWidths(indices.size(), extents),
                  isWrite};
    // Tensors are indexed directly; views of them are not.
    if (root->second == BufferKind::Tensor && root->first != memref)
      return;
    accesses.push_back(std::move(access));
  };
  if (auto view = dyn_cast<memref::SubViewOp>(op)) {
    // A stage of a pipelined buffer: the view must lie inside it. Views of
    // tensors are not made.
    std::optional<SmallVector<int64_t>> sizes =
        getConstantIntValues(view.getMixedSizes());
    if (!sizes || llvm::any_of(view.getStaticStrides(),
                               [](int64_t stride) { return stride != 1; }))
      return accesses;
    SmallVector<int64_t> widths = trailingWidths(sizes->size(), *sizes);
    add(view.getSource(), view.getMixedOffsets(), {}, false, AccessForm::View);
    if (!accesses.empty())
      accesses.back().widths = widths;
    return accesses;
  }
  for (const MemoryAccess &memory : matchMemoryAccesses(op)) {
    // Masked stores are this pass's own guards. Vector accesses are guarded
    // with a mask along the last dimension.
    if (memory.masked ||
        (memory.vectorType && memory.vectorType.getRank() != 1))
      continue;
    size_t before = accesses.size();
    add(memory.memref, getAsOpFoldResult(memory.indices), {memory.elements},
        memory.isWrite,
        memory.indexedPosition ? AccessForm::Indexed : AccessForm::Plain);
    if (accesses.size() == before)
      continue;
    accesses.back().indexedAccess = memory.indexedPosition.value_or(0);
    accesses.back().guardable = memory.guardable;
  }
  return accesses;
}

/// A copy by the tensor copy engine, which keeps itself in bounds.
bool isBulkTensorCopy(Operation *op) { return isa<TmaLoadOp, TmaStoreOp>(op); }

class BoundsVerifier {
public:
  BoundsVerifier(func::FuncOp func, KernelOp kernel, unsigned resourceLimit,
                 bool guard, bool remarks)
      : kernel(func, kernel, resourceLimit), formulas(this->kernel.formulas()),
        guard(guard), remarks(remarks) {}

  LogicalResult run();

private:
  /// Per dimension: the index, the extent, and that the index and the last
  /// element of the region stay inside it.
  struct DimBounds {
    Formula index, size, inBounds;
    /// For a swizzled tile, its shape: `index` is an element's offset in
    /// it before the swizzle.
    SmallVector<int64_t, 2> tile = {};
  };
  /// For an access of a swizzled shared tile, the bounds of its offset in
  /// the tile before the swizzle, which stand for its last two indices.
  std::optional<SmallVector<DimBounds, 2>>
  swizzledTileBounds(const Access &access);
  void checkAccess(const Access &access, ArrayRef<Formula> path);
  void guardAccess(const Access &access);
  std::string bufferName(const Access &access);
  std::optional<Formula> extent(const Access &access, unsigned dim);
  Value extentValue(OpBuilder &b, Location loc, const Access &access,
                    unsigned dim);
  /// Whether the remarks and counts leave `access` out: constant indices
  /// of a local buffer (the registers of fragments) are checked, but are
  /// too many to report.
  bool isQuiet(const Access &access);

  KernelFormulas kernel;
  IndexFormulas &formulas;
  bool guard, remarks;
  bool failed = false;
  unsigned numProved = 0, numUnguarded = 0, numBulk = 0;
  SmallVector<Access> toGuard;
  SmallVector<std::pair<scf::IfOp, bool>> toFold;
};

LogicalResult BoundsVerifier::run() {
  kernel.walk(
      [&](Operation *op, ArrayRef<Formula> path) {
        if (isBulkTensorCopy(op)) {
          ++numBulk;
          if (remarks)
            op->emitRemark() << "this bulk tensor copy is kept in bounds by "
                                "the copy engine";
          return true;
        }
        for (const Access &access : matchAccesses(op, kernel.getFunc()))
          checkAccess(access, path);
        return !failed;
      },
      [&](scf::IfOp ifOp, bool thenBranch) {
        toFold.push_back({ifOp, thenBranch});
      });
  if (failed)
    return failure();
  if (remarks) {
    InFlightDiagnostic diag = kernel.getKernel().emitRemark();
    diag << "bounds of this kernel's "
         << numProved + toGuard.size() + numUnguarded
         << " memory accesses: " << numProved << " proved, " << toGuard.size()
         << " guarded";
    if (numUnguarded)
      diag << ", " << numUnguarded << " not proved and not guardable";
    if (numBulk)
      diag << "; " << numBulk
           << " bulk tensor copies, kept in bounds by the copy engine";
    diag << "; " << toFold.size() << " branches decided at compile time ("
         << formulas.numQueries() << " queries)";
  }

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

std::string BoundsVerifier::bufferName(const Access &access) {
  std::optional<std::pair<Value, BufferKind>> root =
      rootBuffer(access.buffer, kernel.getFunc());
  if (access.kind == BufferKind::Tensor)
    return "'" +
           kernel.argName(cast<BlockArgument>(root->first).getArgNumber()) +
           "'";
  const char *kind =
      access.kind == BufferKind::Shared ? "shared buffer" : "local buffer";
  if (Operation *def = root->first.getDefiningOp())
    if (auto loc = dyn_cast<NameLoc>(def->getLoc()))
      return (Twine(kind) + " '" + loc.getName().getValue() + "'").str();
  return (Twine("a ") + kind).str();
}

std::optional<Formula> BoundsVerifier::extent(const Access &access,
                                              unsigned dim) {
  if (access.kind == BufferKind::Tensor)
    return kernel.extent(cast<BlockArgument>(access.buffer), dim);
  auto type = cast<MemRefType>(access.buffer.getType());
  if (type.isDynamicDim(dim))
    return std::nullopt;
  return formulas.constant(type.getDimSize(dim));
}

bool BoundsVerifier::isQuiet(const Access &access) {
  return access.kind == BufferKind::Local &&
         llvm::all_of(access.indices, [](OpFoldResult index) {
           return getConstantIntValue(index).has_value();
         });
}

/// The row and column whose offset in a tile of `rows` x `cols` elements
/// `offset` is, as tile-swizzle-shared computes it: row * cols + column,
/// or, for panels of `p` columns, (column / p) * rows * p + row * p +
/// column mod p.
static std::optional<std::pair<Value, Value>>
matchTileOffset(Value offset, int64_t rows, int64_t cols) {
  auto scaled = [](Value v, int64_t factor) -> Value {
    auto mul = v.getDefiningOp<arith::MulIOp>();
    APInt c;
    if (mul && matchPattern(mul.getRhs(), m_ConstantInt(&c)) &&
        c.getSExtValue() == factor)
      return mul.getLhs();
    return Value();
  };
  auto add = offset.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  if (Value row = scaled(add.getLhs(), cols))
    return std::make_pair(row, add.getRhs());
  // Panels: the first term is the panel's start, the second the offset in
  // the panel.
  auto inner = add.getRhs().getDefiningOp<arith::AddIOp>();
  if (!inner)
    return std::nullopt;
  auto remainder = inner.getRhs().getDefiningOp<arith::RemUIOp>();
  APInt p;
  if (!remainder || !matchPattern(remainder.getRhs(), m_ConstantInt(&p)))
    return std::nullopt;
  Value panel = scaled(add.getLhs(), rows * p.getSExtValue());
  auto quotient = panel ? panel.getDefiningOp<arith::DivUIOp>() : nullptr;
  Value row = scaled(inner.getLhs(), p.getSExtValue());
  if (!quotient || !row || quotient.getLhs() != remainder.getLhs() ||
      quotient.getRhs() != remainder.getRhs())
    return std::nullopt;
  return std::make_pair(row, remainder.getLhs());
}

std::optional<SmallVector<BoundsVerifier::DimBounds, 2>>
BoundsVerifier::swizzledTileBounds(const Access &access) {
  unsigned rank = access.indices.size();
  auto type = cast<MemRefType>(access.buffer.getType());
  if (access.kind != BufferKind::Shared || rank < 2 || !type.hasStaticShape() ||
      !isa<Value>(access.indices[rank - 2]) ||
      !isa<Value>(access.indices[rank - 1]) || access.widths[rank - 2] != 1)
    return std::nullopt;
  int64_t rows = type.getShape()[rank - 2], cols = type.getShape().back();
  std::optional<SwizzledOffset> swizzled =
      matchSwizzledTileIndices(cast<Value>(access.indices[rank - 2]),
                               cast<Value>(access.indices[rank - 1]), cols);
  if (!swizzled)
    return std::nullopt;
  SwizzleAttr swizzle = swizzled->swizzle;
  int64_t run = int64_t(1) << swizzle.getBase();
  int64_t period = int64_t(1) << (swizzle.getBase() + swizzle.getShift() +
                                  swizzle.getBits());
  if ((rows * cols) % period != 0 || cols % run != 0)
    return std::nullopt;
  IndexFormulas &f = formulas;
  Formula offset = f.of(swizzled->offset);
  int64_t width = access.widths.back();
  // A vector stays in its run, which the swizzle moves whole.
  Formula withinRun = f.boolean(true);
  if (width > 1)
    withinRun =
        f.le(f.add(f.mod(offset, run), f.constant(width)), f.constant(run));
  auto inRange = [&](const Formula &index, int64_t extent, int64_t span) {
    return f.logicalAnd(
        f.le(f.constant(0), index),
        f.lt(f.add(index, f.constant(span - 1)), f.constant(extent)));
  };
  // The row and column before the swizzle, where they can be read back
  // from the offset, for messages in the program's terms.
  if (std::optional<std::pair<Value, Value>> element =
          matchTileOffset(swizzled->offset, rows, cols)) {
    Formula row = f.of(element->first), column = f.of(element->second);
    return SmallVector<DimBounds, 2>{
        DimBounds{row, f.constant(rows), inRange(row, rows, 1)},
        DimBounds{column, f.constant(cols),
                  f.logicalAnd(inRange(column, cols, width), withinRun)}};
  }
  return SmallVector<DimBounds, 2>{
      DimBounds{offset,
                f.constant(rows * cols),
                f.logicalAnd(inRange(offset, rows * cols, width), withinRun),
                {rows, cols}}};
}

void BoundsVerifier::checkAccess(const Access &access, ArrayRef<Formula> path) {
  std::string name = bufferName(access);
  const char *verb = access.verb();
  bool quiet = isQuiet(access);
  auto proved = [&] {
    if (quiet)
      return;
    ++numProved;
    if (remarks)
      access.op->emitRemark()
          << "this " << verb << " " << name << " is proved in bounds";
  };
  SmallVector<std::optional<DimBounds>, 4> dims;
  for (auto [dim, indexValue] : llvm::enumerate(access.indices)) {
    std::optional<Formula> size = extent(access, dim);
    if (!size) {
      dims.push_back(std::nullopt);
      continue;
    }
    Formula index = isa<Value>(indexValue)
                        ? formulas.of(cast<Value>(indexValue))
                        : formulas.constant(*getConstantIntValue(indexValue));
    Formula last =
        formulas.add(index, formulas.constant(access.widths[dim] - 1));
    dims.push_back(
        DimBounds{index, *size,
                  formulas.logicalAnd(formulas.le(formulas.constant(0), index),
                                      formulas.lt(last, *size))});
  }
  // A swizzled tile's row and column are in bounds where the offset before
  // the swizzle is inside the tile: the swizzle maps each of its periods
  // onto itself, and keeps runs of 2^base elements whole. That is cheaper
  // to prove than through the exclusive or.
  if (std::optional<SmallVector<DimBounds, 2>> tile =
          swizzledTileBounds(access)) {
    dims.pop_back_n(2);
    llvm::append_range(dims, *tile);
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
    std::string where;
    if (!bounds->tile.empty()) {
      // The offset stands for the last two dimensions, of the whole tile.
      int64_t width = access.widths.back();
      where = llvm::formatv("{0} {1} of its {2}x{3} tile, before the swizzle",
                            width > 1 ? "offsets" : "offset",
                            width > 1
                                ? llvm::formatv("{0} to {1}", example.values[0],
                                                example.values[0] + width - 1)
                                      .str()
                                : std::to_string(example.values[0]),
                            bounds->tile[0], bounds->tile[1])
                  .str();
    } else {
      where = (access.widths[dim] > 1
                   ? llvm::formatv("indices {0} to {1}", example.values[0],
                                   example.values[0] + access.widths[dim] - 1)
                         .str()
                   : llvm::formatv("index {0}", example.values[0]).str()) +
              llvm::formatv(" along dimension {0}, of extent {1}", dim,
                            example.values[1])
                  .str();
    }
    access.op->emitError() << "this " << verb << " " << name
                           << " can be out of bounds: " << where << ", when "
                           << kernel.describe(example)
                           << "; guard it with an if, or state what the "
                              "launch guarantees with T.assume";
    failed = true;
    return;
  }
  if (!unknown)
    return proved();
  bool guardable =
      guard && (access.form == AccessForm::Plain ||
                (access.form == AccessForm::Indexed && access.guardable));
  if (guardable)
    toGuard.push_back(access);
  else if (!quiet)
    ++numUnguarded;
  if (remarks && !quiet)
    access.op->emitRemark()
        << "this " << verb << " " << name << " could not be proved in bounds"
        << (guardable ? "; it is guarded" : "");
}

Value BoundsVerifier::extentValue(OpBuilder &b, Location loc,
                                  const Access &access, unsigned dim) {
  auto type = cast<MemRefType>(access.buffer.getType());
  if (!type.isDynamicDim(dim))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
  if (access.kind == BufferKind::Tensor)
    if (std::optional<BlockArgument> arg =
            kernel.extentArgument(cast<BlockArgument>(access.buffer), dim))
      return *arg;
  return memref::DimOp::create(b, loc, access.buffer, dim);
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
  bool isVector = isa<vector::LoadOp, vector::StoreOp>(op);
  for (auto [dim, indexOrConstant] : llvm::enumerate(access.indices)) {
    Value index = getValueOrCreateConstantIndexOp(b, loc, indexOrConstant);
    Value size = extentValue(b, loc, access, dim);
    if (isVector && static_cast<int64_t>(dim) == lastDim &&
        access.widths[dim] > 1) {
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
    // The region [index, index + width) inside [0, size).
    Value ok =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, size);
    if (access.widths[dim] > 1) {
      Value last = arith::AddIOp::create(
          b, loc, index,
          arith::ConstantIndexOp::create(b, loc, access.widths[dim] - 1));
      ok = arith::AndIOp::create(
          b, loc, ok,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, last, size));
    }
    inBounds = inBounds ? arith::AndIOp::create(b, loc, inBounds, ok) : ok;
  }
  if (access.form == AccessForm::Indexed) {
    cast<IndexedAccessOpInterface>(op).guardAccess(b, access.indexedAccess,
                                                   inBounds);
    return;
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
  if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op)) {
    // The old value, where a result is used, is zero outside.
    Type type = atomic.getType();
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, inBounds,
                                  /*withElseRegion=*/true);
    OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
    Operation *moved = thenBuilder.clone(*op);
    scf::YieldOp::create(thenBuilder, loc, moved->getResults());
    OpBuilder elseBuilder = ifOp.getElseBodyBuilder();
    Value zero = arith::ConstantOp::create(elseBuilder, loc, type,
                                           elseBuilder.getZeroAttr(type));
    scf::YieldOp::create(elseBuilder, loc, zero);
    atomic.replaceAllUsesWith(ifOp.getResult(0));
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
