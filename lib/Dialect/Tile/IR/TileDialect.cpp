//===- TileDialect.cpp - The tile dialect ---------------------------------===//
//
// Part of tilec. Registers the tile dialect's attributes and ops.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace tilec::tile;

#include "tilec/Dialect/Tile/IR/TileOpsDialect.cpp.inc"

namespace {
/// Layouts are long and repeat across a kernel; print them once as aliases.
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<FragmentLayoutAttr>(attr)) {
      os << "fragment_layout";
      return AliasResult::OverridableAlias;
    }
    if (isa<SharedLayoutAttr>(attr)) {
      os << "shared_layout";
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  registerAttributes();
  registerOps();
  addInterfaces<TileOpAsmInterface>();
  // lib/Target/NVIDIA and lib/Target/AMD implement the instructions.
  declarePromisedInterfaces<MatrixInstructionAttrInterface, MmaSyncAttr,
                            WgmmaAttr, MfmaAttr>();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == "tile.shared_memory_bytes") {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!bytes || bytes.getInt() < 0)
      return op->emitError() << "'tile.shared_memory_bytes' must be a "
                                "non-negative integer";
    return success();
  }
  if (attr.getName() == TargetAttr::kAttrName) {
    if (!isa<TargetAttr>(attr.getValue()) || !isa<ModuleOp>(op))
      return op->emitError() << "'tile.target' is a #tile.target attribute "
                                "of a module";
    return success();
  }
  if (attr.getName() == "tile.filled_ahead") {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<memref::SubViewOp>(op))
      return op->emitError() << "'tile.filled_ahead' is a unit attribute of "
                                "a memref.subview (a pipeline stage)";
    return success();
  }
  if (attr.getName() == "tile.layout_conversion") {
    if (!isa<StringAttr>(attr.getValue()) || !isa<ParallelOp>(op))
      return op->emitError() << "'tile.layout_conversion' is a string "
                                "attribute of a tile.parallel loop";
    return success();
  }
  if (attr.getName() != "tile.arg_names")
    return op->emitError() << "unknown tile attribute '"
                           << attr.getName().getValue() << "' on an operation";
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError() << "'tile.arg_names' belongs on a function";
  auto names = dyn_cast<ArrayAttr>(attr.getValue());
  if (!names || !llvm::all_of(names, [](Attribute name) {
        return isa<StringAttr>(name);
      }))
    return op->emitError() << "'tile.arg_names' must be an array of strings";
  if (names.size() != function.getNumArguments())
    return op->emitError() << "'tile.arg_names' names " << names.size()
                           << " arguments but the function has "
                           << function.getNumArguments();
  return success();
}

/// `tile.tensor_map` on a kernel argument: {tensor = the index of a memref
/// argument, box = one extent per tensor dimension, swizzle = bytes}.
static LogicalResult verifyTensorMapArgAttribute(Operation *op,
                                                 unsigned regionIndex,
                                                 unsigned argIndex,
                                                 NamedAttribute attr) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
  if (!function || regionIndex != 0 || !dict)
    return op->emitError()
           << "'tile.tensor_map' is a dictionary on a function argument";
  auto tensor = dict.getAs<IntegerAttr>("tensor");
  auto box = dict.getAs<DenseI64ArrayAttr>("box");
  auto swizzle = dict.getAs<IntegerAttr>("swizzle");
  if (!tensor || !box || !swizzle)
    return op->emitError() << "'tile.tensor_map' needs integer 'tensor' and "
                              "'swizzle' and an i64 array 'box'";
  int64_t index = tensor.getInt();
  if (index < 0 || index >= static_cast<int64_t>(function.getNumArguments()))
    return op->emitError() << "'tile.tensor_map' of argument " << argIndex
                           << " names argument " << index
                           << ", which does not exist";
  return success();
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == "tile.tensor_map")
    return verifyTensorMapArgAttribute(op, regionIndex, argIndex, attr);
  if (attr.getName() == kWorkspaceAttrName) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function || regionIndex != 0 || !isa<UnitAttr>(attr.getValue()) ||
        !isa<MemRefType>(function.getArgumentTypes()[argIndex]))
      return op->emitError() << "'" << kWorkspaceAttrName
                             << "' is a unit attribute on a memref argument "
                                "of a function";
    return success();
  }
  if (attr.getName() != "tile.dims")
    return op->emitError() << "unknown tile attribute '"
                           << attr.getName().getValue() << "' on an argument";
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || regionIndex != 0)
    return op->emitError() << "'tile.dims' belongs on a function argument";
  auto dims = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  auto type = dyn_cast<MemRefType>(function.getArgumentTypes()[argIndex]);
  if (!dims || !type)
    return op->emitError() << "'tile.dims' is an array of i64 on a memref "
                              "argument";
  if (static_cast<int64_t>(dims.size()) != type.getRank())
    return op->emitError() << "'tile.dims' of argument " << argIndex << " has "
                           << dims.size() << " entries for a rank-"
                           << type.getRank() << " memref";
  for (auto [dim, source] : llvm::enumerate(dims.asArrayRef())) {
    if (!type.isDynamicDim(dim)) {
      if (source != -1)
        return op->emitError()
               << "'tile.dims' of argument " << argIndex << " gives dimension "
               << dim << " an extent argument, but it is static";
      continue;
    }
    if (source < 0 ||
        source >= static_cast<int64_t>(function.getNumArguments()) ||
        !function.getArgumentTypes()[source].isIndex())
      return op->emitError() << "'tile.dims' of argument " << argIndex
                             << " must name an index argument for dynamic "
                                "dimension "
                             << dim;
  }
  return success();
}
