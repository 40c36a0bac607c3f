//===- TileLoopOps.cpp - Loops of the tile dialect ------------------------===//
//
// Part of tilec. Builders, custom assembly formats and verifiers of
// tile.parallel, tile.serial, tile.unroll and tile.pipelined.
//
//===----------------------------------------------------------------------===//

#include "OpHelpers.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tilec::tile;

/// Fails if `step` is a constant that is not positive.
static LogicalResult verifyStep(Operation *op, Value step) {
  APInt value;
  if (matchPattern(step, m_ConstantInt(&value)) && !value.isStrictlyPositive())
    return op->emitOpError()
           << "step must be positive, got " << value.getSExtValue();
  return success();
}

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

void ParallelOp::build(OpBuilder &builder, OperationState &state,
                       ArrayRef<int64_t> extents) {
  state.addAttribute(getExtentsAttrName(state.name),
                     builder.getDenseI64ArrayAttr(extents));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (size_t i = 0, e = extents.size(); i < e; ++i)
    block->addArgument(builder.getIndexType(), state.location);
  ensureTerminator(*body, builder, state.location);
}

ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<int64_t> extents;
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, [&] {
        return parser.parseInteger(extents.emplace_back());
      }))
    return failure();
  result.addAttribute(getExtentsAttrName(result.name),
                      parser.getBuilder().getDenseI64ArrayAttr(extents));
  if (succeeded(parser.parseOptionalKeyword("layout"))) {
    FragmentLayoutAttr layout;
    if (parser.parseAttribute(layout))
      return failure();
    result.addAttribute(getLayoutAttrName(result.name), layout);
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  for (OpAsmParser::Argument &iv : ivs)
    iv.type = parser.getBuilder().getIndexType();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs))
    return failure();
  ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (" << getInductionVars() << ") in (";
  llvm::interleaveComma(getExtents(), p);
  p << ")";
  if (FragmentLayoutAttr layout = getLayoutAttr())
    p << " layout " << layout;
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getExtentsAttrName(), getLayoutAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult ParallelOp::verifyRegions() {
  ArrayRef<int64_t> extents = getExtents();
  if (extents.empty())
    return emitOpError() << "needs at least one dimension";
  for (int64_t extent : extents)
    if (extent <= 0)
      return emitOpError() << "extents must be positive, got " << extent;
  Block &body = getBody().front();
  if (body.getNumArguments() != extents.size())
    return emitOpError() << "has " << body.getNumArguments()
                         << " induction variables for " << extents.size()
                         << " dimensions";
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError() << "induction variables must be of index type";
  if (FragmentLayoutAttr layout = getLayoutAttr())
    if (layout.getShape() != extents)
      return emitOpError() << "layout is for a "
                           << formatShape(layout.getShape())
                           << " iteration space but the loop runs over "
                           << formatShape(extents);
  return success();
}

//===----------------------------------------------------------------------===//
// SerialOp, UnrollOp, PipelinedOp
//===----------------------------------------------------------------------===//

static void buildForBody(OpBuilder &builder, OperationState &state) {
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  block->addArgument(builder.getIndexType(), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location);
}

/// Parses `%iv = %lb to %ub` and the body's region once the rest is known.
static ParseResult parseForHeader(OpAsmParser &parser, OperationState &result,
                                  OpAsmParser::Argument &iv) {
  Type indexType = parser.getBuilder().getIndexType();
  OpAsmParser::UnresolvedOperand lb, ub;
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lb) || parser.parseKeyword("to") ||
      parser.parseOperand(ub) ||
      parser.resolveOperand(lb, indexType, result.operands) ||
      parser.resolveOperand(ub, indexType, result.operands))
    return failure();
  iv.type = indexType;
  return success();
}

template <typename OpTy>
static ParseResult parseForBody(OpAsmParser &parser, OperationState &result,
                                OpAsmParser::Argument &iv) {
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {iv}))
    return failure();
  OpTy::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

template <typename OpTy>
static ParseResult parseSteppedFor(OpAsmParser &parser,
                                   OperationState &result) {
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand step;
  if (parseForHeader(parser, result, iv) || parser.parseKeyword("step") ||
      parser.parseOperand(step) ||
      parser.resolveOperand(step, parser.getBuilder().getIndexType(),
                            result.operands))
    return failure();
  return parseForBody<OpTy>(parser, result, iv);
}

template <typename OpTy> static void printSteppedFor(OpAsmPrinter &p, OpTy op) {
  p << " " << op.getInductionVar() << " = " << op.getLowerBound() << " to "
    << op.getUpperBound() << " step " << op.getStep();
  p.printOptionalAttrDictWithKeyword(op->getAttrs());
  p << ' ';
  p.printRegion(op.getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

static LogicalResult verifyForRegion(Operation *op, Region &body) {
  Block &block = body.front();
  if (block.getNumArguments() != 1 || !block.getArgument(0).getType().isIndex())
    return op->emitOpError() << "body must take one index induction variable";
  return success();
}

void SerialOp::build(OpBuilder &builder, OperationState &state,
                     Value lowerBound, Value upperBound, Value step) {
  state.addOperands({lowerBound, upperBound, step});
  buildForBody(builder, state);
}

ParseResult SerialOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseSteppedFor<SerialOp>(parser, result);
}

void SerialOp::print(OpAsmPrinter &p) { printSteppedFor(p, *this); }

LogicalResult SerialOp::verify() { return verifyStep(*this, getStep()); }

LogicalResult SerialOp::verifyRegions() {
  return verifyForRegion(*this, getBody());
}

void UnrollOp::build(OpBuilder &builder, OperationState &state,
                     Value lowerBound, Value upperBound, Value step) {
  state.addOperands({lowerBound, upperBound, step});
  buildForBody(builder, state);
}

ParseResult UnrollOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseSteppedFor<UnrollOp>(parser, result);
}

void UnrollOp::print(OpAsmPrinter &p) { printSteppedFor(p, *this); }

LogicalResult UnrollOp::verify() { return verifyStep(*this, getStep()); }

LogicalResult UnrollOp::verifyRegions() {
  return verifyForRegion(*this, getBody());
}

void PipelinedOp::build(OpBuilder &builder, OperationState &state,
                        Value lowerBound, Value upperBound, int64_t numStages) {
  state.addOperands({lowerBound, upperBound});
  state.addAttribute(getNumStagesAttrName(state.name),
                     builder.getI64IntegerAttr(numStages));
  buildForBody(builder, state);
}

ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  if (parseForHeader(parser, result, iv))
    return failure();
  Builder &builder = parser.getBuilder();
  Properties &props = result.getOrAddProperties<Properties>();
  if (succeeded(parser.parseOptionalKeyword("stages"))) {
    int64_t stages;
    if (parser.parseLParen() || parser.parseInteger(stages) ||
        parser.parseRParen())
      return failure();
    props.num_stages = builder.getI64IntegerAttr(stages);
  }
  auto parseSchedule = [&](StringRef keyword,
                           DenseI64ArrayAttr &attr) -> ParseResult {
    if (failed(parser.parseOptionalKeyword(keyword)))
      return success();
    SmallVector<int64_t> values;
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
          return parser.parseInteger(values.emplace_back());
        }))
      return failure();
    attr = builder.getDenseI64ArrayAttr(values);
    return success();
  };
  if (parseSchedule("order", props.order) ||
      parseSchedule("stage", props.stage))
    return failure();
  return parseForBody<PipelinedOp>(parser, result, iv);
}

void PipelinedOp::print(OpAsmPrinter &p) {
  p << " " << getInductionVar() << " = " << getLowerBound() << " to "
    << getUpperBound();
  if (getNumStagesAttr().getInt() != 0)
    p << " stages(" << getNumStagesAttr().getInt() << ")";
  if (std::optional<ArrayRef<int64_t>> order = getOrder()) {
    p << " order [";
    llvm::interleaveComma(*order, p);
    p << "]";
  }
  if (std::optional<ArrayRef<int64_t>> stage = getStage()) {
    p << " stage [";
    llvm::interleaveComma(*stage, p);
    p << "]";
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getNumStagesAttrName(), getOrderAttrName(), getStageAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult PipelinedOp::verify() {
  int64_t stages = getNumStagesAttr().getInt();
  if (stages < 0)
    return emitOpError() << "num_stages must not be negative, got " << stages;
  if (getOrder().has_value() != getStage().has_value())
    return emitOpError() << "order and stage must be given together";
  return success();
}

/// Whether `op` is a statement of a loop body: it writes or allocates
/// memory, holds regions, or has effects no interface describes.
static bool isStatement(Operation &op) {
  if (op.hasTrait<mlir::OpTrait::IsTerminator>())
    return false;
  if (op.getNumRegions() != 0)
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  return effects.hasEffect<MemoryEffects::Write>() ||
         effects.hasEffect<MemoryEffects::Allocate>() ||
         effects.hasEffect<MemoryEffects::Free>();
}

SmallVector<Operation *> PipelinedOp::getStatements() {
  SmallVector<Operation *> statements;
  for (Operation &op : getBody().front())
    if (isStatement(op))
      statements.push_back(&op);
  return statements;
}

LogicalResult PipelinedOp::verifyRegions() {
  if (failed(verifyForRegion(*this, getBody())))
    return failure();
  std::optional<ArrayRef<int64_t>> order = getOrder();
  std::optional<ArrayRef<int64_t>> stage = getStage();
  if (!order)
    return success();
  size_t numOps = getStatements().size();
  if (order->size() != numOps || stage->size() != numOps)
    return emitOpError() << "order and stage must have one entry per "
                            "statement of the body ("
                         << numOps << "), got " << order->size() << " and "
                         << stage->size();
  llvm::SmallBitVector seen(numOps);
  for (int64_t position : *order) {
    if (position < 0 || position >= static_cast<int64_t>(numOps) ||
        seen.test(position))
      return emitOpError() << "order must be a permutation of 0.."
                           << numOps - 1;
    seen.set(position);
  }
  int64_t stages = getNumStagesAttr().getInt();
  for (int64_t s : *stage)
    if (s < 0 || s >= std::max<int64_t>(stages, 1))
      return emitOpError() << "stage " << s << " is outside [0, "
                           << std::max<int64_t>(stages, 1) << ")";
  return success();
}
