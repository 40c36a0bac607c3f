//===- VectorizeRun.cpp - One loop body for a run of iterations -----------===//
//
// Part of tilec. A thread's iterations of a tile.parallel loop come in runs
// along the last dimension (16 bytes of consecutive elements in a grid
// layout, pairs of columns in an mma.sync accumulator). Emitting a run as
// one vector body makes its global and shared accesses single vector
// instructions, where the scalar bodies relied on LLVM to merge them.
//
// Each value of the body is uniform (the same in every iteration of the
// run), a lane index (first + 0, 1, ... along the run: the last induction
// variable plus uniform offsets) or a vector of one element per iteration.
//
//===----------------------------------------------------------------------===//

#include "VectorizeRun.h"
#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Erases the ops of a detached block, users first.
void discard(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
    op.dropAllUses();
    op.erase();
  }
}

struct RunValue {
  enum Kind { Uniform, Lane, Vector };
  Value value;
  Kind kind;
};

/// The alignment, in elements, that the start of `buffer` is known to
/// have: tensors are 16-byte aligned (the ABI), shared buffers 128-byte
/// aligned, and views inherit it through offsets known to be multiples.
int64_t knownBaseAlignment(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t elementBytes =
      std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  if (auto subview = buffer.getDefiningOp<memref::SubViewOp>()) {
    auto sourceType = cast<MemRefType>(subview.getSource().getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(sourceType.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset))
      return 1;
    int64_t divisor = knownBaseAlignment(subview.getSource());
    for (auto [dim, value] : llvm::enumerate(subview.getMixedOffsets())) {
      if (ShapedType::isDynamic(strides[dim]))
        return 1;
      std::optional<int64_t> constant = getConstantIntValue(value);
      int64_t multiple = constant ? (*constant ? std::abs(*constant) : 0)
                                  : getKnownDivisor(cast<Value>(value));
      divisor = std::gcd(divisor, multiple * strides[dim]);
    }
    return divisor ? divisor : 1;
  }
  if (isInScope(type, MemoryScope::Shared))
    return std::max<int64_t>(1, kSharedAlignment / elementBytes);
  if (isInScope(type, MemoryScope::Global))
    return std::max<int64_t>(1, kTensorAlignment / elementBytes);
  return 1;
}

class RunVectorizer {
public:
  RunVectorizer(int64_t width,
                const DenseMap<Operation *, RunFragmentAccess> &fragments)
      : width(width), fragments(fragments) {}

  /// Sets the value of a block argument of the body.
  void setArgument(Value argument, RunValue value) {
    values[argument] = value;
    if (value.kind == RunValue::Uniform)
      uniformMapping.map(argument, value.value);
  }

  /// Emits the ops of `block` (but its terminator) with `b`; fails on the
  /// first op it cannot vectorize.
  LogicalResult emitBlock(OpBuilder &b, Block &block);

private:
  DenseMap<Value, RunValue> values;

  RunValue lookup(Value value) {
    auto it = values.find(value);
    if (it != values.end())
      return it->second;
    // Defined outside the body: the same in every iteration.
    return {value, RunValue::Uniform};
  }
  VectorType vectorOf(Type element) {
    return VectorType::get({width}, element);
  }
  /// `value` as a vector, broadcasting a uniform one.
  Value asVector(OpBuilder &b, Location loc, RunValue value) {
    if (value.kind == RunValue::Vector)
      return value.value;
    return vector::BroadcastOp::create(b, loc, vectorOf(value.value.getType()),
                                       value.value);
  }
  Value constant(OpBuilder &b, Location loc, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// The indices of an access contiguous along the run: all uniform but the
  /// last, a lane index. Fails otherwise, or when `buffer` is not known to
  /// be aligned to the whole vector there.
  FailureOr<SmallVector<Value>> contiguousIndices(Value buffer,
                                                  ValueRange indices);

  LogicalResult emitOp(OpBuilder &b, Operation &op);
  LogicalResult emitIf(OpBuilder &b, scf::IfOp ifOp);

  int64_t width;
  const DenseMap<Operation *, RunFragmentAccess> &fragments;
  IRMapping uniformMapping;
};

FailureOr<SmallVector<Value>>
RunVectorizer::contiguousIndices(Value buffer, ValueRange indices) {
  auto type = cast<MemRefType>(buffer.getType());
  // Memory holds bool and int4 elements a byte each, where a vector of them
  // packs them into bits.
  if (type.getElementTypeBitWidth() % 8 != 0)
    return failure();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return failure();
  SmallVector<Value> result;
  int64_t divisor = knownBaseAlignment(buffer);
  for (auto [dim, index] : llvm::enumerate(indices)) {
    RunValue value = lookup(index);
    bool last = dim + 1 == indices.size();
    if (value.kind == RunValue::Vector ||
        (value.kind == RunValue::Lane) != last)
      return failure();
    if (ShapedType::isDynamic(strides[dim]))
      return failure();
    divisor =
        std::gcd(divisor, multiplyKnownDivisors(getKnownDivisor(value.value),
                                                std::abs(strides[dim])));
    result.push_back(value.value);
  }
  if (divisor % width != 0)
    return failure();
  return result;
}

LogicalResult RunVectorizer::emitIf(OpBuilder &b, scf::IfOp ifOp) {
  RunValue cond = lookup(ifOp.getCondition());
  if (cond.kind != RunValue::Uniform)
    return failure();
  Location loc = ifOp.getLoc();
  // Both branches into detached blocks first: the kinds of their results
  // decide the if's result types.
  SmallVector<std::unique_ptr<Block>> blocks;
  SmallVector<SmallVector<RunValue>> yields;
  for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
    auto block = std::make_unique<Block>();
    if (!region->empty()) {
      // Detached blocks have no region to take the context from.
      OpBuilder rb(b.getContext());
      rb.setInsertionPointToEnd(block.get());
      if (failed(emitBlock(rb, region->front()))) {
        discard(*block);
        for (std::unique_ptr<Block> &done : blocks)
          discard(*done);
        return failure();
      }
      SmallVector<RunValue> yielded;
      for (Value v : region->front().getTerminator()->getOperands())
        yielded.push_back(lookup(v));
      yields.push_back(yielded);
    } else {
      yields.push_back({});
    }
    blocks.push_back(std::move(block));
  }
  SmallVector<Type> resultTypes;
  SmallVector<RunValue::Kind> kinds;
  for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
    bool vector = false;
    for (const SmallVector<RunValue> &yielded : yields) {
      if (yielded.empty())
        continue;
      if (yielded[i].kind == RunValue::Lane) {
        for (std::unique_ptr<Block> &done : blocks)
          discard(*done);
        return failure();
      }
      vector |= yielded[i].kind == RunValue::Vector;
    }
    Type type = ifOp.getResult(i).getType();
    resultTypes.push_back(vector ? vectorOf(type) : type);
    kinds.push_back(vector ? RunValue::Vector : RunValue::Uniform);
  }
  bool hasElse = !ifOp.getElseRegion().empty();
  auto newIf = scf::IfOp::create(b, loc, resultTypes, cond.value, hasElse);
  for (auto [index, block] : llvm::enumerate(blocks)) {
    if (index == 1 && !hasElse)
      break;
    Region &region = index == 0 ? newIf.getThenRegion() : newIf.getElseRegion();
    Block &target = region.front();
    // Drop the default terminator scf.if built for result-less ifs.
    if (!target.empty())
      target.getTerminator()->erase();
    target.getOperations().splice(target.end(), block->getOperations());
    OpBuilder yb = OpBuilder::atBlockEnd(&target);
    SmallVector<Value> operands;
    for (auto [value, kind] : llvm::zip(yields[index], kinds))
      operands.push_back(kind == RunValue::Vector ? asVector(yb, loc, value)
                                                  : value.value);
    scf::YieldOp::create(yb, loc, operands);
  }
  for (unsigned i = 0; i < ifOp.getNumResults(); ++i)
    values[ifOp.getResult(i)] = {newIf.getResult(i), kinds[i]};
  return success();
}

LogicalResult RunVectorizer::emitOp(OpBuilder &b, Operation &op) {
  Location loc = op.getLoc();
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return emitIf(b, ifOp);

  // Fragment accesses: consecutive register slots.
  if (auto it = fragments.find(&op); it != fragments.end()) {
    const RunFragmentAccess &access = it->second;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      SmallVector<Value> elements;
      for (int64_t k = 0; k < width; ++k)
        elements.push_back(memref::LoadOp::create(
            b, loc, access.registers,
            ValueRange{constant(b, loc, access.slot + k)}));
      values[load.getResult()] = {
          vector::FromElementsOp::create(b, loc, vectorOf(load.getType()),
                                         elements),
          RunValue::Vector};
      return success();
    }
    auto store = cast<memref::StoreOp>(op);
    RunValue value = lookup(store.getValueToStore());
    if (value.kind == RunValue::Lane)
      return failure();
    for (int64_t k = 0; k < width; ++k) {
      Value element =
          value.kind == RunValue::Uniform
              ? value.value
              : vector::ExtractOp::create(b, loc, value.value, k).getResult();
      memref::StoreOp::create(b, loc, element, access.registers,
                              ValueRange{constant(b, loc, access.slot + k)});
    }
    return success();
  }

  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    bool uniform = llvm::all_of(load.getIndices(), [&](Value index) {
      return lookup(index).kind == RunValue::Uniform;
    });
    if (uniform) {
      // Read once for the whole run.
      Operation *clone = b.clone(op, uniformMapping);
      values[load.getResult()] = {clone->getResult(0), RunValue::Uniform};
      return success();
    }
    FailureOr<SmallVector<Value>> indices =
        contiguousIndices(load.getMemRef(), load.getIndices());
    if (failed(indices))
      return failure();
    int64_t bytes = width * (load.getType().getIntOrFloatBitWidth() / 8);
    auto vload = vector::LoadOp::create(b, loc, vectorOf(load.getType()),
                                        load.getMemRef(), *indices);
    vload.setAlignment(bytes);
    values[load.getResult()] = {vload, RunValue::Vector};
    return success();
  }
  if (auto store = dyn_cast<memref::StoreOp>(op)) {
    RunValue value = lookup(store.getValueToStore());
    if (value.kind == RunValue::Lane)
      return failure();
    FailureOr<SmallVector<Value>> indices =
        contiguousIndices(store.getMemRef(), store.getIndices());
    if (failed(indices))
      return failure();
    Type element = store.getValueToStore().getType();
    auto vstore = vector::StoreOp::create(b, loc, asVector(b, loc, value),
                                          store.getMemRef(), *indices);
    vstore.setAlignment(width * (element.getIntOrFloatBitWidth() / 8));
    return success();
  }

  SmallVector<RunValue> operands;
  for (Value operand : op.getOperands())
    operands.push_back(lookup(operand));
  bool allUniform = llvm::all_of(operands, [](const RunValue &value) {
    return value.kind == RunValue::Uniform;
  });
  if (allUniform && op.getNumRegions() == 0 && isMemoryEffectFree(&op)) {
    Operation *clone = b.clone(op, uniformMapping);
    for (auto [result, cloned] :
         llvm::zip(op.getResults(), clone->getResults()))
      values[result] = {cloned, RunValue::Uniform};
    return success();
  }

  // A lane index plus a uniform offset stays a lane index.
  if (auto add = dyn_cast<arith::AddIOp>(op)) {
    RunValue lhs = operands[0], rhs = operands[1];
    if (lhs.kind == RunValue::Uniform)
      std::swap(lhs, rhs);
    if (lhs.kind != RunValue::Lane || rhs.kind != RunValue::Uniform)
      return failure();
    values[add.getResult()] = {arith::AddIOp::create(b, loc, lhs.value,
                                                     rhs.value,
                                                     add.getOverflowFlags()),
                               RunValue::Lane};
    return success();
  }
  // A bound check of a lane index is the same for the whole run when the
  // run starts at a multiple of its width and the bound is one too.
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    auto pred = cmp.getPredicate();
    APInt bound;
    if (operands[0].kind != RunValue::Lane ||
        operands[1].kind != RunValue::Uniform ||
        (pred != arith::CmpIPredicate::ult &&
         pred != arith::CmpIPredicate::slt) ||
        getKnownDivisor(operands[0].value) % width != 0 ||
        !matchPattern(operands[1].value, m_ConstantInt(&bound)) ||
        bound.getSExtValue() % width != 0)
      return failure();
    values[cmp.getResult()] = {arith::CmpIOp::create(b, loc, pred,
                                                     operands[0].value,
                                                     operands[1].value),
                               RunValue::Uniform};
    return success();
  }

  // Element-wise ops compute on vectors.
  if (op.hasTrait<mlir::OpTrait::Elementwise>() && op.getNumRegions() == 0 &&
      isMemoryEffectFree(&op) && op.getNumResults() == 1) {
    SmallVector<Value> vectorOperands;
    for (auto [operand, value] : llvm::zip(op.getOperands(), operands)) {
      if (value.kind == RunValue::Lane)
        return failure();
      // A uniform condition of a select stays scalar.
      if (isa<arith::SelectOp>(op) && operand == op.getOperand(0) &&
          value.kind == RunValue::Uniform) {
        vectorOperands.push_back(value.value);
        continue;
      }
      vectorOperands.push_back(asVector(b, loc, value));
    }
    OperationState state(loc, op.getName());
    state.addOperands(vectorOperands);
    state.addTypes(vectorOf(op.getResult(0).getType()));
    state.addAttributes(op.getAttrs());
    Operation *vectorOp = b.create(state);
    values[op.getResult(0)] = {vectorOp->getResult(0), RunValue::Vector};
    return success();
  }
  return failure();
}

LogicalResult RunVectorizer::emitBlock(OpBuilder &b, Block &block) {
  for (Operation &op : block.without_terminator()) {
    if (failed(emitOp(b, op)))
      return failure();
    // Uniform results are also what later uniform clones use.
    for (Value result : op.getResults()) {
      auto it = values.find(result);
      if (it != values.end() && it->second.kind == RunValue::Uniform)
        uniformMapping.map(result, it->second.value);
    }
  }
  return success();
}

} // namespace

LogicalResult tilec::tile::emitVectorizedRun(
    OpBuilder &b, Block &body, ValueRange ivs, int64_t width,
    const DenseMap<Operation *, RunFragmentAccess> &fragmentAccesses) {
  RunVectorizer vectorizer(width, fragmentAccesses);
  for (auto [i, iv] : llvm::enumerate(body.getArguments())) {
    bool last = i + 1 == body.getNumArguments();
    vectorizer.setArgument(iv,
                           {ivs[i], last ? RunValue::Lane : RunValue::Uniform});
  }
  // Emitted into a detached block, kept only if all of it vectorizes.
  Block scratch;
  OpBuilder sb(b.getContext());
  sb.setInsertionPointToEnd(&scratch);
  if (failed(vectorizer.emitBlock(sb, body))) {
    discard(scratch);
    return failure();
  }
  b.getInsertionBlock()->getOperations().splice(b.getInsertionPoint(),
                                                scratch.getOperations());
  return success();
}
