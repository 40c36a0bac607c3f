//===- VerifyAlignment.cpp - Vector accesses proved aligned with Z3 -------===//
//
// Part of tilec. A vector access of 16 bytes, a 16-byte cp.async and the
// rows of ldmatrix need addresses that are multiples of their size. The
// passes that make them derive that from what they know of the indices;
// this one proves it, from the buffer's alignment (the header's check of a
// tensor's pointer, the placement of shared buffers) and the formulas of
// the indices and strides, and lowers what it cannot prove.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Utils.h"
#include "tilec/Verification/KernelFormulas.h"
#include "tilec/Verification/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEVERIFYALIGNMENT
#include "tilec/Verification/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// An access whose address must be a multiple of `bytes`.
struct AlignedAccess {
  Operation *op;
  Value memref;
  SmallVector<Value> indices;
  int64_t bytes;
  /// A vector load or store, whose alignment can be lowered to what is
  /// proved; copies and matrix loads have theirs fixed by the instruction.
  bool adjustable;
  StringRef what;
};

SmallVector<AlignedAccess, 2> matchAlignedAccesses(Operation *op) {
  SmallVector<AlignedAccess, 2> accesses;
  for (const MemoryAccess &access : matchMemoryAccesses(op))
    if (access.alignment)
      accesses.push_back({op, access.memref, access.indices, access.alignment,
                          access.alignmentAdjustable, access.description});
  return accesses;
}

class AlignmentVerifier {
public:
  AlignmentVerifier(func::FuncOp func, KernelOp kernel, unsigned resourceLimit,
                    bool remarks)
      : kernel(func, kernel, resourceLimit), formulas(this->kernel.formulas()),
        remarks(remarks) {}

  LogicalResult run();

private:
  /// The buffer `memref` views, its alignment in bytes, and the offset in
  /// elements of the view's first element from the buffer's start.
  struct Base {
    Value buffer;
    int64_t alignment;
    Formula offset;
  };
  std::optional<Base> baseOf(Value memref);
  /// The strides of `memref`, in elements.
  std::optional<SmallVector<Formula>> stridesOf(Value memref);
  void check(const AlignedAccess &access, ArrayRef<Formula> path);
  std::string bufferName(Value buffer);

  KernelFormulas kernel;
  IndexFormulas &formulas;
  bool remarks;
  bool failed = false;
  unsigned numProved = 0, numLowered = 0, numUnknown = 0;
};

std::optional<SmallVector<Formula>> AlignmentVerifier::stridesOf(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (mlir::failed(type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  SmallVector<Formula> result;
  for (int64_t stride : strides)
    result.push_back(formulas.constant(stride));
  if (llvm::none_of(strides, ShapedType::isDynamic))
    return result;
  // A tensor of run-time extents, row-major: each stride is the product of
  // the extents after it.
  auto arg = dyn_cast<BlockArgument>(memref);
  if (!arg || arg.getOwner()->getParentOp() != kernel.getFunc() ||
      !type.getLayout().isIdentity())
    return std::nullopt;
  Formula product = formulas.constant(1);
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    result[dim] = product;
    std::optional<Formula> extent = kernel.extent(arg, dim);
    if (!extent)
      return std::nullopt;
    product = formulas.mul(product, *extent);
  }
  return result;
}

std::optional<AlignmentVerifier::Base> AlignmentVerifier::baseOf(Value memref) {
  if (auto arg = dyn_cast<BlockArgument>(memref)) {
    if (arg.getOwner()->getParentOp() != kernel.getFunc())
      return std::nullopt;
    return Base{memref, kTensorAlignment, formulas.constant(0)};
  }
  if (memref.getDefiningOp<AllocSharedOp>())
    return Base{memref, kSharedAlignment, formulas.constant(0)};
  if (auto cast = memref.getDefiningOp<memref::MemorySpaceCastOp>())
    return baseOf(cast.getSource());
  if (auto cast = memref.getDefiningOp<memref::CastOp>())
    return baseOf(cast.getSource());
  auto view = memref.getDefiningOp<memref::SubViewOp>();
  if (!view)
    return std::nullopt;
  std::optional<Base> base = baseOf(view.getSource());
  std::optional<SmallVector<Formula>> strides = stridesOf(view.getSource());
  if (!base || !strides)
    return std::nullopt;
  // The view starts at its offsets, each a number of the source's strides.
  for (auto [offset, stride] : llvm::zip(view.getMixedOffsets(), *strides)) {
    Formula start = isa<Value>(offset)
                        ? formulas.of(cast<Value>(offset))
                        : formulas.constant(*getConstantIntValue(offset));
    base->offset = formulas.add(base->offset, formulas.mul(start, stride));
  }
  return base;
}

std::string AlignmentVerifier::bufferName(Value buffer) {
  if (auto arg = dyn_cast<BlockArgument>(buffer))
    return "'" + kernel.argName(arg.getArgNumber()) + "'";
  if (Operation *def = buffer.getDefiningOp())
    if (auto loc = dyn_cast<NameLoc>(def->getLoc()))
      return ("shared buffer '" + loc.getName().getValue() + "'").str();
  return "a shared buffer";
}

void AlignmentVerifier::check(const AlignedAccess &access,
                              ArrayRef<Formula> path) {
  IndexFormulas &f = formulas;
  std::optional<Base> base = baseOf(access.memref);
  std::optional<SmallVector<Formula>> strides = stridesOf(access.memref);
  if (!base || !strides) {
    ++numUnknown;
    if (remarks)
      access.op->emitRemark()
          << "the alignment of this " << access.what
          << " a buffer of unknown layout could not be proved";
    return;
  }
  std::string name = bufferName(base->buffer);
  int64_t elementBytes = llvm::divideCeil(
      cast<MemRefType>(access.memref.getType()).getElementTypeBitWidth(), 8);
  // The element's offset from the start of the buffer. A swizzled tile's
  // element lies at the swizzle of its offset in the tile, which keeps the
  // low `base` bits: alignments up to runs of 2^base elements are those of
  // the offset before the swizzle (where the tile's rows are the view's).
  unsigned rank = access.indices.size();
  auto type = cast<MemRefType>(access.memref.getType());
  std::optional<SwizzledOffset> swizzled;
  if (rank >= 2 && type.hasStaticShape()) {
    int64_t cols = type.getShape().back();
    std::optional<int64_t> rowStride =
        (*strides)[rank - 2].lo == (*strides)[rank - 2].hi
            ? (*strides)[rank - 2].lo
            : std::nullopt;
    if (rowStride == cols && (*strides)[rank - 1].hi == 1 &&
        (*strides)[rank - 1].lo == 1)
      swizzled = matchSwizzledTileIndices(access.indices[rank - 2],
                                          access.indices[rank - 1], cols);
  }
  Formula offset = base->offset;
  for (auto [dim, index, stride] : llvm::enumerate(access.indices, *strides)) {
    if (swizzled && dim == rank - 2)
      continue;
    Formula element =
        swizzled && dim == rank - 1 ? f.of(swizzled->offset) : f.of(index);
    offset = f.add(offset, f.mul(element, stride));
  }
  int64_t run = swizzled ? int64_t(1) << swizzled->swizzle.getBase() : 0;
  Formula bytes = f.simplify(f.mul(offset, f.constant(elementBytes)));
  auto aligned = [&](int64_t alignment) {
    if (swizzled && alignment > run * elementBytes)
      return f.boolean(false);
    if (f.isMultipleByTerms(bytes, alignment, path))
      return f.boolean(true);
    return f.eq(f.mod(bytes, alignment), f.constant(0));
  };
  // The buffer's start is no more aligned than its alignment.
  if (access.bytes <= base->alignment) {
    CounterExample example;
    Proof proof = f.prove(path, aligned(access.bytes), &example, {bytes});
    if (proof == Proof::Proved) {
      ++numProved;
      if (remarks)
        access.op->emitRemark()
            << "this " << access.what << " " << name << " is proved "
            << access.bytes << "-byte aligned";
      return;
    }
    if (proof == Proof::Refuted) {
      access.op->emitError()
          << "internal error: this " << access.what << " " << name << " needs "
          << access.bytes << "-byte alignment but can be at byte "
          << example.values[0] << " of the buffer, when "
          << kernel.describe(example)
          << "; this is a bug in tilec: please report it with the input file "
             "and the command line";
      failed = true;
      return;
    }
  }
  // Unknown: a vector access keeps the alignment that is proved, so that
  // it is split into narrower accesses rather than trusted.
  if (!access.adjustable) {
    ++numUnknown;
    if (remarks)
      access.op->emitRemark()
          << "this " << access.what << " " << name << " could not be proved "
          << access.bytes << "-byte aligned";
    return;
  }
  int64_t proved = elementBytes;
  for (int64_t alignment = std::min(access.bytes, base->alignment) / 2;
       alignment > elementBytes; alignment /= 2) {
    if (f.prove(path, aligned(alignment)) == Proof::Proved) {
      proved = alignment;
      break;
    }
  }
  ++numLowered;
  if (auto load = dyn_cast<vector::LoadOp>(access.op))
    load.setAlignment(proved);
  else
    cast<vector::StoreOp>(access.op).setAlignment(proved);
  if (remarks)
    access.op->emitRemark()
        << "this " << access.what << " " << name << " could not be proved "
        << access.bytes << "-byte aligned; it is taken as " << proved
        << "-byte aligned";
}

LogicalResult AlignmentVerifier::run() {
  kernel.walk([&](Operation *op, ArrayRef<Formula> path) {
    for (const AlignedAccess &access : matchAlignedAccesses(op))
      check(access, path);
    return !failed;
  });
  if (failed)
    return failure();
  if (remarks)
    kernel.getKernel().emitRemark()
        << "alignment of this kernel's " << numProved + numLowered + numUnknown
        << " vector, copy and matrix-load accesses: " << numProved
        << " proved, " << numLowered << " lowered, " << numUnknown
        << " not proved (" << formulas.numQueries() << " queries)";
  return success();
}

struct VerifyAlignmentPass
    : public tilec::tile::impl::TileVerifyAlignmentBase<VerifyAlignmentPass> {
  using TileVerifyAlignmentBase::TileVerifyAlignmentBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    WalkResult result = func.walk([&](KernelOp kernel) {
      AlignmentVerifier verifier(func, kernel, resourceLimit, remarks);
      return failed(verifier.run()) ? WalkResult::interrupt()
                                    : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
