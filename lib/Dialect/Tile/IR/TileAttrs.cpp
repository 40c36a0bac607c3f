//===- TileAttrs.cpp - Memory scopes, enums and layouts -------------------===//
//
// Part of tilec. Verifiers, evaluation and the dialect-level printing of
// the tile attributes.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec::tile;

#include "tilec/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileAttrs.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::optional<MemoryScope> tilec::tile::getMemoryScope(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return MemoryScope::Global;
  if (auto scope = dyn_cast<MemoryScopeAttr>(space))
    return scope.getValue();
  return std::nullopt;
}

bool tilec::tile::isInScope(Type type, MemoryScope scope) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && getMemoryScope(memref) == scope;
}

std::optional<int64_t>
tilec::tile::evaluateAffineExpr(AffineExpr expr, ArrayRef<int64_t> dims,
                                ArrayRef<int64_t> symbols) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return cast<AffineConstantExpr>(expr).getValue();
  case AffineExprKind::DimId: {
    unsigned pos = cast<AffineDimExpr>(expr).getPosition();
    if (pos >= dims.size())
      return std::nullopt;
    return dims[pos];
  }
  case AffineExprKind::SymbolId: {
    unsigned pos = cast<AffineSymbolExpr>(expr).getPosition();
    if (pos >= symbols.size())
      return std::nullopt;
    return symbols[pos];
  }
  default:
    break;
  }

  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::optional<int64_t> lhs =
      evaluateAffineExpr(binary.getLHS(), dims, symbols);
  std::optional<int64_t> rhs =
      evaluateAffineExpr(binary.getRHS(), dims, symbols);
  if (!lhs || !rhs)
    return std::nullopt;
  int64_t result;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    if (llvm::AddOverflow(*lhs, *rhs, result))
      return std::nullopt;
    return result;
  case AffineExprKind::Mul:
    if (llvm::MulOverflow(*lhs, *rhs, result))
      return std::nullopt;
    return result;
  case AffineExprKind::FloorDiv:
    if (*rhs == 0 || (*lhs == INT64_MIN && *rhs == -1))
      return std::nullopt;
    return llvm::divideFloorSigned(*lhs, *rhs);
  case AffineExprKind::CeilDiv:
    if (*rhs == 0 || (*lhs == INT64_MIN && *rhs == -1))
      return std::nullopt;
    return llvm::divideCeilSigned(*lhs, *rhs);
  case AffineExprKind::Mod:
    if (*rhs <= 0)
      return std::nullopt;
    return llvm::mod(*lhs, *rhs);
  default:
    return std::nullopt;
  }
}

static LogicalResult verifyShape(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape) {
  if (shape.empty())
    return emitError() << "layout shape must have at least one dimension";
  for (int64_t extent : shape)
    if (extent <= 0)
      return emitError() << "layout shape must be positive, got " << extent;
  return success();
}

//===----------------------------------------------------------------------===//
// SwizzleAttr
//===----------------------------------------------------------------------===//

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  unsigned bits, unsigned base,
                                  unsigned shift) {
  if (bits == 0)
    return emitError() << "swizzle must permute at least one bit";
  if (shift < bits)
    return emitError() << "swizzle shift (" << shift
                       << ") must be at least its bit count (" << bits
                       << ") so that the bits read and written do not overlap";
  if (bits + base + shift > 32)
    return emitError() << "swizzle reaches bit " << bits + base + shift
                       << "; offsets are at most 32 bits";
  return success();
}

TargetAttr TargetAttr::lookup(Operation *op) {
  for (Operation *current = op; current; current = current->getParentOp())
    if (auto target = current->getAttrOfType<TargetAttr>(kAttrName))
      return target;
  return TargetAttr::get(op->getContext(), "generic", /*warp_size=*/32,
                         /*shared_memory=*/0, /*registers=*/255,
                         TargetFeature::None);
}

SmallVector<Attribute> TargetAttr::getMatrixInstructions() const {
  // Preferred first: wgmma over mma.sync, whose warp tiles are smaller.
  SmallVector<Attribute> instructions;
  if (has(TargetFeature::Wgmma))
    instructions.push_back(WgmmaAttr::get(getContext()));
  if (has(TargetFeature::MmaSync))
    instructions.push_back(MmaSyncAttr::get(getContext()));
  if (has(TargetFeature::Mfma))
    instructions.push_back(MfmaAttr::get(getContext()));
  return instructions;
}

int64_t SwizzleAttr::apply(int64_t offset) const {
  int64_t mask = ((int64_t(1) << getBits()) - 1) << getBase();
  return offset ^ ((offset >> getShift()) & mask);
}

//===----------------------------------------------------------------------===//
// SharedLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, AffineMap map,
                         SwizzleAttr swizzle) {
  if (failed(verifyShape(emitError, shape)))
    return failure();
  if (map.getNumSymbols() != 0)
    return emitError() << "shared layout map must not have symbols";
  if (map.getNumDims() != shape.size())
    return emitError() << "shared layout map takes " << map.getNumDims()
                       << " indices but the shape has " << shape.size()
                       << " dimensions";
  if (map.getNumResults() != 1)
    return emitError() << "shared layout map must have one result (the "
                          "offset), got "
                       << map.getNumResults();
  return success();
}

std::optional<int64_t> SharedLayoutAttr::apply(ArrayRef<int64_t> index) const {
  std::optional<int64_t> offset =
      evaluateAffineExpr(getMap().getResult(0), index);
  if (!offset)
    return std::nullopt;
  if (SwizzleAttr swizzle = getSwizzle())
    return swizzle.apply(*offset);
  return offset;
}

//===----------------------------------------------------------------------===//
// FragmentLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
FragmentLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<int64_t> shape, int64_t threads,
                           int64_t slots, int64_t replicate, AffineMap map,
                           AffineMap inverse) {
  if (failed(verifyShape(emitError, shape)))
    return failure();
  if (threads <= 0)
    return emitError() << "fragment layout needs a positive thread count, got "
                       << threads;
  if (slots <= 0)
    return emitError() << "fragment layout needs a positive slot count, got "
                       << slots;
  if (replicate <= 0)
    return emitError() << "fragment layout replication must be positive, got "
                       << replicate;
  if (map.getNumSymbols() != 0)
    return emitError() << "fragment layout map must not have symbols";
  unsigned expectedDims = shape.size() + (replicate > 1 ? 1 : 0);
  if (map.getNumDims() != expectedDims)
    return emitError() << "fragment layout map takes " << map.getNumDims()
                       << " indices but expects " << expectedDims << " ("
                       << shape.size() << " dimensions"
                       << (replicate > 1 ? " and the replica)" : ")");
  if (map.getNumResults() != 2)
    return emitError() << "fragment layout map must have two results (thread "
                          "and slot), got "
                       << map.getNumResults();
  if (inverse && (inverse.getNumDims() != 2 || inverse.getNumSymbols() != 0 ||
                  inverse.getNumResults() != expectedDims))
    return emitError() << "fragment layout inverse must map (thread, slot) to "
                       << expectedDims << " results";
  return success();
}

std::optional<SmallVector<int64_t>>
FragmentLayoutAttr::applyInverse(int64_t thread, int64_t slot) const {
  AffineMap inverse = getInverse();
  if (!inverse)
    return std::nullopt;
  SmallVector<int64_t> index;
  for (AffineExpr result : inverse.getResults()) {
    std::optional<int64_t> value = evaluateAffineExpr(result, {thread, slot});
    if (!value)
      return std::nullopt;
    index.push_back(*value);
  }
  for (auto [value, extent] : llvm::zip(index, getShape()))
    if (value < 0 || value >= extent)
      return std::nullopt;
  if (getReplicate() > 1 &&
      (index.back() < 0 || index.back() >= getReplicate()))
    return std::nullopt;
  return index;
}

int64_t FragmentLayoutAttr::getNumElements() const {
  int64_t count = 1;
  for (int64_t extent : getShape())
    count *= extent;
  return count;
}

std::optional<std::pair<int64_t, int64_t>>
FragmentLayoutAttr::apply(ArrayRef<int64_t> index, int64_t replica) const {
  SmallVector<int64_t> dims(index);
  if (getReplicate() > 1)
    dims.push_back(replica);
  AffineMap map = getMap();
  std::optional<int64_t> thread = evaluateAffineExpr(map.getResult(0), dims);
  std::optional<int64_t> slot = evaluateAffineExpr(map.getResult(1), dims);
  if (!thread || !slot)
    return std::nullopt;
  return std::make_pair(*thread, *slot);
}

//===----------------------------------------------------------------------===//
// Dialect hooks
//===----------------------------------------------------------------------===//

Attribute TileDialect::parseAttribute(DialectAsmParser &parser,
                                      Type type) const {
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  Attribute attr;
  OptionalParseResult result =
      generatedAttributeParser(parser, &mnemonic, type, attr);
  if (result.has_value())
    return succeeded(*result) ? attr : Attribute();
  if (std::optional<MemoryScope> scope = symbolizeMemoryScope(mnemonic))
    return MemoryScopeAttr::get(getContext(), *scope);
  parser.emitError(loc, "unknown tile attribute '") << mnemonic << "'";
  return {};
}

void TileDialect::printAttribute(Attribute attr,
                                 DialectAsmPrinter &printer) const {
  if (auto scope = dyn_cast<MemoryScopeAttr>(attr)) {
    printer << stringifyMemoryScope(scope.getValue());
    return;
  }
  (void)generatedAttributePrinter(attr, printer);
}

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}
