//===- TileDialect.cpp - The tile dialect ---------------------------------===//
//
// Part of tilec. Registers the tile dialect's attributes and ops.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/OpImplementation.h"

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
}
