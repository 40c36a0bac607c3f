//===- TileOps.cpp - Operations of the tile dialect -----------------------===//
//
// Part of tilec. Builders, custom assembly formats and verifiers of the tile
// ops other than loops (TileLoopOps.cpp). Verifier messages name the buffers'
// scopes and shapes so that a person reading IR produced from a .tile file can
// find the mistake.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "OpHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace tilec::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string tilec::tile::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "a scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      shape, os,
      [&](int64_t extent) {
        if (ShapedType::isDynamic(extent))
          os << "?";
        else
          os << extent;
      },
      "x");
  return text;
}

/// How a message names the place a buffer lives.
static StringRef describeScope(std::optional<MemoryScope> scope) {
  if (!scope)
    return "an unknown memory space";
  switch (*scope) {
  case MemoryScope::Global:
    return "global memory";
  case MemoryScope::Shared:
    return "shared memory";
  case MemoryScope::Fragment:
    return "a fragment";
  case MemoryScope::Local:
    return "local memory";
  }
  llvm_unreachable("unknown memory scope");
}

static std::optional<MemoryScope> scopeOf(Value buffer) {
  return getMemoryScope(cast<MemRefType>(buffer.getType()));
}

static bool isNumeric(Type type) { return isa<IntegerType, FloatType>(type); }

static LogicalResult verifyNumericElements(Operation *op, StringRef what,
                                           MemRefType type) {
  if (!isNumeric(type.getElementType()))
    return op->emitOpError()
           << what << " must hold integers or floating-point numbers, got "
           << type.getElementType();
  return success();
}

/// `shape` without its unit dimensions.
static SmallVector<int64_t> dropUnitDims(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> squeezed;
  for (int64_t extent : shape)
    if (extent != 1)
      squeezed.push_back(extent);
  return squeezed;
}

LogicalResult tilec::tile::verifyInKernel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError()
           << "must be inside a tile.kernel (a T.Kernel block)";
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, ValueRange grid,
                     ArrayRef<int64_t> threads) {
  state.addOperands(grid);
  state.addAttribute(getThreadsAttrName(state.name),
                     builder.getDenseI64ArrayAttr(threads));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (size_t i = 0, e = grid.size(); i < e; ++i)
    block->addArgument(builder.getIndexType(), state.location);
  ensureTerminator(*body, builder, state.location);
}

int64_t KernelOp::getNumThreads() {
  int64_t total = 1;
  for (int64_t extent : getThreads())
    total *= extent;
  return total;
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  Type indexType = parser.getBuilder().getIndexType();
  SmallVector<OpAsmParser::Argument> blockIndices;
  SmallVector<OpAsmParser::UnresolvedOperand> grid;
  SmallVector<int64_t> threads;
  if (parser.parseKeyword("blocks") ||
      parser.parseArgumentList(blockIndices, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseOperandList(grid, OpAsmParser::Delimiter::Paren) ||
      parser.resolveOperands(grid, indexType, result.operands) ||
      parser.parseKeyword("threads") ||
      parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, [&] {
        return parser.parseInteger(threads.emplace_back());
      }))
    return failure();
  result.addAttribute(getThreadsAttrName(result.name),
                      parser.getBuilder().getDenseI64ArrayAttr(threads));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  for (OpAsmParser::Argument &arg : blockIndices)
    arg.type = indexType;
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, blockIndices))
    return failure();
  ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << " blocks(" << getBlockIndices() << ") in (" << getGrid() << ") threads(";
  llvm::interleaveComma(getThreads(), p);
  p << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getThreadsAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult KernelOp::verify() {
  if (getGrid().empty() || getGrid().size() > 3)
    return emitOpError() << "grid must have one to three dimensions, got "
                         << getGrid().size();
  ArrayRef<int64_t> threads = getThreads();
  if (threads.empty() || threads.size() > 3)
    return emitOpError() << "threads must have one to three dimensions, got "
                         << threads.size();
  int64_t total = 1;
  for (int64_t extent : threads) {
    if (extent <= 0)
      return emitOpError() << "thread counts must be positive, got " << extent;
    total *= extent;
    if (total > 1024)
      return emitOpError() << "a block has at most 1024 threads, this one has "
                           << formatShape(threads);
  }
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getGrid().size())
    return emitOpError() << "has " << body.getNumArguments()
                         << " block indices for a grid of " << getGrid().size()
                         << " dimensions";
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError() << "block indices must be of index type";
  return success();
}

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

static LogicalResult verifyAlloc(Operation *op, MemRefType type,
                                 MemoryScope scope) {
  std::optional<MemoryScope> actual = getMemoryScope(type);
  if (actual != scope)
    return op->emitOpError()
           << "result must be a buffer in " << describeScope(scope)
           << " (memory space #tile." << stringifyMemoryScope(scope)
           << "), got one in " << describeScope(actual);
  return verifyNumericElements(op, "a buffer", type);
}

template <typename LayoutAttr>
static LogicalResult verifyLayoutShape(Operation *op, LayoutAttr layout,
                                       MemRefType type) {
  if (layout && layout.getShape() != type.getShape())
    return op->emitOpError()
           << "layout is for a " << formatShape(layout.getShape())
           << " buffer but the buffer is " << formatShape(type.getShape());
  return success();
}

LogicalResult AllocSharedOp::verify() {
  if (failed(verifyAlloc(*this, getType(), getAllocScope())))
    return failure();
  return verifyLayoutShape(*this, getLayoutAttr(), getType());
}

LogicalResult AllocFragmentOp::verify() {
  if (failed(verifyAlloc(*this, getType(), getAllocScope())))
    return failure();
  return verifyLayoutShape(*this, getLayoutAttr(), getType());
}

LogicalResult AllocLocalOp::verify() {
  return verifyAlloc(*this, getType(), getAllocScope());
}

LogicalResult AllocVarOp::verify() {
  if (failed(verifyAlloc(*this, getType(), getAllocScope())))
    return failure();
  if (getType().getRank() != 0)
    return emitOpError() << "a variable is a rank-0 buffer, got "
                         << formatShape(getType().getShape());
  if (getInit() && getInit().getType() != getType().getElementType())
    return emitOpError() << "initial value has type " << getInit().getType()
                         << " but the variable holds "
                         << getType().getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

/// Parses an optional region `[offsets] [extents]` after a buffer.
static ParseResult
parseOptionalRegion(OpAsmParser &parser,
                    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &offsets,
                    DenseI64ArrayAttr &staticOffsets,
                    SmallVectorImpl<int64_t> &extents, bool &present) {
  SMLoc loc = parser.getCurrentLocation();
  if (parseDynamicIndexList(parser, offsets, staticOffsets,
                            /*valueTypes=*/nullptr,
                            AsmParser::Delimiter::OptionalSquare))
    return failure();
  present = !staticOffsets.empty();
  if (!present)
    return success();
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        return parser.parseInteger(extents.emplace_back());
      }))
    return failure();
  if (extents.empty())
    return parser.emitError(loc, "a region needs at least one extent");
  return success();
}

ParseResult CopyOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand source, dest;
  SmallVector<OpAsmParser::UnresolvedOperand> sourceOffsets, destOffsets;
  DenseI64ArrayAttr staticSourceOffsets, staticDestOffsets;
  SmallVector<int64_t> sourceExtents, destExtents;
  bool hasSourceRegion, hasDestRegion;
  MemRefType sourceType, destType;
  SMLoc typesLoc;
  if (succeeded(parser.parseOptionalKeyword("async")))
    result.addAttribute(getAsyncAttrName(result.name),
                        parser.getBuilder().getUnitAttr());
  else if (succeeded(parser.parseOptionalKeyword("bulk")))
    result.addAttribute(getBulkAttrName(result.name),
                        parser.getBuilder().getUnitAttr());
  if (parser.parseOperand(source) ||
      parseOptionalRegion(parser, sourceOffsets, staticSourceOffsets,
                          sourceExtents, hasSourceRegion) ||
      parser.parseKeyword("to") || parser.parseOperand(dest) ||
      parseOptionalRegion(parser, destOffsets, staticDestOffsets, destExtents,
                          hasDestRegion))
    return failure();
  // barrier(%bars[%i] : memref<Nxi64, #tile.shared>)
  std::optional<OpAsmParser::UnresolvedOperand> barrier, barrierIndex;
  Type barrierType;
  if (succeeded(parser.parseOptionalKeyword("barrier"))) {
    barrier.emplace();
    barrierIndex.emplace();
    if (parser.parseLParen() || parser.parseOperand(*barrier) ||
        parser.parseLSquare() || parser.parseOperand(*barrierIndex) ||
        parser.parseRSquare() || parser.parseColon() ||
        parser.parseType(barrierType) || parser.parseRParen())
      return failure();
  }
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.getCurrentLocation(&typesLoc) || parser.parseType(sourceType) ||
      parser.parseComma() || parser.parseType(destType))
    return failure();

  // A buffer written without a region stands for all of it.
  Builder &builder = parser.getBuilder();
  auto wholeBuffer = [&](MemRefType type, DenseI64ArrayAttr &offsets,
                         SmallVectorImpl<int64_t> &extents) -> ParseResult {
    if (!type.hasStaticShape())
      return parser.emitError(typesLoc)
             << "a whole-buffer copy needs a static shape; give the region "
                "of "
             << type << " as [offsets] [extents]";
    offsets =
        builder.getDenseI64ArrayAttr(SmallVector<int64_t>(type.getRank(), 0));
    extents.assign(type.getShape().begin(), type.getShape().end());
    return success();
  };
  if (!hasSourceRegion &&
      wholeBuffer(sourceType, staticSourceOffsets, sourceExtents))
    return failure();
  if (!hasDestRegion && wholeBuffer(destType, staticDestOffsets, destExtents))
    return failure();

  Type indexType = builder.getIndexType();
  if (parser.resolveOperand(source, sourceType, result.operands) ||
      parser.resolveOperands(sourceOffsets, indexType, result.operands) ||
      parser.resolveOperand(dest, destType, result.operands) ||
      parser.resolveOperands(destOffsets, indexType, result.operands))
    return failure();
  if (barrier &&
      (parser.resolveOperand(*barrier, barrierType, result.operands) ||
       parser.resolveOperand(*barrierIndex, indexType, result.operands)))
    return failure();

  Properties &props = result.getOrAddProperties<Properties>();
  props.static_source_offsets = staticSourceOffsets;
  props.source_extents = builder.getDenseI64ArrayAttr(sourceExtents);
  props.static_dest_offsets = staticDestOffsets;
  props.dest_extents = builder.getDenseI64ArrayAttr(destExtents);
  int32_t barriers = barrier ? 1 : 0;
  props.operandSegmentSizes = {
      1,        static_cast<int32_t>(sourceOffsets.size()),
      1,        static_cast<int32_t>(destOffsets.size()),
      barriers, barriers};
  return success();
}

/// Prints the region of `buffer`, nothing when it is the whole buffer.
static void printRegion(OpAsmPrinter &p, Operation *op, Value buffer,
                        OperandRange offsets, ArrayRef<int64_t> staticOffsets,
                        ArrayRef<int64_t> extents) {
  p << buffer;
  auto type = cast<MemRefType>(buffer.getType());
  bool whole = offsets.empty() &&
               llvm::all_of(staticOffsets, [](int64_t o) { return o == 0; }) &&
               type.hasStaticShape() && type.getShape() == extents;
  if (whole)
    return;
  printDynamicIndexList(p, op, offsets, staticOffsets);
  p << " [";
  llvm::interleaveComma(extents, p);
  p << "]";
}

void CopyOp::print(OpAsmPrinter &p) {
  p << ' ';
  if (getAsync())
    p << "async ";
  if (getBulk())
    p << "bulk ";
  printRegion(p, *this, getSource(), getSourceOffsets(),
              getStaticSourceOffsets(), getSourceExtents());
  p << " to ";
  printRegion(p, *this, getDest(), getDestOffsets(), getStaticDestOffsets(),
              getDestExtents());
  if (getBarrier())
    p << " barrier(" << getBarrier() << "[" << getBarrierIndex()
      << "] : " << getBarrier().getType() << ")";
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getStaticSourceOffsetsAttrName(), getSourceExtentsAttrName(),
       getStaticDestOffsetsAttrName(), getDestExtentsAttrName(),
       getOperandSegmentSizesAttrName(), getAsyncAttrName(),
       getBulkAttrName()});
  p << " : " << getSource().getType() << ", " << getDest().getType();
}

SmallVector<OpFoldResult> CopyOp::getMixedSourceOffsets() {
  return getMixedValues(getStaticSourceOffsets(), getSourceOffsets(),
                        getContext());
}

SmallVector<OpFoldResult> CopyOp::getMixedDestOffsets() {
  return getMixedValues(getStaticDestOffsets(), getDestOffsets(), getContext());
}

/// Checks one side of a copy: a region of the right rank, positive extents,
/// and statically known offsets that stay inside the buffer.
static LogicalResult verifyCopyRegion(CopyOp op, StringRef side,
                                      MemRefType type,
                                      ArrayRef<int64_t> staticOffsets,
                                      ValueRange offsets,
                                      ArrayRef<int64_t> extents) {
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(staticOffsets.size()) != rank ||
      static_cast<int64_t>(extents.size()) != rank)
    return op.emitOpError()
           << side << " region has " << staticOffsets.size() << " offsets and "
           << extents.size() << " extents but the " << side
           << " buffer has rank " << rank;
  if (failed(verifyListOfOperandsOrIntegers(op, side.str() + " offset", rank,
                                            staticOffsets, offsets)))
    return failure();
  for (auto [dim, offset, extent] : llvm::enumerate(staticOffsets, extents)) {
    if (extent <= 0)
      return op.emitOpError()
             << side << " region extents must be positive, got " << extent
             << " in dimension " << dim;
    if (ShapedType::isDynamic(offset))
      continue;
    if (offset < 0)
      return op.emitOpError()
             << side << " region offset must not be negative, got " << offset
             << " in dimension " << dim;
    int64_t size = type.getDimSize(dim);
    if (!ShapedType::isDynamic(size) && offset + extent > size)
      return op.emitOpError()
             << side << " region [" << offset << ", " << offset + extent
             << ") in dimension " << dim << " is outside the " << side
             << " buffer, whose extent there is " << size;
  }
  return verifyNumericElements(op, side.str() + " buffer", type);
}

LogicalResult CopyOp::verify() {
  auto sourceType = cast<MemRefType>(getSource().getType());
  auto destType = cast<MemRefType>(getDest().getType());
  if (failed(verifyCopyRegion(*this, "source", sourceType,
                              getStaticSourceOffsets(), getSourceOffsets(),
                              getSourceExtents())) ||
      failed(verifyCopyRegion(*this, "destination", destType,
                              getStaticDestOffsets(), getDestOffsets(),
                              getDestExtents())))
    return failure();
  SmallVector<int64_t> sourceShape = dropUnitDims(getSourceExtents());
  SmallVector<int64_t> destShape = dropUnitDims(getDestExtents());
  if (sourceShape != destShape)
    return emitOpError() << "copies a " << formatShape(getSourceExtents())
                         << " region into a " << formatShape(getDestExtents())
                         << " region; the extents must agree once unit "
                            "dimensions are dropped";
  if (!scopeOf(getSource()) || !scopeOf(getDest()))
    return emitOpError() << "buffers must be in a tile memory scope";
  if (getAsync() && (*scopeOf(getSource()) != MemoryScope::Global ||
                     *scopeOf(getDest()) != MemoryScope::Shared))
    return emitOpError() << "an async copy goes from global to shared memory";
  if (getBulk()) {
    if (getAsync() || *scopeOf(getSource()) != MemoryScope::Shared ||
        *scopeOf(getDest()) != MemoryScope::Global)
      return emitOpError() << "a bulk copy goes from shared to global memory";
    if (!getSource().getDefiningOp<AllocSharedOp>() ||
        getSourceExtents() != sourceType.getShape())
      return emitOpError() << "a bulk copy reads a whole shared tile, as "
                              "allocated";
    if (sourceType.getElementType() != destType.getElementType())
      return emitOpError() << "a bulk copy does not convert elements: it "
                              "copies "
                           << sourceType.getElementType() << " into "
                           << destType.getElementType();
  }
  if (Value barrier = getBarrier()) {
    if (!getAsync())
      return emitOpError() << "only an async copy completes on a barrier";
    auto type = cast<MemRefType>(barrier.getType());
    if (!isInScope(type, MemoryScope::Shared) || type.getRank() != 1 ||
        !type.getElementType().isInteger(64))
      return emitOpError() << "the barrier must be a 1-D buffer of i64 "
                              "mbarriers in shared memory, got "
                           << type;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Memory barriers
//===----------------------------------------------------------------------===//

/// Memory barriers live in shared memory, where the threads of a block and
/// the copy engines meet.
static LogicalResult verifyBarriers(Operation *op, MemRefType type) {
  if (!isInScope(type, MemoryScope::Shared))
    return op->emitOpError()
           << "the barriers must be in shared memory, got " << type;
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  return verifyBarriers(*this, getBarriersType());
}

LogicalResult MBarrierArriveOp::verify() {
  return verifyBarriers(*this, getBarriersType());
}

LogicalResult MBarrierWaitOp::verify() {
  return verifyBarriers(*this, getBarriersType());
}

LogicalResult NamedBarrierOp::verify() {
  // The threads arrive a warp at a time, and at most the block's do.
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (kernel && getCount() > kernel.getNumThreads())
    return emitOpError() << "waits for " << getCount()
                         << " threads, more than the block's "
                         << kernel.getNumThreads();
  int64_t warp = TargetAttr::lookup(*this).getWarpSize();
  if (getCount() % warp != 0)
    return emitOpError() << "waits for " << getCount()
                         << " threads, which is not a multiple of " << warp
                         << " (whole warps arrive)";
  return success();
}

//===----------------------------------------------------------------------===//
// AsyncCopyOp
//===----------------------------------------------------------------------===//

int64_t AsyncCopyOp::getBytes() {
  auto type = cast<MemRefType>(getDest().getType());
  return getElements() * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

LogicalResult AsyncCopyOp::verify() {
  auto sourceType = cast<MemRefType>(getSource().getType());
  auto destType = cast<MemRefType>(getDest().getType());
  if (sourceType.getElementType() != destType.getElementType())
    return emitOpError() << "copies between different element types: "
                         << sourceType << " and " << destType;
  if (getSourceIndices().size() != size_t(sourceType.getRank()) ||
      getDestIndices().size() != size_t(destType.getRank()))
    return emitOpError() << "needs one index per dimension of each buffer";
  if (!isInScope(destType, MemoryScope::Shared))
    return emitOpError() << "must write shared memory, got " << destType;
  int64_t bytes = getBytes();
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return emitOpError() << "copies runs of 4, 8 or 16 bytes, got " << bytes;
  return success();
}

SmallVector<IndexedAccess, 2> AsyncCopyOp::getIndexedAccesses() {
  int64_t elements = getElements();
  IndexedAccess read(getSource(), getSourceIndicesMutable(), elements,
                     /*isWrite=*/false);
  read.isAsync = true;
  read.requiredAlignment = getBytes();
  read.guardable = true;
  read.description = "asynchronous copy read of";
  IndexedAccess write(getDest(), getDestIndicesMutable(), elements,
                      /*isWrite=*/true);
  write.isAsync = true;
  write.requiredAlignment = getBytes();
  write.description = "asynchronous copy write to";
  return {read, write};
}

void AsyncCopyOp::guardAccess(OpBuilder &builder, unsigned access,
                              Value inBounds) {
  assert(access == 0 && "only the source of a copy is guarded");
  // Outside the buffer, the copy reads nothing, from an index that is
  // inside, and fills zeros.
  Location loc = getLoc();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  SmallVector<Value> indices;
  for (Value index : getSourceIndices())
    indices.push_back(
        arith::SelectOp::create(builder, loc, inBounds, index, zero));
  Value elements = getSourceElements();
  if (!elements)
    elements = arith::ConstantIndexOp::create(builder, loc, getElements());
  elements = arith::SelectOp::create(builder, loc, inBounds, elements, zero);
  getSourceIndicesMutable().assign(indices);
  getSourceElementsMutable().assign(elements);
}

//===----------------------------------------------------------------------===//
// WarpSpecializeOp
//===----------------------------------------------------------------------===//

LogicalResult WarpSpecializeOp::verify() {
  auto kernel = cast<KernelOp>((*this)->getParentOp());
  ArrayRef<int64_t> threads = kernel.getThreads();
  if (threads.size() != 1 || threads[0] % 128 != 0)
    return emitOpError() << "needs a kernel of whole warpgroups in one "
                            "dimension, got threads("
                         << threads << ")";
  if ((*this)->getNextNode() != kernel.getBody().front().getTerminator())
    return emitOpError() << "must be the last statement of its kernel";
  return success();
}

//===----------------------------------------------------------------------===//
// TensorMapOp
//===----------------------------------------------------------------------===//

LogicalResult TensorMapOp::verify() {
  auto type = cast<MemRefType>(getTensor().getType());
  if (!isInScope(type, MemoryScope::Global))
    return emitOpError() << "maps a tensor in global memory, not "
                         << describeScope(getMemoryScope(type));
  auto arg = dyn_cast<BlockArgument>(getTensor());
  if (!arg || !isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return emitOpError() << "maps a parameter of the kernel's function";
  ArrayRef<int64_t> box = getBox();
  if (box.empty() || box.size() > 5 ||
      static_cast<int64_t>(box.size()) != type.getRank())
    return emitOpError() << "needs one box extent per tensor dimension (1 to "
                            "5), got "
                         << box.size() << " for a rank-" << type.getRank()
                         << " tensor";
  for (int64_t extent : box)
    if (extent < 1 || extent > 256)
      return emitOpError() << "box extents must be in [1, 256], got " << extent;
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0 || !llvm::is_contained({1u, 2u, 4u, 8u}, bits / 8))
    return emitOpError() << "maps elements of 1, 2, 4 or 8 bytes, not "
                         << type.getElementType();
  int64_t innerBytes = box.back() * (bits / 8);
  int64_t swizzle = getSwizzle();
  if (!llvm::is_contained({0, 32, 64, 128}, swizzle))
    return emitOpError() << "swizzle must be 0, 32, 64 or 128 bytes, got "
                         << swizzle;
  if (innerBytes % 16 != 0 || (swizzle && innerBytes > swizzle))
    return emitOpError() << "the box's rows are " << innerBytes
                         << " bytes; they must be a multiple of 16"
                         << (swizzle ? " and at most the swizzle's " +
                                           std::to_string(swizzle)
                                     : std::string());
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

bool tilec::tile::isOcpFp8Type(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

bool tilec::tile::isFnuzFp8Type(Type type) {
  return isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(type);
}

int64_t tilec::tile::getSharedBytes(AllocSharedOp alloc) {
  MemRefType type = alloc.getType();
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

int64_t tilec::tile::getSharedAlignment(AllocSharedOp alloc) {
  int64_t alignment = kSharedAlignment;
  if (SharedLayoutAttr layout = alloc.getLayoutAttr())
    if (SwizzleAttr swizzle = layout.getSwizzle())
      alignment = std::max<int64_t>(
          alignment,
          llvm::divideCeil(alloc.getType().getElementTypeBitWidth(), 8)
              << (swizzle.getBase() + swizzle.getShift() + swizzle.getBits()));
  return alignment;
}

/// Whether a gemm with operands of type `ab` may accumulate into `c`.
static bool isValidAccumulator(Type ab, Type c) {
  if (ab.isF16())
    return c.isF16() || c.isF32();
  if (ab.isBF16() || ab.isF32() || isOcpFp8Type(ab) || isFnuzFp8Type(ab))
    return c.isF32();
  if (ab.isInteger(8))
    return c.isInteger(32);
  return false;
}

static LogicalResult verifyGemmOperand(GemmOp op, StringRef name, Value value,
                                       ArrayRef<MemoryScope> scopes) {
  auto type = cast<MemRefType>(value.getType());
  std::optional<MemoryScope> scope = getMemoryScope(type);
  if (!scope || !llvm::is_contained(scopes, *scope)) {
    InFlightDiagnostic diag = op.emitOpError()
                              << "operand " << name << " must be in ";
    llvm::interleave(
        scopes, [&](MemoryScope s) { diag << describeScope(s); },
        [&] { diag << " or "; });
    return diag << ", but it is in " << describeScope(scope);
  }
  if (type.getRank() != 2 || !type.hasStaticShape())
    return op.emitOpError() << "operand " << name
                            << " must be a 2-D buffer of static shape, got "
                            << formatShape(type.getShape());
  return success();
}

LogicalResult GemmOp::verify() {
  if (failed(verifyGemmOperand(*this, "A", getA(),
                               {MemoryScope::Shared, MemoryScope::Fragment})) ||
      failed(verifyGemmOperand(*this, "B", getB(),
                               {MemoryScope::Shared, MemoryScope::Fragment})) ||
      failed(verifyGemmOperand(*this, "C", getC(), {MemoryScope::Fragment})))
    return failure();

  auto aType = cast<MemRefType>(getA().getType());
  auto bType = cast<MemRefType>(getB().getType());
  auto cType = cast<MemRefType>(getC().getType());
  int64_t m = aType.getDimSize(getTransposeA() ? 1 : 0);
  int64_t ka = aType.getDimSize(getTransposeA() ? 0 : 1);
  int64_t kb = bType.getDimSize(getTransposeB() ? 1 : 0);
  int64_t n = bType.getDimSize(getTransposeB() ? 0 : 1);
  if (ka != kb)
    return emitOpError() << "reduction dimensions differ: A"
                         << (getTransposeA() ? " (transposed)" : "") << " is "
                         << formatShape(aType.getShape()) << " (K = " << ka
                         << ") but B"
                         << (getTransposeB() ? " (transposed)" : "") << " is "
                         << formatShape(bType.getShape()) << " (K = " << kb
                         << ")";
  if (cType.getDimSize(0) != m || cType.getDimSize(1) != n)
    return emitOpError() << "accumulator C is " << formatShape(cType.getShape())
                         << " but A x B is " << m << "x" << n;

  Type aElem = aType.getElementType(), bElem = bType.getElementType();
  bool bothFp8 = (isOcpFp8Type(aElem) && isOcpFp8Type(bElem)) ||
                 (isFnuzFp8Type(aElem) && isFnuzFp8Type(bElem));
  if (aElem != bElem && !bothFp8)
    return emitOpError() << "A holds " << aElem << " but B holds " << bElem
                         << "; the operands must have the same element type";
  if (!isValidAccumulator(aElem, cType.getElementType()))
    return emitOpError() << "cannot accumulate " << aElem << " products in "
                         << cType.getElementType()
                         << " (supported: f16 into f16 or f32; bf16, f32, "
                            "f8E4M3FN and f8E5M2, or f8E4M3FNUZ and "
                            "f8E5M2FNUZ, into f32; i8 into i32)";
  return success();
}

//===----------------------------------------------------------------------===//
// FillOp, ClearOp
//===----------------------------------------------------------------------===//

LogicalResult FillOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (failed(verifyNumericElements(*this, "the buffer", type)))
    return failure();
  if (getValue().getType() != type.getElementType())
    return emitOpError() << "fill value has type " << getValue().getType()
                         << " but the buffer holds " << type.getElementType();
  return success();
}

LogicalResult ClearOp::verify() {
  return verifyNumericElements(*this, "the buffer",
                               cast<MemRefType>(getBuffer().getType()));
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  auto sourceType = cast<MemRefType>(getSource().getType());
  auto destType = cast<MemRefType>(getDest().getType());
  for (auto [name, value] : {std::make_pair("source", getSource()),
                             std::make_pair("dest", getDest())}) {
    std::optional<MemoryScope> scope = scopeOf(value);
    if (!scope || *scope == MemoryScope::Global)
      return emitOpError() << name << " must be in a fragment, shared or local "
                           << "memory, but it is in " << describeScope(scope)
                           << "; copy it on chip first";
  }
  if (!sourceType.hasStaticShape() || !destType.hasStaticShape())
    return emitOpError() << "buffers must have static shapes";
  if (failed(verifyNumericElements(*this, "the source", sourceType)))
    return failure();

  int64_t rank = sourceType.getRank();
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dimension " << dim << " is out of range for a "
                         << "rank-" << rank << " source";
  SmallVector<int64_t> dropped(sourceType.getShape());
  dropped.erase(dropped.begin() + dim);
  if (dropped.empty())
    dropped.push_back(1);
  SmallVector<int64_t> kept(sourceType.getShape());
  kept[dim] = 1;
  if (destType.getShape() != ArrayRef<int64_t>(dropped) &&
      destType.getShape() != ArrayRef<int64_t>(kept))
    return emitOpError() << "reducing a " << formatShape(sourceType.getShape())
                         << " source along dimension " << dim << " gives "
                         << formatShape(dropped) << ", but the destination is "
                         << formatShape(destType.getShape());
  if (sourceType.getElementType() != destType.getElementType())
    return emitOpError() << "source holds " << sourceType.getElementType()
                         << " but the destination holds "
                         << destType.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// AtomicOp
//===----------------------------------------------------------------------===//

LogicalResult AtomicOp::verify() {
  auto destType = cast<MemRefType>(getDest().getType());
  std::optional<MemoryScope> scope = getMemoryScope(destType);
  if (scope != MemoryScope::Global && scope != MemoryScope::Shared)
    return emitOpError() << "destination must be in global or shared memory, "
                            "but it is in "
                         << describeScope(scope);
  Type elem = destType.getElementType();
  if (!elem.isF16() && !elem.isBF16() && !elem.isF32() && !elem.isF64() &&
      !elem.isInteger(32) && !elem.isInteger(64))
    return emitOpError() << "atomics into " << elem
                         << " are not supported (f16, bf16, f32, f64, i32 and "
                            "i64 are)";
  using arith::AtomicRMWKind;
  AtomicRMWKind kind = getKind();
  bool floatKind = llvm::is_contained(
      {AtomicRMWKind::addf, AtomicRMWKind::maxnumf, AtomicRMWKind::minnumf},
      kind);
  bool integerKind = llvm::is_contained(
      {AtomicRMWKind::addi, AtomicRMWKind::maxs, AtomicRMWKind::maxu,
       AtomicRMWKind::mins, AtomicRMWKind::minu},
      kind);
  if (!floatKind && !integerKind)
    return emitOpError() << "kind '" << arith::stringifyAtomicRMWKind(kind)
                         << "' is not an add, maximum or minimum (addf, addi, "
                            "maxnumf, maxs, maxu, minnumf, mins, minu)";
  if (floatKind != isa<FloatType>(elem))
    return emitOpError() << "kind '" << arith::stringifyAtomicRMWKind(kind)
                         << "' is for " << (floatKind ? "floats" : "integers")
                         << ", but the destination holds " << elem;
  if (static_cast<int64_t>(getIndices().size()) != destType.getRank())
    return emitOpError() << "has " << getIndices().size()
                         << " indices for a rank-" << destType.getRank()
                         << " destination";

  auto valueType = dyn_cast<MemRefType>(getValue().getType());
  if (getPrevious() && (valueType || getPrevious().getType() != elem))
    return emitOpError() << "gives the previous value of one element, of "
                            "the destination's type "
                         << elem << ", for a scalar value only";
  if (!valueType) {
    if (getValue().getType() != elem)
      return emitOpError() << "value has type " << getValue().getType()
                           << " but the destination holds " << elem;
    return success();
  }
  if (!valueType.hasStaticShape())
    return emitOpError() << "a tile value must have a static shape";
  if (std::optional<ArrayRef<int64_t>> extents = getExtents()) {
    if (static_cast<int64_t>(extents->size()) != destType.getRank())
      return emitOpError() << "has " << extents->size()
                           << " region extents for a rank-"
                           << destType.getRank() << " destination";
    if (dropUnitDims(*extents) != dropUnitDims(valueType.getShape()))
      return emitOpError() << "a " << formatShape(valueType.getShape())
                           << " tile does not fill a " << formatShape(*extents)
                           << " region";
  } else if (valueType.getRank() > destType.getRank()) {
    return emitOpError() << "a " << formatShape(valueType.getShape())
                         << " tile does not fit a rank-" << destType.getRank()
                         << " destination";
  }
  return verifyNumericElements(*this, "the value", valueType);
}

SmallVector<int64_t> AtomicOp::getRegionExtents() {
  if (std::optional<ArrayRef<int64_t>> extents = getExtents())
    return llvm::to_vector(*extents);
  auto valueType = cast<MemRefType>(getValue().getType());
  auto destType = cast<MemRefType>(getDest().getType());
  SmallVector<int64_t> extents(destType.getRank() - valueType.getRank(), 1);
  llvm::append_range(extents, valueType.getShape());
  return extents;
}

//===----------------------------------------------------------------------===//
// UseSwizzleOp
//===----------------------------------------------------------------------===//

LogicalResult UseSwizzleOp::verify() {
  if (getPanelSizeAttr().getInt() <= 0)
    return emitOpError() << "panel size must be positive, got "
                         << getPanelSizeAttr().getInt();
  for (Operation &op : *getOperation()->getBlock()) {
    if (&op == getOperation())
      break;
    if (isa<UseSwizzleOp>(op))
      return emitOpError() << "a kernel takes at most one use_swizzle";
  }
  return success();
}

std::pair<Value, Value> UseSwizzleOp::emitRemap(OpBuilder &b, Location loc,
                                                Value bx, Value by, Value gx,
                                                Value gy) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  bool rowOrder = getOrder() == RasterOrder::Row;
  // Work in (major, minor): row order panels run along y.
  Value minorExtent = rowOrder ? gx : gy;
  Value majorExtent = rowOrder ? gy : gx;
  Value minor = rowOrder ? bx : by;
  Value major = rowOrder ? by : bx;
  Value linear = arith::AddIOp::create(
      b, loc, minor, arith::MulIOp::create(b, loc, major, minorExtent));
  Value panel = c(getPanelSizeAttr().getInt());
  Value panelBlocks = arith::MulIOp::create(b, loc, panel, minorExtent);
  Value panelIndex = arith::DivUIOp::create(b, loc, linear, panelBlocks);
  Value offset = arith::RemUIOp::create(b, loc, linear, panelBlocks);
  // The last panel may hold fewer rows.
  Value start = arith::MulIOp::create(b, loc, panelIndex, panel);
  Value left = arith::SubIOp::create(b, loc, majorExtent, start);
  Value rows = arith::MinUIOp::create(b, loc, panel, left);
  Value newMajor = arith::AddIOp::create(
      b, loc, start, arith::RemUIOp::create(b, loc, offset, rows));
  Value column = arith::DivUIOp::create(b, loc, offset, rows);
  Value odd = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::AndIOp::create(b, loc, panelIndex, c(1)), c(0));
  Value reversed = arith::SubIOp::create(
      b, loc, arith::SubIOp::create(b, loc, minorExtent, c(1)), column);
  Value newMinor = arith::SelectOp::create(b, loc, odd, reversed, column);
  return rowOrder ? std::make_pair(newMinor, newMajor)
                  : std::make_pair(newMajor, newMinor);
}

//===----------------------------------------------------------------------===//
// AnnotateLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult AnnotateLayoutOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  std::optional<MemoryScope> scope = getMemoryScope(type);
  Attribute layout = getLayout();
  if (scope == MemoryScope::Shared) {
    auto shared = dyn_cast<SharedLayoutAttr>(layout);
    if (!shared)
      return emitOpError() << "a buffer in shared memory takes a "
                              "#tile.shared_layout, got "
                           << layout;
    return verifyLayoutShape(*this, shared, type);
  }
  if (scope == MemoryScope::Fragment) {
    auto fragment = dyn_cast<FragmentLayoutAttr>(layout);
    if (!fragment)
      return emitOpError() << "a fragment takes a #tile.fragment_layout, got "
                           << layout;
    return verifyLayoutShape(*this, fragment, type);
  }
  return emitOpError() << "only buffers in shared memory and fragments have "
                          "layouts, but this one is in "
                       << describeScope(scope);
}

//===----------------------------------------------------------------------===//
// The kernel ABI
//===----------------------------------------------------------------------===//

FailureOr<Value> tilec::tile::reshapeTensorArgument(
    OpBuilder &builder, FunctionOpInterface func, unsigned index, Value pointer,
    ValueRange arguments, Attribute memorySpace) {
  auto type = cast<MemRefType>(func.getArgumentTypes()[index]);
  Location loc = func.getLoc();
  auto dims = func.getArgAttrOfType<DenseI64ArrayAttr>(index, "tile.dims");
  SmallVector<OpFoldResult> sizes, strides(type.getRank());
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (!type.isDynamicDim(dim)) {
      sizes.push_back(builder.getIndexAttr(type.getDimSize(dim)));
      continue;
    }
    if (!dims)
      return func.emitError() << "argument " << index
                              << " has a dynamic extent but no tile.dims";
    sizes.push_back(arguments[dims[dim]]);
  }
  // Row-major: each stride is the product of the extents after it, static
  // while they are.
  OpFoldResult stride = builder.getIndexAttr(1);
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    strides[dim] = stride;
    std::optional<int64_t> size = getConstantIntValue(sizes[dim]);
    std::optional<int64_t> current = getConstantIntValue(stride);
    if (size && current)
      stride = builder.getIndexAttr(*size * *current);
    else
      stride = arith::MulIOp::create(
                   builder, loc,
                   getValueOrCreateConstantIndexOp(builder, loc, stride),
                   getValueOrCreateConstantIndexOp(builder, loc, sizes[dim]))
                   .getResult();
  }
  SmallVector<int64_t> staticStrides;
  for (OpFoldResult s : strides)
    staticStrides.push_back(
        getConstantIntValue(s).value_or(ShapedType::kDynamic));
  auto viewType = MemRefType::get(
      type.getShape(), type.getElementType(),
      StridedLayoutAttr::get(builder.getContext(), 0, staticStrides),
      memorySpace);
  return memref::ReinterpretCastOp::create(builder, loc, viewType, pointer,
                                           builder.getIndexAttr(0), sizes,
                                           strides)
      .getResult();
}

//===----------------------------------------------------------------------===//
// TableGen'd definitions
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileAttrInterfaces.cpp.inc"
#include "tilec/Dialect/Tile/IR/TileOpInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"

void TileDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// CollectiveOpInterface
//===----------------------------------------------------------------------===//

// Each thread has its own local buffers, so an op that writes one is run
// in full by every thread that reaches it.

static bool isLocal(Value buffer) {
  return isInScope(buffer.getType(), MemoryScope::Local);
}

bool CopyOp::isCollective() { return !isLocal(getDest()); }

bool FillOp::isCollective() { return !isLocal(getBuffer()); }

bool ClearOp::isCollective() { return !isLocal(getBuffer()); }

bool ReduceOp::isCollective() { return !isLocal(getDest()); }

bool AtomicOp::isCollective() { return isa<MemRefType>(getValue().getType()); }

bool ParallelOp::isCollective() {
  WalkResult result = getBody().walk([](memref::StoreOp store) {
    return isLocal(store.getMemRef()) ? WalkResult::interrupt()
                                      : WalkResult::advance();
  });
  return !result.wasInterrupted();
}

//===----------------------------------------------------------------------===//
// ThreadRangeOp
//===----------------------------------------------------------------------===//

void ThreadRangeOp::build(OpBuilder &builder, OperationState &state,
                          int64_t first, int64_t count) {
  state.addAttribute(getFirstAttrName(state.name),
                     builder.getI64IntegerAttr(first));
  state.addAttribute(getCountAttrName(state.name),
                     builder.getI64IntegerAttr(count));
  Region *body = state.addRegion();
  body->push_back(new Block());
  ensureTerminator(*body, builder, state.location);
}

LogicalResult ThreadRangeOp::verify() {
  // A range lies within the threads that reach it: its enclosing range's,
  // or the block's.
  int64_t first = static_cast<int64_t>(getFirst());
  int64_t count = static_cast<int64_t>(getCount());
  int64_t outerFirst = 0, outerCount = 0;
  if (auto outer = (*this)->getParentOfType<ThreadRangeOp>()) {
    outerFirst = static_cast<int64_t>(outer.getFirst());
    outerCount = static_cast<int64_t>(outer.getCount());
  } else if (auto kernel = (*this)->getParentOfType<KernelOp>()) {
    outerCount = kernel.getNumThreads();
  } else {
    return success();
  }
  if (first < outerFirst || first + count > outerFirst + outerCount)
    return emitOpError() << "runs threads " << first << " to "
                         << first + count - 1 << ", outside the " << outerFirst
                         << " to " << outerFirst + outerCount - 1
                         << " that reach it";
  int64_t warp = TargetAttr::lookup(*this).getWarpSize();
  if (first % warp != 0 || count % warp != 0)
    return emitOpError() << "runs threads " << first << " to "
                         << first + count - 1
                         << ", which are not whole warps of " << warp;
  return success();
}
